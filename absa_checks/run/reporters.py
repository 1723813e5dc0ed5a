"""The reports a run writes: each takes the RunResult (absa_checks.run.conclusion) and the options, and
returns the lines it adds to the terminal summary. The plugin calls `registry()`'s reporters in order.

Adding a report: a module with an object that is a `Reporter` (`name`, `wanted`, `outputs`, `write`), and one
registration: an entry in BUILTIN_REPORTERS, or, from your own package, an entry point under the group
`absa_checks.reporters` named as the reporter (docs/architecture.md, "Seams"). It writes its files through
absa_checks.common.outputs, and lists them in `outputs(options)` so that they are checked against the run's inputs
before the run.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import replace
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Protocol, runtime_checkable

from absa_checks.common import outputs
from absa_checks.common.extensions import merged
from absa_checks.reports import allure_support, report_json, report_markdown, terminal
from absa_checks.run.conclusion import RunResult
from absa_checks.run.run_state import RunOptions

ENTRY_POINT_GROUP = "absa_checks.reporters"


@runtime_checkable
class Reporter(Protocol):
    """A report: everything the run asks of one (docs/architecture.md, "Seams")."""

    name: str  # its registration's name (an entry point's name): json, markdown, allure

    def wanted(self, options: RunOptions) -> bool:
        """Whether this run asked for the report."""

    def outputs(self, options: RunOptions) -> list[outputs.Named]:
        """The files it will write, checked against the run's inputs and the other outputs before the run
        ([] for a report that writes none of its own)."""

    def write(self, result: RunResult, options: RunOptions) -> list[str]:
        """Write the report; the lines to show in the terminal summary (e.g. where it was written)."""


BUILTIN_REPORTERS: MappingProxyType[str, Reporter] = MappingProxyType({r.name: r for r in (
    report_json.REPORTER, report_markdown.REPORTER, allure_support.REPORTER)})


@cache
def registry() -> MappingProxyType[str, Reporter]:
    """Every reporter by name, in the order they write: the built-in ones, then those registered under
    ENTRY_POINT_GROUP (read once per process)."""
    return merged(ENTRY_POINT_GROUP, Reporter, BUILTIN_REPORTERS, lambda r: r.name)  # type: ignore[type-abstract]


def planned(options: RunOptions) -> list[outputs.Named]:
    """Every file the wanted reports may write, for outputs.check before the run."""
    return [out for reporter in registry().values() if reporter.wanted(options) for out in reporter.outputs(options)]


def run_inputs(options: RunOptions, specs=(), read: tuple[outputs.Named, ...] = ()) -> list[outputs.Named]:
    """The files a pytest run reads: the baseline, the models file, every file a model's settings name (a
    replay model's answers, a callable's module), and `read` (suite and examples files, from collection)."""
    found = [*outputs.given("--absa-baseline", options.baseline), *read]
    if options.models_file is not None and options.models_file.is_file():
        found.append(outputs.Named("--absa-models", options.models_file))
    for spec in specs:
        for key, value in spec.settings.items():
            found += [outputs.Named(f"model '{spec.name}' ('{key}:')", path)
                      for path in outputs.existing_files([value], spec.base_dir)]
            module = sys.modules.get(str(value).partition(":")[0]) if spec.kind == "python" else None
            module_file = getattr(module, "__file__", None)
            if module is not None and module_file:  # python:<module>:<function>, imported when the model was built
                found.append(outputs.Named(f"model '{spec.name}' (module {module.__name__})", Path(module_file)))
    return found


def check_run_outputs(options: RunOptions, specs=(), read: tuple[outputs.Named, ...] = ()) -> None:
    """Before the run: OutputRefused when a requested output would destroy an input or another output
    (absa_checks.common.outputs.check); every existing file under the data and cache folders counts as an input."""
    folders = [*outputs.given("--absa-data", options.data_dir), *outputs.given("--absa-cache", options.cache_dir)]
    wanted = planned(options)
    outputs.check(wanted, run_inputs(options, specs, read), folders, getattr(options, "follow_symlinks", False))
    for out in wanted:  # suites, examples and models files are YAML: known before collection (and under xdist)
        if out.path.suffix.lower() in (".yaml", ".yml") and out.path.is_file():
            raise outputs.OutputRefused(f"{out}: is an existing YAML file, and suite, examples and models files are "
                                        "YAML; a report never replaces one: name a .json or .md file", option=out.option)


OPTION_FIELDS = {"--absa-report": "report", "--absa-markdown": "markdown", "--alluredir": "allure_dir"}


def still_safe(options: RunOptions, read: tuple[outputs.Named, ...]) -> tuple[RunOptions, list[str]]:
    """At the end of the run, the outputs checked again with every suite the run read (under pytest-xdist
    the controller learns them only from the results): each refused output is left out, with its line."""
    refused: list[str] = []
    while True:
        try:
            check_run_outputs(options, (), read)
            return options, refused
        except outputs.OutputRefused as err:
            field = OPTION_FIELDS.get(err.option)
            if field is None or getattr(options, field) is None:  # cannot tell which: write none
                return replace(options, report=None, markdown=None, allure_dir=None), [*refused, str(err)]
            refused.append(f"{err} (not written)")
            options = replace(options, report=None if field == "report" else options.report,
                              markdown=None if field == "markdown" else options.markdown,
                              allure_dir=None if field == "allure_dir" else options.allure_dir)


def write_all(result: RunResult, options: RunOptions) -> tuple[list[str], list[str]]:
    """Every wanted report, each written even when another could not be: (lines, why some were not)."""
    written, failed = [], []
    for reporter in registry().values():
        if reporter.wanted(options):
            try:
                written += reporter.write(result, options)
            except outputs.OutputError as err:
                failed += [f"absa-checks: {line}" for line in str(err).splitlines()]
    return written, failed


def summary_with_failures(result: RunResult, options: RunOptions, read: tuple[outputs.Named, ...] = (),
                          also_failed: Iterable[str] = ()) -> tuple[list[str], list[str]]:
    """The terminal's absa-checks section: the tables and facts, every report's lines, the outputs that
    could not be written, the verdict last (saying so when an output is missing); and those failures.
    `read`: the suite and examples files the run read, checked again (still_safe); `also_failed`: outputs
    written during the run that failed (allure-pytest's per-case results)."""
    lines = terminal.summary(result, options)
    safe, refused = still_safe(options, read)
    written, failed = write_all(result, safe)
    failed = [f"absa-checks: {line}" for line in [*refused, *also_failed]] + failed
    verdict = lines[-1:]
    if failed and verdict:
        verdict = [with_unwritten(verdict[0], len(failed))]
    return lines[:-1] + written + failed + verdict, failed


def with_unwritten(verdict: str, unwritten: int) -> str:
    """The verdict line when requested outputs could not be written (the run, and `absa-checks merge`)."""
    if not unwritten:
        return verdict
    return (f"{verdict} (but {unwritten} requested output{'s' if unwritten > 1 else ''} could not be written, "
            "see above: exit status 1)")


def summary(result: RunResult, options: RunOptions) -> list[str]:
    """The terminal's absa-checks section (summary_with_failures without the failures)."""
    return summary_with_failures(result, options)[0]
