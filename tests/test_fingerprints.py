"""Whole fingerprints and unmerged identities (issue 24, mechanism 3): the run fingerprint covers every
input that decides a case and `absa-checks merge` names the one that differs; local sources are scoped
to their suite file; a name or a key given twice in models.yaml, or a sentence stored twice in an
extraction replay, is an error naming both lines."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from test_extraction_models import SUITE as TINY_SUITE

from conftest import REPO


def test_a_sentence_stored_twice_with_other_answers_is_an_error_naming_both_lines(tmp_path, run):
    """The last line used to win silently; an identical repeat stays harmless (as for replay ids)."""
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "suite.yaml").write_text(TINY_SUITE)
    lines = [{"sentence": "The fries were soggy.", "aspects": [{"aspect": "fries", "polarity": "negative"}]},
             {"sentence": "The staff was kind.", "text": "staff: positive"},
             {"sentence": "The fries were soggy, but the beer was great.", "text": "fries: negative; beer: positive"},
             {"sentence": "The staff was kind, but the room was dirty.", "text": "staff: positive; room: negative"},
             {"sentence": "The staff was kind.", "text": "staff: positive"}]  # the same answer again: harmless

    def write(rows):
        (tmp_path / "out.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))

    write(lines)
    same = run(["suite.yaml", "--absa-model", "extraction-replay:out.jsonl"], cwd=tmp_path)
    assert same.code == 0, same.out
    write(lines + [{"sentence": "The fries were soggy.", "aspects": [{"aspect": "fries", "polarity": "positive"}]}])
    other = run(["suite.yaml", "--absa-model", "extraction-replay:out.jsonl"], cwd=tmp_path)
    assert other.code == 4 and "Traceback" not in other.out
    assert "out.jsonl:6: the sentence 'The fries were soggy.' appears again (first on line 1) with another answer" \
        in other.out
    assert other.report is None


MODELS_TWICE = {
    "model": ("models:\n  mine: {kind: lexicon, scope: target}\n  other: {kind: lexicon, scope: target}\n"
              "  mine: {kind: lexicon, scope: sentence}\n", 4, "key 'mine' appears twice in the same mapping "
                                                              "(first on line 2)"),
    "group": ("models:\n  mine: {kind: lexicon, scope: target}\n  b: {kind: lexicon, scope: sentence}\n"
              "groups:\n  set: [mine, b]\n  set: [b]\n", 6, "key 'set' appears twice in the same mapping "
                                                            "(first on line 5)"),
    "setting": ("models:\n  mine:\n    kind: lexicon\n    scope: target\n    scope: sentence\n", 5,
                "key 'scope' appears twice in the same mapping (first on line 4)"),
    "section": ("models:\n  mine: {kind: lexicon, scope: target}\nmodels:\n  mine: {kind: lexicon, scope: sentence}\n",
                3, "key 'models' appears twice in the same mapping (first on line 1)"),
}


@pytest.mark.parametrize("what", sorted(MODELS_TWICE))
def test_a_name_or_key_given_twice_in_models_yaml_is_an_error_naming_both_lines(tmp_path, run, what):
    """PyYAML kept the last one silently: the run tested another model than the one written first."""
    text, line, message = MODELS_TWICE[what]
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "suite.yaml").write_text(TINY_SUITE)
    (tmp_path / "models.yaml").write_text(text)
    result = run(["suite.yaml", "--absa-models", "models.yaml", "--absa-model", "mine"], cwd=tmp_path)
    assert result.code == 4 and "Traceback" not in result.out and result.report is None
    assert f"models.yaml:{line}: {message}; keep one" in result.out
    listed = subprocess.run([sys.executable, "-m", "absa_checks.cli", "models", "--models-file", "models.yaml"],
                            cwd=tmp_path, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert listed.returncode != 0 and f"models.yaml:{line}: {message}" in listed.stderr + listed.stdout
    assert "Traceback" not in listed.stderr


def _local_suite(name: str, strategy: str, sentence: str, variant: str, source: str = "mine") -> str:
    return f"""suite: {name}
sources:
  {source}:
    examples:
      - id: x
        sentence: "{sentence}"
        aspect: fries
        polarity: negative
        variants:
          {strategy}: "{variant}"
tests:
  - name: {strategy}
    strategy: {strategy}
    sources: [{source}]
"""


def test_two_suite_files_defining_one_source_name_is_an_error_naming_both(tmp_path, run):
    """Each defines its own source 'mine' with an example 'x': they used to become one ARS unit mixing the
    two sentences (REVTGT of one, ADDDIFF of the other)."""
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "a.yaml").write_text(_local_suite("a", "revtgt", "The fries were soggy.", "The fries were crisp."))
    (tmp_path / "b.yaml").write_text(_local_suite("b", "adddiff", "The fries were cold.",
                                                  "The fries were cold, but the beer was great."))
    result = run(["a.yaml", "b.yaml"], cwd=tmp_path)
    assert result.code == 2 and "Traceback" not in result.out and result.report is None
    assert "b.yaml:3: the source 'mine' is also defined in a.yaml:3, with other examples" in result.out
    alone = run(["a.yaml"], cwd=tmp_path)  # each one alone runs as before
    assert alone.report["cases"] and {c["source"] for c in alone.report["cases"]} == {"mine"}


EXAMPLES_FILE = """examples:
  - id: x
    sentence: "The fries were soggy."
    aspect: fries
    polarity: negative
    variants:
      revtgt: "The fries were crisp."
      adddiff: "The fries were soggy, but the beer was great."
"""


def test_suites_naming_one_examples_file_share_its_source(tmp_path, run):
    """The same examples file under one name in two suites is one source: its units are whole across them."""
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "ex.yaml").write_text(EXAMPLES_FILE)
    for name, strategy in (("a", "revtgt"), ("b", "adddiff")):
        (tmp_path / f"{name}.yaml").write_text(f"suite: {name}\nsources:\n  mine: {{file: ex.yaml}}\ntests:\n"
                                               f"  - name: {strategy}\n    strategy: {strategy}\n    sources: [mine]\n")
    result = run(["a.yaml", "b.yaml"], cwd=tmp_path)
    assert "Traceback" not in result.out and result.code in (0, 1), result.out
    assert sorted((c["unit"], c["strategy"]) for c in result.report["cases"]) == [("x", "adddiff"), ("x", "revtgt")]


def test_a_suites_own_source_named_like_a_built_in_one_another_suite_runs_is_an_error(tmp_path, run):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "a.yaml").write_text("suite: a\ntests:\n  - name: revtgt\n    strategy: revtgt\n"
                                     "    sources: [builtin-restaurant]\n    sample: 3\n")
    (tmp_path / "b.yaml").write_text(_local_suite("b", "adddiff", "The fries were cold.",
                                                  "The fries were cold, but the beer was great.",
                                                  source="builtin-restaurant"))
    result = run(["a.yaml", "b.yaml"], cwd=tmp_path)
    assert result.code == 2 and "Traceback" not in result.out
    assert "b.yaml:3: the suite's own source 'builtin-restaurant' has the name of the built-in source" in result.out
