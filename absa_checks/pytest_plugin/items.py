"""pytest collection nodes: a suite file expands into one item per plan (absa_checks.run.plans).

The items are glue: the run core plans and checks (absa_checks.run), the items turn that into pytest's
passes, failures and skips. They import no reporter: Allure's per-case labels go through the run glue.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

import pytest

from absa_checks.common.errors import AbsaChecksError, AdapterError
from absa_checks.common.outputs import Named
from absa_checks.run import checking
from absa_checks.run.plans import (
    CasePlan,
    Extraction,
    MissingData,
    NoCases,
    NoVariant,
    Plan,
    QuarantinedCase,
    suite_inputs,
)
from absa_checks.sources.catalog import known_source_names
from absa_checks.suites import strategies
from absa_checks.suites.spec import parse_suite
from absa_checks.suites.suite_files import classify, is_yaml

RUN_KEY: pytest.StashKey = pytest.StashKey()  # the plugin's AbsaRun glue, set up in plugin.pytest_configure


class ExpectationNotMet(AssertionError):
    """A case whose variant prediction broke its expectation."""


class TargetNotFound(AssertionError):
    """An extraction model did not find the case's target (or found it twice, disagreeing)."""


# pytest's one-line summary shows "module.Class: message" for exceptions outside builtins; the short
# name keeps the line for the message ("FAILED ...::revtgt[...] - ExpectationNotMet: revtgt: ...").
ExpectationNotMet.__module__ = "builtins"


def is_suite_file(path: Path) -> bool:
    """Whether `path` is a suite file (absa_checks.suites.suite_files decides, on the text as YAML reads it)."""
    return is_yaml(path) and classify(path, path.parent).kind == "suite"


def glue(config: pytest.Config):
    """This run's glue object (plugin.AbsaRun), which holds the run core."""
    return config.stash[RUN_KEY]


def shown_path(config: pytest.Config, path: Path) -> str:
    """A path as node ids show it: relative to the rootdir when it is inside."""
    return path.relative_to(config.rootpath).as_posix() if path.is_relative_to(config.rootpath) else str(path)


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
        run = glue(self.config).run
        suite, self.inputs = run.read_suite(self.path, shown_path(self.config, self.path))
        for plan in run.plan(suite, self.path.parent):  # inputs: never an output of the run (absa_checks.common.outputs)
            yield ITEMS[type(plan)].from_parent(self, name=plan.name, plan=plan)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, AbsaChecksError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)


class NotASuiteFile(pytest.File):
    """A YAML file named on the command line, or one that looks like a suite (absa_checks.suites.suite_files), that
    has no top-level `suite:` key: an error saying why, never a file silently left out."""

    why: str = ""

    def collect(self) -> Iterator[pytest.Item]:
        why = f" ({self.why})" if self.why else ""
        raise AbsaChecksError(f"{shown_path(self.config, self.path)}: not an absa-checks suite{why}: a suite file "
                              "has a top-level 'suite: NAME' line (see docs/suites.md); other YAML files are not "
                              "collected")

    def repr_failure(self, excinfo, style=None):
        return str(excinfo.value)


def skip_here(reason: str) -> NoReturn:
    """Skip the running item, the skip located at its suite file and test line (as pytest's own `skip`
    marker does), not at this module: `-rs` then points at the case's test."""
    raise pytest.skip.Exception(reason, _use_item_location=True)


class SuiteItem(pytest.Item):
    """An item of one plan: one test over one source, marked by strategy (or extraction), source and tags
    (`-m` selects on them)."""

    def __init__(self, *, plan: Plan, **kwargs):
        super().__init__(**kwargs)
        self.plan = plan
        self.test = plan.test
        self.source = plan.source
        registered = {line.split(":")[0].strip() for line in self.config.getini("markers")}
        kind = "extraction" if isinstance(plan, Extraction) else strategies.marker_name(plan.test.strategy)
        extra = ("model_" + plan.model,) if isinstance(plan, CasePlan) else ()
        for marker in (kind, "source_" + plan.source, *plan.test.tags, *extra):
            marker = re.sub(r"\W", "_", marker)
            if marker not in registered:  # so -m works and --strict-markers accepts it
                self.config.addinivalue_line("markers", f"{marker}: absa-checks marker")
            self.add_marker(marker)

    def reportinfo(self):
        return self.path, self.test.line - 1, self.name

    def _labelled(self, title: str) -> None:
        glue(self.config).labelled(self, title)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, AbsaChecksError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)


class MissingDataItem(SuiteItem):
    """Stands for a test over a source whose data is absent: skipped, saying how to get it."""

    plan: MissingData  # each item class gets the plans of its type (ITEMS)

    def runtest(self) -> None:
        self._labelled(f"{self.test.name} on {self.source}: no data")
        skip_here(self.plan.reason)


class NoCasesError(AssertionError):
    pass


class NoCasesItem(SuiteItem):
    """Stands for a gated test that got no case on a source: it fails, and its gates fail with the reason."""

    plan: NoCases

    def runtest(self) -> None:
        self.user_properties.append(checking.plan_record(self.plan))
        what = "no cases" if self.plan.gate == "has_cases" else "frozen variants unusable or out of date"
        self._labelled(f"{self.test.name} on {self.source}: {what}")
        raise NoCasesError(self.plan.reason)

    def repr_failure(self, excinfo, style=None):
        return self.plan.reason


class QuarantinedItem(SuiteItem):
    """A variant our own checks rejected: shown as skipped with the reason, counted in the report."""

    plan: QuarantinedCase

    def runtest(self) -> None:
        self.user_properties.append(checking.plan_record(self.plan))
        rejected = self.plan.rejected
        self._labelled(f"quarantined {rejected.strategy} variant: {rejected.reason}")
        skip_here(f"quarantined: {rejected.reason}")


class NoVariantItem(SuiteItem):
    """An example written in a suite that got no variant for a test (no opinion words to reverse, none
    given, ...): shown as skipped with the reason, never a silent zero."""

    plan: NoVariant

    def runtest(self) -> None:
        self.user_properties.append(checking.plan_record(self.plan))
        self._labelled(f"no {self.plan.test.strategy} variant: {self.plan.reason}")
        skip_here(self.plan.reason)


class ExtractionItem(SuiteItem):
    """An extraction test on one source and checkpoint: the model's tuples for every sentence, counted
    against the gold per sentence (the controller adds the intervals and decides the gates)."""

    plan: Extraction

    def runtest(self) -> None:
        predictor = glue(self.config).run.state.predictors.get(self.plan.model)
        why = checking.not_extracting(self.plan, predictor)
        if why:
            skip_here(why)
        self.user_properties.append(checking.extraction_record(self.plan, predictor))


class CaseItem(SuiteItem):
    """One case on one checkpoint: predicted at setup (an error when the model could not answer), checked."""

    plan: CasePlan

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.case = self.plan.case
        self.model = self.plan.model
        self._predictions: tuple | None = None  # set by setup; pytest runs runtest only after it succeeded

    def setup(self) -> None:
        predictor = glue(self.config).run.state.predictors[self.model]
        try:
            self._predictions = checking.answers(self.plan, predictor)
        except AdapterError as err:
            self._record(checking.errored(self.plan, self.nodeid, str(err)))
            raise  # an error ("broken" in Allure); plugin.py shortens its report

    def runtest(self) -> None:
        assert self._predictions is not None  # setup set them, or raised and runtest does not run
        checked = checking.check_case(self.plan, self.nodeid, *self._predictions)
        self._record(checked.outcome)
        if checked.missing:
            raise TargetNotFound(checked.failure)
        if checked.failure:
            raise ExpectationNotMet(checked.failure)

    def _record(self, outcome) -> None:
        self.user_properties.append(checking.record(outcome))
        glue(self.config).recorded(outcome)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ExpectationNotMet):
            if self.config.option.tbstyle == "no" or self.config.option.verbose <= 0:
                return str(excinfo.value)  # one line without -v (a full traceback costs ms a case); -v explains
            return self._explain(str(excinfo.value).split(": ", 1)[1].split("; ")[0])
        if isinstance(excinfo.value, (AbsaChecksError, TargetNotFound)):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def _explain(self, reason: str) -> str:
        assert self._predictions is not None  # only runtest's ExpectationNotMet is explained
        original, variant = self._predictions
        case = self.case

        def line(title, example, prediction):
            probs = ", ".join(f"{k} {v:.2f}" for k, v in prediction.as_dict().items())
            return (f"  {title}: {example.sentence}\n"
                    f"    target {example.target.term!r} gold {example.polarity} -> predicted {prediction.label} ({probs})")

        head = f"{case.strategy} ({case.expectation.describe()}): {reason}\n"
        if same_sentence(case.original, case.variant.example):  # a template's MFT case: its variant is itself
            return head + line("sentence", case.variant.example, variant)
        return head + line("original", case.original, original) + "\n" + line("variant ", case.variant.example, variant)


def same_sentence(original, variant) -> bool:
    """A case whose variant is its original (the same sentence and target, as a template's MFT case): -v
    explains it once."""
    return (original.sentence, original.target.start, original.target.end) == \
        (variant.sentence, variant.target.start, variant.target.end)


ITEMS: dict[type, type[SuiteItem]] = {CasePlan: CaseItem, MissingData: MissingDataItem, NoCases: NoCasesItem,
                                      QuarantinedCase: QuarantinedItem, NoVariant: NoVariantItem,
                                      Extraction: ExtractionItem}
SuiteItemTypes = tuple(ITEMS.values())
