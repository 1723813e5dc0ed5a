"""Claims in models.yaml (published or promised numbers): parsed into `Claim`s; checked in
absa_checks.judge.claims."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Any

from absa_checks.common.errors import AbsaChecksError
from absa_checks.suites.strategies import registry

BASE_METRICS = ("accuracy", "ars")
STRATEGY_SUFFIXES = ("_accuracy", "_fail_rate")  # revtgt_accuracy: variant accuracy; revtgt_fail_rate


@dataclass(frozen=True)
class Claim:
    subject: str   # the model or group that claims it
    source: str
    metric: str    # accuracy, ars, <strategy>_accuracy, <strategy>_fail_rate
    value: float   # a fraction


def parse(raw: Any, subject: str, origin: str) -> tuple[Claim, ...]:
    """The claims of one models.yaml entry; AbsaChecksError naming the file, the entry and the fix."""
    where = f"{origin}: '{subject}': claims"
    found = [raw] if isinstance(raw, dict) else raw
    if not isinstance(found, list) or not found or not all(isinstance(item, dict) for item in found):
        raise AbsaChecksError(f"{where} must be a mapping like {{source: arts-restaurant, accuracy: 0.867, "
                              "ars: 0.593}, or a list of them")
    claims: list[Claim] = []
    first: dict[tuple[str, str], tuple[int, float]] = {}  # (source, metric) -> (its claim's number, value)
    for number, item in enumerate(found, 1):
        source = item.get("source")
        if not isinstance(source, str) or not source:
            raise AbsaChecksError(f"{where} needs 'source:' (the source the numbers were measured on, "
                                  "e.g. arts-restaurant)")
        numbers = {key: value for key, value in item.items() if key != "source"}
        if not numbers:
            raise AbsaChecksError(f"{where} for {source} names no number; give e.g. accuracy: 0.867 or ars: 0.593")
        for metric, value in numbers.items():
            if not _known_metric(str(metric)):
                raise AbsaChecksError(f"{where}: unknown metric '{metric}'; {_did_you_mean(str(metric))}claims "
                                      f"take {', '.join(known_metrics())} (<strategy>_accuracy and "
                                      "<strategy>_fail_rate for any strategy, or chain of them, a suite runs)")
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
                hint = f" (write {value / 100:g} for {value}%)" if isinstance(value, (int, float)) \
                    and not isinstance(value, bool) and 1 < value <= 100 else ""
                raise AbsaChecksError(f"{where}: {metric}: {value!r} is not a fraction between 0 and 1{hint}")
            said = first.setdefault((source, str(metric)), (number, float(value)))
            if said[1] != float(value):  # which one would the readiness report believe?
                raise AbsaChecksError(f"{where}: {metric} on {source} is claimed twice, {said[1]:g} (claim "
                                      f"{said[0]}) and {float(value):g} (claim {number}); keep the one that was "
                                      "published")
            if said[0] == number:  # the same number said again is one claim
                claims.append(Claim(subject, source, str(metric), float(value)))
    return tuple(claims)


def known_metrics() -> list[str]:
    """The metrics a claim may name: accuracy, ars, and each strategy's variant accuracy and fail rate."""
    return [*BASE_METRICS, *(f"{name}{suffix}" for name in (*registry(), "template") for suffix in STRATEGY_SUFFIXES)]


def _did_you_mean(name: str) -> str:
    hint = difflib.get_close_matches(name, known_metrics(), n=1)
    return f"did you mean '{hint[0]}'? " if hint else ""


def _known_metric(name: str) -> bool:
    """accuracy, ars, or <strategy>_accuracy / <strategy>_fail_rate where the strategy is one a report names:
    a registered strategy, a chain of them (revnon+adddiff), with its parameters (adddiff(k=3)), or a template
    test (template:<type>). A misspelt strategy would otherwise be a claim no run can ever measure."""
    if name in BASE_METRICS:
        return True
    for suffix in STRATEGY_SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            parts = name[: -len(suffix)].split("+")
            return all(re.split(r"[(:]", part, maxsplit=1)[0] in (*registry(), "template") for part in parts)
    return False
