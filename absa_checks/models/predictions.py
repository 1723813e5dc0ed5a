"""Predict once, assert many: collect unique queries, batch them, normalise the adapter's answers."""

from __future__ import annotations

import math
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from absa_checks.common.errors import AbsaChecksError, AdapterError
from absa_checks.common.examples import Example
from absa_checks.common.labels import POLARITIES, label_key, looks_numeric, polarity_word
from absa_checks.models.protocol import Adapter, Query, QueryError
from absa_checks.suites.expectations import label_of

SUM_TOLERANCE = 0.02  # |sum - 1| a model's probabilities may be off by (two-decimal rounding of three stays within it)


@dataclass(frozen=True)
class Prediction:
    probs: tuple[float, float, float]  # in POLARITIES order: negative, neutral, positive
    given_sum: float = field(default=1.0, compare=False)  # what the model's probabilities summed to, as answered

    @property
    def renormalised(self) -> bool:
        """The model's probabilities were off 1 by more than SUM_TOLERANCE: divided by their sum here, and
        counted and shown (scores or a wrong head are not probabilities)."""
        return abs(self.given_sum - 1.0) > SUM_TOLERANCE

    @property
    def label(self) -> str:
        return label_of(self.probs)

    def as_dict(self) -> dict[str, float]:
        return dict(zip(POLARITIES, self.probs))


def query_for(example: Example) -> Query:
    t = example.target
    return Query(example.sentence, t.term, t.start, t.end, example.record_id)


def plan(queries: Iterable[Query]) -> list[Query]:
    """Unique queries, longest first, so each batch pads to similar lengths."""
    unique = dict.fromkeys(queries)
    return sorted(unique, key=lambda q: (-len(q.sentence) - len(q.aspect), q.sentence, q.aspect, q.start, q.record_id or ""))


def label_polarity(name: object, adapter_name: str, labels: Mapping[str, str] | None = None) -> str:
    """The polarity a model's label means: the entry's `labels:` mapping first, then the label's name
    (never a number: is a model's 1 positive or neutral?). AdapterError with the fix otherwise."""
    if labels and label_key(name) in labels:
        return labels[label_key(name)]
    polarity = polarity_word(name)
    if polarity is not None:
        return polarity
    if looks_numeric(name):
        raise AdapterError(f"model '{adapter_name}' answered the label {name!r}, which is not a polarity but a "
                           "number: numbers are never read as polarities (is 1 positive or neutral?); say what they "
                           "mean in the model's models.yaml entry, e.g. labels: {0: negative, 1: neutral, 2: positive}")
    raise AdapterError(f"model '{adapter_name}' answered the label {name!r}, which is not a polarity "
                       "(negative, neutral, positive); map its labels by name in models.yaml "
                       "(labels: {<its label>: <polarity>, ...})")


def _clashing_keys(answer: Mapping, labels: Mapping[str, str] | None) -> list[object]:
    """Two keys of one answer that are one label (`positive` and `Positive`, `0` and `"0"`), or two names read
    as one polarity without the entry's `labels:` saying so (`positive` and `pos`); [] when there are none."""
    seen: dict[str, object] = {}
    for name in answer:
        mapped = bool(labels) and label_key(name) in labels  # type: ignore[operator]
        polarity = None if mapped else polarity_word(name)
        for key in (f"key:{label_key(name)}", *((f"name:{polarity}",) if polarity else ())):
            if key in seen:
                return [seen[key], name]
            seen[key] = name
    return []


def normalise(answer: object, adapter_name: str, labels: Mapping[str, str] | None = None) -> Prediction | QueryError:
    """An adapter's answer -> Prediction over (negative, neutral, positive), mapping labels by name (or by
    the entry's `labels:`)."""
    if isinstance(answer, QueryError):
        return answer
    if isinstance(answer, (str, int)) and not isinstance(answer, bool):
        label = label_polarity(answer, adapter_name, labels)
        return Prediction(tuple(1.0 if p == label else 0.0 for p in POLARITIES))  # type: ignore[arg-type]
    if not isinstance(answer, Mapping):
        raise AdapterError(f"model '{adapter_name}' answered {answer!r}; expected a mapping of label names "
                           "to probabilities, a label name, or a QueryError")
    clash = _clashing_keys(answer, labels)
    if clash:
        return QueryError(f"model '{adapter_name}' answered {' and '.join(map(repr, clash))} as two labels of one "
                          "polarity; it is not guessed whether to add them or which one is meant: answer each "
                          "label once")
    probs = dict.fromkeys(POLARITIES, 0.0)
    for name, value in answer.items():
        label = label_polarity(name, adapter_name, labels)
        try:
            probs[label] += float(value)
        except (TypeError, ValueError):
            raise AdapterError(f"model '{adapter_name}' gave {value!r} as the probability of {name!r}") from None
    total = sum(probs.values())
    if not math.isfinite(total) or total <= 0 or any(v < 0 for v in probs.values()):
        raise AdapterError(f"model '{adapter_name}' gave probabilities {answer!r}; they must be non-negative "
                           "and not all zero")
    # within SUM_TOLERANCE of 1 the division is rounding; beyond it the answer is marked (Prediction.renormalised)
    return Prediction(tuple(probs[p] / total for p in POLARITIES), total)  # type: ignore[arg-type]


def renormalised(answers: Iterable[object]) -> int:
    """How many of `answers` had probabilities that did not sum to 1 (beyond SUM_TOLERANCE)."""
    return sum(isinstance(found, Prediction) and found.renormalised for found in answers)


T = TypeVar("T")
A = TypeVar("A")
MAX_FAILED_BATCHES = 3  # in a row: the model is broken, not one batch; the rest is not attempted


def predict_all(adapter: Adapter, queries: Sequence[Query], batch_size: int,
                on_batch: Callable[[dict[Query, Prediction | QueryError]], None] | None = None
                ) -> dict[Query, Prediction | QueryError]:
    """Ask the adapter about every query once, `batch_size` at a time (in the adapter's preferred order,
    when it has one: a transformer sorts by token count so batches pad little)."""
    if hasattr(adapter, "arrange"):
        queries = adapter.arrange(queries)

    def answer(batch: list[Query]) -> dict[Query, Prediction | QueryError]:
        answers = adapter.predict(batch)
        if len(answers) != len(batch):
            raise AdapterError(f"model '{adapter.name}' answered {len(answers)} predictions for a batch of "
                               f"{len(batch)} queries; an adapter must answer each query once, in order")
        labels = getattr(adapter, "label_map", None)  # the entry's labels: mapping, for kinds that take one
        return {query: normalise(found, adapter.name, labels if isinstance(labels, Mapping) else None)
                for query, found in zip(batch, answers)}

    return in_batches(queries, batch_size, answer, on_batch)


def in_batches(items: Sequence[T], batch_size: int, answer: Callable[[list[T]], dict[T, A]],
               on_batch: Callable[[dict], None] | None = None) -> dict[T, A | QueryError]:
    """`answer` for every item, `batch_size` at a time. A batch the model fails on makes its own items
    errors, not the others'; after MAX_FAILED_BATCHES failures in a row the remaining items are errors
    too, without asking. `on_batch` gets each batch's answers as soon as they exist (the cache keeps
    them, so an interrupt loses only the batch under way)."""
    results: dict = {}
    failed_in_a_row, first_failure = 0, ""
    for first in range(0, len(items), batch_size):
        batch = list(items[first:first + batch_size])
        if failed_in_a_row >= MAX_FAILED_BATCHES:
            results.update((item, QueryError(f"not predicted: the model failed on {MAX_FAILED_BATCHES} batches in "
                                             f"a row; the first failure: {first_failure.splitlines()[0]}"))
                           for item in batch)
            continue
        found: Mapping[T, A | QueryError]
        try:
            found = answer(batch)
            failed_in_a_row = 0
        except AbsaChecksError as err:
            found = {item: QueryError(str(err)) for item in batch}
            failed_in_a_row, first_failure = failed_in_a_row + 1, first_failure or str(err)
        except Exception as err:  # a bug in the model or its adapter: these items error, never pass
            message = (f"raised {type(err).__name__}: {err} (batch of {len(batch)} from item {first + 1})\n"
                       + "".join(traceback.format_exception(err)))
            found = {item: QueryError(message) for item in batch}
            failed_in_a_row, first_failure = failed_in_a_row + 1, first_failure or message
        results.update(found)
        if on_batch is not None:
            on_batch(found)
    return results
