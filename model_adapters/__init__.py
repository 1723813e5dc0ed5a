"""The built-in adapter kinds, beside the package: each module gives an adapter and its `KIND`, registered under
the entry-point group `absa_checks.adapters` in pyproject.toml (absa_checks never imports this package)."""
