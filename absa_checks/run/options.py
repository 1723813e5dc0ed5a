"""The run's options, declared once: pytest adds them as `--absa-NAME`, `absa_checks.evaluate` takes them
as keyword arguments `NAME=` (dashes as underscores). `read` checks the values and makes the RunOptions;
a bad value is one AbsaChecksError naming the option as the front door spells it (`Spelling`: pytest's
`--absa-sample`, evaluate()'s `sample=`; the pytest glue makes it a usage error; evaluate raises it)."""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from absa_checks.common.errors import AbsaChecksError
from absa_checks.judge import gates as gates_module
from absa_checks.models import adapters as registry
from absa_checks.perturb.variants import DEFAULT_SEED
from absa_checks.run.run_state import LIVE_VARIANTS, SUITE_VARIANTS, RunOptions
from absa_checks.run.shards import parse_shard
from absa_checks.sources import resolve_data_dir

MODEL_HELP = ("model to test: a name from models.yaml, replay:<path>#<column>, python:<module>:<function> "
              "(default: lexicon); several checkpoints: a,b,c or a group from models.yaml")


@dataclass(frozen=True)
class Option:
    """One option: `--absa-<name>` in pytest, `<name>` (dashes as underscores) in evaluate()."""

    name: str
    help: str
    default: Any = None
    type: Callable | None = None  # int, float (None: text)
    flag: bool = False            # store_true
    choices: tuple[str, ...] | None = None
    metavar: str | None = None

    @property
    def flag_name(self) -> str:
        return f"--absa-{self.name}"

    @property
    def keyword(self) -> str:
        return self.name.replace("-", "_")


OPTIONS: tuple[Option, ...] = (
    Option("model", MODEL_HELP + "; --model is an alias unless another plugin or conftest owns it", metavar="NAME"),
    Option("models", "models file (default: models.yaml in the rootdir)", metavar="PATH"),
    Option("data", "data directory laid out like shared/data (default: $ABSA_DATA_DIR)", metavar="DIR"),
    Option("sources", "only run these sources", metavar="A,B"),
    Option("sample", "sample N units per source", type=int, metavar="N"),
    Option("seed", f"seed for sampling and generated variants (default {DEFAULT_SEED})", DEFAULT_SEED, int,
           metavar="S"),
    Option("report", "write the JSON report here", metavar="PATH"),
    Option("markdown", "write a Markdown summary here", metavar="PATH"),
    Option("follow-symlinks", "an output path that is a symbolic link: write to the file it points to (the link "
                              "stays); without it such a path is refused", False, flag=True),
    Option("strict", "every failed case fails the run, not only gates", False, flag=True),
    Option("gate-basis", "decide gates on the 95%% interval (default) or on the point estimate", "interval",
           choices=gates_module.BASES),
    Option("batch-size", "queries per model call", 64, int, metavar="N"),
    Option("cache", "prediction cache folder (default: .absa-cache in the rootdir)", metavar="DIR"),
    Option("no-cache", "do not read or keep cached predictions (workers still share one run's predictions)", False,
           flag=True),
    Option("clear-cache", "empty the prediction cache before the run", False, flag=True),
    Option("baseline", "the released model's JSON report: compare paired, gate on no significant regression",
           metavar="PATH"),
    Option("regression-alpha", "significance level of the regression gate (one-sided exact McNemar; default 0.01: "
                               "equal models fail it at most 1%% of the time)", 0.01, float, metavar="A"),
    Option("regression-min-effect", "smallest ARS drop, as a fraction, that counts as a regression (default 0.02: "
                                    "smaller drops on about 1,000 units are within noise)", 0.02, float, metavar="D"),
    Option("gate-on", "several checkpoints: decide gates on the mean across them (default) or on the worst "
                      "checkpoint", "mean", choices=gates_module.CHECKPOINT_RULES),
    Option("inconclusive", "what an inconclusive gate counts as (default: pass)", "pass", choices=("pass", "fail")),
    Option("device", "override the model's device: auto, cpu, cuda, cuda:N, mps", metavar="DEVICE"),
    Option("simple-baseline", "also answer every case with this simpler model (e.g. lexicon-sentence) and gate on "
                              "the candidate being significantly better, paired (docs/readiness.md)", metavar="MODEL"),
    Option("simple-alpha", "one-sided significance level of the simple-baseline gate (default 0.01)", 0.01, float,
           metavar="A"),
    Option("require-claims", "the claims in models.yaml are gates: each must be reproduced (inside the 95%% "
                             "interval)", False, flag=True),
    Option("cross-domain", "also test checkpoints with `domains:` in models.yaml on sources of other domains, "
                           "report-only (reported, never gated)", False, flag=True),
    Option("variants", "suite: each test runs the frozen and audited variant files its suite names (default); "
                       "live: every test ignores them and runs the live generator as its `otherwise` says",
           SUITE_VARIANTS, choices=(SUITE_VARIANTS, LIVE_VARIANTS)),
    Option("shard", "run shard K of N (split by unit, the same on every machine); merge the shards' --absa-report "
                    "files with `absa-checks merge`", metavar="K/N"),
)
BY_KEYWORD = {option.keyword: option for option in OPTIONS}
SEVERAL = ("model", "sources")  # the options that take several values (a,b,c): evaluate() takes a list too
BY_FLAG = {option.flag_name: option for option in OPTIONS}
# pytest's spelling of an option in a message, and the value after it when a colon, comma or semicolon before a
# space (or the message's end) ends it ("--absa-model replay:x: ...", "--absa-baseline b.json, an input")
FLAG_IN_MESSAGE = re.compile(r"--absa-[a-z]+(?:-[a-z]+)*(?: (\S+?)(?=[:,;](?:\s|$)|$))?")


@dataclass(frozen=True)
class Spelling:
    """How a front door names its options in messages: pytest's `--absa-sample 0`, evaluate()'s `sample=0`."""

    keywords: bool = False

    def name(self, key: str) -> str:
        """`--absa-gate-basis` or `gate_basis=`."""
        option = BY_KEYWORD[key]
        return f"{option.keyword}=" if self.keywords else option.flag_name

    def given(self, key: str, value: Any) -> str:
        """The option with its value: `--absa-data /x` or `data='/x'`."""
        option = BY_KEYWORD[key]
        return f"{option.keyword}={_shown(value)}" if self.keywords else f"{option.flag_name} {value}"

    def named(self, key: str, value: Any) -> str:
        """The option as its message names it: pytest's without the value (`--absa-sample`), the keyword with it
        (`sample=0`)."""
        return self.given(key, value) if self.keywords else BY_KEYWORD[key].flag_name

    def message(self, text: str) -> str:
        """A message written below the front door with pytest's option names, in this spelling
        ("--absa-model: unknown model" -> "model=...: unknown model", "--absa-shard 2of3: write K/N" ->
        "shard='2of3': write K/N")."""
        if not self.keywords:
            return text

        def spelled(found: re.Match) -> str:
            option = BY_FLAG.get(found.group(0).split(" ", 1)[0])
            if option is None:
                return found.group(0)
            if found.group(1) is not None:  # "--absa-shard 2of3: ...", "--absa-baseline b.json, an input"
                return f"{option.keyword}={found.group(1)!r}"
            return f"{option.keyword}=" + ("..." if text[found.end():].startswith(":") else "")
        return FLAG_IN_MESSAGE.sub(spelled, text)


PYTEST = Spelling()
KEYWORDS = Spelling(keywords=True)


def _shown(value: Any) -> str:
    """A value as a keyword argument shows it: numbers and flags as written, anything else as quoted text."""
    return repr(value) if isinstance(value, (bool, int, float)) else repr(str(value))


def from_keywords(given: dict[str, Any]) -> dict[str, Any]:
    """evaluate()'s keyword arguments as option values by keyword, defaults filled in; an unknown keyword is
    one error naming it and the closest option."""
    for key in given:
        if key not in BY_KEYWORD:
            close = difflib.get_close_matches(key, list(BY_KEYWORD), n=1)
            hint = f" (did you mean {close[0]}=?)" if close else ""
            raise AbsaChecksError(f"evaluate(): unknown option {key}={given[key]!r}{hint}; the options are the "
                                  f"pytest options without '--absa-': {', '.join(BY_KEYWORD)}")
    return {key: _typed(option, given[key]) if given.get(key) is not None else option.default
            for key, option in BY_KEYWORD.items()}


def _typed(option: Option, value: Any) -> Any:
    """A keyword's value as pytest's parser would have made it from text; a wrong type is one error."""
    several = option.keyword in SEVERAL
    want = ("True or False" if option.flag else "a whole number" if option.type is int
            else "a number" if option.type is float else f"one of {', '.join(option.choices)}" if option.choices
            else "a text (a name; several as a list of texts)" if several else "a text or a path")
    try:
        if option.flag:
            if isinstance(value, bool):
                return value
        elif option.type is None:
            if isinstance(value, (str, os.PathLike)):
                return value
            if several and isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
                return value
            raise ValueError(value)
        elif not isinstance(value, bool) and isinstance(value, (int, float, str)):
            number = option.type(value)
            if option.type is float or number == value or isinstance(value, str):
                return number
    except ValueError:
        pass
    raise AbsaChecksError(f"evaluate(): {option.keyword}={value!r}: give {want}")


def refuse_empty(values: dict[str, Any], spelling: Spelling = PYTEST) -> None:
    """`--absa-model ""`, `--absa-sources ,`: an empty value would quietly mean the default (or nothing at all),
    so every option given an empty text is an error naming it."""
    for key, value in values.items():
        if isinstance(value, str) and not value.replace(",", " ").strip():
            raise AbsaChecksError(f"{spelling.name(key)} was given an empty value ({value!r}); give it a "
                                  "value, or leave the option out for its default")


def _check_output_path(key: str, value: str | None, spelling: Spelling) -> None:
    """A report path must be writable as a file: checked before the run, not after it."""
    if not value:
        return
    path = Path(value)
    if path.is_dir():
        raise AbsaChecksError(f"{spelling.given(key, value)}: is a folder; name a file in it, e.g. {path / 'report'}"
                              + (".json" if key == "report" else ".md"))
    parent = next((p for p in (path.parent, *path.parent.parents) if p.exists()), None)
    if parent is not None and not parent.is_dir():
        raise AbsaChecksError(f"{spelling.given(key, value)}: {parent} is a file, so the report cannot be written "
                              "there; choose another path")


def read(values: dict[str, Any], rootpath: Path, *, model_alias: str | None = None, verbose: bool = False,
         model_option_is_ours: bool = True, allure_dir: Path | None = None, spelling: Spelling = PYTEST
         ) -> RunOptions:
    """The options, read and checked once (values by keyword, as from_keywords gives them); a mistake names the
    option as `spelling` says (the front door's)."""
    v, s = values, spelling
    alias = model_alias
    if alias and v["model"] and alias != v["model"]:
        raise AbsaChecksError(f"--model {alias} and --absa-model {v['model']} disagree; pass one of them")
    models_file = Path(v["models"]) if v["models"] else rootpath / "models.yaml"
    if v["models"] and models_file.is_dir():
        raise AbsaChecksError(f"{s.given('models', models_file)}: is a folder, not a file; name the models YAML file "
                              "(e.g. models.yaml)")
    if v["models"] and models_file.exists() and not models_file.is_file():
        raise AbsaChecksError(f"{s.given('models', models_file)}: is not a regular file (a device, FIFO or socket); "
                              "name the models YAML file (e.g. models.yaml)")
    if v["models"] and not models_file.is_file():
        raise AbsaChecksError(f"{s.named('models', v['models'])}: {models_file} not found")
    if v["sample"] is not None and v["sample"] < 1:
        raise AbsaChecksError(f"{s.named('sample', v['sample'])} must be at least 1")
    if v["batch_size"] < 1:
        raise AbsaChecksError(f"{s.named('batch_size', v['batch_size'])} must be at least 1")
    if not 0 < v["regression_alpha"] < 1:
        raise AbsaChecksError(f"{s.given('regression_alpha', v['regression_alpha'])}: a significance level is between 0 "
                              "and 1 (default 0.01)")
    if not 0 < v["simple_alpha"] < 1:
        raise AbsaChecksError(f"{s.given('simple_alpha', v['simple_alpha'])}: a significance level is between 0 and 1 "
                              "(default 0.01)")
    if v["simple_baseline"] is not None and v["shard"]:
        raise AbsaChecksError(f"{s.named('simple_baseline', v['simple_baseline'])} with {s.named('shard', v['shard'])}: "
                              "the simple baseline is compared on the "
                              "whole run; run it without shards")
    if not 0 <= v["regression_min_effect"] < 1:
        raise AbsaChecksError(f"{s.given('regression_min_effect', v['regression_min_effect'])}: an ARS drop as a "
                              "fraction, from 0 up to (not including) 1 (default 0.02)")
    if v["data"] is not None and not Path(v["data"]).expanduser().is_dir():
        raise AbsaChecksError(f"{s.given('data', v['data'])}: no such folder; point it at a folder laid out like "
                              "shared/data (or leave it out to run the built-in sources only)")
    for key in ("report", "markdown"):
        _check_output_path(key, v[key], s)
    if v["cache"] and Path(v["cache"]).exists() and not Path(v["cache"]).is_dir():
        raise AbsaChecksError(f"{s.given('cache', v['cache'])}: is a file, not a folder; name a folder (it is created if "
                              "missing)")
    for key, option in BY_KEYWORD.items():  # evaluate() gets no argparse: its choices are checked here
        if option.choices and v[key] not in option.choices:
            raise AbsaChecksError(f"{s.name(key)}{v[key]!r}: choose one of {', '.join(option.choices)}" if s.keywords
                                  else f"{option.flag_name} {v[key]!r}: choose one of {', '.join(option.choices)}")
    try:
        shard = parse_shard(v["shard"]) if v["shard"] else None
    except ValueError as err:
        raise AbsaChecksError(s.message(str(err))) from None
    sources = v["sources"]
    return RunOptions(
        model=v["model"] or alias or registry.DEFAULT_MODEL, models_file=models_file,
        data_dir=resolve_data_dir(v["data"]),
        sources=tuple(s.strip() for s in sources.split(",") if s.strip()) if sources else None,
        sample=v["sample"], seed=v["seed"],
        report=Path(v["report"]) if v["report"] else None, markdown=Path(v["markdown"]) if v["markdown"] else None,
        strict=v["strict"], gate_basis=v["gate_basis"], batch_size=v["batch_size"],
        gate_on=v["gate_on"], inconclusive=v["inconclusive"],
        baseline=Path(v["baseline"]) if v["baseline"] else None,
        regression_alpha=v["regression_alpha"], regression_min_effect=v["regression_min_effect"],
        device=v["device"], verbose=verbose, model_option_is_ours=model_option_is_ours, allure_dir=allure_dir,
        cache_dir=Path(v["cache"] or rootpath / ".absa-cache"), no_cache=v["no_cache"],
        clear_cache=v["clear_cache"], shard=shard, simple_baseline=v["simple_baseline"],
        simple_alpha=v["simple_alpha"], require_claims=v["require_claims"],
        follow_symlinks=v["follow_symlinks"], cross_domain=v["cross_domain"], variants=v["variants"])
