"""The plugin in someone else's project: installed (pytest11 entry point), it must change nothing there
unless the project has absa suites. Each test runs pytest in a scratch project, in a fresh process, as a
user would."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

IMPORT_LOG_CONFTEST = '''
import json, os, sys

def pytest_unconfigure(config):
    heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("torch", "transformers", "nltk"))
    with open(os.environ["IMPORT_LOG"], "w") as log:
        json.dump(heavy, log)
'''

UNRELATED_FILES = {
    "pytest.ini": "[pytest]\n",
    "conftest.py": IMPORT_LOG_CONFTEST,
    "docker-compose.yml": "services:\n  web:\n    image: nginx\n    ports: ['80:80']\n",
    "config/settings.yaml": "tests:\n  - name: smoke\nsources: [db]\n",  # suite-like keys, but no `suite:`
    "models.yaml": "models:\n  resnet: {kind: torchvision}\n",  # somebody else's models file
    "test_app.py": "def test_adds():\n    assert 1 + 1 == 2\n\n\ndef test_breaks():\n    assert 1 + 1 == 3\n",
}

SUITE = """suite: mine
tests:
  - name: invariance
    strategy: adddiff
    expect: unchanged
    sources: [builtin-restaurant]
    sample: 5
    gates: {max_fail_rate: 1.0}  # these tests are about options, not about the lexicon's quality
"""


def make_project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def run_pytest(project: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "ABSA_"))}
    env["IMPORT_LOG"] = str(project.parent / f"{project.name}-imports.json")
    return subprocess.run([sys.executable, "-m", "pytest", *args], cwd=project, env=env,
                          capture_output=True, text=True, timeout=300)


def tree(project: Path) -> list[str]:
    return sorted(p.relative_to(project).as_posix() for p in project.rglob("*"))


def normalised(output: str, project: Path) -> str:
    """pytest's output without what legitimately differs: the folder, the timing and the header's list
    of installed plugins (the one line where a blocked plugin is absent)."""
    lines = [line for line in output.replace(str(project), "<project>").splitlines()
             if not line.startswith("plugins:")]
    return re.sub(r"in \d+\.\d+s", "in <t>s", "\n".join(lines))


@pytest.mark.parametrize("args", [[], ["--collect-only", "-q"], ["-rA", "-v"]], ids=["run", "collect", "verbose"])
def test_a_project_without_suites_sees_no_difference(tmp_path: Path, args: list[str]) -> None:
    with_plugin = make_project(tmp_path / "with", UNRELATED_FILES)
    without = make_project(tmp_path / "without", UNRELATED_FILES)
    ours = run_pytest(with_plugin, *args)
    blocked = run_pytest(without, "-p", "no:absa_checks", *args)
    assert "absa_checks" in run_pytest(with_plugin, "--co", "-q", "--trace-config").stdout  # it really was loaded
    assert ours.returncode == blocked.returncode == (0 if "--collect-only" in args else 1)
    assert normalised(ours.stdout, with_plugin) == normalised(blocked.stdout, without)
    assert ours.stderr == blocked.stderr == ""
    assert tree(with_plugin) == tree(without)  # no .absa-cache, no report, nothing else
    assert not any(".absa" in name for name in tree(with_plugin))
    assert json.loads((tmp_path / "with-imports.json").read_text()) == []  # neither torch nor transformers


def test_only_yaml_with_a_suite_key_is_collected(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p", {**UNRELATED_FILES, "suites/mine.yaml": SUITE})
    result = run_pytest(project, "--collect-only", "-q")
    collected = [line for line in result.stdout.splitlines() if "::" in line]
    assert any(line.startswith("suites/mine.yaml::invariance[") for line in collected), result.stdout
    assert not any("docker-compose" in line or "settings.yaml" in line for line in collected)
    assert "test_app.py::test_adds" in collected


def test_a_suite_runs_beside_the_projects_own_yaml_and_models_file(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p", {**UNRELATED_FILES, "suites/mine.yaml": SUITE})
    result = run_pytest(project, "suites", "--absa-report", "report.json")
    assert result.returncode == 0, result.stdout[-2000:]
    assert "absa-checks PASSED" in result.stdout
    assert json.loads((project / "report.json").read_text())["run"]["model"]["name"] == "lexicon"


def test_a_conftest_that_owns_model_keeps_it_and_absa_model_works(tmp_path: Path) -> None:
    conftest = IMPORT_LOG_CONFTEST + '''
def pytest_addoption(parser):
    parser.addoption("--model", default="resnet", help="the project's own option")
'''
    project = make_project(tmp_path / "p", {
        **UNRELATED_FILES, "conftest.py": conftest, "suites/mine.yaml": SUITE,
        "test_app.py": "def test_model(request):\n    assert request.config.getoption('--model') == 'vgg'\n"})
    result = run_pytest(project, "--model", "vgg", "--absa-model", "lexicon-sentence", "--absa-report", "r.json")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr
    assert json.loads((project / "r.json").read_text())["run"]["model"]["name"] == "lexicon-sentence"
    said = [line for line in result.stdout.splitlines() if "--model belongs to another plugin" in line]
    assert len(said) == 1


def test_model_is_an_alias_where_it_is_free(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p", {"suites/mine.yaml": SUITE})
    result = run_pytest(project, "--model", "lexicon-sentence", "--absa-report", "r.json")
    assert result.returncode == 0, result.stdout[-3000:]
    assert json.loads((project / "r.json").read_text())["run"]["model"]["name"] == "lexicon-sentence"
    assert "--model belongs" not in result.stdout
    clash = run_pytest(project, "--model", "lexicon", "--absa-model", "lexicon-sentence")
    assert clash.returncode == 4
    assert "--model lexicon and --absa-model lexicon-sentence disagree" in clash.stderr


def test_a_wrong_model_in_a_project_with_suites_is_one_clear_error(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p", {"suites/mine.yaml": SUITE})
    result = run_pytest(project, "--absa-model", "bert-nope")
    assert result.returncode == 4
    assert "unknown model 'bert-nope'" in result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    assert not (project / ".absa-cache").exists()


def test_the_alias_is_added_only_while_model_is_free() -> None:
    """add_model_alias also serves the repository's conftest, which loads the plugin when it is not
    installed (that path misses the hook that runs after the project's conftests)."""
    from _pytest.config.argparsing import Parser

    from absa_checks.pytest_plugin.options import add_model_alias

    parser = Parser(_ispytest=True)
    assert add_model_alias(parser) is True
    assert add_model_alias(parser) is False  # now owned: never added twice
    other = Parser(_ispytest=True)
    other.addoption("--model")
    assert add_model_alias(other) is False
