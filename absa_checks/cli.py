"""The `absa-checks` command: validate suites, list models, or run the suites through pytest."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .errors import AbsaChecksError
from .items import is_suite_file
from .sources.catalog import known_source_names
from .spec import parse_suite


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="absa-checks", description="Behavioural tests for ABSA models.")
    commands = parser.add_subparsers(dest="command", required=True)
    validate = commands.add_parser("validate", help="check suite files without running a model")
    validate.add_argument("paths", nargs="*", default=["suites"], help="suite files or folders (default: suites)")
    models = commands.add_parser("models", help="list the models --model can name")
    models.add_argument("--models-file", default="models.yaml")
    run = commands.add_parser("run", help="run suites: the same as `pytest PATHS ARGS`")
    run.add_argument("pytest_args", nargs=argparse.REMAINDER, help="passed on to pytest (default: suites/)")
    args = parser.parse_args(argv)
    try:
        if args.command == "validate":
            return _validate(args.paths)
        if args.command == "models":
            return _models(Path(args.models_file))
        import pytest

        return int(pytest.main(args.pytest_args or ["suites/"]))
    except AbsaChecksError as err:
        print(f"absa-checks: {err}", file=sys.stderr)
        return 2


def _validate(paths: list[str]) -> int:
    files = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            files += sorted(p for p in path.rglob("*") if is_suite_file(p))
        elif path.is_file():
            files.append(path)
        else:
            raise AbsaChecksError(f"{name}: no such file or folder")
    problems = 0
    for path in files:
        try:
            suite = parse_suite(path, known_source_names())
            print(f"ok    {path}: {len(suite.tests)} tests")
        except AbsaChecksError as err:
            problems += 1
            print(f"error {err}")
    print(f"{len(files)} suite files, {problems} with errors")
    return 1 if problems else 0


def _models(models_file: Path) -> int:
    from model_adapters.registry import BUILTIN_MODELS, read_models_file

    entries, origin = read_models_file(models_file)
    for name, entry in {**BUILTIN_MODELS, **entries}.items():
        kind = entry.get("kind", "?") if isinstance(entry, dict) else "?"
        print(f"{name:24} {kind:12} {'models file' if name in entries else 'built-in'}")
    print("also: replay:<path>#<column>, python:<module>:<function>")
    return 0


if __name__ == "__main__":
    sys.exit(main())
