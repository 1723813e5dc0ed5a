"""What a run concludes, as one pure function: outcomes in, a RunResult out (metrics, gates, the paired
comparison with a baseline, the verdict, the run's facts and timing). Reporters (absa_checks.run.reporters)
each take the RunResult; none of them decides anything.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from absa_checks.common import inputs
from absa_checks.common.examples import DataIssue
from absa_checks.judge import audit as audit_module
from absa_checks.judge import checkpoints, comparison, scoring, simpler
from absa_checks.judge import claims as claims_module
from absa_checks.judge import coverage as coverage_module
from absa_checks.judge import gates as gates_module
from absa_checks.judge import manifest as manifest_module
from absa_checks.judge import matrix as matrix_module
from absa_checks.judge import metrics as metrics_module
from absa_checks.judge import readiness as readiness_module
from absa_checks.judge import splits as splits_module
from absa_checks.judge import verdict as verdict_module
from absa_checks.judge.gates import GateResult
from absa_checks.judge.metrics import RunMetrics
from absa_checks.judge.outcomes import CaseOutcome
from absa_checks.reports import report_json, summary_table
from absa_checks.run.run_state import RunOptions
from absa_checks.suites import slices as slices_module


@dataclass(frozen=True)
class Baseline:
    """The released model's report for --absa-baseline: its cases, or why it could not be read."""

    path: str
    cases: list[dict] | None = None
    error: str = ""


@dataclass(frozen=True)
class RunContext:
    """What the run knows besides the outcomes (all plain data, gathered by the plugin)."""

    models: dict[str, dict[str, Any]]  # checkpoint -> its describe() and fingerprint, in --absa-model order
    issues: list[DataIssue] = field(default_factory=list)
    quarantined: list[dict] = field(default_factory=list)
    other_failures: int = 0             # failed tests that are not absa cases
    stopped: str = ""                   # why the run stopped early (-x, --maxfail), if it did
    timing: dict[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()         # lines for the reader ("--model belongs to another plugin ...")
    no_cases: list[dict] = field(default_factory=list)  # gated tests with no case on a source
    extraction: list[dict] = field(default_factory=list)  # extraction tests' per-sentence counts, per source
    shard: dict | None = None           # --absa-shard: what `absa-checks merge` needs (absa_checks.run.shards)
    group: str = ""                     # --model named one group: its name (its claims are the mean's)
    splits: tuple[tuple[str, tuple[str, ...]], ...] = ()  # a splits x seeds group: (split, checkpoints)
    claims: dict[str, tuple] = field(default_factory=dict)  # subject -> its claims (absa_checks.judge.claims)
    simple: simpler.SimpleRun | None = None  # --absa-simple-baseline: its answers to the run's cases
    fingerprint: dict | None = None     # every input that decides a case, by part (absa_checks.common.fingerprint)
    collection: manifest_module.Collection = field(default_factory=manifest_module.Collection)  # what was collected
    refused: list[dict] = field(default_factory=list)  # suite files refused at collection: {path, why}
    request: manifest_module.Request = field(default_factory=manifest_module.Request)  # who asked for which sources
    coverage: list[dict] = field(default_factory=list)  # per test and source: units, reasons (judge.coverage)


@dataclass
class RunResult:
    outcomes: list[CaseOutcome]
    metrics: RunMetrics                          # the mean across checkpoints when there are several
    per_model: dict[str, RunMetrics] | None      # several checkpoints: each one's metrics
    gates: list[GateResult]                      # threshold gates, then the no-regression gates
    regression_gates: list[GateResult]
    compared: dict[str, dict[str, comparison.SourceComparison]]  # checkpoint -> source -> paired comparison
    verdict: verdict_module.Verdict
    run: dict[str, Any]                          # who was tested, with which seed and options
    context: RunContext
    baseline_path: str = ""
    extraction: list[scoring.ExtractionResult] = field(default_factory=list)
    claims: list[claims_module.ClaimResult] = field(default_factory=list)
    splits: dict[tuple[str, str], splits_module.Decomposition] | None = None
    simple: dict[str, dict[str, simpler.SimpleComparison]] = field(default_factory=dict)
    simple_report: dict[str, Any] | None = None  # the JSON report's `simple_baseline`
    readiness: list[readiness_module.Trait] = field(default_factory=list)
    manifest: manifest_module.Manifest | None = None  # requested vs measured (absa_checks.judge.manifest)
    summary: list[str] = field(default_factory=list)  # the terminal's absa-checks lines, the verdict last
    unwritten: list[str] = field(default_factory=list)  # requested outputs that could not be written (why)
    matrices: dict[str, matrix_module.Matrix] = field(default_factory=dict)  # checkpoint -> capability x type

    @property
    def matrix(self) -> matrix_module.Matrix:
        """The run's capability x type matrix (judge.matrix): the checkpoint's, or the mean of several."""
        if len(self.matrices) > 1:
            return matrix_module.mean(self.matrices)
        return next(iter(self.matrices.values()), {})

    @cached_property
    def coverage(self) -> dict[str, dict[str, dict[str, coverage_module.Coverage]]]:
        """checkpoint -> source -> strategy -> coverage (judge.coverage): units with a case, why not, and the
        originals' accuracy with a case vs without."""
        models = list(self.per_model) if self.per_model else \
            [self.outcomes[0].model] if self.outcomes and self.outcomes[0].model else list(self.context.models)[:1]
        several = len(models) > 1
        return {model: coverage_module.coverage(self.context.coverage,
                                                [o for o in self.outcomes if not several or o.model == model], model)
                for model in models}

    @cached_property
    def validity(self) -> dict[str, dict[str, audit_module.Tally]]:
        """source -> strategy -> the audited validity of its variants (judge.audit): a frozen test's from its
        candidates' audits, "not audited" (an empty Tally) for every other source and strategy of the run."""
        return audit_module.validity(self.context.coverage, run_pairs(self.metrics, self.coverage))

    @cached_property
    def tables(self) -> list[summary_table.Table]:
        tables = summary_table.all_tables(self.metrics, self.gates, self.per_model, self.extraction, self.coverage,
                                          self.validity)
        extra = [summary_table.Table("production readiness", ("trait", "verdict", "evidence"),
                                     tuple(readiness_module.rows(self.readiness)))] if self.readiness else []
        if self.splits:
            names = [name for name, _ in self.context.splits]
            extra.append(summary_table.Table(
                "splits x seeds (%): mean±std per split, overall, and the std between and within splits",
                ("source", "metric", *names, "overall", "between", "within"),
                tuple(splits_module.rows(self.splits, names))))
        if self.simple and self.context.simple is not None:  # compared only when a simple baseline ran
            extra.append(summary_table.Table(
                f"candidate vs simple baseline {self.context.simple.name} (%): +only the candidate right, "
                "-only the simple model; one-sided p", ("source", "ARS units", "original accuracy", "gate"),
                tuple(simpler.rows(self.simple, self.gates))))
        cells = summary_table.matrix_tables(self.matrix, self.matrices, self.gates)
        return tables[:1] + cells + extra + tables[1:]

    @property
    def complete(self) -> bool:
        """False when the run stopped early (-x, --maxfail, Ctrl-C, SIGTERM): a partial result."""
        return not self.context.stopped

    @cached_property
    def report(self) -> dict[str, Any]:
        """The JSON report's content (report_json.SCHEMA)."""
        found = report_json.build(self.metrics, self.gates, self.verdict, self.outcomes, self.context.issues, self.run,
                                  self.context.timing, self.context.quarantined, self.per_model)
        if self.extraction:  # extraction.<source>.<level>.strict|flexible (source@checkpoint with several)
            several = len({r.model for r in self.extraction}) > 1
            found["extraction"] = {(f"{r.source}@{r.model}" if several else r.source): r.to_dict()
                                   for r in self.extraction}
        if self.context.shard is not None:
            found["shard"] = self.context.shard
        found["coverage"] = coverage_module.run_report(self.coverage)
        found["capabilities"] = matrix_module.to_report(self.matrix)
        found["validity"] = audit_module.to_report(self.validity)
        if self.per_model:
            for model, mine in self.coverage.items():
                found["checkpoints"][model]["coverage"] = coverage_module.to_report(mine)
            for model, cells in self.matrices.items():
                found["checkpoints"].setdefault(model, {})["capabilities"] = matrix_module.to_report(cells)
        found["complete"] = self.complete
        if not self.complete:
            found["stopped"] = self.context.stopped
        if self.compared:
            found["comparison"] = comparison.to_report(self.baseline_path, self.compared)
        if self.readiness:
            found["readiness"] = {trait.name: trait.to_dict() for trait in self.readiness}
        if self.claims:
            found["claims"] = [r.to_dict() for r in self.claims]
        if self.splits:
            found["splits"] = splits_module.to_report(self.splits, {k: list(v) for k, v in self.context.splits})
        if self.simple_report is not None:
            found["simple_baseline"] = self.simple_report
        if self.manifest is not None:
            found["manifest"] = self.manifest.to_dict()
        return found

    @cached_property
    def pictures(self) -> dict[str, bytes]:
        try:
            from absa_checks.reports import pictures
        except ImportError:  # matplotlib is optional: pictures are skipped, everything else is written
            return {}
        return pictures.all_pictures(self.report["sources"])


def run_pairs(metrics: RunMetrics, coverage: dict) -> list[tuple[str, str]]:
    """Every (source, strategy) of a run: those with outcomes, and those planned (coverage)."""
    found = {(name, strategy) for name, source in metrics.sources.items() for strategy in source.strategies}
    found |= {(name, strategy) for mine in coverage.values() for name, strategies in mine.items()
              for strategy in strategies}
    return sorted(found)


def read_baseline(path: Path) -> Baseline:
    """The released model's cases (its --absa-report JSON), or why they cannot be read."""
    try:
        data = json.loads(inputs.read_text(path))
        version = (data.get("schema"), data.get("schema_version"))
        if version != (report_json.SCHEMA, report_json.SCHEMA_VERSION):
            return Baseline(str(path), None, f"baseline report {path} is {version[0]} version {version[1]}; this "
                                             f"absa-checks compares with {report_json.SCHEMA} version "
                                             f"{report_json.SCHEMA_VERSION}: rerun the released model with it")
        if isinstance(data.get("shard"), dict):  # one shard's cases only: the merged report is the run's
            return Baseline(str(path), None, f"baseline report {path} is the report of shard "
                                             f"{data['shard'].get('k')}/{data['shard'].get('n')}, a part of a run; "
                                             "merge the shards (absa-checks merge) and pass the merged report")
        if data.get("complete") is False:  # a run stopped early (Ctrl-C, -x, a crash): not a release
            return Baseline(str(path), None, f"baseline report {path} is partial (complete: false, stopped: "
                                             f"{data.get('stopped', 'not said')}): a run that stopped early is not a "
                                             "release; pass the report of the released model's complete run")
        return Baseline(str(path), data["cases"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as err:
        return Baseline(str(path), None, f"baseline report {path} cannot be read ({err}); pass the JSON "
                                         "written by --absa-report of the released model")


def conclude(outcomes: list[CaseOutcome], options: RunOptions, baseline: Baseline | None,
             context: RunContext) -> RunResult:
    """Metrics, gates, comparison and verdict for the outcomes of one run (pure: no I/O, no pytest)."""
    by_model = {model: found for model, found in checkpoints.by_model(outcomes, list(context.models)).items() if found}
    per_model = {model: metrics_module.aggregate(found) for model, found in by_model.items()}
    several = len(per_model) > 1
    metrics = checkpoints.mean_metrics(per_model) if several else next(iter(per_model.values()),
                                                                       metrics_module.aggregate([]))
    extraction = scoring.results(context.extraction, options.seed)
    cross = frozenset(manifest_module.report_only_pairs(context.collection))
    if several:
        gate_results = _checkpoint_gates(by_model, per_model, metrics, options, cross)
    else:
        gate_results = _report_only(gates_module.evaluate(metrics, options.gate_basis), cross, list(context.models))
    gate_results = gates_module.mark_duplicates(gate_results, slice_contents(outcomes))
    validity_gates = audit_module.gates(metrics.tests, audit_module.validity(context.coverage),
                                        audit_module.frozen_files(context.coverage),  # min_validity: once, any model
                                        audit_module.live_pairs(context.coverage),
                                        audit_module.ignored_pairs(context.coverage))
    gate_results += _report_only(validity_gates, cross, list(context.models))
    matrices = {model: matrix_module.build(found) for model, found in by_model.items()}
    cell_gates = matrix_module.declared(outcomes)  # a suite's gates on capability x type cells
    if cell_gates:  # decided without the cases of sources a checkpoint runs report-only (--absa-cross-domain)
        gating = {model: matrix_module.build([o for o in found if (model, o.source) not in cross])
                  for model, found in by_model.items()} if cross else matrices
        gate_results += matrix_module.evaluate_checkpoints(gating, cell_gates, options.gate_basis, options.gate_on) \
            if several else matrix_module.evaluate(next(iter(gating.values()), {}), cell_gates, options.gate_basis)
    # the cases as plain data, once, for the paired comparisons (with the released model, with a simple one)
    cases = {model: [o.to_dict() for o in found] for model, found in by_model.items()} \
        if baseline is not None or context.simple is not None else {}
    compared, regression_gates = _compare(cases, baseline, options)
    manifest = manifest_module.build(
        context.collection, context.refused,
        {(o.test, o.source) for o in outcomes} | {(r["test"], r["source"]) for r in context.extraction},
        list(context.models), list(per_model), context.request,
        manifest_module.baseline_coverage(cases, baseline.cases) if baseline is not None and baseline.cases is not None
        else None)
    empty = [GateResult(found.get("gate", "has_cases"), found["test"], found["source"], 0.0, None, options.gate_basis, "fail",
                        found["reason"]) for found in context.no_cases]
    claim_results = claims_module.check_all(context.claims, metrics, per_model if several else None, context.group)
    claim_gates = claims_module.gates(claim_results) if options.require_claims else []
    if options.require_claims and not claim_results:  # asked for, decided on nothing: never a pass
        claim_gates = [GateResult("claim_reproduced", "--absa-require-claims", "all", 0.0, None, "interval", "fail",
                                  _no_claims(list(per_model) or list(context.models), bool(context.claims)))]
    simple_compared, simple_gates = ({}, []) if context.simple is None else simpler.against(
        cases, context.simple, options.simple_alpha)
    layout = {name: list(members) for name, members in context.splits}
    decomposed = splits_module.by_metric(per_model, metrics, layout, splits_module.unmeasured(by_model, layout)) \
        if several and context.splits else None
    gate_results = gate_results + _report_only(gates_module.evaluate_extraction(extraction, options.gate_basis) + empty
                                               + claim_gates + simple_gates + regression_gates, cross,
                                               list(context.models))
    verdict = verdict_module.decide(metrics, gate_results, options.strict, context.other_failures, options.inconclusive,
                                    sum(o.status == "failed" and (o.model, o.source) in cross for o in outcomes))
    if options.shard is not None:
        verdict = verdict_module.for_shard(options.shard, metrics, context.other_failures)
    if manifest.problems:  # something requested was not measured: never PASSED
        verdict = _not_measured(verdict, manifest.problems, context.request)
    elif manifest.not_run:  # -k / -m left no suite item: say so, and leave the exit status to pytest
        verdict = verdict_module.Verdict(context.request.pytest_exit, False, manifest.not_run, "NOT RUN")
    unsplit = splits_module.not_decided(decomposed)
    if unsplit and verdict.passed:  # a splits x seeds group with a checkpoint that measured nothing: never PASSED
        verdict = verdict_module.Verdict(1, False, unsplit)
    if context.stopped:  # -x / --maxfail: gates on part of the cases mean nothing
        verdict = verdict_module.Verdict(1, False, f"the run stopped early ({context.stopped}); "
                                                   "gates are not decided on a partial run")
    simple_report = None if context.simple is None else \
        {**simpler.to_report(context.simple.name, options.simple_alpha, simple_compared),
         **({"error": context.simple.error} if context.simple.error else {})}
    traits = readiness_module.assess(metrics, gate_results, claim_results, options.require_claims, simple_report,
                                     decomposed) if outcomes else []
    return RunResult(outcomes, metrics, per_model if several else None, gate_results, regression_gates, compared,
                     verdict, _facts(list(per_model) or list(context.models), options, context), context,
                     baseline.path if baseline else "", extraction, claim_results, decomposed, simple_compared,
                     simple_report, traits, manifest, matrices=matrices)


def slice_contents(outcomes: list[CaseOutcome]) -> dict[tuple[str, str, str], frozenset]:
    """(source, slice selector a gate names, test) -> the normalised sentence and target of the units the
    gate is decided on: every case of the source in the slice (test "": min_accuracy, min_ars), or the
    test's cases (max_fail_rate, min_variant_accuracy). Sources built from the same sentences (ARTS,
    SemEval and GCAE's hard laptop sentences) hold the same set."""
    selectors = {selector for o in outcomes for selector in (o.gates.get("slices") or {})}
    found: dict[tuple[str, str, str], set] = {}
    for o in outcomes:
        key = (_normalised(o.original["sentence"]), _normalised(o.original["term"]))
        for selector in selectors:
            if slices_module.matches(selector, o.slices):
                found.setdefault((o.source, selector, ""), set()).add(key)
                found.setdefault((o.source, selector, o.test), set()).add(key)
    return {key: frozenset(value) for key, value in found.items()}


def _normalised(text: str) -> str:
    """Letters and digits only, lower case: "it 's" (tokenised) and "it's" are one sentence."""
    return re.sub(r"[\W_]+", "", text.lower())


def _checkpoint_gates(by_model: dict[str, list[CaseOutcome]], per_model: dict[str, RunMetrics], mean: RunMetrics,
                      options: RunOptions, cross: frozenset) -> list[GateResult]:
    """Gates over several checkpoints. With sources run report-only for some of them (--absa-cross-domain),
    a gate on the mean is decided on the mean of the checkpoints of the source's domain alone; a source no
    checkpoint is for is reported, its gates report-only. (`worst` marks each checkpoint's own.)"""
    basis, models = options.gate_basis, list(per_model)
    if options.gate_on != "mean" or not cross:
        return gates_module.evaluate_checkpoints(per_model, mean, basis, options.gate_on, cross)
    gating = {model: metrics_module.aggregate([o for o in found if (model, o.source) not in cross])
              for model, found in by_model.items()}
    in_domain = checkpoints.mean_metrics(gating)
    decided = gates_module.evaluate_checkpoints(gating, in_domain, basis, "mean")
    reported = [g for g in gates_module.evaluate_checkpoints(per_model, mean, basis, "mean")
                if g.source not in in_domain.sources]
    return decided + _report_only(reported, cross, models)


def _report_only(results: list[GateResult], pairs: frozenset, models: list[str]) -> list[GateResult]:
    """Gates on a source a checkpoint ran report-only (--absa-cross-domain): reported, never counted. A gate
    on several checkpoints (not one of them by name) is report-only when any of them ran it report-only."""
    if not pairs:
        return results
    found = []
    for gate in results:
        concerned = [gate.checkpoint] if gate.checkpoint in models else models
        outside = [m for m in concerned if (m, gate.source) in pairs]
        found.append(gates_module.report_only(gate, f"{gate.source} is of another domain than {', '.join(outside)}")
                     if outside else gate)
    return found


def _no_claims(models: list[str], some: bool) -> str:
    """Why --absa-require-claims has nothing to check, and the fix."""
    if some:
        return ("none of the claims in models.yaml is about a checkpoint with results here "
                "(deselected?), so no claim was checked; run the checkpoints the claims name")
    return (f"no claim to check: the models.yaml entry of {', '.join(models) or 'the model'} "
            "has no `claims:`; add the published numbers, e.g. `claims: {source: arts-restaurant, accuracy: 0.867}` "
            "(docs/readiness.md), or leave the option out")


def _not_measured(verdict: verdict_module.Verdict, problems: list[str],
                  request: manifest_module.Request) -> verdict_module.Verdict:
    """FAILED, naming what was not measured first (and what else failed, if anything did)."""
    also = "" if verdict.passed or verdict.label else f"; also {verdict.reason.split(':')[0]}"
    more = f"; and {len(problems) - 1} more problem(s), listed above" \
        if len(problems) > 1 else ""
    status = 5 if request.pytest_exit == 5 else 1  # pytest's own "no tests ran" status is kept
    return verdict_module.Verdict(status, False, problems[0] + more + also)


def _compare(cases: dict[str, list[dict]], baseline: Baseline | None, options: RunOptions):
    if baseline is None:
        return {}, []
    if baseline.cases is None:  # the run's own results are still reported; the gate says why it has no comparison
        return {}, [GateResult("no_regression", "--absa-baseline", "all", 0.0, None, "paired", "fail", baseline.error)]
    return comparison.against_baseline(cases, baseline.cases, options.regression_alpha, options.regression_min_effect)


def _facts(names: list[str], options: RunOptions, context: RunContext) -> dict[str, Any]:
    """Who was tested: the checkpoints with results (one deselected entirely by -k is not one of them)."""
    models = [{"name": name, **context.models[name]} for name in names]
    if len(models) == 1:
        model = models[0]
    else:  # several checkpoints: one name and one fingerprint for the set, each one in "models"
        joined = hashlib.sha256("\n".join(m["fingerprint"] for m in models).encode()).hexdigest()[:16]
        model = {"name": ",".join(m["name"] for m in models), "kind": "checkpoints", "fingerprint": joined,
                 "gate_on": options.gate_on}
    return {"model": model, "models": models, "seed": options.seed, "sample": options.sample,
            "sources": list(options.sources) if options.sources else None,
            "gate_basis": options.gate_basis, "strict": options.strict,
            "inconclusive_counts_as": options.inconclusive,  # what an inconclusive gate counted as
            **({"fingerprint": context.fingerprint} if context.fingerprint is not None else {})}
