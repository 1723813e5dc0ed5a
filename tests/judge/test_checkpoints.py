"""Several checkpoints in one run: cases per checkpoint, mean +- std across them, gates on the mean or the worst."""

from __future__ import annotations

import json
import math
import re

import pytest

from absa_checks.common.errors import AbsaChecksError
from absa_checks.judge.stats import Rate, spread, t975, wilson
from absa_checks.models import adapters as registry
from conftest import ARTS_OUTPUT, SHARED_DATA, needs_shared_data, run_pytest


def test_t_quantiles():
    assert t975(1) == 12.706205 and t975(2) == 4.302653 and t975(30) == 2.042272
    assert t975(40) == pytest.approx(2.021075, abs=1e-6)      # beyond the table: Cornish-Fisher
    assert t975(1000) == pytest.approx(1.962339, abs=1e-6)
    with pytest.raises(ValueError):
        t975(0)


def test_spread_of_three_checkpoints_by_hand():
    rates = [("s1", Rate(50, 100, 0.40, 0.60, "x")), ("s2", Rate(60, 100, 0.50, 0.70, "x")),
             ("s3", Rate(70, 100, 0.60, 0.80, "x"))]
    found = spread(rates)
    assert found.mean == pytest.approx(0.6, abs=1e-12)
    assert found.std == pytest.approx(0.1, abs=1e-12)  # sample std: sqrt((0.01 + 0 + 0.01) / 2)
    # average interval: 0.1 each side; between checkpoints: t(2) * 0.1 / sqrt(3) = 0.2484138;
    # in quadrature: sqrt(0.1^2 + 0.2484138^2) = 0.2677861
    assert (found.low, found.high) == (pytest.approx(0.3322139, abs=1e-7), pytest.approx(0.8677861, abs=1e-7))
    assert found.to_dict()["per_checkpoint"] == {"s1": 0.5, "s2": 0.6, "s3": 0.7}
    assert found.n == 100 and found.value == found.mean


def test_identical_checkpoints_keep_their_own_interval_and_one_checkpoint_is_itself():
    rate = wilson(37, 90)
    same = spread([("a", rate), ("b", rate), ("c", rate)])
    assert (same.mean, same.std, same.low, same.high) == (pytest.approx(rate.value), 0.0,
                                                           pytest.approx(rate.low), pytest.approx(rate.high))
    alone = spread([("a", rate)])
    assert (alone.std, alone.low, alone.high) == (0.0, pytest.approx(rate.low), pytest.approx(rate.high))


def test_a_checkpoint_without_cases_is_left_out_and_none_at_all_is_no_data():
    found = spread([("a", wilson(3, 10)), ("b", wilson(0, 0)), ("c", wilson(5, 10))])
    assert found.to_dict()["per_checkpoint"] == {"a": 0.3, "c": 0.5} and found.mean == pytest.approx(0.4)
    empty = spread([("a", wilson(0, 0))])
    assert empty.n == 0 and empty.to_dict()["value"] is None


# ---------------------------------------------------------------- naming several checkpoints

def _models_file(tmp_path, groups: str = ""):
    path = tmp_path / "models.yaml"
    path.write_text("models:\n  a: {kind: lexicon, scope: target}\n  b: {kind: lexicon, scope: sentence}\n"
                    "  c: {kind: lexicon, scope: target}\n" + groups)
    return path


def test_model_lists_and_groups_expand_in_order(tmp_path):
    models = _models_file(tmp_path, "groups:\n  seeds: [c, a]\n")
    assert [s.name for s in registry.resolve_all("b, seeds", models)] == ["b", "c", "a"]
    assert [s.name for s in registry.resolve_all("lexicon", models)] == ["lexicon"]


@pytest.mark.parametrize("option, groups, message", [
    ("a,,b", "", "an empty name between commas"),
    ("a,seeds", "groups:\n  seeds: [a, b]\n", "a named more than once"),
    ("seeds", "groups:\n  seeds: [a, nope]\n", "unknown model 'nope'"),
    ("seeds", "groups:\n  seeds: a\n", "group 'seeds' must be a non-empty list"),
    ("x", "groups:\n  x: [a]\n  y: [x, b]\n", "groups do not nest"),
    ("a", "groups:\n  a: [b]\n", "'a' is both a model and a group"),
])
def test_bad_model_lists_say_what_to_fix(tmp_path, option, groups, message):
    with pytest.raises(AbsaChecksError, match=message):
        registry.resolve_all(option, _models_file(tmp_path, groups))


def test_a_bad_model_list_is_a_usage_error_without_traceback(run, tmp_path):
    (tmp_path / "suite.yaml").write_text("suite: s\ntests:\n  - name: t\n    strategy: adddiff\n    sources: [builtin-laptop]\n")
    result = run(["suite.yaml", "--model", "lexicon,lexicon"], cwd=tmp_path)
    assert result.code == 4 and "lexicon named more than once" in result.out and "Traceback" not in result.out


# ---------------------------------------------------------------- a real run over three published models

def _published_group(tmp_path):
    csv = ARTS_OUTPUT / "laptop_results.csv"
    models = tmp_path / "models.yaml"
    models.write_text("models:\n" + "".join(f"  {name}: {{kind: replay, path: '{csv}', column: {column}}}\n"
                                            for name, column in (("pt", "bert_pt"), ("sent", "bert_sent"),
                                                                 ("lstm", "TD_LSTM")))
                      + "groups:\n  published: [pt, sent, lstm]\n")
    return ["suites/", "-q", "--tb=no", "--absa-data", str(SHARED_DATA), "--absa-sources", "arts-laptop",
            "--absa-models", str(models)]


@pytest.fixture(scope="module")
def published(tmp_path_factory):
    """One run of the three published checkpoints' ARTS laptop answers, gated on the mean: read by the tests of
    its numbers and of its gates (a run of many seconds, made once)."""
    folder = tmp_path_factory.mktemp("published")
    return run_pytest(_published_group(folder) + ["--model", "published"], report=folder / "report.json")


@needs_shared_data
def test_mean_and_std_across_three_checkpoints_equal_hand_computed_values(published, run, tmp_path):
    three, report = published, published.report
    assert [m["name"] for m in report["run"]["models"]] == ["pt", "sent", "lstm"]
    assert {c["model"] for c in report["cases"]} == {"pt", "sent", "lstm"}
    assert any(c["nodeid"].endswith("[arts-laptop:0:14_0@sent]") for c in report["cases"])

    laptop = report["sources"]["arts-laptop"]
    # Table 7 of the ARTS paper, laptop: ARS 53.29 / 17.40 / 22.57 % of 638 units = 340, 111, 144 units
    ars = laptop["ars"]
    assert ars["per_checkpoint"] == {"pt": 340 / 638, "sent": 111 / 638, "lstm": 144 / 638}
    assert ars["value"] == pytest.approx((340 + 111 + 144) / 3 / 638, abs=1e-12)  # 0.3108673
    mean = 595 / 3
    assert ars["std"] == pytest.approx(math.sqrt(((340 - mean) ** 2 + (111 - mean) ** 2 + (144 - mean) ** 2) / 2) / 638,
                                       abs=1e-12)  # 0.1940306
    assert ars["std"] == pytest.approx(0.1940306, abs=1e-7)
    # original accuracy 78.53 / 73.04 / 68.03 % = 501, 466, 434 units: mean 73.20 %, std 5.25 points
    accuracy = laptop["original_accuracy"]
    assert accuracy["value"] == pytest.approx(1401 / 1914, abs=1e-12)
    assert accuracy["std"] == pytest.approx(math.sqrt(((501 - 467) ** 2 + (466 - 467) ** 2 + (434 - 467) ** 2) / 2) / 638,
                                            abs=1e-12)
    assert "73.20±5.25" in three.out and "31.09±19.40" in three.out
    assert re.search(r"metric\s+pt\s+sent\s+lstm\s+mean±std", three.summary)  # a column per checkpoint
    assert re.search(r"arts-laptop\s+ARS\s+53\.29\s+17\.40\s+22\.57\s+31\.09±19\.40", three.summary)

    # every metric per checkpoint: the same numbers as that checkpoint run on its own
    alone = run(_published_group(tmp_path) + ["--model", "sent"]).report
    assert report["checkpoints"]["sent"]["sources"] == alone["sources"]
    assert report["checkpoints"]["sent"]["tests"] == alone["tests"]
    strategy = report["sources"]["arts-laptop"]["strategies"]["revtgt"]["fail_rate"]
    assert strategy["per_checkpoint"]["sent"] == alone["sources"]["arts-laptop"]["strategies"]["revtgt"]["fail_rate"]["value"]
    hard = report["sources"]["arts-laptop"]["slices"]["hard=true"]["ars"]
    assert hard["per_checkpoint"]["sent"] == alone["sources"]["arts-laptop"]["slices"]["hard=true"]["ars"]["value"]


@pytest.mark.slow
@needs_shared_data
def test_gates_on_the_mean_or_on_the_worst_checkpoint(published, run, tmp_path):
    on_mean = published
    on_worst = run(_published_group(tmp_path) + ["--model", "published", "--absa-gate-on", "worst"])
    mean_gate = next(g for g in on_mean.report["gates"] if g["gate"] == "min_ars")
    worst_gate = next(g for g in on_worst.report["gates"] if g["gate"] == "min_ars")
    # the mean (31.09 %) is above the 30 % limit, but three very different models leave it undecided
    assert mean_gate["verdict"] == "inconclusive" and mean_gate["checkpoint"] == "mean of 3"
    assert mean_gate["metric"]["ci95"][0] < 0.30 < mean_gate["metric"]["ci95"][1]
    assert on_mean.code == 0
    # the worst checkpoint for ARS is bert_sent (17.40 %, interval wholly below 30 %)
    assert worst_gate["verdict"] == "fail" and worst_gate["checkpoint"] == "sent"
    assert worst_gate["metric"]["k"] == 111 and "worst of 3 checkpoints, sent" in worst_gate["reason"]
    # revtgt's worst fail rate is another checkpoint's (TD-LSTM, 69.31 %)
    fail_gate = next(g for g in on_worst.report["gates"] if g["gate"] == "max_fail_rate" and "revtgt" in g["test"])
    assert fail_gate["checkpoint"] == "lstm" and fail_gate["verdict"] == "fail"
    assert on_worst.code == 1 and "worst of 3 checkpoints" in on_worst.summary


@needs_shared_data
@pytest.mark.slow
def test_several_checkpoints_under_xdist_report_the_same(run, tmp_path):
    args = _published_group(tmp_path) + ["--model", "pt,lstm"]
    single, split = run(args).report, run(args + ["-n", "2"]).report
    for report in (single, split):
        report.pop("timing")
        report["run"].pop("versions")
    assert json.dumps(single, sort_keys=True) == json.dumps(split, sort_keys=True)


def test_the_models_command_lists_groups(tmp_path, capsys):
    from absa_checks import cli

    assert cli.main(["models", "--models-file", str(_models_file(tmp_path, "groups:\n  seeds: [a, c]\n"))]) == 0
    assert "seeds                    group        a, c" in capsys.readouterr().out


def _case(model: str, unit: str, right: bool) -> dict:
    prediction = {"label": "positive" if right else "negative"}
    return {"model": model, "source": "s", "unit": unit, "strategy": "revtgt", "case_id": unit, "status": "passed",
            "original": {"gold": "positive"}, "variant": {"gold": "positive"},
            "original_prediction": prediction, "variant_prediction": prediction}


def test_each_checkpoint_is_paired_with_the_baseline_checkpoint_of_its_name_or_the_only_one():
    from absa_checks.judge.comparison import against_baseline

    baseline = [_case("a", "u1", True), _case("a", "u2", True), _case("b", "u1", False), _case("b", "u2", False)]
    now = {"a": [_case("a", "u1", True), _case("a", "u2", False)], "b": [_case("b", "u1", True), _case("b", "u2", True)],
           "c": [_case("c", "u1", True)]}
    compared, gates = against_baseline(now, baseline, 0.05, 0.02)
    assert compared["a"]["s"].units.broken == ("u2",) and compared["b"]["s"].units.fixed == ("u1", "u2")
    missing = next(g for g in gates if g.checkpoint == "c")
    assert missing.verdict == "fail" and "none is named 'c'" in missing.reason
    # an older one-model report (cases without "model") pairs with every checkpoint
    old = [{k: v for k, v in c.items() if k != "model"} for c in baseline[:2]]
    compared, gates = against_baseline(now, old, 0.05, 0.02)
    assert set(compared) == {"a", "b", "c"} and compared["c"]["s"].units.matched == 1
    assert [g.checkpoint for g in gates] == ["a", "b", "c"]


@pytest.mark.slow
@needs_shared_data
def test_three_checkpoints_against_a_one_model_baseline(run, tmp_path):
    args = _published_group(tmp_path)
    baseline = tmp_path / "released.json"
    baseline.write_text(json.dumps(run(args + ["--model", "pt"]).report))
    result = run(args + ["--model", "published", "--absa-baseline", str(baseline)])
    gates = {g["checkpoint"]: g for g in result.report["gates"] if g["gate"] == "no_regression"}
    assert {k: g["verdict"] for k, g in gates.items()} == {"pt": "pass", "sent": "fail", "lstm": "fail"}
    broken = result.report["comparison"]["checkpoints"]["sent"]["sources"]["arts-laptop"]["units"]["broken"]
    assert len(broken) == 249 and result.code == 1  # bert_sent against bert_pt, as in test_comparison


@pytest.mark.slow
@needs_shared_data
def test_a_checkpoint_deselected_by_k_or_m_is_not_reported(run, tmp_path):
    for selection in (["-k", "not sent"], ["-m", "model_pt"], ["-m", "not model_sent"]):
        result = run(_published_group(tmp_path) + ["--model", "pt,sent", *selection])
        assert [m["name"] for m in result.report["run"]["models"]] == ["pt"], selection
        assert "checkpoints" not in result.report and result.report["sources"]["arts-laptop"]["ars"]["k"] == 340
