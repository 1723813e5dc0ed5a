"""One name, one thing: a top-level class or constant (UPPER_CASE) name defined in two modules of absa_checks/
or model_adapters/ means two things to a reader (two `OutputError`s, `STRATEGIES` a registry here and a tuple
there). None is left (issue 39); a new one fails until it is renamed, or defined once and imported, unless it is a
declared per-module role (CONVENTIONS)."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("absa_checks", "model_adapters")
CONSTANT = re.compile(r"[A-Z][A-Z0-9_]*")

# Declared per-module protocols: the same role in every module of a kind, read by its seam by that name (one
# name, one thing: the role). A name is added here only for such a role, with the seam that reads it; any other
# name defined twice is renamed (or defined once and imported), so there is no list of tolerated duplicates.
CONVENTIONS = {
    "KIND": "each adapter module's AdapterKind, named by its entry point (docs/architecture.md, Seams)",
    "REPORTER": "each report module's reporter, registered in run/reporters.py's BUILTIN_REPORTERS",
    "COMMAND": "each CLI module's sub-command name (cli/registry.py)",
    "ENTRY_POINT_GROUP": "each seam's entry-point group, in the module that reads it",
    "NAME": "each review mode's name (review/audit_mode.py, review/candidates_mode.py), read by review/server.py",
    "T": "a TypeVar, local to its module's generic functions",
}


def top_level_names(source: str) -> list[str]:
    """The classes and UPPER_CASE constants a module defines at its top level."""
    names = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef):
            names.append(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names += [t.id for t in targets if isinstance(t, ast.Name) and CONSTANT.fullmatch(t.id)]
    return names


def duplicates(root: Path) -> dict[str, list[str]]:
    """Each name defined in more than one module: the modules, as paths from `root`."""
    where: dict[str, set[str]] = defaultdict(set)
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            for name in top_level_names(path.read_text(encoding="utf-8")):
                where[name].add(path.relative_to(root).as_posix())
    return {name: sorted(paths) for name, paths in sorted(where.items()) if len(paths) > 1}


def test_no_new_name_means_two_things():
    new = {name: paths for name, paths in duplicates(REPO).items() if name not in CONVENTIONS}
    assert not new, "defined in several modules: rename one, or define it once and import it: " + "; ".join(
        f"{name} in {', '.join(paths)}" for name, paths in new.items())


def test_the_allow_list_holds_only_names_still_duplicated():
    """A convention no longer shared by several modules is no convention: it is taken off the list."""
    found = duplicates(REPO)
    assert sorted(name for name in CONVENTIONS if name not in found) == []


def test_the_issues_named_duplicates_are_gone():
    found = duplicates(REPO)
    assert {"OutputError", "STRATEGIES", "TYPE_EXPECTATIONS"}.isdisjoint(found)


def test_a_duplicate_is_found(tmp_path: Path):
    for package, module in (("absa_checks", "a.py"), ("model_adapters", "b.py")):
        (tmp_path / package).mkdir()
        (tmp_path / package / module).write_text("class OutputError(Exception):\n    pass\n\nLIMIT: int = 3\nlower = 1\n")
    assert duplicates(tmp_path) == {"LIMIT": ["absa_checks/a.py", "model_adapters/b.py"],
                                    "OutputError": ["absa_checks/a.py", "model_adapters/b.py"]}
