"""Slice selectors for gates: which units a per-slice gate is decided on.

A selector names one or more conditions on a unit's slices, joined by commas (all must hold):
`hard=true`, `aspects=multi`, `gold=negative`, `opposite_others>=1`, `aspects=multi,gold=positive`.
Kinds: aspects (single, multi), hard (true, false), gold (positive, negative, neutral) and
opposite_others (a count: =, >=, <=, >, <).
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass
from typing import Any

VALUES = {"aspects": ("single", "multi"), "hard": ("true", "false"), "gold": ("positive", "negative", "neutral")}
COUNTS = ("opposite_others",)
_OPS = {">=": operator.ge, "<=": operator.le, "=": operator.eq, ">": operator.gt, "<": operator.lt}
_CONDITION = re.compile(r"^\s*([a-z_]+)\s*(>=|<=|=|>|<)\s*([A-Za-z0-9_]+)\s*$")


@dataclass(frozen=True)
class Condition:
    kind: str
    op: str
    value: str

    def holds(self, slices: dict[str, Any]) -> bool:
        if self.kind not in slices:
            return False
        found = slices[self.kind]
        if self.kind in COUNTS:
            return _OPS[self.op](int(found), int(self.value))
        return str(found).lower() == self.value


def parse(text: str) -> tuple[Condition, ...]:
    """The conditions of a selector; ValueError with the fix when it is not one."""
    conditions = []
    for part in str(text).split(","):
        match = _CONDITION.match(part)
        if not match:
            raise ValueError(f"slice {text!r}: '{part.strip()}' is not kind=value or opposite_others>=N; "
                             "e.g. hard=true, aspects=multi, opposite_others>=1")
        kind, op, value = match.group(1), match.group(2), match.group(3).lower()
        if kind in COUNTS:
            if not value.isdigit():
                raise ValueError(f"slice {text!r}: {kind} is a count; write e.g. {kind}>=1")
        elif kind in VALUES:
            if op != "=":
                raise ValueError(f"slice {text!r}: {kind} takes '=' (one of {', '.join(VALUES[kind])})")
            if value not in VALUES[kind]:
                raise ValueError(f"slice {text!r}: {kind} is one of {', '.join(VALUES[kind])}, not '{value}'")
        else:
            raise ValueError(f"slice {text!r}: unknown slice kind '{kind}'; slices are "
                             f"{', '.join((*VALUES, *COUNTS))}")
        conditions.append(Condition(kind, op, value))
    contradiction = _contradiction(conditions)
    if contradiction:  # no unit can be in it: its gate would be no-data, i.e. never decided
        raise ValueError(f"slice {text!r} contradicts itself ({contradiction}), so no unit can be in it; "
                         "keep one of the conditions")
    return tuple(conditions)


def _contradiction(conditions: list[Condition]) -> str:
    """Why no unit can meet all of `conditions` ("hard=true and hard=false"), or "" when one can."""
    for kind in VALUES:
        said = list(dict.fromkeys(f"{c.kind}={c.value}" for c in conditions if c.kind == kind))
        if len(said) > 1:
            return " and ".join(said)
    for kind in COUNTS:
        bounds = [c for c in conditions if c.kind == kind]
        low, high = 0, None  # the counts every condition allows: low <= count <= high
        for c in bounds:
            n = int(c.value)
            low = max(low, {"=": n, ">=": n, ">": n + 1}.get(c.op, low))
            cap = {"=": n, "<=": n, "<": n - 1}.get(c.op)
            high = cap if cap is not None and (high is None or cap < high) else high
        if high is not None and low > high:
            return " and ".join(f"{c.kind}{c.op}{c.value}" for c in bounds)
    return ""


def canonical(text: str) -> str:
    """One spelling per selector ("hard = True" -> "hard=true"), the key of its row in the slice tables."""
    return ",".join(f"{c.kind}{c.op}{c.value}" for c in parse(text))


def matches(selector: str, slices: dict[str, Any]) -> bool:
    return all(condition.holds(slices) for condition in parse(selector))
