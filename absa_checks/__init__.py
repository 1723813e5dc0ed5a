"""absa-checks: behavioural tests for aspect-based sentiment analysis models."""

__version__ = "0.1.0"
