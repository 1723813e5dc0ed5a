"""Every `absa-checks` command's parser and --help, and what each does when given nothing, kept as they were
before the commands moved into one module each (issue 37): tests/data/cli_help.json was recorded from the
code before the move (`python tests/cli/test_help.py --write`, run in a checkout of that code), and recorded
again when a command was added (issue 38: `expand`; nothing else changed in the file).

The parsers' structure (every option: its spellings, default, choices, help) is compared on any Python; the
--help texts as argparse formats them are compared on the Python that recorded them (another argparse lays
the same parser out differently, e.g. 3.13's `-o, --out OUT`)."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
from pathlib import Path
from typing import Any
from unittest import mock

GOLDEN = Path(__file__).parents[1] / "data" / "cli_help.json"
COLUMNS = "100"  # argparse wraps help at the terminal's width


class _Parsed(Exception):
    """Raised in place of parse_args, carrying the parser main built."""

    def __init__(self, parser: argparse.ArgumentParser) -> None:
        super().__init__()
        self.parser = parser


def _main(argv: list[str]) -> tuple[int, str, str]:
    """`absa-checks ARGV`: its exit status, stdout and stderr (argparse's exits included)."""
    from absa_checks.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as exit_:
            status = exit_.code if isinstance(exit_.code, int) else 1
    return status, out.getvalue(), err.getvalue()


def _the_parser() -> argparse.ArgumentParser:
    """The parser `main` builds, caught where it would parse (whatever function builds it)."""
    from absa_checks.cli import main

    def caught(self: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        raise _Parsed(self)

    with mock.patch.object(argparse.ArgumentParser, "parse_args", caught):
        try:
            main(["models"])
        except _Parsed as parsed:
            return parsed.parser
    raise AssertionError("main never parsed its arguments")


def _structure(parser: argparse.ArgumentParser) -> dict[str, Any]:
    """A parser as plain data: what its --help says and what it accepts, subcommands included."""
    actions: list[dict[str, Any]] = []
    commands: dict[str, Any] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            commands = {name: {"help": helps.get(name), **_structure(sub)} for name, sub in action.choices.items()}
            actions.append({"subcommands": action.dest, "required": action.required})
            continue
        actions.append({"options": list(action.option_strings), "dest": action.dest, "action": type(action).__name__,
                        "nargs": action.nargs, "const": action.const, "default": action.default,
                        "type": getattr(action.type, "__name__", None), "choices": list(action.choices or []) or None,
                        "required": action.required, "help": action.help, "metavar": action.metavar})
    return {"prog": parser.prog, "description": parser.description, "epilog": parser.epilog, "actions": actions,
            "commands": commands}


def _command_lines(structure: dict[str, Any], prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command line that has its own --help: the top, each command, each command's steps."""
    found = [prefix]
    for name, sub in structure["commands"].items():
        found += _command_lines(sub, (*prefix, name))
    return found


def record() -> dict[str, Any]:
    """The parsers, every --help, and every command but `run` given nothing (in an empty folder)."""
    tree = _structure(_the_parser())
    helps = {" ".join(line): _main([*line, "--help"]) for line in _command_lines(tree)}
    bare = {name: _main([name]) for name in tree["commands"] if name != "run"}  # `run` alone runs pytest
    return {"python": f"{sys.version_info[0]}.{sys.version_info[1]}", "columns": COLUMNS, "structure": tree,
            "help": {key: list(value) for key, value in helps.items()},
            "bare": {key: list(value) for key, value in bare.items()}}


def _recorded_here(tmp: Path) -> dict[str, Any]:
    """record() in the folder `tmp`, at the recorded width, as the golden file holds it (tuples as lists)."""
    before = Path.cwd()
    os.chdir(tmp)
    try:
        with mock.patch.dict(os.environ, {"COLUMNS": COLUMNS}):
            return json.loads(json.dumps(record()))
    finally:
        os.chdir(before)


def test_every_parser_is_as_recorded(tmp_path: Path) -> None:
    golden, now = json.loads(GOLDEN.read_text(encoding="utf-8")), _recorded_here(tmp_path)
    assert now["structure"] == golden["structure"]
    assert sorted(now["help"]) == sorted(golden["help"])  # the same commands and steps
    assert len(golden["help"]) >= 16  # the top, 13 commands, audit's and labelstudio's steps


def test_every_help_and_bare_command_is_as_recorded(tmp_path: Path) -> None:
    golden, now = json.loads(GOLDEN.read_text(encoding="utf-8")), _recorded_here(tmp_path)
    for line, (status, out, err) in now["help"].items():
        assert status == golden["help"][line][0] == 0, line
        if now["python"] == golden["python"]:  # argparse's layout is the recording Python's
            assert (out, err) == tuple(golden["help"][line][1:]), f"absa-checks {line} --help"
    for name, found in now["bare"].items():
        if now["python"] == golden["python"] or not found[2].startswith("usage:"):  # a usage error is argparse's
            assert found == golden["bare"][name], f"absa-checks {name}"
        assert found[0] == golden["bare"][name][0], f"absa-checks {name}"
    assert sorted(now["bare"]) == sorted(golden["bare"])


if __name__ == "__main__":  # recorded before a change to the command line, compared after
    if sys.argv[1:] != ["--write"]:
        raise SystemExit("usage: python tests/cli/test_help.py --write  (records tests/data/cli_help.json)")
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        GOLDEN.write_text(json.dumps(_recorded_here(Path(folder)), indent=1, ensure_ascii=False) + "\n",
                          encoding="utf-8")
    print(f"wrote {GOLDEN}")
