"""`absa-checks freeze FILE --out SHIPPED`: a candidates file's textless form, to ship with the suites
(absa_checks.suites.textless; docs/suites.md, "Shipped (textless) files"); `rebuild` is the way back."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from absa_checks.cli.arguments import Command, Subcommands
from absa_checks.cli.files import new_output
from absa_checks.common import outputs
from absa_checks.common.outputs import CLI_FOLLOW_OPTION


def add_parser(commands: Subcommands) -> None:
    freeze = commands.add_parser("freeze", help="write a candidates file's textless form (no dataset text), to ship "
                                                "with the suites")
    freeze.add_argument("file", help="the candidates file (full, or already textless)")
    freeze.add_argument("--out", required=True, metavar="SHIPPED", help="the textless file to write (never an "
                                                                        "existing file)")
    freeze.add_argument(CLI_FOLLOW_OPTION, action="store_true", help="an output path that is a symbolic link: write to the "
                                                          "file it points to (the link stays)")


def run(args: argparse.Namespace) -> int:
    from absa_checks.suites.candidates import USED, parse_candidates, read_text
    from absa_checks.suites.textless import freeze_text

    path = Path(args.file)
    out = new_output("freeze", Path(args.out), path, args.follow_symlinks, [])
    text = freeze_text(read_text(path), str(path))
    used = sum(c.decision in USED for c in parse_candidates(text, str(out.path)))
    outputs.write_text(out, text, args.follow_symlinks, CLI_FOLLOW_OPTION)
    print(f"{out.path}: {text.count(chr(10))} textless lines ({used} accepted or edited) from {path}", file=sys.stderr)
    return 0


COMMAND = Command("freeze", add_parser, run)
