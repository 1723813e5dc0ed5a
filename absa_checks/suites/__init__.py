"""Stage 2, suites: suite YAML read into specs; strategies, expectations, slices, cases."""
