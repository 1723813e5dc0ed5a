"""pytest collection nodes: a suite file expands into one item per case."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Iterator, NoReturn

import pytest

from . import allure_support, domains as domains_module, manifest, strategies
from .cases import Case, expand, sample_units, strategy_label
from .errors import AbsaChecksError, AdapterError
from .outputs import Named
from .expectations import check
from .extraction.gold import with_alternatives
from .extraction.scoring import extraction_counts
from .extraction.targets import Missing
from .fingerprint import sha256_of_file
from .outcomes import EXTRACTION_KEY, NO_CASES_KEY, NO_VARIANT_KEY, PROPERTY_KEY, QUARANTINE_KEY, outcome_for
from .predictions import Prediction
from .sources import DataMissing
from .sources.catalog import known_source_names
from .spec import ExtractionTestSpec, SuiteSpec, TestSpec, parse_suite
from .suite_files import classify, is_yaml

RUN_KEY: pytest.StashKey = pytest.StashKey()  # the plugin's AbsaRun, set up in plugin.pytest_configure

class ExpectationNotMet(AssertionError):
    """A case whose variant prediction broke its expectation."""


class TargetNotFound(AssertionError):
    """An extraction model did not find the case's target (or found it twice, disagreeing)."""


# pytest's one-line summary shows "module.Class: message" for exceptions outside builtins; the short
# name keeps the line for the message ("FAILED ...::revtgt[...] - ExpectationNotMet: revtgt: ...").
ExpectationNotMet.__module__ = "builtins"


def is_suite_file(path: Path) -> bool:
    """Whether `path` is a suite file (absa_checks.suite_files decides, on the text as YAML reads it)."""
    return is_yaml(path) and classify(path, path.parent).kind == "suite"


def run_state(config: pytest.Config):
    """This run's RunState, built on first use (plugin.AbsaRun.state)."""
    return config.stash[RUN_KEY].state


def suite_inputs(path: Path, suite) -> tuple[Named, ...]:
    """The files a suite reads: itself, its examples files, its extraction tests' expanded ground truth."""
    found = [Named("the suite file", path)]
    found += [Named(f"the examples file of source '{name}'", Path(source.path))
              for name, source in suite.inline_sources.items() if Path(source.path).is_absolute()]  # file: sources
    found += [Named("the expanded ground truth", path.parent / expanded)
              for test in suite.extraction_tests for _, expanded in test.expanded]
    return tuple(found)


def suites_read(rootpath: Path, tests: set[str]) -> tuple[Named, ...]:
    """The files the suites of these tests (`suite_path::name`, relative to the rootdir) read; for the
    controller of pytest-xdist, which collects nothing itself."""
    found: list[Named] = []
    for shown in sorted({test.split("::")[0] for test in tests}):
        path = rootpath / shown
        try:
            found += suite_inputs(path, parse_suite(path, known_source_names(), display_path=shown))
        except (AbsaChecksError, OSError):  # changed since collection: what was read cannot be said
            found.append(Named("the suite file", path))
    return tuple(found)


class SuiteFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        run = run_state(self.config)
        shown = self.path.relative_to(self.config.rootpath).as_posix() \
            if self.path.is_relative_to(self.config.rootpath) else str(self.path)
        suite = parse_suite(self.path, known_source_names(), display_path=shown)
        run.sources.inputs.suites[suite.path] = suite.sha256  # every collected suite is part of the fingerprint
        self.inputs = suite_inputs(self.path, suite)  # never an output of the run (absa_checks.outputs)
        run.suite_files.append(shown)
        for extraction in suite.extraction_tests:
            yield from self._extraction_items(run, extraction)
        for test in suite.tests:
            run.suite_sources.update(test.sources)
            for source in test.sources:
                if run.options.sources is not None and source not in run.options.sources:
                    continue
                yield from self._items(run, suite, test, source)

    def _extraction_items(self, run, test: ExtractionTestSpec) -> Iterator[pytest.Item]:
        several = len(run.predictors) > 1
        for source in test.sources:
            if run.options.sources is not None and source not in run.options.sources:
                continue
            run.suite_sources.add(source)
            models = _domain_models(run, test.key, bool(test.gates), source, {})
            if not models:
                continue
            try:
                sentences = run.sources.gold(source)
                expanded = dict(test.expanded).get(source)
                if expanded:  # readers' accepted alternatives for the gold tuples (docs/extraction.md)
                    sentences = with_alternatives(sentences, self.path.parent / expanded)
                    run.sources.inputs.examples[f"{test.suite_path} expanded: {expanded}"] = \
                        sha256_of_file(self.path.parent / expanded)
            except DataMissing as missing:
                yield ExtractionItem.from_parent(self, name=f"{test.name}[{source}]", test=test, source=source,
                                                 model="", sentences=(), missing=str(missing))
                continue
            for model in run.predictors:
                if model not in models:
                    continue
                yield ExtractionItem.from_parent(self, name=f"{test.name}[{source}@{model}]" if several else
                                                 f"{test.name}[{source}]", test=test, source=source, model=model,
                                                 sentences=tuple(sentences))

    def _items(self, run, suite: SuiteSpec, test: TestSpec, source: str) -> Iterator[pytest.Item]:
        # reports count cases per source and strategy: two tests with the same ones would count units twice
        label = strategy_label(test)
        other = run.tests_by_strategy.setdefault((source, label), test.key)
        if other != test.key:
            raise AbsaChecksError(f"{test.suite_path}:{test.line}: tests '{other}' and '{test.key}' both run {label} on "
                                  f"{source}; their cases would be counted twice in the reports (n doubled, "
                                  "intervals too narrow): keep one, or give them different sources or settings (k)")
        models = _domain_models(run, test.key, not test.gates.is_empty(), source,
                                {name: own.domain for name, own in suite.inline_sources.items()})
        if not models:  # every checkpoint is of another domain: left out, nothing loaded (absa_checks.domains)
            return
        try:
            loaded = run.sources.load(source, suite)
        except DataMissing as missing:
            yield MissingDataItem.from_parent(self, name=f"{test.name}[{source}]", test=test,
                                             source=source, reason=str(missing))
            return
        sample = run.options.sample if run.options.sample is not None else test.sample
        units = sample_units(loaded.units, sample, run.options.seed, source)
        try:
            variants = run.variants.variants(test, loaded, units)
        except AbsaChecksError as missing:  # e.g. WordNet absent: these tests cannot run here
            yield MissingDataItem.from_parent(self, name=f"{test.name}[{source}]", test=test,
                                             source=source, reason=str(missing), kind="cannot-generate")
            return
        cases = list(expand(test, source, units, variants.by_unit))
        if not cases and not test.gates.is_empty():  # a gate on nothing must not vanish (and so pass)
            why = (f"{len(variants.quarantined)} variants quarantined, {len(variants.not_applicable)} units with "
                   f"nothing to perturb" if units else "the source has no units")
            yield NoCasesItem.from_parent(self, name=f"{test.name}[{source}:no-cases]", test=test, source=source,
                                          reason=f"test '{test.name}' has gates but no cases on {source} "
                                                 f"({len(units)} units: {why}); its gates cannot pass on nothing")
        several = len(run.predictors) > 1
        for model in models:  # one item per case and checkpoint; one checkpoint keeps plain names
            for case in cases:
                name = f"{test.name}[{case.name}@{model}]" if several else f"{test.name}[{case.name}]"
                yield CaseItem.from_parent(self, name=name, case=case, suite_sha256=suite.sha256, model=model)
        for rejected in variants.quarantined:
            yield QuarantinedItem.from_parent(self, name=f"{test.name}[{source}:{rejected.unit_id}]", test=test,
                                              source=source, rejected=rejected)
        if source in suite.inline_sources:  # examples the user wrote: each one shows up, with or without a case
            for unit_id, why in variants.without_variant:
                yield NoVariantItem.from_parent(self, name=f"{test.name}[{source}:{unit_id}:no-variant]", test=test,
                                                source=source, unit_id=unit_id, why=why)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, AbsaChecksError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)


def _domain_models(run, test: str, gated: bool, source: str, own: dict[str, str | None]) -> list[str]:
    """The checkpoints that run `test` on `source`: those of its domain, and with --absa-cross-domain the
    others too (report-only). Each decision for another domain is written down for the run manifest."""
    domain = domains_module.source_domain(source, own)
    cross = run.options.cross_domain
    found = []
    for model, predictor in run.predictors.items():
        declared = predictor.spec.domains
        if domains_module.in_domain(declared, domain):
            found.append(model)
            continue
        why = f"checkpoint '{model}' is for {'/'.join(declared)} and source '{source}' is {domain}"
        run.domain_planned.append(manifest.Planned(
            test, source, gated, manifest.CROSS_DOMAIN if cross else manifest.OTHER_DOMAIN,
            f"{why}: run report-only ({domains_module.CROSS_DOMAIN_OPTION})" if cross else
            f"{why}: left out for domain; {domains_module.CROSS_DOMAIN_OPTION} runs it report-only", model))
        if cross:
            found.append(model)
    return found


class NotASuiteFile(pytest.File):
    """A YAML file named on the command line, or one that looks like a suite (absa_checks.suite_files), that
    has no top-level `suite:` key: an error saying why, never a file silently left out."""

    why: str = ""

    def collect(self) -> Iterator[pytest.Item]:
        why = f" ({self.why})" if self.why else ""
        shown = self.path.relative_to(self.config.rootpath).as_posix() \
            if self.path.is_relative_to(self.config.rootpath) else str(self.path)
        raise AbsaChecksError(f"{shown}: not an absa-checks suite{why}: a suite file has a top-level "
                              "'suite: NAME' line (see docs/suites.md); other YAML files are not collected")

    def repr_failure(self, excinfo, style=None):
        return str(excinfo.value)


def skip_here(reason: str) -> NoReturn:
    """Skip the running item, the skip located at its suite file and test line (as pytest's own `skip`
    marker does), not at this module: `-rs` then points at the case's test."""
    raise pytest.skip.Exception(reason, _use_item_location=True)


class _SuiteItem(pytest.Item):
    """An item of one test over one source, marked by strategy, source and tags (`-m` selects on them)."""

    def __init__(self, *, test: TestSpec, source: str, extra_markers: tuple[str, ...] = (), **kwargs):
        super().__init__(**kwargs)
        self.test = test
        self.source = source
        registered = {line.split(":")[0].strip() for line in self.config.getini("markers")}
        for marker in (strategies.marker_name(test.strategy), "source_" + source, *test.tags, *extra_markers):
            marker = re.sub(r"\W", "_", marker)
            if marker not in registered:  # so -m works and --strict-markers accepts it
                self.config.addinivalue_line("markers", f"{marker}: absa-checks marker")
            self.add_marker(marker)

    def reportinfo(self):
        return self.path, self.test.line - 1, self.name


class MissingDataItem(_SuiteItem):
    """Stands for a test over a source whose data is absent: skipped, saying how to get it."""

    def __init__(self, *, reason: str, kind: str = "no-data", **kwargs):
        super().__init__(**kwargs)
        self.reason = reason
        self.kind = kind  # "no-data", or "cannot-generate" (e.g. WordNet absent): absa_checks.manifest

    def runtest(self) -> None:
        if allure_support.active(self.config):
            allure_support.identify(self, f"{self.test.name} on {self.source}: no data")
        skip_here(self.reason)


class NoCasesError(AssertionError):
    pass


class NoCasesItem(_SuiteItem):
    """Stands for a gated test that got no case on a source: it fails, and its gates fail with the reason."""

    def __init__(self, *, reason: str, **kwargs):
        super().__init__(**kwargs)
        self.reason = reason

    def runtest(self) -> None:
        self.user_properties.append((NO_CASES_KEY, json.dumps({"test": self.test.key, "source": self.source,
                                                               "reason": self.reason})))
        if allure_support.active(self.config):
            allure_support.identify(self, f"{self.test.name} on {self.source}: no cases")
        raise NoCasesError(self.reason)

    def repr_failure(self, excinfo, style=None):
        return self.reason


class QuarantinedItem(_SuiteItem):
    """A variant our own checks rejected: shown as skipped with the reason, counted in the report."""

    def __init__(self, *, rejected, **kwargs):
        super().__init__(**kwargs)
        self.rejected = rejected

    def runtest(self) -> None:
        self.user_properties.append((QUARANTINE_KEY, json.dumps({**self.rejected.to_dict(), "test": self.test.key})))
        if allure_support.active(self.config):
            allure_support.identify(self, f"quarantined {self.rejected.strategy} variant: {self.rejected.reason}")
        skip_here(f"quarantined: {self.rejected.reason}")


class NoVariantItem(_SuiteItem):
    """An example written in a suite that got no variant for a test (no opinion words to reverse, none
    given, ...): shown as skipped with the reason, never a silent zero."""

    def __init__(self, *, unit_id: str, why: str, **kwargs):
        super().__init__(**kwargs)
        self.unit_id = unit_id
        self.why = why
        self.reason = f"example '{unit_id}' gave no {self.test.strategy} variant: {why}"

    def runtest(self) -> None:
        self.user_properties.append((NO_VARIANT_KEY, json.dumps({"test": self.test.key, "source": self.source,
                                                                 "example": self.unit_id, "why": self.why})))
        if allure_support.active(self.config):
            allure_support.identify(self, f"no {self.test.strategy} variant: {self.reason}")
        skip_here(self.reason)


class ExtractionItem(pytest.Item):
    """An extraction test on one source and checkpoint: the model's tuples for every sentence, counted
    against the gold per sentence (the controller adds the intervals and decides the gates)."""

    def __init__(self, *, test: ExtractionTestSpec, source: str, model: str, sentences: tuple,
                 missing: str = "", **kwargs):
        super().__init__(**kwargs)
        self.test, self.source, self.model, self.sentences, self.missing = test, source, model, sentences, missing
        registered = {line.split(":")[0].strip() for line in self.config.getini("markers")}
        for marker in ("extraction", "source_" + source, *test.tags):
            marker = re.sub(r"\W", "_", marker)
            if marker not in registered:
                self.config.addinivalue_line("markers", f"{marker}: absa-checks marker")
            self.add_marker(marker)

    def reportinfo(self):
        return self.path, self.test.line - 1, self.name

    def runtest(self) -> None:
        if self.missing:
            skip_here(self.missing)
        predictor = run_state(self.config).predictors[self.model]
        if not predictor.extracting:
            skip_here(f"model '{self.model}' answers the polarity of a given aspect; an extraction test needs a "
                        "model that finds the aspects itself (kind transformers-tagger or extraction-replay; "
                        "docs/extraction.md)")
        found, errors = [], []
        for sentence in self.sentences:
            try:
                found.append(predictor.extractions(sentence.sentence))
            except AdapterError as err:
                found.append(None)
                errors.append(str(err))
        if errors and len(errors) == len(self.sentences):
            raise AdapterError(errors[0])
        scored = [(s, f) for s, f in zip(self.sentences, found) if f is not None]
        record = {"test": self.test.key, "test_name": self.test.name, "source": self.source, "model": self.model,
                  "gates": self.test.gates, "sentences": len(scored), "errors": len(errors),
                  "first_error": errors[0].splitlines()[0] if errors else "",
                  "counts": extraction_counts([s for s, _ in scored], [f for _, f in scored])}
        self.user_properties.append((EXTRACTION_KEY, json.dumps(record)))

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, AbsaChecksError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)


class CaseItem(_SuiteItem):
    def __init__(self, *, case: Case, suite_sha256: str, model: str, **kwargs):
        # `-m model_<name>` selects one checkpoint's cases (names with other characters get "_" for them)
        super().__init__(test=case.test, source=case.source, extra_markers=("model_" + model,), **kwargs)
        self.case = case
        self.suite_sha256 = suite_sha256
        self.model = model
        self._predictions = None

    def setup(self) -> None:
        predictor = run_state(self.config).predictors[self.model]
        try:
            self._predictions = predictor.predictions(self.case)
        except AdapterError as err:
            message = str(err)
            if predictor.failure_shown and "\n" in message:  # the traceback once, not once per case
                message = message.splitlines()[0] + " (traceback shown with the first errored case)"
            predictor.failure_shown = True
            self._record("error", message)
            raise AdapterError(message) from None  # an error ("broken" in Allure); plugin.py shortens its report

    def runtest(self) -> None:
        original, variant = self._predictions
        case = self.case
        for which, found in (("original", original), ("variant", variant)):
            if isinstance(found, Missing):  # an extraction model: no single polarity for the target
                self._record(found.kind, f"{which}: {found.detail}", *(p if isinstance(p, Prediction) else None
                                                                      for p in (original, variant)))
                raise TargetNotFound(f"{case.strategy}: target {found.kind.replace('-', ' ')} in the {which}: "
                                     f"{found.detail}")
        verdict = check(case.expectation, case.original.polarity, case.variant.example.polarity,
                        original.probs, variant.probs)
        self._record("passed" if verdict.passed else "failed", verdict.reason, original, variant)
        if not verdict.passed:  # the strategy leads the message: Allure's categories match on it
            raise ExpectationNotMet(f"{case.strategy}: {verdict.reason}; {self._changed()}; gold "
                                    f"{case.original.polarity}->{case.variant.example.polarity}, predicted "
                                    f"{original.label}->{variant.label}")

    def _record(self, status: str, reason: str, original=None, variant=None) -> None:
        outcome = outcome_for(self.case, self.nodeid, self.suite_sha256, status, reason, original, variant, self.model)
        # JSON, so JUnit XML (which writes str(value)) carries a record other tools can read
        self.user_properties.append((PROPERTY_KEY, json.dumps(outcome.to_dict(), ensure_ascii=False)))
        if allure_support.active(self.config):
            allure_support.decorate(outcome, len(run_state(self.config).predictors) > 1)

    def _changed(self) -> str:
        """The words the variant changed, e.g. "'lasts' -> 'does not last'" (the first two edits)."""
        edits = [e for e in self.case.variant.edits if e.old != e.new][:2]
        if not edits:
            return "given variant"
        more = " ..." if len(self.case.variant.edits) > 2 else ""
        return ", ".join(f"{e.old.strip()!r} -> {e.new.strip()!r}" for e in edits) + more

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ExpectationNotMet):
            if self.config.option.tbstyle == "no" or self.config.option.verbose <= 0:
                return str(excinfo.value)  # one line without -v (a full traceback costs ms a case); -v explains
            return self._explain(str(excinfo.value).split(": ", 1)[1].split("; ")[0])
        if isinstance(excinfo.value, (AbsaChecksError, TargetNotFound)):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def _explain(self, reason: str) -> str:
        original, variant = self._predictions
        case = self.case

        def line(title, example, prediction):
            probs = ", ".join(f"{k} {v:.2f}" for k, v in prediction.as_dict().items())
            return (f"  {title}: {example.sentence}\n"
                    f"    target {example.target.term!r} gold {example.polarity} -> predicted {prediction.label} ({probs})")

        return (f"{case.strategy} ({case.expectation.describe()}): {reason}\n"
                + line("original", case.original, original) + "\n"
                + line("variant ", case.variant.example, variant))

