"""`absa-checks augment`: adversarial training data (ARTS, section 5.4): the REVTGT, REVNON and ADDDIFF
variants of a *training* file, made and checked as the suites make theirs, written as JSONL or SemEval
XML, after a leakage guard.

The guard: training on a test sentence, or on a variant of one, would inflate the very ARS the suites
measure. Input sentences are compared, after normalisation (leakage.normalise: case, Unicode width,
punctuation and spacing ignored), with the sentences of every known test source and their variants,
always: the public test sets by the fingerprints the package ships (leakage.py: SemEval-2014 test, the
ARTS test sets with their variants, MAMS test, the GCAE hard subsets), the built-in examples (and the
variants the suites generate from them), the project's own suite examples (`--suites`, by default ./suites:
the examples its suites define, and their variants) and, with a data directory, the test sets found there.
The shipped fingerprints hold the variants absa-checks generates of each public test set with seed 0 and
default parameters (what `absa-checks generate --source NAME` writes); variants a run makes with another
--absa-seed or other suite parameters are other sentences, not known to the guard. A match is refused, or
with `drop` dropped and counted.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TextIO

from absa_checks.common.errors import AbsaChecksError
from absa_checks.common.examples import Example, Unit, Variant
from absa_checks.perturb.engine import Settings
from absa_checks.sources.base import DataMissing, LoadedSource
from absa_checks.workflows.leakage import fingerprint, normalise


def known_test_sentences(data_dir: Path | None, seed: int) -> dict[str, str]:
    """normalised sentence -> the test source it belongs to (originals, given and generated variants)."""
    from absa_checks.sources import registry
    from absa_checks.sources.builtin import load_builtin
    from absa_checks.sources.catalog import load_named
    from absa_checks.workflows import generate

    known: dict[str, str] = {}
    for name in ("builtin-restaurant", "builtin-laptop"):
        loaded = load_builtin(name)
        made, _, _ = generate.run(loaded, ["revtgt", "revnon", "adddiff"], Settings(seed, ()))
        for sentence in [u.original.sentence for u in loaded.units] + [v.example.sentence for _, v in made]:
            known.setdefault(normalise(sentence), name)
    if data_dir is not None:
        for name in registry():
            try:
                loaded = load_named(name, data_dir)
            except DataMissing:
                continue
            for unit in loaded.units:
                known.setdefault(normalise(unit.original.sentence), name)
                for variants in unit.given.values():
                    for variant in variants:
                        known.setdefault(normalise(variant.example.sentence), name)
    return known


@dataclass(frozen=True)
class SuiteExamples:
    """The project's own suite examples (inline or `file:` sources) and their variants, for the guard."""

    known: dict[str, str]           # normalised sentence -> "suites/a.yaml source NAME"
    files: tuple[str, ...]          # the suite files read
    unreadable: tuple[str, ...]     # "path: why", suite files that could not be read (so not checked)


def suite_examples(paths: list[Path], seed: int) -> SuiteExamples:
    """Every suite file under `paths` (files or folders): its own sources' examples, and the variants the
    suites generate of them (seed `seed`, default parameters)."""
    from absa_checks.sources.catalog import known_source_names
    from absa_checks.suites.inline import load_inline
    from absa_checks.suites.spec import parse_suite
    from absa_checks.suites.suite_files import classify
    from absa_checks.workflows import generate

    files = sorted({f for path in paths for f in ([path] if path.is_file() else
                                                 [*path.rglob("*.yaml"), *path.rglob("*.yml")])})
    known: dict[str, str] = {}
    read, unreadable = [], []
    for file in files:
        if classify(file, file.parent).kind != "suite":
            continue
        try:
            suite = parse_suite(file, known_source_names())
            for name, local in sorted(suite.inline_sources.items()):
                loaded = load_inline(local)
                made, _, _ = generate.run(loaded, ["revtgt", "revnon", "adddiff"], Settings(seed, ()))
                for sentence in [u.original.sentence for u in loaded.units] + [v.example.sentence for _, v in made]:
                    known.setdefault(normalise(sentence), f"{file.as_posix()} source {name}")
        except (AbsaChecksError, OSError, ValueError) as err:
            unreadable.append(f"{file}: {str(err).splitlines()[0] if str(err) else type(err).__name__}")
            continue
        read.append(file.as_posix())
    return SuiteExamples(known, tuple(read), tuple(unreadable))


@dataclass(frozen=True)
class Leak:
    unit_id: str
    sentence: str
    test_sources: tuple[str, ...]  # every known test set holding the sentence


def leaks(loaded: LoadedSource, known: dict[str, str], public: dict[str, tuple[str, ...]]) -> list[Leak]:
    """The input units whose sentence is a known test sentence: in `known` (normalised sentence -> source)
    or, by its fingerprint, in `public` (fingerprint -> public test sets, leakage.sets_by_fingerprint)."""
    found = []
    for unit in loaded.units:
        sentence = unit.original.sentence
        names = public.get(fingerprint(sentence), ())
        literal = known.get(normalise(sentence))
        if literal is not None and literal not in names:
            names = (*names, literal)
        if names:
            found.append(Leak(unit.unit_id, sentence, names))
    return found


@dataclass(frozen=True)
class LeakCount:
    """Leaks counted for a message: distinct sentences, the units they carry, and per test set."""

    sentences: int
    units: int
    per_set: tuple[tuple[str, int], ...]  # most sentences first

    def units_note(self) -> str:
        return "" if self.units == self.sentences else f" ({self.units:,} units)"

    def sets(self) -> str:
        return ", ".join(f"{name} {n:,}" for name, n in self.per_set)


def count(found: list[Leak]) -> LeakCount:
    sentences = {normalise(leak.sentence): leak for leak in found}
    per_set: dict[str, int] = {}
    for leak in sentences.values():
        for name in leak.test_sources:
            per_set[name] = per_set.get(name, 0) + 1
    return LeakCount(len(sentences), len(found), tuple(sorted(per_set.items(), key=lambda item: -item[1])))


def guard(loaded: LoadedSource, known: dict[str, str], public: dict[str, tuple[str, ...]],
          drop: bool) -> tuple[LoadedSource, list[Leak]]:
    """The input without its test sentences (`drop`), or AbsaChecksError naming the test sets and counts."""
    found = leaks(loaded, known, public)
    counted = count(found)
    if found and not drop:
        shown = "; ".join(f"{leak.unit_id}: {leak.sentence[:60]!r}" for leak in found[:2])
        raise AbsaChecksError(f"augment: {counted.sentences:,} input sentences are test sentences or variants of "
                              f"them{counted.units_note()}, in {counted.sets()} (e.g. {shown}"
                              f"{' ...' if len(found) > 2 else ''}); training on them would inflate the ARS the "
                              "suites measure. Remove them, or pass --drop-leaks to drop and count them")
    bad = {leak.unit_id for leak in found}
    kept = replace(loaded, units=tuple(u for u in loaded.units if u.unit_id not in bad))
    if found and not kept.units:
        raise AbsaChecksError(f"augment: all {counted.sentences:,} input sentences are test sentences or variants "
                              f"of them{counted.units_note()}, in {counted.sets()}; --drop-leaks dropped them all, "
                              "so nothing was written. Give a training file")
    return kept, found


def with_more_adddiff(made: list[tuple[Unit, Variant]], loaded: LoadedSource, per_unit: int, seed: int,
                      params: tuple) -> list[tuple[Unit, Variant]]:
    """ADDDIFF `per_unit` times per unit (seeds seed, seed+1, ...), distinct sentences only."""
    from absa_checks.workflows import generate

    if per_unit <= 1:
        return made
    seen = {(u.unit_id, v.example.sentence) for u, v in made}
    extra = []
    for offset in range(1, per_unit):
        more, _, _ = generate.run(loaded, ["adddiff"], Settings(seed + offset, params))
        for unit, variant in more:
            if (unit.unit_id, variant.example.sentence) not in seen:
                seen.add((unit.unit_id, variant.example.sentence))
                extra.append((unit, variant))
    return made + extra


def write_xml(made: list[tuple[Unit, Variant]], out: TextIO) -> None:
    """SemEval-2014 Task 4 XML: one sentence per variant, with its target and other aspects."""
    root = ET.Element("sentences")
    counts: dict[tuple[str, str], int] = {}
    for unit, variant in made:
        key = (unit.unit_id, variant.strategy)
        counts[key] = counts.get(key, 0) + 1
        sentence = ET.SubElement(root, "sentence", id=f"{unit.unit_id}:{variant.strategy}:{counts[key]}")
        ET.SubElement(sentence, "text").text = variant.example.sentence
        terms = ET.SubElement(sentence, "aspectTerms")
        example: Example = variant.example
        for aspect in sorted((example.target, *example.others), key=lambda a: a.start):
            ET.SubElement(terms, "aspectTerm", {"term": aspect.term, "polarity": aspect.polarity or "conflict",
                                                "from": str(aspect.start), "to": str(aspect.end)})
    ET.indent(root)
    out.write(ET.tostring(root, encoding="unicode") + "\n")
