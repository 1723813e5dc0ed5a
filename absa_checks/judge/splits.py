"""Splits x seeds: every metric per split, overall, and its variance between and within splits.

A models.yaml group may be nested, `splits: {split-1: [s1, s2, s3], split-2: [...]}`: the checkpoints
of one split share a train/validation split and differ in the seed. For one metric with value x[s][i]
(split s of S, seed i of n_s, N values in all):

    split mean        m_s     = mean_i x[s][i]
    overall mean      m       = mean of all N values
    between-split     B       = sum_s (m_s - mean_s m_s)^2 / (S - 1)      (sample variance of the split means)
    within-split      W       = sum_s sum_i (x[s][i] - m_s)^2 / (N - S)   (pooled sample variance in a split)

B needs two splits, W a split with two seeds; otherwise it is not defined (None). With equal seeds per
split, B estimates the split variance plus W / n (the seeds' noise left in a split mean).

A checkpoint the group names that measured nothing for a metric (every prediction raised, or its cases were
deselected) makes that metric's row partial: the checkpoint is named with why, and B, W and the std are not
decided (None), never computed from fewer checkpoints than named.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from absa_checks.judge.metrics import RunMetrics
from absa_checks.judge.outcomes import CaseOutcome


@dataclass(frozen=True)
class SplitStats:
    name: str
    values: tuple[float, ...]
    mean: float
    std: float | None  # sample std of the seeds (None with one seed)


@dataclass(frozen=True)
class Decomposition:
    splits: tuple[SplitStats, ...]
    mean: float
    std: float | None      # sample std of all values
    between: float | None  # variance of the split means
    within: float | None   # pooled within-split variance
    missing: tuple[tuple[str, str], ...] = ()  # (checkpoint, why): named by the group, measured nothing here

    @property
    def partial(self) -> bool:
        return bool(self.missing)

    def to_dict(self) -> dict[str, Any]:
        return {"per_split": {s.name: {"mean": s.mean, "std": s.std, "values": list(s.values)} for s in self.splits},
                "mean": self.mean, "std": self.std, "between_split_variance": self.between,
                "within_split_variance": self.within,
                "between_split_std": math.sqrt(self.between) if self.between is not None else None,
                "within_split_std": math.sqrt(self.within) if self.within is not None else None,
                "partial": self.partial, "missing": dict(self.missing)}


def decompose(values: dict[str, list[float]]) -> Decomposition:
    """The decomposition of one metric's values, split name -> the seeds' values (see the module doc)."""
    splits = tuple(SplitStats(name, tuple(found), math.fsum(found) / len(found),
                              statistics.stdev(found) if len(found) > 1 else None)
                   for name, found in values.items() if found)
    every = [v for s in splits for v in s.values]
    if not every:
        raise ValueError("no values to decompose")
    means = [s.mean for s in splits]
    between = statistics.variance(means) if len(means) > 1 else None
    free = len(every) - len(splits)
    within = math.fsum((v - s.mean) ** 2 for s in splits for v in s.values) / free if free > 0 else None
    return Decomposition(splits, math.fsum(every) / len(every), statistics.stdev(every) if len(every) > 1 else None,
                         between, within)


def _metric_getters(metrics: RunMetrics) -> dict[tuple[str, str], Callable[[RunMetrics], Any]]:
    """(source, metric name) -> how to read that rate from one checkpoint's metrics."""
    getters: dict[tuple[str, str], Callable[[RunMetrics], Any]] = {}
    for name, source in metrics.sources.items():
        getters[(name, "original accuracy")] = _reader(name, None, "original_accuracy")
        getters[(name, "ARS")] = _reader(name, None, "ars")
        for strategy in source.strategies:
            getters[(name, f"{strategy} fail rate")] = _reader(name, strategy, "fail_rate")
            getters[(name, f"{strategy} variant accuracy")] = _reader(name, strategy, "variant_accuracy")
    return getters


def _reader(source: str, strategy: str | None, rate: str) -> Callable[[RunMetrics], Any]:
    """How to read one rate of a source (or of one strategy on it) from a checkpoint's metrics."""
    def read(metrics: RunMetrics) -> Any:
        found = metrics.sources[source]
        return getattr(found if strategy is None else found.strategies[strategy], rate)
    return read


def unmeasured(by_model: Mapping[str, Sequence[CaseOutcome]], splits: dict[str, list[str]]) -> dict[str, str]:
    """checkpoint -> why it may have measured nothing, for each checkpoint the group names: no case of the run
    ran on it, or how many of its cases had no prediction and the first one's error (its first line)."""
    found = {}
    for model in (m for members in splits.values() for m in members):
        mine = by_model.get(model, ())
        errors = [o for o in mine if o.status == "error"]
        if not mine:
            found[model] = "no case of the run ran on it, deselected or not collected"
        elif errors:
            first = errors[0].reason.splitlines()[0].split(" (traceback shown")[0] if errors[0].reason else "no reason"
            found[model] = f"{len(errors)} of its {len(mine)} cases had no prediction: {first}"
    return found


def by_metric(per_model: dict[str, RunMetrics], mean: RunMetrics, splits: dict[str, list[str]],
              why: Mapping[str, str] | None = None) -> dict[tuple[str, str], Decomposition]:
    """(source, metric) -> its decomposition over the checkpoints the group names; a checkpoint that measured
    nothing for it is named with why (`why`, from `unmeasured`) and makes the row partial: no variance then."""
    result = {}
    for key, get in _metric_getters(mean).items():
        values: dict[str, list[float]] = {}
        missing: list[tuple[str, str]] = []
        for split, members in splits.items():
            found = []
            for model in members:
                try:
                    rate = get(per_model[model])
                except KeyError:  # deselected, or this checkpoint ran no such case
                    rate = None
                if rate is not None and rate.n:
                    found.append(rate.value)
                else:
                    missing.append((model, (why or {}).get(model, f"it measured no case for {key[1]} on {key[0]}")))
            values[split] = found
        if any(values.values()):
            decomposition = decompose(values)
            result[key] = replace(decomposition, std=None, between=None, within=None, missing=tuple(missing)) \
                if missing else decomposition
    return result


def not_decided(found: dict[tuple[str, str], Decomposition] | None) -> str:
    """One line naming the checkpoints a partial splits table lacks and why ("" when none is partial)."""
    missing = dict(pair for d in (found or {}).values() for pair in d.missing)
    if not missing:
        return ""
    return ("the splits x seeds variance is not decided: " + "; ".join(f"{model} measured nothing ({why})"
                                                                       for model, why in missing.items())
            + "; fix or run every checkpoint the group names")


def to_report(found: dict[tuple[str, str], Decomposition], splits: dict[str, list[str]]) -> dict[str, Any]:
    """The JSON report's `splits`: the layout, and per source and metric the decomposition."""
    sources: dict[str, dict[str, Any]] = {}
    for (source, metric), decomposition in found.items():
        sources.setdefault(source, {})[metric] = decomposition.to_dict()
    return {"splits": {name: list(members) for name, members in splits.items()},
            "formula": "between = sample variance of the split means; within = sum of squared deviations "
                       "from each split's mean / (N - S)",
            "sources": sources}


def rows(found: dict[tuple[str, str], Decomposition], names: list[str]) -> list[tuple[str, ...]]:
    """Table rows: source, metric, each split's mean±std, overall mean±std, between and within std."""
    def pct(value: float | None) -> str:
        return f"{100 * value:.2f}" if value is not None else "-"

    def sd(variance: float | None) -> str:
        return pct(math.sqrt(variance)) if variance is not None else "-"

    result = []
    for (source, metric), d in found.items():
        have = {s.name: s for s in d.splits}
        per_split = [("-" if (s := have.get(name)) is None else
                      f"{pct(s.mean)}±{pct(s.std)}" if s.std is not None else pct(s.mean)) for name in names]
        if d.partial:
            without = "partial, without " + ", ".join(model for model, _ in d.missing)
            result.append((source, metric, *per_split, f"{pct(d.mean)} ({without})", "not decided", "not decided"))
        else:
            result.append((source, metric, *per_split, f"{pct(d.mean)}±{pct(d.std)}", sd(d.between), sd(d.within)))
    return result
