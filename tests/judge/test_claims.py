"""Claims: published numbers in models.yaml, reproduced when inside the measured 95% interval."""

from __future__ import annotations

import pytest

from absa_checks.common.errors import AbsaChecksError
from absa_checks.judge.claims import check
from absa_checks.judge.metrics import RunMetrics, SourceMetrics
from absa_checks.judge.stats import clopper_pearson, wilson
from absa_checks.models.claims import Claim, parse
from conftest import ARTS_OUTPUT, SHARED_DATA, needs_shared_data


def metrics(accuracy_k: int, ars_k: int, n: int = 1120) -> RunMetrics:
    source = SourceMetrics("arts-restaurant", n, 0, wilson(accuracy_k, n), clopper_pearson(ars_k, n))
    return RunMetrics({"arts-restaurant": source}, [], 0, 0, 0, 0)


def test_a_claim_inside_the_interval_is_reproduced_with_its_gap():
    found = check(Claim("m", "arts-restaurant", "ars", 0.60), metrics(971, 664))
    assert found.verdict == "reproduced"
    assert found.gap == pytest.approx(0.60 - 664 / 1120)
    assert "gap +0.71 points" in found.reason


def test_a_claim_outside_the_interval_is_not_reproduced_and_says_by_how_much():
    found = check(Claim("m", "arts-restaurant", "ars", 0.6429), metrics(971, 664))
    assert found.verdict == "not reproduced"
    assert "5.00 points higher" in found.reason
    low = check(Claim("m", "arts-restaurant", "accuracy", 0.80), metrics(971, 664))
    assert low.verdict == "not reproduced" and "6.70 points lower" in low.reason


def test_a_claim_on_a_source_the_run_did_not_test_has_no_data():
    found = check(Claim("m", "arts-laptop", "accuracy", 0.8), metrics(971, 664))
    assert found.verdict == "no-data" and "did not test arts-laptop" in found.reason


@pytest.mark.parametrize("raw,message", [
    ({"source": "arts-restaurant", "ars": 59.29}, "write 0.5929 for 59.29%"),
    ({"source": "arts-restaurant", "f1": 0.7}, "unknown metric 'f1'"),
    ({"ars": 0.5}, "needs 'source:'"),
    ({"source": "arts-restaurant"}, "names no number"),
    ("0.59", "must be a mapping"),
])
def test_a_wrong_claim_is_one_clear_message(raw, message):
    with pytest.raises(AbsaChecksError) as err:
        parse(raw, "bert-pt", "models.yaml")
    assert message in str(err.value) and "models.yaml: 'bert-pt': claims" in str(err.value)


@pytest.mark.parametrize("metric,hint", [
    ("acuracy", "did you mean 'accuracy'?"),
    ("revtgtt_accuracy", "did you mean 'revtgt_accuracy'?"),  # it used to be accepted, and never measured
    ("addiff_fail_rate", "did you mean 'adddiff_fail_rate'?"),
    ("f1", "claims take accuracy, ars, revtgt_accuracy, revtgt_fail_rate"),
])
def test_a_claim_on_a_misspelt_metric_is_refused_with_did_you_mean_and_the_known_metrics(metric, hint):
    with pytest.raises(AbsaChecksError) as err:
        parse({"source": "arts-restaurant", metric: 0.6}, "bert-pt", "models.yaml")
    message = str(err.value)
    assert message.startswith(f"models.yaml: 'bert-pt': claims: unknown metric '{metric}'; ") and hint in message
    assert "adddiff_fail_rate" in message and "\n" not in message
    kept = parse({"source": "s", "revnon+adddiff_accuracy": 0.5, "adddiff(k=3)_fail_rate": 0.2,
                  "template:negation_accuracy": 0.9}, "m", "f")
    assert [c.metric for c in kept] == ["revnon+adddiff_accuracy", "adddiff(k=3)_fail_rate", "template:negation_accuracy"]


def test_two_claims_that_contradict_each_other_are_refused_naming_both():
    with pytest.raises(AbsaChecksError) as err:
        parse([{"source": "arts-restaurant", "accuracy": 0.867}, {"source": "arts-laptop", "accuracy": 0.8},
               {"source": "arts-restaurant", "accuracy": 0.88, "ars": 0.59}], "bert-pt", "models.yaml")
    assert str(err.value) == ("models.yaml: 'bert-pt': claims: accuracy on arts-restaurant is claimed twice, 0.867 "
                              "(claim 1) and 0.88 (claim 3); keep the one that was published")
    again = parse([{"source": "a", "accuracy": 0.8}, {"source": "a", "accuracy": 0.8, "ars": 0.5}], "m", "f")
    assert [(c.metric, c.value) for c in again] == [("accuracy", 0.8), ("ars", 0.5)]  # said twice alike: one claim


def test_claims_per_strategy_and_lists_parse():
    found = parse([{"source": "a", "revtgt_accuracy": 0.6}, {"source": "b", "adddiff_fail_rate": 0.1}], "m", "f")
    assert [(c.source, c.metric, c.value) for c in found] == [("a", "revtgt_accuracy", 0.6),
                                                                ("b", "adddiff_fail_rate", 0.1)]


@pytest.mark.slow
@needs_shared_data
def test_the_published_bert_pt_table7_numbers_are_reproduced_and_five_points_more_are_not(run, tmp_path):
    predictions = ARTS_OUTPUT / "rest_results.csv"
    models = tmp_path / "models.yaml"
    # the same predictions under another checkpoint (one checkpoint named twice is refused): a copy of the
    # file with one more blank line, so another file's fingerprint
    again = tmp_path / "again.csv"
    again.write_bytes(predictions.read_bytes() + b"\n")
    models.write_text(
        "models:\n"
        f"  bert-pt: {{kind: replay, path: {predictions}, column: bert_pt,\n"
        "            claims: {source: arts-restaurant, accuracy: 0.8670, ars: 0.5929}}\n"
        f"  bert-pt-optimistic: {{kind: replay, path: {again}, column: bert_pt,\n"
        "            claims: {source: arts-restaurant, ars: 0.6429}}\n")
    args = ["suites/", "-q", "--absa-data", str(SHARED_DATA), "--absa-sources", "arts-restaurant",
            "--absa-models", str(models), "--model", "bert-pt,bert-pt-optimistic"]
    result = run(args)
    assert result.report is not None, result.out[-3000:]
    claims = {(c["subject"], c["metric"]): c for c in result.report["claims"]}
    assert claims[("bert-pt", "accuracy")]["verdict"] == "reproduced"
    assert claims[("bert-pt", "ars")]["verdict"] == "reproduced"
    assert claims[("bert-pt", "ars")]["gap"] == pytest.approx(0.0, abs=5e-5)  # 664/1120 = 59.2857..%
    optimistic = claims[("bert-pt-optimistic", "ars")]
    assert optimistic["verdict"] == "not reproduced"
    assert round(100 * optimistic["gap"], 2) == 5.00
    assert "5.00 points higher" in optimistic["reason"]
    trait = result.report["readiness"]["reproduced claims"]
    assert trait["verdict"] == "fail" and "2/3 reproduced" in trait["evidence"]
    assert "--absa-require-claims" in trait["evidence"]
    assert not any(g["gate"] == "claim_reproduced" for g in result.report["gates"])  # reported, not gated

    gated = run(args + ["--absa-require-claims"])
    assert gated.code == 1, gated.out[-2000:]
    failed = [g for g in gated.report["gates"] if g["gate"] == "claim_reproduced" and g["verdict"] == "fail"]
    assert [g["checkpoint"] for g in failed] == ["bert-pt-optimistic"]
    assert "claim_reproduced" in gated.summary


def test_a_group_claim_is_checked_against_the_interval_of_the_mean_and_a_members_against_its_own():
    from absa_checks.judge.checkpoints import mean_metrics
    from absa_checks.judge.claims import check_all
    per_model = {"s1": metrics(900, 600), "s2": metrics(940, 660)}
    mean = mean_metrics(per_model)
    spread = mean.sources["arts-restaurant"].ars
    claims = {"grid": (Claim("grid", "arts-restaurant", "ars", 0.56),),
              "s1": (Claim("s1", "arts-restaurant", "ars", 0.58),)}
    group, member = check_all(claims, mean, per_model, group="grid")
    assert group.measured is spread and spread.value == pytest.approx(630 / 1120)
    assert group.verdict == ("reproduced" if spread.low <= 0.56 <= spread.high else "not reproduced")
    assert group.verdict == "reproduced"
    assert member.measured is per_model["s1"].sources["arts-restaurant"].ars
    assert member.verdict == "not reproduced"  # s1 alone: 600/1120 = 53.57% [50.6, 56.5]
