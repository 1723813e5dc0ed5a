"""The packages by stage (docs/architecture.md) and their import contracts ([tool.importlinter] in
pyproject.toml), checked by import-linter: the layers import downwards only, absa_checks never imports a
concrete adapter, only the pytest front door imports pytest, and collection imports no reporter. The run core
(run/) never imports the generation workflows (workflows/), which the front doors call."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: import-linter (an older one) brings tomli
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "absa_checks"
LINT = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"


def contracts() -> list[dict]:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]


def lint_imports(project: Path, *contract_ids: str) -> subprocess.CompletedProcess:
    """`lint-imports` on the project's pyproject.toml, importing the project's own packages."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(project), os.environ.get("PYTHONPATH", "")])}
    chosen = [arg for cid in contract_ids for arg in ("--contract", cid)]
    return subprocess.run([sys.executable, "-c", LINT, "--no-cache", *chosen], cwd=project, env=env,
                          capture_output=True, text=True, timeout=120)


def test_the_import_contracts_hold():
    done = lint_imports(REPO)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"Contracts: {len(contracts())} kept, 0 broken." in done.stdout


def test_every_package_is_a_stage_of_the_layers():
    """The tree reads as the flow: each package under absa_checks/ is in the layers contract, and no module
    lies loose beside them (only the package's __init__ and the Python API front door)."""
    layers = next(c for c in contracts() if c["type"] == "layers")["layers"]
    named = {name.strip().strip("()") for layer in layers for name in layer.split("|")}
    packages = {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    assert packages - named == set(), "a package outside the layers: add it to [tool.importlinter] and the docs"
    loose = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert set(loose) <= {"__init__.py", "api.py"}, f"modules outside the stages: {loose}"


VIOLATIONS = [  # (contract id, file of the copy, the import added to it)
    ("layers", "common/errors.py", "from absa_checks.reports import terminal"),
    ("layers", "suites/spec.py", "import absa_checks.perturb.engine"),
    ("layers", "run/core.py", "from absa_checks.workflows import generate"),
    ("layers", "workflows/generate.py", "from absa_checks.review import server"),
    ("no-concrete-adapter", "models/adapters.py", "import model_adapters.lexicon"),
    ("pytest-only-in-front-door", "judge/metrics.py", "import pytest"),
    ("pytest-only-in-front-door", "workflows/augment.py", "import pytest"),
    ("collection-without-reporters", "pytest_plugin/items.py", "from absa_checks.reports import report_json"),
]


@pytest.mark.parametrize("contract, module, line", VIOLATIONS, ids=[f"{c}:{m}" for c, m, _ in VIOLATIONS])
def test_a_forbidden_import_breaks_its_contract(tmp_path, contract, module, line):
    """In a copy of the project, one import against a contract: lint-imports fails and names it."""
    for name in ("absa_checks", "model_adapters"):
        shutil.copytree(REPO / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    assert lint_imports(tmp_path, contract).returncode == 0  # the copy keeps it, before the change
    target = tmp_path / "absa_checks" / module
    target.write_text(target.read_text(encoding="utf-8") + f"\n{line}  # against the contract\n", encoding="utf-8")
    done = lint_imports(tmp_path, contract)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "BROKEN" in done.stdout and module.replace("/", ".").removesuffix(".py") in done.stdout
