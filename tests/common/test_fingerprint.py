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
from models.test_tagging import SUITE as TINY_SUITE

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


@pytest.mark.slow
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
    validated = subprocess.run([sys.executable, "-m", "absa_checks.cli", "validate", "a.yaml", "b.yaml"], cwd=tmp_path,
                               capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert validated.returncode == 1
    assert "error b.yaml:3: the source 'mine' is also defined in a.yaml:3, with other examples" in validated.stdout


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


def merge(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "absa_checks.cli", "merge", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(REPO)})


FOODS = ["fries", "soup", "bread", "pasta", "salad", "steak", "cake", "coffee"]


def _examples(changed: str = "") -> str:
    rows = ["examples:"]
    for i, food in enumerate(FOODS):
        sentence = f"The {food} was {'cold' if food != changed else 'stale'}."
        rows += [f"  - id: e{i}", f"    sentence: \"{sentence}\"", f"    aspect: {food}", "    polarity: negative",
                 "    variants:", f"      adddiff: \"{sentence[:-1]}, but the staff was friendly.\""]
    return "\n".join(rows) + "\n"


def _two_shards(tmp_path, run, args: list[str], before_second=None) -> tuple[str, str]:
    paths = []
    for k in (1, 2):
        if k == 2 and before_second is not None:
            before_second()
        result = run([*args, "--absa-shard", f"{k}/2"], cwd=tmp_path)
        assert result.report is not None and result.report["cases"], result.out  # each shard has cases
        path = tmp_path / f"shard-{k}.json"
        path.write_text(json.dumps(result.report))
        paths.append(str(path))
    return paths[0], paths[1]


@pytest.mark.slow
def test_shards_made_from_different_examples_files_are_refused_naming_the_file(tmp_path, run):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "ex.yaml").write_text(_examples())
    (tmp_path / "a.yaml").write_text("suite: a\nsources:\n  mine: {file: ex.yaml}\ntests:\n  - name: adddiff\n"
                                     "    strategy: adddiff\n    sources: [mine]\n")
    same = _two_shards(tmp_path, run, ["a.yaml"])
    merged = merge(*same, "-o", str(tmp_path / "merged.json"))
    assert merged.returncode in (0, 1), merged.stderr
    report = json.loads((tmp_path / "merged.json").read_text())
    parts = report["run"]["fingerprint"]["parts"]
    assert set(parts) == {"suites", "examples", "data", "model", "generator", "options"}
    assert list(parts["examples"]) == ["ex.yaml"] and list(parts["suites"]) == ["a.yaml"]
    assert report["run"]["suite_sha256"]  # the older field stays

    other = _two_shards(tmp_path, run, ["a.yaml"], lambda: (tmp_path / "ex.yaml").write_text(_examples("soup")))
    refused = merge(*other, "-o", str(tmp_path / "refused.json"))
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert (f"shard 2 of 2 ({other[1]}) was not made from the inputs of shard 1 ({other[0]}): it was made from "
            "another examples file (ex.yaml)") in refused.stderr
    assert not (tmp_path / "refused.json").exists()


def _gcae(folder, changed: str = ""):
    path = folder / "gcae_hard" / "atsa-restaurant" / "atsa_hard_test.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    items = [item for food in FOODS for item in (
        {"sentence": f"the {food} was {'cold' if food != changed else 'stale'} but the staff was friendly.",
         "aspect": food, "sentiment": "negative"},
        {"sentence": f"the {food} was {'cold' if food != changed else 'stale'} but the staff was friendly.",
         "aspect": "staff", "sentiment": "positive"})]
    path.write_text(json.dumps(items))


@pytest.mark.slow
def test_shards_made_from_different_data_are_refused_naming_the_source_and_file(tmp_path, run):
    """The same data in another folder merges (machines keep data in different places); other data does not."""
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "a.yaml").write_text("suite: a\ntests:\n  - name: adddiff\n    strategy: adddiff\n"
                                     "    sources: [gcae-hard-restaurant]\n")
    _gcae(tmp_path / "data-1")
    _gcae(tmp_path / "data-2")
    first = run(["a.yaml", "--absa-data", "data-1", "--absa-shard", "1/2"], cwd=tmp_path)
    second = run(["a.yaml", "--absa-data", "data-2", "--absa-shard", "2/2"], cwd=tmp_path)
    assert first.report["cases"] and second.report["cases"], first.out + second.out
    (tmp_path / "s1.json").write_text(json.dumps(first.report))
    (tmp_path / "s2.json").write_text(json.dumps(second.report))
    assert merge(str(tmp_path / "s1.json"), str(tmp_path / "s2.json"), "-o", str(tmp_path / "m.json")).returncode \
        in (0, 1)
    data = json.loads((tmp_path / "m.json").read_text())["run"]["fingerprint"]["parts"]["data"]
    assert list(data) == ["gcae-hard-restaurant"]
    assert list(data["gcae-hard-restaurant"]) == ["gcae_hard/atsa-restaurant/atsa_hard_test.json"]

    _gcae(tmp_path / "data-2", changed="soup")
    second = run(["a.yaml", "--absa-data", "data-2", "--absa-shard", "2/2"], cwd=tmp_path)
    (tmp_path / "s2.json").write_text(json.dumps(second.report))
    refused = merge(str(tmp_path / "s1.json"), str(tmp_path / "s2.json"), "-o", str(tmp_path / "r.json"))
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert ("it was made from other data for source 'gcae-hard-restaurant' "
            "(gcae_hard/atsa-restaurant/atsa_hard_test.json)") in refused.stderr


def _replay(path, changed: str = ""):
    rows = ["sentence,term,m"]
    for food in FOODS:
        sentence = f"The {food} was cold."
        label = "positive" if food == changed else "negative"
        rows += [f"\"{sentence}\",{food},{label}", f"\"{sentence[:-1]}, but the staff was friendly.\",{food},negative"]
    path.write_text("\n".join(rows) + "\n")


def test_shards_made_with_another_model_entry_are_refused_naming_it_and_no_setting_is_shown(tmp_path, run):
    """The model part hashes the entry's settings after ${VAR} substitution: the value is never written."""
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "ex.yaml").write_text(_examples())
    (tmp_path / "a.yaml").write_text("suite: a\nsources:\n  mine: {file: ex.yaml}\ntests:\n  - name: adddiff\n"
                                     "    strategy: adddiff\n    sources: [mine]\n")
    (tmp_path / "models.yaml").write_text("models:\n  mine: {kind: replay, path: \"${REPLAY_SECRET}\", column: m}\n")
    _replay(tmp_path / "secret-one.csv")
    _replay(tmp_path / "secret-two.csv", changed="soup")
    args = ["a.yaml", "--absa-models", "models.yaml", "--absa-model", "mine"]
    reports = []
    for k, secret in ((1, "secret-one.csv"), (2, "secret-two.csv")):
        result = run([*args, "--absa-shard", f"{k}/2"], cwd=tmp_path, env={"REPLAY_SECRET": str(tmp_path / secret)})
        assert result.report["cases"], result.out
        reports.append(tmp_path / f"s{k}.json")
        reports[-1].write_text(json.dumps(result.report))
    refused = merge(*map(str, reports), "-o", str(tmp_path / "m.json"))
    assert refused.returncode == 2 and "it was made from another model entry for mine" in refused.stderr
    for text in (refused.stderr, *(path.read_text() for path in reports)):
        assert "secret-one" not in text and "secret-two" not in text


def test_shards_run_with_another_seed_are_refused_naming_the_option(tmp_path, run):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "ex.yaml").write_text(_examples())
    (tmp_path / "a.yaml").write_text("suite: a\nsources:\n  mine: {file: ex.yaml}\ntests:\n  - name: adddiff\n"
                                     "    strategy: adddiff\n    sources: [mine]\n")
    first = run(["a.yaml", "--absa-shard", "1/2"], cwd=tmp_path)
    second = run(["a.yaml", "--absa-shard", "2/2", "--absa-seed", "7"], cwd=tmp_path)
    (tmp_path / "s1.json").write_text(json.dumps(first.report))
    (tmp_path / "s2.json").write_text(json.dumps(second.report))
    refused = merge(str(tmp_path / "s1.json"), str(tmp_path / "s2.json"), "-o", str(tmp_path / "m.json"))
    assert refused.returncode == 2 and "it was made from other options (--absa-seed 7, not " in refused.stderr


@pytest.mark.slow
def test_shards_made_from_another_suite_file_are_refused_naming_it(tmp_path, run):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "ex.yaml").write_text(_examples())
    suite = ("suite: a\nsources:\n  mine: {file: ex.yaml}\ntests:\n  - name: adddiff\n    strategy: adddiff\n"
             "    sources: [mine]\n")
    (tmp_path / "a.yaml").write_text(suite)
    shards = _two_shards(tmp_path, run, ["a.yaml"],
                         lambda: (tmp_path / "a.yaml").write_text(suite + "    gates: {max_fail_rate: 0.9}\n"))
    refused = merge(*shards, "-o", str(tmp_path / "m.json"))
    assert refused.returncode == 2 and "it was made from another suite file (a.yaml)" in refused.stderr


def test_every_part_that_differs_is_named():
    from absa_checks.common.fingerprint import differences

    first = {"suites": {"a.yaml": "1"}, "examples": {"ex.yaml": "1"}, "data": {"arts-laptop": {"arts/l.json": "1"}},
             "model": {"bert": "1"}, "generator": "1", "options": {"seed": 42, "sample": None, "sources": None}}
    assert differences(first, first) == []
    other = {"suites": {"a.yaml": "1", "b.yaml": "1"}, "examples": {"ex.yaml": "2"},
             "data": {"arts-laptop": {"arts/l.json": "2"}, "mams-restaurant": {"mams/test.xml": "1"}},
             "model": {"bert": "2"}, "generator": "2", "options": {"seed": 42, "sample": 10, "sources": None}}
    assert differences(other, first) == [
        "an extra suite file b.yaml", "another examples file (ex.yaml)", "other data for source 'arts-laptop' "
        "(arts/l.json)", "the data of source 'mams-restaurant', which the other was made without",
        "another model entry for bert (its kind, resolved settings or checkpoint files differ)",
        "another version of absa-checks' generator (its code, word lists or libraries differ)",
        "other options (--absa-sample 10, not None)"]
    assert differences(first, other)[0] == "no suite file b.yaml, which the other was made from"


def test_a_models_file_that_is_not_utf8_is_one_message(tmp_path, run):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "suite.yaml").write_text(TINY_SUITE)
    (tmp_path / "models.yaml").write_bytes("models:\n  café: {kind: lexicon, scope: target}\n".encode("latin-1"))
    result = run(["suite.yaml", "--absa-models", "models.yaml", "--absa-model", "lexicon"], cwd=tmp_path)
    assert result.code == 4 and "Traceback" not in result.out
    assert "models.yaml:2: not UTF-8 text (byte 0xe9" in result.out


def test_two_examples_without_ids_with_one_sentence_and_aspect_are_an_error_naming_both_lines(tmp_path):
    """Without ids, an example's unit is named by its sentence and aspect: two such examples became one unit."""
    from absa_checks.common.errors import SpecError
    from absa_checks.suites.spec import parse_suite

    example = ("      - sentence: \"The fries were soggy.\"\n        aspect: fries\n        polarity: {polarity}\n"
               "        variants:\n          adddiff: \"The fries were soggy, but the beer was {word}.\"\n")
    text = ("suite: s\nsources:\n  mine:\n    examples:\n" + example.format(polarity="negative", word="great")
            + example.format(polarity="positive", word="fine") + "tests:\n  - name: adddiff\n    strategy: adddiff\n"
            "    sources: [mine]\n")
    (tmp_path / "s.yaml").write_text(text)
    with pytest.raises(SpecError, match=r"s\.yaml:10: this example has the sentence and aspect of the one on line 5 "
                                        r"and neither has an id"):
        parse_suite(tmp_path / "s.yaml", ())
    (tmp_path / "s.yaml").write_text(text.replace("      - sentence", "      - id: one\n        sentence", 1))
    assert len(parse_suite(tmp_path / "s.yaml", ()).inline_sources["mine"].examples) == 2  # an id tells them apart


def test_shards_of_other_versions_with_one_fingerprint_name_what_differs(tmp_path):
    from absa_checks.run.shards import ShardError, read_shard_reports

    def shard(k: int, python: str) -> str:
        path = tmp_path / f"s{k}.json"
        path.write_text(json.dumps({"schema_version": 1, "complete": True, "shard": {"k": k, "n": 2},
                                    "run": {"fingerprint": {"run": "f", "parts": {}}, "seed": 42,
                                            "versions": {"python": python}}}))
        return path

    with pytest.raises(ShardError, match=r"their run\.versions differ"):
        read_shard_reports([shard(1, "3.11.7"), shard(2, "3.12.1")])
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"schema_version": 1, "complete": True, "shard": {"k": 2, "n": 2}, "run": {"seed": 42}}))
    with pytest.raises(ShardError, match=r"old\.json was written by an older absa-checks, without the run's fingerprint"):
        read_shard_reports([shard(1, "3.11.7"), old])
