"""Comparison with the released model's report: paired, exact McNemar, never failing on noise."""

from __future__ import annotations

import random

import pytest

from absa_checks.comparison import compare, regression_verdict
from absa_checks.stats import mcnemar_exact
from conftest import ARTS_OUTPUT, SHARED_DATA, needs_shared_data


def test_mcnemar_exact_by_hand():
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(5, 5) == 1.0
    assert mcnemar_exact(0, 6) == pytest.approx(2 / 64)              # 2 * (1/2)^6
    assert mcnemar_exact(10, 2) == pytest.approx(2 * 79 / 4096)      # 2 * (C(12,0)+C(12,1)+C(12,2)) / 2^12
    assert mcnemar_exact(2, 10) == mcnemar_exact(10, 2)


def case(unit: str, right: bool, source: str = "s", strategy: str = "adddiff") -> dict:
    gold = {"gold": "positive"}
    label = "positive" if right else "negative"
    return {"source": source, "unit": unit, "strategy": strategy, "case_id": f"{unit}-{strategy}",
            "status": "passed" if right else "failed", "original": gold, "variant": gold,
            "original_prediction": {"label": "positive"}, "variant_prediction": {"label": label}}


def units(correct: list[bool]) -> list[dict]:
    return [case(f"u{i}", right) for i, right in enumerate(correct)]


def verdict(now: list[dict], before: list[dict]) -> str:
    return regression_verdict(compare(now, before)["s"].units, alpha=0.05, min_effect=0.02)[0]  # the defaults


def test_identical_predictions_never_fail():
    rng = random.Random(0)
    for _ in range(20):
        run = units([rng.random() < 0.6 for _ in range(rng.randint(5, 1000))])
        assert verdict(run, run) == "pass"


def test_label_noise_within_the_interval_is_pass_or_inconclusive_never_fail():
    rng = random.Random(1)
    verdicts = set()
    for _ in range(50):
        truth = [rng.random() < 0.6 for _ in range(1000)]
        rate = sum(truth) / len(truth)
        # noise without drift: 3% of units are re-drawn from the baseline's own rate, so as many units are
        # broken as fixed on average (flipping 3% both ways would be a real drop on a 60% model)
        noisy = [(rng.random() < rate) if rng.random() < 0.03 else t for t in truth]
        verdicts.add(verdict(units(noisy), units(truth)))
    assert verdicts <= {"pass", "inconclusive"}


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
    ("arts-restaurant", "rest_results.csv", 1120, "59.29", "10.89"),
])
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


@needs_shared_data
def test_the_regression_gate_is_an_allure_result_listing_the_units(run, tmp_path):
    pytest.importorskip("allure_pytest")
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


def test_an_unreadable_baseline_fails_its_gate_but_keeps_the_runs_results(run, tmp_path):
    from test_exit_status import setup_project

    setup_project(tmp_path, "gates: {max_fail_rate: 0.5}")
    result = run(["suite.yaml", "--model", "python:mymodel:by_first_clause", "--absa-baseline", "nowhere.json"],
                 cwd=tmp_path)
    assert result.code == 1
    gate = next(g for g in result.report["gates"] if g["gate"] == "no_regression")
    assert gate["verdict"] == "fail" and "baseline report nowhere.json cannot be read" in gate["reason"]
    assert result.report["summary"]["cases"] == 3 and "comparison" not in result.report  # results still there
