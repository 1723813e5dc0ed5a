"""Word valences and clause scores from sentiment lexicons that ship inside packages (offline).

VADER (`vaderSentiment`) first; TextBlob's pattern lexicon (`en-sentiment.xml`) for the common review
adjectives VADER lacks ("slow", "bland", "stale"), rescaled from -1..1 to VADER's -4..4. Used by the
`lexicon` model and by the generator's second opinion on its own reversals.
"""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from pathlib import Path

VADER_SCALE = 4.0


def supplementary_lexicon() -> dict[str, float]:
    """TextBlob's en-sentiment.xml: mean polarity per word form (several senses are averaged)."""
    import textblob

    path = Path(textblob.__file__).with_name("en") / "en-sentiment.xml"
    sums: dict[str, list[float]] = {}
    for entry in ElementTree.parse(path).getroot().iter("word"):
        sums.setdefault(entry.get("form", "").lower(), []).append(float(entry.get("polarity", 0)))
    return {word: sum(values) / len(values) for word, values in sums.items()
            if word and " " not in word and sum(values) != 0}


class Polarity:
    """VADER's analyzer with TextBlob's words added; one instance per run (it holds the lexicon)."""

    def __init__(self) -> None:
        import vaderSentiment.vaderSentiment as vader

        self._analyzer = vader.SentimentIntensityAnalyzer()
        for word, polarity in supplementary_lexicon().items():
            self._analyzer.lexicon.setdefault(word, VADER_SCALE * polarity)

    def valence(self, word: str) -> float:
        """The word's valence on VADER's -4..4 scale; 0.0 when neither lexicon knows it."""
        return float(self._analyzer.lexicon.get(word.lower().replace("\u2019", "'"), 0.0))

    def compound(self, text: str) -> float:
        """VADER's compound score of `text` (-1..1), negation and boosters included."""
        return float(self._analyzer.polarity_scores(text)["compound"])
