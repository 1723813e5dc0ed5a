"""A suite file's gates, read and validated: `GateSpec` (release thresholds as fractions), a test's `gates:`
with its per-slice `slices:` (merged over the gates under `defaults:`), and the suite-level `gates: {capabilities:
...}` on cells of the capability x type matrix. Every error names the file, the line and the key; the gates are
judged by absa_checks.judge.gates (cells: absa_checks.judge.matrix).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from absa_checks.suites import gate_registry
from absa_checks.suites import slices as slices_module
from absa_checks.suites.matrix_spec import TEST_TYPES, capability_name
from absa_checks.suites.yaml_checks import Checker

GATE_BASES = ("interval", "point")
SUITE_GATE_KEYS = ("capabilities", "basis")  # the suite-level `gates:`
CAPABILITY_GATE_KEYS = ("max_fail_rate", "basis")  # a cell's gates


@dataclass(frozen=True)
class GateSpec:
    """Release thresholds, as fractions in [0, 1], on the gates of absa_checks.suites.gate_registry. `basis` None
    means the run's default."""

    thresholds: tuple[tuple[str, float], ...] = ()  # (gate key, threshold), in the registry's order
    basis: str | None = None
    # per-slice gates: (selector, its thresholds) pairs, e.g. ("hard=true", (("min_accuracy", 0.7),))
    slices: tuple[tuple[str, tuple[tuple[str, float], ...]], ...] | None = None
    # the suite's gates on cells of the capability x type matrix (the suite-level `gates: {capabilities: ...}`),
    # carried by each of its tests so they travel with the cases (judge.matrix): ((capability, type, basis or
    # "", ((gate, threshold), ...)), ...)
    capabilities: tuple[tuple[str, str, str, tuple[tuple[str, float], ...]], ...] | None = None

    @classmethod
    def of(cls, basis: str | None = None, slices: tuple | None = None, capabilities: tuple | None = None,
           **thresholds: float) -> GateSpec:
        """`GateSpec.of(max_fail_rate=0.2, basis="point")`: the thresholds by their keys, in any order."""
        order = {key: i for i, key in enumerate(gate_registry.registry())}
        kept = sorted(((k, v) for k, v in thresholds.items() if v is not None), key=lambda kv: order.get(kv[0], len(order)))
        return cls(tuple(kept), basis, slices, capabilities)

    def threshold(self, key: str) -> float | None:
        return dict(self.thresholds).get(key)

    def is_empty(self) -> bool:
        return not self.thresholds and self.slices is None

    def to_dict(self) -> dict[str, Any]:
        found: dict[str, Any] = dict(self.thresholds)
        if self.basis is not None:
            found["basis"] = self.basis
        if self.slices:
            found["slices"] = {selector: dict(thresholds) for selector, thresholds in self.slices}
        if self.capabilities:  # {capability: {type: {max_fail_rate: 0.2, basis: "point"}}}
            cells: dict[str, dict[str, dict[str, Any]]] = {}
            for capability, kind, basis, thresholds in self.capabilities:
                cells.setdefault(capability, {})[kind] = {**dict(thresholds), **({"basis": basis} if basis else {})}
            found["capabilities"] = cells
        return found

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GateSpec:
        slices = data.get("slices")
        cells = data.get("capabilities")
        return cls.of(**{**data, "slices": tuple((selector, tuple(thresholds.items()))
                                                 for selector, thresholds in slices.items()) if slices else None,
                         "capabilities": tuple(
                             (capability, kind, found.get("basis", ""),
                              tuple((k, v) for k, v in found.items() if k != "basis"))
                             for capability, kinds in cells.items() for kind, found in kinds.items())
                         if cells else None})


def merged_gates(check: Checker, defaults: dict, test: dict, at: tuple) -> GateSpec:
    """A test's gates: those under `defaults:`, each replaced by the test's own where it sets it."""
    default_gates = parse_gates(check, defaults.get("gates"), ("defaults", "gates"))
    own_gates = parse_gates(check, test.get("gates"), at + ("gates",))
    return GateSpec.from_dict({**default_gates.to_dict(), **own_gates.to_dict()})


def parse_gates(check: Checker, raw: Any, at: tuple) -> GateSpec:
    """One `gates:` mapping, a test's or the one under `defaults:` (cell gates belong to the suite's own)."""
    if isinstance(raw, dict) and "capabilities" in raw:
        raise check.fail(at + ("capabilities",), "gates on the capability x type matrix span the run's tests: put "
                                                 "'capabilities' under the suite's top-level 'gates:' (docs/suites.md)")
    allowed = gate_registry.per_test_keys()
    gates = check.mapping(raw if raw is not None else {}, at, allowed)
    values: dict[str, Any] = {key: check.fraction(gates[key], at + (key,)) for key in allowed
                              if key not in gate_registry.GATE_SETTINGS and key in gates}
    basis = check.choice(gates["basis"], at + ("basis",), GATE_BASES) if "basis" in gates else None
    sliced = _parse_slice_gates(check, gates["slices"], at + ("slices",)) if "slices" in gates else None
    return GateSpec.of(basis=basis, slices=sliced, **values)


def _parse_slice_gates(check: Checker, raw: Any, at: tuple) -> tuple:
    """`slices: {hard=true: {min_accuracy: 0.7}, opposite_others>=1: {max_fail_rate: 0.3}}`."""
    selectors = check.mapping(raw, at, tuple(raw) if isinstance(raw, dict) else ())
    if not selectors:
        raise check.fail(at, "'slices' names no slice; e.g. slices: {hard=true: {min_accuracy: 0.7}}")
    found = []
    for selector, thresholds in selectors.items():
        try:
            key = slices_module.canonical(str(selector))
        except ValueError as err:
            raise check.fail(at + (selector,), str(err)) from None
        given = check.mapping(thresholds, at + (selector,), gate_registry.slice_keys())
        if not given:
            raise check.fail(at + (selector,), f"slice {selector!r} has no gate; give one of "
                                               f"{', '.join(gate_registry.slice_keys())}")
        found.append((key, tuple((name, check.fraction(value, at + (selector, name)))
                                 for name, value in given.items())))
    return tuple(found)


def parse_suite_gates(check: Checker, raw: Any) -> tuple | None:
    """The suite-level `gates: {basis: point, capabilities: {negation: {mft: {max_fail_rate: 0.2}}}}`: gates on
    cells of the run's capability x type matrix (judge.matrix)."""
    at: tuple = ("gates",)
    gates = check.mapping(raw if raw is not None else {}, at, SUITE_GATE_KEYS)
    basis = check.choice(gates["basis"], at + ("basis",), GATE_BASES) if "basis" in gates else ""
    if "capabilities" not in gates:
        if gates:
            raise check.fail(at, "the suite-level 'gates' holds 'capabilities' (e.g. capabilities: {negation: {mft: "
                                 "{max_fail_rate: 0.2}}}); a test's own gates go under the test or 'defaults'")
        return None
    at += ("capabilities",)
    raw_cells = gates["capabilities"]
    capabilities = check.mapping(raw_cells, at, tuple(raw_cells) if isinstance(raw_cells, dict) else ())
    if not capabilities:
        raise check.fail(at, "'gates.capabilities' names no capability; e.g. capabilities: {negation: {mft: "
                             "{max_fail_rate: 0.2}}}")
    found = []
    for capability, kinds in capabilities.items():
        c_at = at + (capability,)
        shown = capability_name(check.string(capability, c_at))
        kinds = check.mapping(kinds, c_at, tuple(kinds) if isinstance(kinds, dict) else ())
        for key in kinds:  # MFT, INV, DIR in any case, as in the test's `type`; a misspelt one named with the fix
            check.choice(str(key).lower(), c_at + (key,), TEST_TYPES)
        if not kinds:
            raise check.fail(c_at, f"capability {capability!r} has no test type; give one of {', '.join(TEST_TYPES)}, "
                                   "e.g. {mft: {max_fail_rate: 0.2}}")
        for written_kind, thresholds in kinds.items():
            kind, t_at = str(written_kind).lower(), c_at + (written_kind,)
            thresholds = check.mapping(thresholds, t_at, CAPABILITY_GATE_KEYS)
            if "max_fail_rate" not in thresholds:
                raise check.fail(t_at, f"'{check.name(t_at)}' has no gate; give max_fail_rate (a fraction, e.g. 0.2)")
            own = check.choice(thresholds["basis"], t_at + ("basis",), GATE_BASES) if "basis" in thresholds else basis
            found.append((shown, kind, own, (("max_fail_rate",
                                              check.fraction(thresholds["max_fail_rate"], t_at + ("max_fail_rate",))),)))
    return tuple(found)
