"""One name, one thing: a top-level class or constant (UPPER_CASE) name defined in two modules of absa_checks/
or model_adapters/ means two things to a reader (two `OutputError`s, `STRATEGIES` a registry here and a tuple
there). Each such name is listed below with why it stays; a new one fails until it is renamed or justified."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("absa_checks", "model_adapters")
CONSTANT = re.compile(r"[A-Z][A-Z0-9_]*")

# The same role in every module of a kind, read by the seam by that name (one name, one thing: the role)
CONVENTIONS = {
    "KIND": "each adapter module's AdapterKind, named by its entry point (docs/architecture.md, Seams)",
    "REPORTER": "each report module's reporter, registered in run/reporters.py's BUILTIN_REPORTERS",
    "COMMAND": "each CLI module's sub-command name (cli/registry.py)",
    "ENTRY_POINT_GROUP": "each seam's entry-point group, in the module that reads it",
    "T": "a TypeVar, local to its module's generic functions",
}
# Found when this test was written (issue 39) and not yet renamed: most are word lists of the generator
# (perturb/*, sources/infer.py), whose renaming changes the generator fingerprint and so needs the frozen sets
# re-frozen; they are to be folded into common/text.py or given their module's meaning. Do not add to this list.
KNOWN = frozenset({
    "ADVERBS", "ANSWERS", "AUDIT_KEYS", "AUXILIARIES", "CLAUSE_STOPS", "CONTRASTS", "COORDINATORS", "DEFAULT_MODEL",
    "DEFAULT_SEED", "DETERMINERS", "DISCOURSE", "DOMAINS", "FIXTURES", "FOLLOW", "GENERAL_SPECIFIC", "HEDGES",
    "Handler", "JUDGE_KEYS", "KEYS", "MAX_BODY", "MAX_CHANGED_WORDS", "MIN_SHIFT", "MIN_VALENCE", "MODES", "NAME",
    "NEGATORS", "NOTHING", "NOT_FOUND", "POLAR", "Quarantined", "REQUIRED", "Reading", "Request", "SCHEMA",
    "SUBJECT_PRONOUNS", "TYPES", "Tally", "VARIANT_KEYS", "Verdict",
})


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
    new = {name: paths for name, paths in duplicates(REPO).items() if name not in CONVENTIONS and name not in KNOWN}
    assert not new, "defined in several modules: rename one, or justify it in tests/repo/test_names.py: " + "; ".join(
        f"{name} in {', '.join(paths)}" for name, paths in new.items())


def test_the_allow_list_holds_only_names_still_duplicated():
    """A name fixed since is taken off the list, so the list only shrinks."""
    found = duplicates(REPO)
    assert sorted(name for name in (*CONVENTIONS, *KNOWN) if name not in found) == []


def test_the_issues_named_duplicates_are_gone():
    found = duplicates(REPO)
    assert {"OutputError", "STRATEGIES", "TYPE_EXPECTATIONS"}.isdisjoint(found)


def test_a_duplicate_is_found(tmp_path: Path):
    for package, module in (("absa_checks", "a.py"), ("model_adapters", "b.py")):
        (tmp_path / package).mkdir()
        (tmp_path / package / module).write_text("class OutputError(Exception):\n    pass\n\nLIMIT: int = 3\nlower = 1\n")
    assert duplicates(tmp_path) == {"LIMIT": ["absa_checks/a.py", "model_adapters/b.py"],
                                    "OutputError": ["absa_checks/a.py", "model_adapters/b.py"]}
