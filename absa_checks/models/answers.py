"""An extraction model's answers: asked once per sentence, in batches, and read into AspectTuples.

An extraction adapter has `task = "extract"` and `extract(sentences) -> list[answer]`, one answer per
sentence: a list of AspectTuples, of mappings ({"aspect", "polarity", "start", "end", "opinion",
"category"}), the model's text (read by text_output.parse), or a QueryError. A text that cannot be read
becomes a QueryError of that sentence's cases, never a crash of the run.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict

from absa_checks.common.errors import AdapterError
from absa_checks.common.labels import polarity_word
from absa_checks.common.tuples import IMPLICIT, AspectTuple
from absa_checks.models.predictions import in_batches
from absa_checks.models.protocol import QueryError
from absa_checks.models.text_output import AnswerUnreadable, parse

FIELDS = ("aspect", "polarity", "start", "end", "opinion", "category")


def is_extractor(adapter: object) -> bool:
    return getattr(adapter, "task", "classify") == "extract"


def _tuple(item: object, adapter_name: str) -> AspectTuple:
    if isinstance(item, AspectTuple):
        return item
    if not isinstance(item, Mapping) or "aspect" not in item:
        raise AdapterError(f"model '{adapter_name}' answered {item!r} for an aspect; expected an object with "
                           "'aspect' and 'polarity' (and optionally start, end, opinion, category)")
    polarity = item.get("polarity")
    if polarity is not None and polarity_word(polarity) is None:
        raise AdapterError(f"model '{adapter_name}' answered the polarity {polarity!r}, which is not a polarity")
    unknown = sorted(set(item) - set(FIELDS))
    if unknown:
        raise AdapterError(f"model '{adapter_name}' answered the keys {', '.join(unknown)}; an aspect has "
                           f"{', '.join(FIELDS)}")
    return AspectTuple(str(item["aspect"] or IMPLICIT), polarity_word(polarity) if polarity is not None else None,
                       item.get("start"), item.get("end"), item.get("opinion"), item.get("category"))


def normalise_answer(answer: object, adapter_name: str) -> list[AspectTuple] | QueryError:
    if isinstance(answer, QueryError):
        return answer
    if isinstance(answer, str):
        try:
            return parse(answer)
        except AnswerUnreadable as err:
            return QueryError(f"model '{adapter_name}': its answer cannot be read: {err}")
    if isinstance(answer, (list, tuple)):
        return [_tuple(item, adapter_name) for item in answer]
    raise AdapterError(f"model '{adapter_name}' answered {answer!r} for a sentence; expected a list of aspects, "
                       "the model's text, or a QueryError")


def extract_all(adapter, sentences: Sequence[str], batch_size: int,
                on_batch: Callable[[dict], None] | None = None) -> dict[str, list[AspectTuple] | QueryError]:
    """What the model finds in each sentence, asked once per sentence, `batch_size` at a time."""
    def answer(batch: list[str]) -> dict[str, list[AspectTuple] | QueryError]:
        answers = adapter.extract(batch)
        if len(answers) != len(batch):
            raise AdapterError(f"model '{adapter.name}' answered {len(answers)} results for a batch of "
                               f"{len(batch)} sentences; an extraction adapter answers each sentence once, in order")
        return {sentence: normalise_answer(found, adapter.name) for sentence, found in zip(batch, answers)}

    # longest first, so each batch pads to nearly its own length (as for classifiers)
    ordered = sorted(dict.fromkeys(sentences), key=lambda s: (-len(s), s))
    return in_batches(ordered, batch_size, answer, on_batch)


def to_json(tuples: Sequence[AspectTuple]) -> str:
    return json.dumps([asdict(t) for t in tuples], ensure_ascii=False)


def from_json(text: str) -> list[AspectTuple]:
    return [AspectTuple(**item) for item in json.loads(text)]
