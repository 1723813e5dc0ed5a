"""A model's labels are read by name, never by position: "0"/"1"/"2" (strings or ints) from a python model
are an error naming the model and the `labels:` fix, unless the models.yaml entry maps them; the same
rule for every adapter's answers (predictions.normalise), extraction answers and replay cells."""

from __future__ import annotations

from pathlib import Path

import pytest

from absa_checks.errors import AdapterError
from absa_checks.extraction.answers import normalise_answer
from absa_checks.extraction.text_output import OutputError, parse
from absa_checks.labels import label_map, polarity_word
from absa_checks.predictions import normalise

SUITE = """suite: numbers
tests:
  - name: adddiff
    strategy: adddiff
    sources: [builtin-restaurant]
    sample: 8
"""

MODEL = """
def strings(queries):
    return ["1" for _ in queries]

def ints(queries):
    return [2 for _ in queries]

def scores(queries):
    return [{0: 0.1, 1: 0.2, 2: 0.7} for _ in queries]
"""


@pytest.mark.parametrize("answer", ["0", "1", "2", "-1", 1, 0, "LABEL_1", {0: 0.2, 1: 0.8}, {"1": 1.0}])
def test_a_numeric_label_is_never_read_as_a_polarity(answer):
    with pytest.raises(AdapterError, match=r"model 'mine' answered the label .*which is not a polarity but a number.*"
                                           r"labels: \{0: negative, 1: neutral, 2: positive\}"):
        normalise(answer, "mine")


def test_a_mapped_numeric_label_is_read_through_the_mapping():
    mapping = label_map({0: "negative", 1: "neutral", "2": "POS"}, "model 'mine'")
    assert normalise("2", "mine", mapping).label == "positive"
    assert normalise(0, "mine", mapping).label == "negative"
    assert normalise({0: 0.1, 1: 0.7, 2: 0.2}, "mine", mapping).label == "neutral"
    with pytest.raises(ValueError, match="labels maps 3 to 'good', which is not a polarity"):
        label_map({3: "good"}, "model 'mine'")


def test_words_are_still_read_by_name():
    assert [polarity_word(w) for w in ("Positive", "NEG", "neu", " negative ")] == \
        ["positive", "negative", "neutral", "negative"]
    assert normalise({"POS": 0.9, "neg": 0.1}, "mine").label == "positive"


def test_extraction_answers_never_read_numbers_as_polarities():
    with pytest.raises(AdapterError, match="which is not a polarity"):
        normalise_answer([{"aspect": "fries", "polarity": "1"}], "tagger")
    with pytest.raises(OutputError, match="'1' is not a polarity"):
        parse("fries: 1")
    assert [(t.aspect, t.polarity) for t in parse("fries: mostly negative; staff: not negative, positive")] == \
        [("fries", "negative"), ("staff", "positive")]
    with pytest.raises(OutputError, match="it only says what the sentiment is not"):
        parse("fries: not negative")


@pytest.mark.parametrize("function", ["strings", "ints", "scores"])
def test_a_python_model_answering_numbers_errors_with_the_fix_and_runs_once_mapped(tmp_path: Path, run, function):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "suite.yaml").write_text(SUITE)
    (tmp_path / "numbermodel.py").write_text(MODEL)
    (tmp_path / "models.yaml").write_text(
        f"models:\n  numbers: {{kind: python, target: 'numbermodel:{function}'}}\n"
        f"  mapped: {{kind: python, target: 'numbermodel:{function}', labels: {{0: negative, 1: neutral, "
        "2: positive}}\n")
    refused = run(["suite.yaml", "--absa-model", "numbers"], cwd=tmp_path)
    assert refused.code == 1 and refused.report["verdict"]["passed"] is False
    errors = [c for c in refused.report["cases"] if c["status"] == "error"]
    assert len(errors) == len(refused.report["cases"]) > 0  # every case an error, none scored as a polarity
    assert all("model 'numbers' answered the label" in c["reason"] and "which is not a polarity but a number" in c["reason"]
               and "labels: {0: negative, 1: neutral, 2: positive}" in c["reason"] for c in errors)
    mapped = run(["suite.yaml", "--absa-model", "mapped"], cwd=tmp_path)
    assert mapped.report["summary"]["errors"] == 0 and mapped.report["summary"]["cases"] > 0, mapped.out[-2000:]
    assert mapped.report["run"]["model"]["labels"] == {"0": "negative", "1": "neutral", "2": "positive"}


def test_a_labels_mapping_that_names_no_polarity_is_exit_4(tmp_path: Path, run):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "suite.yaml").write_text(SUITE)
    (tmp_path / "numbermodel.py").write_text(MODEL)
    (tmp_path / "models.yaml").write_text("models:\n  bad: {kind: python, target: 'numbermodel:ints', "
                                          "labels: {2: good}}\n")
    result = run(["suite.yaml", "--absa-model", "bad"], cwd=tmp_path)
    assert result.code == 4 and "model 'bad': labels maps 2 to 'good', which is not a polarity" in result.out
    assert "Traceback" not in result.out
