"""Allure inside pytest: each case titled and labelled while it runs, items that are not cases identified, and
allure-pytest's own writes guarded (the run's results: absa_checks.reports.allure_support)."""

from __future__ import annotations

import pytest

from absa_checks.common import outputs
from absa_checks.judge.outcomes import CaseOutcome
from absa_checks.reports.allure_support import case_html, case_title


def active(config) -> bool:
    return bool(getattr(config.option, "allure_report_dir", None)) and config.pluginmanager.hasplugin("allure_pytest")


def decorate(outcome: CaseOutcome, several_models: bool = False) -> None:
    """Title, labels and stable parameters for the running case. What broke is shown at once: a failed
    or broken case gets the original/variant table (description and attachment); a passing case carries
    its sentences and predictions as parameters only, which keeps the single-file report small."""
    import allure

    allure.dynamic.title(case_title(outcome) + (f" [{outcome.model}]" if several_models else ""))
    allure.dynamic.epic(outcome.source)
    allure.dynamic.feature(outcome.strategy)
    allure.dynamic.story(outcome.test_name)
    allure.dynamic.label("capability", outcome.capability)  # the capability x type matrix's row and column
    allure.dynamic.label("test type", outcome.type)
    allure.dynamic.parameter("case", outcome.case_id)  # content-derived: the same on every run
    allure.dynamic.parameter("unit", outcome.unit)
    if outcome.model:  # shown, but left out of the history id: a new model version keeps its cases' history
        allure.dynamic.parameter("model", outcome.model, excluded=True)
    if outcome.status == "passed":
        return
    page = case_html(outcome)
    allure.dynamic.description_html(page[page.index("<body>") + 6:page.index("</body>")])
    allure.attach(page, name="original vs variant", attachment_type=allure.attachment_type.HTML)


def identify(item, title: str) -> None:
    """An item that is not a case (a quarantined variant, absent data, a test without cases): its own
    title and history id, so Allure counts it once, as pytest does, instead of as a retry of its siblings;
    grouped with the cases of its source and test."""
    import allure

    allure.dynamic.title(title)
    allure.dynamic.epic(item.source)
    allure.dynamic.feature(item.test.strategy)
    allure.dynamic.story(item.test.name)
    if getattr(item.test, "capability", ""):  # an extraction test has no matrix cell
        allure.dynamic.label("capability", item.test.capability)
        allure.dynamic.label("test type", item.test.type)
    allure.dynamic.parameter("item", item.name)


class _WriteGuard:
    """Around allure-pytest's writes of each case's results: a full, read-only or vanished --alluredir is one
    line in the summary and a failed run (exit 1), never an INTERNALERROR that ends the run half-way."""

    def __init__(self, directory: str) -> None:
        self.directory = directory
        self.failures: list[str] = []

    def _guarded(self):
        try:
            return (yield)
        except OSError as err:
            if not self.failures:  # one line, however many cases could not be written
                self.failures.append(f"--alluredir {self.directory}: the cases' Allure results were not all written "
                                     f"({outputs.describe(err)})")
            return None

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session) -> None:
        """An xdist worker hands its line to the controller, which reports it."""
        if hasattr(session.config, "workerinput"):
            session.config.workeroutput["absa_allure_failures"] = self.failures

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error) -> None:
        for line in getattr(node, "workeroutput", {}).get("absa_allure_failures", [])[:1]:
            if not self.failures:
                self.failures.append(line)

    def report_result(self, result):
        return (yield from self._guarded())

    def report_container(self, container):
        return (yield from self._guarded())

    def report_attached_file(self, source, file_name):
        return (yield from self._guarded())

    def report_attached_data(self, body, file_name):
        return (yield from self._guarded())

    def report_globals(self, globals_item):
        return (yield from self._guarded())


def _as_wrappers(guard: _WriteGuard) -> _WriteGuard:
    from allure_commons import hookimpl
    for name in ("report_result", "report_container", "report_attached_file", "report_attached_data",
                 "report_globals"):
        hookimpl(wrapper=True)(getattr(type(guard), name))
    return guard


GUARD_NAME = "absa-checks-allure-write-guard"
GUARD_KEY = pytest.StashKey[_WriteGuard]()


def guard_writes(config) -> None:
    """With allure-pytest and --alluredir: catch what fails while it writes a case's results (see _WriteGuard)."""
    if not active(config):
        return
    import allure_commons
    guard = _as_wrappers(_WriteGuard(str(config.option.allure_report_dir)))
    allure_commons.plugin_manager.register(guard, GUARD_NAME)
    config.pluginmanager.register(guard, GUARD_NAME)  # its pytest hooks: the lines of xdist workers
    config.stash[GUARD_KEY] = guard
    config.add_cleanup(lambda: allure_commons.plugin_manager.unregister(guard))


def write_failures(config) -> list[str]:
    """The line saying that allure-pytest could not write some results (empty when all were written)."""
    guard = config.stash.get(GUARD_KEY, None)
    return list(guard.failures) if guard is not None else []
