"""Claims in models.yaml (published or promised numbers): parsed into `Claim`s; checked in
absa_checks.judge.claims."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from absa_checks.common.errors import AbsaChecksError

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
    claims = []
    for item in found:
        source = item.get("source")
        if not isinstance(source, str) or not source:
            raise AbsaChecksError(f"{where} needs 'source:' (the source the numbers were measured on, "
                                  "e.g. arts-restaurant)")
        numbers = {key: value for key, value in item.items() if key != "source"}
        if not numbers:
            raise AbsaChecksError(f"{where} for {source} names no number; give e.g. accuracy: 0.867 or ars: 0.593")
        for metric, value in numbers.items():
            if not _known_metric(str(metric)):
                raise AbsaChecksError(f"{where}: unknown metric '{metric}'; claims take accuracy, ars, "
                                      "<strategy>_accuracy (e.g. revtgt_accuracy) or <strategy>_fail_rate")
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
                hint = f" (write {value / 100:g} for {value}%)" if isinstance(value, (int, float)) \
                    and not isinstance(value, bool) and 1 < value <= 100 else ""
                raise AbsaChecksError(f"{where}: {metric}: {value!r} is not a fraction between 0 and 1{hint}")
            claims.append(Claim(subject, source, str(metric), float(value)))
    return tuple(claims)


def _known_metric(name: str) -> bool:
    return name in BASE_METRICS or any(name.endswith(s) and len(name) > len(s) for s in STRATEGY_SUFFIXES)
