"""The pytest front door: hooks (plugin.py), options, items and terminal glue over the run core."""
