"""Write the worked examples' files into the docs that show them, so the code a reader copies is the code the
tests run (as pytest's docs include their example conftest).

    python scripts/docs_examples.py [--check] [--root DIR] [DOCS...]

In each Markdown file (default: README.md and docs/*.md), the text between
`<!-- example: PATH -->` and `<!-- /example -->` becomes the file PATH (relative to the repository, or --root) in a
fenced block. With --check nothing is written: the exit status is 1 when a doc differs from its files (each
named on stderr), else 0. A marker naming a file that does not exist, or left open, is one line and exit 2.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MARKER = re.compile(r"(?P<open><!-- example: (?P<path>\S+) -->\n)(?P<body>.*?)(?P<close><!-- /example -->)", re.DOTALL)
OPENING = re.compile(r"<!-- example: (\S+) -->")
LANGUAGES = {".py": "python", ".toml": "toml", ".yaml": "yaml", ".yml": "yaml", ".json": "json"}


class ExampleError(Exception):
    """A marker that cannot be filled: one line naming the doc and the line."""


@dataclass(frozen=True)
class Included:
    doc: Path
    path: str  # the example file, relative to the repository


def block(root: Path, path: str) -> str:
    """The example file's text as a fenced block."""
    file = root / path
    if not file.is_file():
        raise ExampleError(f"{path}: no such file")
    text = file.read_text(encoding="utf-8")
    return f"```{LANGUAGES.get(file.suffix, '')}\n{text}{'' if text.endswith(chr(10)) else chr(10)}```\n"


def filled(doc: Path, root: Path = REPO) -> str:
    """The doc's text with every example block written from its file."""
    text = doc.read_text(encoding="utf-8")
    opened = len(OPENING.findall(text))
    closed = len(MARKER.findall(text))
    if opened != closed:
        line = next(text[:m.start()].count("\n") + 1 for m in OPENING.finditer(text)
                    if not MARKER.match(text, m.start()))
        raise ExampleError(f"{doc}:{line}: an example marker without its `<!-- /example -->`")

    def one(match: re.Match) -> str:
        try:
            return match["open"] + block(root, match["path"]) + match["close"]
        except ExampleError as err:
            raise ExampleError(f"{doc}:{text[:match.start()].count(chr(10)) + 1}: {err}") from None
    return MARKER.sub(one, text)


def included(doc: Path) -> list[Included]:
    """The example files a doc includes, in order."""
    return [Included(doc, match["path"]) for match in MARKER.finditer(doc.read_text(encoding="utf-8"))]


def default_docs(root: Path = REPO) -> list[Path]:
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a doc is stale")
    parser.add_argument("--root", type=Path, default=REPO, help="what PATHs are relative to (default: the repository)")
    parser.add_argument("docs", nargs="*", type=Path, help="Markdown files (default: README.md, docs/*.md)")
    args = parser.parse_args(argv)
    stale = []
    for doc in args.docs or default_docs(args.root):
        try:
            text = filled(doc, args.root)
        except (ExampleError, OSError) as err:
            print(f"docs_examples: {err}", file=sys.stderr)
            return 2
        if text != doc.read_text(encoding="utf-8"):
            stale.append(doc)
            if not args.check:
                doc.write_text(text, encoding="utf-8")
                print(f"wrote {doc}")
    if args.check and stale:
        for doc in stale:
            print(f"{doc}: its examples differ from their files; run python scripts/docs_examples.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
