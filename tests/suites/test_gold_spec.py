"""`gold: {expanded: FILE}` in an extraction test (issue 38), and the older `expanded:` per source."""

from __future__ import annotations

import textwrap

import pytest

from absa_checks.common.errors import SpecError
from absa_checks.suites.spec import parse_suite

HEAD = "suite: x\ntests:\n  - name: e\n    task: extraction\n"


def _parse(tmp_path, text):
    path = tmp_path / "suite.yaml"
    path.write_text(HEAD + textwrap.indent(textwrap.dedent(text), "    "))
    return parse_suite(path, ()).extraction_tests[0]


def test_one_file_for_one_source_or_one_per_source(tmp_path):
    assert _parse(tmp_path, "sources: [asqp-rest15]\ngold: {expanded: a.jsonl}\n").expanded == (("asqp-rest15", "a.jsonl"),)
    found = _parse(tmp_path, "sources: [asqp-rest15, asqp-rest16]\n"
                             "gold: {expanded: {asqp-rest15: a.jsonl, asqp-rest16: b.jsonl}}\n").expanded
    assert found == (("asqp-rest15", "a.jsonl"), ("asqp-rest16", "b.jsonl"))
    assert _parse(tmp_path, "sources: [asqp-rest15]\nexpanded: {asqp-rest15: a.jsonl}\n").expanded == \
        (("asqp-rest15", "a.jsonl"),)
    test = _parse(tmp_path, "sources: [asqp-rest15]\ngates: {min_pair_f1_expanded: 0.5}\n")
    assert test.gates == {"min_pair_f1_expanded": 0.5}


@pytest.mark.parametrize("text, said", [
    ("sources: [asqp-rest15, asqp-rest16]\ngold: {expanded: a.jsonl}\n", "one file for 2 sources: give one per source"),
    ("sources: [asqp-rest15]\ngold: {expanded: a.jsonl}\nexpanded: {asqp-rest15: a.jsonl}\n",
     "give the expanded gold once"),
    ("sources: [asqp-rest15]\ngold: {extended: a.jsonl}\n", "unknown key 'extended'"),
    ("sources: [asqp-rest15]\ngold: {}\n", "gold: give expanded: FILE"),
    ("sources: [asqp-rest15]\ngold: {expanded: {asqp-rest16: a.jsonl}}\n", "unknown key 'asqp-rest16'"),
])
def test_a_mistake_names_the_line_and_the_fix(tmp_path, text, said):
    with pytest.raises(SpecError) as caught:
        _parse(tmp_path, text)
    assert said in str(caught.value) and "suite.yaml:" in str(caught.value)
