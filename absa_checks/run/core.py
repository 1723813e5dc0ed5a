"""The run core: what one run of suites needs, without pytest.

A `Run` holds the options, the checkpoints and their predictors, the source and variant caches, the plans
of the suites read, the outcomes collected, and concludes once (absa_checks.run.conclusion) and writes the
reports (absa_checks.run.reporters). The three front doors drive it with small calls: the pytest plugin (hooks
translate to these calls), `absa_checks.evaluate` (absa_checks.api) and the CLI.
"""

from __future__ import annotations

import difflib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from absa_checks.common.errors import AbsaChecksError
from absa_checks.common.fingerprint import fingerprint, model_sha256, sha256_of
from absa_checks.common.outputs import Named
from absa_checks.judge import coverage, manifest, simpler
from absa_checks.judge import outcomes as outcome_records
from absa_checks.judge.simpler import SimpleRun
from absa_checks.models import adapters as registry
from absa_checks.models import cache
from absa_checks.models.cache import PredictionCache
from absa_checks.models.progress import ProgressSink
from absa_checks.reports import terminal
from absa_checks.run import plans as plans_module
from absa_checks.run import reporters
from absa_checks.run.conclusion import RunContext, RunResult, conclude, read_baseline
from absa_checks.run.plans import CasePlan, Extraction, Plan, suite_inputs
from absa_checks.run.run_state import (
    SUITE_VARIANTS,
    OutcomeCollector,
    Predictor,
    RunOptions,
    SourceCache,
    StoredOutcomes,
    VariantCache,
)
from absa_checks.run.shards import shard_identity
from absa_checks.sources import DATA_ENV
from absa_checks.sources.catalog import known_source_names
from absa_checks.suites.spec import SuiteSpec, parse_suite

NO_CASE_EXIT, OK_EXIT, FAILED_EXIT = 5, 0, 1  # pytest's exit statuses the report's manifest knows


@dataclass
class RunState:
    """What a run with absa suites needs; built on first use, so other projects' pytest runs never build it."""

    options: RunOptions
    sources: SourceCache
    variants: VariantCache
    predictors: dict[str, Predictor]  # one per checkpoint, in the order --absa-model names them
    run_cache: Path | None = None  # a temporary cache for this run only (--absa-no-cache)
    suite_sources: set[str] = field(default_factory=set)  # every source the planned suites name
    tests_by_strategy: dict[tuple[str, str], str] = field(default_factory=dict)  # (source, strategy) -> test key
    layout: registry.Resolved | None = None  # the group --model named (splits, claims), if one
    simple: Predictor | None = None          # --absa-simple-baseline, asked at the end of the run
    suite_files: list[str] = field(default_factory=list)  # every suite file planned (for the run manifest)
    domain_planned: list[manifest.Planned] = field(default_factory=list)  # pairs left out / report-only for domain
    coverage: dict[tuple[str, str], plans_module.CoveragePlan] = field(default_factory=dict)  # (test, source)
    # frozen and audited files read so far: (path, its sha256, source) -> candidates (each file read once a run)
    frozen_files: dict[tuple[str, str, str], tuple] = field(default_factory=dict)


def refuse_one_checkpoint_twice(options: RunOptions, specs: list, adapters: list) -> None:
    """Two names for one checkpoint (the same kind and adapter fingerprint, which changes whenever its answers
    could) would make a 2-checkpoint mean with a std of 0, or a simple baseline that is the model under test."""
    if len(specs) < 2:
        return
    seen: dict[str, str] = {}
    for index, (spec, adapter) in enumerate(zip(specs, adapters)):
        sha = sha256_of({"kind": spec.kind, "fingerprint": adapter.fingerprint()})  # changes when answers could
        if sha not in seen:
            seen[sha] = spec.name
            continue
        other = seen[sha]
        if options.simple_baseline is not None and index == len(specs) - 1:  # the simple baseline comes last
            raise AbsaChecksError(f"--absa-simple-baseline {options.simple_baseline}: is the model under test "
                                  f"({other}: the same kind and fingerprint, so the same answers); name a simpler "
                                  "model, e.g. lexicon-sentence")
        raise AbsaChecksError(f"--model {options.model}: {other} and {spec.name} are one checkpoint (the same kind "
                              "and fingerprint, so the same answers), so their mean and std would be of copies; "
                              "name each checkpoint once (a seed study needs checkpoints of different seeds)")


def sum_worker_stats(workers: list[dict]) -> dict:
    """One checkpoint's prediction counts over the xdist workers (each plans every query)."""
    total = {key: sum(w[key] for w in workers) for key in workers[0]}
    total["model_loaded"] = any(w["model_loaded"] for w in workers)
    total["unique_queries"] = max(w["unique_queries"] for w in workers)
    total["processes"] = len(workers)
    return total


class Run:
    """One run: plan the suites, predict, collect the outcomes, conclude once, write the reports.

    `worker_input`: a pytest-xdist worker's input (its controller's run-only cache); `progress`: makes the
    sink that shows predicting (None: not shown); `data_given`: how a data folder was given, as messages
    show it; `on_build`: called once before the models are resolved (the pytest glue's SIGTERM handler).
    """

    def __init__(self, options: RunOptions, *, worker_input: dict | None = None,
                 progress: Callable[[], ProgressSink | None] | None = None, data_given: str | None = None,
                 on_build: Callable[[], None] | None = None):
        self.options = options
        self.worker_input = worker_input
        self.collector = OutcomeCollector()
        self.started = time.time()
        self.worker_stats: list[dict] = []  # per xdist worker: checkpoint -> prediction counts
        self.worker_inputs: list[dict] = []  # per xdist worker: the files it read (absa_checks.common.fingerprint)
        self.worker_collections: list[manifest.Collection] = []  # xdist controller: the workers' collections
        self.coverage_plans: list[plans_module.CoveragePlan] = []  # the selected tests' coverage (planned)
        self.worker_coverage: list[dict] = []  # xdist controller: the workers' coverage records
        self.collection: manifest.Collection | None = None  # what this process planned (the run manifest)
        self.refused: list[dict[str, str]] = []  # suite files that could not be read as suites, with why
        self._progress = progress
        self._data_given = data_given
        self._on_build = on_build
        self._state: RunState | None = None

    # -- the checkpoints and caches, built on first use --------------------------------------------------

    @property
    def built(self) -> bool:
        return self._state is not None

    @property
    def state(self) -> RunState:
        """Models resolved, caches opened: on first use, i.e. when a suite is planned (or asked for)."""
        if self._state is None:
            if self._on_build is not None:
                self._on_build()
            o = self.options
            layout = registry.resolve_run(o.model, o.models_file)
            specs = layout.specs
            if o.simple_baseline is not None:
                specs = [*specs, registry.resolve(o.simple_baseline, o.models_file, "--absa-simple-baseline")]
            if o.device:
                specs = [replace(spec, settings={**spec.settings, "device": o.device}) for spec in specs]
            adapters = [registry.build(spec) for spec in specs]
            refuse_one_checkpoint_twice(o, specs, adapters)
            cache_dir, run_cache = self._cache_folder()
            progress = self._progress() if self._progress is not None else None
            cache_db = PredictionCache(cache_dir)  # one SQLite file: every checkpoint's answers and the variants
            predictors = [Predictor(spec, adapter, o.batch_size, cache_db, progress)
                          for spec, adapter in zip(specs, adapters)]
            simple = predictors.pop() if o.simple_baseline is not None else None
            if simple is not None and simple.extracting:
                raise AbsaChecksError(f"--absa-simple-baseline {o.simple_baseline}: an extraction model; the simple "
                                      "baseline answers polarity queries: give a classifier such as lexicon-sentence "
                                      "or a sentence-only checkpoint")
            variants = VariantCache(o.seed, StoredOutcomes(cache_db))
            self._state = RunState(o, SourceCache(o.data_dir), variants, {p.spec.name: p for p in predictors},
                                   run_cache, layout=layout, simple=simple)
        return self._state

    def _cache_folder(self) -> tuple[Path, Path | None]:
        """The cache folder, and a run-only folder to delete afterwards when --absa-no-cache is given."""
        o = self.options
        if o.no_cache:
            if self.worker_input is not None and "absa_run_cache" in self.worker_input:  # the controller's, shared
                return Path(self.worker_input["absa_run_cache"]), None
            run_cache = Path(tempfile.mkdtemp(prefix="absa-run-cache-"))
            return run_cache, run_cache
        assert o.cache_dir is not None  # options.read sets it (default: .absa-cache in the rootdir)
        if o.clear_cache and self.worker_input is None:
            cache.clear(o.cache_dir)
        return o.cache_dir, None

    def specs(self) -> list:
        """Every checkpoint's spec (the simple baseline's last), once built; none before."""
        if self._state is None:
            return []
        found = [p.spec for p in self._state.predictors.values()]
        return found + ([self._state.simple.spec] if self._state.simple is not None else [])

    def close(self) -> None:
        """The run-only cache (--absa-no-cache) is deleted."""
        if self._state is not None and self._state.run_cache is not None:
            shutil.rmtree(self._state.run_cache, ignore_errors=True)

    # -- planning -----------------------------------------------------------------------------------------

    def read_suite(self, path: Path, shown: str) -> tuple[SuiteSpec, tuple[Named, ...]]:
        """A suite file parsed (AbsaChecksError naming file and line) and the files it reads."""
        state = self.state
        suite = parse_suite(path, known_source_names(), display_path=shown)
        state.suite_files.append(shown)
        return suite, suite_inputs(path, suite)

    def plan(self, suite: SuiteSpec, folder: Path) -> Iterator[Plan]:
        """The suite's plans, in order (absa_checks.run.plans)."""
        return plans_module.plan_suite(self.state, suite, folder)

    def check_outputs(self, read: tuple[Named, ...] = ()) -> None:
        """The requested outputs against the run's inputs: OutputRefused (an AbsaChecksError) before the run."""
        reporters.check_run_outputs(self.options, self.specs(), read)

    def check_sources(self, seen: Iterable[str]) -> None:
        """--absa-sources naming a source no planned test uses: an error with the close match."""
        wanted = self.options.sources
        if not wanted:
            return
        seen = set(seen) | {p.source for p in (self._state.domain_planned if self._state is not None else ())}
        unknown = [s for s in wanted if s not in seen]
        named = self._state.suite_sources if self._state is not None else set()
        if unknown:
            hints = [f"{name} (did you mean {close[0]}?)" if (close := difflib.get_close_matches(name, sorted(named), n=1))
                     else name for name in unknown]
            raise AbsaChecksError(f"--absa-sources: no collected test uses {', '.join(hints)}; the collected "
                                  f"suites use {', '.join(sorted(named)) or 'no source'}")

    def planned(self, selected: list[Plan], deselected: int = 0) -> None:
        """The selected plans: the run manifest's collection, and every checkpoint's queries registered (each is
        then answered once, on first use)."""
        state = self.state
        self.collection = manifest.Collection(
            tuple(state.suite_files), tuple(plans_module.planned(selected, state.predictors)) + tuple(state.domain_planned),
            len(selected), deselected)
        cases: dict[str, list] = {model: [] for model in state.predictors}
        sentences: dict[str, list] = {model: [] for model in state.predictors}
        for plan in selected:  # one pass, whatever the number of checkpoints
            if isinstance(plan, CasePlan):
                cases[plan.model].append(plan.case)
            elif isinstance(plan, Extraction) and plan.model:
                sentences[plan.model].extend(s.sentence for s in plan.sentences)
        pairs = {(plan.test.key, plan.source) for plan in selected if not isinstance(plan, Extraction)}
        self.coverage_plans = [found for key, found in sorted(state.coverage.items()) if key in pairs or found.unseen]
        originals: dict[str, list] = {model: [] for model in state.predictors}
        for found in self.coverage_plans:  # the originals of units without a case: coverage compares accuracies
            for model in found.models:
                originals[model].extend(found.originals.values())
        for model, predictor in state.predictors.items():
            predictor.register(cases[model], sentences[model] if predictor.extracting else (), originals[model])

    # -- outcomes -----------------------------------------------------------------------------------------

    def take(self, nodeid: str, properties: Sequence[tuple[str, object]], failed: bool, crashed: bool = False) -> bool:
        """One result of an item (its records as (key, JSON text) pairs, among any other plugin's); whether it
        carried a case's outcome."""

        def found(wanted: str) -> list[dict]:  # our records travel as JSON text (readable in JUnit XML too)
            return [json.loads(str(value)) for key, value in properties if key == wanted]

        collector = self.collector
        records = found(outcome_records.PROPERTY_KEY)
        quarantined, empty = found(outcome_records.QUARANTINE_KEY), found(outcome_records.NO_CASES_KEY)
        for record in found(outcome_records.NO_VARIANT_KEY)[-1:]:
            collector.without_variant[nodeid] = record
        for record in found(outcome_records.EXTRACTION_KEY)[-1:]:
            collector.extraction[nodeid] = record
        if failed and crashed:  # pytest-xdist lost a worker
            collector.crashed.append(nodeid)
        elif empty:
            collector.no_cases[nodeid] = empty[-1]  # call and teardown reports both carry it
        elif records:
            collector.add(outcome_records.CaseOutcome.from_dict(records[-1]))
            return True
        elif quarantined:
            collector.quarantine(nodeid, quarantined[-1])
        elif failed:
            collector.other_failures += 1
        return False

    def worker_output(self, collection: manifest.Collection | None) -> dict:
        """What a pytest-xdist worker sends its controller: prediction counts, inputs read, its collection."""
        state = self.state
        found: dict = {"absa_prediction_stats": {model: p.stats.to_dict() for model, p in state.predictors.items()},
                 "absa_inputs": state.sources.inputs.to_dict()}
        if collection is not None:
            found["absa_collection"] = collection.to_dict()
        found["absa_coverage"] = self.coverage_records(predict=False)  # answers only if this worker predicted
        return found

    def add_worker(self, output: dict) -> None:
        """A pytest-xdist worker's output (worker_output), on the controller."""
        if output.get("absa_prediction_stats"):
            self.worker_stats.append(output["absa_prediction_stats"])
        if output.get("absa_inputs"):
            self.worker_inputs.append(output["absa_inputs"])
        if output.get("absa_collection"):
            self.worker_collections.append(manifest.Collection.from_dict(output["absa_collection"]))
        self.worker_coverage.extend(output.get("absa_coverage") or [])

    def coverage_records(self, predict: bool = True) -> list[dict]:
        """The selected tests' coverage records (judge.coverage), with each checkpoint's answers on the originals
        of the units without a case (`predict`: ask the model now if it has not answered yet); an xdist
        controller joins its workers'."""
        state = self._state
        found = []
        for plan in self.coverage_plans:
            answers = {model: state.predictors[model].originals_right(plan.originals, predict)
                       for model in plan.models if state is not None and model in state.predictors}
            found.append(coverage.record(plan.test, plan.source, plan.strategy, plan.units, plan.without_case,
                                         answers, plan.audits, plan.frozen, plan.population, plan.outside,
                                         plan.ignored))
        return coverage.merged([*found, *self.worker_coverage])

    def merged_collection(self) -> manifest.Collection | None:
        """What was planned: here, or (an xdist controller) by the workers."""
        return self.collection or (manifest.merged(self.worker_collections) if self.worker_collections else None)

    # -- concluding ---------------------------------------------------------------------------------------

    def conclude(self, exit_status: int, stopped: str = "", selection: dict | None = None) -> RunResult:
        """Metrics, gates, comparisons and verdict of the outcomes collected (absa_checks.run.conclusion);
        `exit_status`: the front door's status before the verdict (5: nothing ran), `stopped`: why the run
        ended early, `selection`: what chose the items besides the shard (-k, -m ...)."""
        state, outcomes, collection = self.state, self.collector.outcomes(), self.merged_collection()
        notes = () if self.options.model_option_is_ours else (
            "--model belongs to another plugin or conftest here; absa-checks reads --absa-model",)
        adapters = {name: p.adapter.fingerprint() for name, p in state.predictors.items()}  # once: it may hash weights
        covered = self.coverage_records(predict=not stopped)  # a stopped run asks the model nothing more
        context = RunContext(
            models={name: p.spec.redact({**p.adapter.describe(), "fingerprint": adapters[name]})
                    for name, p in state.predictors.items()},
            issues=state.sources.issues(o.source for o in outcomes), quarantined=self.collector.quarantined(),
            other_failures=self.collector.other_failures, stopped=stopped,
            no_cases=[self.collector.no_cases[nodeid] for nodeid in sorted(self.collector.no_cases)],
            timing={"started": round(self.started, 3), "wall_seconds": round(time.time() - self.started, 3),
                    "predictions": self._prediction_stats()},
            extraction=[self.collector.extraction[nodeid] for nodeid in sorted(self.collector.extraction)],
            shard=self._shard_section(collection, selection or {}, covered), fingerprint=self._fingerprint(adapters),
            collection=collection or manifest.Collection(), refused=list(self.refused),
            request=manifest.Request(self.options.sources, self.data_request(), self.options.shard is not None,
                                     int(exit_status), tuple((name, p.spec.domains)
                                                             for name, p in state.predictors.items() if p.spec.domains)),
            notes=notes, coverage=covered, **self._readiness_context(outcomes))
        baseline = read_baseline(self.options.baseline) if self.options.baseline is not None else None
        return conclude(outcomes, self.options, baseline, context)

    def report(self, result: RunResult, read: tuple[Named, ...] = (),
               failed_during: Iterable[str] = ()) -> tuple[list[str], list[str]]:
        """Every wanted report written (absa_checks.run.reporters): the summary's lines (the verdict last) and the
        requested outputs that could not be written."""
        lines, unwritten = reporters.summary_with_failures(result, self.options, read, list(failed_during))
        if self.collector.without_variant:  # before the verdict, which stays the last line
            line = self._without_variant_line()
            lines[-1:-1] = [line if self.options.verbose else terminal.cut(line)]
        return lines, unwritten

    def data_request(self) -> str:
        """How a data folder was given, as the messages show it ("" when none was)."""
        if self._data_given:
            return f"--absa-data {self._data_given}"
        return f"${DATA_ENV}={os.environ[DATA_ENV]}" if os.environ.get(DATA_ENV) else ""

    def _prediction_stats(self) -> dict:
        """What was asked of the models: totals, and per checkpoint when there are several."""
        per_model = {}
        for model, predictor in self.state.predictors.items():
            workers = [w[model] for w in self.worker_stats if model in w]
            per_model[model] = sum_worker_stats(workers) if workers else predictor.stats.to_dict()
        if len(per_model) == 1:
            return next(iter(per_model.values()))
        total = {key: sum(s[key] for s in per_model.values()) for key in ("unique_queries", "predicted",
                                                                             "cache_hits", "model_calls", "truncated",
                                                                             "renormalised")}
        total["seconds"] = round(sum(s["seconds"] for s in per_model.values()), 6)
        total["model_loaded"] = any(s["model_loaded"] for s in per_model.values())
        return {**total, "per_checkpoint": per_model}

    def _readiness_context(self, outcomes: list[outcome_records.CaseOutcome]) -> dict:
        """The group's splits and claims, and the simple baseline's answers to the run's cases."""
        layout = self.state.layout
        found: dict[str, object] = {}  # RunContext's keyword arguments
        if layout is not None:
            found["claims"] = layout.claims
            if layout.group is not None:
                found["group"], found["splits"] = layout.group.name, layout.group.splits
        if self.state.simple is not None:
            found["simple"] = self._simple_run(self.state.simple, outcomes)
        return found

    def _simple_run(self, predictor: Predictor, outcomes: list[outcome_records.CaseOutcome]) -> SimpleRun:
        """The simple model's answers to every original and variant of the run (once each, cached)."""
        cases = list({o.case_id: o.to_dict() for o in outcomes}.values())
        try:
            answers = predictor.answer(simpler.queries(cases))
        except AbsaChecksError as err:
            return SimpleRun(predictor.spec.name, None, predictor.spec.redact(f"simple baseline: {err}"))
        except Exception as err:  # a bug in the simple model or its adapter: the gate fails, results are kept
            return SimpleRun(predictor.spec.name, None, predictor.spec.redact(
                f"simple baseline '{predictor.spec.name}' raised {type(err).__name__}: {err}"))
        return SimpleRun(predictor.spec.name, simpler.answered(cases, answers))

    def _fingerprint(self, adapters: dict[str, str]) -> dict:
        """Every input that decided a case, hashed by part; an xdist controller adds what its workers read."""
        inputs = self.state.sources.inputs
        for found in self.worker_inputs:
            inputs.update(found)
        o = self.options
        models = {name: model_sha256(p.spec.kind, p.spec.settings, adapters[name])
                  for name, p in self.state.predictors.items()}
        domains = {name: list(p.spec.domains) for name, p in self.state.predictors.items() if p.spec.domains}
        chosen = {**({"domains": domains} if domains else {}), **({"cross_domain": True} if o.cross_domain else {}),
                  **({"variants": o.variants} if o.variants != SUITE_VARIANTS else {})}
        return fingerprint(inputs, models, {"seed": o.seed, "sample": o.sample,
                                            "sources": list(o.sources) if o.sources else None, **chosen})

    def _shard_section(self, collection: manifest.Collection | None, selection: dict, covered: list[dict]
                       ) -> dict | None:
        """A shard's report keeps what `absa-checks merge` needs to conclude as one run would have."""
        o = self.options
        if o.shard is None:
            return None
        k, n = o.shard
        return {"k": k, "n": n,
                "options": {"model": o.model, "sources": list(o.sources) if o.sources else None, "sample": o.sample,
                            "seed": o.seed, "strict": o.strict, "gate_basis": o.gate_basis, "gate_on": o.gate_on,
                            "inconclusive": o.inconclusive, "regression_alpha": o.regression_alpha,
                            "regression_min_effect": o.regression_min_effect,
                            "baseline": str(o.baseline) if o.baseline else None,
                            "require_claims": o.require_claims},
                "identity": shard_identity(o.baseline, selection),
                "layout": self._layout_record(),
                "records": self.collector.by_nodeid(), "other_failures": self.collector.other_failures,
                "coverage": covered,
                "manifest": {"collection": (collection or manifest.Collection()).to_dict(), "refused": self.refused,
                             "data": self.data_request()}}

    def _layout_record(self) -> dict:
        """The group's name, splits and claims as plain data, for the merge to conclude with."""
        layout = self.state.layout
        group = layout.group if layout is not None else None
        return {"group": group.name if group else "",
                "splits": [[name, list(members)] for name, members in group.splits] if group else [],
                "claims": {subject: [asdict(c) for c in found] for subject, found in layout.claims.items()}
                if layout is not None else {}}

    def _without_variant_line(self) -> str:
        """The suite's own examples that got no variant for a test, with why (each is a skipped item)."""
        records = [self.collector.without_variant[nodeid] for nodeid in sorted(self.collector.without_variant)]
        shown = "; ".join(f"'{r['example']}' ({r['test'].split('::')[-1]} on {r['source']}: {r['why']})"
                          for r in records[:3])
        more = f"; and {len(records) - 3} more" if len(records) > 3 else ""
        return (f"{len(records)} times an example written in a suite got no variant (skipped; -rs lists them): "
                f"{shown}{more}")

