"""`absa-checks generate` and `augment` never lose a reviewer's work and never write a variant twice
(issue 35, probes 50 and 61)."""

from __future__ import annotations

import json

import pytest

from absa_checks.cli import main
from absa_checks.suites.candidates import reviewed_work

SENTENCES = """\
The [burgers|pos] were {delicious|burgers}, but the [fries|neg] were {soggy|fries}.
The [soup|neg] was {cold|soup} and the [bread|neg] was {stale|bread}.
"""


@pytest.fixture
def decided(tmp_path):
    """A candidates file (--candidates --out) with one candidate accepted by a reviewer: its text and path."""
    marked, out = tmp_path / "mine.txt", tmp_path / "c.jsonl"
    marked.write_text(SENTENCES)
    assert main(["generate", "--input", str(marked), "--strategies", "revtgt", "--candidates", "--out", str(out)]) == 0
    first = json.loads(out.read_text().splitlines()[0])["id"]
    assert main(["decide", str(out), "--accept", first, "--reviewer", "me"]) == 0
    return marked, out, out.read_text()


@pytest.mark.parametrize("extra", [["--candidates"], []], ids=["candidates", "variants"])
def test_generate_again_never_replaces_a_decided_candidates_file(decided, capsys, extra):
    marked, out, text = decided
    capsys.readouterr()
    assert main(["generate", "--input", str(marked), "--strategies", "revtgt", *extra, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert out.read_text() == text  # the decision is still there, byte for byte
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert f"--out {out}" in err and "1 reviewer decision" in err and f"--update {out}" in err
    # the fix it names works: the decisions are kept
    assert main(["generate", "--input", str(marked), "--strategies", "revtgt", "--update", str(out)]) == 0
    assert out.read_text().startswith(text)


def test_no_other_output_of_generate_or_augment_replaces_reviewed_work(decided, tmp_path, capsys):
    marked, out, text = decided
    capsys.readouterr()
    assert main(["generate", "--input", str(marked), "--strategies", "revtgt", "--out", str(tmp_path / "v.jsonl"),
                 "--quarantine", str(out)]) == 2
    assert f"--quarantine {out}: holds 1 reviewer decision" in capsys.readouterr().err
    assert main(["augment", "--input", str(marked), "--strategies", "revtgt", "--out", str(out),
                 "--suites", str(tmp_path)]) == 2
    assert f"--out {out}: holds 1 reviewer decision" in capsys.readouterr().err
    assert out.read_text() == text


def test_reviewed_work_counts_decisions_and_audit_verdicts_of_any_line():
    lines = [{"id": "a", "decision": None}, {"id": "b", "decision": "accepted"},
             {"id": "c", "decision": None, "audit": {"fluent": True}}, ["not an object"]]
    found = reviewed_work("\n".join(json.dumps(x) for x in lines) + "\nnot json\n")
    assert (found.decisions, found.audits) == (1, 1)
    assert found.said() == "1 reviewer decision and 1 audit verdict"
    assert not reviewed_work('{"id": "a", "decision": null}\n')


@pytest.mark.parametrize("command", ["generate", "augment"])
@pytest.mark.parametrize("strategies", ["revtgt,revtgt", "revtgt, revnon,revtgt", "revnon+adddiff,revnon + adddiff"])
def test_a_strategy_named_twice_is_refused_in_one_line(tmp_path, capsys, command, strategies):
    marked, out = tmp_path / "mine.txt", tmp_path / "v.jsonl"
    marked.write_text(SENTENCES)
    assert main([command, "--input", str(marked), "--strategies", strategies, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--strategies" in err and "named more than once" in err
    assert not out.exists()
