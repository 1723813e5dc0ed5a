"""The terminal glue: progress while predicting, compact failures without -v, the absa-checks section last."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import pytest

from absa_checks.judge.outcomes import NO_VARIANT_KEY, PROPERTY_KEY, QUARANTINE_KEY
from absa_checks.models.progress import FileProgress, ProgressWatcher, TerminalProgress, display_for
from absa_checks.run.core import Run


class TerminalGlue:
    """Per-run terminal hooks; `run` (the run core) is set by the plugin once made."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.run: Run | None = None
        self.summary_lines: list[str] = []
        self._tbstyle: str | None = None  # pytest's --tb before compact failures set it to "no"
        self._errors_seen = False
        self._progress_dir: Path | None = None  # xdist controller: the workers' progress files
        self._watcher: ProgressWatcher | None = None

    def progress_sink(self) -> FileProgress | TerminalProgress:
        """Progress goes to the terminal; from an xdist worker, to the file its controller shows."""
        workerinput = getattr(self.config, "workerinput", None)
        if workerinput is not None and "absa_progress" in workerinput:
            return FileProgress(Path(workerinput["absa_progress"]), workerinput["workerid"])
        return TerminalProgress(self.config)

    def progress_folder(self) -> Path:
        """xdist controller: where workers write their progress (created by the first that predicts)."""
        if self._progress_dir is None:
            self._progress_dir = Path(tempfile.gettempdir()) / f"absa-progress-{os.getpid()}-{time.time_ns()}"
        return self._progress_dir

    def _watch_progress(self) -> None:
        """xdist controller, once suites are collected: show the workers' summed progress."""
        if self._watcher is not None:
            return
        display = display_for(self.config)
        if display is not None:
            self._watcher = ProgressWatcher(self.progress_folder(), display)
            self._watcher.start()

    def stop_watching(self) -> None:
        if self._watcher is not None:
            self._watcher.stop()
        if self._progress_dir is not None:
            shutil.rmtree(self._progress_dir, ignore_errors=True)

    def compact_failures(self, only_suites: bool) -> None:
        """A run of suites only, without -v: a failed case shows once, as its `F` and (the first few) in our
        section, not also as a traceback section (unless --tb=... is given) and a "FAILED" line each (unless
        -r... is given); -v brings the full explanation back."""
        if not only_suites or self.config.option.verbose > 0 or self._errors_seen:
            return
        given = (*self.config.invocation_params.args, *self.config.getini("addopts"))
        # -rA / -rP ask for the passed cases' captured output, which pytest prints only with a --tb style
        wants_passes = any(arg.startswith("-r") and ("A" in arg[2:] or "P" in arg[2:]) for arg in given)
        if not any(arg.startswith("--tb") for arg in given) and self._tbstyle is None and not wants_passes:
            self._tbstyle = self.config.option.tbstyle
            self.config.option.tbstyle = "no"
        if not any(arg.startswith("-r") for arg in given):
            self.config.option.reportchars = self.config.option.reportchars.replace("f", "")
            reporter = self.config.pluginmanager.get_plugin("terminalreporter")
            if reporter is not None:  # it read the option when it started
                reporter.reportchars = reporter.reportchars.replace("f", "")
            if self.run is not None:  # set by the plugin right after making the glue
                self.run.options = replace(self.run.options, compact_failures=True)

    def show_errors_in_full(self) -> None:
        """A collection or setup error (a broken suite or model) is never compacted away."""
        self._errors_seen = True
        if self._tbstyle is not None:
            self.config.option.tbstyle = self._tbstyle

    @pytest.hookimpl(tryfirst=True)
    def pytest_report_teststatus(self, report, config):
        """Without -v, a case that met its expectation and a variant our checks quarantined add no progress
        letter (the terminal shows the failures, `F`, among tens of thousands of cases); they are counted
        as passed and skipped as ever, and -v lists each."""
        if config.option.verbose > 0 or report.when != "call" or not (report.passed or report.skipped):
            return None
        keys = {key for key, _ in report.user_properties}
        if report.passed and PROPERTY_KEY in keys:
            return "passed", "", "PASSED"
        if report.skipped and keys & {QUARANTINE_KEY, NO_VARIANT_KEY}:
            return "skipped", "", "SKIPPED"
        return None

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node, ids) -> None:
        """xdist controller: it prints the failures but collects nothing; the workers' ids tell."""
        self.compact_failures(bool(ids) and all(".yaml::" in i or ".yml::" in i for i in ids))
        if any(".yaml::" in i or ".yml::" in i for i in ids):
            self._watch_progress()

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_terminal_summary(self, terminalreporter):
        """Written after pytest's own summaries, the list of failed cases included: with thousands of
        failing cases the verdict is still what the reader sees last, above the final count."""
        result = yield
        if not self.summary_lines:
            return result
        terminalreporter.section("absa-checks")
        for line in self.summary_lines:
            terminalreporter.write_line(line)
        return result
