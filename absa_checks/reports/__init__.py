"""Stage 6, reports: JSON, Markdown, terminal, Allure results and pictures, from the RunResult."""
