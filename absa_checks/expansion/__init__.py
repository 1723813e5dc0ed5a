"""Expanded ground truth for extraction (Zoom In-N-Out, Yang et al., NAACL 2025): the three requests (prompt) and
the deterministic checks every proposed form passes before JUDGE's verdict counts (checks); asking the endpoint is
absa_checks.workflows.expand, the file absa_checks.sources.expanded_gold. docs/extraction.md."""
