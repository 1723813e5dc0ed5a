"""An offline, explainable ABSA model on the VADER lexicon (the `vaderSentiment` package).

scope "target" (model `lexicon`): VADER over the target aspect's own clause, falling back to a
few tokens around the target when that clause holds no lexicon word.
scope "sentence" (model `lexicon-sentence`): VADER over the whole sentence, ignoring the aspect;
a deliberately aspect-blind baseline that a robustness suite must catch.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from importlib.metadata import version
from pathlib import Path

import vaderSentiment.vaderSentiment as _vader

from absa_checks.models.adapters import AdapterKind
from absa_checks.perturb.polarity import Polarity
from absa_checks.sources.clauses import target_clause, target_window
from model_adapters.protocol import Answer, Query, QueryError

# Bump whenever the scoring below changes, so cached answers are invalidated (see fingerprint()).
ALGORITHM_VERSION = "2"  # 2: words VADER lacks come from TextBlob's adjective lexicon

SCOPES: dict[str, str] = {"target": "lexicon", "sentence": "lexicon-sentence"}
THRESHOLD = 0.05  # VADER's own recommended cut-off for the compound score
TEMPERATURE = 10.0



def _lexicon_path() -> Path:
    return Path(_vader.__file__).with_name("vader_lexicon.txt")


def compound_to_probabilities(c: float) -> dict[str, float]:
    """Softmax over logits {positive: c, negative: -c, neutral: THRESHOLD}, times TEMPERATURE."""
    logits = {"negative": -c, "neutral": THRESHOLD, "positive": c}
    top = max(logits.values())  # subtract the max for numerical stability
    exps = {k: math.exp(TEMPERATURE * (v - top)) for k, v in logits.items()}
    total = sum(exps.values())
    return {k: v / total for k, v in exps.items()}


def compound_to_label(c: float) -> str:
    """VADER's decision rule: >= 0.05 positive, <= -0.05 negative, else neutral."""
    if c >= THRESHOLD:
        return "positive"
    if c <= -THRESHOLD:
        return "negative"
    return "neutral"


class LexiconAdapter:
    """VADER-based sentiment for a target aspect ("target") or the whole sentence ("sentence")."""

    def __init__(self, scope: str = "target") -> None:
        if scope not in SCOPES:
            raise ValueError(f"unknown scope {scope!r}; valid scopes: {', '.join(sorted(SCOPES))}")
        self.scope = scope
        self.name = SCOPES[scope]
        self._version = version("vaderSentiment")
        self._lexicon: Polarity | None = None

    @property
    def _polarity(self) -> Polarity:
        """VADER with TextBlob's words for the review adjectives it lacks ("slow", "bland", "stale"): the lexicon
        the generator's second opinion reads too. Read once per instance, at its first prediction (importing
        TextBlob takes about a second): a run that stops before predicting, at a usage error or with every answer
        in the cache, never reads it."""
        if self._lexicon is None:
            self._lexicon = Polarity()
        return self._lexicon

    def describe(self) -> dict[str, object]:
        return {"kind": "lexicon", "scope": self.scope,
                "lexicon": f"vaderSentiment {self._version} + textblob {version('textblob')}"}

    def fingerprint(self) -> str:
        h = hashlib.sha256()
        # The package version too: VADER's rules (negation, boosters) live in code, not the lexicon.
        for part in (_lexicon_path().read_bytes(), self.scope.encode(), ALGORITHM_VERSION.encode(),
                     self._version.encode(), version("textblob").encode()):
            h.update(len(part).to_bytes(8, "big"))  # length prefix keeps the parts unambiguous
            h.update(part)
        return h.hexdigest()[:16]

    def _score(self, text: str) -> float:
        return self._polarity.compound(text)

    def compound(self, query: Query) -> float:
        """The VADER compound score this adapter's decision is based on."""
        if self.scope == "sentence":
            return self._score(query.sentence)
        c = self._score(target_clause(query.sentence, query.start, query.end))
        if c == 0.0:  # no opinion word in the clause: look just around the target
            c = self._score(target_window(query.sentence, query.start, query.end))
        return c

    def predict(self, queries: Sequence[Query]) -> list[Answer]:
        answers: list[Answer] = []
        for q in queries:
            if self.scope == "target" and not 0 <= q.start <= q.end <= len(q.sentence):
                answers.append(QueryError(f"span [{q.start}, {q.end}) outside the sentence"))
                continue
            answers.append(compound_to_probabilities(self.compound(q)))
        return answers


def _build(spec) -> LexiconAdapter:
    from absa_checks.common.errors import AbsaChecksError

    try:
        return LexiconAdapter(scope=spec.settings.get("scope", "target"))
    except ValueError as err:
        raise AbsaChecksError(f"model '{spec.name}': {err}") from None


# Registered in pyproject.toml under the entry-point group absa_checks.adapters
KIND = AdapterKind("lexicon", keys=("scope",), build=_build, inline=lambda rest: {"scope": rest},
                   inline_form="lexicon:<target|sentence>")
