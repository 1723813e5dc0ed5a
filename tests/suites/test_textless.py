"""Textless (shipped) candidates files: no dataset text in the line, rebuilt from the user's data at run time
(docs/suites.md, "Shipped (textless) files"). Real files, the real commands and real pytest runs on a tiny
in-test source (never ../shared)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from candidate_examples import EXAMPLES_ABC

from absa_checks.cli import main
from absa_checks.suites import textless
from absa_checks.suites.candidates import CandidatesError, parse_candidates
from absa_checks.suites.files import load_file
from conftest import run_pytest

EXAMPLES = EXAMPLES_ABC
SENTENCES = ("The burgers were delicious, but the fries were soggy.", "The soup was cold and the bread was stale.",
             "The pasta was great.")
SUITE = """\
suite: shipped
sources:
  mine: {file: mine.yaml}
tests:
  - name: shipped-revtgt
    strategy: revtgt
    sources: mine
    variants: {frozen: shipped.jsonl}
"""
WHEN = "2026-12-01T10:00:00+00:00"


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    """mine.yaml's REVTGT and REVNON candidates, every shipped one accepted, one edited and audited."""
    folder = tmp_path_factory.mktemp("textless")
    (folder / "mine.yaml").write_text(EXAMPLES)
    full = folder / "full.jsonl"
    assert main(["generate", "--input", str(folder / "mine.yaml"), "--strategies", "revtgt,revnon", "--candidates",
                 "--out", str(full)]) == 0
    lines, edited = [], False
    for r in rows(full):
        if r["status"] == "shipped":
            r.update(decision="accepted", reviewer="ann", decided_at=WHEN)
            text = r["sentence"]
            if not edited and r["strategy"] == "revtgt":
                text = r["sentence"].replace(".", " indeed.")
                r.update(decision="edited", edited={"sentence": text})
                edited = True
            r["audit"] = {"fluent": True, "sentiment_ok": True, "reason": "", "sentence": text, "sheet": "s.jsonl",
                          "scored_at": WHEN}
        lines.append(json.dumps(r, ensure_ascii=False))
    full.write_text("\n".join(lines) + "\n")
    return folder


@pytest.fixture
def project(generated, tmp_path) -> Path:
    for name in ("mine.yaml", "full.jsonl"):
        shutil.copy(generated / name, tmp_path / name)
    (tmp_path / "suite.yaml").write_text(SUITE)
    assert main(["freeze", str(tmp_path / "full.jsonl"), "--out", str(tmp_path / "shipped.jsonl")]) == 0
    return tmp_path


def loaded(folder: Path):
    return load_file(folder / "mine.yaml", None)


def test_a_textless_line_holds_no_dataset_text_and_rebuilds_to_the_full_line(project):
    text = (project / "shipped.jsonl").read_text()
    assert all(sentence not in text for sentence in SENTENCES)
    assert all(r["textless"] == 1 and "sentence" not in r and "term" not in r and "original" not in r
               for r in rows(project / "shipped.jsonl"))
    assert all("term" not in a for r in rows(project / "shipped.jsonl") for a in r.get("other_aspects") or ())
    edited = next(r for r in rows(project / "shipped.jsonl") if r["decision"] == "edited")
    assert "sentence" not in edited["edited"] and "sentence" not in edited["audit"]
    assert {e["why"] for e in edited["edited"]["edits"]} == {textless.EDITED_BY_REVIEWER}
    rebuilt = textless.rebuild_text(text, "shipped.jsonl", loaded(project))
    assert rebuilt.stale == ()
    full = {r["id"]: r for r in rows(project / "full.jsonl")}
    for r in map(json.loads, rebuilt.text.splitlines()):
        before = full[r["id"]]
        for key in ("sentence", "term", "from", "to", "original", "other_aspects", "audit", "decision"):
            assert r.get(key) == before.get(key), (key, r["id"])
        if before.get("edited"):  # the reviewer's text, its span filled in as reading fills it in
            assert r["edited"]["sentence"] == before["edited"]["sentence"] and r["edited"]["from"] >= 0


def test_freeze_of_a_rebuilt_file_gives_back_the_shipped_bytes(project, capsys):
    assert main(["rebuild", str(project / "shipped.jsonl"), "--input", str(project / "mine.yaml"), "--out",
                 str(project / "again.jsonl")]) == 0
    assert main(["freeze", str(project / "again.jsonl"), "--out", str(project / "shipped2.jsonl")]) == 0
    assert (project / "shipped2.jsonl").read_bytes() == (project / "shipped.jsonl").read_bytes()
    err = capsys.readouterr().err
    assert "textless lines" in err and "accepted or edited" in err


@pytest.mark.slow
def test_a_frozen_suite_runs_the_textless_file_as_the_full_one(project):
    done = run_pytest(["suite.yaml", "--model", "lexicon"], cwd=project, report=project / "r.json")
    assert done.code in (0, 1), done.out
    shutil.copy(project / "full.jsonl", project / "shipped.jsonl")
    full = run_pytest(["suite.yaml", "--model", "lexicon"], cwd=project, report=project / "r2.json")
    assert [c["variant"]["sentence"] for c in done.report["cases"]] == \
        [c["variant"]["sentence"] for c in full.report["cases"]]
    assert done.report["cases"] and done.report["validity"] == full.report["validity"]


def test_a_stale_textless_unit_is_named_by_the_gate_never_skipped(project):
    (project / "mine.yaml").write_text(EXAMPLES.replace("The pasta was great.", "The pasta was really great."))
    done = run_pytest(["suite.yaml", "--model", "lexicon"], cwd=project, report=project / "r.json")
    assert done.code == 1, done.out
    assert "1 unit changed (c)" in done.out
    gates = {(g["gate"], g["test"].split("::")[1]): g["verdict"] for g in done.report["gates"]}
    assert gates[("frozen_up_to_date", "shipped-revtgt")] == "fail"


def test_rebuild_refuses_a_stale_unit_naming_it_and_writes_nothing(project, capsys):
    (project / "mine.yaml").write_text(EXAMPLES.replace("The pasta was great.", "The pasta was really great."))
    out = project / "again.jsonl"
    assert main(["rebuild", str(project / "shipped.jsonl"), "--input", str(project / "mine.yaml"), "--out",
                 str(out)]) == 2
    err = capsys.readouterr().err
    assert "unit c has changed since the line was made" in err and "nothing written" in err
    assert len(err.strip().splitlines()) == 1 and not out.exists()


def test_an_edit_whose_old_text_no_longer_matches_is_refused_naming_the_line(project):
    lines = rows(project / "shipped.jsonl")
    number, line = next((i, r) for i, r in enumerate(lines, 1) if r.get("edits"))
    line["edits"][0]["old"] = "zzz" + line["edits"][0]["old"]
    (project / "shipped.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    with pytest.raises(CandidatesError, match=rf"shipped.jsonl:{number}: the edit at .* expects other text"):
        textless.read_frozen(project / "shipped.jsonl", "shipped.jsonl", loaded(project))
    done = run_pytest(["suite.yaml", "--model", "lexicon"], cwd=project, report=project / "r.json")
    assert done.code == 1 and f"shipped.jsonl:{number}: the edit at" in done.out


def test_the_audit_comes_back_only_when_its_hash_is_the_rebuilt_texts(project):
    lines = rows(project / "shipped.jsonl")
    audited = [r for r in lines if r.get("audit")]
    assert len(audited) >= 2
    audited[0]["audit"]["sentence_sha256"] = textless.sha256("another text")
    (project / "shipped.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    found = {c.candidate_id: c for c in textless.read_frozen(project / "shipped.jsonl", "s", loaded(project))}
    assert found[audited[0]["id"]].audit() is None and "audit" not in found[audited[0]["id"]].record
    assert found[audited[1]["id"]].audit() is not None
    assert found[audited[1]["id"]].audit()["sentence"] == found[audited[1]["id"]].text()


def test_an_unrebuilt_textless_line_parses_and_counts_no_audit():
    line = {"id": "x1", "textless": 1, "strategy": "revtgt", "unit": "u", "source": "s", "status": "shipped",
            "reason": None, "from": 0, "to": 3, "polarity": "negative", "edits": [], "unit_hash": "h",
            "decision": "accepted", "reviewer": "ann", "decided_at": WHEN,
            "audit": {"fluent": True, "sentiment_ok": True, "reason": "", "sentence_sha256": "ab", "sheet": "s",
                      "scored_at": WHEN}}
    (found,) = parse_candidates(json.dumps(line), "f")
    assert found.audit() is None and found.text() is None


def test_freeze_and_rebuild_refuse_to_write_over_an_existing_file(project, capsys):
    before = (project / "full.jsonl").read_bytes()
    assert main(["freeze", str(project / "full.jsonl"), "--out", str(project / "shipped.jsonl")]) == 2
    assert "already exists" in capsys.readouterr().err
    assert main(["freeze", str(project / "full.jsonl"), "--out", str(project / "full.jsonl")]) == 2
    assert "the same file as FILE" in capsys.readouterr().err
    assert main(["rebuild", str(project / "shipped.jsonl"), "--input", str(project / "mine.yaml"), "--out",
                 str(project / "full.jsonl")]) == 2
    assert (project / "full.jsonl").read_bytes() == before


def test_generate_update_on_a_textless_file_adds_candidates_keeps_decided_ones_and_stays_textless(project):
    shipped = project / "shipped.jsonl"
    before = shipped.read_text()
    (project / "mine.yaml").write_text(EXAMPLES + "  - {id: d, sentence: The wine was cheap and good., aspect: wine,"
                                                  " polarity: positive}\n")
    assert main(["generate", "--input", str(project / "mine.yaml"), "--strategies", "revtgt,revnon", "--update",
                 str(shipped)]) == 0
    after = shipped.read_text()
    assert after.startswith(before) and len(after) > len(before)
    assert "The wine was cheap" not in after and all(r["textless"] == 1 for r in rows(shipped))
    assert {r["unit"] for r in rows(shipped)[len(before.splitlines()):]} == {"d"}
    rebuilt = textless.rebuild_text(after, "s", loaded(project))
    assert rebuilt.stale == ()
    assert any(r["unit"] == "d" and r["sentence"] for r in map(json.loads, rebuilt.text.splitlines()))


def test_a_sources_own_variant_is_shipped_as_a_hash_and_found_again_in_the_source(generated):
    """A source's own variants (ARTS's, mode given) are the source's text: the textless line holds only their hash
    and is rebuilt from the variant the source gives (recased target and all); a source that no longer gives it
    makes the line stale, one error naming it. Judges' reasons (they quote the sentence) are left out."""
    from dataclasses import replace

    from absa_checks.common.examples import Aspect, Example, Variant
    full = parse_candidates((generated / "full.jsonl").read_text(), "full.jsonl")
    shipped = next(c for c in full if c.decision == "accepted" and c.strategy == "revtgt" and c.audit())
    record = dict(shipped.record)
    start, end = record["from"], record["to"]
    recased = record["sentence"][start:end].upper()
    sentence = record["sentence"][:start] + recased + record["sentence"][end:]
    record.update(sentence=sentence, term=recased, mode="given",
                  audit={**record["audit"], "sentence": sentence, "reason": "'" + sentence + "' reads oddly"})
    line = textless.strip(record)
    assert "sentence" not in line and "edits" not in line and "term" not in line and line["given_sha256"]
    assert line["audit"]["reason"] == "" and sentence not in json.dumps(line)
    unit = next(u for u in load_file(generated / "mine.yaml", "mine").units if u.unit_id == record["unit"])
    variant = Variant("revtgt", Example(sentence, Aspect(recased, start, end, record["polarity"]), ()))
    rebuilt = textless.rebuild(line, replace(unit, given={"revtgt": (variant,)}), "x:1")
    assert (rebuilt["sentence"], rebuilt["term"], rebuilt["audit"]["sentence"]) == (sentence, recased, sentence)
    with pytest.raises(CandidatesError, match=r"x:1: the source no longer gives this revtgt variant"):
        textless.rebuild(line, replace(unit, given={}), "x:1")
