"""Splitting a run across machines (`--absa-shard K/N`) and merging the shards' reports back
(`absa-checks merge`) into the report one run would have written.

A unit (an original with its variants) is never split: every case, quarantined variant and listed
example of one unit goes to the same shard, for every checkpoint, so ARS units stay whole. Items that
are not about one unit (a test on absent data, a gated test with no case, an extraction test) go by
their test and source. The shard of a key is a hash, so every machine computes the same split.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from absa_checks.common import inputs
from absa_checks.common.errors import AbsaChecksError
from absa_checks.common.fingerprint import differences


class ShardError(AbsaChecksError):
    """Shard reports that cannot be merged (missing, duplicated, from different runs)."""


def parse_shard(value: str) -> tuple[int, int]:
    """"2/4" -> (2, 4); ValueError with the fix otherwise."""
    k, slash, n = value.partition("/")
    if not slash or not k.strip().isdigit() or not n.strip().isdigit():
        raise ValueError(f"--absa-shard {value}: write K/N, e.g. 2/4 for the second of four shards")
    shard, count = int(k), int(n)
    if count < 1 or not 1 <= shard <= count:
        raise ValueError(f"--absa-shard {value}: K must be from 1 to N (N at least 1), e.g. 1/{max(count, 1)}")
    return shard, count


def shard_of(key: str, count: int) -> int:
    """The shard (1..count) a key belongs to, the same on every machine."""
    return 1 + int(hashlib.sha256(key.encode()).hexdigest()[:12], 16) % count


def shard_identity(baseline: Path | None, selection: dict[str, Any]) -> dict[str, Any]:
    """What else a shard was asked, that the merge must find equal in every shard: the released report it
    is compared with (by content and its `complete` flag, not by path: another machine keeps it elsewhere)
    and the selection (-k, -m, --deselect, node ids)."""
    return {"baseline": baseline_identity(baseline) if baseline is not None else None, "selection": selection}


def baseline_identity(path: Path) -> dict[str, Any]:
    """A baseline report by its bytes' sha256 and its `complete` flag (or why it cannot be read)."""
    try:
        data = inputs.read_bytes(path)
    except OSError as err:
        return {"sha256": None, "error": f"cannot be read ({err.strerror})"}
    try:
        complete = json.loads(data).get("complete")
    except (ValueError, AttributeError):
        complete = None
    return {"sha256": hashlib.sha256(data).hexdigest(), "complete": complete}


def _identity_differences(mine: dict[str, Any], first: dict[str, Any]) -> list[str]:
    """The shard identities' differences, each named: the baseline, then each selection option."""
    found = []
    a, b = mine.get("baseline"), first.get("baseline")
    if a != b:
        if a is None or b is None:
            found.append("--absa-baseline given to one shard and not to the other")
        else:
            found.append("another --absa-baseline (its content differs"
                         + ("; one of them is a partial report, complete: false" if a.get("complete") != b.get("complete")
                            else "") + ")")
    sa, sb = mine.get("selection", {}), first.get("selection", {})
    for option in sorted(set(sa) | set(sb)):
        if sa.get(option) != sb.get(option):
            found.append(f"another selection: {option} {_shown(sa.get(option))}, not {_shown(sb.get(option))}")
    return found


def _shown(value: Any) -> str:
    if not value:
        return "(none)"
    return repr(value) if isinstance(value, str) else ", ".join(map(str, value))


def read_shard_reports(paths: list[Path]) -> list[dict[str, Any]]:
    """The shards' JSON reports, checked: each one a shard, all of one run, every shard exactly once."""
    reports = []
    for path in paths:
        try:
            report = json.loads(inputs.read_text(path))
        except (OSError, ValueError) as err:
            raise ShardError(f"{path}: cannot be read as a JSON report ({err})") from None
        if not isinstance(report, dict) or "shard" not in report:
            raise ShardError(f"{path}: not a shard's report; write each shard's with --absa-shard K/N --absa-report")
        if report.get("complete") is False:
            raise ShardError(f"{path}: shard {report['shard']['k']}/{report['shard']['n']} stopped early "
                             f"({report.get('stopped', 'partial run')}); run that shard again")
        reports.append((Path(path), report))
    counts = {r["shard"]["n"] for _, r in reports}
    if len(counts) != 1:
        splits = ", ".join(f"{path}: of {report['shard']['n']}" for path, report in reports)
        raise ShardError(f"the reports split the run differently ({splits}); merge the shards of one run")
    count = counts.pop()
    seen: dict[int, Path] = {}
    for path, report in reports:
        k = report["shard"]["k"]
        if k in seen:
            raise ShardError(f"shard {k}/{count} is given twice: {seen[k]} and {path}")
        seen[k] = path
    missing = [str(k) for k in range(1, count + 1) if k not in seen]
    if missing:
        raise ShardError(f"shard {', '.join(missing)} of {count} is missing; merge all {count} shards of the run")
    reports.sort(key=lambda pair: pair[1]["shard"]["k"])
    first_path, first = reports[0]
    for path, report in reports[1:]:
        _same_request(path, report, first_path, first)
        _same_inputs(path, report, first_path, first)
        for key in ("run", "schema_version"):
            mine, theirs = report[key], first[key]
            if key == "run" and isinstance(mine, dict) and isinstance(theirs, dict) and "fingerprint" in mine:
                # the suites each shard's cases came from (a shard may get no unit at all): the fingerprint's
                # suites, compared above, are every collected suite
                mine, theirs = ({k: v for k, v in run.items() if k not in ("suites", "suite_sha256")}
                                for run in (mine, theirs))
            if mine != theirs:
                named = sorted(k for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k)) \
                    if isinstance(mine, dict) and isinstance(theirs, dict) else [key]
                raise ShardError(f"{path} and {first_path} are not shards of one run: their "
                                 f"{', '.join(f'{key}.{k}' if k != key else key for k in named)} differ "
                                 "(model, suites, seed, options or the versions of Python and its libraries)")
    return [report for _, report in reports]


def _same_request(path: Path, report: dict[str, Any], first_path: Path, first: dict[str, Any]) -> None:
    """Shards of one run were compared with one baseline and selected with one -k / -m: else one message
    naming each difference."""
    mine, theirs = report["shard"].get("identity"), first["shard"].get("identity")
    if mine is None and theirs is None:  # shards written before identities
        return
    found = _identity_differences(mine or {}, theirs or {})
    if found:
        k, n, k0 = report["shard"]["k"], report["shard"]["n"], first["shard"]["k"]
        raise ShardError(f"shard {k} of {n} ({path}) was not run as shard {k0} ({first_path}) was: it was run with "
                         f"{'; '.join(found)}. These are not shards of one run: run every shard with the same "
                         "--absa-baseline file and the same -k / -m selection")


def _same_inputs(path: Path, report: dict[str, Any], first_path: Path, first: dict[str, Any]) -> None:
    """Shards of one run were made from the same inputs: the parts of their fingerprints agree, else one
    message naming the shard and each input that differs (absa_checks.common.fingerprint)."""
    mine = (report.get("run") or {}).get("fingerprint")
    theirs = (first.get("run") or {}).get("fingerprint")
    if mine is None and theirs is None:  # reports written before fingerprints: the 'run' check below decides
        return
    if mine is None or theirs is None:
        old = path if mine is None else first_path
        raise ShardError(f"{old} was written by an older absa-checks, without the run's fingerprint; run every "
                         "shard with one version")
    if mine.get("run") == theirs.get("run"):
        return
    found = differences(mine.get("parts", {}), theirs.get("parts", {})) or ["other inputs"]
    k, n, k0 = report["shard"]["k"], report["shard"]["n"], first["shard"]["k"]
    raise ShardError(f"shard {k} of {n} ({path}) was not made from the inputs of shard {k0} ({first_path}): it was "
                     f"made from {'; '.join(found)}. These are not shards of one run: run every shard from the same "
                     "suites, examples files, data, model entry and options")


def merge(paths: list[Path], baseline: Path | None = None):
    """The shards' reports concluded as one run: the same outcomes, records and options, so the same
    metrics, intervals, comparison and verdict as a single run (only `timing` differs)."""
    from dataclasses import replace

    from absa_checks.common.examples import DataIssue
    from absa_checks.judge import coverage, manifest
    from absa_checks.judge.outcomes import CaseOutcome
    from absa_checks.models.claims import Claim
    from absa_checks.run.conclusion import RunContext, conclude, read_baseline
    from absa_checks.run.run_state import RunOptions

    reports = read_shard_reports(paths)
    section = reports[0]["shard"]
    o = section["options"]
    options = RunOptions(model=o["model"], models_file=None, data_dir=None,
                         sources=tuple(o["sources"]) if o["sources"] else None, sample=o["sample"], seed=o["seed"],
                         report=None, markdown=None, strict=o["strict"], gate_basis=o["gate_basis"], batch_size=1,
                         gate_on=o["gate_on"], inconclusive=o["inconclusive"],
                         baseline=Path(baseline or o["baseline"]) if (baseline or o["baseline"]) else None,
                         regression_alpha=o["regression_alpha"], regression_min_effect=o["regression_min_effect"],
                         require_claims=o.get("require_claims", False))
    layout = section.get("layout") or {}
    cases: dict[str, dict] = {}
    records: dict[str, dict[str, dict]] = {"quarantined": {}, "no_cases": {}, "extraction": {}}
    issues: dict[str, list[dict]] = {}
    for report in reports:
        for case in report["cases"]:
            if case["nodeid"] in cases:
                raise ShardError(f"{case['nodeid']} is in two shards' reports; were they run with one --absa-shard N?")
            cases[case["nodeid"]] = case
        for kind, found in report["shard"]["records"].items():
            records[kind].update(found)
        for source in {i["source"] for i in report["data_issues"]}:  # each shard loaded whole sources: once
            issues.setdefault(source, [i for i in report["data_issues"] if i["source"] == source])
    first_run = reports[0]
    context = RunContext(
        models={m["name"]: {k: v for k, v in m.items() if k != "name"} for m in first_run["run"]["models"]},
        issues=[DataIssue(**issue) for source in sorted(issues) for issue in issues[source]],
        quarantined=[records["quarantined"][n] for n in sorted(records["quarantined"])],
        other_failures=sum(r["shard"]["other_failures"] for r in reports),
        no_cases=[records["no_cases"][n] for n in sorted(records["no_cases"])],
        timing={"merged_shards": len(reports), "wall_seconds": max(r["timing"]["wall_seconds"] for r in reports)},
        extraction=[records["extraction"][n] for n in sorted(records["extraction"])],
        group=layout.get("group", ""),
        splits=tuple((name, tuple(members)) for name, members in layout.get("splits", [])),
        claims={subject: tuple(Claim(**c) for c in found) for subject, found in layout.get("claims", {}).items()},
        fingerprint=first_run["run"].get("fingerprint"),
        coverage=coverage.merged(found for r in reports for found in r["shard"].get("coverage") or []))
    kept = [r["shard"].get("manifest") for r in reports]
    if all(kept):  # what the shards were asked for, as one run (absa_checks.judge.manifest)
        collection, refused, data = manifest.from_shards(kept)
        context = replace(context, collection=collection, refused=refused,
                          request=manifest.Request(options.sources, data))
    outcomes = [CaseOutcome.from_dict(cases[n]) for n in sorted(cases)]
    return conclude(outcomes, options, read_baseline(options.baseline) if options.baseline else None, context)
