"""The `absa-checks` command: validate suites, list models, or run the suites through pytest."""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Callable
from pathlib import Path

from absa_checks.common import clock, inputs, outputs
from absa_checks.common.errors import AbsaChecksError
from absa_checks.common.outputs import Named
from absa_checks.perturb.variants import DEFAULT_SEED
from absa_checks.sources.base import LoadedSource
from absa_checks.sources.catalog import known_source_names
from absa_checks.suites.spec import parse_suite, source_defined_twice
from absa_checks.suites.strategies import DEFAULT_NEUTRAL, NEUTRAL_MODES
from absa_checks.suites.suite_files import classify, is_yaml

FOLLOW = "--follow-symlinks"  # writes through an output path's symbolic link (absa_checks.common.outputs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="absa-checks", description="Behavioural tests for ABSA models.")
    commands = parser.add_subparsers(dest="command", required=True)
    validate = commands.add_parser("validate", help="check suite files without running a model")
    validate.add_argument("paths", nargs="*", default=["suites"], help="suite files or folders (default: suites)")
    models = commands.add_parser("models", help="list the models --model can name")
    models.add_argument("--models-file", default=None, help="the models file (default: models.yaml here, if any)")
    gen = commands.add_parser("generate", help="write REVTGT/REVNON/ADDDIFF variants of an annotated file, "
                                               "or exactly those the suites test for a source")
    gen.add_argument("--input", default=None, metavar="FILE",
                     help="SemEval/MAMS .xml, ARTS .json, markup .txt, examples .yaml")
    gen.add_argument("--source", default=None, metavar="NAME",
                     help=f"a source the suites name ({', '.join(known_source_names())}) instead of --input")
    gen.add_argument("--data", default=None, metavar="DIR",
                     help="with --source: data directory laid out like shared/data (default: $ABSA_DATA_DIR)")
    gen.add_argument("--variants", choices=("auto", "given", "generated"), default=None,
                     help="as the suite key: the source's own variants, generated ones, or given when the source "
                          "has any (default: auto with --source, generated with --input)")
    gen.add_argument("--strategies", default="revtgt,revnon,adddiff",
                     help="comma-separated; chains with + (default: revtgt,revnon,adddiff)")
    gen.add_argument("--out", default=None, help="output file (.jsonl, or .json for the ARTS layout)")
    gen.add_argument("--candidates", action="store_true",
                     help="write a candidates file for review and freezing (JSONL: every unit's proposal, shipped, "
                          "quarantined or none, with an id and an empty decision; docs/suites.md, Frozen variants)")
    gen.add_argument("--update", default=None, metavar="FILE",
                     help="add candidates to this candidates file for units it does not have at their present "
                          "content (new or changed units); its lines, decided or not, are kept as they are")
    gen.add_argument("--format", choices=("jsonl", "arts"), default=None, help="default: from --out's suffix")
    gen.add_argument("--domain", choices=("restaurant", "laptop"), default=None,
                     help="picks the ADDDIFF aspect bank and the vocabulary (default: guessed from the path)")
    gen.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"as --absa-seed (default {DEFAULT_SEED})")
    gen.add_argument("--k", type=int, default=None, help="ADDDIFF: aspects appended (default: 1-3 per unit)")
    gen.add_argument("--neutral", choices=NEUTRAL_MODES, default=None,
                     help=f"REVTGT on neutral targets (default: {DEFAULT_NEUTRAL})")
    gen.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                     help="a strategy parameter as a suite would set it (e.g. k=3); repeatable")
    gen.add_argument("--quarantine", default=None, help="also write the rejected attempts (JSONL) here")
    gen.add_argument("--rewriter", default=None, metavar="NAME",
                     help="also ask an LLM (a models.yaml entry of kind openai) for REVTGT/REVNON variants of the units "
                          "the rules did not ship; every answer is verified (docs/served.md, The rewriter)")
    gen.add_argument("--rewriter-all", action="store_true",
                     help="with --rewriter or --export-requests: ask for every unit, not only those the rules did "
                          "not ship")
    gen.add_argument("--rewriter-repairs", type=int, default=None, metavar="N",
                     help="turns that send an answer the checks refused back once more with the reason (0-3; "
                          "default 1)")
    gen.add_argument("--export-requests", default=None, metavar="FILE",
                     help="write the rewriter's requests (JSON Lines, keyed by sha256) instead of variants; asks "
                          "nothing (without --rewriter: the default prompt and settings, model 'rewriter')")
    gen.add_argument("--verifier", default=None, metavar="NAME",
                     help="with --rewriter: another models.yaml entry of kind openai (ideally another model family), "
                          "asked each aspect's sentiment in every verified variant without the intent; a mismatch "
                          "quarantines")
    gen.add_argument("--cache", default=None, metavar="DIR",
                     help="with --rewriter: the cache folder its answers are kept in, by request key (default: "
                          ".absa-cache, as the suites'); a second run asks nothing")
    gen.add_argument("--models-file", default=None, metavar="FILE",
                     help="the models file --rewriter and --verifier name entries of (default: models.yaml here)")
    gen.add_argument("--follow-symlinks", action="store_true",
                     help="an output path that is a symbolic link: write to the file it points to (the link stays); "
                          "without it such a path is refused")
    aug = commands.add_parser("augment", help="adversarial training data: the REVTGT/REVNON/ADDDIFF variants of a "
                                              "training file (only those that pass every check), after a leakage guard")
    aug.add_argument("--input", required=True, help="the training file: SemEval .xml, ARTS/TOWE .json, markup .txt")
    aug.add_argument("--out", required=True, help="output: .jsonl (sentence, term, from, to, polarity, strategy, "
                                                  "unit) or .xml (SemEval-2014 layout)")
    aug.add_argument("--strategies", default="revtgt,revnon,adddiff", help="comma-separated (default: all three)")
    aug.add_argument("--adddiff-per-unit", type=int, default=1, metavar="N",
                     help="ADDDIFF variants per unit, each drawn with its own seed (default 1)")
    aug.add_argument("--k", type=int, default=None, help="ADDDIFF: aspects appended (default: 1-3 per unit)")
    aug.add_argument("--domain", choices=("restaurant", "laptop"), default=None, help="default: from the path")
    aug.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"(default {DEFAULT_SEED})")
    aug.add_argument("--data", default=None, metavar="DIR",
                     help="test data (laid out like shared/data) the leakage guard also checks against; without it "
                          "the guard knows the public test sets by the fingerprints the package ships, and the "
                          "built-in examples (default: $ABSA_DATA_DIR)")
    aug.add_argument("--suites", action="append", default=None, metavar="PATH",
                     help="suite files or folders whose own examples (and their variants) the leakage guard also "
                          "checks against; repeatable (default: ./suites when there is one)")
    aug.add_argument("--drop-leaks", action="store_true",
                     help="drop (and count, per test set) input sentences that are test sentences or their "
                          "variants, instead of refusing")
    aug.add_argument("--follow-symlinks", action="store_true",
                     help="an output path that is a symbolic link: write to the file it points to (the link stays); "
                          "without it such a path is refused")
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
    decide = commands.add_parser("decide", help="record a reviewer's decisions in a candidates file")
    decide.add_argument("file", help="the candidates file (written by generate --candidates)")
    decide.add_argument("--accept", nargs="+", default=[], metavar="ID", help="candidate ids to accept")
    decide.add_argument("--reject", nargs="+", default=[], metavar="ID", help="candidate ids to reject")
    decide.add_argument("--reviewer", default=None, help="who decides (default: the login name)")
    decide.add_argument("--replace", action="store_true",
                        help="replace decisions another reviewer made (without it they are refused, naming whose)")
    decide.add_argument("--follow-symlinks", action="store_true",
                        help="the file is a symbolic link: write to the file it points to (the link stays)")
    from absa_checks.cli import labelstudio  # `absa-checks labelstudio export|import`

    labelstudio.add_parser(commands)
    review = commands.add_parser("review", help="review a candidates file (or answer an audit sheet) on a local page")
    review.add_argument("file", help="the candidates file (written by generate --candidates) or an audit sheet")
    review.add_argument("--port", type=int, default=0, help="the port on 127.0.0.1 (default 0: a free one)")
    review.add_argument("--reviewer", default=None, help="who decides (default: the login name)")
    review.add_argument("--follow-symlinks", action="store_true",
                        help="the file is a symbolic link: write to the file it points to (the link stays)")
    _audit_parser(commands)
    from absa_checks.cli import frozen_files  # `absa-checks freeze FILE --out SHIPPED`, `absa-checks rebuild`

    frozen_files.add_parsers(commands)
    from absa_checks.cli import serve_replay  # `absa-checks serve-replay ANSWERS`

    serve_replay.add_parser(commands)
    run = commands.add_parser("run", help="run suites: the same as `pytest PATHS ARGS`")
    run.add_argument("pytest_args", nargs=argparse.REMAINDER, help="passed on to pytest (default: suites/)")
    args = parser.parse_args(argv)
    try:
        _refuse_empty_values(commands.choices[args.command], args)
        if args.command == "audit":  # its steps' own options too
            _refuse_empty_values(_subcommand(commands.choices["audit"], args.audit_command), args)
        if args.command == "validate":
            return _validate(args.paths)
        if args.command == "models":
            return _models(args.models_file)
        if args.command == "generate":
            return _generate(args)
        if args.command == "merge":
            return _merge(args)
        if args.command == "decide":
            return _decide(args)
        if args.command == "labelstudio":
            return labelstudio.run(args)
        if args.command == "review":
            return _review(args)
        if args.command == "augment":
            return _augment(args)
        if args.command == "freeze":
            return frozen_files.freeze(args)
        if args.command == "rebuild":
            return frozen_files.rebuild(args)
        if args.command == "serve-replay":
            return serve_replay.run(args)
        if args.command == "audit":
            from absa_checks.cli import audit

            return audit.run(args)
        import pytest

        return int(pytest.main(args.pytest_args or ["suites/"]))
    except AbsaChecksError as err:
        print(f"absa-checks: {err}", file=sys.stderr)
        return 2


def _audit_parser(commands) -> None:
    audit = commands.add_parser("audit", help="a blinded sample of a candidates file judged by people: draw a sheet, "
                                              "score the answers (docs/suites.md, Auditing)")
    steps = audit.add_subparsers(dest="audit_command", required=True)
    draw = steps.add_parser("draw", help="write a blinded sheet of the file's variants for judges")
    draw.add_argument("file", help="the candidates file (written by generate --candidates)")
    draw.add_argument("--sample", type=int, required=True, metavar="N",
                      help="items per strategy present in the pool (all of a strategy's when it has fewer, said); "
                           "per strategy, so each strategy's validity gets its own interval")
    draw.add_argument("--seed", type=int, required=True, metavar="S", help="chooses and shuffles the items "
                                                                             "(random.Random(S)); recorded")
    draw.add_argument("--out", required=True, metavar="SHEET", help="the sheet (JSON lines); beside it SHEET's stem "
                      "+ .rubric.md (the rubric for the judges) and SHEET + .meta.json (seed, sample, pool, the "
                      "file's hash: never given to a judge). An existing sheet is never replaced")
    draw.add_argument("--pool", choices=("used", "shipped"), default="used",
                      help="used: the accepted and edited candidates, as a frozen test runs them (default); "
                           "shipped: the generator's shipped candidates whatever was decided (validity without "
                           "review)")
    score = steps.add_parser("score", help="read answered sheets, store each verdict in the candidates file and "
                                           "print fluent, sentiment_ok and both per strategy (Clopper-Pearson 95%%)")
    score.add_argument("file", help="the candidates file the sheets were drawn from")
    score.add_argument("sheets", nargs="+", metavar="SHEET", help="answered sheets")
    score.add_argument("--skip-unanswered", action="store_true",
                       help="score the answered items and count the others (default: an unanswered item is refused)")
    for step in (draw, score):
        step.add_argument("--follow-symlinks", action="store_true",
                          help="an output that is a symbolic link: write to the file it points to (the link stays)")


def _subcommand(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices[name]
    raise AssertionError(f"no subcommand {name}")


def _refuse_empty_values(command: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """`-o ' '`, `--out ''`, `--strategies ,`: an empty value would write a file named ' ' or quietly mean
    nothing, so any option (or file argument) given an empty text is an error naming it, as pytest's are."""
    for action in command._actions:
        if action.dest in ("help", "pytest_args"):  # `run` hands its arguments to pytest, which checks them
            continue
        value = getattr(args, action.dest, None)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str) and not item.replace(",", " ").strip():
                name = max(action.option_strings, key=len) if action.option_strings else action.dest
                raise AbsaChecksError(f"{name} was given an empty value ({item!r}); give it a value"
                                      + (", or leave the option out for its default" if action.option_strings
                                         and not action.required else ""))


def _data_named(given: str | None, data_dir: Path | None) -> list[Named]:
    """The data folder as the user gave it: --data DIR, or $ABSA_DATA_DIR when it came from the environment
    (none when there is no data folder)."""
    from absa_checks.sources import DATA_ENV

    return outputs.given("--data" if given else f"${DATA_ENV}", data_dir)


def _nothing_read(loaded: LoadedSource, origin: str) -> None:
    """An input that gives no unit is an error saying why (every record dropped, or none there), never an
    empty output with exit status 0."""
    if loaded.units:
        return
    from collections import Counter

    kinds = Counter((issue.message, issue.action) for issue in loaded.issues)
    why = ("; ".join(f"{count} x {message} ({action})" for (message, action), count in kinds.most_common(3)) if kinds
           else "it holds no sentence with an annotated aspect term")
    raise AbsaChecksError(f"{origin}: nothing was read, no unit to make variants of ({why}); name a file with "
                          "annotated original sentences")


def _keep_reviewed(named: list[Named], fix: Callable[[Named], str]) -> None:
    """An output that already holds reviewers' decisions or audit verdicts (a candidates file) is never written
    anew: that would lose them with exit status 0. `fix(output)` says what to do instead."""
    from absa_checks.suites.candidates import reviewed_work

    for out in named:
        if not out.path.is_file():
            continue
        try:
            text = out.path.read_bytes().decode("utf-8", errors="replace")
        except OSError:
            continue  # the write says why it cannot be written
        found = reviewed_work(text)
        if found:
            raise AbsaChecksError(f"{out}: holds {found.said()}; writing it anew would lose "
                                  f"{'it' if found.decisions + found.audits == 1 else 'them'}: {fix(out)}; "
                                  "nothing written")


def _strategy_list(option: str) -> list[str]:
    """`--strategies a,b`: each named once (one named twice would make, write and count its variants twice); a
    chain is compared step by step, so `revnon+adddiff` and `revnon + adddiff` are one strategy."""
    from absa_checks.suites import strategies as names

    strategies = [s.strip() for s in option.split(",") if s.strip()]
    keys = ["+".join(names.split_chain(s)) if names.is_known(s) else s for s in strategies]
    repeated = list(dict.fromkeys(s for s, key in zip(strategies, keys) if keys.count(key) > 1))
    if repeated:
        raise AbsaChecksError(f"--strategies {option}: {', '.join(repeated)} named more than once; name each "
                              "strategy once")
    return strategies


def _augment(args) -> int:
    from absa_checks.perturb.engine import Settings
    from absa_checks.sources import resolve_data_dir
    from absa_checks.suites import strategies as names
    from absa_checks.suites.files import load_file
    from absa_checks.workflows import augment, generate, leakage

    strategies = _strategy_list(args.strategies)
    unknown = [s for s in strategies if not names.is_known(s)]
    if unknown:
        raise AbsaChecksError(f"--strategies: unknown {', '.join(unknown)}; use {', '.join(names.STRATEGIES)}")
    if args.adddiff_per_unit < 1:
        raise AbsaChecksError("--adddiff-per-unit: at least 1")
    if args.k is not None and not 1 <= args.k <= 10:
        raise AbsaChecksError("--k: use a whole number from 1 to 10")
    out = Path(args.out)
    if out.suffix not in (".jsonl", ".xml"):
        raise AbsaChecksError(f"--out {out}: name a .jsonl or an .xml file")
    data_dir = resolve_data_dir(args.data)
    outputs.check([Named("--out", out)], [Named("--input", Path(args.input))], _data_named(args.data, data_dir),
                  args.follow_symlinks, FOLLOW)
    _keep_reviewed([Named("--out", out)], lambda given: "name another --out (or move that file)")
    suite_paths = [Path(p) for p in args.suites] if args.suites else [p for p in [Path("suites")] if p.is_dir()]
    missing = [str(p) for p in suite_paths if not p.exists()]
    if missing:
        raise AbsaChecksError(f"--suites {', '.join(missing)}: not found; name suite files or folders that exist")
    loaded = load_file(Path(args.input), args.domain)
    _nothing_read(loaded, f"--input {args.input}")
    public = leakage.shipped_test_sets()
    suites = augment.suite_examples(suite_paths, args.seed)
    loaded, leaked = augment.guard(loaded, {**suites.known, **augment.known_test_sentences(data_dir, args.seed)},
                                   leakage.sets_by_fingerprint(public), args.drop_leaks)
    params = _strategy_params([], strategies, k=args.k, neutral=None)
    made, rejected, tally = generate.run(loaded, strategies, Settings(args.seed, params))
    if "adddiff" in strategies:
        adddiff_params = tuple((k, v) for k, v in params if k in names.parameters("adddiff"))
        made = augment.with_more_adddiff(made, loaded, args.adddiff_per_unit, args.seed, adddiff_params)
    stream = io.StringIO()
    (augment.write_xml if out.suffix == ".xml" else generate.write_jsonl)(made, stream)
    outputs.write_text(Named("--out", out), stream.getvalue(), args.follow_symlinks, FOLLOW)
    checked = (f"the public test sets ({', '.join(s.name for s in public)}; the ':generated' sets are the "
               "variants absa-checks generates of them with seed 0), the built-in examples and their variants, "
               + _suites_checked(suite_paths, suites)
               + ("" if data_dir is None else f", and the test sets under {data_dir}"))
    print(f"{len(loaded.units)} training units from {args.input}; wrote {len(made)} variants to {out}", file=sys.stderr)
    counted = augment.count(leaked)
    print(f"  leakage guard: checked against {checked}; {counted.sentences} input sentences dropped"
          f"{counted.units_note()}, in {counted.sets()}" if leaked else
          f"  leakage guard: checked against {checked}; no test sentence in the input", file=sys.stderr)
    for line in tally.lines() + generate.issue_lines(loaded.issues):
        print("  " + line, file=sys.stderr)
    return 0


def _suites_checked(paths: list[Path], suites) -> str:
    """The part of augment's guard line that says which suites' own examples were checked."""
    if not paths:
        return "no suite's own examples (no ./suites folder here; pass --suites DIR to check a project's)"
    found = (f"the own examples of {len(suites.files)} suite file(s) in {', '.join(map(str, paths))} and their "
             "variants")
    if suites.unreadable:
        found += (f" ({len(suites.unreadable)} suite file(s) could not be read, so not checked: "
                  f"{suites.unreadable[0]}{' ...' if len(suites.unreadable) > 1 else ''})")
    return found


def _merge(args) -> int:
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
    outputs.check(wanted, inputs, follow_symlinks=args.follow_symlinks, follow_option=FOLLOW)
    result = merge([Path(p) for p in args.reports], Path(args.baseline) if args.baseline else None)
    if result.baseline_path:  # the shards' own --absa-baseline, read too
        outputs.check(wanted, [Named("the baseline", Path(result.baseline_path))],
                      follow_symlinks=args.follow_symlinks, follow_option=FOLLOW)
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


def _write_each(texts, follow_symlinks: bool) -> list[str]:
    """Write each (Named, text); every one is tried; the one-line messages of those that could not be."""
    failed = []
    for named, text in texts:
        try:
            outputs.write_text(named, text, follow_symlinks, FOLLOW)
        except outputs.OutputError as err:
            failed.append(str(err))
            print(f"absa-checks: {err}", file=sys.stderr)
    return failed


def _validate(paths: list[str]) -> int:
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


def _strategy_params(written: list[str], chosen: list[str], **shortcuts) -> tuple:
    """--param NAME=VALUE (and the --k / --neutral shortcuts), checked by the strategies' declarations."""
    import yaml

    from absa_checks.suites import strategies as names

    accepted = {name: p for s in chosen for name, p in names.parameters(s).items()}
    values = {key: value for key, value in shortcuts.items() if value is not None}
    for item in written:
        key, sep, text = item.partition("=")
        if not sep or key.strip() not in accepted:
            known = ", ".join(accepted) or "none for these strategies"
            raise AbsaChecksError(f"--param {item!r}: write NAME=VALUE with a parameter of "
                                  f"{', '.join(chosen)} ({known})")
        values[key.strip()] = yaml.safe_load(text)  # as a suite file would read the value
    for key, value in values.items():
        try:
            values[key] = accepted[key].parse(value) if key in accepted else value
        except ValueError as err:
            raise AbsaChecksError(f"--param {key}: {err}") from None
    return tuple(sorted(values.items()))


def _generate(args: argparse.Namespace) -> int:
    from absa_checks.perturb.engine import Settings
    from absa_checks.sources import resolve_data_dir
    from absa_checks.suites import strategies as names
    from absa_checks.suites.files import load_file
    from absa_checks.workflows import generate

    if (args.input is None) == (args.source is None):
        raise AbsaChecksError("generate: pass exactly one of --input FILE (an annotated file) or --source NAME "
                              "(a source the suites name, with --data DIR)")
    if args.input is not None and args.data is not None:
        raise AbsaChecksError("--data: only used with --source; --input reads the file it names")
    if args.source is not None and args.domain is not None:
        raise AbsaChecksError(f"--domain: only used with --input; --source {args.source} has its own domain")
    if args.export_requests is not None:
        given = [o for o, v in (("--out", args.out), ("--update", args.update), ("--quarantine", args.quarantine),
                                ("--format", args.format)) if v is not None] + (["--candidates"] if args.candidates else [])
        if given:
            raise AbsaChecksError(f"{given[0]}: --export-requests writes only the rewriter's requests and asks nothing; "
                                  f"leave {given[0]} out (run generate again with --rewriter for the variants)")
    elif (args.out is None) == (args.update is None):
        raise AbsaChecksError("generate: pass --out FILE (a new file), or --update FILE (a candidates file to add "
                              "candidates to)")
    if args.rewriter_all and args.rewriter is None and args.export_requests is None:
        raise AbsaChecksError("--rewriter-all: only used with --rewriter NAME or --export-requests FILE")
    for option, value in (("--models-file", args.models_file), ("--verifier", args.verifier), ("--cache", args.cache)):
        if value is not None and args.rewriter is None:
            raise AbsaChecksError(f"{option}: only used with --rewriter NAME")
    if args.rewriter_repairs is not None and args.rewriter is None:
        raise AbsaChecksError("--rewriter-repairs: only used with --rewriter NAME")
    if args.rewriter_repairs is not None and not 0 <= args.rewriter_repairs <= 3:
        raise AbsaChecksError("--rewriter-repairs: use a whole number from 0 to 3")
    if args.export_requests is not None and args.verifier is not None:
        raise AbsaChecksError("--verifier: --export-requests asks nothing; leave it out")
    if (args.update is not None or args.candidates) and (args.format is not None or args.quarantine is not None):
        option = "--format" if args.format is not None else "--quarantine"
        raise AbsaChecksError(f"{option}: a candidates file (--candidates, --update) is JSONL and holds the quarantined "
                              f"attempts itself; leave {option} out")
    strategies = _strategy_list(args.strategies)
    unknown = [s for s in strategies if not names.is_known(s)]
    if unknown:
        raise AbsaChecksError(f"--strategies: unknown {', '.join(unknown)}; use {', '.join(names.STRATEGIES)} "
                              "or chains such as revnon+adddiff")
    if args.k is not None and not 1 <= args.k <= 10:
        raise AbsaChecksError("--k: use a whole number from 1 to 10")
    params = _strategy_params(args.param, strategies, k=args.k, neutral=args.neutral)
    out = Path(args.export_requests or args.out or args.update)
    existing = _existing_candidates(Path(args.update)) if args.update is not None else None
    first = "--export-requests" if args.export_requests else "--update" if args.update else "--out"
    wanted = [Named(first, out), *([Named("--quarantine", Path(args.quarantine))] if args.quarantine else [])]
    rewriter = _rewriter(args)
    outputs.check(wanted, outputs.given("--input", Path(args.input) if args.input else None),
                  _data_named(args.data, resolve_data_dir(args.data) if args.source else None), args.follow_symlinks,
                  FOLLOW)
    if existing is None:  # --update adds lines and keeps these; --out and the others write anew
        _keep_reviewed(wanted, lambda given: f"to add candidates to it, use --update {given.path} (it keeps every "
                                             f"line); or name another {given.option}")
    if args.source is not None:
        loaded, origin, mode = _load_source(args.source, args.data), args.source, args.variants or "auto"
    else:  # a file's own variants are ignored unless asked for: generated is what --input always did
        loaded, origin, mode = load_file(Path(args.input), args.domain), args.input, args.variants or "generated"
    _nothing_read(loaded, f"--input {args.input}" if args.input is not None else f"--source {args.source}")
    settings = Settings(args.seed, params)
    if args.export_requests is not None:
        if rewriter is not None:  # what a run would send next, the cache read
            body = rewriter.settings
            text, asked = generate.export_pending(loaded, strategies, settings, mode, _asking(args, rewriter))
        else:
            body = generate.rewrite_prompt.BodySettings()
            text, asked = generate.export_requests(loaded, strategies, settings, mode, body, args.rewriter_all)
        if _write_each(zip(wanted, [text]), args.follow_symlinks):
            return 2
        print(f"{len(loaded.units)} units from {origin}; wrote {text.count(chr(10))} requests ({asked} units and "
              f"strategies, model '{body.model}', prompt {generate.rewrite_prompt.PROMPT_SHA256[:12]}) to {out}; "
              "nothing was asked", file=sys.stderr)
        return 0
    asking = _asking(args, rewriter)
    if existing is not None or args.candidates:
        return _write_candidates(args, existing, loaded, strategies, settings, mode, wanted, asking)
    made, rejected, tally = generate.run(loaded, strategies, settings, mode, asking)
    fmt = args.format or ("arts" if out.suffix == ".json" else "jsonl")
    stream = io.StringIO()
    (generate.write_arts if fmt == "arts" else generate.write_jsonl)(made, stream)
    texts = [stream.getvalue()]
    if args.quarantine:
        texts.append(generate.quarantine_jsonl(rejected))
    failed = _write_each(zip(wanted, texts), args.follow_symlinks)
    if failed:
        return 2
    domain = f" ({loaded.domain})" if loaded.domain else ""  # ARTS files do not say
    print(f"{len(loaded.units)} units from {origin}{domain}; wrote {len(made)} variants to {out}", file=sys.stderr)
    for line in tally.lines() + generate.issue_lines(loaded.issues):
        print("  " + line, file=sys.stderr)
    return _finished(tally.incomplete)


def _finished(incomplete: str | None) -> int:
    """generate's exit status once its files are written: 0, or 1 with the one line saying the rewriter's work
    is incomplete (docs/reliability.md, exit statuses)."""
    if incomplete is None:
        return 0
    print(f"absa-checks: {incomplete}", file=sys.stderr)
    return 1


def _rewriter(args: argparse.Namespace):
    """The entry --rewriter names (built, nothing asked), or None."""
    if args.rewriter is None:
        return None
    from absa_checks.workflows import rewrite

    models_file = Path(args.models_file or "models.yaml")
    if args.models_file is not None and not models_file.is_file():
        raise AbsaChecksError(f"--models-file {args.models_file}: not found; name the models YAML file that has the "
                              f"entry {args.rewriter}")
    return rewrite.open_rewriter(args.rewriter, models_file)


def _asking(args: argparse.Namespace, rewriter):
    """What `generate --rewriter` asks with: the rewriter, its verifier, the cache (None without --rewriter)."""
    if rewriter is None:
        return None
    from absa_checks.models.cache import PredictionCache
    from absa_checks.workflows import rewrite

    cache_dir = Path(args.cache or ".absa-cache")
    if cache_dir.exists() and not cache_dir.is_dir():
        raise AbsaChecksError(f"--cache {cache_dir}: is a file, not a folder; name a folder (it is created if needed)")
    verifier = rewrite.open_verifier(args.verifier, Path(args.models_file or "models.yaml")) if args.verifier else None
    repairs = rewrite.DEFAULT_REPAIRS if args.rewriter_repairs is None else args.rewriter_repairs
    return rewrite.Asking(rewriter, PredictionCache(cache_dir), verifier, args.rewriter_all, repairs)


def _existing_candidates(path: Path) -> tuple[str, tuple]:
    """The candidates file `--update` adds to: its text and its candidates, checked line by line."""
    from absa_checks.suites.candidates import parse_candidates, read_text

    if not path.is_file():
        raise AbsaChecksError(f"--update {path}: not found; write a candidates file first with `absa-checks "
                              "generate --candidates --out FILE`")
    text = read_text(path)  # read once: the lines checked are the lines kept (as they are: CRLF stays CRLF)
    return text, parse_candidates(text, str(path))


def _write_candidates(args: argparse.Namespace, existing: tuple[str, tuple] | None, loaded: LoadedSource,
                      strategies: list[str], settings, mode: str, wanted: list[Named], asking=None) -> int:
    """`generate --candidates --out FILE` (a new file) or `generate --update FILE` (lines added, none changed)."""
    from absa_checks.workflows import generate

    if existing is None:
        records, incomplete = generate.proposals(loaded, strategies, settings, mode, rewriter=asking)
        stream = io.StringIO()
        generate.write_candidates(records, stream)
        text, added = stream.getvalue(), len(records)
    else:
        text, added, incomplete = _update(existing, loaded, strategies, settings, mode, wanted[0], asking)
    if _write_each(zip(wanted[:1], [text]), args.follow_symlinks):
        return 2
    what = "added" if existing is not None else "wrote"
    print(f"{len(loaded.units)} units; {what} {added} candidates {'to' if existing else 'in'} {wanted[0].path}"
          + (" (the lines already there are kept as they were)" if existing is not None else ""), file=sys.stderr)
    for line in generate.issue_lines(loaded.issues):
        print("  " + line, file=sys.stderr)
    return _finished(incomplete)


def _update(existing: tuple[str, tuple], loaded: LoadedSource, strategies: list[str], settings, mode: str,
            out: Named, asking=None) -> tuple[str, int, str | None]:
    """`generate --update FILE`; a textless (shipped) file is rebuilt from the source first (its stale lines stay
    textless), updated as a full one, and written back textless (absa_checks.suites.textless)."""
    from absa_checks.suites import textless
    from absa_checks.suites.candidates import parse_candidates
    from absa_checks.workflows import generate

    text, found = existing
    if not any(textless.is_textless(c.record) for c in found):
        return generate.update(text, found, loaded, strategies, settings, mode, asking)
    full = textless.rebuild_text(text, str(out.path), loaded).text
    new, added, incomplete = generate.update(full, parse_candidates(full, str(out.path)), loaded, strategies,
                                             settings, mode, asking)
    return textless.freeze_text(new, str(out.path)), added, incomplete


def _decide(args: argparse.Namespace) -> int:
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
    outputs.check([Named("FILE", path)], [], [], args.follow_symlinks, FOLLOW)
    if _write_each([(Named("FILE", path), text)], args.follow_symlinks):
        return 2
    replaced = "".join(f"; replaced {c.record.get('reviewer')}'s {c.record.get('decision')} of {c.candidate_id}"
                       for c in others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
    print(f"{path}: {len(args.accept)} accepted, {len(args.reject)} rejected by {reviewer}"
          + (" (the login name; --reviewer NAME signs another)" if who.defaulted else "") + replaced, file=sys.stderr)
    return 0


def _review(args: argparse.Namespace) -> int:
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


def _load_source(name: str, data: str | None) -> LoadedSource:
    """A source by the name the suites use, loaded as the plugin loads it; errors name --source/--data."""
    from absa_checks.sources import BUILTIN_SOURCES, DATA_ENV, resolve_data_dir
    from absa_checks.sources.catalog import load_named

    if name not in known_source_names():
        raise AbsaChecksError(f"--source: unknown source '{name}'; use one of {', '.join(known_source_names())}")
    data_dir = resolve_data_dir(data)
    dataset = BUILTIN_SOURCES.get(name)
    if dataset is not None:  # checked here so the messages name this command's --data, not --absa-data
        if data_dir is None:
            raise AbsaChecksError(f"--source {name} reads a data directory: pass --data DIR (or set {DATA_ENV}), "
                                  "a folder laid out like shared/data")
        option = "--data" if data else f"${DATA_ENV}"
        if not data_dir.is_dir():
            raise AbsaChecksError(f"{option}: {data_dir} is not a folder; pass the data directory, laid out like "
                                  "shared/data")
        if not (data_dir / dataset.relative_path).is_file():
            raise AbsaChecksError(f"{option}: {data_dir / dataset.relative_path} not found; {name} needs "
                                  f"{dataset.how_to_get} there")
    return load_named(name, data_dir)


def _models(given: str | None) -> int:
    from absa_checks.models.adapters import BUILTIN_MODELS, read_groups, read_models_file

    models_file = Path(given or "models.yaml")  # the default may be absent: then the built-ins only
    if given is not None and models_file.is_dir():
        raise AbsaChecksError(f"--models-file {given}: is a folder, not a file; name the models YAML file "
                              "(e.g. models.yaml)")
    if given is not None and not models_file.is_file():
        raise AbsaChecksError(f"--models-file {given}: not found; name an existing models YAML file, or leave the "
                              "option out to list the built-in models (and ./models.yaml, if any)")
    entries, origin = read_models_file(models_file)
    for name, entry in {**BUILTIN_MODELS, **entries}.items():
        kind = entry.get("kind", "?") if isinstance(entry, dict) else "?"
        print(f"{name:24} {kind:12} {'models file' if name in entries else 'built-in'}")
    for name, group in read_groups(models_file).items():
        print(f"{name:24} {'group':12} {', '.join(group.members)}")
    print("also: replay:<path>#<column>, python:<module>:<function>, several as a,b,c")
    return 0
