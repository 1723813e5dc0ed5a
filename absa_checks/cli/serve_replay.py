"""`absa-checks serve-replay ANSWERS`: recorded answers served as an OpenAI-compatible endpoint on 127.0.0.1
(absa_checks/models/replay_server.py; docs/served.md, "Replaying recorded answers")."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from absa_checks.cli.arguments import Command, Subcommands
from absa_checks.common.errors import AbsaChecksError


def add_parser(commands: Subcommands) -> None:
    serve = commands.add_parser(
        "serve-replay", help="answer recorded requests as an OpenAI-compatible endpoint on 127.0.0.1 (no live model)",
        description="Serve an answers file (JSON Lines of {\"key\": ..., \"content\": ...} or {\"key\": ..., "
                    "\"response\": ...}, keyed by the requests `absa-checks generate --export-requests` wrote) at "
                    "http://127.0.0.1:PORT/v1: a recorded request gets its answer verbatim, any other one HTTP 404 "
                    "naming its key. The answers file is read once, at start: restart the server after changing it.")
    serve.add_argument("answers", metavar="ANSWERS", help="the answers file (JSON Lines), read once at start")
    serve.add_argument("--port", type=int, default=0, help="the port on 127.0.0.1 (default 0: a free one)")


def run(args: argparse.Namespace) -> int:
    from absa_checks.common.llm_requests import read_answers
    from absa_checks.models import replay_server

    if not 0 <= args.port <= 65535:
        raise AbsaChecksError(f"serve-replay: --port {args.port}: not a port; give 1-65535, or 0 for a free one")
    answers = read_answers(Path(args.answers))
    if not answers:
        raise AbsaChecksError(f"{args.answers}: holds no answers, so every request would be refused; answer the "
                              "requests `absa-checks generate ... --export-requests FILE` wrote, one "
                              '{"key": ..., "content": ...} line each')
    replay = replay_server.Replay(answers, str(args.answers), sys.stderr)
    return replay_server.serve(replay, args.port, sys.stdout)


COMMAND = Command("serve-replay", add_parser, run)
