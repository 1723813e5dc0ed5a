"""Planning: a suite file's tests expand into plans, one per case and checkpoint (plain data, no pytest).

The pytest plugin turns each plan into an item; `absa_checks.evaluate` runs the plans itself. Both get
them from `plan_suite`, so both see the same cases, in the same order, under the same names.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from absa_checks.common import domains as domains_module
from absa_checks.common.errors import AbsaChecksError
from absa_checks.common.examples import Example
from absa_checks.common.fingerprint import sha256_of_file
from absa_checks.common.outputs import Named
from absa_checks.judge import coverage, manifest
from absa_checks.perturb import frozen as frozen_module
from absa_checks.perturb.engine import Quarantined as QuarantinedVariant
from absa_checks.perturb.variants import VariantRequest, VariantSet
from absa_checks.run.run_state import LIVE_VARIANTS
from absa_checks.sources import DataMissing, catalog, expanded_gold
from absa_checks.sources.catalog import known_source_names
from absa_checks.suites import strategies
from absa_checks.suites.candidates import Candidate, CandidatesError
from absa_checks.suites.cases import Case, expand, sample_units, strategy_label
from absa_checks.suites.spec import ExtractionTestSpec, SuiteSpec, TestSpec
from absa_checks.suites.templates import expand as expand_template
from absa_checks.suites.textless import read_frozen

FROZEN_GATE = "frozen_up_to_date"  # a frozen test's file is readable and fits its source (NoCases)


@dataclass(frozen=True)
class CasePlan:
    """One case on one checkpoint: predicted, then checked against its expectation."""

    name: str
    test: TestSpec
    source: str
    case: Case
    model: str
    suite_sha256: str


@dataclass(frozen=True)
class MissingData:
    """A test over a source whose data is absent (or whose variants cannot be generated here): skipped."""

    name: str
    test: TestSpec
    source: str
    reason: str
    kind: str = "no-data"  # or "cannot-generate" (e.g. WordNet absent): absa_checks.judge.manifest


@dataclass(frozen=True)
class NoCases:
    """A gated test that got no case on a source: it fails, and its gates fail with the reason. Also a frozen
    test whose candidates file cannot be used or no longer fits the source (gate `frozen_up_to_date`)."""

    name: str
    test: TestSpec
    source: str
    reason: str
    gate: str = "has_cases"


@dataclass(frozen=True)
class QuarantinedCase:
    """A variant our own checks rejected: skipped with the reason, counted in the report."""

    name: str
    test: TestSpec
    source: str
    rejected: QuarantinedVariant


@dataclass(frozen=True)
class NoVariant:
    """An example written in a suite that got no variant for a test: skipped with why."""

    name: str
    test: TestSpec
    source: str
    unit_id: str
    why: str

    @property
    def reason(self) -> str:
        return f"example '{self.unit_id}' gave no {self.test.strategy} variant: {self.why}"


@dataclass(frozen=True)
class Extraction:
    """An extraction test on one source and checkpoint (model "" and `missing` set when its data is absent)."""

    name: str
    test: ExtractionTestSpec
    source: str
    model: str
    sentences: tuple
    missing: str = ""


Plan = CasePlan | MissingData | NoCases | QuarantinedCase | NoVariant | Extraction


@dataclass(frozen=True)
class CoveragePlan:
    """A test's units on a source, why each one without a variant has none, and those units' originals
    (asked of the checkpoints that run the test, so that coverage compares accuracies: judge.coverage)."""

    test: str
    source: str
    strategy: str
    units: tuple[str, ...]
    without_case: dict[str, str]
    originals: dict[str, Example]
    models: tuple[str, ...]
    unseen: bool = False  # no item stands for it (every unit without a variant, no gate): reported all the same
    audits: dict[str, list[bool]] | None = None  # a frozen test: its pool's audit verdicts (judge.audit); else None
    frozen: str = ""  # a frozen test: its candidates file, as the suite names it
    population: str = ""  # the units its strategy applies to, as reports name them (strategies.Population)
    outside: dict[str, str] = field(default_factory=dict)  # the drawn units outside that population, and why
    ignored: str = ""  # the frozen or audited file of the source that --absa-variants live left aside


def coverage_plan(test: TestSpec, source: str, units: tuple, variants, models: list[str], unseen: bool = False,
                  audits: dict[str, list[bool]] | None = None, frozen: str = "", ignored: str = "",
                  population: strategies.Population | None = None) -> CoveragePlan:
    """What coverage needs from planning: the reasons come from the variant set (quarantined, no variant); the
    units outside the strategy's population (`population`, else the test's strategy's) are set apart, and
    their originals never asked."""
    reasons = {q.unit_id: coverage.quarantined_reason(q.reason) for q in variants.quarantined}
    reasons.update({unit_id: coverage.no_variant_reason(why) for unit_id, why in variants.without_variant})
    by_id = {unit.unit_id: unit.original for unit in units}
    applies = population or strategies.population(test.strategy, test.params)
    outside = {unit_id: why for unit_id, why in ((u, applies.why_outside(e)) for u, e in by_id.items()) if why}
    return CoveragePlan(test.key, source, strategy_label(test), tuple(by_id), reasons,
                        {unit_id: by_id[unit_id] for unit_id in reasons if unit_id in by_id and unit_id not in outside},
                        tuple(models), unseen, audits, frozen if audits is not None else "", applies.name, outside,
                        ignored)


def suite_inputs(path: Path, suite: SuiteSpec) -> tuple[Named, ...]:
    """The files a suite reads: itself, its examples files, its extraction tests' expanded ground truth."""
    found = [Named("the suite file", path)]
    found += [Named(f"the examples file of source '{name}'", Path(source.path))
              for name, source in suite.inline_sources.items() if Path(source.path).is_absolute()]  # file: sources
    found += [Named("the expanded ground truth", path.parent / expanded)
              for test in suite.extraction_tests for _, expanded in test.expanded]
    found += [Named(f"the frozen variants of test '{test.name}'", Path(test.frozen)) for test in suite.tests if test.frozen]
    found += [Named(f"the {kind} variants of test '{test.name}' on {source}", Path(path)) for test in suite.tests
              for kind, files in (("frozen", test.frozen_sources), ("audited", test.audited_sources))
              for source, path, _ in files]
    return tuple(found)


def plan_suite(state, suite: SuiteSpec, folder: Path) -> Iterator[Plan]:
    """Every plan of a parsed suite (`folder`: where it lives), in collection order; `state` is the run's
    RunState (absa_checks.run.core), whose caches and bookkeeping the planning fills."""
    state.sources.inputs.suites[suite.path] = suite.sha256  # every planned suite is part of the fingerprint
    for extraction in suite.extraction_tests:
        yield from _extraction_plans(state, extraction, folder)
    for test in suite.tests:
        state.suite_sources.update(test.sources)
        for source in test.sources:
            if state.options.sources is not None and source not in state.options.sources:
                continue
            yield from _test_plans(state, suite, test, source)


def _extraction_plans(state, test: ExtractionTestSpec, folder: Path) -> Iterator[Plan]:
    several = len(state.predictors) > 1
    for source in test.sources:
        if state.options.sources is not None and source not in state.options.sources:
            continue
        state.suite_sources.add(source)
        models = domain_models(state, test.key, bool(test.gates), source, {})
        if not models:
            continue
        try:
            sentences = state.sources.gold(source)
            expanded = dict(test.expanded).get(source)
            if expanded:  # readers' accepted alternatives for the gold tuples (docs/extraction.md)
                sentences = expanded_gold.read(sentences, folder / expanded)
                state.sources.inputs.examples[f"{test.suite_path} expanded: {expanded}"] = \
                    sha256_of_file(folder / expanded)
        except DataMissing as missing:
            yield Extraction(f"{test.name}[{source}]", test, source, "", (), str(missing))
            continue
        for model in state.predictors:
            if model in models:
                yield Extraction(f"{test.name}[{source}@{model}]" if several else f"{test.name}[{source}]", test,
                                 source, model, tuple(sentences))


def _test_plans(state, suite: SuiteSpec, test: TestSpec, source: str) -> Iterator[Plan]:
    if test.template is not None:
        yield from _template_plans(state, suite, test, source)
        return
    # reports count cases per source and strategy: two tests with the same ones would count units twice
    label = strategy_label(test)
    other = state.tests_by_strategy.setdefault((source, label), test.key)
    if other != test.key:
        raise AbsaChecksError(f"{test.suite_path}:{test.line}: tests '{other}' and '{test.key}' both run {label} on "
                              f"{source}; their cases would be counted twice in the reports (n doubled, "
                              "intervals too narrow): keep one, or give them different sources or settings (k)")
    models = domain_models(state, test.key, not test.gates.is_empty(), source,
                           {name: own.domain for name, own in suite.inline_sources.items()})
    if not models:  # every checkpoint is of another domain: left out, nothing loaded (absa_checks.common.domains)
        return
    try:
        loaded = state.sources.load(source, suite)
    except DataMissing as missing:
        yield MissingData(f"{test.name}[{source}]", test, source, str(missing))
        return
    sample = state.options.sample if state.options.sample is not None else test.sample
    units = sample_units(loaded.units, sample, state.options.seed, source)
    stale = ""
    audits = None
    live = state.options.variants == LIVE_VARIANTS  # --absa-variants live: every file left aside
    frozen = None if live else test.frozen_for(source)
    audited = None if live else test.audited_for(source)
    try:
        if frozen is not None:  # a reviewed file: its accepted candidates, the generator never asked
            variants, stale, audits = _frozen(state, suite, test, source, loaded, units, frozen)
        else:  # the sources named in neither (or every source with --absa-variants live): `otherwise`
            variants = state.variants.variants(VariantRequest(test.strategy, test.otherwise, test.params)
                                               if live else test, loaded, units)
            if audited is not None:  # the source's own variants, their validity read from the audit file
                stale, audits = _audited(state, suite, test, source, loaded, variants, audited)
    except CandidatesError as err:  # the reviewed file cannot be used: a failure, never a skip
        yield NoCases(f"{test.name}[{source}:frozen]", test, source, str(err), FROZEN_GATE)
        return
    except AbsaChecksError as missing:  # e.g. WordNet absent: these tests cannot run here
        yield MissingData(f"{test.name}[{source}]", test, source, str(missing), "cannot-generate")
        return
    cases = list(expand(test, source, units, variants.by_unit))
    unseen = not cases and not variants.quarantined and test.gates.is_empty() and not (
        source in suite.inline_sources and variants.without_variant)  # no item will stand for this test here
    shown = (frozen or audited or ("", ""))[1]
    aside = "" if not live else (test.frozen_for(source) or test.audited_for(source) or ("", ""))[1]
    state.coverage[(test.key, source)] = coverage_plan(test, source, units, variants, models, unseen, audits, shown,
                                                       aside)
    if stale:  # the source changed under the reviewed file: the run fails, naming the units and the update
        yield NoCases(f"{test.name}[{source}:frozen-out-of-date]", test, source, stale, FROZEN_GATE)
    elif not cases and not test.gates.is_empty():  # a gate on nothing must not vanish (and so pass)
        why = (f"{len(variants.quarantined)} variants quarantined, {len(variants.not_applicable)} units with "
               f"nothing to perturb" if units else "the source has no units")
        yield NoCases(f"{test.name}[{source}:no-cases]", test, source,
                      f"test '{test.name}' has gates but no cases on {source} ({len(units)} units: {why}); its gates "
                      "cannot pass on nothing")
    several = len(state.predictors) > 1
    for model in models:  # one plan per case and checkpoint; one checkpoint keeps plain names
        for case in cases:
            name = f"{test.name}[{case.name}@{model}]" if several else f"{test.name}[{case.name}]"
            yield CasePlan(name, test, source, case, model, suite.sha256)
    for rejected in variants.quarantined:
        yield QuarantinedCase(f"{test.name}[{source}:{rejected.unit_id}]", test, source, rejected)
    if source in suite.inline_sources:  # examples the user wrote: each one shows up, with or without a case
        for unit_id, why in variants.without_variant:
            yield NoVariant(f"{test.name}[{source}:{unit_id}:no-variant]", test, source, unit_id, why)


def _template_plans(state, suite: SuiteSpec, test: TestSpec, source: str) -> Iterator[Plan]:
    """A template test: its instances filled with the run's seed (absa_checks.suites.templates), one case per
    instance and gold aspect; checkpoints of another domain leave it out like any source of that domain."""
    template = test.template
    assert template is not None
    models = domain_models(state, test.key, not test.gates.is_empty(), source, {source: template.domain})
    if not models:
        return
    for shown, sha256 in template.lexicon.files:  # the built-in lexicon read: part of the run's fingerprint
        state.sources.inputs.examples[f"lexicon: {shown}"] = sha256
    expansion = expand_template(template, test.name, state.options.seed, state.options.sample)
    cases = expand(test, source, expansion.units, expansion.by_unit)
    variants = VariantSet("template", expansion.by_unit)
    state.coverage[(test.key, source)] = coverage_plan(test, source, expansion.units, variants, models,
                                                       not cases and test.gates.is_empty(),
                                                       population=strategies.INSTANCES)
    if not cases and not test.gates.is_empty():
        yield NoCases(f"{test.name}[{source}:no-cases]", test, source,
                      f"template test '{test.name}' made no cases; its gates cannot pass on nothing")
    several = len(state.predictors) > 1
    for model in models:
        for case in cases:
            name = f"{test.name}[{case.name}@{model}]" if several else f"{test.name}[{case.name}]"
            yield CasePlan(name, test, source, case, model, suite.sha256)


def _candidates(state, suite: SuiteSpec, test: TestSpec, source: str, loaded, file: tuple[str, str]
                ) -> tuple[list[Candidate], str | None]:
    """The file's candidates of `source` and the test's strategy (the file is part of the run's fingerprint),
    and the examples file an update command names (None: a known source)."""
    path, shown = Path(file[0]), file[1]
    sha256 = sha256_of_file(path)
    state.sources.inputs.examples[f"{test.suite_path} frozen: {shown}"] = sha256
    key = (str(path), sha256, source)  # one file serves the tests of every strategy: read once a run
    if key not in state.frozen_files:  # a full or a textless file (its used lines rebuilt from the loaded units)
        state.frozen_files[key] = read_frozen(path, shown, loaded)
    candidates = frozen_module.of_source(state.frozen_files[key], source, test.strategy, shown)
    own = suite.inline_sources.get(source)
    input_file = None if source in known_source_names() or own is None else own.file_shown or "EXAMPLES_FILE"
    return candidates, input_file


def _frozen(state, suite: SuiteSpec, test: TestSpec, source: str, loaded, units: tuple, file: tuple[str, str]
            ) -> tuple[VariantSet, str, dict[str, list[bool]]]:
    """A frozen source's variants from its candidates file `file` (path, as shown), why the file no longer
    fits the source ("" when it does), and the audit verdicts of its pool (validity)."""
    candidates, input_file = _candidates(state, suite, test, source, loaded, file)
    found = frozen_module.frozen_variants(candidates, loaded, units, test.strategy, file[1], input_file)
    return VariantSet("frozen", found.by_unit, without_variant=found.without_variant), found.stale, found.audits


def _audited(state, suite: SuiteSpec, test: TestSpec, source: str, loaded, variants: VariantSet,
             file: tuple[str, str]) -> tuple[str, dict[str, list[bool]]]:
    """An audited source: why its audit file no longer fits the source ("" when it does), and the verdicts that
    judge a text the test runs (validity)."""
    candidates, input_file = _candidates(state, suite, test, source, loaded, file)
    return frozen_module.audited_verdicts(candidates, loaded, variants.by_unit, test.strategy, file[1], input_file)


def domain_models(state, test: str, gated: bool, source: str, own: dict[str, str | None]) -> list[str]:
    """The checkpoints that run `test` on `source`: those of its domain, and with --absa-cross-domain the
    others too (report-only). Each decision for another domain is written down for the run manifest."""
    domain = catalog.source_domain(source, own)
    cross = state.options.cross_domain
    found = []
    for model, predictor in state.predictors.items():
        declared = predictor.spec.domains
        if domains_module.in_domain(declared, domain):
            found.append(model)
            continue
        why = f"checkpoint '{model}' is for {'/'.join(declared)} and source '{source}' is {domain}"
        state.domain_planned.append(manifest.Planned(
            test, source, gated, manifest.CROSS_DOMAIN if cross else manifest.OTHER_DOMAIN,
            f"{why}: run report-only ({domains_module.CROSS_DOMAIN_OPTION})" if cross else
            f"{why}: left out for domain; {domains_module.CROSS_DOMAIN_OPTION} runs it report-only", model))
        if cross:
            found.append(model)
    return found


def shard_key(plan: Plan) -> str:
    """What decides a plan's shard: its unit (cases, quarantined variants, listed examples), else its test
    and source (absent data, no cases, extraction)."""
    if isinstance(plan, CasePlan):
        return f"{plan.source}\0{plan.case.unit_id}"
    if isinstance(plan, QuarantinedCase):
        return f"{plan.source}\0{plan.rejected.unit_id}"
    if isinstance(plan, NoVariant):
        return f"{plan.source}\0{plan.unit_id}"
    return f"{plan.test.key}\0{plan.source}"


def planned(plans, predictors) -> list[manifest.Planned]:
    """The (test, source) pairs the selected plans stand for, with what planning found (run manifest)."""
    found: dict[tuple[str, str, str], manifest.Planned] = {}
    extracting = any(p.extracting for p in predictors.values())
    for plan in plans:
        if isinstance(plan, CasePlan):
            status, reason = manifest.CASES, ""
        elif isinstance(plan, MissingData):
            status, reason = plan.kind, plan.reason
        elif isinstance(plan, NoCases):
            status, reason = manifest.NO_CASES, plan.reason
        elif isinstance(plan, NoVariant):
            status, reason = manifest.NO_VARIANT, plan.reason
        elif isinstance(plan, QuarantinedCase):
            status, reason = manifest.QUARANTINED, f"quarantined: {plan.rejected.reason}"
        elif plan.missing:
            status, reason = (manifest.NO_DATA if extracting else manifest.NOT_FOR_MODEL), plan.missing
        elif not predictors[plan.model].extracting:
            status, reason = manifest.NOT_FOR_MODEL, f"model '{plan.model}' does not find aspects itself"
        else:
            status, reason = manifest.EXTRACTION, ""
        gated = bool(plan.test.gates) if isinstance(plan, Extraction) else not plan.test.gates.is_empty()
        found_now = manifest.Planned(plan.test.key, plan.source, gated, status, reason)
        key = (plan.test.key, plan.source, status)
        # one reason per pair whatever the order or the shard: the first in sorted order (manifest.merged too)
        found[key] = min(found.get(key, found_now), found_now, key=lambda p: p.reason)
    return list(found.values())
