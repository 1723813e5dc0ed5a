"""What one run knows: its options, loaded sources, predictions and collected outcomes.

Each piece is a small object with one job; the run core (absa_checks.run.core.Run) holds them, never
module globals, so two runs in one process (pytester, evaluate in a loop) cannot see each other.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from absa_checks.common.errors import AbsaChecksError, AdapterError
from absa_checks.common.examples import DataIssue, Example
from absa_checks.common.fingerprint import RunInputs, generator_sha256
from absa_checks.common.labels import POLARITIES
from absa_checks.common.tuples import AnnotatedSentence, AspectTuple
from absa_checks.judge.outcomes import CaseOutcome
from absa_checks.judge.targets import Missing, find_target
from absa_checks.models import adapters as registry
from absa_checks.models.answers import extract_all, from_json, is_extractor, to_json
from absa_checks.models.cache import PredictionCache, query_key, sentence_key
from absa_checks.models.predictions import Prediction, plan, predict_all, query_for, renormalised
from absa_checks.models.progress import Progress, ProgressSink
from absa_checks.models.protocol import Adapter, Extractor, Query, QueryError
from absa_checks.perturb import outcome_json
from absa_checks.perturb.resources import Resources, load_resources
from absa_checks.perturb.variants import Outcome, VariantRequest, VariantSet, variant_set
from absa_checks.sources import DataMissing, LoadedSource
from absa_checks.sources import registry as dataset_sources
from absa_checks.sources.catalog import load_named
from absa_checks.sources.gold_sources import GOLD_SOURCES, load_gold
from absa_checks.suites.cases import Case
from absa_checks.suites.inline import load_inline
from absa_checks.suites.spec import SuiteSpec, TestSpec, source_defined_twice

SUITE_VARIANTS, LIVE_VARIANTS = "suite", "live"  # --absa-variants: the suites' files, or the live generator only


@dataclass(frozen=True)
class RunOptions:
    """The run's options, read once (absa_checks.run.options.read: pytest's or evaluate's); the rest reads these."""

    model: str
    models_file: Path | None
    data_dir: Path | None
    sources: tuple[str, ...] | None
    sample: int | None
    seed: int
    report: Path | None
    markdown: Path | None
    strict: bool
    gate_basis: str
    batch_size: int
    gate_on: str = "mean"                 # several checkpoints: gate the mean, or the worst
    inconclusive: str = "pass"            # what an inconclusive gate counts as
    baseline: Path | None = None          # --absa-baseline
    regression_alpha: float = 0.01
    regression_min_effect: float = 0.02
    device: str | None = None
    allure_dir: Path | None = None        # set only when allure-pytest is active with --alluredir
    verbose: bool = False
    model_option_is_ours: bool = True     # False: another plugin or conftest owns --model here
    cache_dir: Path | None = None         # --absa-cache (default: .absa-cache in the rootdir)
    no_cache: bool = False
    clear_cache: bool = False
    compact_failures: bool = False        # failed cases as one line each in our section (set after collection)
    shard: tuple[int, int] | None = None  # --absa-shard K/N: this run is shard K of N (absa_checks.run.shards)
    simple_baseline: str | None = None    # --absa-simple-baseline MODEL (absa_checks.judge.simpler)
    simple_alpha: float = 0.01            # its one-sided significance level
    require_claims: bool = False          # --absa-require-claims: claims are gates (absa_checks.judge.claims)
    follow_symlinks: bool = False         # --absa-follow-symlinks: outputs write through links (absa_checks.common.outputs)
    cross_domain: bool = False            # --absa-cross-domain: other domains' sources too, report-only
    variants: str = SUITE_VARIANTS        # --absa-variants: the suites' frozen/audited files, or "live" (none)


class SourceCache:
    """Loads each source once per run (three suites over ARTS read its file once)."""

    def __init__(self, data_dir: Path | None):
        self.data_dir = data_dir
        self.inputs = RunInputs()  # what was read, for the run's fingerprint (absa_checks.common.fingerprint)
        self._loaded: dict[tuple[str, str], LoadedSource | DataMissing] = {}  # by (examples file or "", name)
        self._gold: dict[str, list[AnnotatedSentence] | DataMissing] = {}  # extraction sources' gold, by name
        self._defined: dict[str, tuple[str, str]] = {}  # name -> (what it reads, where it was first defined)

    def load(self, name: str, suite: SuiteSpec) -> LoadedSource:
        """The source `name` as seen from `suite`; raises DataMissing when its data is absent."""
        self._one_identity(name, suite)
        if name in suite.inline_sources:
            local = suite.inline_sources[name]
            key = (local.path, name)
            if key not in self._loaded:
                self._loaded[key] = load_inline(local)
                if local.file_sha256:
                    self.inputs.examples[local.file_shown] = local.file_sha256
            found = self._loaded[key]
        else:
            found = self._named(name)
        if isinstance(found, DataMissing):
            raise found
        return found

    def _one_identity(self, name: str, suite: SuiteSpec) -> None:
        """A source name means one set of examples in a run: the report's sources, ARS units, baselines and
        --absa-sources all go by it. Two suite files defining their own source under one name (or one
        shadowing a built-in source another suite runs) would pool two sets of sentences into one source
        and one ARS unit per shared id, so that is an error naming both places. Suites that name the same
        examples file under one name share the source, as intended."""
        local = suite.inline_sources.get(name)
        found = (local.identity, local.defined_at) if local else ("", "")
        first = self._defined.setdefault(name, found)
        if first[0] == found[0]:
            return
        if local is not None and first[1]:
            raise AbsaChecksError(source_defined_twice(name, local.defined_at, first[1]))
        defined = local.defined_at if local is not None else first[1]
        raise AbsaChecksError(
            f"{defined}: the suite's own source '{name}' has the name of the built-in source '{name}', which "
            f"{suite.path if local is None else 'another collected suite'} runs too; their units would be "
            "pooled in one source: rename the suite's own source")

    def _named(self, name: str) -> LoadedSource | DataMissing:
        """A built-in or dataset source, loaded once (DataMissing is kept so it is not retried); the files it
        was read from are hashed."""
        key = ("", name)
        if key not in self._loaded:
            try:
                loaded = load_named(name, self.data_dir)
            except DataMissing as missing:
                self._loaded[key] = missing
            else:
                self._loaded[key] = loaded
                self.inputs.add_data(name, tuple(loaded.files), self.data_dir)
        return self._loaded[key]

    def gold(self, name: str) -> list[AnnotatedSentence]:
        """An extraction source's annotated sentences, loaded once (its file hashed); DataMissing when absent."""
        if name not in self._gold:
            try:
                self._gold[name] = load_gold(name, self.data_dir)
            except DataMissing as missing:
                self._gold[name] = missing
            else:
                files = (self.data_dir / GOLD_SOURCES[name].relative_path,) if self.data_dir is not None else ()
                self.inputs.add_data(name, files, self.data_dir)
        found = self._gold[name]
        if isinstance(found, DataMissing):
            raise found
        return found

    def issues(self, names: Iterable[str]) -> list[DataIssue]:
        """Data issues of the named dataset sources (loading them here if this process has not)."""
        issues: list[DataIssue] = []
        for name in sorted(set(names) & set(dataset_sources())):
            try:
                found = self._named(name)
            except AbsaChecksError:  # an unreadable file: the cases already say so
                continue
            if isinstance(found, LoadedSource):
                issues.extend(found.issues)
        return issues


class StoredOutcomes:
    """Generated outcomes in the cache folder's SQLite (absa_checks.models.cache), as JSON
    (absa_checks.perturb.outcome_json): a later run, or another xdist worker, reads what was generated.

    The key holds the generator's fingerprint and the whole unit (absa_checks.perturb.variants.stored_key), so
    another generator or another annotation is generated again; a row that does not read is generated again too.
    """

    def __init__(self, cache: PredictionCache):
        self.cache = cache
        self.generator = generator_sha256()
        self.read = 0  # outcomes read from the store by this process (tests, progress)

    def get(self, keys: list[str]) -> dict[str, Outcome]:
        found: dict[str, Outcome] = {}
        for key, text in self.cache.get_variants(keys).items():
            try:
                found[key] = outcome_json.loads(text)
            except ValueError:
                continue
        self.read += len(found)
        return found

    def put(self, outcomes: dict[str, Outcome]) -> None:
        self.cache.put_variants({key: outcome_json.dumps(outcome) for key, outcome in outcomes.items()})


class VariantCache:
    """Generated variants and the resources behind them (WordNet loads once, only if needed); with a `store`,
    outcomes generated by an earlier run are read instead of generated."""

    def __init__(self, seed: int, store: StoredOutcomes | None = None):
        self.seed = seed
        self.store = store
        self._resources: dict[str, Resources] = {}
        self._memo: dict = {}

    def resources(self, domain: str) -> Resources:
        if domain not in self._resources:
            self._resources[domain] = load_resources(domain)
        return self._resources[domain]

    def variants(self, test: TestSpec | VariantRequest, loaded: LoadedSource, units: tuple) -> VariantSet:
        return variant_set(test, loaded, units, self.seed, self.resources, self._memo, self.store)


@dataclass
class PredictionStats:
    """What this process asked of the model; summed over xdist workers on the controller."""

    unique_queries: int = 0
    predicted: int = 0
    cache_hits: int = 0
    model_calls: int = 0
    truncated: int = 0
    renormalised: int = 0  # answers whose probabilities did not sum to 1 (models.predictions.SUM_TOLERANCE)
    seconds: float = 0.0
    model_loaded: bool = False

    def to_dict(self) -> dict:
        return dict(self.__dict__)


class Predictor:
    """Predicts every selected case's queries once, in batches, on first use.

    With a cache (and an adapter whose answers depend only on the text), queries already answered
    for this model fingerprint are read, not predicted, and the rest are predicted under the cache's
    lock, so concurrent xdist workers predict each query once between them.
    """

    def __init__(self, spec: registry.ModelSpec, adapter: Adapter | Extractor, batch_size: int,
                 cache: PredictionCache | None = None, progress: ProgressSink | None = None):
        self.spec = spec
        self.adapter = adapter  # built cheaply at configure time; heavy models load on first predict
        self.batch_size = batch_size
        self.cache = cache if getattr(adapter, "cacheable", False) else None
        self.stats = PredictionStats()
        self.progress = progress
        self._cases: list[Case] = []
        self._results: dict | None = None  # query -> answer, or (an extraction model) sentence -> tuples
        self._sentences: list[str] = []
        self._originals: list[Example] = []
        self.extracting = is_extractor(adapter)
        self._failure: str | None = None
        self.failure_shown = False

    def register(self, cases: Iterable[Case], sentences: Iterable[str] = (), originals: Iterable[Example] = ()
                 ) -> None:
        """The run's cases, and for an extraction model the sentences its extraction tests score; `originals`:
        the originals of units without a case, asked too so that coverage compares accuracies (judge.coverage)."""
        self._cases = list(cases)
        self._sentences = list(sentences)
        self._originals = [] if self.extracting else list(originals)
        self._results = None

    def queries(self) -> list[Query]:
        return plan([*(q for case in self._cases for q in (query_for(case.original), query_for(case.variant.example))),
                     *(query_for(example) for example in self._originals)])

    def originals_right(self, examples: Mapping[str, Example], predict: bool = True) -> dict[str, bool | None]:
        """Per unit, whether the model got its original right (registered before); None when it gave no answer,
        for an extraction model, or when nothing was predicted yet and `predict` is False."""
        if self.extracting or not examples or (self._results is None and not predict):
            return {unit: None for unit in examples}
        try:
            results = self._results_now()
        except AdapterError:
            return {unit: None for unit in examples}
        found: dict[str, bool | None] = {}
        for unit, example in examples.items():
            answer = results.get(query_for(example))
            found[unit] = answer.label == example.polarity if isinstance(answer, Prediction) else None
        return found

    def _predict(self, queries: list, on_batch=None) -> dict:
        """Queries answered by a classifier, or sentences by an extraction model, with progress."""
        started = time.perf_counter()
        self._load()
        clock, done = time.perf_counter(), 0  # the rate counts predicting, not loading

        def batch_done(found: dict) -> None:
            nonlocal done
            done += len(found)
            if on_batch is not None:
                on_batch(found)
            if self.progress is not None:
                self.progress.update(Progress(self.spec.name, done, len(queries), time.perf_counter() - clock,
                                              finished=done >= len(queries)))

        results: dict
        if self.extracting:
            results = extract_all(self.adapter, queries, self.batch_size, batch_done)
        else:  # not an extractor (absa_checks.models.answers.is_extractor): a classifier's adapter
            results = predict_all(cast(Adapter, self.adapter), queries, self.batch_size, batch_done)
            self.stats.renormalised += renormalised(results.values())
        self.stats.predicted += len(queries)
        self.stats.model_calls += -(-len(queries) // self.batch_size)
        self.stats.seconds += time.perf_counter() - started
        return results

    def _load(self) -> None:
        """A slow-loading model (one with load() and loaded) is announced before it loads."""
        load = getattr(self.adapter, "load", None)
        if not callable(load) or getattr(self.adapter, "loaded", True):
            return
        if self.progress is not None:
            described = self.adapter.describe()
            what = ", ".join(str(described[key]) for key in ("kind", "path") if described.get(key))
            self.progress.loading(self.spec.name, self.spec.redact(what or "its adapter"))
        load()

    def _answer_all(self) -> dict[Query, Prediction | QueryError]:
        return self.answer(self.queries())

    def answer(self, queries: list[Query]) -> dict[Query, Prediction | QueryError]:
        """These queries' answers, through the cache (the cases' queries, or a simple baseline's at the end)."""
        self.stats.unique_queries = len(queries)
        cache = self.cache
        if cache is None:
            return self._predict(queries)
        fingerprint = self.adapter.fingerprint()
        key = {q: query_key(q, self.adapter) for q in queries}
        by_text = {key[q]: q for q in reversed(queries)}  # one query per input the model sees
        self.stats.unique_queries = len(by_text)
        with cache.lock():
            cached = cache.get_many(fingerprint, by_text)
            missing = [q for key, q in by_text.items() if key not in cached]

            def keep(batch: dict) -> None:  # batch by batch: an interrupt or a failing batch loses no other
                cache.put_many(fingerprint, {key[q]: p.probs for q, p in batch.items() if isinstance(p, Prediction)})

            fresh = self._predict(missing, keep) if missing else {}
            answers = {key[q]: p for q, p in fresh.items()}
        self.stats.cache_hits += len(by_text) - len(missing)
        self.stats.truncated = getattr(self.adapter, "truncated", 0)
        self.stats.model_loaded = bool(getattr(self.adapter, "loaded", False))
        return {q: answers.get(key[q]) or Prediction(cached[key[q]]) for q in queries}

    def _extract_all(self) -> dict[str, list[AspectTuple] | QueryError]:
        """An extraction model: every sentence of the cases (originals and variants) and of the extraction
        tests, asked once, through the cache."""
        sentences = list(dict.fromkeys([*(e.sentence for c in self._cases for e in (c.original, c.variant.example)),
                                        *self._sentences]))
        self.stats.unique_queries = len(sentences)
        cache = self.cache
        if cache is None:
            return self._predict(sentences)
        fingerprint = self.adapter.fingerprint()
        with cache.lock():
            cached = cache.get_extractions(fingerprint, (sentence_key(s) for s in sentences))
            missing = [s for s in sentences if sentence_key(s) not in cached]

            def keep(batch: dict) -> None:
                cache.put_extractions(fingerprint, {sentence_key(s): to_json(found) for s, found in batch.items()
                                                    if not isinstance(found, QueryError)})

            fresh = self._predict(missing, keep) if missing else {}
        self.stats.cache_hits += len(sentences) - len(missing)
        self.stats.model_loaded = bool(getattr(self.adapter, "loaded", False))
        self.stats.truncated = getattr(self.adapter, "truncated", 0)  # sentences cut at max_length (errors)
        return {s: fresh[s] if s in fresh else from_json(cached[sentence_key(s)]) for s in sentences}

    def _results_now(self) -> dict:
        """Every answer of the run, made on first use; AdapterError when the model could give none."""
        if self._failure is not None:
            raise AdapterError(self._failure)
        if self._results is None:
            try:
                self._results = self._extract_all() if self.extracting else self._answer_all()
            except AbsaChecksError as err:
                self._failure = self.spec.redact(str(err))
                raise AdapterError(self._failure) from None
            except Exception as err:  # a bug in the model or its adapter: an error, never a pass
                self._failure = self.spec.redact(f"model '{self.spec.name}' raised {type(err).__name__}: {err}\n"
                                                 + "".join(traceback.format_exception(err)))
                raise AdapterError(self._failure) from None
        return self._results

    def _own(self, error: QueryError) -> AdapterError:
        own = error.message.startswith(f"model '{self.spec.name}'")  # already says whose it is
        return AdapterError(self.spec.redact(error.message if own else f"model '{self.spec.name}': {error.message}"))

    def extractions(self, sentence: str) -> list[AspectTuple]:
        """What an extraction model found in `sentence` (registered before); AdapterError when nothing."""
        found = self._results_now().get(sentence)
        if found is None:
            raise AdapterError(f"no extraction was planned for {sentence!r}")
        if isinstance(found, QueryError):
            raise self._own(found)
        return found

    def predictions(self, case: Case) -> tuple[Prediction | Missing, Prediction | Missing]:
        """The original's and the variant's predictions (for an extraction model: the target's polarity
        among what it found, or why there is none); AdapterError when the model gave nothing."""
        results = self._results_now()
        if self.extracting:
            return self._found(case.original), self._found(case.variant.example)
        answers = []
        for example in (case.original, case.variant.example):
            answer = results.get(query_for(example))
            if answer is None:  # a case added after planning (should not happen): say so plainly
                raise AdapterError(f"no prediction was planned for {example.record_id or example.sentence!r}")
            if isinstance(answer, QueryError):
                raise self._own(answer)
            answers.append(answer)
        return answers[0], answers[1]

    def _found(self, example) -> Prediction | Missing:
        found = find_target(example, self.extractions(example.sentence))
        if isinstance(found, Missing):
            return found
        if found.polarity is None:
            raise AdapterError(f"model '{self.spec.name}' found '{found.aspect}' in {example.sentence!r} without a "
                               "polarity")
        return Prediction(tuple(1.0 if p == found.polarity else 0.0 for p in POLARITIES))  # type: ignore[arg-type]


class OutcomeCollector:
    """Gathers case outcomes from test reports (on the xdist controller, or in-process)."""

    def __init__(self) -> None:
        self._by_nodeid: dict[str, CaseOutcome] = {}
        self._quarantined: dict[str, dict] = {}
        self.crashed: list[str] = []  # node ids an xdist worker crashed on: the run is partial
        self.no_cases: dict[str, dict] = {}  # nodeid -> a gated test with no case on a source: {test, source, reason}
        self.without_variant: dict[str, dict] = {}  # nodeid -> a suite's own example with no variant: {test, source, reason}
        self.extraction: dict[str, dict] = {}  # nodeid -> an extraction test's counts on one source (items.ExtractionItem)
        self.other_failures = 0

    def add(self, outcome: CaseOutcome) -> None:
        self._by_nodeid[outcome.nodeid] = outcome

    def quarantine(self, nodeid: str, record: dict) -> None:
        self._quarantined[nodeid] = record

    def by_nodeid(self) -> dict[str, dict]:
        """What a shard's report keeps for the merge: the records, by node id (the merge orders by it)."""
        return {"quarantined": dict(self._quarantined), "no_cases": dict(self.no_cases),
                "extraction": dict(self.extraction)}

    def quarantined(self) -> list[dict]:
        return [self._quarantined[nodeid] for nodeid in sorted(self._quarantined)]

    def outcomes(self) -> list[CaseOutcome]:
        return [self._by_nodeid[nodeid] for nodeid in sorted(self._by_nodeid)]
