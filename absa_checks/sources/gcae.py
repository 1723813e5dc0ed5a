"""The GCAE "hard" subsets (Xue & Li, ACL 2018): sentences whose aspects disagree in polarity.

A JSON list of {sentence, aspect, sentiment}; no ids, no offsets, lowercased. Items are grouped by
sentence; an aspect repeated in a sentence takes its next occurrence. `conflict` aspects stay in their
sentence as other aspects (polarity None) and are never targets. Opinions are inferred.
"""

from __future__ import annotations

from pathlib import Path

from absa_checks.common.examples import Aspect, DataIssue, Example, Unit
from absa_checks.common.labels import canonical_label
from absa_checks.sources.base import LoadedSource, read_json
from absa_checks.sources.infer import infer_opinions


def load_gcae(path: Path, name: str, domain: str) -> LoadedSource:
    items = read_json(path, "GCAE JSON", list, "a JSON list of {sentence, aspect, sentiment} items")
    sentences: dict[str, list[Aspect]] = {}
    issues: list[DataIssue] = []
    for number, item in enumerate(items):
        text, term = item["sentence"], item["aspect"]
        taken = sentences.setdefault(text, [])
        start = text.find(term)
        while start >= 0 and any(a.start == start for a in taken):
            start = text.find(term, start + 1)
        if start < 0:
            issues.append(DataIssue(name, str(number), "span_mismatch", f"{term!r} not in the sentence", "dropped"))
            continue
        taken.append(Aspect(term, start, start + len(term), canonical_label(item["sentiment"])))
    units = []
    for s_index, (text, aspects) in enumerate(sentences.items()):
        for k, target in enumerate(aspects):
            if target.polarity is None:
                continue
            others = tuple(a for i, a in enumerate(aspects) if i != k)
            unit_id = f"{s_index}_{k}"
            ordered = [target, *others]
            example = Example(text, target, others, infer_opinions(text, ordered), record_id=unit_id)
            units.append(Unit(name, unit_id, example))
    return LoadedSource(name, tuple(units), tuple(issues), domain=domain, files=(path,))
