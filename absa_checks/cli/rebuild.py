"""`absa-checks rebuild FILE --out FULL`: the full candidates file of a textless (shipped) one, rebuilt from the
user's copy of the data (absa_checks.suites.textless; docs/suites.md, "Shipped (textless) files")."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from absa_checks.cli.arguments import Command, Subcommands
from absa_checks.cli.files import load_source, new_output
from absa_checks.common import outputs
from absa_checks.common.errors import AbsaChecksError
from absa_checks.common.outputs import CLI_FOLLOW_OPTION, Named

SHOWN_STALE = 3  # stale lines named in rebuild's message; the rest are counted


def add_parser(commands: Subcommands) -> None:
    rebuild = commands.add_parser("rebuild", help="write the full candidates file of a textless one, from your copy "
                                                  "of the data (for review, decide, audit)")
    rebuild.add_argument("file", help="the textless (shipped) candidates file")
    rebuild.add_argument("--source", default=None, metavar="NAME", help="the source its units are from, by the "
                                                                        "name the suites use")
    rebuild.add_argument("--data", default=None, metavar="DIR",
                         help="with --source: data directory laid out like shared/data (default: $ABSA_DATA_DIR)")
    rebuild.add_argument("--input", default=None, metavar="FILE", help="instead of --source: the annotated file "
                                                                       "its units are from")
    rebuild.add_argument("--domain", choices=("restaurant", "laptop"), default=None,
                         help="with --input: as generate's (default: guessed from the path)")
    rebuild.add_argument("--out", required=True, metavar="FULL", help="the full candidates file to write (never an "
                                                                      "existing file)")
    rebuild.add_argument(CLI_FOLLOW_OPTION, action="store_true", help="an output path that is a symbolic link: write to the "
                                                           "file it points to (the link stays)")


def run(args: argparse.Namespace) -> int:
    from absa_checks.suites.candidates import read_text
    from absa_checks.suites.files import load_file
    from absa_checks.suites.textless import rebuild_text

    if (args.source is None) == (args.input is None):
        raise AbsaChecksError("rebuild: name where the units are, --source NAME (with --data DIR) or --input FILE")
    path = Path(args.file)
    given = [Named("--input", Path(args.input))] if args.input else []
    out = new_output("rebuild", Path(args.out), path, args.follow_symlinks, given)
    loaded = load_source(args.source, args.data) if args.source else load_file(Path(args.input), args.domain)
    found = rebuild_text(read_text(path), str(path), loaded)
    if found.stale:
        more = f" (and {len(found.stale) - SHOWN_STALE} more)" if len(found.stale) > SHOWN_STALE else ""
        raise AbsaChecksError(f"rebuild: {'; '.join(found.stale[:SHOWN_STALE])}{more}: its lines cannot be rebuilt "
                              "(stale); run `absa-checks generate --update FILE` on the shipped file to add "
                              "candidates for the present units, or name the data the file was made from; nothing "
                              "written")
    outputs.write_text(out, found.text, args.follow_symlinks, CLI_FOLLOW_OPTION)
    print(f"{out.path}: {found.text.count(chr(10))} lines rebuilt from {args.source or args.input}", file=sys.stderr)
    return 0


COMMAND = Command("rebuild", add_parser, run)
