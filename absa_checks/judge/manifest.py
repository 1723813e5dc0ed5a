"""The run manifest: what a run was asked to measure, and what it measured.

Collection writes down every (test, source) pair the selected items stand for, with its status (cases,
no data, nothing to generate with, no cases, not for this model); the run's outcomes say which pairs were
measured. A pair is *requested* when

- its source is named by `--absa-sources`, or it is a dataset source and a data folder was given
  (`--absa-data` / `$ABSA_DATA_DIR`): the user asked for that source;
- its test has gates and none of the test's selected pairs was measured: the gates would be decided on
  nothing.

Any requested thing that was not measured, a suite file that was refused, or a run of suites that measured
nothing at all is a problem: the verdict is FAILED with one line naming what and why (conclusion.conclude).
Pairs that are not requested and were skipped for missing data are counted in one summary line.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from absa_checks.common import domains as domains_module

CASES, NO_DATA, CANNOT_GENERATE, NO_CASES, EXTRACTION, NOT_FOR_MODEL = (
    "cases", "no-data", "cannot-generate", "no-cases", "extraction", "not-for-this-model")
NO_VARIANT, QUARANTINED = "no-variant", "quarantined"  # an example without a variant, a rejected variant
OWN_ITEM = (NO_CASES, NO_VARIANT, QUARANTINED)  # already shown by an item of their own (a gated one fails)
# a checkpoint declares other domains than the source's (absa_checks.common.domains): left out, never a failure of
# the run unless --absa-sources names the source; or run report-only with --absa-cross-domain (measured)
OTHER_DOMAIN, CROSS_DOMAIN = "other-domain", "cross-domain"


@dataclass(frozen=True)
class Planned:
    """One (test, source) pair that selected items stand for, and what collection found for it."""

    test: str
    source: str
    gated: bool
    status: str
    reason: str = ""
    model: str = ""  # OTHER_DOMAIN / CROSS_DOMAIN: the checkpoint the decision is for


@dataclass(frozen=True)
class Collection:
    """What collection found (in the process that collects: the run itself, or each xdist worker)."""

    suites: tuple[str, ...] = ()
    planned: tuple[Planned, ...] = ()
    selected: int = 0       # suite items selected to run
    deselected: int = 0     # suite items deselected (-k, -m, --absa-shard)

    def to_dict(self) -> dict[str, Any]:
        return {"suites": list(self.suites), "planned": [asdict(p) for p in self.planned],
                "selected": self.selected, "deselected": self.deselected}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Collection:
        return cls(tuple(data["suites"]), tuple(Planned(**p) for p in data["planned"]), data["selected"],
                   data["deselected"])

    @property
    def has_suites(self) -> bool:
        return bool(self.suites or self.planned or self.selected or self.deselected)


def merged(collections: Iterable[Collection]) -> Collection:
    """xdist workers each collect the whole run: their collections are one (a union, to be safe)."""
    found = list(collections)
    planned: dict[tuple[str, str, str, str], Planned] = {}
    for p in (p for c in found for p in c.planned):  # one reason per pair, whatever the shard: the smallest
        key = (p.test, p.source, p.status, p.model)
        planned[key] = min(planned.get(key, p), p, key=lambda q: q.reason)
    return Collection(tuple(sorted({s for c in found for s in c.suites})),
                      tuple(planned[key] for key in sorted(planned)),
                      max((c.selected for c in found), default=0), max((c.deselected for c in found), default=0))


def from_shards(records: list[dict[str, Any]]) -> tuple[Collection, list[dict[str, str]], str]:
    """`absa-checks merge`: the shards' collections as one run's (each shard selected its own items; the
    items -k / -m deselected are the same in every shard), their refused suites, the data folder given."""
    collections = [Collection.from_dict(r["collection"]) for r in records]
    union = merged(collections)
    refused = {r["path"]: r for record in records for r in record["refused"]}
    return (Collection(union.suites, union.planned, sum(c.selected for c in collections), union.deselected),
            [refused[path] for path in sorted(refused)], records[0]["data"])


@dataclass(frozen=True)
class Request:
    """Who asks for the sources: --absa-sources names, and the data folder (shown as given)."""

    sources: tuple[str, ...] | None = None
    data_dir: str = ""            # "--absa-data DIR" or "$ABSA_DATA_DIR=DIR" when one was given
    shard: bool = False           # a shard decides no gate: the gate rule waits for the merge
    pytest_exit: int = 0          # pytest's own exit status (5: no test ran at all)
    domains: tuple[tuple[str, tuple[str, ...]], ...] = ()  # checkpoints that declare domains: (name, domains)


@dataclass
class Manifest:
    """Requested vs measured, and the problems (each one line) that make the verdict FAILED."""

    suites: list[str]
    refused: list[dict[str, str]]
    pairs: list[dict[str, Any]]          # each planned pair: test, source, gated, status, reason, requested, measured
    models_requested: list[str]
    models_measured: list[str]
    selected: int
    deselected: int
    baseline: dict[str, Any] | None = None
    problems: list[str] = field(default_factory=list)
    not_run: str = ""  # every suite item was deselected: absa-checks did not run (not a failure of the run)
    skipped: list[str] = field(default_factory=list)  # lines: not requested, skipped (e.g. data sources without data)
    domains: dict[str, Any] = field(default_factory=dict)  # each checkpoint's domains, sources left out / report-only

    def to_dict(self) -> dict[str, Any]:
        planned = sorted({p["source"] for p in self.pairs})
        required = sorted({p["source"] for p in self.pairs if p["requested"]})
        measured = sorted({p["source"] for p in self.pairs if p["measured"]})
        return {
            "requested": {"suites": self.suites, "sources": planned, "required_sources": required,
                          "models": self.models_requested,
                          "items": self.selected, "deselected": self.deselected,
                          **({"baseline_units": self.baseline["baseline_units"]} if self.baseline else {})},
            "measured": {"sources": measured, "models": self.models_measured,
                         **({"shared_baseline_units": self.baseline["shared"]} if self.baseline else {})},
            "refused_suites": self.refused,
            "tests": self.pairs,
            "not_measured": self.problems,
            **({"not_run": self.not_run} if self.not_run else {}),
            "skipped": self.skipped,
            **({"domains": self.domains} if self.domains else {}),
            **({"baseline": self.baseline} if self.baseline else {}),
        }


def build(collection: Collection, refused: list[dict[str, str]], measured: set[tuple[str, str]],
          models_requested: list[str], models_measured: list[str], request: Request,
          baseline: dict[str, Any] | None = None) -> Manifest:
    """The manifest of one run (pure). `measured`: the (test, source) pairs with a result."""
    by_test: dict[str, list[Planned]] = {}
    for planned in sorted(collection.planned, key=lambda p: (p.test, p.source, p.status, p.model)):  # the same in every process
        by_test.setdefault(planned.test, []).append(planned)
    pairs, problems = [], []
    unmeasured_requests: dict[str, tuple[str, str]] = {}  # source -> (asked by, reason)
    gate_problems: list[str] = []
    for found in by_test.values():
        test_measured = any((p.test, p.source) in measured for p in found)
        gated = any(p.gated for p in found)
        for p in found:
            is_measured = (p.test, p.source) in measured
            asked = _asked_by(p, request)
            if gated and not test_measured and not request.shard and p.status not in (*OWN_ITEM, OTHER_DOMAIN):
                asked = asked or "its test's gates"
            pairs.append({**asdict(p), "requested": bool(asked), "requested_by": asked, "measured": is_measured})
            if asked and not is_measured and p.status not in (CASES, EXTRACTION, NO_CASES, CROSS_DOMAIN):  # (NO_CASES: its gate fails)
                if asked == "its test's gates":
                    gate_problems.append(f"{_short(p.test)} on {p.source}: {_first_line(p.reason)}")
                else:
                    unmeasured_requests.setdefault(p.source, (asked, p.reason))
    measured_sources = {source for _, source in measured}
    by_asker: dict[str, list[tuple[str, str]]] = {}
    for source, (asked, reason) in sorted(unmeasured_requests.items()):
        if source not in measured_sources:  # else another test measured it
            by_asker.setdefault(asked, []).append((source, reason))
    for asked, not_measured in by_asker.items():
        names = ", ".join(source for source, _ in not_measured)
        problems.append(f"{len(not_measured)} requested source(s) not measured (asked for by {asked}): {names}; "
                        f"{_first_line(not_measured[0][1])}")
    if gate_problems:
        problems.append(_joined("gated test/source pair(s) not measured, and their tests measured nothing else "
                                "(the gates would pass on nothing)", gate_problems))
    for suite in refused:
        problems.append(f"suite file {suite['path']} was refused: {_first_line(suite['why'])}")
    not_run = ""
    if not measured and not problems and not request.shard:
        if collection.selected:
            problems.append(_nothing_measured(collection))
        elif collection.deselected:
            not_run = (f"all {collection.deselected} suite items were deselected (-k / -m), so nothing was measured; "
                       "select some to run absa-checks")
        elif collection.suites:
            problems.append(f"nothing was measured: the suite file(s) {', '.join(collection.suites[:3])} gave no "
                            "case to run (every unit was filtered out, not applicable or without a variant)")
    skipped_sources = sorted({p["source"] for p in pairs if p["status"] == NO_DATA and not p["requested"]
                              and p["source"] not in measured_sources})
    skipped = [f"{len(skipped_sources)} data sources not measured, their data is absent (not asked for: "
               f"optional here): {', '.join(skipped_sources)}; --absa-data DIR runs them"] if skipped_sources else []
    decided = domain_decisions(collection, request)
    line = domains_module.left_out_line(
        {model: (found["domains"], found["left_out"] or found["report_only"])
         for model, found in decided.items() if found["left_out"] or found["report_only"]},
        any(found["report_only"] for found in decided.values()))
    return Manifest(sorted(collection.suites), refused, pairs, models_requested, models_measured,
                    collection.selected, collection.deselected, baseline, problems=problems,
                    skipped=skipped + ([line] if line else []), not_run=not_run, domains=decided)


def domain_decisions(collection: Collection, request: Request) -> dict[str, Any]:
    """Per checkpoint that declares domains: its domains, the sources left out for domain, and those run
    report-only (--absa-cross-domain); decided per checkpoint at collection."""
    found: dict[str, Any] = {model: {"domains": list(domains), "left_out": [], "report_only": []}
                             for model, domains in request.domains}
    for p in collection.planned:
        if p.status in (OTHER_DOMAIN, CROSS_DOMAIN):  # (a merge of shards knows the checkpoints from these)
            found.setdefault(p.model, {"domains": [], "left_out": [], "report_only": []})
            mine = found[p.model]["left_out" if p.status == OTHER_DOMAIN else "report_only"]
            if p.source not in mine:
                mine.append(p.source)
    for mine in found.values():
        mine["left_out"].sort()
        mine["report_only"].sort()
    return found


def report_only_pairs(collection: Collection) -> set[tuple[str, str]]:
    """(checkpoint, source) pairs run report-only for domain (--absa-cross-domain): never gated."""
    return {(p.model, p.source) for p in collection.planned if p.status == CROSS_DOMAIN}


def _asked_by(planned: Planned, request: Request) -> str:
    if request.sources is not None and planned.source in request.sources:
        return "--absa-sources"
    if request.data_dir and planned.status == NO_DATA:
        return request.data_dir
    return ""


def _nothing_measured(collection: Collection) -> str:
    reasons = sorted({f"{p.source}: {_first_line(p.reason)}" for p in collection.planned
                      if p.status not in (CASES, EXTRACTION) and p.reason})
    why = f" ({reasons[0]}{f'; and {len(reasons) - 1} more' if len(reasons) > 1 else ''})" if reasons else ""
    return f"nothing was measured: none of the {collection.selected} selected suite items gave a result{why}"


def _joined(what: str, found: list[str]) -> str:
    more = f"; and {len(found) - 3} more" if len(found) > 3 else ""
    return f"{len(found)} {what}: " + "; ".join(found[:3]) + more


def _short(test: str) -> str:
    return test.split("::")[-1]


def _first_line(text: str) -> str:
    return text.splitlines()[0] if text else "no reason given"


def baseline_coverage(per_model_cases: dict[str, list[dict]], baseline_cases: list[dict]) -> dict[str, Any]:
    """How many of the run's units (source, unit id) the baseline has too."""
    now = {(c["source"], c["unit"]) for cases in per_model_cases.values() for c in cases}
    before = {(c["source"], c["unit"]) for c in baseline_cases}
    return {"run_units": len(now), "baseline_units": len(before), "shared": len(now & before)}
