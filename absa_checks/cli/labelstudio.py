"""`absa-checks labelstudio export|import`: a candidates file as Label Studio tasks, and Label Studio's JSON
export back as decisions (absa_checks/suites/labelstudio.py; docs/suites.md, "Label Studio")."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from absa_checks.cli.arguments import Command, Subcommands
from absa_checks.cli.files import write_each
from absa_checks.cli.reviewer import NO_NAME, login_name
from absa_checks.common import clock, outputs
from absa_checks.common.errors import AbsaChecksError
from absa_checks.common.outputs import Named

FOLLOW_HELP = "an output path that is a symbolic link: write to the file it points to (the link stays)"


def add_parser(commands: Subcommands) -> None:
    ls = commands.add_parser("labelstudio", help="review candidates in Label Studio: export them as tasks, import "
                                                 "the annotations back as decisions")
    steps = ls.add_subparsers(dest="labelstudio_command", required=True)
    export = steps.add_parser("export", help="the decidable candidates of FILE as Label Studio tasks (JSON)")
    export.add_argument("file", help="the candidates file (written by generate --candidates)")
    export.add_argument("--out", required=True, metavar="TASKS.json", help="the tasks, to import into Label Studio")
    export.add_argument("--config", default=None, metavar="CONFIG.xml",
                        help="also write the labeling config the tasks are made for")
    export.add_argument("--follow-symlinks", action="store_true", help=FOLLOW_HELP)
    back = steps.add_parser("import", help="write the decisions of a Label Studio JSON export into FILE")
    back.add_argument("file", help="the candidates file the tasks were exported from")
    back.add_argument("export", help="Label Studio's export of the project, in its 'JSON' format")
    back.add_argument("--reviewer", default=None,
                      help="who decided, where the export names no annotator (default: the login name)")
    back.add_argument("--follow-symlinks", action="store_true", help=FOLLOW_HELP)


def run(args: argparse.Namespace) -> int:
    for option, value in (("FILE", args.file), ("--out", getattr(args, "out", None)),
                          ("--config", getattr(args, "config", None)), ("EXPORT", getattr(args, "export", None)),
                          ("--reviewer", getattr(args, "reviewer", None))):
        if isinstance(value, str) and not value.strip():
            raise AbsaChecksError(f"labelstudio {args.labelstudio_command}: {option} is empty; give a value")
    return _export(args) if args.labelstudio_command == "export" else _import(args)


def _export(args: argparse.Namespace) -> int:
    from absa_checks.suites import labelstudio
    from absa_checks.suites.candidates import read_candidates

    path = Path(args.file)
    candidates = read_candidates(path)
    found = labelstudio.tasks(candidates)
    wanted = [Named("--out", Path(args.out))] + ([Named("--config", Path(args.config))] if args.config else [])
    outputs.check(wanted, [Named("FILE", path)], [], args.follow_symlinks, "--follow-symlinks")
    texts = [json.dumps(found, ensure_ascii=False, indent=1) + "\n"] + ([labelstudio.config_xml()] if args.config else [])
    if write_each(zip(wanted, texts), args.follow_symlinks):
        return 2
    decided = sum(c.decision is not None for c in candidates if c.status in labelstudio.DECIDABLE)
    print(f"{args.out}: {len(found)} tasks (shipped and quarantined candidates of {path}; {decided} already decided, "
          "their decision given as a prediction)" + (f"; labeling config in {args.config}" if args.config else
                                                     "; labeling config: docs/suites.md, Label Studio"), file=sys.stderr)
    return 0


def _import(args: argparse.Namespace) -> int:
    from absa_checks.suites import labelstudio
    from absa_checks.suites.candidates import parse_candidates, read_text

    path, export = Path(args.file), Path(args.export)
    text = read_text(path)  # read once: the lines checked are the lines rewritten
    candidates = parse_candidates(text, str(path))  # a bad file is refused before anything is written
    try:
        given = export.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise AbsaChecksError(f"{export}: Label Studio export not found; export the project (format 'JSON') and "
                              "name the file") from None
    except (OSError, UnicodeDecodeError) as err:
        raise AbsaChecksError(f"{export}: cannot be read as UTF-8 text ({err})") from None
    now = clock.now_iso()
    fallback = args.reviewer or login_name()  # '' where there is none: asked for only where an annotator is missing
    reading = labelstudio.read_export(given, str(export), {c.candidate_id for c in candidates}, fallback, now)
    for found in reading.decisions:
        if not found.reviewer.strip():
            raise AbsaChecksError(f"{found.where}: the export names no annotator; pass --reviewer NAME ({NO_NAME})")
    new, written, kept = labelstudio.apply(text, str(path), candidates, reading)
    outputs.check([Named("FILE", path)], [Named("EXPORT", export)], [], args.follow_symlinks, "--follow-symlinks")
    if new != text and write_each([(Named("FILE", path), new)], args.follow_symlinks):
        return 2
    counts = {d: sum(w.decision.decision == d for w in written) for d in ("accepted", "rejected", "edited")}
    who = sorted({w.reviewer for w in written})
    print(f"{path}: {counts['accepted']} accepted, {counts['rejected']} rejected, {counts['edited']} edited from "
          f"{export}" + (f" (by {', '.join(who)})" if who else "")
          + f"; {reading.cancelled} cancelled annotations skipped; {reading.unannotated} tasks without an annotation"
          + (f"; {reading.several} candidates with several annotations: the latest taken" if reading.several else "")
          + (f"; {len(kept)} kept as decided in the file after their annotation ("
             + ", ".join(k.candidate_id for k in kept[:5]) + (", ..." if len(kept) > 5 else "") + ")" if kept else ""),
          file=sys.stderr)
    return 0


COMMAND = Command("labelstudio", add_parser, run)
