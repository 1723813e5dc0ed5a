"""`absa-checks freeze` and `absa-checks rebuild`: a candidates file's textless form, to ship, and back
(absa_checks.suites.textless; docs/suites.md, "Shipped (textless) files")."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from absa_checks.common import outputs
from absa_checks.common.errors import AbsaChecksError
from absa_checks.common.outputs import Named

FOLLOW = "--follow-symlinks"
SHOWN_STALE = 3  # stale lines named in rebuild's message; the rest are counted


def add_parsers(commands) -> None:
    freeze = commands.add_parser("freeze", help="write a candidates file's textless form (no dataset text), to ship "
                                                "with the suites")
    freeze.add_argument("file", help="the candidates file (full, or already textless)")
    freeze.add_argument("--out", required=True, metavar="SHIPPED", help="the textless file to write (never an "
                                                                        "existing file)")
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
    for command in (freeze, rebuild):
        command.add_argument(FOLLOW, action="store_true", help="an output path that is a symbolic link: write to the "
                                                               "file it points to (the link stays)")


def _new_output(command: str, path: Path, given: Path, follow_symlinks: bool, inputs: list[Named]) -> Named:
    out = Named("--out", path)
    outputs.check([out], [Named("FILE", given), *inputs], [], follow_symlinks, FOLLOW)
    if path.exists() or path.is_symlink():
        raise AbsaChecksError(f"{command}: --out {path} already exists; name a new file, or delete it first "
                              "(nothing written)")
    return out


def freeze(args: argparse.Namespace) -> int:
    from absa_checks.suites.candidates import USED, parse_candidates, read_text
    from absa_checks.suites.textless import freeze_text

    path = Path(args.file)
    out = _new_output("freeze", Path(args.out), path, args.follow_symlinks, [])
    text = freeze_text(read_text(path), str(path))
    used = sum(c.decision in USED for c in parse_candidates(text, str(out.path)))
    outputs.write_text(out, text, args.follow_symlinks, FOLLOW)
    print(f"{out.path}: {text.count(chr(10))} textless lines ({used} accepted or edited) from {path}", file=sys.stderr)
    return 0


def rebuild(args: argparse.Namespace) -> int:
    from absa_checks.cli import _load_source
    from absa_checks.suites.candidates import read_text
    from absa_checks.suites.files import load_file
    from absa_checks.suites.textless import rebuild_text

    if (args.source is None) == (args.input is None):
        raise AbsaChecksError("rebuild: name where the units are, --source NAME (with --data DIR) or --input FILE")
    path = Path(args.file)
    given = [Named("--input", Path(args.input))] if args.input else []
    out = _new_output("rebuild", Path(args.out), path, args.follow_symlinks, given)
    loaded = _load_source(args.source, args.data) if args.source else load_file(Path(args.input), args.domain)
    found = rebuild_text(read_text(path), str(path), loaded)
    if found.stale:
        more = f" (and {len(found.stale) - SHOWN_STALE} more)" if len(found.stale) > SHOWN_STALE else ""
        raise AbsaChecksError(f"rebuild: {'; '.join(found.stale[:SHOWN_STALE])}{more}: its lines cannot be rebuilt "
                              "(stale); run `absa-checks generate --update FILE` on the shipped file to add "
                              "candidates for the present units, or name the data the file was made from; nothing "
                              "written")
    outputs.write_text(out, found.text, args.follow_symlinks, FOLLOW)
    print(f"{out.path}: {found.text.count(chr(10))} lines rebuilt from {args.source or args.input}", file=sys.stderr)
    return 0
