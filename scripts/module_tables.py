"""Write the module tables of docs/architecture.md from the packages, so they cannot go stale.

    python scripts/module_tables.py [--check] [--root DIR]

Between `<!-- modules: FOLDER -->` and `<!-- /modules -->` (FOLDER a package folder, relative to the repository
or --root) goes the table `| module | job |` of the folder's modules (its .py files, subpackages apart), each
with the first paragraph of its docstring as its job (on one line; `|`, and `<` `>` outside code, escaped). Every package folder under absa_checks/ and model_adapters/
must have its table: one missing is reported. With --check nothing is written: the exit status is 1 when a table
is stale or missing (each named on stderr), else 0. A module without a docstring is one line and exit 2.

The modules hashed as generator code (absa_checks.common.fingerprint.GENERATOR_FILES) are not edited for their
docs' sake (a changed byte changes every generated variant's fingerprint): where their docstring's first paragraph
says less than the table should, OVERRIDES below gives the job instead.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DOC = Path("docs/architecture.md")
PACKAGES = ("absa_checks", "model_adapters")
MARKER = re.compile(r"(?P<open><!-- modules: (?P<folder>\S+) -->\n)(?P<body>.*?)(?P<close><!-- /modules -->)",
                    re.DOTALL)
# generator modules whose docstring we do not edit (see above): their job as the table says it
OVERRIDES = {
    "absa_checks/perturb/polarity.py": "Word valences and clause scores from the sentiment lexicons that ship inside "
                                       "packages (VADER + TextBlob, offline): what the generator reads, and the "
                                       "`lexicon` model too.",
    "absa_checks/sources/clauses.py": "Clauses: the part of a sentence that talks about one aspect (opinion "
                                      "inference's, and the `lexicon` model scores the target's clause).",
    "absa_checks/suites/strategies.py": "The strategy registry (`REGISTRY`): one `Strategy` declaration each "
                                        "(expectation, gold change, parameters, generator, checks, Allure category, "
                                        "population), read by the spec parser, the generator engine, the CLI and the "
                                        "reports; chains (`revnon+adddiff`).",
}


class TableError(Exception):
    """A module the table cannot describe: one line naming it."""


def job(path: Path, root: Path) -> str:
    """The module's job: its override, else its docstring's first paragraph on one line, `|` escaped."""
    name = path.relative_to(root).as_posix()
    if name in OVERRIDES:
        text = OVERRIDES[name]
    else:
        docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"), str(path))) or ""
        text = " ".join(docstring.strip().split("\n\n")[0].split())
        if not text:
            raise TableError(f"{name}: no docstring; its first paragraph is the module's job in {DOC}")
    return cell(text)


def cell(text: str) -> str:
    """Text as a table cell: `|` escaped, and `<` and `>` outside code spans too (HTML a docstring names, such
    as <del>, is shown, not rendered)."""
    parts = text.replace("|", "\\|").split("`")
    return "`".join(part.replace("<", "&lt;").replace(">", "&gt;") if i % 2 == 0 else part
                    for i, part in enumerate(parts))


def table(root: Path, folder: str) -> str:
    """The folder's table: its modules, __init__.py first, then by name."""
    base = root / folder
    if not (base / "__init__.py").is_file():
        raise TableError(f"{folder}: not a package folder")
    modules = sorted(base.glob("*.py"), key=lambda p: (p.name != "__init__.py", p.name))
    rows = [f"| `{path.name}` | {job(path, root)} |" for path in modules]
    return "\n".join(["| module | job |", "|---|---|", *rows]) + "\n"


def package_folders(root: Path) -> list[str]:
    """Every package folder of the two packages (a folder with an __init__.py), the packages themselves too."""
    return sorted(init.parent.relative_to(root).as_posix() for package in PACKAGES
                  for init in (root / package).rglob("__init__.py"))


def filled(text: str, root: Path) -> str:
    """The doc's text with every table written from its folder."""
    return MARKER.sub(lambda m: m["open"] + table(root, m["folder"]) + m["close"], text)


def problems(text: str, root: Path) -> list[str]:
    """What --check reports: folders without a table, and stale tables."""
    shown = [m["folder"] for m in MARKER.finditer(text)]
    found = [f"{folder}: no table (add `<!-- modules: {folder} -->` and `<!-- /modules -->` to {DOC})"
             for folder in package_folders(root) if folder not in shown]
    found += [f"{folder}: shown twice" for folder in sorted({f for f in shown if shown.count(f) > 1})]
    found += [f"{m['folder']}: its table is stale; run python scripts/module_tables.py" for m in MARKER.finditer(text)
              if m["body"] != table(root, m["folder"])]
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a table is stale or missing")
    parser.add_argument("--root", type=Path, default=REPO, help="the repository (default: this script's)")
    args = parser.parse_args(argv)
    doc = args.root / DOC
    try:
        text = doc.read_text(encoding="utf-8")
        found = problems(text, args.root)
        new = filled(text, args.root)
    except (TableError, OSError, SyntaxError) as err:
        print(f"module_tables: {err}", file=sys.stderr)
        return 2
    if args.check:
        for line in found:
            print(f"{doc}: {line}", file=sys.stderr)
        return 1 if found else 0
    if new != text:
        doc.write_text(new, encoding="utf-8")
        print(f"wrote {doc}")
    for line in found:
        if "no table" in line or "shown twice" in line:
            print(f"{doc}: {line}", file=sys.stderr)
    return 1 if any("no table" in line or "shown twice" in line for line in found) else 0


if __name__ == "__main__":
    raise SystemExit(main())
