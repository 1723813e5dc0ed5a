"""The small contract between absa-checks and a model: queries in, label probabilities out.

An adapter answers each query with a mapping from label *names* to probabilities (or a single
label name, read as probability 1), or with a `QueryError` when it cannot answer that query.
Names are mapped to polarities by name (`absa_checks.common.labels.canonical_label`), never by position.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable


@dataclass(frozen=True)
class Query:
    """One question to the model: the polarity of `aspect` at sentence[start:end]."""

    sentence: str
    aspect: str
    start: int
    end: int
    record_id: str | None = None  # the id in the source's own file, when it has one (replay matches on it)

    def text_key(self) -> tuple[str, str, int, int]:
        """What a model sees; two queries with the same text key get the same answer from a real model."""
        return (self.sentence, self.aspect, self.start, self.end)


@dataclass(frozen=True)
class QueryError:
    """The adapter could not answer this one query (e.g. no prediction in a replay file): `message` says it in
    full; `reason` is the kind of failure, the same text for every query that failed the same way (counted by it,
    e.g. "HTTP 500"; empty when the adapter gives none); `sent` is False for a query never sent (the adapter
    had stopped asking, or the run was interrupted first)."""

    message: str
    reason: str = ""
    sent: bool = True

    @property
    def kind(self) -> str:
        """What failures are counted by: the reason, else the message."""
        return self.reason or self.message


Answer = Mapping[str, float] | str | QueryError


@runtime_checkable
class Adapter(Protocol):
    """What every model adapter provides.

    Optional: `cacheable = True` when answers depend only on what `cache_key(query)` returns (default
    `Query.text_key`), so absa-checks may predict each distinct key once and keep answers on disk.
    Optional: `load()` and a `loaded` property, when loading is slow (a checkpoint): absa-checks then
    announces the loading in one line before the first prediction.
    """

    name: str

    def describe(self) -> dict[str, object]:
        """Settings worth printing in a report (kind, path, column, ...); JSON-serialisable."""

    def fingerprint(self) -> str:
        """A short hash that changes whenever the model's answers could change."""

    def predict(self, queries: Sequence[Query]) -> list[Answer]:
        """One answer per query, in order."""


class Extractor(Protocol):
    """An extraction model's adapter (`task = "extract"`): it finds the aspects itself, answering each sentence
    with its tuples (absa_checks.common.tuples.AspectTuple), a text answer, or a `QueryError`
    (absa_checks/models/answers.py)."""

    name: str
    task: str

    def describe(self) -> dict[str, object]:
        """Settings worth printing in a report; JSON-serialisable."""

    def fingerprint(self) -> str:
        """A short hash that changes whenever the model's answers could change."""

    def extract(self, sentences: Sequence[str]) -> list[Any]:
        """One answer per sentence, in order."""
