"""Comparison with the released model's report: paired, exact McNemar, its error rates simulated."""

from __future__ import annotations

import functools
import math
import random

import numpy
import pytest

from absa_checks.judge.comparison import Paired, compare, regression_verdict
from absa_checks.judge.stats import Rate, mcnemar_exact, mcnemar_worse, wilson
from conftest import ARTS_OUTPUT, SHARED_DATA, needs_extra, needs_shared_data


def test_mcnemar_exact_by_hand():
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(5, 5) == 1.0
    assert mcnemar_exact(0, 6) == pytest.approx(2 / 64)              # 2 * (1/2)^6
    assert mcnemar_exact(10, 2) == pytest.approx(2 * 79 / 4096)      # 2 * (C(12,0)+C(12,1)+C(12,2)) / 2^12
    assert mcnemar_exact(2, 10) == mcnemar_exact(10, 2)


def test_mcnemar_worse_by_hand():
    assert mcnemar_worse(0, 0) == 1.0
    assert mcnemar_worse(6, 0) == pytest.approx(1 / 64)                 # all six discordant pairs broken
    assert mcnemar_worse(10, 2) == pytest.approx(79 / 4096)             # P(X >= 10), X ~ Bin(12, 1/2)
    assert mcnemar_worse(2, 10) == pytest.approx(1 - 13 / 4096)         # 1 - P(X <= 1): fixed, not broken


def case(unit: str, right: bool, source: str = "s", strategy: str = "adddiff") -> dict:
    gold = {"gold": "positive"}
    label = "positive" if right else "negative"
    return {"source": source, "unit": unit, "strategy": strategy, "case_id": f"{unit}-{strategy}",
            "status": "passed" if right else "failed", "original": gold, "variant": gold,
            "original_prediction": {"label": "positive"}, "variant_prediction": {"label": label}}


def units(correct: list[bool]) -> list[dict]:
    return [case(f"u{i}", right) for i, right in enumerate(correct)]


def verdict(now: list[dict], before: list[dict]) -> str:
    return regression_verdict(compare(now, before)["s"].units, alpha=0.01, min_effect=0.02)[0]  # the defaults


def test_a_significant_improvement_is_said_with_its_one_sided_p():
    before = units([False] * 30 + [True] * 70)
    now = units([True] * 30 + [True] * 68 + [False] * 2)  # 30 fixed, 2 broken
    decided, why = regression_verdict(compare(now, before)["s"].units, alpha=0.01, min_effect=0.02)
    p = sum(math.comb(32, i) for i in range(30, 33)) / 2 ** 32
    assert decided == "pass" and f"a significant improvement (one-sided exact McNemar p = {p:.3g}" in why
    same = regression_verdict(compare(before, before)["s"].units, alpha=0.01, min_effect=0.02)[1]
    assert same.endswith("no significant regression")
    slight = units([True] * 2 + [False] * 28 + [True] * 70)  # 2 fixed, 0 broken: better, not significantly
    assert regression_verdict(compare(slight, before)["s"].units, 0.01, 0.02)[1].endswith("no significant regression")


def test_identical_predictions_never_fail():
    rng = random.Random(0)
    for _ in range(20):
        run = units([rng.random() < 0.6 for _ in range(rng.randint(5, 1000))])
        assert verdict(run, run) == "pass"


def _gate_fail_rate(broken: float, fixed: float, runs: int = 1000, n: int = 1000, base: float = 0.5,
                    alpha: float = 0.01, rule=None) -> Rate:
    """How often the regression gate fails, over `runs` simulated comparisons of n units (seeded).

    The baseline gets each unit right with probability `base`; the new model breaks each right unit
    with probability `broken` and fixes each wrong one with probability `fixed` (equal models:
    broken * base == fixed * (1 - base); 50/50 is "every unit re-drawn", independent errors)."""
    # each unit is broken, fixed or neither: one multinomial draw per run
    rng = numpy.random.default_rng(round(broken * 100) * 1000 + round(fixed * 100))
    counts = rng.multinomial(n, [base * broken, (1 - base) * fixed, 1 - base * broken - (1 - base) * fixed], runs)
    right = round(n * base)  # the baseline's count only sets the shown ARS, not the decision

    @functools.cache  # runs repeat (b, f) pairs; the exact tails are big-integer sums
    def gate(b: int, f: int) -> bool:
        paired = Paired(n, right, right - b + f, ("x",) * b, ("y",) * f, mcnemar_exact(b, f))
        return regression_verdict(paired, alpha, 0.02)[0] == "fail"

    decide = rule or gate
    return wilson(sum(decide(int(b), int(f)) for b, f, _ in counts), runs)


@pytest.mark.parametrize("churn", [(0.05, 0.05), (0.3, 0.3), (0.5, 0.5), (0.7, 0.7)],
                         ids=["low", "30/30", "independent", "70/70"])
def test_equal_models_fail_the_gate_at_most_one_percent_of_the_time(churn):
    # 1,000 comparisons of two equally good models on 1,000 units: the 95% interval of the false-fail
    # rate must reach down to 1% (measured over 20,000 runs: 0.4-1.0%; the exact one-sided test keeps it <= alpha)
    rate = _gate_fail_rate(*churn)
    assert rate.low <= 0.01 and rate.value <= 0.015, rate


@pytest.mark.parametrize("churn, at_least", [((0.10, 0.0), 0.99), ((0.3, 0.2), 0.70), ((0.55, 0.45), 0.35)],
                         ids=["low", "30/20", "55/45"])
def test_a_five_point_drop_is_caught(churn, at_least):
    # ARS 50% -> 45% in every regime; measured detection 100%, 78%, 45% over 20,000 runs
    # (docs/statistics.md); the floor is on the interval's low end, a few points under those
    rate = _gate_fail_rate(*churn)
    assert rate.low >= at_least, rate


def test_the_simulation_catches_the_old_two_sided_rule():
    # the previous rule (a 2-point drop and two-sided p < .05) failed equal models ~2% of the time
    old = _gate_fail_rate(0.5, 0.5, rule=lambda b, f: (b - f) / 1000 >= 0.02 and mcnemar_exact(b, f) < 0.05)
    assert old.low > 0.01, old


def test_a_five_point_ars_drop_on_1000_units_is_detected():
    before = [i < 600 for i in range(1000)]                     # ARS 60%
    after = list(before)
    for i in range(60):                                          # 60 newly broken ...
        after[i] = False
    for i in range(600, 610):                                    # ... and 10 newly fixed: 55%
        after[i] = True
    comparison = compare(units(after), units(before))["s"]
    assert comparison.units.change == pytest.approx(-0.05)
    assert len(comparison.units.broken) == 60 and len(comparison.units.fixed) == 10
    assert verdict(units(after), units(before)) == "fail"


def test_units_are_matched_by_id_and_the_unmatched_reported():
    before = units([True, True, False])
    now = [case("u0", True), case("u1", False), case("u9", True)]
    comparison = compare(now, before)["s"]
    assert comparison.units.matched == 2 and comparison.units.broken == ("u1",)
    assert (comparison.unmatched_now, comparison.unmatched_baseline) == (1, 1)


@needs_shared_data
@pytest.mark.parametrize("source, csv_name, units, before, now", [
    ("arts-laptop", "laptop_results.csv", 638, "53.29", "17.40"),
    pytest.param("arts-restaurant", "rest_results.csv", 1120, "59.29", "10.89", marks=pytest.mark.slow),
])
@pytest.mark.slow
def test_replaying_bert_sent_against_a_bert_pt_baseline_fails_with_the_broken_units_listed(
        run, tmp_path, source, csv_name, units, before, now):
    args = ["suites/", "-q", "--tb=no", "--absa-data", str(SHARED_DATA), "--absa-sources", source]
    csv = ARTS_OUTPUT / csv_name
    baseline = run(args + ["--model", f"replay:{csv}#bert_pt"])
    path = tmp_path / "baseline.json"
    path.write_text(__import__("json").dumps(baseline.report))
    itself = run(args + ["--model", f"replay:{csv}#bert_pt", "--absa-baseline", str(path)])
    markdown = tmp_path / "summary.md"
    worse = run(args + ["--model", f"replay:{csv}#bert_sent", "--absa-baseline", str(path),
                        "--absa-markdown", str(markdown)])
    same_gate = next(g for g in itself.report["gates"] if g["gate"] == "no_regression")
    assert same_gate["verdict"] == "pass" and itself.code == 0
    gate = next(g for g in worse.report["gates"] if g["gate"] == "no_regression")
    assert gate["verdict"] == "fail" and worse.code == 1
    paired = worse.report["comparison"]["sources"][source]["units"]
    assert paired["matched"] == units and len(paired["broken"]) > 100 and paired["p_value"] < 1e-6
    assert "newly broken units:" in worse.out
    text = markdown.read_text()
    assert "### Compared with the baseline" in text and f"| - | {source} | ARS units | {units} | {before} -> {now} |" in text
    assert f"| - | {source} | revtgt cases | " in text  # McNemar per strategy too
    assert f"Newly broken on {source}: `{paired['broken'][0]}`" in text


@needs_extra("allure")
@needs_shared_data
@pytest.mark.slow
def test_the_regression_gate_is_an_allure_result_listing_the_units(run, tmp_path):
    import json

    args = ["suites/", "-q", "--tb=no", "--absa-data", str(SHARED_DATA), "--absa-sources", "arts-laptop"]
    csv = ARTS_OUTPUT / "laptop_results.csv"
    path = tmp_path / "baseline.json"
    path.write_text(json.dumps(run(args + ["--model", f"replay:{csv}#bert_pt"]).report))
    results = tmp_path / "allure"
    run(args + ["--model", f"replay:{csv}#bert_sent", "--absa-baseline", str(path), "--alluredir", str(results)])
    gate = next(json.loads(p.read_text()) for p in results.glob("*-result.json")
                if '"gate no_regression' in p.read_text())
    assert gate["status"] == "failed"
    listing = (results / gate["attachments"][0]["source"]).read_text()
    assert "newly broken" in listing and "0:14_0" in listing


@pytest.mark.slow
def test_an_unreadable_baseline_fails_its_gate_but_keeps_the_runs_results(run, tmp_path):
    from e2e.test_exit_status import setup_project

    setup_project(tmp_path, "gates: {max_fail_rate: 0.5}")
    result = run(["suite.yaml", "--model", "python:mymodel:by_first_clause", "--absa-baseline", "nowhere.json"],
                 cwd=tmp_path)
    assert result.code == 1
    gate = next(g for g in result.report["gates"] if g["gate"] == "no_regression")
    assert gate["verdict"] == "fail" and "baseline report nowhere.json cannot be read" in gate["reason"]
    assert result.report["summary"]["cases"] == 3 and "comparison" not in result.report  # results still there
