"""A generated outcome (Variant, Quarantined, NotApplicable) as JSON and back, exactly: the variant store
(absa_checks.models.cache) keeps outcomes between runs in this form, never as pickles.

`loads(dumps(outcome)) == outcome` for every outcome the engine makes; text that is not one (another
version's, a damaged row) raises ValueError, and the caller generates again.
"""

from __future__ import annotations

import json

from absa_checks.common.examples import Aspect, Edit, Example, Opinion, Variant
from absa_checks.perturb.engine import Quarantined
from absa_checks.perturb.strategies import NotApplicable

Outcome = Variant | Quarantined | NotApplicable


def _aspect(a: Aspect) -> list:
    return [a.term, a.start, a.end, a.polarity]


def _example(e: Example) -> dict:
    return {"sentence": e.sentence, "target": _aspect(e.target), "others": [_aspect(a) for a in e.others],
            "opinions": [[o.text, o.start, o.end, o.aspect, o.inferred] for o in e.opinions],
            "record_id": e.record_id}


def dumps(outcome: Outcome) -> str:
    value: dict[str, object]
    if isinstance(outcome, Variant):
        value = {"variant": {"strategy": outcome.strategy, "example": _example(outcome.example),
                             "edits": [[d.start, d.end, d.old, d.new, d.why] for d in outcome.edits],
                             "origin": outcome.origin, "provenance": outcome.provenance}}
    elif isinstance(outcome, Quarantined):
        value = {"quarantined": outcome.to_dict()}
    elif isinstance(outcome, NotApplicable):
        value = {"not_applicable": outcome.reason}
    else:
        raise TypeError(f"not an outcome: {type(outcome).__name__}")
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _read_aspect(value: list) -> Aspect:
    term, start, end, polarity = value
    return Aspect(term, start, end, polarity)


def _read_example(value: dict) -> Example:
    return Example(value["sentence"], _read_aspect(value["target"]),
                   tuple(_read_aspect(a) for a in value["others"]),
                   tuple(Opinion(text, start, end, aspect, inferred)
                         for text, start, end, aspect, inferred in value["opinions"]),
                   value["record_id"])


def loads(text: str) -> Outcome:
    try:
        value = json.loads(text)
        (kind, body), = value.items()
        if kind == "variant":
            return Variant(body["strategy"], _read_example(body["example"]),
                           tuple(Edit(*edit) for edit in body["edits"]), body["origin"], body["provenance"])
        if kind == "quarantined":
            return Quarantined(**body)
        if kind == "not_applicable" and isinstance(body, str):
            return NotApplicable(body)
    except (ValueError, TypeError, KeyError, AttributeError) as err:
        raise ValueError(f"not a stored outcome: {err}") from None
    raise ValueError(f"not a stored outcome: {kind!r}")
