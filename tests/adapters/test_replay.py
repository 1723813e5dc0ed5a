"""Replay matching: by record id (with ARTS's `_adv4` alias), else by sentence and term; missing -> error."""

from __future__ import annotations

import json

import pytest

from absa_checks.common.errors import AdapterError
from model_adapters.protocol import Query, QueryError
from model_adapters.replay import ReplayAdapter, normalise_id

CSV = """id,sentence,term,gold_label,m,other
1:1_0,The food is good.,food,positive,positive,negative
1:1_0_adv1,The food is bad.,food,negative,positive,negative
1:1_0_adv4,"The food is good, but service is slow.",food,positive,neutral,negative
9:9_0,Same text.,x,neutral,neutral,neutral
9:9_1,Same text.,x,neutral,positive,neutral
"""


@pytest.fixture
def replay(tmp_path):
    path = tmp_path / "preds.csv"
    path.write_text(CSV)
    return ReplayAdapter(path, "m")


def q(sentence: str, term: str, record_id: str | None = None) -> Query:
    start = sentence.index(term)
    return Query(sentence, term, start, start + len(term), record_id)


def test_matches_by_id_first(replay):
    # the id wins even where the text points elsewhere
    assert replay.predict([q("The food is good.", "food", "1:1_0_adv1")]) == ["positive"]


def test_adv4_in_the_file_answers_adv3_queries(replay):
    assert replay.predict([q("other food text", "food", "1:1_0_adv3")]) == ["neutral"]
    assert normalise_id("5:2_1_adv4") == "5:2_1_adv3"
    assert normalise_id("5:2_1_adv1") == "5:2_1_adv1"


def test_falls_back_to_sentence_and_term(replay):
    assert replay.predict([q("The food is bad.", "food")]) == ["positive"]
    assert replay.predict([q("The food is bad.", "food", "unknown-id")]) == ["positive"]


def test_missing_prediction_is_a_query_error(replay):
    [answer] = replay.predict([q("Never seen.", "seen", "7:7_0")])
    assert isinstance(answer, QueryError)
    assert "no 'm' prediction in preds.csv for record '7:7_0'" in answer.message


def test_conflicting_rows_for_one_text_are_not_guessed(replay):
    [answer] = replay.predict([q("Same text.", "x")])
    assert isinstance(answer, QueryError) and "different 'm' predictions" in answer.message
    assert replay.predict([q("Same text.", "x", "9:9_1")]) == ["positive"]


def test_unknown_column_lists_the_columns(tmp_path):
    path = tmp_path / "preds.csv"
    path.write_text(CSV)
    with pytest.raises(AdapterError, match="has no column 'bert'; its columns are: gold_label, id, m, other"):
        ReplayAdapter(path, "bert")


def test_missing_file_says_which_path(tmp_path):
    with pytest.raises(AdapterError, match="nope.csv' cannot be read"):
        ReplayAdapter(tmp_path / "nope.csv", "m")


def test_jsonl_with_probabilities(tmp_path):
    path = tmp_path / "preds.jsonl"
    rows = [{"id": "a", "sentence": "Good.", "term": "Good", "m": {"positive": 0.7, "negative": 0.3}}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    assert ReplayAdapter(path, "m").predict([q("Good.", "Good", "a")]) == [{"positive": 0.7, "negative": 0.3}]


def test_fingerprint_depends_on_file_and_column(tmp_path, replay):
    assert replay.fingerprint() == ReplayAdapter(replay.path, "m").fingerprint()
    assert replay.fingerprint() != ReplayAdapter(replay.path, "other").fingerprint()


def test_an_id_repeated_with_another_prediction_is_an_error_with_its_lines(tmp_path):
    path = tmp_path / "dup.csv"
    path.write_text(CSV + "1:1_0,The food is good.,food,positive,negative,negative\n")
    with pytest.raises(AdapterError, match=r"dup.csv:7: the id '1:1_0' appears again \(first on line 2\) with "
                                           r"another 'm' prediction; keep one row per id"):
        ReplayAdapter(path, "m")
    path.write_text(CSV + "1:1_0,The food is good.,food,positive,positive,negative\n")  # the same: harmless
    assert ReplayAdapter(path, "m").predict([q("The food is good.", "food", "1:1_0")]) == ["positive"]


def test_a_bad_label_cell_errors_only_its_own_query(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text(CSV.replace("1:1_0_adv1,The food is bad.,food,negative,positive", "1:1_0_adv1,The food is bad.,"
                                "food,negative,postive"))
    adapter = ReplayAdapter(path, "m")
    good, bad = adapter.predict([q("The food is good.", "food", "1:1_0"), q("The food is bad.", "food", "1:1_0_adv1")])
    assert good == "positive"
    assert isinstance(bad, QueryError) and bad.message.startswith("bad.csv:3: 'postive' in column 'm' is not a polarity")


def test_a_non_utf8_replay_file_is_one_message(tmp_path):
    path = tmp_path / "latin.csv"
    path.write_bytes(CSV.replace("Same text.", "Caf\xe9 text.").encode("latin-1"))
    with pytest.raises(AdapterError, match=r"latin.csv:5: not UTF-8 text \(byte 0xe9\); save the replay file as UTF-8"):
        ReplayAdapter(path, "m")


def test_replaying_the_gold_column_is_refused_with_the_columns_to_choose_from(tmp_path):
    """`--model replay:full.csv#gold_label` used to PASS at 100%: the data's answers replayed as a model (issue 35,
    probe 18)."""
    path = tmp_path / "full.csv"
    path.write_text(CSV)
    with pytest.raises(AdapterError) as err:
        ReplayAdapter(path, "gold_label")
    assert str(err.value) == ("replay:full.csv#gold_label: the column 'gold_label' is the data's gold labels, "
                              "so every original would be right by construction and the run would pass whatever the "
                              "model; name the column of a model's predictions (the columns: gold_label, id, m, other, "
                              "sentence, term)")
    rows = "".join(f"{i},Sentence {i}.,Sentence,{p},{p.upper()},{p}\n"
                   for i, p in enumerate(["positive", "negative", "neutral"] * 7))
    path.write_text("id,sentence,term,gold_label,copy,m\n" + rows)
    with pytest.raises(AdapterError, match=r"the column 'copy' equals the gold column 'gold_label' on all 21 rows: "
                                           r"a copy of it, so every original would be right by construction"):
        ReplayAdapter(path, "copy")
    path.write_text("id,sentence,term,gold_label,copy,m\n" + "".join(rows.splitlines(True)[:19]))
    assert ReplayAdapter(path, "copy").predict([q("Sentence 1.", "Sentence", "1")]) == ["NEGATIVE"]  # a few rows: a model
    path.write_text('{"sentence": "Sentence 1.", "term": "Sentence", "label": "negative"}\n')
    jsonl = path.with_suffix(".jsonl")
    path.rename(jsonl)
    assert ReplayAdapter(jsonl, "label").predict([q("Sentence 1.", "Sentence")]) == ["negative"]  # a model's own outputs
