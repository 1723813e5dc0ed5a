"""`absa_checks.evaluate`: the suites run from Python (a notebook, a training loop), without pytest.

It drives the same run core as `pytest suites/` (absa_checks.run): the same plans, predictions, checks,
conclusion and reports, so its JSON report equals pytest's apart from `timing`.

    from absa_checks import evaluate
    result = evaluate(model="lexicon", suites="suites", data="/data", sample=200, report="out.json")
    result.verdict.passed, result.metrics, result.report["sources"]

The options are pytest's without `--absa-` (dashes as underscores): `sample=200`, `gate_basis="point"`,
`report="out.json"`; `sources` and `model` may be a list. A mistake (an unknown option, a value of the wrong
type, a bad value, an unknown model, a broken suite) raises one AbsaChecksError (`absa_checks.AbsaChecksError`)
whose message is the one pytest shows, with each option named as its keyword (`sample=0`, not `--absa-sample`).
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from absa_checks.common.errors import AbsaChecksError, AdapterError
from absa_checks.common.outputs import Named
from absa_checks.run import checking
from absa_checks.run import options as run_options
from absa_checks.run.conclusion import RunResult
from absa_checks.run.core import FAILED_EXIT, NO_CASE_EXIT, OK_EXIT, Run
from absa_checks.run.plans import CasePlan, Extraction, MissingData, NoCases, Plan, shard_key
from absa_checks.run.shards import shard_of
from absa_checks.suites.suite_files import classify, is_yaml

# pytest's default norecursedirs: folders `pytest suites/` does not look into
NO_RECURSE = ("*.egg", ".*", "_darcs", "build", "CVS", "dist", "node_modules", "venv", "{arch}", "__pycache__")
# what chose the items besides the shard: nothing here (pytest's -k, -m, --deselect, node ids), as a shard records it
SELECTION = {"-k": "", "-m": "", "--deselect": [], "node ids": []}


def evaluate(model: str | None = None, suites: str | os.PathLike | Iterable[str | os.PathLike] = "suites",
             data: str | os.PathLike | None = None, *, rootdir: str | os.PathLike | None = None,
             **options: Any) -> RunResult:
    """Run the suites (files or folders, as `pytest PATHS` would collect them) against `model` and return the
    RunResult: `.verdict`, `.metrics`, `.report` (the JSON report's content), `.summary` (the terminal's
    absa-checks lines, the verdict last) and `.unwritten` (requested outputs that could not be written).
    `rootdir` (default: the working folder) is what node ids, models.yaml and .absa-cache are relative to, as
    pytest's rootdir is."""
    try:
        return _checked_evaluate(model, suites, data, rootdir, options)
    except AbsaChecksError as err:  # raised below the front door with pytest's option names: spelled as keywords
        err.args = (run_options.KEYWORDS.message(str(err)),)  # the same error (its type kept), respelled
        raise


def _checked_evaluate(model: Any, suites: Any, data: Any, rootdir: Any, options: dict[str, Any]) -> RunResult:
    named = _paths("suites", suites, several=True)
    root = Path(os.path.abspath(_paths("rootdir", rootdir)[0] if rootdir is not None else Path.cwd()))  # as pytest's
    given = {key: value for key, value in (("model", model), ("data", data)) if value is not None}
    values = run_options.from_keywords({**given, **options})
    values = {key: _as_option_text(value) for key, value in values.items()}
    run_options.refuse_empty(values, run_options.KEYWORDS)
    # the summary lists the first failed cases, as pytest's absa-checks section does without -v
    run = Run(replace(run_options.read(values, root, spelling=run_options.KEYWORDS), compact_failures=True),
              data_given=values["data"])
    try:
        return _evaluate(run, _suite_files(named, root), root)
    finally:
        run.close()


def _paths(keyword: str, value: Any, several: bool = False) -> list[str | os.PathLike]:
    """evaluate()'s path keywords (suites, rootdir) checked: a text or a path (suites: or a list of them); a value
    of another type is one error naming the keyword and what it takes."""
    if isinstance(value, (str, os.PathLike)):
        return [value]
    if several and isinstance(value, Iterable) and not isinstance(value, (bytes, dict)):
        found = list(value)
        if all(isinstance(v, (str, os.PathLike)) for v in found):
            return found
    want = "a path (a text or a pathlib.Path) or a list of them" if several else "a path (a text or a pathlib.Path)"
    raise AbsaChecksError(f"evaluate(): {keyword}={value!r}: give {want}")


def _as_option_text(value: Any) -> Any:
    """A list of sources as pytest gets it (a,b); a path as text."""
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return os.fspath(value) if isinstance(value, os.PathLike) else value


def _suite_files(named: list[str | os.PathLike], root: Path) -> list[Path]:
    """The suite files of the paths, in pytest's collection order; a named file or a folder's suite-like file
    that is no suite is the error pytest shows for it."""
    found: list[Path] = []
    for name in named:
        path = Path(name) if Path(name).is_absolute() else Path.cwd() / name
        if path.is_dir():
            found += [p for p in _walk(path) if classify(p, root).kind != "other"]
        elif path.is_file():
            found.append(path)
        else:
            raise AbsaChecksError(f"{name}: no such file or folder; name suite files or the folders that hold them")
    for path in found:
        kind = classify(path, root)
        if kind.kind != "suite":
            why = f" ({kind.why})" if kind.why else ""
            raise AbsaChecksError(f"{_shown(path, root)}: not an absa-checks suite{why}: a suite file has a top-level "
                                  "'suite: NAME' line (see docs/suites.md); other YAML files are not collected")
    if not found:
        raise AbsaChecksError(f"{', '.join(map(str, named))}: no suite file found (a suite is a .yaml file with a "
                              "top-level 'suite: NAME' line), so nothing was evaluated")
    return found


def _walk(folder: Path) -> list[Path]:
    """YAML files under `folder`, in the order pytest collects them (entries by name, folders in place)."""
    found: list[Path] = []
    for entry in sorted(folder.iterdir(), key=lambda p: p.name):
        if entry.is_dir():
            if not any(fnmatch.fnmatch(entry.name, pattern) for pattern in NO_RECURSE):
                found += _walk(entry)
        elif is_yaml(entry):
            found.append(entry)
    return found


def _shown(path: Path, root: Path) -> str:
    """A path as node ids show it: relative to the rootdir when it is inside."""
    path = Path(os.path.abspath(path))
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


def _evaluate(run: Run, files: list[Path], root: Path) -> RunResult:
    run.state  # noqa: B018 - the models resolved first: an unknown model is the first error, as in pytest
    run.check_outputs()
    plans: list[tuple[str, Plan]] = []
    read: list[Named] = []
    for path in files:
        shown = _shown(path, root)
        suite, inputs = run.read_suite(path, shown)
        read += inputs
        plans += [(f"{shown}::{plan.name}", plan) for plan in run.plan(suite, path.parent)]
    run.check_outputs(tuple(read))
    run.check_sources(plan.source for _, plan in plans)
    if run.options.shard is not None:
        k, n = run.options.shard
        plans = [(nodeid, plan) for nodeid, plan in plans if shard_of(shard_key(plan), n) == k]
    run.planned([plan for _, plan in plans])
    failures = 0
    for nodeid, plan in plans:  # in collection order, as pytest runs the items
        properties, failed = _execute(run, plan, nodeid)
        run.take(nodeid, properties, failed)
        failures += failed
    result = run.conclude(FAILED_EXIT if failures else OK_EXIT if plans else NO_CASE_EXIT, "", dict(SELECTION))
    result.summary, result.unwritten = run.report(result)
    return result


def _execute(run: Run, plan: Plan, nodeid: str) -> tuple[list[tuple[str, str]], bool]:
    """What the plan's pytest item would record, and whether it would fail (absa_checks.run.checking)."""
    if isinstance(plan, CasePlan):
        try:
            answers = checking.answers(plan, run.state.predictors[plan.model])
        except AdapterError as err:
            return [checking.record(checking.errored(plan, nodeid, str(err)))], True
        checked = checking.check_case(plan, nodeid, *answers)
        return [checking.record(checked.outcome)], bool(checked.failure)
    if isinstance(plan, MissingData):
        return [], False
    if isinstance(plan, Extraction):
        predictor = run.state.predictors.get(plan.model)
        if checking.not_extracting(plan, predictor):
            return [], False
        try:
            return [checking.extraction_record(plan, predictor)], False
        except Exception:  # noqa: BLE001 - as a failing pytest item: counted among the other failures
            return [], True
    return [checking.plan_record(plan)], isinstance(plan, NoCases)
