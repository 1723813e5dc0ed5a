"""Adapter kinds are a registry that built-in kinds and third-party packages use alike, through the
entry-point group `absa_checks.adapters`; the core never imports a concrete adapter."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from absa_checks.common.errors import AbsaChecksError
from absa_checks.models import adapters
from conftest import install_adapter_package

REPO = Path(__file__).resolve().parents[2]

TOY_KIND = '''
from absa_checks.models.adapters import AdapterKind


class Constant:
    """Answers every query with one label."""
    cacheable = False

    def __init__(self, name, label):
        self.name, self.label = name, label

    def describe(self):
        return {"kind": "constant", "label": self.label}

    def fingerprint(self):
        return "constant-" + self.label

    def predict(self, queries):
        return [self.label for _ in queries]


KIND = AdapterKind("constant", keys=("label",), required=("label",),
                   build=lambda spec: Constant(spec.name, str(spec.settings["label"])),
                   inline=lambda rest: {"label": rest}, inline_form="constant:<label>")
'''

SUITE = "suite: s\ntests:\n  - {name: t, strategy: adddiff, sources: [builtin-laptop], sample: 4}\n"


def make_package(root: Path) -> Path:
    return install_adapter_package(root, "toykind", TOY_KIND, "constant")


def run_pytest(project: Path, package: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "ABSA_"))}
    env["PYTHONPATH"] = str(package)
    return subprocess.run([sys.executable, "-m", "pytest", *args], cwd=project, env=env, capture_output=True,
                          text=True, timeout=300)


def test_a_third_party_kind_registered_by_entry_point_runs_like_a_builtin(tmp_path: Path):
    package = make_package(tmp_path / "site")
    project = tmp_path / "project"
    project.mkdir()
    (project / "s.yaml").write_text(SUITE)
    (project / "models.yaml").write_text("models:\n  always-positive: {kind: constant, label: positive}\n"
                                         "  typo: {kind: constant, lable: positive}\n")
    inline = run_pytest(project, package, "s.yaml", "--absa-model", "constant:negative", "--absa-report", "r.json")
    assert inline.returncode in (0, 1), inline.stdout[-2000:] + inline.stderr
    assert json.loads((project / "r.json").read_text())["run"]["model"]["kind"] == "constant"
    named = run_pytest(project, package, "s.yaml", "--absa-model", "always-positive", "--absa-report", "n.json")
    report = json.loads((project / "n.json").read_text())
    assert report["run"]["model"]["label"] == "positive" and report["summary"]["cases"] > 0, named.stdout[-2000:]
    typo = run_pytest(project, package, "s.yaml", "--absa-model", "typo")
    assert typo.returncode == 4
    assert "model 'typo': unknown setting(s) lable; constant models take label" in typo.stderr


def test_kinds_are_listed_without_importing_them():
    assert {"lexicon", "replay", "python", "transformers"} <= set(adapters.kind_names())
    code = ("import sys; from absa_checks.models import adapters; from absa_checks.pytest_plugin import plugin; adapters.kind_names(); "
            "print(sorted(m for m in sys.modules if m.startswith('model_adapters')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True).stdout
    assert out.strip() == "[]"


def test_an_unknown_kind_names_the_known_ones():
    with pytest.raises(AbsaChecksError, match="unknown model kind 'replya'; did you mean 'replay'"):
        adapters.get_kind("replya")


BARE_NAMES = [  # (models.yaml, the line, the message): names YAML reads as no string
    ("models:\n  mine: {kind: lexicon, scope: target}\n  yes: {kind: lexicon, scope: sentence}\n", 3,
     "the model name yes is read by YAML as true; quote it: 'yes':"),
    ("models:\n  Off: {kind: lexicon, scope: sentence}\n", 2,
     "the model name Off is read by YAML as false; quote it: 'Off':"),
    ("models:\n  mine: {kind: lexicon, scope: target}\n  1: {kind: lexicon, scope: sentence}\n", 3,
     "the model name 1 is read by YAML as the number 1; quote it: '1':"),
    ("models:\n  null: {kind: lexicon, scope: sentence}\n", 2,
     "mapping keys must be plain words; the name null is read by YAML as null (no value); quote it: 'null':"),
    ("models:\n  2024-01-01: {kind: lexicon, scope: sentence}\n", 2,
     "mapping keys must be plain words; the name 2024-01-01 is read by YAML as a date; quote it: '2024-01-01':"),
    ("models:\n  mine: {kind: lexicon, scope: target}\ngroups:\n  on: [mine, lexicon-sentence]\n", 4,
     "the group name on is read by YAML as true; quote it: 'on':"),
]


@pytest.mark.parametrize("text, line, message", BARE_NAMES, ids=["yes", "Off", "1", "null", "date", "group-on"])
def test_a_model_or_group_name_yaml_reads_as_no_string_is_refused_with_the_quotes_to_add(tmp_path: Path, text, line,
                                                                                          message):
    """`yes:` crashed pytest with INTERNALERROR (bool < str) and `absa-checks models` listed it as '1';
    `null:` said only "mapping keys must be plain words" (issue 35, probe 27 and 28)."""
    models = tmp_path / "models.yaml"
    models.write_text(text)
    for call in (lambda: adapters.resolve_run("mine", models), lambda: adapters.read_groups(models)):
        with pytest.raises(AbsaChecksError) as err:
            call()
        assert str(err.value) == f"{models}:{line}: {message}"
    listed = subprocess.run([sys.executable, "-m", "absa_checks.cli", "models", "--models-file", "models.yaml"],
                            cwd=tmp_path, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert listed.returncode != 0 and f"models.yaml:{line}: {message}" in listed.stderr
    assert "Traceback" not in listed.stderr


def test_a_model_named_yes_is_one_line_under_pytest_not_an_internal_error(tmp_path: Path, run):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "s.yaml").write_text(SUITE)
    (tmp_path / "models.yaml").write_text("models:\n  yes: {kind: lexicon, scope: sentence}\n")
    result = run(["s.yaml", "--absa-model", "yes"], cwd=tmp_path)
    assert result.code == 4 and "INTERNALERROR" not in result.out and "Traceback" not in result.out
    assert "models.yaml:2: the model name yes is read by YAML as true; quote it: 'yes':" in result.out
    (tmp_path / "models.yaml").write_text("models:\n  'yes': {kind: lexicon, scope: sentence}\n")
    quoted = run(["s.yaml", "--absa-model", "yes"], cwd=tmp_path)
    assert quoted.code in (0, 1) and "collected 4 items" in quoted.out, quoted.out  # it ran, named 'yes'


def test_an_unknown_top_level_key_in_models_yaml_is_refused_naming_file_line_and_the_known_keys(tmp_path: Path, run):
    models = tmp_path / "models.yaml"
    models.write_text("models:\n  mine: {kind: lexicon, scope: target}\n"
                      "grops:\n  pair: [mine, lexicon-sentence]\n")  # the groups would be dropped without a word
    with pytest.raises(AbsaChecksError) as err:
        adapters.resolve_run("mine", models)
    assert str(err.value) == (f"{models}:3: unknown top-level key 'grops'; did you mean 'groups'? a models file has "
                              "models and groups (settings go inside a model's entry)")
    models.write_text("models:\n  mine: {kind: lexicon, scope: target}\nbatch_size: 8\n")
    with pytest.raises(AbsaChecksError, match=r"models.yaml:3: unknown top-level key 'batch_size'; a models file has"):
        adapters.resolve("mine", models)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "s.yaml").write_text(SUITE)
    result = run(["s.yaml", "--absa-model", "mine"], cwd=tmp_path)
    assert result.code == 4 and "models.yaml:3: unknown top-level key 'batch_size'" in result.out
    assert "Traceback" not in result.out and "passed" not in result.out
