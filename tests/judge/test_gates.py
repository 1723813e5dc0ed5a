"""Tests for absa_checks/judge/gates.py (thresholds on interval or point) and absa_checks/judge/verdict.py (exit status).

Rates are built by hand with their 95% intervals worked out in the comments (Wilson: see
tests/judge/test_stats.py for the arithmetic; bootstrap-exact: binomial quantiles).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from absa_checks.judge import metrics as metrics_module
from absa_checks.judge.gates import GateResult, evaluate
from absa_checks.judge.metrics import RunMetrics, SourceMetrics
from absa_checks.judge.stats import Rate, clopper_pearson, wilson
from absa_checks.judge.verdict import decide

TEST = "suites/s.yaml::revnon"

# Wilson 3/10 = [.1078, .6032] (p = .3)
FAIL_3_OF_10 = Rate(3, 10, 0.1078, 0.6032, "wilson")
# Wilson 8/10 = [.4902, .9433]
FAIL_8_OF_10 = Rate(8, 10, 0.4902, 0.9433, "wilson")
# Wilson 2/10 = [.0567, .5098]: centre (.2 + .192073)/1.384146 = .283260, half 1.416009*sqrt(.016+.0096036) = .226577
FAIL_2_OF_10 = Rate(2, 10, 0.0567, 0.5098, "wilson")
# Wilson 7/10 = [.3968, .8922] (mirror of 3/10)
ACC_7_OF_10 = Rate(7, 10, 0.3968, 0.8922, "wilson")
ACC_2_OF_10 = FAIL_2_OF_10
# Clopper-Pearson ARS 2/10: Beta(2, 9) at .025 = .0252, Beta(3, 8) at .975 = .5561 (R: binom.test(2, 10))
ARS_2_OF_10 = Rate(2, 10, 0.0252, 0.5561, "clopper-pearson")
# ARS 0/10: [0, 1 - .025 ** (1/10)] = [0, .3085]; never the zero-width [0, 0] of a bootstrap
ARS_0_OF_10 = Rate(0, 10, 0.0, 0.3085, "clopper-pearson")
EMPTY = Rate(0, 0, float("nan"), float("nan"), "wilson")


def run(*, gates: dict, fail_rate: Rate = FAIL_2_OF_10, variant_accuracy: Rate = ACC_7_OF_10,
        ars: Rate | None = ARS_2_OF_10, source: str = "alpha", failed: int = 0, errors: int = 0,
        cases: int = 10) -> RunMetrics:
    sources = {}
    if ars is not None:
        sources[source] = SourceMetrics(source, ars.n, 0, Rate(ars.n, ars.n, 0.7, 1.0, "wilson") if ars.n else EMPTY,
                                        ars)
    test = metrics_module.TestMetrics(TEST, source, "revnon", "unchanged", fail_rate.n, fail_rate.k, 0, fail_rate,
                       variant_accuracy, gates)
    return RunMetrics(sources, [test], cases, cases - failed - errors, failed, errors)


def only(results: list[GateResult]) -> GateResult:
    assert len(results) == 1
    return results[0]


# --- max_fail_rate ------------------------------------------------------------------------------

def test_fail_rate_straddling_threshold():
    # 3/10 = .30 > .20, but the interval [.1078, .6032] contains .20
    metrics = run(gates={"max_fail_rate": 0.2}, fail_rate=FAIL_3_OF_10)
    point = only(evaluate(metrics, "point"))
    assert (point.name, point.test, point.source, point.threshold) == ("max_fail_rate", TEST, "alpha", 0.2)
    assert (point.basis, point.verdict) == ("point", "fail")
    assert point.rate == FAIL_3_OF_10
    interval = only(evaluate(metrics, "interval"))
    assert (interval.basis, interval.verdict) == ("interval", "inconclusive")


def test_fail_rate_wholly_above_threshold():
    # 8/10: the whole interval [.4902, .9433] is above .20
    metrics = run(gates={"max_fail_rate": 0.2}, fail_rate=FAIL_8_OF_10)
    assert only(evaluate(metrics, "point")).verdict == "fail"
    result = only(evaluate(metrics, "interval"))
    assert result.verdict == "fail"
    assert "above" in result.reason and "20.00%" in result.reason


def test_fail_rate_below_threshold_passes():
    # 2/10 = .20 is at most .30 (point); interval high .5098 > .30 but low .0567 is not above -> pass
    metrics = run(gates={"max_fail_rate": 0.3}, fail_rate=FAIL_2_OF_10)
    assert only(evaluate(metrics, "point")).verdict == "pass"
    assert only(evaluate(metrics, "interval")).verdict == "inconclusive"


def test_fail_rate_at_threshold_passes_on_point():
    # 2/10 = .20 and the limit is .20: "at most" -> pass
    metrics = run(gates={"max_fail_rate": 0.2}, fail_rate=FAIL_2_OF_10)
    assert only(evaluate(metrics, "point")).verdict == "pass"


# --- min_ars ------------------------------------------------------------------------------------

def test_min_ars_straddling_threshold():
    # ARS 2/10 = .20 < .30, interval [.0252, .5561] contains .30
    metrics = run(gates={"min_ars": 0.3}, ars=ARS_2_OF_10)
    point = only(evaluate(metrics, "point"))
    assert (point.name, point.source, point.verdict) == ("min_ars", "alpha", "fail")
    assert point.rate == ARS_2_OF_10
    assert only(evaluate(metrics, "interval")).verdict == "inconclusive"


def test_min_ars_none_right_of_ten_is_not_a_certain_fail():
    # ARS 0/10, interval [0, .3085]: ten units cannot rule out an ARS of .30 (a bootstrap's [0, 0] did)
    metrics = run(gates={"min_ars": 0.3}, ars=ARS_0_OF_10)
    assert only(evaluate(metrics, "point")).verdict == "fail"
    assert only(evaluate(metrics, "interval")).verdict == "inconclusive"


def test_min_ars_wholly_below_threshold():
    # ARS 0/10, interval [0, .3085], wholly below .50
    metrics = run(gates={"min_ars": 0.5}, ars=ARS_0_OF_10)
    result = only(evaluate(metrics, "interval"))
    assert result.verdict == "fail"
    assert "below" in result.reason


def test_min_ars_on_a_partial_ars_is_not_judged_as_ars():
    metrics = run(gates={"min_ars": 0.1}, ars=ARS_2_OF_10)
    partial = replace(metrics.sources["alpha"], ars_covers=("revtgt", "adddiff"))
    metrics = replace(metrics, sources={"alpha": partial})
    for basis in ("point", "interval"):
        result = only(evaluate(metrics, basis))
        assert result.verdict == "fail"
        assert result.reason.startswith("not decided: ARS here is partial, it covers revtgt, adddiff only (no revnon")


def test_min_ars_above_threshold_passes():
    # ARS 2/10 = .20 >= .10 on point; interval high .5 >= .10
    metrics = run(gates={"min_ars": 0.1}, ars=ARS_2_OF_10)
    assert only(evaluate(metrics, "point")).verdict == "pass"
    assert only(evaluate(metrics, "interval")).verdict == "inconclusive"


# --- min_variant_accuracy -----------------------------------------------------------------------

def test_min_variant_accuracy_straddling_threshold():
    # 7/10 = .70 < .80, interval [.3968, .8922] contains .80
    metrics = run(gates={"min_variant_accuracy": 0.8}, variant_accuracy=ACC_7_OF_10)
    point = only(evaluate(metrics, "point"))
    assert (point.name, point.verdict) == ("min_variant_accuracy", "fail")
    assert only(evaluate(metrics, "interval")).verdict == "inconclusive"


def test_min_variant_accuracy_wholly_below_threshold():
    # 2/10, interval [.0567, .5098] wholly below .80
    metrics = run(gates={"min_variant_accuracy": 0.8}, variant_accuracy=ACC_2_OF_10)
    assert only(evaluate(metrics, "point")).verdict == "fail"
    assert only(evaluate(metrics, "interval")).verdict == "fail"


# --- no data, several gates, per-test basis -----------------------------------------------------

def test_no_data_when_n_is_0():
    metrics = run(gates={"max_fail_rate": 0.2, "min_variant_accuracy": 0.5, "min_ars": 0.5},
                  fail_rate=EMPTY, variant_accuracy=EMPTY, ars=Rate(0, 0, float("nan"), float("nan"),
                                                                    "clopper-pearson"))
    for basis in ("point", "interval"):
        results = evaluate(metrics, basis)
        assert sorted(r.name for r in results) == ["max_fail_rate", "min_ars", "min_variant_accuracy"]
        assert all(r.verdict == "no-data" for r in results)


def test_no_data_when_source_missing():
    metrics = run(gates={"min_ars": 0.5}, ars=None)
    assert only(evaluate(metrics, "interval")).verdict == "no-data"


def test_several_gates_on_one_test():
    metrics = run(gates={"max_fail_rate": 0.2, "min_variant_accuracy": 0.8, "min_ars": 0.3},
                  fail_rate=FAIL_8_OF_10, variant_accuracy=ACC_7_OF_10, ars=ARS_2_OF_10)
    verdicts = {r.name: r.verdict for r in evaluate(metrics, "interval")}
    assert verdicts == {"max_fail_rate": "fail", "min_variant_accuracy": "inconclusive", "min_ars": "inconclusive"}
    verdicts = {r.name: r.verdict for r in evaluate(metrics, "point")}
    assert verdicts == {"max_fail_rate": "fail", "min_variant_accuracy": "fail", "min_ars": "fail"}


def test_no_gates_no_results():
    assert evaluate(run(gates={}), "interval") == []


def test_per_test_basis_overrides_default():
    # the straddling 3/10 fail rate: the test's own basis wins over the run's default
    point = run(gates={"max_fail_rate": 0.2, "basis": "point"}, fail_rate=FAIL_3_OF_10)
    result = only(evaluate(point, "interval"))
    assert (result.basis, result.verdict) == ("point", "fail")
    interval = run(gates={"max_fail_rate": 0.2, "basis": "interval"}, fail_rate=FAIL_3_OF_10)
    result = only(evaluate(interval, "point"))
    assert (result.basis, result.verdict) == ("interval", "inconclusive")


def test_gate_result_to_dict():
    result = only(evaluate(run(gates={"max_fail_rate": 0.2}, fail_rate=FAIL_3_OF_10), "point"))
    data = result.to_dict()
    assert {k: data[k] for k in ("gate", "test", "source", "threshold", "basis", "verdict")} == {
        "gate": "max_fail_rate", "test": TEST, "source": "alpha", "threshold": 0.2, "basis": "point",
        "verdict": "fail"}
    assert data["metric"]["k"] == 3 and data["metric"]["n"] == 10


def test_hand_rates_match_the_library():
    # the hand-built intervals above are the ones the library computes
    for hand, k in ((FAIL_3_OF_10, 3), (FAIL_8_OF_10, 8), (FAIL_2_OF_10, 2), (ACC_7_OF_10, 7)):
        real = wilson(k, 10)
        assert (real.low, real.high) == (pytest.approx(hand.low, abs=1e-4), pytest.approx(hand.high, abs=1e-4))
    for hand, k in ((ARS_2_OF_10, 2), (ARS_0_OF_10, 0)):
        real = clopper_pearson(k, 10)
        assert (real.low, real.high) == (pytest.approx(hand.low, abs=1e-4), pytest.approx(hand.high, abs=1e-4))


# --- verdict ------------------------------------------------------------------------------------

def gate(verdict: str, name: str = "max_fail_rate", source: str = "alpha") -> GateResult:
    return GateResult(name, TEST, source, 0.2, FAIL_3_OF_10, "interval", verdict, f"reason {verdict}")


def counts(*, failed: int = 0, errors: int = 0, cases: int = 10) -> RunMetrics:
    return RunMetrics({}, [], cases, cases - failed - errors, failed, errors)


def test_errors_exit_1_even_when_gates_pass():
    v = decide(counts(errors=1), [gate("pass")], strict=False, other_failures=0)
    assert (v.exit_status, v.passed) == (1, False)
    assert "no prediction" in v.reason


def test_other_failures_exit_1():
    v = decide(counts(), [gate("pass")], strict=False, other_failures=2)
    assert (v.exit_status, v.passed) == (1, False)
    assert "2 other tests failed" in v.reason


def test_strict_counts_failed_cases():
    v = decide(counts(failed=3), [gate("pass")], strict=True, other_failures=0)
    assert (v.exit_status, v.passed) == (1, False)
    assert "strict" in v.reason


def test_strict_without_failures_passes():
    v = decide(counts(), [gate("pass")], strict=True, other_failures=0)
    assert (v.exit_status, v.passed) == (0, True)


def test_gates_pass_while_cases_fail_exit_0():
    v = decide(counts(failed=3), [gate("pass"), gate("pass", "min_ars"), gate("no-data")], strict=False,
               other_failures=0)
    assert (v.exit_status, v.passed) == (0, True)
    assert "gates passed" in v.reason
    assert "2 gates" in v.reason          # no-data gates are not counted as decided
    assert "3 of 10 cases failed" in v.reason


def test_failing_gate_exit_1_names_gate_and_source():
    v = decide(counts(failed=3), [gate("pass"), gate("fail", "min_ars", "arts-laptop")], strict=False,
               other_failures=0)
    assert (v.exit_status, v.passed) == (1, False)
    assert "min_ars" in v.reason
    assert "arts-laptop" in v.reason
    assert "1 of 2 gates failed" in v.reason
    assert "revnon" in v.reason


def test_failing_gate_exit_1_without_failed_cases():
    v = decide(counts(), [gate("fail")], strict=False, other_failures=0)
    assert v.exit_status == 1


def test_no_gates_failed_cases_exit_1():
    v = decide(counts(failed=1), [], strict=False, other_failures=0)
    assert (v.exit_status, v.passed) == (1, False)
    assert "no gates" in v.reason


def test_no_gates_all_pass_exit_0():
    v = decide(counts(), [], strict=False, other_failures=0)
    assert (v.exit_status, v.passed) == (0, True)
    assert "10 cases" in v.reason


@pytest.mark.parametrize("strict", [False, True])
def test_errors_win_over_everything(strict):
    v = decide(counts(failed=2, errors=1), [gate("fail")], strict=strict, other_failures=1)
    assert v.exit_status == 1
    assert "no prediction" in v.reason
