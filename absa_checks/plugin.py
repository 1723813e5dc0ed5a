"""The pytest plugin: thin glue between pytest's hooks and the pure parts of absa-checks.

Loaded through the `pytest11` entry point wherever the package is installed.
"""

from __future__ import annotations

import difflib
import gc
import json
import os
import shutil
import signal
import threading
import tempfile
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import pytest

from . import adapters as registry

from . import allure_support, cache, reporters, terminal
from .progress import FileProgress, ProgressWatcher, TerminalProgress, display_for
from .fingerprint import fingerprint, model_sha256, sha256_of
from .shards import parse_shard, shard_identity, shard_of
from . import gates as gates_module, simpler
from .simpler import SimpleRun
from .conclusion import Baseline, RunContext, conclude, read_baseline
from . import manifest
from .errors import AbsaChecksError
from .items import (RUN_KEY, CaseItem, ExtractionItem, MissingDataItem, NoCasesItem, NotASuiteFile, NoVariantItem,
                    QuarantinedItem, SuiteFile, suites_read)
from .outcomes import EXTRACTION_KEY, NO_CASES_KEY, NO_VARIANT_KEY, PROPERTY_KEY, QUARANTINE_KEY, CaseOutcome
from .cache import PredictionCache
from .run_state import OutcomeCollector, Predictor, RunOptions, SourceCache, VariantCache
from .sources import DATA_ENV, resolve_data_dir
from .suite_files import classify, is_yaml
from .variants import DEFAULT_SEED


@dataclass
class RunState:
    """What a run with absa suites needs; built on first use, so other projects' runs never build it."""

    options: RunOptions
    sources: SourceCache
    variants: VariantCache
    predictors: dict[str, Predictor]  # one per checkpoint, in the order --absa-model names them
    run_cache: Path | None = None  # a temporary cache for this run only (--absa-no-cache)
    suite_sources: set[str] = field(default_factory=set)  # every source the collected suites name
    tests_by_strategy: dict[tuple[str, str], str] = field(default_factory=dict)  # (source, strategy) -> test key
    layout: registry.Resolved | None = None  # the group --model named (splits, claims), if one
    simple: Predictor | None = None          # --absa-simple-baseline, asked at the end of the run
    suite_files: list[str] = field(default_factory=list)  # every suite file collected (for the run manifest)
    domain_planned: list[manifest.Planned] = field(default_factory=list)  # pairs left out / report-only for domain


GROUP = ("absa-checks", "behavioural tests for aspect-based sentiment models")
MODEL_HELP = ("model to test: a name from models.yaml, replay:<path>#<column>, python:<module>:<function> "
              "(default: lexicon); several checkpoints: a,b,c or a group from models.yaml")
# Whether `--model` is ours: set while pytest loads the initial conftests, which may own it themselves.
MODEL_ALIAS_KEY: pytest.StashKey[bool] = pytest.StashKey()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup(*GROUP)
    group.addoption("--absa-model", dest="absa_model", default=None, metavar="NAME",
                    help=MODEL_HELP + "; --model is an alias unless another plugin or conftest owns it")
    group.addoption("--absa-models", default=None, metavar="PATH",
                    help="models file (default: models.yaml in the rootdir)")
    group.addoption("--absa-data", default=None, metavar="DIR",
                    help="data directory laid out like shared/data (default: $ABSA_DATA_DIR)")
    group.addoption("--absa-sources", default=None, metavar="A,B", help="only run these sources")
    group.addoption("--absa-sample", default=None, type=int, metavar="N", help="sample N units per source")
    group.addoption("--absa-seed", default=DEFAULT_SEED, type=int, metavar="S",
                    help=f"seed for sampling and generated variants (default {DEFAULT_SEED})")
    group.addoption("--absa-report", default=None, metavar="PATH", help="write the JSON report here")
    group.addoption("--absa-markdown", default=None, metavar="PATH", help="write a Markdown summary here")
    group.addoption("--absa-follow-symlinks", action="store_true",
                    help="an output path that is a symbolic link: write to the file it points to (the link stays); "
                         "without it such a path is refused")
    group.addoption("--absa-strict", action="store_true", help="every failed case fails the run, not only gates")
    group.addoption("--absa-gate-basis", default="interval", choices=gates_module.BASES,
                    help="decide gates on the 95%% interval (default) or on the point estimate")
    group.addoption("--absa-batch-size", default=64, type=int, metavar="N", help="queries per model call")
    group.addoption("--absa-cache", default=None, metavar="DIR",
                    help="prediction cache folder (default: .absa-cache in the rootdir)")
    group.addoption("--absa-no-cache", action="store_true",
                    help="do not read or keep cached predictions (workers still share one run's predictions)")
    group.addoption("--absa-clear-cache", action="store_true", help="empty the prediction cache before the run")
    group.addoption("--absa-baseline", default=None, metavar="PATH",
                    help="the released model's JSON report: compare paired, gate on no significant regression")
    group.addoption("--absa-regression-alpha", default=0.01, type=float, metavar="A",
                    help="significance level of the regression gate (one-sided exact McNemar; default 0.01: "
                         "equal models fail it at most 1%% of the time)")
    group.addoption("--absa-regression-min-effect", default=0.02, type=float, metavar="D",
                    help="smallest ARS drop, as a fraction, that counts as a regression (default 0.02: "
                         "smaller drops on about 1,000 units are within noise)")
    group.addoption("--absa-gate-on", default="mean", choices=gates_module.CHECKPOINT_RULES,
                    help="several checkpoints: decide gates on the mean across them (default) or on the "
                         "worst checkpoint")
    group.addoption("--absa-inconclusive", default="pass", choices=("pass", "fail"),
                    help="what an inconclusive gate counts as (default: pass)")
    group.addoption("--absa-device", default=None, metavar="DEVICE",
                    help="override the model's device: auto, cpu, cuda, cuda:N, mps")
    group.addoption("--absa-simple-baseline", default=None, metavar="MODEL",
                    help="also answer every case with this simpler model (e.g. lexicon-sentence) and gate on the "
                         "candidate being significantly better, paired (docs/readiness.md)")
    group.addoption("--absa-simple-alpha", default=0.01, type=float, metavar="A",
                    help="one-sided significance level of the simple-baseline gate (default 0.01)")
    group.addoption("--absa-require-claims", action="store_true",
                    help="the claims in models.yaml are gates: each must be reproduced (inside the 95%% interval)")
    group.addoption("--absa-cross-domain", action="store_true",
                    help="also test checkpoints with `domains:` in models.yaml on sources of other domains, "
                         "report-only (reported, never gated)")
    group.addoption("--absa-shard", default=None, metavar="K/N",
                    help="run shard K of N (split by unit, the same on every machine); merge the shards' "
                         "--absa-report files with `absa-checks merge`")


def _owned_elsewhere(parser: pytest.Parser, name: str) -> bool:
    """Whether another plugin or conftest has added the option `name` (pytest keeps no public list)."""
    groups = [parser._anonymous, *parser._groups]
    return any(name in option.names() for group in groups for option in group.options)


def add_model_alias(parser: pytest.Parser) -> bool:
    """`--model` as an alias of `--absa-model` when nobody else owns it; whether it was added."""
    if _owned_elsewhere(parser, "--model"):
        return False
    parser.getgroup(*GROUP).addoption("--model", dest="absa_model_alias", default=None, metavar="NAME",
                                      help="alias of --absa-model")
    return True


@pytest.hookimpl(wrapper=True)
def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser, args: list[str]):
    """After the project's conftests have added their options: `--model` only if it is still free."""
    result = yield
    early_config.stash[MODEL_ALIAS_KEY] = add_model_alias(parser)
    return result


def _read_options(config: pytest.Config, model_option_is_ours: bool) -> RunOptions:
    """The options, read and checked once; a bad value is a usage error naming the option."""
    opt = config.getoption
    _refuse_empty_values(config)
    alias = opt("absa_model_alias", None)
    if alias and opt("absa_model") and alias != opt("absa_model"):
        raise pytest.UsageError(f"--model {alias} and --absa-model {opt('absa_model')} disagree; pass one of them")
    models_file = Path(opt("--absa-models")) if opt("--absa-models") else config.rootpath / "models.yaml"
    if opt("--absa-models") and models_file.is_dir():
        raise pytest.UsageError(f"--absa-models {models_file}: is a folder, not a file; name the models YAML file "
                                "(e.g. models.yaml)")
    if opt("--absa-models") and not models_file.is_file():
        raise pytest.UsageError(f"--absa-models: {models_file} not found")
    if opt("--absa-sample") is not None and opt("--absa-sample") < 1:
        raise pytest.UsageError("--absa-sample must be at least 1")
    if opt("--absa-batch-size") < 1:
        raise pytest.UsageError("--absa-batch-size must be at least 1")
    if not 0 < opt("--absa-regression-alpha") < 1:
        raise pytest.UsageError(f"--absa-regression-alpha {opt('--absa-regression-alpha')}: a significance level "
                                "is between 0 and 1 (default 0.01)")
    if not 0 < opt("--absa-simple-alpha") < 1:
        raise pytest.UsageError(f"--absa-simple-alpha {opt('--absa-simple-alpha')}: a significance level is between "
                                "0 and 1 (default 0.01)")
    if opt("--absa-simple-baseline") is not None and opt("--absa-shard"):
        raise pytest.UsageError("--absa-simple-baseline with --absa-shard: the simple baseline is compared on the "
                                "whole run; run it without shards")
    if not 0 <= opt("--absa-regression-min-effect") < 1:
        raise pytest.UsageError(f"--absa-regression-min-effect {opt('--absa-regression-min-effect')}: an ARS drop "
                                "as a fraction, from 0 up to (not including) 1 (default 0.02)")
    if opt("--absa-data") is not None and not Path(opt("--absa-data")).expanduser().is_dir():
        raise pytest.UsageError(f"--absa-data {opt('--absa-data')}: no such folder; point it at a folder laid out "
                                "like shared/data (or leave it out to run the built-in sources only)")
    for option in ("--absa-report", "--absa-markdown"):
        _check_output_path(option, opt(option))
    if opt("--absa-cache") and Path(opt("--absa-cache")).exists() and not Path(opt("--absa-cache")).is_dir():
        raise pytest.UsageError(f"--absa-cache {opt('--absa-cache')}: is a file, not a folder; name a folder "
                                "(it is created if missing)")
    try:
        shard = parse_shard(opt("--absa-shard")) if opt("--absa-shard") else None
    except ValueError as err:
        raise pytest.UsageError(str(err)) from None
    sources = opt("--absa-sources")
    return RunOptions(
        model=opt("absa_model") or alias or registry.DEFAULT_MODEL, models_file=models_file,
        data_dir=resolve_data_dir(opt("--absa-data")),
        sources=tuple(s.strip() for s in sources.split(",") if s.strip()) if sources else None,
        sample=opt("--absa-sample"), seed=opt("--absa-seed"),
        report=Path(opt("--absa-report")) if opt("--absa-report") else None,
        markdown=Path(opt("--absa-markdown")) if opt("--absa-markdown") else None,
        strict=opt("--absa-strict"), gate_basis=opt("--absa-gate-basis"), batch_size=opt("--absa-batch-size"),
        gate_on=opt("--absa-gate-on"), inconclusive=opt("--absa-inconclusive"),
        baseline=Path(opt("--absa-baseline")) if opt("--absa-baseline") else None,
        regression_alpha=opt("--absa-regression-alpha"), regression_min_effect=opt("--absa-regression-min-effect"),
        device=opt("--absa-device"), verbose=config.option.verbose > 0, model_option_is_ours=model_option_is_ours,
        allure_dir=Path(config.option.allure_report_dir) if allure_support.active(config) else None,
        cache_dir=Path(opt("--absa-cache") or config.rootpath / ".absa-cache"), no_cache=opt("--absa-no-cache"),
        clear_cache=opt("--absa-clear-cache"), shard=shard, simple_baseline=opt("--absa-simple-baseline"),
        simple_alpha=opt("--absa-simple-alpha"), require_claims=opt("--absa-require-claims"),
        follow_symlinks=opt("--absa-follow-symlinks"), cross_domain=opt("--absa-cross-domain"))


def _refuse_one_checkpoint_twice(options: RunOptions, specs: list, adapters: list) -> None:
    """Two names for one checkpoint (the same kind and adapter fingerprint, which changes whenever its answers could) would make a
    2-checkpoint mean with a std of 0, or a simple baseline that is the model under test: a usage error."""
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


def _refuse_empty_values(config: pytest.Config) -> None:
    """`--absa-model ""`, `--model=`, `--absa-sources ,`: an empty value would quietly mean the default (or
    nothing at all), so every absa-checks option given an empty text is a usage error naming it."""
    for option in config._parser.getgroup(*GROUP).options:
        value = config.getoption(option.dest, None)
        if isinstance(value, str) and not value.replace(",", " ").strip():
            name = next((n for n in option.names() if n.startswith("--")), option.names()[0])
            raise pytest.UsageError(f"{name} was given an empty value ({value!r}); give it a value, or leave the "
                                    "option out for its default")


def _check_output_path(option: str, value: str | None) -> None:
    """A report path must be writable as a file: checked before the run, not after it."""
    if not value:
        return
    path = Path(value)
    if path.is_dir():
        raise pytest.UsageError(f"{option} {value}: is a folder; name a file in it, e.g. {path / 'report'}"
                                + (".json" if option == "--absa-report" else ".md"))
    parent = next((p for p in (path.parent, *path.parent.parents) if p.exists()), None)
    if parent is not None and not parent.is_dir():
        raise pytest.UsageError(f"{option} {value}: {parent} is a file, so the report cannot be written there; "
                                "choose another path")


def _asked_for(config: pytest.Config) -> bool:
    """Whether any absa-checks option was given (then its mistakes are usage errors before collection)."""
    return any(config.getoption(option.dest) not in (getattr(option, "default", None), None, False)
               for option in config._parser.getgroup(*GROUP).options)


@pytest.hookimpl(tryfirst=True)  # before allure-pytest empties --alluredir (--clean-alluredir) or makes it
def pytest_configure(config: pytest.Config) -> None:
    run = AbsaRun(config, _read_options(config, config.stash.get(MODEL_ALIAS_KEY, True)))
    config.stash[RUN_KEY] = run
    config.pluginmanager.register(run, "absa-checks-run")
    if _asked_for(config):
        try:
            run.state  # noqa: B018 - build now: a wrong model name stops pytest before collection
        except AbsaChecksError as err:
            raise pytest.UsageError(str(err)) from None
    run.check_outputs()  # an output (ours or pytest's) that would destroy an input, a device or a link
    allure_support.guard_writes(config)


def _cache_folder(config: pytest.Config, options: RunOptions) -> tuple[Path, Path | None]:
    """The cache folder, and a run-only folder to delete afterwards when --absa-no-cache is given."""
    workerinput = getattr(config, "workerinput", None)
    if options.no_cache:
        if workerinput is not None and "absa_run_cache" in workerinput:  # the controller's, shared
            return Path(workerinput["absa_run_cache"]), None
        run_cache = Path(tempfile.mkdtemp(prefix="absa-run-cache-"))
        return run_cache, run_cache
    if options.clear_cache and workerinput is None:
        cache.clear(options.cache_dir)
    return options.cache_dir, None


def pytest_collect_file(file_path: Path, parent: pytest.Collector):
    if not is_yaml(file_path):
        return None
    found = classify(file_path, parent.config.rootpath)
    if found.kind == "suite":
        return SuiteFile.from_parent(parent, path=file_path)
    if found.kind == "suite-like" or _named_on_command_line(parent.config, file_path):
        node = NotASuiteFile.from_parent(parent, path=file_path)  # say why, not pytest's "not found"
        node.why = found.why
        return node
    return None


def _named_on_command_line(config: pytest.Config, path: Path) -> bool:
    here = config.invocation_params.dir
    return any((here / arg.split("::")[0]).resolve() == path.resolve() for arg in config.args)


def _terminate_as_interrupt() -> None:
    """SIGTERM (a CI job cancelled) ends the run as Ctrl-C does, so what ran is reported as partial
    instead of the process vanishing; only where nobody else handles SIGTERM, and only in a run with suites."""
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        def interrupt(signum, frame):
            raise KeyboardInterrupt("SIGTERM")
        signal.signal(signal.SIGTERM, interrupt)


def _sum_worker_stats(workers: list[dict]) -> dict:
    """One checkpoint's prediction counts over the xdist workers (each plans every query)."""
    total = {key: sum(w[key] for w in workers) for key in workers[0]}
    total["model_loaded"] = any(w["model_loaded"] for w in workers)
    total["unique_queries"] = max(w["unique_queries"] for w in workers)
    total["processes"] = len(workers)
    return total


def _shard_key(item: pytest.Item) -> str:
    """What decides an item's shard: its unit (cases, quarantined variants, listed examples), else its test
    and source (absent data, no cases, extraction), else (not an absa item) its node id."""
    if isinstance(item, CaseItem):
        return f"{item.source}\0{item.case.unit_id}"
    if isinstance(item, QuarantinedItem):
        return f"{item.source}\0{item.rejected.unit_id}"
    if isinstance(item, NoVariantItem):
        return f"{item.source}\0{item.unit_id}"
    if isinstance(item, (MissingDataItem, NoCasesItem, ExtractionItem)):
        return f"{item.test.key}\0{item.source}"
    return item.nodeid


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _is_distributed(config: pytest.Config) -> bool:
    """The pytest-xdist controller: its workers collected the suites, it did not."""
    return config.pluginmanager.has_plugin("dsession")


SuiteItemTypes = (CaseItem, MissingDataItem, QuarantinedItem, NoCasesItem, NoVariantItem, ExtractionItem)


def _planned(items: list[pytest.Item], predictors: dict[str, Predictor]) -> list[manifest.Planned]:
    """The (test, source) pairs the selected items stand for, with what collection found (run manifest)."""
    found: dict[tuple[str, str, str], manifest.Planned] = {}
    extracting = any(p.extracting for p in predictors.values())
    for item in items:
        if isinstance(item, CaseItem):
            status, reason = manifest.CASES, ""
        elif isinstance(item, MissingDataItem):
            status, reason = item.kind, item.reason
        elif isinstance(item, NoCasesItem):
            status, reason = manifest.NO_CASES, item.reason
        elif isinstance(item, NoVariantItem):
            status, reason = manifest.NO_VARIANT, item.reason
        elif isinstance(item, QuarantinedItem):
            status, reason = manifest.QUARANTINED, f"quarantined: {item.rejected.reason}"
        elif isinstance(item, ExtractionItem):
            if item.missing:
                status, reason = (manifest.NO_DATA if extracting else manifest.NOT_FOR_MODEL), item.missing
            elif not predictors[item.model].extracting:
                status, reason = manifest.NOT_FOR_MODEL, f"model '{item.model}' does not find aspects itself"
            else:
                status, reason = manifest.EXTRACTION, ""
        else:
            continue
        gated = bool(item.test.gates) if isinstance(item, ExtractionItem) else not item.test.gates.is_empty()
        planned = manifest.Planned(item.test.key, item.source, gated, status, reason)
        key = (item.test.key, item.source, status)
        # one reason per pair whatever the order or the shard: the first in sorted order (manifest.merged too)
        found[key] = min(found.get(key, planned), planned, key=lambda p: p.reason)
    return list(found.values())


class AbsaRun:
    """Per-run hooks: plan predictions after collection, gather outcomes, aggregate once at the end."""

    def __init__(self, config: pytest.Config, options: RunOptions):
        self.config = config
        self.options = options
        self.collector = OutcomeCollector()
        self.started = time.time()
        self.summary_lines: list[str] = []
        self.worker_stats: list[dict] = []  # per xdist worker: checkpoint -> prediction counts
        self.worker_inputs: list[dict] = []  # per xdist worker: the files it read (absa_checks.fingerprint)
        self._state: RunState | None = None
        self._tbstyle: str | None = None  # pytest's --tb before compact failures set it to "no"
        self._errors_seen = False
        self._progress_dir: Path | None = None  # xdist controller: the workers' progress files
        self._watcher: ProgressWatcher | None = None
        self.collection: manifest.Collection | None = None  # what this process collected (the run manifest)
        self.worker_collections: list[manifest.Collection] = []  # xdist controller: the workers' collections
        self.refused: list[dict[str, str]] = []  # suite files that could not be read as suites, with why
        self._deselected = 0  # suite items deselected by -k / -m (not those another shard runs)
        self._shard_dropped = 0  # suite items another shard runs

    @property
    def state(self) -> RunState:
        """Models resolved, caches opened: on first use, i.e. when a suite is collected (or asked for)."""
        if self._state is None:
            _terminate_as_interrupt()
            layout = registry.resolve_run(self.options.model, self.options.models_file)
            specs = layout.specs
            if self.options.simple_baseline is not None:
                specs = [*specs, registry.resolve(self.options.simple_baseline, self.options.models_file)]
            if self.options.device:
                specs = [replace(spec, settings={**spec.settings, "device": self.options.device}) for spec in specs]
            adapters = [registry.build(spec) for spec in specs]
            _refuse_one_checkpoint_twice(self.options, specs, adapters)
            cache_dir, run_cache = _cache_folder(self.config, self.options)
            progress = self._progress_sink()
            predictors = [Predictor(spec, adapter, self.options.batch_size, PredictionCache(cache_dir), progress)
                          for spec, adapter in zip(specs, adapters)]
            simple = predictors.pop() if self.options.simple_baseline is not None else None
            if simple is not None and simple.extracting:
                raise AbsaChecksError(f"--absa-simple-baseline {self.options.simple_baseline}: an extraction model; "
                                      "the simple baseline answers polarity queries: give a classifier such as "
                                      "lexicon-sentence or a sentence-only checkpoint")
            self._state = RunState(self.options, SourceCache(self.options.data_dir), VariantCache(self.options.seed),
                                   {p.spec.name: p for p in predictors}, run_cache, layout=layout, simple=simple)
        return self._state

    def _progress_sink(self) -> FileProgress | TerminalProgress:
        """Progress goes to the terminal; from an xdist worker, to the file its controller shows."""
        workerinput = getattr(self.config, "workerinput", None)
        if workerinput is not None and "absa_progress" in workerinput:
            return FileProgress(Path(workerinput["absa_progress"]), workerinput["workerid"])
        return TerminalProgress(self.config)

    def _progress_folder(self) -> Path:
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
            self._watcher = ProgressWatcher(self._progress_folder(), display)
            self._watcher.start()

    def _stop_watching(self) -> None:
        if self._watcher is not None:
            self._watcher.stop()
        if self._progress_dir is not None:
            shutil.rmtree(self._progress_dir, ignore_errors=True)

    def _compact_failures(self, only_suites: bool) -> None:
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
            self.options = replace(self.options, compact_failures=True)

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

    def _show_errors_in_full(self) -> None:
        """A collection or setup error (a broken suite or model) is never compacted away."""
        self._errors_seen = True
        if self._tbstyle is not None:
            self.config.option.tbstyle = self._tbstyle

    def pytest_collectreport(self, report) -> None:
        if report.failed:
            self._show_errors_in_full()
            if report.nodeid.lower().endswith((".yaml", ".yml")):  # a suite (or suite-like) file refused
                self.refused.append({"path": report.nodeid, "why": str(report.longrepr)})

    def pytest_deselected(self, items) -> None:
        self._deselected += sum(isinstance(item, SuiteItemTypes) for item in items)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node, ids) -> None:
        """xdist controller: it prints the failures but collects nothing; the workers' ids tell."""
        self._compact_failures(bool(ids) and all(".yaml::" in i or ".yml::" in i for i in ids))
        if any(".yaml::" in i or ".yml::" in i for i in ids):
            self._watch_progress()

    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        """--absa-shard K/N: keep this shard's items (a unit's cases together, for every checkpoint)."""
        if self.options.shard is None:
            return
        k, n = self.options.shard
        kept, dropped = [], []
        for item in items:
            (kept if shard_of(_shard_key(item), n) == k else dropped).append(item)
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
        specs = [p.spec for p in self._state.predictors.values()] if self._state is not None else []
        if self._state is not None and self._state.simple is not None:
            specs.append(self._state.simple.spec)
        suites = {item.getparent(SuiteFile) for item in (session.items if session else ())} - {None}
        read = tuple(named for suite in suites for named in getattr(suite, "inputs", ()))
        try:
            reporters.check_run_outputs(self.options, specs, read)
            reporters.check_pytest_outputs(self.config, self.options, specs, read)
        except AbsaChecksError as err:
            if session is not None:  # pytest writes --junitxml when the session ends, even after a usage error
                reporters.drop_pytest_files(self.config)
            raise pytest.UsageError(str(err)) from None

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if self._state is not None:  # suites were collected (a project without suites sees no difference)
            self.check_outputs(session)
        self._compact_failures(bool(session.items) and all(isinstance(i, SuiteItemTypes) for i in session.items))
        wanted = self.options.sources
        if wanted and not _is_worker(self.config):
            seen = {item.source for item in session.items if isinstance(item, SuiteItemTypes)}
            seen |= {p.source for p in (self._state.domain_planned if self._state is not None else ())}
            unknown = [s for s in wanted if s not in seen]
            seen = self._state.suite_sources if self._state is not None else set()
            if unknown:
                hints = [f"{name} (did you mean {close[0]}?)" if (close := difflib.get_close_matches(name, sorted(seen), n=1))
                         else name for name in unknown]
                raise pytest.UsageError(f"--absa-sources: no collected test uses {', '.join(hints)}; the collected "
                                        f"suites use {', '.join(sorted(seen)) or 'no source'}")
        if self._state is None:  # no suite was collected: nothing to plan
            return
        self.collection = manifest.Collection(
            tuple(self._state.suite_files),
            tuple(_planned(session.items, self._state.predictors)) + tuple(self._state.domain_planned),
            sum(isinstance(item, SuiteItemTypes) for item in session.items), self._deselected)
        cases: dict[str, list] = {model: [] for model in self.state.predictors}
        sentences: dict[str, list] = {model: [] for model in self.state.predictors}
        for item in session.items:  # one pass, whatever the number of checkpoints
            if isinstance(item, CaseItem):
                cases[item.model].append(item.case)
            elif isinstance(item, ExtractionItem) and item.model:
                sentences[item.model].extend(s.sentence for s in item.sentences)
        for model, predictor in self.state.predictors.items():
            predictor.register(cases[model], sentences[model] if predictor.extracting else ())
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
            self._show_errors_in_full()

        def found(wanted: str) -> list[dict]:  # our records travel as JSON (readable in JUnit XML too)
            return [json.loads(value) for key, value in report.user_properties if key == wanted]

        records, quarantined, empty = found(PROPERTY_KEY), found(QUARANTINE_KEY), found(NO_CASES_KEY)
        for record in found(NO_VARIANT_KEY)[-1:]:
            self.collector.without_variant[report.nodeid] = record
        for record in found(EXTRACTION_KEY)[-1:]:
            self.collector.extraction[report.nodeid] = record
        if report.failed and "crashed while running" in str(report.longrepr):  # pytest-xdist lost a worker
            self.collector.crashed.append(report.nodeid)
        elif empty:
            self.collector.no_cases[report.nodeid] = empty[-1]  # call and teardown reports both carry it
        elif records:
            if self._state is None:  # an xdist controller: its first absa result
                _terminate_as_interrupt()
            self.collector.add(CaseOutcome.from_dict(records[-1]))
        elif quarantined:
            self.collector.quarantine(report.nodeid, quarantined[-1])
        elif report.failed:
            self.collector.other_failures += 1

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node) -> None:
        """xdist controller: workers share this run's temporary cache (--absa-no-cache) and tell their
        progress through files (only a name here: nothing is created unless a worker predicts)."""
        if self._state is not None and self._state.run_cache is not None:
            node.workerinput["absa_run_cache"] = str(self.state.run_cache)
        node.workerinput["absa_progress"] = str(self._progress_folder())

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error) -> None:
        stats = getattr(node, "workeroutput", {}).get("absa_prediction_stats")
        if stats:
            self.worker_stats.append(stats)
        inputs = getattr(node, "workeroutput", {}).get("absa_inputs")
        if inputs:
            self.worker_inputs.append(inputs)
        collected = getattr(node, "workeroutput", {}).get("absa_collection")
        if collected:
            self.worker_collections.append(manifest.Collection.from_dict(collected))

    def _baseline(self) -> Baseline | None:
        """The released model's cases for --absa-baseline, or why they cannot be read."""
        return read_baseline(self.options.baseline) if self.options.baseline is not None else None

    def _prediction_stats(self) -> dict:
        """What was asked of the models: totals, and per checkpoint when there are several."""
        per_model = {}
        for model, predictor in self.state.predictors.items():
            workers = [w[model] for w in self.worker_stats if model in w]
            per_model[model] = _sum_worker_stats(workers) if workers else predictor.stats.to_dict()
        if len(per_model) == 1:
            return next(iter(per_model.values()))
        total = {key: sum(s[key] for s in per_model.values()) for key in ("unique_queries", "predicted",
                                                                             "cache_hits", "model_calls", "truncated")}
        total["seconds"] = round(sum(s["seconds"] for s in per_model.values()), 6)
        total["model_loaded"] = any(s["model_loaded"] for s in per_model.values())
        return {**total, "per_checkpoint": per_model}

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if _is_worker(self.config):
            if self._state is None:  # this worker collected no suite
                return
            self.config.workeroutput["absa_prediction_stats"] = {
                model: predictor.stats.to_dict() for model, predictor in self.state.predictors.items()}
            self.config.workeroutput["absa_inputs"] = self.state.sources.inputs.to_dict()
            if self.collection is not None:
                self.config.workeroutput["absa_collection"] = self.collection.to_dict()
            return
        self._stop_watching()
        try:
            self._finish(session, exitstatus)
        finally:
            if self._state is not None and self._state.run_cache is not None:
                shutil.rmtree(self._state.run_cache, ignore_errors=True)

    def _finish(self, session: pytest.Session, exitstatus: int) -> None:
        outcomes = self.collector.outcomes()
        collection = self.collection or (manifest.merged(self.worker_collections) if self.worker_collections
                                         else None)
        if self.config.option.collectonly or not outcomes and not self.collector.extraction and (
                exitstatus == pytest.ExitCode.INTERRUPTED or (
                    not self.refused and (collection is None or not collection.has_suites))):
            # --collect-only, a run without suites, or one stopped (Ctrl-C, collection errors) before any result
            return
        state = self.state
        stopped = session.shouldstop or session.shouldfail
        if exitstatus == pytest.ExitCode.INTERRUPTED:
            stopped = "interrupted: Ctrl-C or SIGTERM"
        elif exitstatus == pytest.ExitCode.INTERNAL_ERROR:  # never a complete, passing report of a crashed run
            stopped = "an internal error (INTERNALERROR above) ended the run early; the cases after it have no result"
        elif self.collector.crashed:
            crashed = self.collector.crashed
            stopped = (f"a pytest-xdist worker crashed while running {len(crashed)} item(s), first {crashed[0]}; "
                       "those cases have no result")
        notes = () if self.options.model_option_is_ours else (
            "--model belongs to another plugin or conftest here; absa-checks reads --absa-model",)
        adapters = {name: p.adapter.fingerprint() for name, p in state.predictors.items()}  # once: it may hash weights
        context = RunContext(
            models={name: p.spec.redact({**p.adapter.describe(), "fingerprint": adapters[name]})
                    for name, p in state.predictors.items()},
            issues=state.sources.issues(o.source for o in outcomes), quarantined=self.collector.quarantined(),
            other_failures=self.collector.other_failures, stopped=str(stopped) if stopped else "",
            no_cases=[self.collector.no_cases[nodeid] for nodeid in sorted(self.collector.no_cases)],
            timing={"started": round(self.started, 3), "wall_seconds": round(time.time() - self.started, 3),
                    "predictions": self._prediction_stats()},
            extraction=[self.collector.extraction[nodeid] for nodeid in sorted(self.collector.extraction)],
            shard=self._shard_section(collection), fingerprint=self._fingerprint(adapters),
            collection=collection or manifest.Collection(), refused=list(self.refused),
            request=manifest.Request(self.options.sources, self._data_request(), self.options.shard is not None,
                                     int(exitstatus), tuple((name, p.spec.domains)
                                                            for name, p in state.predictors.items() if p.spec.domains)),
            notes=notes, **self._readiness_context(outcomes))
        result = conclude(outcomes, self.options, self._baseline(), context)
        if exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED) or (
                exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED and self.options.shard is not None
                and (self._shard_dropped or self.worker_collections) and collection is not None and collection.suites):
            session.exitstatus = result.verdict.exit_status  # a shard that got no unit is a shard: exit 0
        read = suites_read(self.config.rootpath, {o.test for o in outcomes}) if _is_distributed(self.config) else ()
        failed_during = [*allure_support.write_failures(self.config),
                         *reporters.pytest_files_still_safe(self.config, self.options, read)]
        self.summary_lines, unwritten = reporters.summary_with_failures(result, self.options, read, failed_during)
        if unwritten and session.exitstatus == pytest.ExitCode.OK:  # a requested output is missing
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        if self.collector.without_variant:  # before the verdict, which stays the last line
            line = self._without_variant_line()
            self.summary_lines[-1:-1] = [line if self.options.verbose else terminal.cut(line)]

    def _data_request(self) -> str:
        """How a data folder was given, as the messages show it ("" when none was)."""
        if self.config.getoption("--absa-data"):
            return f"--absa-data {self.config.getoption('--absa-data')}"
        return f"${DATA_ENV}={os.environ[DATA_ENV]}" if os.environ.get(DATA_ENV) else ""

    def _readiness_context(self, outcomes: list[CaseOutcome]) -> dict:
        """The group's splits and claims, and the simple baseline's answers to the run's cases."""
        layout, found = self.state.layout, {}
        if layout is not None:
            found["claims"] = layout.claims
            if layout.group is not None:
                found["group"], found["splits"] = layout.group.name, layout.group.splits
        if self.state.simple is not None:
            found["simple"] = self._simple_run(outcomes)
        return found

    def _simple_run(self, outcomes: list[CaseOutcome]) -> SimpleRun:
        """The simple model's answers to every original and variant of the run (once each, cached)."""
        predictor = self.state.simple
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
        chosen = {**({"domains": domains} if domains else {}), **({"cross_domain": True} if o.cross_domain else {})}
        return fingerprint(inputs, models, {"seed": o.seed, "sample": o.sample,
                                            "sources": list(o.sources) if o.sources else None, **chosen})

    def _shard_section(self, collection: manifest.Collection | None) -> dict | None:
        """A shard's report keeps what `absa-checks merge` needs to conclude as one run would have."""
        if self.options.shard is None:
            return None
        o = self.options
        return {"k": o.shard[0], "n": o.shard[1],
                "options": {"model": o.model, "sources": list(o.sources) if o.sources else None, "sample": o.sample,
                            "seed": o.seed, "strict": o.strict, "gate_basis": o.gate_basis, "gate_on": o.gate_on,
                            "inconclusive": o.inconclusive, "regression_alpha": o.regression_alpha,
                            "regression_min_effect": o.regression_min_effect,
                            "baseline": str(o.baseline) if o.baseline else None,
                            "require_claims": o.require_claims},
                "identity": shard_identity(o.baseline, self._selection()),
                "layout": self._layout_record(),
                "records": self.collector.by_nodeid(), "other_failures": self.collector.other_failures,
                "manifest": {"collection": (collection or manifest.Collection()).to_dict(), "refused": self.refused,
                             "data": self._data_request()}}

    def _selection(self) -> dict:
        """What chose the items besides --absa-shard: -k, -m, --deselect and node ids named on the command line."""
        option = self.config.option
        return {"-k": getattr(option, "keyword", "") or "", "-m": getattr(option, "markexpr", "") or "",
                "--deselect": sorted(getattr(option, "deselect", None) or []),
                "node ids": sorted(arg for arg in self.config.args if "::" in arg)}

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
