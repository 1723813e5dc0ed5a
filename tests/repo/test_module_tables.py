"""docs/architecture.md's module tables are written from the packages by scripts/module_tables.py: each module's
job is its docstring's first paragraph, so a new module cannot be left out and a table cannot go stale."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SPEC = importlib.util.spec_from_file_location("module_tables", REPO / "scripts" / "module_tables.py")
assert SPEC is not None and SPEC.loader is not None
module_tables = importlib.util.module_from_spec(SPEC)
sys.modules["module_tables"] = module_tables
SPEC.loader.exec_module(module_tables)


def test_every_package_has_its_table_and_every_table_is_fresh():
    problems = module_tables.problems((REPO / module_tables.DOC).read_text(), REPO)
    assert not problems, "run python scripts/module_tables.py:\n" + "\n".join(problems)


def test_the_overrides_are_for_generator_modules_only():
    """The docstrings of every other module are edited instead (absa_checks.common.fingerprint.GENERATOR_FILES)."""
    from absa_checks.common.fingerprint import GENERATOR_FILES

    package = REPO / "absa_checks"
    generator = {f"absa_checks/{path.relative_to(package).as_posix()}" for pattern in GENERATOR_FILES
                 for path in package.glob(pattern)}
    assert set(module_tables.OVERRIDES) <= generator
    assert all((REPO / name).is_file() for name in module_tables.OVERRIDES)


def project(root: Path) -> Path:
    (root / "absa_checks" / "things").mkdir(parents=True)
    (root / "model_adapters").mkdir()
    (root / "docs").mkdir()
    (root / "absa_checks" / "__init__.py").write_text('"""The package."""\n')
    (root / "absa_checks" / "things" / "__init__.py").write_text('"""Things.\n\nMore about them."""\n')
    (root / "absa_checks" / "things" / "one.py").write_text('"""The first thing: a | b, <del>\nwrapped `<b>`."""\nX = 1\n')
    (root / "model_adapters" / "__init__.py").write_text('"""Adapters."""\n')
    (root / "docs" / "architecture.md").write_text(
        "# A\n\n<!-- modules: absa_checks -->\n<!-- /modules -->\n\n### things\n\n<!-- modules: absa_checks/things -->\n"
        "| module | job |\n|---|---|\n| `one.py` | by hand |\n<!-- /modules -->\n\nAfter.\n")
    return root


def run(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(REPO / "scripts" / "module_tables.py"), "--root", str(root), *args],
                          capture_output=True, text=True)


def test_a_stale_table_and_a_package_without_one_fail_the_check_and_the_script_writes_the_tables(tmp_path: Path):
    root = project(tmp_path)
    check = run(root, "--check")
    assert check.returncode == 1
    assert "absa_checks/things: its table is stale" in check.stderr
    assert "model_adapters: no table" in check.stderr
    assert run(root).returncode == 1  # the tables written, the missing one still named
    doc = (root / "docs" / "architecture.md").read_text()
    assert ("<!-- modules: absa_checks/things -->\n| module | job |\n|---|---|\n| `__init__.py` | Things. |\n"
            "| `one.py` | The first thing: a \\| b, &lt;del&gt; wrapped `<b>`. |\n<!-- /modules -->\n\nAfter.\n") in doc
    assert "| `__init__.py` | The package. |" in doc
    (root / "absa_checks" / "things" / "two.py").write_text('"""A second thing."""\n')
    assert "absa_checks/things: its table is stale" in run(root, "--check").stderr


def test_a_module_without_a_docstring_is_one_line(tmp_path: Path):
    root = project(tmp_path)
    (root / "absa_checks" / "things" / "bare.py").write_text("X = 1\n")
    with pytest.raises(module_tables.TableError, match="absa_checks/things/bare.py: no docstring"):
        module_tables.table(root, "absa_checks/things")
    ran = run(root, "--check")
    assert ran.returncode == 2 and ran.stderr.count("\n") == 1
