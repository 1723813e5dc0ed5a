"""`absa-checks review FILE`: the review page over a candidates file or an audit sheet, served on 127.0.0.1 until
Ctrl-C (absa_checks/review; docs/suites.md, "Reviewing")."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from absa_checks.cli.arguments import Command, Subcommands
from absa_checks.common.errors import AbsaChecksError


def add_parser(commands: Subcommands) -> None:
    review = commands.add_parser("review", help="review a candidates file (or answer an audit sheet) on a local page")
    review.add_argument("file", help="the candidates file (written by generate --candidates) or an audit sheet")
    review.add_argument("--port", type=int, default=0, help="the port on 127.0.0.1 (default 0: a free one)")
    review.add_argument("--reviewer", default=None, help="who decides (default: the login name)")
    review.add_argument("--follow-symlinks", action="store_true",
                        help="the file is a symbolic link: write to the file it points to (the link stays)")


def run(args: argparse.Namespace) -> int:
    """`absa-checks review FILE`: the review page on 127.0.0.1 until Ctrl-C (absa_checks/review)."""
    from absa_checks.cli.reviewer import reviewer as reviewer_of
    from absa_checks.cli.reviewer import said
    from absa_checks.review import server

    if not 0 <= args.port <= 65535:
        raise AbsaChecksError(f"review: --port {args.port}: not a port; give 1-65535, or 0 for a free one")
    who = reviewer_of(args.reviewer, "review")
    review = server.open_review(Path(args.file), who.name, args.follow_symlinks)
    if who.defaulted:
        print(said(who, "review"), file=sys.stderr)
    return server.serve(review, args.port, sys.stdout)


COMMAND = Command("review", add_parser, run)
