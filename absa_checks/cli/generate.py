"""`absa-checks generate`: the REVTGT/REVNON/ADDDIFF variants of an annotated file or of a source the suites name,
as JSONL or the ARTS layout; a candidates file for review (`--candidates`, `--update`); the LLM rewriter's requests
or variants (`--export-requests`, `--rewriter`) (absa_checks/workflows/generate.py)."""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

from absa_checks.cli.arguments import Command, Subcommands, data_named, strategy_list, strategy_params
from absa_checks.cli.files import keep_reviewed, llm_cache, load_source, models_file, nothing_read, write_each
from absa_checks.common import outputs
from absa_checks.common.errors import AbsaChecksError
from absa_checks.common.outputs import CLI_FOLLOW_OPTION, Named
from absa_checks.perturb.variants import DEFAULT_SEED
from absa_checks.sources.base import LoadedSource
from absa_checks.sources.catalog import known_source_names
from absa_checks.suites.strategies import DEFAULT_NEUTRAL, NEUTRAL_MODES


def add_parser(commands: Subcommands) -> None:
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


def run(args: argparse.Namespace) -> int:
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
    strategies = strategy_list(args.strategies)
    unknown = [s for s in strategies if not names.is_known(s)]
    if unknown:
        raise AbsaChecksError(f"--strategies: unknown {', '.join(unknown)}; use {', '.join(names.registry())} "
                              "or chains such as revnon+adddiff")
    if args.k is not None and not 1 <= args.k <= 10:
        raise AbsaChecksError("--k: use a whole number from 1 to 10")
    params = strategy_params(args.param, strategies, k=args.k, neutral=args.neutral)
    out = Path(args.export_requests or args.out or args.update)
    existing = _existing_candidates(Path(args.update)) if args.update is not None else None
    first = "--export-requests" if args.export_requests else "--update" if args.update else "--out"
    wanted = [Named(first, out), *([Named("--quarantine", Path(args.quarantine))] if args.quarantine else [])]
    rewriter = _rewriter(args)
    outputs.check(wanted, outputs.given("--input", Path(args.input) if args.input else None),
                  data_named(args.data, resolve_data_dir(args.data) if args.source else None), args.follow_symlinks,
                  CLI_FOLLOW_OPTION)
    if existing is None:  # --update adds lines and keeps these; --out and the others write anew
        keep_reviewed(wanted, lambda given: f"to add candidates to it, use --update {given.path} (it keeps every "
                                             f"line); or name another {given.option}")
    if args.source is not None:
        loaded, origin, mode = load_source(args.source, args.data), args.source, args.variants or "auto"
    else:  # a file's own variants are ignored unless asked for: generated is what --input always did
        loaded, origin, mode = load_file(Path(args.input), args.domain), args.input, args.variants or "generated"
    nothing_read(loaded, f"--input {args.input}" if args.input is not None else f"--source {args.source}")
    settings = Settings(args.seed, params)
    if args.export_requests is not None:
        if rewriter is not None:  # what a run would send next, the cache read
            body = rewriter.settings
            text, asked = generate.export_pending(loaded, strategies, settings, mode, _asking(args, rewriter))
        else:
            body = generate.rewrite_prompt.BodySettings()
            text, asked = generate.export_requests(loaded, strategies, settings, mode, body, args.rewriter_all)
        if write_each(zip(wanted, [text]), args.follow_symlinks):
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
    failed = write_each(zip(wanted, texts), args.follow_symlinks)
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

    return rewrite.open_rewriter(args.rewriter, models_file(args.models_file, args.rewriter))


def _asking(args: argparse.Namespace, rewriter):
    """What `generate --rewriter` asks with: the rewriter, its verifier, the cache (None without --rewriter)."""
    if rewriter is None:
        return None
    from absa_checks.workflows import rewrite

    cache = llm_cache(args.cache)
    verifier = rewrite.open_verifier(args.verifier, Path(args.models_file or "models.yaml")) if args.verifier else None
    repairs = rewrite.DEFAULT_REPAIRS if args.rewriter_repairs is None else args.rewriter_repairs
    return rewrite.Asking(rewriter, cache, verifier, args.rewriter_all, repairs)


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
    if write_each(zip(wanted[:1], [text]), args.follow_symlinks):
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


COMMAND = Command("generate", add_parser, run)
