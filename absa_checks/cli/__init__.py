"""The `absa-checks` command's entry point only (`absa-checks`, `python -m absa_checks.cli`): the parser built from
`registry.COMMANDS`, in `--help`'s order, and the chosen command's body run; an AbsaChecksError is one line, exit
status 2.

This module is the entry point only: it builds the parser from the commands in `registry.py` (one module each
in this package) and hands the parsed arguments to the chosen command's body; an AbsaChecksError is one line on
stderr and exit status 2."""

from __future__ import annotations

import argparse
import sys

from absa_checks.common.errors import AbsaChecksError


def main(argv: list[str] | None = None) -> int:
    from absa_checks.cli.arguments import refuse_empty_values, step_parser
    from absa_checks.cli.registry import COMMANDS

    parser = argparse.ArgumentParser(prog="absa-checks", description="Behavioural tests for ABSA models.")
    commands = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.add_parser(commands)
    args = parser.parse_args(argv)
    chosen = next(command for command in COMMANDS if command.name == args.command)
    try:
        refuse_empty_values(commands.choices[args.command], args)
        if chosen.steps is not None:  # its steps' own options too
            refuse_empty_values(step_parser(commands.choices[args.command], getattr(args, chosen.steps)), args)
        return chosen.run(args)
    except AbsaChecksError as err:
        print(f"absa-checks: {err}", file=sys.stderr)
        return 2
