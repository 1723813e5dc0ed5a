"""Examples written in a suite's YAML (or an examples file) turned into units."""

from __future__ import annotations

import hashlib
from dataclasses import replace

from absa_checks.common.examples import Aspect, Example, Opinion, Unit, Variant, term_starts
from absa_checks.common.labels import opposite
from absa_checks.sources.base import LoadedSource
from absa_checks.sources.infer import with_inferred_opinions
from absa_checks.suites import strategies
from absa_checks.suites.examples_spec import InlineExampleSpec, InlineSourceSpec


def load_inline(spec: InlineSourceSpec) -> LoadedSource:
    return LoadedSource(spec.name, tuple(_unit(spec.name, example) for example in spec.examples))


def _unit(source: str, spec: InlineExampleSpec) -> Unit:
    unit_id = spec.example_id or hashlib.sha1(f"{spec.sentence}\0{spec.aspect}".encode()).hexdigest()[:10]
    start = spec.span[0] if spec.span else _word_at(spec.sentence, spec.aspect)
    target = Aspect(spec.aspect, start, start + len(spec.aspect), spec.polarity)
    others = tuple(_aspect(spec.sentence, term, polarity, span) for term, polarity, span in spec.others)
    original = Example(spec.sentence, target, others, record_id=unit_id)
    if spec.opinions is None:  # REVTGT/REVNON edit opinion words: without given ones, they are inferred
        original = with_inferred_opinions(original)
    else:
        original = replace(original, opinions=tuple(Opinion(text, start, start + len(text), aspect)
                                                     for aspect, text, start in spec.opinions))
    given: dict[str, list[Variant]] = {}
    for variant in spec.variants:
        v_start = variant.span[0] if variant.span else _word_at(variant.sentence, spec.aspect)
        flips = strategies.default_expectation(variant.strategy) == "flip"
        polarity = variant.polarity or (opposite(spec.polarity) if flips else spec.polarity)
        index = len(given.get(variant.strategy, []))
        v_target = Aspect(spec.aspect, v_start, v_start + len(spec.aspect), polarity)
        example = Example(variant.sentence, v_target, record_id=f"{unit_id}:{variant.strategy}:{index}")
        given.setdefault(variant.strategy, []).append(Variant(variant.strategy, example, origin="given"))
    return Unit(source, unit_id, original, {k: tuple(v) for k, v in given.items()})


def _aspect(sentence: str, term: str, polarity: str | None, span: tuple[int, int] | None) -> Aspect:
    start = span[0] if span else _word_at(sentence, term)
    return Aspect(term, start, start + len(term), polarity)


def _word_at(sentence: str, term: str) -> int:
    """The term's one whole-word occurrence (spec.py has checked there is exactly one)."""
    return term_starts(sentence, term)[0]
