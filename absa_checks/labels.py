"""The three polarities, and mapping label names to them by name (never by position)."""

from __future__ import annotations

import re

POLARITIES: tuple[str, str, str] = ("negative", "neutral", "positive")

_ALIASES = {
    "negative": "negative", "neg": "negative", "-1": "negative",
    "neutral": "neutral", "neu": "neutral", "0": "neutral",
    "positive": "positive", "pos": "positive", "1": "positive",
}

_OPPOSITE = {"negative": "positive", "positive": "negative", "neutral": "neutral"}


def canonical_label(name: object) -> str | None:
    """`Positive`, `POS`, `pos`, `1` -> `positive`; None when the name is not a polarity word. For data files
    (where -1/0/1 is a documented convention); a model's answer is read by `polarity_word`."""
    return _ALIASES.get(str(name).strip().lower())


def polarity_word(name: object) -> str | None:
    """A model's label name -> its polarity, by WORD only (`Positive`, `POS`, `neu`); None for anything
    else, numbers included: whether a model's `1` means positive or neutral is the entry's `labels:` to say."""
    if isinstance(name, bool) or not isinstance(name, (str, int, float)):
        return None
    text = str(name).strip().lower()
    return None if looks_numeric(text) else _ALIASES.get(text)


def looks_numeric(name: object) -> bool:
    """`0`, `1`, `-1`, `2.0`, `LABEL_1`: a label that is a position, not a name."""
    text = str(name).strip().lower()
    return bool(re.fullmatch(r"(label_?)?[-+]?\d+(\.\d+)?", text))


def label_map(raw: object, where: str) -> dict[str, str]:
    """An entry's `labels:` ({model label: polarity}) checked: every value a polarity word (several labels may
    mean one polarity: star ratings). Keys are compared as text (`1` and `"1"` are the same label). Raises ValueError with the fix."""
    if raw is None:
        return {}
    if not isinstance(raw, dict) or not raw:
        raise ValueError(f"{where}: labels must map the model's labels to polarities, e.g. "
                         "labels: {0: negative, 1: neutral, 2: positive}")
    found: dict[str, str] = {}
    for key, value in raw.items():
        polarity = polarity_word(value)
        if polarity is None:
            raise ValueError(f"{where}: labels maps {key!r} to {value!r}, which is not a polarity (negative, "
                             "neutral, positive)")
        found[str(key).strip()] = polarity
    return found


def opposite(polarity: str) -> str:
    """positive <-> negative; neutral stays neutral (as in ARTS)."""
    return _OPPOSITE[polarity]
