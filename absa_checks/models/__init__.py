"""Stage 4, models: the adapter registry and protocol, predictions, the prediction cache, progress."""
