"""The run core: one `Run` behind the pytest plugin, the CLI and `absa_checks.evaluate` (no pytest here)."""
