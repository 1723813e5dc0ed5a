"""`absa-checks expand`: an expanded ground truth for a gold source, Zoom In-N-Out through an OpenAI-compatible
endpoint (absa_checks/workflows/expand.py; docs/extraction.md, "Expanded ground truth")."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from absa_checks.cli.arguments import Command, Subcommands, data_named
from absa_checks.cli.files import llm_cache, models_file, write_each
from absa_checks.common import outputs
from absa_checks.common.errors import AbsaChecksError
from absa_checks.common.outputs import CLI_FOLLOW_OPTION, Named


def add_parser(commands: Subcommands) -> None:
    from absa_checks.sources.gold_sources import GOLD_SOURCES

    cmd = commands.add_parser(
        "expand", help="expand a gold source's aspect and opinion terms into the forms an annotator would also "
                       "accept (Zoom In-N-Out, through an LLM endpoint)",
        description="ZOOM-IN, ZOOM-OUT and JUDGE requests for every sentence of a gold source, asked of a models.yaml "
                    "entry of kind openai; every proposed form is checked (a span of the sentence, next to the gold "
                    "term, taking in no other term, keeping the opinion's negation) before JUDGE's verdict counts. "
                    "Writes the expanded-gold file extraction tests take (gold: {expanded: FILE}).")
    cmd.add_argument("--source", required=True, choices=tuple(GOLD_SOURCES), metavar="NAME",
                     help=f"the gold source to expand: {', '.join(GOLD_SOURCES)}")
    cmd.add_argument("--data", default=None, metavar="DIR",
                     help="data directory laid out like shared/data (default: $ABSA_DATA_DIR)")
    cmd.add_argument("--expander", default=None, metavar="NAME",
                     help="the models.yaml entry of kind openai asked (its model, temperature and seed go in every "
                          "request)")
    cmd.add_argument("--out", default=None, metavar="FILE", help="the expanded-gold file (JSON Lines) to write")
    cmd.add_argument("--export-requests", default=None, metavar="FILE",
                     help="write the requests instead (JSON Lines, keyed by sha256) and ask nothing: without "
                          "--expander every ZOOM request (default settings, model 'expander'); with it, what a run "
                          "would send next that the cache holds no answer for (JUDGE requests once the ZOOM answers "
                          "are kept)")
    cmd.add_argument("--cache", default=None, metavar="DIR",
                     help="with --expander: the cache folder its answers are kept in, by request key (default: "
                          ".absa-cache); a second run asks nothing")
    cmd.add_argument("--models-file", default=None, metavar="FILE",
                     help="the models file --expander names an entry of (default: models.yaml here)")
    cmd.add_argument("--follow-symlinks", action="store_true",
                     help="an output path that is a symbolic link: write to the file it points to (the link stays); "
                          "without it such a path is refused")


def run(args: argparse.Namespace) -> int:
    from absa_checks.common.fingerprint import sha256_of_file
    from absa_checks.expansion import prompt
    from absa_checks.sources import resolve_data_dir
    from absa_checks.sources.base import DataMissing
    from absa_checks.sources.gold_sources import GOLD_SOURCES, load_gold
    from absa_checks.workflows import expand

    if (args.out is None) == (args.export_requests is None):
        raise AbsaChecksError("expand: pass --out FILE (the expanded-gold file; needs --expander NAME) or "
                              "--export-requests FILE (the requests, nothing asked)")
    if args.out is not None and args.expander is None:
        raise AbsaChecksError("--out: expanding asks an LLM; name it with --expander NAME (a models.yaml entry of kind "
                              "openai), or write the requests with --export-requests FILE and answer them elsewhere")
    for option, value in (("--models-file", args.models_file), ("--cache", args.cache)):
        if value is not None and args.expander is None:
            raise AbsaChecksError(f"{option}: only used with --expander NAME")
    data_dir = resolve_data_dir(args.data)
    option = "--export-requests" if args.export_requests else "--out"
    out = Named(option, Path(args.export_requests or args.out))
    outputs.check([out], [], data_named(args.data, data_dir), args.follow_symlinks, CLI_FOLLOW_OPTION)
    try:
        sentences = load_gold(args.source, data_dir)
    except DataMissing as missing:
        raise AbsaChecksError(f"--source {args.source}: {missing} (--data DIR)") from None
    expander = cache = None
    if args.expander is not None:
        expander = expand.open_expander(args.expander, models_file(args.models_file, args.expander))
        cache = llm_cache(args.cache)
    if args.export_requests is not None:
        if expander is None:
            settings, text = prompt.ExpanderSettings(), expand.export_all(sentences, prompt.ExpanderSettings())
        else:
            from absa_checks.common.llm_requests import requests_lines
            settings, text = expander.settings, requests_lines(expand.pending(sentences, expander, cache))
        if write_each([(out, text)], args.follow_symlinks):
            return 2
        print(f"{len(sentences)} sentences of {args.source}; wrote {text.count(chr(10))} requests (model "
              f"'{settings.model}', prompt {prompt.EXPAND_PROMPT_SHA256[:12]}) to {out.path}; nothing was asked",
              file=sys.stderr)
        return 0
    assert expander is not None
    expansion = expand.expand(args.source, sentences, expander, cache)
    assert data_dir is not None  # load_gold raised DataMissing otherwise
    data_sha = sha256_of_file(data_dir / GOLD_SOURCES[args.source].relative_path)
    if write_each([(out, expand.file_text(expansion, expander, data_sha))], args.follow_symlinks):
        return 2
    print(f"wrote {out.path}", file=sys.stderr)
    for line in expansion.lines(expander.name):
        print("  " + line, file=sys.stderr)
    incomplete = expansion.incomplete(expander.name, expander.endpoint)
    if incomplete is None:
        return 0
    print(f"absa-checks: {incomplete}", file=sys.stderr)
    return 1


COMMAND = Command("expand", add_parser, run)
