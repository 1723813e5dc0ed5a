"""`absa-checks generate`: one JSON object per variant, or the ARTS layout; quarantined attempts on request."""

from __future__ import annotations

import json

import pytest

from absa_checks.cli import main

SENTENCES = """\
# two sentences in the project's markup
The [burgers|pos] were {delicious|burgers}, but the [fries|neg] were {soggy|fries}.
The [soup|neg] was {cold|soup} and the [bread|neg] was {stale|bread}.
"""


@pytest.fixture
def marked(tmp_path):
    path = tmp_path / "mine.txt"
    path.write_text(SENTENCES)
    return path


def test_jsonl_has_one_object_per_variant_with_spans_and_edits(marked, tmp_path, capsys):
    out = tmp_path / "variants.jsonl"
    assert main(["generate", "--input", str(marked), "--strategies", "revtgt,revnon,adddiff", "--out", str(out),
                 "--k", "2", "--quarantine", str(tmp_path / "rejected.jsonl")]) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert {r["strategy"] for r in records} == {"revtgt", "revnon", "adddiff"}
    for record in records:
        assert {"strategy", "sentence", "term", "from", "to", "polarity", "unit", "edits", "original"} <= set(record)
        assert record["sentence"][record["from"]:record["to"]] == record["term"]
        assert record["edits"]
    burgers = next(r for r in records if r["strategy"] == "revtgt" and r["term"] == "burgers")
    assert burgers["polarity"] == "negative" and burgers["original"]["polarity"] == "positive"
    adddiff = [r for r in records if r["strategy"] == "adddiff"]
    assert all(len(r["other_aspects"]) >= 2 for r in adddiff)  # k=2 appended aspects (+ the sentence's own)
    assert (tmp_path / "rejected.jsonl").exists()
    assert "wrote" in capsys.readouterr().err


def test_arts_layout_groups_variants_by_unit(marked, tmp_path):
    out = tmp_path / "arts.json"
    assert main(["generate", "--input", str(marked), "--strategies", "revtgt,adddiff", "--out", str(out)]) == 0
    records = json.loads(out.read_text())
    originals = [key for key in records if "_adv" not in key]
    assert originals and all(f"{key}_adv1" in records and f"{key}_adv3" in records for key in originals)
    assert all(record["id"] in originals for record in records.values())


def test_the_same_seed_gives_the_same_file(marked, tmp_path):
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for out in (first, second):
        main(["generate", "--input", str(marked), "--out", str(out), "--seed", "3"])
    assert first.read_text() == second.read_text()


def test_bad_arguments_are_one_line(tmp_path, capsys):
    assert main(["generate", "--input", str(tmp_path / "none.xml"), "--out", str(tmp_path / "x.jsonl")]) == 2
    assert "no such file" in capsys.readouterr().err
    (tmp_path / "a.txt").write_text("The [soup|pos] was {hot|soup}.\n")
    assert main(["generate", "--input", str(tmp_path / "a.txt"), "--strategies", "revtgtt",
                 "--out", str(tmp_path / "x.jsonl")]) == 2
    assert "unknown revtgtt" in capsys.readouterr().err
