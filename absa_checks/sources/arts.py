"""The published ARTS test sets (Xing et al., 2020), taken as given.

Layout: a JSON object; key `<id>` is an original, `<id>_adv1` its REVTGT variant, `_adv2` REVNON,
`_adv3` ADDDIFF (older files say `_adv4`); every record's `id` field is the unit id. Known defects
(spans that do not cover the term, terms renamed in a variant, contradictory labels) are repaired
where that is safe and reported as DataIssues otherwise; a record we cannot use is dropped and
reported, never a crash.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Any

from absa_checks.common.examples import Aspect, DataIssue, Example, Unit, Variant
from absa_checks.common.labels import canonical_label, polarity_hint
from absa_checks.sources.base import LoadedSource, read_json, repeated_keys
from absa_checks.sources.spans import repair_span

SUFFIX_STRATEGY = {"_adv1": "revtgt", "_adv2": "revnon", "_adv3": "adddiff", "_adv4": "adddiff"}


def split_record_key(key: str) -> tuple[str, str | None]:
    """'0:14_0_adv1' -> ('0:14_0', 'revtgt'); '0:14_0' -> ('0:14_0', None)."""
    for suffix, strategy in SUFFIX_STRATEGY.items():
        if key.endswith(suffix):
            return key[: -len(suffix)], strategy
    return key, None


def load_arts(path: Path, source: str) -> LoadedSource:
    records = read_json(path, "ARTS JSON", dict, "a JSON object of records keyed by id")

    issues: list[DataIssue] = [_repeated_record(path, source, key) for key in repeated_keys(records)]
    originals: dict[str, Example] = {}
    variants: dict[str, dict[str, list[Variant]]] = defaultdict(lambda: defaultdict(list))
    for key, record in records.items():
        twice = repeated_keys(record)
        if twice:  # which of the two values is meant cannot be known: the record is not used
            issues.append(DataIssue(source, key, "duplicate_key",
                                    f"{path.name}: record {key!r} gives {', '.join(map(repr, twice))} twice; it is "
                                    "dropped: keep one value", "dropped"))
            continue
        example = _read_record(key, record, source, issues, path)
        if example is None:
            continue
        unit_id, strategy = split_record_key(key)
        if strategy is None:
            originals[unit_id] = example
        else:
            variants[unit_id][strategy].append(Variant(strategy, example, origin="given"))

    originals = _with_sentence_mates(originals)
    units = []
    for unit_id, original in originals.items():
        given = {name: tuple(_align_occurrence(source, original, v, issues) for v in found)
                 for name, found in variants.pop(unit_id, {}).items()}
        _report_variant_defects(source, unit_id, original, given, issues)
        units.append(Unit(source, unit_id, original, given))
    for unit_id in variants:  # variants whose original is missing cannot be scored
        issues.append(DataIssue(source, unit_id, "orphan_variant",
                                "variants without an original record", "dropped"))
    return LoadedSource(source, tuple(units), tuple(issues), files=(path,))


def _repeated_record(path: Path, source: str, key: str) -> DataIssue:
    """A record id written twice in one JSON object: the first record is read, the second dropped and named."""
    return DataIssue(source, key, "duplicate_id",
                     f"{path.name}: the record id {key!r} is used twice; the first record is read and the second "
                     "dropped: give each record its own id", "dropped")


def _with_sentence_mates(originals: dict[str, Example]) -> dict[str, Example]:
    """ARTS records name one aspect each; the originals of one SemEval sentence (ids `<sentence>_<k>`,
    same text) are each other's other aspects, which the slices (multi-aspect, hard) need."""
    by_sentence: dict[tuple[str, str], list[str]] = defaultdict(list)
    for unit_id, example in originals.items():
        by_sentence[(unit_id.rsplit("_", 1)[0], example.sentence)].append(unit_id)
    result = {}
    for unit_id, example in originals.items():
        mates = by_sentence[(unit_id.rsplit("_", 1)[0], example.sentence)]
        others = tuple(originals[m].target for m in mates if m != unit_id)
        result[unit_id] = replace(example, others=others)
    return result


def _read_record(key: str, record: Any, source: str, issues: list[DataIssue], path: Path) -> Example | None:
    try:
        sentence, term = str(record["sentence"]), str(record["term"])
        start, end = int(record["from"]), int(record["to"])
        polarity = canonical_label(record["polarity"])
    except (TypeError, KeyError, ValueError) as err:
        issues.append(DataIssue(source, key, "malformed_record", f"missing or bad field: {err}", "dropped"))
        return None
    empty = [name for name, text in (("sentence", sentence), ("term", term)) if not text.strip()]
    if empty:  # nothing to ask a model about: a data issue, never "repaired" into a case scored as a failure
        issues.append(DataIssue(source, key, "empty_field",
                                f"{path}: record {key!r} has an empty {' and an empty '.join(empty)}; "
                                "it cannot be scored, fix or remove the record", "dropped"))
        return None
    if polarity is None:
        issues.append(DataIssue(source, key, "unknown_polarity",
                                f"{path.name}: record {key!r}: polarity {record['polarity']!r} is not a polarity "
                                f"({polarity_hint(record['polarity'])})", "dropped"))
        return None
    fix = repair_span(sentence, term, start, end)
    if fix is None:
        issues.append(DataIssue(source, key, "span_mismatch",
                                f"sentence[{start}:{end}] is {sentence[start:end]!r}, term {term!r} not found",
                                "dropped"))
        return None
    if fix.note:
        issues.append(DataIssue(source, key, "span_mismatch",
                                f"sentence[{start}:{end}] is {sentence[start:end]!r}, not {term!r}: {fix.note} "
                                f"-> [{fix.start}:{fix.end}] {fix.term!r}", "repaired"))
    return Example(sentence, Aspect(fix.term, fix.start, fix.end, polarity), record_id=key)


def _align_occurrence(source: str, original: Example, variant: Variant, issues: list[DataIssue]) -> Variant:
    """Point a variant's span at the same occurrence of a repeated term as the original's span.

    The ARTS generator sometimes moved the span to another occurrence; the perturbations never add
    or remove occurrences of the target before it, so the n-th occurrence is the target.
    """
    target, example = original.target, variant.example
    term = example.target.term
    if original.sentence.count(target.term) < 2 or term != target.term:
        return variant
    wanted = original.sentence[: target.start].count(term)
    starts = [i for i in range(len(example.sentence)) if example.sentence.startswith(term, i)]
    if wanted >= len(starts) or starts[wanted] == example.target.start:
        return variant
    start = starts[wanted]
    issues.append(DataIssue(source, example.record_id or "", "span_moved",
                            f"the span [{example.target.start}:{example.target.end}] pointed at another occurrence "
                            f"of {term!r} than the original's; moved to [{start}:{start + len(term)}]", "repaired"))
    moved = replace(example.target, start=start, end=start + len(term))
    return replace(variant, example=replace(example, target=moved))


def _squash(term: str) -> str:
    return "".join(term.split()).lower()


def _report_variant_defects(source: str, unit_id: str, original: Example,
                            given: dict[str, tuple[Variant, ...]], issues: list[DataIssue]) -> None:
    seen: dict[tuple, Variant] = {}
    for found in given.values():
        for variant in found:
            example = variant.example
            if _squash(example.target.term) != _squash(original.target.term):
                issues.append(DataIssue(source, example.record_id or unit_id, "term_changed",
                                        f"the variant's term is {example.target.term!r}, the original's "
                                        f"{original.target.term!r}; kept as given", "reported"))
            text = (example.sentence, example.target.start, example.target.end)
            twin = seen.get(text)
            if twin is not None and twin.example.polarity != example.polarity:
                issues.append(DataIssue(source, unit_id, "contradictory_labels",
                                        f"{twin.example.record_id} and {example.record_id} have the same sentence "
                                        f"and span but gold labels {twin.example.polarity} and {example.polarity}; "
                                        "this unit can never be ARS-correct", "reported"))
            seen[text] = variant
