"""The three polarities, and mapping label names to them by name (never by position)."""

from __future__ import annotations

POLARITIES: tuple[str, str, str] = ("negative", "neutral", "positive")

_ALIASES = {
    "negative": "negative", "neg": "negative", "-1": "negative",
    "neutral": "neutral", "neu": "neutral", "0": "neutral",
    "positive": "positive", "pos": "positive", "1": "positive",
}

_OPPOSITE = {"negative": "positive", "positive": "negative", "neutral": "neutral"}


def canonical_label(name: object) -> str | None:
    """`Positive`, `POS`, `pos`, `1` -> `positive`; None when the name is not a polarity word."""
    return _ALIASES.get(str(name).strip().lower())


def opposite(polarity: str) -> str:
    """positive <-> negative; neutral stays neutral (as in ARTS)."""
    return _OPPOSITE[polarity]
