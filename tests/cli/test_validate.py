"""`absa-checks validate`: checks exactly the files pytest would collect as suites."""

from __future__ import annotations

from pathlib import Path

from absa_checks import cli

GOOD = "suite: good\ntests:\n  - {name: a, strategy: adddiff, sources: [builtin-laptop]}\n"
BAD = "suite: bad\ntests:\n  - {name: a, strategy: revtgtt, sources: [builtin-laptop]}\n"


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_a_folder_validates_its_suites_only(tmp_path: Path, capsys) -> None:
    write(tmp_path, {"s/good.yaml": GOOD, "s/docker-compose.yml": "services: {web: {image: nginx}}\n",
                     "s/data.examples.yaml": "examples: []\n"})
    assert cli.main(["validate", str(tmp_path / "s")]) == 0
    out = capsys.readouterr().out
    assert "good.yaml: 1 tests" in out and "docker-compose" not in out
    assert out.strip().endswith("1 suite files, 0 with errors")


def test_errors_are_counted_and_a_named_non_suite_is_one(tmp_path: Path, capsys) -> None:
    write(tmp_path, {"bad.yaml": BAD, "plain.yaml": "tests: []\n"})
    assert cli.main(["validate", str(tmp_path / "bad.yaml"), str(tmp_path / "plain.yaml")]) == 1
    out = capsys.readouterr().out
    assert "unknown strategy 'revtgtt'" in out or "revtgtt" in out
    assert "plain.yaml: not an absa-checks suite" in out
    assert out.strip().endswith("2 suite files, 2 with errors")
