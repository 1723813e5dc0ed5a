"""The ARTS loader: units grouped by id, known defects repaired or reported, never a crash."""

from __future__ import annotations

import json
from collections import Counter

from absa_checks.sources import DataMissing, load_dataset
from absa_checks.sources.arts import load_arts, split_record_key
from absa_checks.sources.spans import repair_span
from conftest import SHARED_DATA, needs_shared_data


def test_record_keys():
    assert split_record_key("0:14_0_adv1") == ("0:14_0", "revtgt")
    assert split_record_key("0:14_0_adv2") == ("0:14_0", "revnon")
    assert split_record_key("0:14_0_adv3") == ("0:14_0", "adddiff")
    assert split_record_key("0:14_0_adv4") == ("0:14_0", "adddiff")
    assert split_record_key("0:14_0") == ("0:14_0", None)


def test_span_repairs():
    assert repair_span("Startup disk was slow", "startup disk", 0, 12).term == "Startup disk"
    spaced = repair_span('There is " tools " menu.', '"tools" menu', 9, 21)
    assert (spaced.term, spaced.start, spaced.end) == ('" tools " menu', 9, 23)
    moved = repair_span("a pizza and the pizza", "pizza", 15, 20)
    assert (moved.start, moved.end) == (16, 21)
    assert repair_span("do not be weary of the delivery.", "delivary", 23, 31).term == "delivery"
    assert repair_span("nothing here", "pizza", 0, 5) is None
    assert repair_span("the pizza", "pizza", 4, 9).note == ""


def test_defects_in_a_small_file(tmp_path):
    records = {
        "1_0": {"sentence": "The pizza and the pizza crust.", "term": "pizza", "polarity": "positive",
                "id": "1_0", "from": 18, "to": 23},
        # the generator pointed the variant's span at the first pizza: moved back to the second
        "1_0_adv1": {"sentence": "The pizza and the pizza crust.", "term": "pizza", "polarity": "negative",
                     "id": "1_0", "from": 4, "to": 9},
        "1_0_adv2": {"sentence": "The pizza and the pizza crust.", "term": "pizza", "polarity": "positive",
                     "id": "1_0", "from": 18, "to": 23},
        "2_0": {"sentence": "Great screen.", "term": "screen", "polarity": "bogus", "id": "2_0", "from": 6, "to": 12},
        "3_0": {"sentence": "Nice keys.", "term": "keys", "polarity": "positive", "id": "3_0", "from": 5, "to": 9},
        "3_0_adv3": {"sentence": "Nice keys, but slow fan.", "term": "nothing", "polarity": "positive",
                     "id": "3_0", "from": 90, "to": 95},
        "4_0_adv1": {"sentence": "Orphan.", "term": "Orphan", "polarity": "positive", "id": "4_0", "from": 0, "to": 6},
        "5_0": {"sentence": "missing fields"},
    }
    path = tmp_path / "arts.json"
    path.write_text(json.dumps(records))
    loaded = load_arts(path, "arts-tiny")
    kinds = Counter((issue.kind, issue.action) for issue in loaded.issues)
    assert kinds == Counter({("span_moved", "repaired"): 1, ("contradictory_labels", "reported"): 1,
                             ("unknown_polarity", "dropped"): 1, ("span_mismatch", "dropped"): 1,
                             ("orphan_variant", "dropped"): 1, ("malformed_record", "dropped"): 1})
    units = {unit.unit_id: unit for unit in loaded.units}
    assert sorted(units) == ["1_0", "3_0"]
    assert units["1_0"].given["revtgt"][0].example.target.start == 18
    assert units["3_0"].given == {}


def test_absent_data_says_how_to_get_it(tmp_path):
    try:
        load_dataset("arts-laptop", None)
    except DataMissing as missing:
        assert "--absa-data DIR" in str(missing) and "ARTS_TestSet" in str(missing)
    try:
        load_dataset("arts-laptop", tmp_path)
    except DataMissing as missing:
        assert "laptop_test_enriched.json not found" in str(missing)


@needs_shared_data
def test_published_arts_sets_load_with_their_known_defects():
    laptop = load_dataset("arts-laptop", SHARED_DATA)
    rest = load_dataset("arts-restaurant", SHARED_DATA)
    assert len(laptop.units) == 638 and len(rest.units) == 1120
    shapes = Counter(tuple(sorted(unit.given)) for unit in laptop.units)
    assert shapes == Counter({("adddiff", "revtgt"): 331, ("adddiff",): 172, ("adddiff", "revnon", "revtgt"): 135})
    issues = laptop.issues + rest.issues
    mismatched = {i.record_id for i in issues if i.kind == "span_mismatch"}
    assert mismatched == {"279:2_0_adv1", "29:1175_0_adv1", "933:1_0_adv1", "11350539#680470#2_0_adv1",
                          "11359613#884374#3_0_adv1", "32889544#0#4_1_adv3"}
    assert all(i.action == "repaired" for i in issues if i.kind == "span_mismatch")
    assert sum(i.kind == "term_changed" for i in issues) == 8  # the 9th differs only in case
    assert {i.record_id for i in issues if i.kind == "contradictory_labels"} == {"460:1_0", "460:1_1"}
    for unit in laptop.units + rest.units:
        for example in [unit.original] + [v.example for found in unit.given.values() for v in found]:
            t = example.target
            assert example.sentence[t.start:t.end] == t.term


EMPTY = {"1_0": {"sentence": "The pizza was great.", "term": "pizza", "polarity": "positive", "id": "1_0",
                 "from": 4, "to": 9},
         "1_0_adv3": {"sentence": "The pizza was great, but the service was slow.", "term": "pizza",
                      "polarity": "positive", "id": "1_0", "from": 4, "to": 9},
         "2_0": {"sentence": "", "term": "", "polarity": "negative", "id": "2_0", "from": 0, "to": 0},
         "2_0_adv3": {"sentence": "", "term": "", "polarity": "negative", "id": "2_0", "from": 0, "to": 0},
         "3_0": {"sentence": "Nice keys.", "term": " ", "polarity": "positive", "id": "3_0", "from": 0, "to": 0}}


def test_a_record_with_an_empty_sentence_or_term_is_a_data_issue_never_a_unit(tmp_path):
    path = tmp_path / "arts.json"
    path.write_text(json.dumps(EMPTY))
    loaded = load_arts(path, "arts-tiny")
    assert [unit.unit_id for unit in loaded.units] == ["1_0"]
    empty = {issue.record_id: issue for issue in loaded.issues if issue.kind == "empty_field"}
    assert sorted(empty) == ["2_0", "2_0_adv3", "3_0"] and all(i.action == "dropped" for i in empty.values())
    assert f"{path}: record '2_0' has an empty sentence and an empty term" in empty["2_0"].message
    assert "record '3_0' has an empty term;" in empty["3_0"].message
    assert [issue.kind for issue in loaded.issues] == ["empty_field"] * 3  # not "repaired" as a span_mismatch
    assert repair_span("", "", 0, 0) is None and repair_span("Nice keys.", "", 0, 0) is None


def test_an_empty_arts_record_is_counted_in_the_report_and_never_scored(run, tmp_path):
    data = tmp_path / "data" / "arts" / "arts_testset"
    data.mkdir(parents=True)
    (data / "laptop_test_enriched.json").write_text(json.dumps(EMPTY))
    (tmp_path / "suite.yaml").write_text("suite: tiny\ntests:\n  - name: adddiff\n    strategy: adddiff\n"
                                         "    sources: [arts-laptop]\n")
    result = run(["suite.yaml", "--model", "lexicon", "--absa-data", str(tmp_path / "data")], cwd=tmp_path)
    assert result.report is not None, result.out[-3000:]
    assert [case["unit"] for case in result.report["cases"]] == ["1_0"]
    empty = [i for i in result.report["data_issues"] if i["kind"] == "empty_field"]
    assert [i["record_id"] for i in empty] == ["2_0", "2_0_adv3", "3_0"]
    assert "laptop_test_enriched.json: record '2_0' has an empty sentence" in empty[0]["message"]
    assert "3 data issues" in result.summary
