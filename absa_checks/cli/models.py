"""`absa-checks models`: the models `--model` can name (the built-ins, a models file's entries and groups)."""

from __future__ import annotations

import argparse
from pathlib import Path

from absa_checks.cli.arguments import Command, Subcommands
from absa_checks.common.errors import AbsaChecksError


def add_parser(commands: Subcommands) -> None:
    models = commands.add_parser("models", help="list the models --model can name")
    models.add_argument("--models-file", default=None, help="the models file (default: models.yaml here, if any)")


def run(args: argparse.Namespace) -> int:
    from absa_checks.models.adapters import BUILTIN_MODELS, read_groups, read_models_file

    given: str | None = args.models_file
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


COMMAND = Command("models", add_parser, run)
