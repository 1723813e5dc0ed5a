"""A repeated id, a misspelt polarity, a JSON key written twice: each a data issue naming the file, the id
and what was done, never silently merged or dropped; `generate` shows them (issue 35, probes 37, 39, 51)."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest

from absa_checks.cli import main
from absa_checks.common.errors import DataError
from absa_checks.sources.arts import load_arts
from absa_checks.sources.gold import semeval_sentences
from absa_checks.sources.semeval import SemevalSentence
from absa_checks.sources.towe import read_towe_json
from absa_checks.suites.files import load_file

SOUP = "The soup was bland but the staff were friendly."
PIZZA = "The pizza was great but the service was slow."


def _xml(first_id: str, second_id: str, soup_polarity: str = "negative") -> str:
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<sentences>
  <sentence id="{first_id}">
    <text>{SOUP}</text>
    <aspectTerms>
      <aspectTerm term="soup" polarity="{soup_polarity}" from="4" to="8"/>
      <aspectTerm term="staff" polarity="positive" from="27" to="32"/>
    </aspectTerms>
  </sentence>
  <sentence id="{second_id}">
    <text>{PIZZA}</text>
    <aspectTerms>
      <aspectTerm term="pizza" polarity="positive" from="4" to="9"/>
      <aspectTerm term="service" polarity="negative" from="28" to="35"/>
    </aspectTerms>
  </sentence>
</sentences>
"""


def _issues(loaded, kind):
    return [i for i in loaded.issues if i.kind == kind]


def test_a_repeated_semeval_sentence_id_is_a_data_issue_naming_both(tmp_path):
    path = tmp_path / "dup.xml"
    path.write_text(_xml("100", "100"))
    loaded = load_file(path)
    [issue] = _issues(loaded, "duplicate_id")
    assert issue.action == "dropped" and issue.record_id == "100"
    assert "dup.xml" in issue.message and "'100'" in issue.message
    assert "<sentence> 1" in issue.message and "<sentence> 2" in issue.message and "The pizza" in issue.message
    # the units are the first sentence's, each once, each with its own sentence
    assert sorted(u.unit_id for u in loaded.units) == ["100_0", "100_1"]
    assert {u.original.sentence for u in loaded.units} == {SOUP}


def test_generate_on_repeated_ids_pairs_no_unit_with_another_sentence_and_its_counts_add_up(tmp_path, capsys):
    path, out = tmp_path / "dup.xml", tmp_path / "dup.jsonl"
    path.write_text(_xml("100", "100"))
    assert main(["generate", "--input", str(path), "--out", str(out)]) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert records and all(r["original"]["sentence"] == SOUP for r in records)
    assert len({json.dumps(r, sort_keys=True) for r in records}) == len(records)  # no line twice
    err = capsys.readouterr().err
    wrote = int(re.search(r"wrote (\d+) variants", err).group(1))
    per_strategy = sum(int(n) for n in re.findall(r"^  \w+: (\d+) variants", err, re.M))
    assert wrote == per_strategy == len(records)
    assert "duplicate_id" in err and "sentence id '100' is used twice" in err


def test_a_misspelt_semeval_polarity_is_a_data_issue_with_a_did_you_mean(tmp_path, capsys):
    path = tmp_path / "typo.xml"
    path.write_text(_xml("100", "101", soup_polarity="negtive"))
    loaded = load_file(path)
    [issue] = _issues(loaded, "unknown_polarity")
    assert issue.record_id == "100_0" and issue.action == "reported"
    for part in ("typo.xml", "sentence '100'", "'soup'", "'negtive'", "did you mean 'negative'?"):
        assert part in issue.message
    assert main(["generate", "--input", str(path), "--out", str(tmp_path / "typo.jsonl")]) == 0
    err = capsys.readouterr().err
    assert "1 data issue while loading: 1 unknown_polarity (reported)" in err and "'negtive'" in err


def test_a_json_key_written_twice_in_an_arts_file_is_a_data_issue(tmp_path, capsys):
    def record(sentence, term, polarity, start):
        return (f'{{"sentence": "{sentence}", "term": "{term}", "polarity": "{polarity}", "id": "1_0", '
                f'"from": {start}, "to": {start + len(term)}}}')

    path = tmp_path / "dup.json"
    path.write_text('{"1_0": ' + record(SOUP, "soup", "negative", 4) + ',\n "2_0": '
                    + record(PIZZA, "pizza", "positive", 4) + ',\n "1_0": '
                    + record("The wine was cheap.", "wine", "positive", 4) + "}\n")
    loaded = load_arts(path, "dup")
    [issue] = _issues(loaded, "duplicate_id")
    assert issue.record_id == "1_0" and issue.action == "dropped" and "dup.json" in issue.message
    assert {u.unit_id: u.original.sentence for u in loaded.units}["1_0"] == SOUP  # the first, as the message says
    assert main(["generate", "--input", str(path), "--out", str(tmp_path / "v.jsonl")]) == 0
    assert "the record id '1_0' is used twice" in capsys.readouterr().err


def test_a_field_written_twice_in_an_arts_record_drops_that_record_naming_it(tmp_path):
    path = tmp_path / "twice.json"
    path.write_text('{"1_0": {"sentence": "' + SOUP + '", "term": "soup", "polarity": "negative", '
                    '"polarity": "positive", "id": "1_0", "from": 4, "to": 8}}\n')
    loaded = load_arts(path, "twice")
    [issue] = _issues(loaded, "duplicate_key")
    assert "'polarity' twice" in issue.message and "twice.json" in issue.message and not loaded.units


def test_a_sentence_id_written_twice_in_a_towe_or_sentence_grouped_file_is_a_data_issue(tmp_path):
    entry = {"sentence": SOUP, "term_list": {"1": {"term": "soup", "from": 4, "to": 8, "polarity": "negative",
                                                  "opinion_words": ["bland"], "opinion_position": [[13, 18]]}}}
    text = json.dumps(entry)
    path = tmp_path / "x_sent_towe.json"
    path.write_text('{"7": ' + text + ', "7": ' + text + "}\n")
    issues: list = []
    read_towe_json(path, [SemevalSentence("7", SOUP, ())], "towe", issues)
    assert [(i.kind, i.record_id, i.action) for i in issues if i.kind == "duplicate_id"] == [("duplicate_id", "7",
                                                                                                "dropped")]
    loaded = load_file(path)
    [issue] = _issues(loaded, "duplicate_id")
    assert "sentence id '7' is used twice" in issue.message and "x_sent_towe.json" in issue.message
    assert [u.unit_id for u in loaded.units] == ["7_0"]


def test_the_extraction_gold_refuses_a_repeated_sentence_id_naming_it(tmp_path):
    path = tmp_path / "gold.xml"
    path.write_text(_xml("100", "100"))
    with pytest.raises(DataError, match=r"gold.xml: sentence id '100' is used twice, by <sentence> 1 and <sentence> 2"):
        semeval_sentences(path)


def test_generate_refuses_units_that_share_an_id_rather_than_write_the_wrong_variants(tmp_path):
    from absa_checks.common.errors import AbsaChecksError
    from absa_checks.perturb.engine import Settings
    from absa_checks.sources.base import LoadedSource
    from absa_checks.workflows import generate

    loaded = load_file(_write(tmp_path / "two.xml", _xml("100", "101")))
    twins = LoadedSource("two", tuple(replace(u, unit_id="100_0") if u.unit_id == "101_0" else u
                                      for u in loaded.units), domain="restaurant")
    with pytest.raises(AbsaChecksError, match=r"two: two units share the id '100_0'"):
        generate.run(twins, ["revtgt"], Settings(0, ()))


def _write(path, text):
    path.write_text(text)
    return path


def test_a_misspelt_arts_polarity_names_the_file_record_and_the_likely_label(tmp_path):
    path = _write(tmp_path / "typo.json", '{"1_0": {"sentence": "' + SOUP + '", "term": "soup", "polarity": "postive", '
                  '"id": "1_0", "from": 4, "to": 8}}\n')
    [issue] = _issues(load_arts(path, "typo"), "unknown_polarity")
    assert "typo.json: record '1_0': polarity 'postive'" in issue.message and "did you mean 'positive'?" in issue.message
