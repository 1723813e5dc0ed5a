"""A model's labels are read by name, never by position: "0"/"1"/"2" (strings or ints) from a python model
are an error naming the model and the `labels:` fix, unless the models.yaml entry maps them; the same
rule for every adapter's answers (predictions.normalise), extraction answers and replay cells."""

from __future__ import annotations

from pathlib import Path

import pytest

from absa_checks.common.errors import AdapterError
from absa_checks.common.labels import label_map, polarity_word
from absa_checks.models.answers import normalise_answer
from absa_checks.models.predictions import normalise
from absa_checks.models.protocol import QueryError
from absa_checks.models.text_output import AnswerUnreadable, parse

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
    with pytest.raises(AnswerUnreadable, match="'1' is not a polarity"):
        parse("fries: 1")
    assert [(t.aspect, t.polarity) for t in parse("fries: mostly negative; staff: not negative, positive")] == \
        [("fries", "negative"), ("staff", "positive")]
    with pytest.raises(AnswerUnreadable, match="it only says what the sentiment is not"):
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


# ------------------------------------------------------------------ labels: checked when the entry is read

@pytest.mark.parametrize("labels, message", [
    ({0: "negative", "0": "positive", 1: "neutral", 2: "positive"},
     "labels gives the label 0 twice (0 and '0'"),
    ({"Pos": "positive", "pos": "positive", "neg": "negative"}, "labels gives the label pos twice ('Pos' and 'pos'"),
    ({1: "negative", " 01": "negative", 2: "neutral", 3: "positive"}, "labels gives the label 1 twice"),
    ({0: "negative", 1: "negative", 2: "positive"}, "labels maps 0 and 1 all to negative and nothing to neutral"),
    ({0: "positive", 1: "positive"}, "labels maps 0 and 1 all to positive and nothing to negative or neutral"),
    ({"bad": "negative", "awful": "negative", "good": "positive"}, "all to negative and nothing to neutral"),
    ({True: "positive", 0: "negative"}, "labels has the key True, which is neither a whole number nor a label name"),
    ({1.5: "positive"}, "labels has the key 1.5"),
    ({"": "positive"}, "labels has the key ''"),
])
def test_a_labels_mapping_is_refused_when_its_keys_clash_or_it_folds_outputs_together(labels, message):
    with pytest.raises(ValueError) as caught:
        label_map(labels, "model 'mine'")
    assert str(caught.value).startswith("model 'mine': ") and message in str(caught.value)


@pytest.mark.parametrize("labels, normal", [
    ({1: "negative", 2: "negative", 3: "neutral", 4: "positive", 5: "positive"},  # star ratings: all three named
     {"1": "negative", "2": "negative", "3": "neutral", "4": "positive", "5": "positive"}),
    ({0: "negative", 1: "neutral", "2": "POS"}, {"0": "negative", "1": "neutral", "2": "positive"}),
    ({"LABEL_0": "negative", "Label_1": "neutral", "label_2": "positive"},
     {"label_0": "negative", "label_1": "neutral", "label_2": "positive"}),
    ({0: "negative", 1: "positive"}, {"0": "negative", "1": "positive"}),  # a two-class head: one each
])
def test_a_labels_mapping_that_is_one_label_one_key_is_kept_normalised(labels, normal):
    assert label_map(labels, "model 'mine'") == normal


@pytest.mark.parametrize("answer, keys", [
    ({"positive": 0.6, "Positive": 0.1, "negative": 0.3}, "'positive' and 'Positive'"),
    ({"negative": 0.5, " NEGATIVE ": 0.5}, "'negative' and ' NEGATIVE '"),
    ({"positive": 0.6, "pos": 0.1, "negative": 0.3}, "'positive' and 'pos'"),
    ({0: 0.2, "0": 0.3, 1: 0.5}, "0 and '0'"),
])
def test_an_answer_with_two_keys_for_one_label_is_an_error_of_its_query_naming_them(answer, keys):
    mapping = label_map({0: "negative", 1: "neutral", 2: "positive"}, "model 'mine'")
    found = normalise(answer, "mine", mapping)
    assert isinstance(found, QueryError), found
    assert f"model 'mine' answered {keys} as two labels of one polarity" in found.message


def test_labels_that_a_mapping_shares_on_purpose_are_added():
    stars = label_map({1: "negative", 2: "negative", 3: "neutral", 4: "positive", 5: "positive"}, "model 'm'")
    found = normalise({1: 0.1, 2: 0.1, 3: 0.1, 4: 0.3, 5: 0.4}, "m", stars)
    assert found.label == "positive" and abs(found.as_dict()["positive"] - 0.7) < 1e-9


DUP_MODEL = """
def dup(queries):
    return [{"positive": 0.6, "Positive": 0.1, "negative": 0.3} for _ in queries]

def ints(queries):
    return [2 for _ in queries]
"""


@pytest.mark.parametrize("labels, message", [
    ("{0: negative, '0': positive, 1: neutral, 2: positive}", "labels gives the label 0 twice"),
    ("{0: negative, 1: negative, 2: positive}", "labels maps 0 and 1 all to negative and nothing to neutral"),
])
def test_a_clashing_labels_mapping_is_exit_4_before_the_run(tmp_path: Path, run, labels, message):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "suite.yaml").write_text(SUITE)
    (tmp_path / "dupmodel.py").write_text(DUP_MODEL)
    (tmp_path / "models.yaml").write_text(f"models:\n  bad: {{kind: python, target: 'dupmodel:ints', labels: {labels}}}\n")
    result = run(["suite.yaml", "--absa-model", "bad"], cwd=tmp_path)
    assert result.code == 4 and f"model 'bad': {message}" in result.out, result.out[-2000:]
    assert "Traceback" not in result.out and result.report is None


@pytest.mark.slow
def test_a_python_model_answering_one_label_in_two_cases_errors_every_case(tmp_path: Path, run):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "suite.yaml").write_text(SUITE)
    (tmp_path / "dupmodel.py").write_text(DUP_MODEL)
    (tmp_path / "models.yaml").write_text("models:\n  dup: {kind: python, target: 'dupmodel:dup'}\n")
    result = run(["suite.yaml", "--absa-model", "dup"], cwd=tmp_path)
    assert result.code == 1 and result.report["verdict"]["passed"] is False
    cases = result.report["cases"]
    assert cases and all(c["status"] == "error" and "answered 'positive' and 'Positive' as two labels of one "
                         "polarity" in c["reason"] for c in cases)
