"""The pytest plugin: glue between pytest's hooks and the run core (absa_checks.run).

Loaded through the `pytest11` entry point wherever the package is installed. Each hook translates to a
call on the `Run`: collection plans the suites, the items predict and check, the results are taken by
the run, which concludes once and writes the reports at the end of the session.
"""

from __future__ import annotations

import gc
import signal
import threading
from pathlib import Path

import pytest

from absa_checks.common.errors import AbsaChecksError
from absa_checks.pytest_plugin import allure_hooks, output_checks, stops
from absa_checks.pytest_plugin.items import RUN_KEY, CaseItem, SuiteFile, SuiteItemTypes, suites_read
from absa_checks.pytest_plugin.options import (
    MODEL_ALIAS_KEY,
    add_model_alias,
    add_options,
    asked_for,
    read_options,
    selection,
)
from absa_checks.pytest_plugin.terminal import TerminalGlue
from absa_checks.run.core import Run
from absa_checks.run.plans import shard_key
from absa_checks.run.shards import shard_of

pytest_plugins = ["absa_checks.pytest_plugin.collect"]  # which files are suites (pytest_collect_file)


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


@pytest.hookimpl(wrapper=True)
def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser, args: list[str]):
    """After the project's conftests have added their options: `--model` only if it is still free."""
    result = yield
    early_config.stash[MODEL_ALIAS_KEY] = add_model_alias(parser)
    return result


@pytest.hookimpl(tryfirst=True)  # before allure-pytest empties --alluredir (--clean-alluredir) or makes it
def pytest_configure(config: pytest.Config) -> None:
    allure_dir = Path(config.option.allure_report_dir) if allure_hooks.active(config) else None
    glue = AbsaRun(config, read_options(config, allure_dir))
    config.stash[RUN_KEY] = glue
    config.pluginmanager.register(glue, "absa-checks-run")
    config.pluginmanager.register(glue.terminal, "absa-checks-terminal")
    if asked_for(config):
        try:
            glue.run.state  # noqa: B018 - build now: a wrong model name stops pytest before collection
        except AbsaChecksError as err:
            raise pytest.UsageError(str(err)) from None
    glue.check_outputs()  # an output (ours or pytest's) that would destroy an input, a device or a link
    allure_hooks.guard_writes(config)


def terminate_as_interrupt() -> None:
    """SIGTERM (a CI job cancelled) ends the run as Ctrl-C does, so what ran is reported as partial
    instead of the process vanishing; only where nobody else handles SIGTERM, and only in a run with suites."""
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        def interrupt(signum, frame):
            raise KeyboardInterrupt("SIGTERM")
        signal.signal(signal.SIGTERM, interrupt)


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _is_distributed(config: pytest.Config) -> bool:
    """The pytest-xdist controller: its workers collected the suites, it did not."""
    return config.pluginmanager.has_plugin("dsession")


class AbsaRun:
    """Per-run hooks: plan after collection, take the results, conclude once at the end (all in `self.run`)."""

    def __init__(self, config: pytest.Config, options) -> None:
        self.config = config
        self.terminal = TerminalGlue(config)
        given = config.getoption("--absa-data")
        self.run = Run(options, worker_input=getattr(config, "workerinput", None), progress=self.terminal.progress_sink,
                       data_given=given, on_build=terminate_as_interrupt)
        self.terminal.run = self.run
        self._deselected = 0  # suite items deselected by -k / -m (not those another shard runs)
        self._shard_dropped = 0  # suite items another shard runs
        self._interrupt: str | None = None  # the text of the interrupt that ended the run (stops.why_stopped)

    @property
    def options(self):  # the terminal glue may set compact_failures after collection
        return self.run.options

    def recorded(self, outcome) -> None:
        """A case's outcome, recorded by its item: Allure's labels for it, when Allure is on."""
        if allure_hooks.active(self.config):
            allure_hooks.decorate(outcome, len(self.run.state.predictors) > 1)

    def labelled(self, item, title: str) -> None:
        """An item without a case's outcome (no data, quarantined ...): Allure's labels, when Allure is on."""
        if allure_hooks.active(self.config):
            allure_hooks.identify(item, title)

    def pytest_collectreport(self, report) -> None:
        if report.failed:
            self.terminal.show_errors_in_full()
            if report.nodeid.lower().endswith((".yaml", ".yml")):  # a suite (or suite-like) file refused
                self.run.refused.append({"path": report.nodeid, "why": str(report.longrepr)})

    def pytest_deselected(self, items) -> None:
        self._deselected += sum(isinstance(item, SuiteItemTypes) for item in items)

    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        """--absa-shard K/N: keep this shard's items (a unit's cases together, for every checkpoint)."""
        if self.options.shard is None:
            return
        k, n = self.options.shard
        kept: list[pytest.Item] = []
        dropped: list[pytest.Item] = []
        for item in items:
            key = shard_key(item.plan) if isinstance(item, SuiteItemTypes) else item.nodeid
            (kept if shard_of(key, n) == k else dropped).append(item)
        self._shard_dropped = sum(isinstance(item, SuiteItemTypes) for item in dropped)
        self._deselected -= self._shard_dropped  # in another shard, not deselected
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = kept

    def check_outputs(self, session: pytest.Session | None = None) -> None:
        """The requested outputs against the run's inputs (reporters.check_run_outputs): a usage error.
        After collection, the suite and examples files read count too. Not in an xdist worker: the controller
        checked the same options (a worker's usage error would be an internal error)."""
        if _is_worker(self.config):
            return
        suites = {item.getparent(SuiteFile) for item in (session.items if session else ())} - {None}
        read = tuple(named for suite in suites for named in getattr(suite, "inputs", ()))
        try:
            self.run.check_outputs(read)
            output_checks.check_pytest_outputs(self.config, self.options, self.run.specs(), read)
        except AbsaChecksError as err:
            if session is not None:  # pytest writes --junitxml when the session ends, even after a usage error
                output_checks.drop_pytest_files(self.config)
            raise pytest.UsageError(str(err)) from None

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if self.run.built:  # suites were collected (a project without suites sees no difference)
            self.check_outputs(session)
        self.terminal.compact_failures(bool(session.items) and all(isinstance(i, SuiteItemTypes) for i in session.items))
        if not _is_worker(self.config):
            try:
                self.run.check_sources(item.source for item in session.items if isinstance(item, SuiteItemTypes))
            except AbsaChecksError as err:
                raise pytest.UsageError(str(err)) from None
        if not self.run.built:  # no suite was collected: nothing to plan
            return
        self.run.planned([item.plan for item in session.items if isinstance(item, SuiteItemTypes)], self._deselected)
        # The collected items and cases live until the session ends; freezing them keeps every later
        # garbage collection (pytest runs five at the end) from walking tens of thousands of objects.
        gc.freeze()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo):
        """A case the model could not answer: pytest formats setup errors itself, with its own
        traceback; show the message (which carries the model's traceback once) instead."""
        outcome = yield
        report = outcome.get_result()
        if call.when == "setup" and call.excinfo is not None and isinstance(item, CaseItem) \
                and isinstance(call.excinfo.value, AbsaChecksError):
            report.longrepr = str(call.excinfo.value)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.failed and report.when != "call":
            self.terminal.show_errors_in_full()
        built = self.run.built
        crashed = report.failed and "crashed while running" in str(report.longrepr)  # pytest-xdist lost a worker
        if self.run.take(report.nodeid, report.user_properties, report.failed, crashed) and not built:
            terminate_as_interrupt()  # an xdist controller: its first absa result

    def pytest_keyboard_interrupt(self, excinfo) -> None:
        """Ctrl-C, SIGTERM, or an Interrupted carrying why (stepwise; -x and --maxfail under xdist)."""
        self._interrupt = str(excinfo.value)

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node) -> None:
        """xdist controller: workers share this run's temporary cache (--absa-no-cache) and tell their
        progress through files (only a name here: nothing is created unless a worker predicts)."""
        if self.run.built and self.run.state.run_cache is not None:
            node.workerinput["absa_run_cache"] = str(self.run.state.run_cache)
        node.workerinput["absa_progress"] = str(self.terminal.progress_folder())

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error) -> None:
        self.run.add_worker(getattr(node, "workeroutput", {}))

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if _is_worker(self.config):
            if self.run.built:  # else this worker collected no suite
                self.config.workeroutput.update(  # type: ignore[attr-defined]  # xdist adds it
                    self.run.worker_output(self.run.collection))
            return
        self.terminal.stop_watching()
        try:
            self._finish(session, exitstatus)
        finally:
            self.run.close()

    def _finish(self, session: pytest.Session, exitstatus: int) -> None:
        run, collection = self.run, self.run.merged_collection()
        if self.config.option.collectonly or not run.collector.outcomes() and not run.collector.extraction and (
                exitstatus == pytest.ExitCode.INTERRUPTED or (
                    not run.refused and (collection is None or not collection.has_suites))):
            # --collect-only, a run without suites, or one stopped (Ctrl-C, collection errors) before any result
            return
        interrupted = exitstatus == pytest.ExitCode.INTERRUPTED
        stop = stops.why_stopped(self._interrupt if interrupted else None, session.shouldstop, session.shouldfail,
                                 bool(self.config.getoption("stepwise", False)
                                      or self.config.getoption("stepwise_skip", False)),
                                 int(self.config.getoption("maxfail", 0) or 0))
        stopped = stop.why if stop is not None else ""
        if interrupted:
            stopped = stopped or stops.SIGNAL
        elif exitstatus == pytest.ExitCode.INTERNAL_ERROR:  # never a complete, passing report of a crashed run
            stopped = "an internal error (INTERNALERROR above) ended the run early; the cases after it have no result"
        elif run.collector.crashed:
            crashed = run.collector.crashed
            stopped = (f"a pytest-xdist worker crashed while running {len(crashed)} item(s), first {crashed[0]}; "
                       "those cases have no result")
        result = run.conclude(int(exitstatus), stopped, selection(self.config))
        at_failure = interrupted and stop is not None and stop.at_failure  # --sw, or -x under xdist: not a signal
        if exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED) or at_failure or (
                exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED and self.options.shard is not None
                and (self._shard_dropped or run.worker_collections) and collection is not None and collection.suites):
            session.exitstatus = result.verdict.exit_status  # a shard that got no unit is a shard: exit 0
        read = suites_read(self.config.rootpath, {o.test for o in result.outcomes}) \
            if _is_distributed(self.config) else ()
        failed_during = [*allure_hooks.write_failures(self.config),
                         *output_checks.pytest_files_still_safe(self.config, self.options, read)]
        self.terminal.summary_lines, unwritten = run.report(result, read, failed_during)
        if unwritten and session.exitstatus == pytest.ExitCode.OK:  # a requested output is missing
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
