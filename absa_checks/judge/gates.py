"""Release gates: thresholds from the suites, decided on the confidence interval by default.

basis `interval` (default): a gate fails only when the whole 95% interval is on the wrong side of
the threshold, so noise alone does not fail a release; when the interval straddles the threshold
the verdict is "inconclusive" (the run's policy, `--absa-inconclusive`, makes that pass or fail).
basis `point`: the point estimate decides.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from absa_checks.judge.metrics import ARS_STRATEGIES, RateLike, RunMetrics, SourceMetrics
from absa_checks.suites import gate_registry

BASES = ("interval", "point")
CHECKPOINT_RULES = ("mean", "worst")  # several checkpoints: gate the mean across them, or every one
SEVERITY = {"fail": 0, "inconclusive": 1, "pass": 2, "no-data": 3, "report-only": 4, "duplicate": 5}  # worst first
# verdicts that decide nothing: no data; a source of another domain run with --absa-cross-domain; a slice of
# the same sentences as one decided on another source (absa_checks.common.domains, mark_duplicates)
UNDECIDED = ("no-data", "report-only", "duplicate")


def measured_on_cases(name: str) -> bool:
    """Whether gate `name` is measured on the test's own cases (a slice gate: the test's cases in the slice),
    not on the source's units whatever the test (absa_checks.suites.gate_registry)."""
    gate = gate_registry.registry().get(name)
    return gate is not None and gate.on_cases


@dataclass(frozen=True)
class GateResult:
    name: str        # "max_fail_rate", "min_ars", "min_variant_accuracy"
    test: str
    source: str
    threshold: float
    rate: RateLike | None
    basis: str
    verdict: str     # "pass", "fail", "inconclusive" (the interval straddles the threshold) or "no-data"
    reason: str
    checkpoint: str = ""  # several checkpoints: "mean of N", or the checkpoint decided on
    slice: str = ""       # a per-slice gate: its selector ("hard=true")
    measured: str = ""    # "report-only" / "duplicate": the verdict the measurement alone would give
    duplicate_of: str = ""  # "duplicate": the gate that decides these sentences ("arts-laptop hard=true")
    cell: str = ""        # a gate on a cell of the capability x type matrix: "negation mft" (judge.matrix)

    @property
    def label(self) -> str:
        """What the gate measures: "arts-laptop hard=true accuracy (originals)" for a slice gate (not the
        test's strategy: min_accuracy is on the originals), "max_fail_rate arts-laptop (revtgt)" otherwise."""
        short = self.test.split("::")[-1]
        if self.cell:
            return f"{self.name} {self.cell} (capability x type)"
        if not self.slice:
            return f"{self.name} {self.source} ({short})"
        gate = gate_registry.registry().get(self.name)
        what = gate.slice_label if gate is not None and gate.slice_label else self.name
        return f"{self.source} {self.slice} {what}" + (f" ({short})" if measured_on_cases(self.name) else "")

    def to_dict(self) -> dict:
        found = {"gate": self.name, "test": self.test, "source": self.source, "threshold": self.threshold,
                 "basis": self.basis, "verdict": self.verdict, "reason": self.reason,
                 "checkpoint": self.checkpoint, "metric": self.rate.to_dict() if self.rate else None,
                 "label": self.label}
        if self.slice:
            found["slice"] = self.slice
        if self.measured:
            found["measured_verdict"] = self.measured
        if self.duplicate_of:
            found["duplicate_of"] = self.duplicate_of
        if self.cell:
            found["capability"], found["type"] = self.cell.rsplit(" ", 1)
        return found


def report_only(gate: GateResult, why: str) -> GateResult:
    """A gate on a source run report-only (--absa-cross-domain): reported, never counted."""
    if gate.verdict in UNDECIDED:
        return gate
    return replace(gate, verdict="report-only", measured=gate.verdict, reason=f"report-only ({why}): {gate.reason}")


def mark_duplicates(results: list[GateResult], contents: dict[tuple[str, str, str], frozenset]) -> list[GateResult]:
    """A slice gate whose slice holds the same sentences (`contents`: (source, selector, test or "" for the
    gates on all the source's units) -> normalised sentence + target of its units, conclusion.slice_contents)
    as the same gate on a source earlier in name order is decided there once; it is marked "duplicate" with
    `duplicate_of`, so one weakness does not fail three gates."""

    def content_of(gate: GateResult) -> frozenset | None:
        return contents.get((gate.source, gate.slice, gate.test if measured_on_cases(gate.name) else ""))

    deciders: dict[tuple, list[GateResult]] = {}
    marked: dict[int, GateResult] = {}
    order = sorted(range(len(results)), key=lambda i: (results[i].source, results[i].test))
    for i in order:
        gate = results[i]
        content = content_of(gate)
        if not gate.slice or gate.verdict in UNDECIDED or not content:
            continue
        key = (gate.name, gate.slice, gate.threshold, gate.basis,
               gate.test if measured_on_cases(gate.name) else "")
        first = next((g for g in deciders.get(key, []) if content_of(g) == content), None)
        if first is None:
            deciders.setdefault(key, []).append(gate)
            continue
        shown = f"{first.source} {first.slice}"
        marked[i] = replace(gate, verdict="duplicate", measured=gate.verdict, duplicate_of=shown,
                            reason=f"duplicate of {shown} (the same {len(content)} sentences and targets), decided "
                                   f"there: {gate.reason}")
    return [marked.get(i, gate) for i, gate in enumerate(results)]


def evaluate(metrics: RunMetrics, default_basis: str) -> list[GateResult]:
    """Each test's gates (absa_checks.suites.gate_registry), in the registry's order, those on its cases first."""
    ordered = sorted(gate_registry.registry().values(), key=lambda g: not g.on_cases)
    results = []
    for test in metrics.tests:
        gates = test.gates
        basis = gates.get("basis", default_basis)
        source = metrics.sources.get(test.source)
        for gate in ordered:
            if gate.key in gates and gate.measure is not None:
                results.append(_judge(gate, test.test, test.source, gates[gate.key], test, source, basis))
    return results + _slice_gates(metrics, default_basis)


def _judge(gate: gate_registry.Gate, test: str, source_name: str, threshold: float, on_cases: object,
           on_units: SourceMetrics | None, basis: str) -> GateResult:
    """One gate on a test's cases (`on_cases`, its metrics) and its source's units (`on_units`)."""
    if gate.key == "min_ars" and on_units is not None and on_units.ars_partial:
        return _partial_ars(test, on_units, threshold, basis)
    assert gate.measure is not None  # the caller judges only gates with a measure
    return _decide(gate.key, test, source_name, threshold, gate.measure(on_cases, on_units), basis,
                   upper_limit=gate.upper_limit)


def _slice_gates(metrics: RunMetrics, default_basis: str) -> list[GateResult]:
    """Gates a test sets per slice: on the source's units in the slice (min_accuracy, min_ars) or on the
    test's cases in it (max_fail_rate, min_variant_accuracy), with the same interval rules."""
    results = []
    known = gate_registry.registry()
    for test in metrics.tests:
        basis = test.gates.get("basis", default_basis)
        for selector, thresholds in (test.gates.get("slices") or {}).items():
            source = metrics.sources.get(test.source)
            on_units = source.slices.get(selector) if source is not None else None
            on_cases = metrics.slice_tests.get((test.test, test.source, selector))
            for name, threshold in thresholds.items():
                gate = _judge(known[name], test.test, test.source, threshold, on_cases, on_units, basis)
                results.append(replace(gate, slice=selector, reason=f"slice {selector}: {gate.reason}"))
    return results


def extraction_mode(name: str) -> str:
    """The matching an extraction gate reads: min_<level>_f1 strict, _expanded and _flexible their own."""
    return next((mode for mode in ("expanded", "flexible") if name.endswith(f"_{mode}")), "strict")


def evaluate_extraction(results, default_basis: str) -> list[GateResult]:
    """`min_<level>_f1[_expanded|_flexible]` on each extraction test's F1 per source (and checkpoint)."""
    decided = []
    for result in results:
        basis = result.gates.get("basis", default_basis)
        for name, threshold in result.gates.items():
            if name == "basis":
                continue
            level = name[len("min_"):].split("_f1")[0]
            mode = extraction_mode(name)
            rate = result.levels.get(level, {}).get(mode, {}).get("f1")
            gate = _decide(name, result.test, result.source, threshold, rate, basis, upper_limit=False)
            decided.append(replace(gate, checkpoint=result.model if len({r.model for r in results}) > 1 else ""))
    return decided


def evaluate_checkpoints(per_model: dict[str, RunMetrics], mean: RunMetrics, default_basis: str,
                         rule: str, report_only_pairs: frozenset = frozenset()) -> list[GateResult]:
    """Gates over several checkpoints: on the mean across them (its interval covers seed and test-set
    noise), or on the worst checkpoint (each decided on its own interval; the worst verdict counts)."""
    count = len(per_model)
    if rule == "mean":
        return [replace(g, checkpoint=f"mean of {count}", reason=f"mean of {count} checkpoints: {g.reason}")
                for g in evaluate(mean, default_basis)]
    if rule != "worst":
        raise ValueError(f"unknown checkpoint rule {rule!r}; use one of {', '.join(CHECKPOINT_RULES)}")
    by_gate: dict[tuple[str, str, str, str], list[tuple[str, GateResult]]] = {}
    for model, metrics in per_model.items():
        for gate in evaluate(metrics, default_basis):
            if (model, gate.source) in report_only_pairs:  # its own domains decide: the others are reported
                gate = report_only(gate, f"{gate.source} is of another domain than {model}")
            by_gate.setdefault((gate.name, gate.test, gate.source, gate.slice), []).append((model, gate))
    results = []
    for found in by_gate.values():
        def badness(pair: tuple[str, GateResult]) -> tuple[int, float]:
            gate = pair[1]
            value = gate.rate.value if gate.rate is not None and gate.rate.n else 0.0
            return SEVERITY[gate.verdict], (-value if gate.name.startswith("max_") else value)

        model, worst = min(found, key=badness)
        results.append(replace(worst, checkpoint=model,
                               reason=f"worst of {count} checkpoints, {model}: {worst.reason}"))
    return results


def _partial_ars(test: str, source: SourceMetrics, threshold: float, basis: str) -> GateResult:
    """An ARS over fewer strategies than ARTS's is another, easier quantity: never judged as ARS."""
    lost = [s for s in ARS_STRATEGIES if s not in source.ars_covers and s in source.ars_lost_to_errors]
    missing = [s for s in ARS_STRATEGIES if s not in source.ars_covers and s not in lost]
    covers = ", ".join(source.ars_covers) or "no strategy"
    why = []
    if lost:  # they ran: their units were left out because one of their cases has no prediction
        why.append(f"every {', '.join(lost)} case is in a unit with a case that has no prediction (an error; "
                   f"{source.units_with_errors} units left out of ARS): fix the model's errors and run again")
    if missing:
        why.append(f"no {', '.join(missing)} case was run: deselected with -m/-k, or not in the suites collected")
    return GateResult("min_ars", test, source.source, threshold, source.ars, basis, "fail",
                      f"not decided: ARS here is partial, it covers {covers} only ({'; '.join(why)}); the ARS gate "
                      f"needs all of {', '.join(ARS_STRATEGIES)}")


def decide(name: str, test: str, source: str, threshold: float, rate: RateLike | None, basis: str,
           upper_limit: bool) -> GateResult:
    """One threshold on one rate, by the interval rule (or the point, `basis`); "no-data" without a case."""
    return _decide(name, test, source, threshold, rate, basis, upper_limit)


def _decide(name: str, test: str, source: str, threshold: float, rate: RateLike | None, basis: str,
            upper_limit: bool) -> GateResult:
    known = gate_registry.registry().get(name)
    mode = extraction_mode(name)
    label = known.label if known is not None else f"{'' if mode == 'strict' else mode + ' '}" \
        f"{name[len('min_'):].split('_f1')[0]} F1"  # min_pair_f1 -> "pair F1", min_pair_f1_expanded -> "expanded pair F1"
    if rate is None or rate.n == 0:
        return GateResult(name, test, source, threshold, rate, basis, "no-data", f"no scored cases for {label}")
    value = rate.value
    if basis == "point":
        bad = value > threshold if upper_limit else value < threshold
        shown = f"{label} {value:.2%}"
    else:
        bad = rate.low > threshold if upper_limit else rate.high < threshold
        shown = f"{label} {value:.2%} [95% CI {rate.low:.2%}, {rate.high:.2%}]"
        if not bad and rate.low <= threshold <= rate.high:
            side = "above" if (value > threshold) == upper_limit else "within"
            return GateResult(name, test, source, threshold, rate, basis, "inconclusive",
                              f"{shown} straddles the {threshold:.2%} limit (point estimate {side} it): "
                              "more cases would decide")
    relation = "above" if upper_limit else "below"
    ok_relation = "at most" if upper_limit else "at least"
    if bad:
        return GateResult(name, test, source, threshold, rate, basis, "fail",
                          f"{shown} is {relation} the {threshold:.2%} limit")
    return GateResult(name, test, source, threshold, rate, basis, "pass",
                      f"{shown}: {ok_relation} {threshold:.2%}" + (" within the interval" if basis == "interval" else ""))
