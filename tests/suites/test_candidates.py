"""A candidates file has one reader (absa_checks.suites.candidates.read_text, then parse_candidates): the review
page and every command that reads one (decide, audit draw, freeze, labelstudio export) refuse the same file
with the same reason, the review page's message only saying `review:` first."""

from __future__ import annotations

from pathlib import Path

import pytest

from absa_checks.cli import main


def _said(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 2, argv
    captured = capsys.readouterr()
    assert captured.out == "", argv
    return captured.err.strip()


def _commands(path: Path, tmp_path: Path) -> dict[str, list[str]]:
    """Every way a candidates file is read from the command line, each on `path`."""
    return {"review": ["review", str(path), "--reviewer", "ann"],
            "decide": ["decide", str(path), "--accept", "abc", "--reviewer", "ann"],
            "audit draw": ["audit", "draw", str(path), "--sample", "1", "--seed", "1", "--out",
                           str(tmp_path / "sheet.jsonl")],
            "freeze": ["freeze", str(path), "--out", str(tmp_path / "shipped.jsonl")],
            "labelstudio export": ["labelstudio", "export", str(path), "--out", str(tmp_path / "tasks.json")]}


def test_a_folder_is_refused_alike_by_the_review_page_and_the_commands(tmp_path, capsys):
    """The review page read it with its own reader, which opened the folder (a FIFO would have waited for
    ever); the one reader refuses what is no regular file before opening it."""
    folder = tmp_path / "candidates.jsonl"
    folder.mkdir()
    reason = f"{folder}: cannot be read as UTF-8 text (it is a folder, not a regular file: name a file)"
    said = {name: _said(argv, capsys) for name, argv in _commands(folder, tmp_path).items()}
    assert said.pop("review") == f"absa-checks: review: {reason}"
    assert said == {name: f"absa-checks: {reason}" for name in said}


def test_a_bad_line_is_refused_alike_by_the_review_page_and_the_commands(tmp_path, capsys):
    path = tmp_path / "candidates.jsonl"
    path.write_text('not json\n{"id": "x"}\n', encoding="utf-8")
    said = {name: _said(argv, capsys) for name, argv in _commands(path, tmp_path).items()}
    expected = (f"absa-checks: {path}:1: not a JSON line (Expecting value); each line is one JSON object "
                "(a candidate)")
    assert said == {name: expected for name in said}
    assert not (tmp_path / "sheet.jsonl").exists() and not (tmp_path / "shipped.jsonl").exists()


def test_a_missing_file_names_what_each_expected(tmp_path, capsys):
    """The reader's one message, with what to do said by the caller: the review page also takes audit sheets."""
    path = tmp_path / "absent.jsonl"
    said = {name: _said(argv, capsys) for name, argv in _commands(path, tmp_path).items()}
    assert said.pop("review") == (f"absa-checks: review: {path}: not found; name a candidates file (`absa-checks "
                                  "generate --candidates --out FILE`) or an audit sheet (`absa-checks audit draw`)")
    assert said == {name: f"absa-checks: {path}: candidates file not found; write it with `absa-checks generate "
                          "--candidates --out FILE`" for name in said}
