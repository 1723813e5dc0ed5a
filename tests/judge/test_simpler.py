"""--absa-simple-baseline: the same cases on a simpler model, compared paired (exact McNemar)."""

from __future__ import annotations

import math

import pytest

from absa_checks.judge.simpler import compare, p_better, verdict


def case(unit: str, strategy: str, gold: str, original: str, variant: str, source: str = "s") -> dict:
    example = {"sentence": f"sentence {unit}", "term": "t", "from": 0, "to": 1, "gold": gold, "record_id": unit}
    return {"case_id": f"{unit}-{strategy}", "source": source, "unit": unit, "strategy": strategy, "status": "passed",
            "original": example, "variant": {**example, "sentence": f"variant {unit} {strategy}"},
            "original_prediction": {"label": original}, "variant_prediction": {"label": variant}}


def units(pattern: str) -> list[dict]:
    """One ADDDIFF case per unit; per unit a letter: R (original and variant right), O (only the original
    right), W (both wrong)."""
    labels = {"R": ("positive", "positive"), "O": ("positive", "negative"), "W": ("negative", "negative")}
    return [case(f"u{i}", "adddiff", "positive", *labels[c]) for i, c in enumerate(pattern)]


def binomial_tail(k: int, n: int) -> float:
    return sum(math.comb(n, i) for i in range(k, n + 1)) / 2 ** n


def test_paired_counts_and_one_sided_p_values_by_hand():
    candidate = units("RRRRRRRRRRRROOW")
    simple = units("RRWWWWWWWWOWWWW")
    found = compare(candidate, simple)["s"]
    # ARS units: candidate right on 12 (u0-u11), simple on 2 (u0, u1): 10 only the candidate, 0 only the simple
    assert (found.units.matched, found.units.after, found.units.before) == (15, 12, 2)
    assert (len(found.units.fixed), len(found.units.broken)) == (10, 0)
    assert p_better(found.units) == pytest.approx(binomial_tail(10, 10))
    # originals: candidate right on 14 (all but u14), simple on 3 (u0, u1, u10): 11 vs 0
    assert (found.accuracy.after, found.accuracy.before, len(found.accuracy.fixed)) == (14, 3, 11)
    assert p_better(found.accuracy) == pytest.approx(0.5 ** 11)
    assert verdict(found, 0.01)[0] == "pass"


def test_significantly_better_on_one_only_is_inconclusive_and_on_neither_fails():
    candidate = units("R" * 12 + "O" * 3)
    simple = units("O" * 12 + "R" * 3)  # originals: both right everywhere; ARS: 12 vs 3 discordant
    found = compare(candidate, simple)["s"]
    assert p_better(found.units) == pytest.approx(binomial_tail(12, 15))
    decided, why = verdict(found, 0.05)
    assert decided == "inconclusive" and "not on accuracy" in why
    assert verdict(found, 0.01)[0] == "fail"  # p = 0.0176: not significant at 0.01 on either


def test_a_simple_model_significantly_better_fails_the_gate():
    candidate = units("W" * 12 + "R" * 3)
    simple = units("R" * 15)
    decided, why = verdict(compare(candidate, simple)["s"], 0.01)
    assert decided == "fail" and "the simple model is significantly better" in why


def test_errored_units_are_left_out_of_both_comparisons():
    candidate = units("RRW")
    simple = units("RWW")
    simple[1]["status"] = "error"
    found = compare(candidate, simple)["s"]
    assert found.units.matched == 2 and found.accuracy.matched == 2


def test_the_simple_baseline_runs_the_same_cases_and_gates_on_them(run):
    result = run(["suites/invariance/adddiff.yaml", "suites/invariance/revnon.yaml", "suites/directional/revtgt.yaml",
                  "-q", "--model", "lexicon", "--absa-simple-baseline", "lexicon-sentence"])
    assert result.report is not None, result.out[-3000:]
    simple = result.report["simple_baseline"]
    assert simple["model"] == "lexicon-sentence" and simple["alpha"] == 0.01
    compared = simple["checkpoints"]["lexicon"]["builtin-restaurant"]
    source = result.report["sources"]["builtin-restaurant"]
    assert compared["ars_units"]["matched"] == source["units"]
    assert compared["ars_units"]["after"] == source["ars"]["k"]  # the candidate's side is the run's own ARS
    assert compared["original_accuracy"]["after"] == source["original_accuracy"]["k"]
    fixed, broken = len(compared["ars_units"]["fixed"]), len(compared["ars_units"]["broken"])
    assert compared["ars_units"]["p_candidate_better"] == pytest.approx(binomial_tail(fixed, fixed + broken))
    gates = {g["source"]: g for g in result.report["gates"] if g["gate"] == "simpler_not_better"}
    assert gates["builtin-restaurant"]["verdict"] == "pass"
    trait = result.report["readiness"]["a simpler model is not better"]
    assert trait["verdict"] in ("pass", "inconclusive") and "vs lexicon-sentence" in trait["evidence"]
    assert "candidate vs simple baseline lexicon-sentence" in result.summary
    # the simple model's answers are not cases of the run
    assert {c["model"] for c in result.report["cases"]} == {"lexicon"}


def test_a_simple_baseline_that_cannot_answer_fails_its_gate_with_one_message(run, tmp_path):
    (tmp_path / "flaky_model.py").write_text("def predict(queries):\n    raise RuntimeError('the GPU fell off')\n")
    models = tmp_path / "models.yaml"
    models.write_text("models:\n  broken: {kind: python, target: 'flaky_model:predict'}\n")
    result = run(["suites/invariance/adddiff.yaml", "-q", "--absa-models", str(models), "--model", "lexicon",
                  "--absa-simple-baseline", "broken"])
    assert result.code == 1, result.out[-3000:]
    gate = next(g for g in result.report["gates"] if g["gate"] == "simpler_not_better")
    assert gate["verdict"] == "fail" and "raised RuntimeError: the GPU fell off" in gate["reason"]
    assert "Traceback" not in result.out
    assert result.report["sources"]["builtin-restaurant"]["units"] > 0  # the candidate's results are kept


def test_an_unknown_simple_baseline_is_a_usage_error(run):
    result = run(["suites/invariance/adddiff.yaml", "-q", "--absa-simple-baseline", "lexicon-sentense"])
    assert result.code == 4
    assert "did you mean 'lexicon-sentence'" in result.out and "Traceback" not in result.out


def test_an_extraction_model_is_refused_as_a_simple_baseline(run, tmp_path):
    (tmp_path / "outputs.jsonl").write_text('{"sentence": "The soup tasted of lemongrass.", "text": "food: positive"}\n')
    result = run(["suites/invariance/adddiff.yaml", "-q", "--absa-simple-baseline",
                  f"extraction-replay:{tmp_path / 'outputs.jsonl'}"])
    assert result.code == 4 and "an extraction model; the simple baseline answers polarity queries" in result.out
    assert "Traceback" not in result.out
