"""Frozen variants: a reviewed candidates file is what a suite runs (docs/suites.md, "Frozen variants").

Real files and real pytest runs: `absa-checks generate --candidates` writes the file, `absa-checks decide`
(or a hand edit) records decisions, a suite with `variants: {frozen: FILE}` runs it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from candidate_examples import EXAMPLES_ABC

from absa_checks.cli import main
from absa_checks.sources.catalog import known_source_names
from absa_checks.suites.candidates import CandidatesError, read_candidates
from absa_checks.suites.spec import parse_suite
from conftest import run_pytest

EXAMPLES = EXAMPLES_ABC

SUITE = """\
suite: frozen
sources:
  mine: {file: mine.yaml}
tests:
  - name: reviewed-revtgt
    strategy: revtgt
    sources: mine
    variants: {frozen: reviewed.jsonl}
  - name: reviewed-revnon
    strategy: revnon
    sources: mine
    variants: {frozen: reviewed.jsonl}
"""


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    """The candidates of mine.yaml for REVTGT and REVNON, written once by the real command."""
    folder = tmp_path_factory.mktemp("generated")
    (folder / "mine.yaml").write_text(EXAMPLES)
    assert main(["generate", "--input", str(folder / "mine.yaml"), "--strategies", "revtgt,revnon", "--candidates",
                 "--out", str(folder / "reviewed.jsonl")]) == 0
    return folder


@pytest.fixture
def project(generated, tmp_path) -> Path:
    """A fresh copy: the examples, the candidates (nothing decided) and the suite."""
    for name in ("mine.yaml", "reviewed.jsonl"):
        shutil.copy(generated / name, tmp_path / name)
    (tmp_path / "suite.yaml").write_text(SUITE)
    return tmp_path


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def shipped(path: Path, strategy: str) -> list[dict]:
    return [r for r in records(path) if r["status"] == "shipped" and r["strategy"] == strategy]


def decide(path: Path, *args: str) -> int:
    return main(["decide", str(path), *args, "--reviewer", "ann"])


def frozen_run(folder: Path, *extra: str, env: dict | None = None):
    return run_pytest(["suite.yaml", "--model", "lexicon", "-rs", *extra], cwd=folder, report=folder / "r.json",
                      env=env)


# --- the file -------------------------------------------------------------------------------------------


def test_every_unit_and_strategy_has_a_candidate_with_id_status_hash_generator_and_no_decision(generated):
    found = records(generated / "reviewed.jsonl")
    assert {(r["unit"], r["strategy"]) for r in found} == {(u, s) for u in "abc" for s in ("revtgt", "revnon")}
    for r in found:
        assert r["status"] in ("shipped", "quarantined", "not_applicable")
        assert r["decision"] is None and r["reviewer"] is None and r["decided_at"] is None
        assert r["generator"]["name"] == "absa-checks" and r["generator"]["version"] and r["generator"]["fingerprint"]
        assert len(r["unit_hash"]) == 16 and len(r["id"]) == 12
        if r["status"] == "shipped":  # what `generate` wrote before, unchanged
            assert r["sentence"][r["from"]:r["to"]] == r["term"] and r["edits"] and r["original"]
        else:
            assert r["reason"]
    assert len({r["id"] for r in found}) == len(found)
    # revnon on a single-aspect sentence: a unit with no proposal is written down, with why
    assert any(r["unit"] == "c" and r["strategy"] == "revnon" and r["status"] == "not_applicable" for r in found)


def test_the_ids_are_stable_when_generated_again(generated, tmp_path):
    again = tmp_path / "again.jsonl"
    assert main(["generate", "--input", str(generated / "mine.yaml"), "--strategies", "revtgt,revnon",
                 "--candidates", "--out", str(again)]) == 0
    assert again.read_text() == (generated / "reviewed.jsonl").read_text()


def line_of(path: Path, change) -> Path:
    """A copy of the candidates file whose first shipped line is changed by `change(record)`."""
    lines = path.read_text().splitlines()
    index = next(i for i, line in enumerate(lines) if json.loads(line)["status"] == "shipped")
    record = json.loads(lines[index])
    lines[index] = change(record) if callable(change) else change
    if isinstance(lines[index], dict):
        lines[index] = json.dumps(lines[index])
    out = path.parent / "changed.jsonl"
    out.write_text("\n".join(lines) + "\n")
    return out, index + 1


def decided(record: dict, decision: str, **more) -> dict:
    return {**record, "decision": decision, "reviewer": "ann", "decided_at": "2026-11-26T10:00:00Z", **more}


BAD_LINES = {
    "not JSON": ("{not json", "not a JSON line"),
    "not an object": ("[1, 2]", "expected a JSON object"),
    "unknown decision": (lambda r: decided(r, "acceptd"), "unknown decision 'acceptd'"),
    "unknown status": (lambda r: {**r, "status": "maybe"}, "unknown status 'maybe'"),
    "no reviewer": (lambda r: decided(r, "accepted", reviewer=None), "needs 'reviewer'"),
    "no time": (lambda r: decided(r, "accepted", decided_at=""), "needs 'decided_at'"),
    "no unit hash": (lambda r: {**r, "unit_hash": None}, "missing 'unit_hash'"),
    "target moved": (lambda r: {**r, "from": r["from"] + 1}, "is not at"),
    "edit removes the target": (lambda r: decided(r, "edited", edited={"sentence": "It was fine.", "from": 0, "to": 2}),
                                "the edit removes the target"),
    "edit without a sentence": (lambda r: decided(r, "edited"), "needs 'edited'"),
    "edit with a wrong span": (lambda r: decided(r, "edited", edited={"sentence": "The burgers were fine, the fries "
                                                                                   "were soggy.", "from": 0, "to": 3}),
                               "does not hold the target"),
    "edit that drops another aspect": (lambda r: decided(r, "edited", edited={"sentence": "The burgers were fine."}),
                                       "other aspect 'fries' 0 times"),
    "edit that changes the polarity": (lambda r: decided(r, "edited", edited={"sentence": r["sentence"],
                                                                              "polarity": r["original"]["polarity"]}),
                                       "is not the revtgt variant's polarity"),
    "edit with a bad polarity": (lambda r: decided(r, "edited", edited={"sentence": r["sentence"], "polarity": "meh"}),
                                 "is not a polarity"),
}


@pytest.mark.parametrize("case", BAD_LINES)
def test_a_bad_line_is_refused_naming_the_file_and_line(generated, tmp_path, case):
    shutil.copy(generated / "reviewed.jsonl", tmp_path / "reviewed.jsonl")
    change, words = BAD_LINES[case]
    path, line = line_of(tmp_path / "reviewed.jsonl", change)
    with pytest.raises(CandidatesError) as refused:
        read_candidates(path)
    assert str(refused.value).startswith(f"{path}:{line}: ") and words in str(refused.value)
    assert "\n" not in str(refused.value)


def test_a_duplicate_id_names_both_lines(generated, tmp_path):
    lines = (generated / "reviewed.jsonl").read_text().splitlines()
    path = tmp_path / "dup.jsonl"
    path.write_text("\n".join([*lines, lines[0]]) + "\n")
    with pytest.raises(CandidatesError, match=rf"dup.jsonl:{len(lines) + 1}: candidate id .* also on line 1"):
        read_candidates(path)


def test_an_edit_finds_the_target_and_other_aspects_when_their_spans_are_left_out(generated, tmp_path):
    shutil.copy(generated / "reviewed.jsonl", tmp_path / "reviewed.jsonl")
    text = "Sadly, the burgers were awful, and the fries were soggy."
    path, line = line_of(tmp_path / "reviewed.jsonl", lambda r: decided(r, "edited", edited={"sentence": text}))
    (found,) = [c for c in read_candidates(path) if c.line == line]
    example = found.example()
    assert example.sentence == text and text[example.target.start:example.target.end] == "burgers"
    assert [(a.term, text[a.start:a.end]) for a in example.others] == [("fries", "fries")]


# --- running it -----------------------------------------------------------------------------------------


@pytest.mark.slow
def test_only_accepted_and_edited_candidates_become_cases_with_their_provenance(project):
    file = project / "reviewed.jsonl"
    revtgt = shipped(file, "revtgt")
    assert len(revtgt) >= 2, "the fixture needs two REVTGT proposals"
    accepted, rejected = revtgt[0], revtgt[1]
    assert decide(file, "--accept", accepted["id"], "--reject", rejected["id"]) == 0
    # an edit by hand: the reviewer's sentence replaces the generated one
    revnon = shipped(file, "revnon")[0]
    text = revnon["sentence"] + " Really."
    lines = [json.loads(line) for line in file.read_text().splitlines()]
    for r in lines:
        if r["id"] == revnon["id"]:
            r.update(decision="edited", reviewer="bob", decided_at="2026-11-26T11:00:00+00:00",
                     edited={"sentence": text})
    file.write_text("".join(json.dumps(r) + "\n" for r in lines))
    done = frozen_run(project)
    assert done.code == 0, done.out
    cases = done.report["cases"]
    assert sorted((c["strategy"], c["unit"]) for c in cases) == sorted(
        [("revtgt", accepted["unit"]), ("revnon", revnon["unit"])])
    by = {c["strategy"]: c for c in cases}
    assert by["revtgt"]["variant"]["sentence"] == accepted["sentence"]
    assert by["revnon"]["variant"]["sentence"] == text
    p = by["revtgt"]["variant"]["provenance"]
    assert (p["candidate"], p["decision"], p["reviewer"]) == (accepted["id"], "accepted", "ann")
    assert p["decided_at"] and p["generator"] == accepted["generator"] and p["edits"] == accepted["edits"]
    e = by["revnon"]["variant"]["provenance"]
    assert (e["decision"], e["reviewer"], e["edited"]["sentence"], e["generated_sentence"]) == (
        "edited", "bob", text, revnon["sentence"])
    # the rejected and the undecided ones are shown as skipped, with why
    assert "not decided yet" in done.out and "no candidate accepted" in done.out


@pytest.mark.slow
def test_a_source_changed_under_a_frozen_unit_fails_the_run_naming_the_units_and_the_update(project):
    file = project / "reviewed.jsonl"
    first = shipped(file, "revtgt")[0]
    assert decide(file, "--accept", first["id"]) == 0
    assert frozen_run(project).code == 0
    examples = project / "mine.yaml"
    examples.write_text(EXAMPLES.replace("The pasta was great.", "The pasta was really great.")
                        + "  - {id: d, sentence: The wine was cheap and good., aspect: wine, polarity: positive}\n")
    done = frozen_run(project)
    assert done.code == 1, done.out
    assert "absa-checks FAILED" in done.out and "PASSED" not in done.summary
    assert "1 unit changed (c)" in done.out and "1 unit new (d)" in done.out
    assert "absa-checks generate --input mine.yaml --strategies revtgt --update reviewed.jsonl" in done.out
    gates = {(g["gate"], g["test"].split("::")[1]): g["verdict"] for g in done.report["gates"]}
    assert gates[("frozen_up_to_date", "reviewed-revtgt")] == "fail"
    assert gates[("frozen_up_to_date", "reviewed-revnon")] == "fail"
    # the units that did not change still run their reviewed cases
    assert [c["unit"] for c in done.report["cases"]] == [first["unit"]]


@pytest.mark.slow
def test_a_unit_gone_from_the_source_fails_the_run_too(project):
    file = project / "reviewed.jsonl"
    assert decide(file, "--accept", shipped(file, "revtgt")[0]["id"]) == 0
    examples = yaml.safe_load(EXAMPLES)
    examples["examples"] = [e for e in examples["examples"] if e["id"] != "c"]
    (project / "mine.yaml").write_text(yaml.safe_dump(examples))
    done = frozen_run(project)
    assert done.code == 1 and "1 unit gone from the source (c)" in done.out
    assert "delete the lines of the units gone from the source" in done.out


@pytest.mark.slow
def test_update_adds_candidates_for_new_and_changed_units_and_never_touches_decided_ones(project):
    file = project / "reviewed.jsonl"
    revtgt = shipped(file, "revtgt")
    c_line = next(r for r in records(file) if r["unit"] == "c" and r["strategy"] == "revtgt")
    decisions = ["--accept", revtgt[0]["id"], c_line["id"]] + ["--reject", revtgt[1]["id"]]
    assert decide(file, *decisions) == 0
    before = file.read_bytes()
    (project / "mine.yaml").write_text(EXAMPLES.replace("The pasta was great.", "The pasta was really great.")
                                       + "  - {id: d, sentence: The wine was cheap and good., aspect: wine, "
                                         "polarity: positive}\n")
    assert main(["generate", "--input", str(project / "mine.yaml"), "--strategies", "revtgt,revnon",
                 "--update", str(file)]) == 0
    after = file.read_bytes()
    assert after.startswith(before)  # every line there before, decided or not, byte for byte
    added = [json.loads(line) for line in after[len(before):].decode().splitlines()]
    assert sorted((r["unit"], r["strategy"]) for r in added) == [("c", "revnon"), ("c", "revtgt"), ("d", "revnon"),
                                                                 ("d", "revtgt")]
    assert all(r["decision"] is None for r in added)
    # the run no longer fails; the changed unit's old accepted candidate is not run (its unit changed), and
    # the new ones wait for a decision
    done = frozen_run(project)
    assert done.code == 0, done.out
    assert [c["unit"] for c in done.report["cases"]] == [revtgt[0]["unit"]]
    # a second update finds nothing to add
    assert main(["generate", "--input", str(project / "mine.yaml"), "--strategies", "revtgt,revnon",
                 "--update", str(file)]) == 0
    assert file.read_bytes() == after


@pytest.mark.slow
def test_an_unusable_frozen_file_fails_the_run_never_skips(project):
    path, line = line_of(project / "reviewed.jsonl", "{broken")
    path.replace(project / "reviewed.jsonl")
    done = frozen_run(project)
    assert done.code == 1 and f"reviewed.jsonl:{line}: not a JSON line" in done.out
    assert "absa-checks FAILED" in done.out


@pytest.mark.slow
def test_a_frozen_file_without_the_tests_strategy_fails_with_the_command(project, generated):
    (project / "suite.yaml").write_text(SUITE.replace("strategy: revnon", "strategy: adddiff"))
    assert decide(project / "reviewed.jsonl", "--accept", shipped(project / "reviewed.jsonl", "revtgt")[0]["id"]) == 0
    done = frozen_run(project)
    assert done.code == 1
    assert "no adddiff candidates for source 'mine'" in done.out
    assert "--strategies adddiff --update reviewed.jsonl" in done.out


def test_a_missing_frozen_file_is_refused_by_the_loader_naming_the_line(project):
    (project / "suite.yaml").write_text(SUITE.replace("frozen: reviewed.jsonl}\n  - name: reviewed-revnon",
                                                      "frozen: nowhere.jsonl}\n  - name: reviewed-revnon"))
    with pytest.raises(Exception, match=r"suite.yaml:8: .*'nowhere.jsonl' not found"):
        parse_suite(project / "suite.yaml", known_source_names())


# --- stability ------------------------------------------------------------------------------------------

SWAP = '''\
"""Another generator under the run: every variant it makes gets a sentence appended (or it refuses to run)."""
import os
from dataclasses import replace

import absa_checks.perturb.variants as variants
from absa_checks.common.examples import Variant
from absa_checks.perturb import engine


def other(unit, strategy, settings, resources, domain):
    if os.environ.get("SWAP") == "refuse":
        raise RuntimeError("the generator was asked")
    made = engine.generate(unit, strategy, settings, resources, domain)
    if isinstance(made, Variant):
        return replace(made, example=replace(made.example, sentence=made.example.sentence + " Truly."))
    return made


if os.environ.get("SWAP"):
    variants.generate = other
'''


@pytest.mark.slow
def test_swapping_the_generator_under_a_frozen_file_leaves_its_cases_identical(project):
    file = project / "reviewed.jsonl"
    ids = [r["id"] for r in records(file) if r["status"] == "shipped"]
    assert decide(file, "--accept", *ids) == 0
    text = SUITE.replace("  mine: {file: mine.yaml}\n", "  mine: {file: mine.yaml}\n  mine2: {file: mine.yaml}\n")
    generated = "  - {name: generated-revtgt, strategy: revtgt, sources: mine2, variants: generated}\n"
    (project / "suite.yaml").write_text(text + generated)
    (project / "conftest.py").write_text(SWAP)

    def frozen_cases(run) -> list:
        return sorted((c["case_id"], c["variant"]["sentence"], json.dumps(c["variant"]["provenance"]))
                      for c in run.report["cases"] if c["test_name"].startswith("reviewed"))

    def generated_cases(run) -> list:
        return sorted(c["variant"]["sentence"] for c in run.report["cases"] if c["test_name"] == "generated-revtgt")

    # the swap patches the generator at run time, which its fingerprint (the code on disk) cannot see: the runs
    # keep no variants between them (--absa-no-cache), so the swapped generator runs
    plain = frozen_run(project, "--absa-no-cache")
    swapped = frozen_run(project, "--absa-no-cache", env={"SWAP": "append"})
    assert plain.code == 0 and swapped.code == 0, plain.out + swapped.out
    assert len(frozen_cases(plain)) == len(ids)
    assert frozen_cases(swapped) == frozen_cases(plain)
    # the swap did take effect: the generated test's variants changed under it
    assert generated_cases(plain) and generated_cases(swapped) != generated_cases(plain)
    assert all(s.endswith(" Truly.") for s in generated_cases(swapped))
    # a generator that refuses to run: the frozen tests never ask it
    (project / "suite.yaml").write_text(text)
    refused = frozen_run(project, "--absa-no-cache", env={"SWAP": "refuse"})
    assert refused.code == 0, refused.out
    assert frozen_cases(refused) == frozen_cases(plain)


# --- decide ---------------------------------------------------------------------------------------------


def test_decide_writes_the_decision_reviewer_and_time_and_keeps_every_other_line(project, capsys):
    file = project / "reviewed.jsonl"
    before = file.read_text().splitlines()
    chosen = shipped(file, "revtgt")[0]["id"]
    assert decide(file, "--accept", chosen) == 0
    after = file.read_text().splitlines()
    changed = [i for i, (a, b) in enumerate(zip(before, after)) if a != b]
    assert len(after) == len(before) and len(changed) == 1
    record = json.loads(after[changed[0]])
    assert (record["id"], record["decision"], record["reviewer"]) == (chosen, "accepted", "ann")
    assert record["decided_at"].endswith("+00:00")
    assert read_candidates(file)  # still a valid file


def test_decide_refuses_to_replace_another_reviewers_decision_unless_told_and_then_says_whose(project, capsys):
    file = project / "reviewed.jsonl"
    first, second = (r["id"] for r in shipped(file, "revtgt")[:2])
    assert decide(file, "--accept", first, second) == 0
    line = next(n for n, r in enumerate(records(file), 1) if r["id"] == first)  # no blank lines in the file
    at = next(r for r in records(file) if r["id"] == first)["decided_at"]
    before = file.read_bytes()
    capsys.readouterr()
    # it used to write bo's rejection over ann's acceptance and say only "0 accepted, 1 rejected by bo"
    assert main(["decide", str(file), "--reject", first, second, "--reviewer", "bo"]) == 2
    err = capsys.readouterr().err
    assert err == (f"absa-checks: decide: {file}:{line}: candidate {first} was accepted by ann at {at} (and 1 more: "
                   f"{second}); deciding as bo would replace ann's decision: add --replace to replace it, or leave it "
                   "out; nothing written\n")
    assert file.read_bytes() == before
    assert decide(file, "--reject", first) == 0  # ann changing her own mind replaces nobody's
    assert main(["decide", str(file), "--accept", first, "--reviewer", "bo", "--replace"]) == 0
    assert f"1 accepted, 0 rejected by bo; replaced ann's rejected of {first}" in capsys.readouterr().err
    record = next(r for r in records(file) if r["id"] == first)
    assert (record["decision"], record["reviewer"]) == ("accepted", "bo")


@pytest.mark.parametrize("args, words", [
    (["--accept", "nosuchid"], "no candidate nosuchid"),
    (["--accept", "X", "--reject", "X"], "both accepted and rejected"),
    ([], "name candidates with --accept"),
])
def test_decide_refuses_a_mistake_in_one_line_and_writes_nothing(project, capsys, args, words):
    file = project / "reviewed.jsonl"
    before = file.read_bytes()
    assert decide(file, *args) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1
    assert file.read_bytes() == before


def test_decide_refuses_a_unit_with_no_candidate(project, capsys):
    file = project / "reviewed.jsonl"
    none = next(r for r in records(file) if r["status"] == "not_applicable")
    before = file.read_bytes()
    assert decide(file, "--accept", none["id"]) == 2
    assert "not_applicable" in capsys.readouterr().err and file.read_bytes() == before


def test_generate_refuses_update_with_out_and_an_absent_file(project, capsys):
    assert main(["generate", "--input", str(project / "mine.yaml"), "--update", str(project / "reviewed.jsonl"),
                 "--out", str(project / "x.jsonl")]) == 2
    assert "--out FILE (a new file), or --update FILE" in capsys.readouterr().err
    assert main(["generate", "--input", str(project / "mine.yaml"), "--update", str(project / "none.jsonl")]) == 2
    assert "--update" in capsys.readouterr().err and not (project / "none.jsonl").exists()


def test_the_schema_accepts_the_frozen_form_and_refuses_a_misspelt_key():
    import jsonschema

    from absa_checks.suites import schema

    shipped_schema = json.loads((Path(schema.SCHEMAS_DIR) / "suite.schema.json").read_text())
    for chosen in (schema.suite_schema(), shipped_schema):
        validator = jsonschema.Draft202012Validator(chosen)
        assert list(validator.iter_errors(yaml.safe_load(SUITE))) == []
        wrong = yaml.safe_load(SUITE.replace("{frozen: reviewed.jsonl}", "{frozn: reviewed.jsonl}"))
        assert list(validator.iter_errors(wrong))


def test_the_loader_refuses_a_misspelt_frozen_key_naming_the_line(project):
    (project / "suite.yaml").write_text(SUITE.replace("{frozen: reviewed.jsonl}\n  - name: reviewed-revnon",
                                                      "{frozn: reviewed.jsonl}\n  - name: reviewed-revnon"))
    with pytest.raises(Exception, match=r"suite.yaml:8: .*frozn"):
        parse_suite(project / "suite.yaml", known_source_names())


def test_decide_refuses_a_bad_file_and_writes_nothing(project, capsys):
    file = project / "reviewed.jsonl"
    path, line = line_of(file, "{broken")
    before = path.read_bytes()
    chosen = shipped(file, "revtgt")[0]["id"]
    assert decide(path, "--accept", chosen) == 2
    assert f"changed.jsonl:{line}: not a JSON line" in capsys.readouterr().err
    assert path.read_bytes() == before


def test_candidates_refuse_the_arts_format_and_a_separate_quarantine_file(project, capsys):
    for extra in (["--format", "arts"], ["--quarantine", str(project / "q.jsonl")]):
        assert main(["generate", "--input", str(project / "mine.yaml"), "--candidates", "--out",
                     str(project / "new.jsonl"), *extra]) == 2
        assert "holds the quarantined attempts itself" in capsys.readouterr().err
    assert not (project / "new.jsonl").exists() and not (project / "q.jsonl").exists()


def test_a_sentence_with_a_unicode_line_separator_and_a_crlf_file_read_and_decide_line_by_line(generated, tmp_path):
    """Lines end at "\\n" only (a sentence may hold U+2028 or U+0085); a CRLF file keeps its endings."""
    lines = [json.loads(line) for line in (generated / "reviewed.jsonl").read_text().splitlines()]
    first = next(r for r in lines if r["status"] == "shipped")
    first["sentence"] = first["sentence"].replace(" ", "\u2028", 1)
    first["from"] += 0  # the target is after the first space in these sentences: its span is unchanged
    path = tmp_path / "odd.jsonl"
    path.write_bytes(("\ufeff" + "".join(json.dumps(r, ensure_ascii=False) + "\r\n" for r in lines)).encode())
    found = read_candidates(path)
    assert len(found) == len(lines) and found[0].record["sentence"] == first["sentence"]
    assert decide(path, "--accept", first["id"]) == 0
    after = path.read_bytes().decode()
    assert after.count("\r\n") == len(lines) and "\u2028" in after
    assert [c.decision for c in read_candidates(path)][lines.index(first)] == "accepted"


def test_a_report_written_over_the_frozen_file_is_refused_and_the_file_kept(project):
    file = project / "reviewed.jsonl"
    before = file.read_bytes()
    done = run_pytest(["suite.yaml", "--model", "lexicon", "--absa-markdown", "reviewed.jsonl"], cwd=project)
    assert done.code != 0 and "frozen variants of test 'reviewed-revtgt'" in done.out, done.out
    assert file.read_bytes() == before


def test_evaluate_from_python_fails_on_a_stale_frozen_file_too(project):
    from absa_checks import evaluate

    file = project / "reviewed.jsonl"
    assert decide(file, "--accept", shipped(file, "revtgt")[0]["id"]) == 0
    assert evaluate("lexicon", suites=[str(project / "suite.yaml")], rootdir=project, no_cache=True).verdict.passed
    (project / "mine.yaml").write_text(EXAMPLES.replace("The pasta was great.", "The pasta was fine."))
    result = evaluate("lexicon", suites=[str(project / "suite.yaml")], rootdir=project, no_cache=True)
    assert not result.verdict.passed
    assert any(g["gate"] == "frozen_up_to_date" and "1 unit changed (c)" in g["reason"]
               for g in result.report["gates"])


@pytest.mark.slow
def test_accepting_every_shipped_candidate_gives_exactly_the_generated_cases(tmp_path):
    """On a built-in source: the frozen set of all shipped REVTGT candidates is the generated test, case for case
    (same ids, same outcomes), so freezing changes what is run only by the reviewer's decisions."""
    file = tmp_path / "b.jsonl"
    assert main(["generate", "--source", "builtin-restaurant", "--strategies", "revtgt", "--candidates",
                 "--out", str(file)]) == 0
    ids = [r["id"] for r in records(file) if r["status"] == "shipped"]
    assert decide(file, "--accept", *ids) == 0
    reports = {}
    for mode in ("{frozen: b.jsonl}", "generated"):
        (tmp_path / "suite.yaml").write_text("suite: s\ntests:\n  - {name: rt, strategy: revtgt, "
                                             f"sources: builtin-restaurant, variants: {mode}}}\n")
        done = run_pytest(["suite.yaml", "--model", "lexicon"], cwd=tmp_path, report=tmp_path / "r.json")
        reports[mode] = sorted((c["case_id"], c["status"]) for c in done.report["cases"])
    assert len(reports["generated"]) == len(ids) > 100
    assert reports["{frozen: b.jsonl}"] == reports["generated"]


def test_decide_writes_an_edit_with_its_span_undoes_a_decision_and_refuses_an_edit_that_drops_the_target(generated):
    from absa_checks.suites.candidates import Decision, parse_candidates
    from absa_checks.suites.candidates import decide as decide_text

    text = (generated / "reviewed.jsonl").read_text()
    first = shipped(generated / "reviewed.jsonl", "revtgt")[0]
    new = first["sentence"].replace(first["term"], first["term"], 1) + " Truly."
    edited, unknown = decide_text(text, "r.jsonl", {first["id"]: Decision("edited", {"sentence": new})}, "ann",
                                  "2026-11-26T12:00:00+00:00")
    assert unknown == []
    line = next(c for c in parse_candidates(edited, "r.jsonl") if c.candidate_id == first["id"])
    assert line.decision == "edited" and line.record["reviewer"] == "ann"
    start = new.index(first["term"])
    assert (line.record["edited"]["from"], line.record["edited"]["to"]) == (start, start + len(first["term"]))
    assert line.example().sentence == new
    # every other line byte for byte
    assert [a for a, b in zip(text.split("\n"), edited.split("\n")) if a != b] == [text.split("\n")[line.line - 1]]
    undone, _ = decide_text(edited, "r.jsonl", {first["id"]: Decision(None)}, "ann", "2026-11-26T12:01:00+00:00")
    back = json.loads(undone.split("\n")[line.line - 1])
    assert (back["decision"], back["reviewer"], back["decided_at"], "edited" in back) == (None, None, None, False)
    with pytest.raises(CandidatesError, match=rf"r.jsonl:{line.line}: the edit removes the target"):
        decide_text(text, "r.jsonl", {first["id"]: Decision("edited", {"sentence": "Nothing here."})}, "ann", "now")
    with pytest.raises(CandidatesError, match="'edited' goes with the decision 'edited'"):
        decide_text(text, "r.jsonl", {first["id"]: Decision("accepted", {"sentence": new})}, "ann", "now")


def test_an_edit_keeping_a_repeated_target_takes_the_occurrence_of_the_same_rank_and_refuses_another_count():
    from absa_checks.suites.candidates import parse_line

    sentence = "The filet was dry, but the filet mignon at lunch was great."  # the target: the second "filet"
    record = {"id": "a1", "source": "s", "unit": "u", "strategy": "revtgt", "status": "shipped", "unit_hash": "h",
              "sentence": sentence, "term": "filet", "from": 27, "to": 32, "polarity": "negative",
              "other_aspects": [{"term": "lunch", "from": 43, "to": 48, "polarity": None}],
              "decision": "edited", "reviewer": "ann", "decided_at": "2026-11-26T12:00:00+00:00",
              "edited": {"sentence": "The filet was dry, and the filet mignon at lunch was awful."}}
    assert sentence[27:32] == "filet"
    checked = parse_line(json.dumps(record), "r.jsonl:1", 1)
    edited = checked.record["edited"]
    assert (edited["from"], edited["to"]) == (27, 32)
    assert checked.example().target.start == 27 and checked.example().others[0].term == "lunch"
    # a quarantined attempt without the target's span: the rank is read in the original
    attempt = {**record, "status": "quarantined", "from": None, "to": None, "reason": "x",
               "original": {"sentence": sentence.replace("great", "bad"), "term": "filet", "from": 27, "to": 32}}
    assert parse_line(json.dumps(attempt), "r.jsonl:1", 1).record["edited"]["from"] == 27
    # one occurrence more (or less) than before: which one is meant is not known
    more = {**record, "edited": {"sentence": "The filet was dry, the filet too, but the filet mignon was awful."}}
    with pytest.raises(CandidatesError, match="holds the target 'filet' 3 times, not as often as before"):
        parse_line(json.dumps(more), "r.jsonl:1", 1)


def test_a_quarantined_attempt_gets_the_target_and_aspects_where_the_attempt_has_them():
    """The attempt's spans are in the attempt's sentence: a repeated target at its rank in the original
    (so the attempt can be accepted as it is); an aspect the attempt lost has no span, and accepting it is
    refused (an edit finds the spans in the reviewer's text)."""
    from absa_checks.common.examples import Aspect, Example, Unit
    from absa_checks.perturb.engine import Quarantined
    from absa_checks.suites.candidates import parse_line
    from absa_checks.workflows.generate import _attempt

    original = "The pizza is the best if you like thin crusted pizza, and the staff is kind."
    unit = Unit("s", "u1", Example(original, Aspect("pizza", 4, 9, "positive"),
                                   (Aspect("staff", original.index("staff"), original.index("staff") + 5, "positive"),)))
    attempt = "The lovely pizza is the worst if you like thin crusted pizza, and the staff is kind."
    record = _attempt(unit, "revtgt", Quarantined("s", "u1", "revtgt", "a discourse word", "if", attempt))
    assert (record["from"], record["to"]) == (11, 16) and attempt[11:16] == "pizza"
    staff = attempt.index("staff")
    assert record["other_aspects"] == [{"term": "staff", "from": staff, "to": staff + 5, "polarity": "positive"}]
    base = {**record, "id": "x1", "status": "quarantined", "reason": "r", "unit_hash": "h", "reviewer": "ann",
            "decided_at": "2026-11-26T12:00:00+00:00"}
    assert parse_line(json.dumps({**base, "decision": "accepted"}), "r.jsonl:1", 1).example().target.start == 11
    lost = _attempt(unit, "revtgt", Quarantined("s", "u1", "revtgt", "r", "d", "The pizza is the worst."))
    assert lost["other_aspects"][0]["from"] is None
    with pytest.raises(CandidatesError, match="the other aspect 'staff' is not at its span"):
        parse_line(json.dumps({**base, **lost, "decision": "accepted"}), "r.jsonl:1", 1)


README = Path(__file__).resolve().parents[2] / "README.md"


def readme_freeze_step() -> tuple[str, str]:
    """The README's review loop: its `absa-checks generate` line, and the freeze block between its
    `<!-- freeze-step -->` markers (the fenced shell text, as a user copies it)."""
    import re

    text = README.read_text(encoding="utf-8")
    block = re.search(r"<!-- freeze-step -->\n```bash\n(.*?)```\n<!-- /freeze-step -->", text, re.S)
    assert block, "README.md: no ```bash block between <!-- freeze-step --> and <!-- /freeze-step -->"
    generate = re.search(r"^absa-checks generate --source builtin-restaurant .*--candidates --out reviewed\.jsonl$",
                         text[:block.start()], re.M)
    assert generate, "README.md: no `absa-checks generate ... --out reviewed.jsonl` line before the freeze step"
    return generate[0], block[1]


@pytest.mark.slow
def test_the_readme_freeze_step_runs_as_written_and_runs_exactly_what_was_accepted(tmp_path):
    """The README's generate line and freeze block, run by bash in an empty folder (the review page's decisions
    made with `decide`): the suite it writes runs every accepted candidate, nothing rejected or undecided."""
    import os
    import subprocess
    import sys

    generate, freeze = readme_freeze_step()
    env = {**os.environ, "PYTHONPATH": str(README.parent),
           "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
           "PYTEST_ADDOPTS": f"-p no:cacheprovider --absa-report {tmp_path / 'r.json'}"}
    for name in ("PYTEST_XDIST_WORKER", "CI", "ABSA_DATA_DIR"):
        env.pop(name, None)
    done = subprocess.run(["bash", "-e", "-c", generate], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    file = tmp_path / "reviewed.jsonl"
    revtgt, revnon = shipped(file, "revtgt"), shipped(file, "revnon")
    accepted = revtgt[:6:2] + revnon[:4:2]
    rejected = revtgt[1:6:2] + revnon[1:4:2]
    assert len(accepted) == 5 and decide(file, "--accept", *[r["id"] for r in accepted],
                                         "--reject", *[r["id"] for r in rejected]) == 0
    done = subprocess.run(["bash", "-e", "-c", freeze], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    assert "absa-checks PASSED" in done.stdout
    cases = json.loads((tmp_path / "r.json").read_text())["cases"]
    assert sorted((c["strategy"], c["unit"], c["variant"]["sentence"]) for c in cases) == sorted(
        (r["strategy"], r["unit"], r["sentence"]) for r in accepted)
    assert {c["variant"]["provenance"]["candidate"] for c in cases} == {r["id"] for r in accepted}


def test_source_date_epoch_fixes_the_time_decide_writes_and_a_bad_value_is_named(project, capsys, monkeypatch):
    """A documented command sequence rebuilds a reviewed file byte for byte (docs/frozen-sets.md): the time
    written is SOURCE_DATE_EPOCH's when set; a value that is no time is one line naming the variable."""
    file = project / "reviewed.jsonl"
    first = next(r["id"] for r in records(file) if r["status"] == "shipped")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1764417600")
    assert main(["decide", str(file), "--accept", first, "--reviewer", "ann"]) == 0
    assert next(r for r in records(file) if r["id"] == first)["decided_at"] == "2025-11-29T12:00:00+00:00"
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "yesterday")
    assert main(["decide", str(file), "--reject", first, "--reviewer", "ann"]) != 0
    err = capsys.readouterr().err
    assert "SOURCE_DATE_EPOCH='yesterday': not a time" in err and "Traceback" not in err
    assert next(r for r in records(file) if r["id"] == first)["decision"] == "accepted"  # nothing written
