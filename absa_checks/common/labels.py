"""The three polarities, and mapping label names to them by name (never by position)."""

from __future__ import annotations

import difflib
import re

POLARITIES: tuple[str, str, str] = ("negative", "neutral", "positive")

_ALIASES = {
    "negative": "negative", "neg": "negative", "-1": "negative",
    "neutral": "neutral", "neu": "neutral", "0": "neutral",
    "positive": "positive", "pos": "positive", "1": "positive",
}

POLAR = ("positive", "negative")  # the polarities a reversal turns into each other
_OPPOSITE = {"negative": "positive", "positive": "negative", "neutral": "neutral"}


def canonical_label(name: object) -> str | None:
    """`Positive`, `POS`, `pos`, `1` -> `positive`; None when the name is not a polarity word. For data files
    (where -1/0/1 is a documented convention); a model's answer is read by `polarity_word`."""
    return _ALIASES.get(str(name).strip().lower())


def polarity_hint(name: object) -> str:
    """For a label that is no polarity: " did you mean 'negative'?" when it is a slip of one (`negtive`,
    `postive`), else the polarities a file may use."""
    close = difflib.get_close_matches(str(name).strip().lower(), [*POLARITIES, "conflict"], n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else f"use one of {', '.join(POLARITIES)} (or conflict)"


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


def label_key(name: object) -> str:
    """A model's label as `labels:` keys are compared: a whole number as its digits (`1`, `"1"`, `" 01"` -> "1"),
    a name case-folded and stripped (`Pos` -> "pos")."""
    text = str(name).strip()
    return str(int(text)) if re.fullmatch(r"[-+]?\d+", text) else text.casefold()


def label_map(raw: object, where: str) -> dict[str, str]:
    """An entry's `labels:` ({model label: polarity}) checked when the entry is read; raises ValueError with the fix.

    - every value a polarity word;
    - each key a whole number (`0` and `"0"` are one key, normalised to "0") or a name (compared case-folded);
      no key given twice after that normalisation (`0` and `"0"`, `Pos` and `pos`). Numbers and names may be
      mixed: a transformers checkpoint's output is named by its index or by its label name (`LABEL_0`);
    - several labels may mean one polarity (star ratings: {1: negative, 2: negative, 3: neutral, 4: positive,
      5: positive}) only when every polarity is named: {0: negative, 1: negative, 2: positive} (no neutral,
      two outputs for negative) is a mislabelled three-class head, not a choice, and is refused.
    """
    if raw is None:
        return {}
    if not isinstance(raw, dict) or not raw:
        raise ValueError(f"{where}: labels must map the model's labels to polarities, e.g. "
                         "labels: {0: negative, 1: neutral, 2: positive}")
    found: dict[str, str] = {}
    given: dict[str, object] = {}
    for key, value in raw.items():
        if isinstance(key, bool) or not isinstance(key, (int, str)) or not str(key).strip():
            raise ValueError(f"{where}: labels has the key {key!r}, which is neither a whole number nor a label "
                             "name; write the model's labels as they are, e.g. labels: {0: negative, 1: neutral, "
                             "2: positive}")
        polarity = polarity_word(value)
        if polarity is None:
            raise ValueError(f"{where}: labels maps {key!r} to {value!r}, which is not a polarity (negative, "
                             "neutral, positive)")
        normal = label_key(key)
        if normal in found:
            raise ValueError(f"{where}: labels gives the label {normal} twice ({given[normal]!r} and {key!r}: "
                             "a number and the same number as text, or one name in two cases); keep one")
        found[normal], given[normal] = polarity, key
    values = list(found.values())
    shared = sorted({p for p in values if values.count(p) > 1})
    missing = [p for p in POLARITIES if p not in values]
    if shared and missing:
        keys = [given[k] for k, p in found.items() if p == shared[0]]
        raise ValueError(f"{where}: labels maps {' and '.join(map(repr, keys))} all to {shared[0]} and nothing to "
                         f"{' or '.join(missing)}; each output of a model needs its own polarity (several labels "
                         "may share one only when all three polarities are named, as for star ratings), e.g. "
                         "labels: {0: negative, 1: neutral, 2: positive}")
    return found


def opposite(polarity: str) -> str:
    """positive <-> negative; neutral stays neutral (as in ARTS)."""
    return _OPPOSITE[polarity]
