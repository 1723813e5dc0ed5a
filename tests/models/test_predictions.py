"""Probabilities that do not sum to one: within SUM_TOLERANCE divided by their sum (rounding); beyond it divided
too, but counted in the report and shown once as a warning; negative, NaN or all zero are an error."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from absa_checks.common.errors import AdapterError
from absa_checks.models.predictions import SUM_TOLERANCE, normalise, renormalised
from absa_checks.reports.terminal import renormalised_lines
from model_adapters.openai_adapter import OpenAIAdapter

SUITE = """suite: sums
tests:
  - name: adddiff
    strategy: adddiff
    sources: [builtin-restaurant]
    sample: 6
"""

MODEL = """
def scores(queries):
    return [{"negative": 1.0, "neutral": 0.5, "positive": 6.5} for _ in queries]

def rounded(queries):
    return [{"negative": 0.33, "neutral": 0.33, "positive": 0.33} for _ in queries]
"""


@pytest.mark.parametrize("answer, given, counted", [
    ({"negative": 0.2, "neutral": 0.3, "positive": 0.5}, 1.0, False),
    ({"negative": 0.33, "neutral": 0.33, "positive": 0.33}, 0.99, False),  # rounded to two decimals
    ({"negative": 0.1, "neutral": 0.1, "positive": 0.1}, 0.3, True),
    ({"negative": 1.0, "neutral": 0.5, "positive": 6.5}, 8.0, True),      # scores, not probabilities
    ("positive", 1.0, False),
])
def test_an_answer_off_one_beyond_the_tolerance_is_marked_renormalised(answer, given, counted):
    found = normalise(answer, "mine")
    assert math.isclose(sum(found.probs), 1.0) and math.isclose(found.given_sum, given)
    assert found.renormalised is counted and renormalised([found, found]) == 2 * counted
    assert SUM_TOLERANCE == 0.02


@pytest.mark.parametrize("answer", [{"negative": -0.1, "neutral": 0.5, "positive": 0.6},
                                    {"negative": float("nan"), "neutral": 0.5, "positive": 0.5},
                                    {"negative": 0.0, "neutral": 0.0, "positive": 0.0}])
def test_negative_nan_or_all_zero_probabilities_are_an_error(answer):
    with pytest.raises(AdapterError, match="they must be non-negative and not all zero"):
        normalise(answer, "mine")


def test_log_probabilities_are_the_polarities_share_and_never_counted():
    logprobs = {"content": [{"top_logprobs": [{"token": "positive", "logprob": math.log(0.6)},
                                              {"token": "Negative", "logprob": math.log(0.2)},
                                              {"token": "The", "logprob": math.log(0.15)}]}]}
    shares = OpenAIAdapter._probabilities(logprobs)
    assert shares is not None and math.isclose(shares["positive"], 0.75) and math.isclose(sum(shares.values()), 1)
    assert not normalise(shares, "llm").renormalised


def test_the_warning_names_each_checkpoint_and_is_not_shown_when_nothing_was_renormalised():
    assert renormalised_lines({"renormalised": 0}) == [] and renormalised_lines({}) == []
    per = {"per_checkpoint": {"a": {"renormalised": 3}, "b": {"renormalised": 0}, "c": {"renormalised": 1}}}
    assert renormalised_lines(per) == ["warning: 4 answers (a 3, c 1) gave probabilities that do not sum to 1 (off "
                                       "by more than 0.02); they were divided by their sum: scores or logits are "
                                       "not probabilities"]


def test_a_model_answering_scores_is_counted_in_the_report_and_warned_once(tmp_path: Path, run):
    """It used to be divided by the sum without a word: scores read as probabilities, the run PASSED alike."""
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "suite.yaml").write_text(SUITE)
    (tmp_path / "summodel.py").write_text(MODEL)
    (tmp_path / "models.yaml").write_text("models:\n  scores: {kind: python, target: 'summodel:scores'}\n"
                                          "  rounded: {kind: python, target: 'summodel:rounded'}\n")
    scored = run(["suite.yaml", "--absa-model", "scores"], cwd=tmp_path)
    predictions = scored.report["timing"]["predictions"]
    assert predictions["renormalised"] == predictions["predicted"] > 0, scored.out[-2000:]
    warning = (f"warning: {predictions['predicted']} answers gave probabilities that do not sum to 1 (off by more "
               "than 0.02); they were divided by their sum: scores or logits are not probabilities")
    assert scored.out.count(warning) == 1
    assert scored.report["summary"]["errors"] == 0  # scored as answered: a warning, not an error
    kept = run(["suite.yaml", "--absa-model", "rounded"], cwd=tmp_path)
    assert kept.report["timing"]["predictions"]["renormalised"] == 0 and "warning: " not in kept.out
