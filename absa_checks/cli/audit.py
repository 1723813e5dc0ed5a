"""`absa-checks audit draw` and `absa-checks audit score`: the audit of a candidates file (judge/audit.py)."""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

from absa_checks.cli.arguments import Command, Subcommands
from absa_checks.common import clock, outputs
from absa_checks.common.errors import AbsaChecksError
from absa_checks.common.outputs import CLI_FOLLOW_OPTION, Named


def add_parser(commands: Subcommands) -> None:
    parser = commands.add_parser("audit", help="a blinded sample of a candidates file judged by people: draw a sheet, "
                                               "score the answers (docs/suites.md, Auditing)")
    steps = parser.add_subparsers(dest="audit_command", required=True)
    drawing = steps.add_parser("draw", help="write a blinded sheet of the file's variants for judges")
    drawing.add_argument("file", help="the candidates file (written by generate --candidates)")
    drawing.add_argument("--sample", type=int, required=True, metavar="N",
                         help="items per strategy present in the pool (all of a strategy's when it has fewer, said); "
                              "per strategy, so each strategy's validity gets its own interval")
    drawing.add_argument("--seed", type=int, required=True, metavar="S", help="chooses and shuffles the items "
                                                                                "(random.Random(S)); recorded")
    drawing.add_argument("--out", required=True, metavar="SHEET", help="the sheet (JSON lines); beside it SHEET's stem "
                         "+ .rubric.md (the rubric for the judges) and SHEET + .meta.json (seed, sample, pool, the "
                         "file's hash: never given to a judge). An existing sheet is never replaced")
    drawing.add_argument("--pool", choices=("used", "shipped"), default="used",
                         help="used: the accepted and edited candidates, as a frozen test runs them (default); "
                              "shipped: the generator's shipped candidates whatever was decided (validity without "
                              "review)")
    scoring = steps.add_parser("score", help="read answered sheets, store each verdict in the candidates file and "
                                             "print fluent, sentiment_ok and both per strategy (Clopper-Pearson 95%%)")
    scoring.add_argument("file", help="the candidates file the sheets were drawn from")
    scoring.add_argument("sheets", nargs="+", metavar="SHEET", help="answered sheets")
    scoring.add_argument("--skip-unanswered", action="store_true",
                         help="score the answered items and count the others (default: an unanswered item is refused)")
    for step in (drawing, scoring):
        step.add_argument("--follow-symlinks", action="store_true",
                          help="an output that is a symbolic link: write to the file it points to (the link stays)")


def run(args: argparse.Namespace) -> int:
    return draw(args) if args.audit_command == "draw" else score(args)


def companions(sheet: Path) -> tuple[Path, Path]:
    """The rubric written beside a sheet (SHEET's stem + .rubric.md) and its record (SHEET + .meta.json)."""
    return sheet.with_name(sheet.stem + ".rubric.md"), sheet.with_name(sheet.name + ".meta.json")


def draw(args: argparse.Namespace) -> int:
    from absa_checks.judge import audit  # imported by this command only (no other command needs it)
    from absa_checks.suites.candidates import parse_candidates, read_text

    path, sheet = Path(args.file), Path(args.out)
    text = read_text(path)
    candidates = parse_candidates(text, str(path))
    drawn = audit.draw(candidates, args.sample, args.seed, args.pool)
    if not drawn.items:
        hint = ("accept or edit some first (absa-checks decide, or the review page), or draw from the generator's "
                "proposals with --pool shipped" if args.pool == "used" else "the file has no shipped candidate")
        raise AbsaChecksError(f"audit draw: {path} has no candidate in the pool '{args.pool}'; {hint}")
    rubric, meta = companions(sheet)
    named = [Named("--out", sheet), outputs.derived("--out", sheet, "rubric", rubric),
             outputs.derived("--out", sheet, "record", meta)]
    outputs.check(named, [Named("FILE", path)], [], args.follow_symlinks, CLI_FOLLOW_OPTION)
    if sheet.exists() or sheet.is_symlink():
        raise AbsaChecksError(f"audit draw: --out {sheet} already exists (a judge may be answering it); name "
                              "another sheet, or delete it first")
    if rubric.is_file() and rubric.read_bytes() != audit.RUBRIC.encode("utf-8"):
        raise AbsaChecksError(f"audit draw: {rubric} (where the rubric goes beside --out {sheet}) exists and is not "
                              "the rubric; name another sheet, or move that file")
    record = {"file": str(path), "file_sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
              "seed": args.seed, "sample": args.sample, "sample_per": "strategy", "pool": args.pool,
              "items": len(drawn.items),
              "per_strategy": {s: {"drawn": d, "in_pool": n} for s, (d, n) in drawn.per_strategy.items()},
              "drawn_at": _now()}
    lines = "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in drawn.items)
    texts = [(named[0], lines), (named[1], audit.RUBRIC), (named[2], json.dumps(record, indent=1) + "\n")]
    for out, content in texts:
        try:
            outputs.write_text(out, content, args.follow_symlinks, CLI_FOLLOW_OPTION)
        except outputs.OutputError as err:
            print(f"absa-checks: {err}", file=sys.stderr)
            return 2
    for strategy, (got, available) in drawn.per_strategy.items():
        short = f" (only {available} in the pool: all of them)" if available < args.sample else ""
        print(f"{strategy}: {got} of {available}{short}", file=sys.stderr)
    print(f"{sheet}: {len(drawn.items)} items (seed {args.seed}, pool {args.pool}); give the judges the sheet and "
          f"{rubric}; keep {meta} (never give it to a judge)", file=sys.stderr)
    return 0


def _sheet_name(sheet: Path) -> str:
    """How an audit names its sheet: the file name, with the seed and pool its record gives."""
    _, meta = companions(sheet)
    try:
        record = json.loads(meta.read_text(encoding="utf-8"))
        return f"{sheet.name} (seed {record['seed']}, pool {record['pool']})"
    except (OSError, ValueError, KeyError, TypeError):
        return sheet.name


def score(args: argparse.Namespace) -> int:
    from absa_checks.judge import audit
    from absa_checks.suites.candidates import parse_candidates, read_text

    path = Path(args.file)
    text = read_text(path)
    candidates = {c.candidate_id: c for c in parse_candidates(text, str(path))}  # the whole file checked first
    per_sheet: list[tuple[list[audit.AuditVerdict], list[str], str]] = []
    seen_paths: list[Path] = []
    for given in args.sheets:
        sheet = Path(given)
        if outputs.same_file(sheet, path):
            raise AbsaChecksError(f"audit score: {sheet} is FILE itself; give the candidates file, then the answered "
                                  "sheet(s) drawn from it")
        if any(outputs.same_file(sheet, other) for other in seen_paths):
            raise AbsaChecksError(f"audit score: sheet {sheet} is named twice; name each judge's sheet once")
        seen_paths.append(sheet)
        try:
            sheet_text = sheet.read_bytes().decode("utf-8")
        except FileNotFoundError:
            raise AbsaChecksError(f"audit score: sheet {sheet} not found; draw one with `absa-checks audit draw "
                                  f"{path} --sample N --seed S --out SHEET`") from None
        except (OSError, UnicodeDecodeError) as err:
            raise AbsaChecksError(f"audit score: sheet {sheet} cannot be read as UTF-8 text ({err})") from None
        found, left = audit.read_sheet(sheet_text, str(sheet))
        for verdict in found:
            candidate = candidates.get(verdict.item)
            if candidate is None:
                raise audit.AuditError(f"{verdict.at}: item '{verdict.item}' is not a candidate of {path}; score a "
                                       "sheet with the file it was drawn from (its .meta.json names it)")
            if verdict.strategy != candidate.strategy:
                raise audit.AuditError(f"{verdict.at}: item '{verdict.item}' says strategy '{verdict.strategy}', its "
                                       f"candidate in {path} is {candidate.strategy}; keep the line as drawn")
        per_sheet.append((found, left, _sheet_name(sheet)))
    verdicts = audit.combine_judges(per_sheet)
    unanswered = [at for _, left, _ in per_sheet for at in left]
    total = sum(len(found) + len(left) for found, left, _ in per_sheet)
    if unanswered and not args.skip_unanswered:
        listed = ", ".join(unanswered[:3]) + (f" and {len(unanswered) - 3} more" if len(unanswered) > 3 else "")
        raise audit.AuditError(f"{unanswered[0]}: not answered ({len(unanswered)} of {total} items: {listed}); "
                               "set 'fluent' and 'sentiment_ok' to true/false (or \"yes\"/\"no\") on each, or score "
                               "the answered ones with --skip-unanswered")
    if not verdicts:
        raise audit.AuditError(f"audit score: no answered item in {', '.join(args.sheets)}; the judges answer "
                               "'fluent' and 'sentiment_ok' on each line")
    new_text, unknown = audit.record_verdicts(text, str(path), verdicts, _now())
    if unknown:  # parse_candidates found every id, so this would be a file changed while we read it
        raise audit.AuditError(f"{unknown[0].at}: item '{unknown[0].item}' is not in {path}; nothing was written")
    outputs.check([Named("FILE", path)], [Named("SHEET", Path(s)) for s in args.sheets], [], args.follow_symlinks,
                  CLI_FOLLOW_OPTION)
    try:
        outputs.write_text(Named("FILE", path), new_text, args.follow_symlinks, CLI_FOLLOW_OPTION)
    except outputs.OutputError as err:
        print(f"absa-checks: {err}", file=sys.stderr)
        return 2
    stale = [v for v, _ in verdicts.values() if candidates[v.item].text() != v.sentence]
    counted = [v for v, _ in verdicts.values() if candidates[v.item].text() == v.sentence]
    # the table is the validity the verdicts give: a stale verdict is stored but counts in neither
    table = audit.tally((candidates[v.item].strategy, v.fluent, v.sentiment_ok) for v in counted)
    print("\n".join(audit.summary_lines(table)))
    print(f"{path}: {len(verdicts)} verdicts stored, {len(counted)} counted in the table" +
          (f"; {len(unanswered)} items not answered, not scored" if unanswered else ""), file=sys.stderr)
    if stale:
        print(f"{len(stale)} verdicts judged a text the candidate no longer runs (edited since the sheet was drawn, "
              f"e.g. {stale[0].at}): stored, not counted in the table nor as its validity until audited again",
              file=sys.stderr)
    return 0


def _now() -> str:
    return clock.now_iso()


COMMAND = Command("audit", add_parser, run, steps="audit_command")
