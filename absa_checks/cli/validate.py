"""`absa-checks validate [PATHS]`: suite files checked without running a model (exactly the files pytest would
collect as suites, and those that look like one)."""

from __future__ import annotations

import argparse
from pathlib import Path

from absa_checks.cli.arguments import Command, Subcommands
from absa_checks.common import inputs
from absa_checks.common.errors import AbsaChecksError
from absa_checks.sources.catalog import known_source_names
from absa_checks.suites.spec import parse_suite, source_defined_twice
from absa_checks.suites.suite_files import classify, is_yaml


def add_parser(commands: Subcommands) -> None:
    validate = commands.add_parser("validate", help="check suite files without running a model")
    validate.add_argument("paths", nargs="*", default=["suites"], help="suite files or folders (default: suites)")


def run(args: argparse.Namespace) -> int:
    paths: list[str] = args.paths
    files = []
    for name in paths:
        path = Path(name)
        if path.is_dir():  # suites, and files that look like one (they must read as one)
            files += sorted(p for p in path.rglob("*") if is_yaml(p) and classify(p, Path.cwd()).kind != "other")
        elif path.is_file():
            files.append(path)
        else:
            try:
                inputs.check_regular(path)  # a device or FIFO: neither a suite nor a folder of them
            except inputs.NotARegularFile as err:
                raise AbsaChecksError(f"{name}: {err}") from None
            raise AbsaChecksError(f"{name}: no such file or folder")
    if not files:
        print(f"error {', '.join(paths)}: no suite file found (a suite is a .yaml file with a top-level "
              "'suite: NAME' line), so nothing was validated; name the suite files or their folder")
        return 1
    problems = 0
    defined: dict[str, tuple[str, str]] = {}  # a local source name -> (what it reads, where), across the files
    for path in files:
        found = classify(path, Path.cwd())
        if found.kind != "suite":  # named explicitly or suite-like, yet not a suite
            problems += 1
            why = f" ({found.why})" if found.why else ""
            print(f"error {path}: not an absa-checks suite{why}: a suite file has a top-level 'suite: NAME' line")
            continue
        try:
            suite = parse_suite(path, known_source_names())
            for name, local in suite.inline_sources.items():  # as a run of these files would see them
                first = defined.setdefault(name, (local.identity, local.defined_at))
                if first[0] != local.identity:
                    raise AbsaChecksError(source_defined_twice(name, local.defined_at, first[1]))
            print(f"ok    {path}: {len(suite.tests) + len(suite.extraction_tests)} tests")
        except AbsaChecksError as err:
            problems += 1
            print(f"error {err}")
    print(f"{len(files)} suite files, {problems} with errors")
    return 1 if problems else 0


COMMAND = Command("validate", add_parser, run)
