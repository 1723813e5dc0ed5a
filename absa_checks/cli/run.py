"""`absa-checks run [PYTEST ARGS]`: the suites run through pytest, the same as `pytest PATHS ARGS`."""

from __future__ import annotations

import argparse

from absa_checks.cli.arguments import Command, Subcommands


def add_parser(commands: Subcommands) -> None:
    parser = commands.add_parser("run", help="run suites: the same as `pytest PATHS ARGS`")
    parser.add_argument("pytest_args", nargs=argparse.REMAINDER, help="passed on to pytest (default: suites/)")


def run(args: argparse.Namespace) -> int:
    import pytest

    return int(pytest.main(args.pytest_args or ["suites/"]))


COMMAND = Command("run", add_parser, run)
