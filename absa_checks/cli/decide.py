"""`absa-checks decide FILE --accept ID... --reject ID...`: a reviewer's decisions written on their lines of a
candidates file (absa_checks.suites.candidates.decide)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from absa_checks.cli.arguments import Command, Subcommands
from absa_checks.cli.files import write_each
from absa_checks.common import clock, outputs
from absa_checks.common.errors import AbsaChecksError
from absa_checks.common.outputs import CLI_FOLLOW_OPTION, Named


def add_parser(commands: Subcommands) -> None:
    decide = commands.add_parser("decide", help="record a reviewer's decisions in a candidates file")
    decide.add_argument("file", help="the candidates file (written by generate --candidates)")
    decide.add_argument("--accept", nargs="+", default=[], metavar="ID", help="candidate ids to accept")
    decide.add_argument("--reject", nargs="+", default=[], metavar="ID", help="candidate ids to reject")
    decide.add_argument("--reviewer", default=None, help="who decides (default: the login name)")
    decide.add_argument("--replace", action="store_true",
                        help="replace decisions another reviewer made (without it they are refused, naming whose)")
    decide.add_argument("--follow-symlinks", action="store_true",
                        help="the file is a symbolic link: write to the file it points to (the link stays)")


def run(args: argparse.Namespace) -> int:
    """`absa-checks decide FILE --accept ID... --reject ID...`: the decisions written on their lines."""

    from absa_checks.cli.reviewer import reviewer as reviewer_of
    from absa_checks.suites.candidates import Decision, decide, others_decisions, parse_candidates, read_text

    path = Path(args.file)
    both = sorted(set(args.accept) & set(args.reject))
    if both:
        raise AbsaChecksError(f"decide: {', '.join(both)} both accepted and rejected; name each id once")
    if not args.accept and not args.reject:
        raise AbsaChecksError("decide: name candidates with --accept ID... and/or --reject ID...")
    text = read_text(path)  # read once: the lines checked are the lines rewritten
    found = parse_candidates(text, str(path))  # every line checked first: a bad file is refused, never half rewritten
    who = reviewer_of(args.reviewer, "decide")
    reviewer = who.name
    others = others_decisions(found, {*args.accept, *args.reject}, reviewer)
    if others and not args.replace:
        first = others[0]
        more = f" (and {len(others) - 1} more: {', '.join(c.candidate_id for c in others[1:4])}" \
               f"{', ...' if len(others) > 4 else ''})" if len(others) > 1 else ""
        raise AbsaChecksError(f"decide: {path}:{first.line}: candidate {first.candidate_id} was "
                              f"{first.record.get('decision')} by {first.record.get('reviewer')} at "
                              f"{first.record.get('decided_at')}{more}; deciding as {reviewer} would replace "
                              f"{first.record.get('reviewer')}'s decision: add --replace to replace it, or leave it "
                              "out; nothing written")
    now = clock.now_iso()
    decisions: dict[str, str | Decision] = {**{i: "accepted" for i in args.accept},
                                            **{i: "rejected" for i in args.reject}}
    text, unknown = decide(text, str(path), decisions, reviewer, now)
    if unknown:
        raise AbsaChecksError(f"decide: no candidate {', '.join(unknown)} in {path}; the ids are the 'id' of "
                              "its lines")
    outputs.check([Named("FILE", path)], [], [], args.follow_symlinks, CLI_FOLLOW_OPTION)
    if write_each([(Named("FILE", path), text)], args.follow_symlinks):
        return 2
    replaced = "".join(f"; replaced {c.record.get('reviewer')}'s {c.record.get('decision')} of {c.candidate_id}"
                       for c in others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
    print(f"{path}: {len(args.accept)} accepted, {len(args.reject)} rejected by {reviewer}"
          + (" (the login name; --reviewer NAME signs another)" if who.defaulted else "") + replaced, file=sys.stderr)
    return 0


COMMAND = Command("decide", add_parser, run)
