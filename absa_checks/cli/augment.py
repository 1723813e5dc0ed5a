"""`absa-checks augment --input TRAIN --out FILE`: adversarial training data, the REVTGT/REVNON/ADDDIFF variants of
a training file that pass every check, after a leakage guard against the test sets (absa_checks/workflows/augment.py,
absa_checks/workflows/leakage.py)."""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

from absa_checks.cli.arguments import Command, Subcommands, data_named, strategy_list, strategy_params
from absa_checks.cli.files import keep_reviewed, nothing_read
from absa_checks.common import outputs
from absa_checks.common.errors import AbsaChecksError
from absa_checks.common.outputs import CLI_FOLLOW_OPTION, Named
from absa_checks.perturb.variants import DEFAULT_SEED


def add_parser(commands: Subcommands) -> None:
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


def run(args: argparse.Namespace) -> int:
    from absa_checks.perturb.engine import Settings
    from absa_checks.sources import resolve_data_dir
    from absa_checks.suites import strategies as names
    from absa_checks.suites.files import load_file
    from absa_checks.workflows import augment, generate, leakage

    strategies = strategy_list(args.strategies)
    unknown = [s for s in strategies if not names.is_known(s)]
    if unknown:
        raise AbsaChecksError(f"--strategies: unknown {', '.join(unknown)}; use {', '.join(names.registry())}")
    if args.adddiff_per_unit < 1:
        raise AbsaChecksError("--adddiff-per-unit: at least 1")
    if args.k is not None and not 1 <= args.k <= 10:
        raise AbsaChecksError("--k: use a whole number from 1 to 10")
    out = Path(args.out)
    if out.suffix not in (".jsonl", ".xml"):
        raise AbsaChecksError(f"--out {out}: name a .jsonl or an .xml file")
    data_dir = resolve_data_dir(args.data)
    outputs.check([Named("--out", out)], [Named("--input", Path(args.input))], data_named(args.data, data_dir),
                  args.follow_symlinks, CLI_FOLLOW_OPTION)
    keep_reviewed([Named("--out", out)], lambda given: "name another --out (or move that file)")
    suite_paths = [Path(p) for p in args.suites] if args.suites else [p for p in [Path("suites")] if p.is_dir()]
    missing = [str(p) for p in suite_paths if not p.exists()]
    if missing:
        raise AbsaChecksError(f"--suites {', '.join(missing)}: not found; name suite files or folders that exist")
    loaded = load_file(Path(args.input), args.domain)
    nothing_read(loaded, f"--input {args.input}")
    public = leakage.shipped_test_sets()
    suites = augment.suite_examples(suite_paths, args.seed)
    loaded, leaked = augment.guard(loaded, {**suites.known, **augment.known_test_sentences(data_dir, args.seed)},
                                   leakage.sets_by_fingerprint(public), args.drop_leaks)
    params = strategy_params([], strategies, k=args.k, neutral=None)
    made, rejected, tally = generate.run(loaded, strategies, Settings(args.seed, params))
    if "adddiff" in strategies:
        adddiff_params = tuple((k, v) for k, v in params if k in names.parameters("adddiff"))
        made = augment.with_more_adddiff(made, loaded, args.adddiff_per_unit, args.seed, adddiff_params)
    stream = io.StringIO()
    (augment.write_xml if out.suffix == ".xml" else generate.write_jsonl)(made, stream)
    outputs.write_text(Named("--out", out), stream.getvalue(), args.follow_symlinks, CLI_FOLLOW_OPTION)
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


COMMAND = Command("augment", add_parser, run)
