"""`absa-checks merge REPORTS -o OUT`: the JSON reports of `--absa-shard K/N` runs combined into the report one
run would have written; the gates are decided here (absa_checks/run/shards.py; docs/shards.md)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from absa_checks.cli.arguments import Command, Subcommands
from absa_checks.common import outputs
from absa_checks.common.outputs import CLI_FOLLOW_OPTION, Named


def add_parser(commands: Subcommands) -> None:
    merge = commands.add_parser("merge", help="combine the JSON reports of --absa-shard K/N runs into the report "
                                              "one run would have written; gates are decided here")
    merge.add_argument("reports", nargs="+", help="every shard's --absa-report file")
    merge.add_argument("-o", "--out", required=True, help="the merged JSON report")
    merge.add_argument("--markdown", default=None, help="also write the Markdown summary here")
    merge.add_argument("--baseline", default=None, help="compare with this released report (default: the "
                                                        "shards' --absa-baseline)")
    merge.add_argument("--alluredir", default=None, help="the folder the shards' Allure results were gathered in: "
                                                         "the run's summary and gates are added to it")
    merge.add_argument("--follow-symlinks", action="store_true",
                     help="an output path that is a symbolic link: write to the file it points to (the link stays); "
                          "without it such a path is refused")


def run(args: argparse.Namespace) -> int:
    from types import SimpleNamespace

    from absa_checks.reports import report_json, report_markdown, terminal
    from absa_checks.reports.allure_support import summary_files, write_run_results
    from absa_checks.run.reporters import with_unwritten
    from absa_checks.run.shards import merge

    markdown = SimpleNamespace(markdown=Path(args.markdown) if args.markdown else None, follow_symlinks=args.follow_symlinks,
                               markdown_option="--markdown")
    wanted = [Named("-o/--out", Path(args.out)),
              *(report_markdown.REPORTER.outputs(markdown) if args.markdown else []),
              *(summary_files(Path(args.alluredir)) if args.alluredir else [])]
    inputs = [*(Named("shard report", Path(p)) for p in args.reports),
              *outputs.given("--baseline", Path(args.baseline) if args.baseline else None)]
    outputs.check(wanted, inputs, follow_symlinks=args.follow_symlinks, follow_option=CLI_FOLLOW_OPTION)
    result = merge([Path(p) for p in args.reports], Path(args.baseline) if args.baseline else None)
    if result.baseline_path:  # the shards' own --absa-baseline, read too
        outputs.check(wanted, [Named("the baseline", Path(result.baseline_path))],
                      follow_symlinks=args.follow_symlinks, follow_option=CLI_FOLLOW_OPTION)
    writes: dict[str, Callable[[], object]] = {  # output name -> its writer
        "out": lambda: report_json.write(result.report, Path(args.out), "-o/--out", args.follow_symlinks)}
    if args.markdown:
        writes["markdown"] = lambda: report_markdown.REPORTER.write(result, markdown)
    if args.alluredir:
        writes["alluredir"] = lambda: write_run_results(
            Path(args.alluredir), result.report, result.tables, result.pictures,
            result.report["run"]["inconclusive_counts_as"], follow_symlinks=args.follow_symlinks)
    failed: dict[str, str] = {}
    for name, write in writes.items():  # each output is written even when another cannot be
        try:
            write()
        except outputs.OutputError as err:
            failed[name] = str(err)
    lines = terminal.summary_lines(result.run, result.tables, result.context.issues, result.compared,
                                   result.regression_gates, result.context.quarantined, result.verdict,
                                   show_slices=False, report_asked=True)
    for line in lines[:-1] + [f"absa-checks: {line}" for err in failed.values() for line in err.splitlines()]:
        print(line)
    if not failed:
        print(lines[-1])
        print(f"merged {len(args.reports)} shards into {args.out}")
        return result.verdict.exit_status
    print(with_unwritten(lines[-1], len(failed)))
    print(f"merged {len(args.reports)} shards" + ("" if "out" in failed else f" into {args.out}"))
    return max(result.verdict.exit_status, 1)


COMMAND = Command("merge", add_parser, run)
