"""pytest's own outputs are outputs too (absa_checks/pytest_plugin/pytest_outputs.py): --junitxml never replaces an input or
another output, --clean-alluredir and --basetemp never empty a folder holding an input, a read-only or full
--alluredir and --absa-cache are one line; and the `absa-checks` commands refuse empty values and inputs that
give nothing. Real pytest and `absa-checks` processes, real files, a real small tmpfs (reusing test_outputs)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from common.test_outputs import (  # noqa: F401
    ARGS,
    SEMEVAL,
    baseline,
    cli,
    digest,
    fill,
    mount_tmpfs,
    no_traceback,
    one_error_line,
    tmpfs,
)
from openai_server import FakeOpenAI

from conftest import REPO, needs_extra, run_pytest

EXAMPLES = ("examples:\n  - sentence: The soup was cold but the bread was warm.\n    aspect: soup\n"
            "    polarity: negative\n    aspects: [{term: bread, polarity: positive}]\n")


def project(root: Path, examples: str = "mine.examples.yaml") -> Path:
    """A project with one suite over a local examples file, and a lexicon model."""
    (root / "suites").mkdir(parents=True)
    (root / "suites" / examples).write_text(EXAMPLES)
    (root / "suites" / "mine.yaml").write_text(
        f"suite: mine\nsources:\n  mine:\n    file: {examples}\ntests:\n  - name: revtgt\n"
        "    strategy: revtgt\n    expect: flip\n    sources: [mine]\n")
    (root / "pytest.ini").write_text("[pytest]\n")
    return root


def tree(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): digest(p) for p in sorted(folder.rglob("*")) if p.is_file()}


# ---- --junitxml ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("which", ["baseline", "examples", "examples.data", "report", "markdown"])
def test_junitxml_never_replaces_an_input_or_another_output(baseline, tmp_path, which):  # noqa: F811
    if which.startswith("examples"):
        root = project(tmp_path / "p", "mine.examples.data" if which == "examples.data" else "mine.examples.yaml")
        target = root / "suites" / ("mine.examples.data" if which == "examples.data" else "mine.examples.yaml")
        args, cwd, before = ["suites", "-q", "--junitxml", os.path.relpath(target, root)], root, digest(target)
        fragments = ("--junitxml", "is an existing YAML file" if which == "examples" else "an input of this run")
    elif which == "baseline":
        target, before, cwd = baseline, digest(baseline), REPO
        args, fragments = [*ARGS, "--absa-baseline", str(baseline), "--junitxml", str(baseline)], \
            ("--junitxml", "--absa-baseline", "an input of this run")
    else:
        target, before, cwd = tmp_path / f"out.{which}", None, REPO
        option = "--absa-report" if which == "report" else "--absa-markdown"
        args, fragments = [*ARGS, option, str(target), "--junitxml", str(target)], (option, "--junitxml", "one file")
    done = run_pytest(args, cwd=cwd)
    assert done.code == 4, done.out
    one_error_line(done.out, *fragments)
    assert (digest(target) if target.exists() else None) == before  # untouched, or never written at all
    no_traceback(done.out)


# ---- folders emptied before the run: --clean-alluredir, --basetemp ----------------------------------

@pytest.mark.parametrize("case", ["suites", "root", "baseline inside", "in the data folder", "holds other files",
                                  "basetemp suites"])
def test_a_folder_emptied_before_the_run_never_holds_an_input(tmp_path, case):
    root = project(tmp_path / "p")
    (root / "data" / "semeval14").mkdir(parents=True)
    (root / "data" / "semeval14" / "Restaurants_Test_Gold.xml").write_text(SEMEVAL)
    (root / "al").mkdir()
    (root / "al" / "released.json").write_text("{}")
    (root / "other").mkdir()
    (root / "other" / "notes.txt").write_text("mine")
    args, option = {
        "suites": (["--alluredir", "suites", "--clean-alluredir"], "--alluredir"),
        "root": (["--alluredir", ".", "--clean-alluredir"], "--alluredir"),
        "baseline inside": (["--alluredir", "al", "--clean-alluredir", "--absa-baseline", "al/released.json"],
                            "--alluredir"),
        "in the data folder": (["--alluredir", "data/semeval14", "--clean-alluredir", "--absa-data", "data"],
                               "--alluredir"),
        "holds other files": (["--alluredir", "other", "--clean-alluredir"], "--alluredir"),
        "basetemp suites": (["--basetemp", "suites"], "--basetemp"),
    }[case]
    before = tree(root)
    done = run_pytest(["suites", "-q", *args], cwd=root)
    assert done.code == 4, done.out
    one_error_line(done.out, option, "ERROR")
    assert tree(root) == before  # nothing deleted, nothing written
    no_traceback(done.out)


def test_clean_alluredir_still_empties_a_folder_of_allure_results(tmp_path):
    root = project(tmp_path / "p")
    results = root / "allure"
    results.mkdir()
    (results / "0123-result.json").write_text("{}")
    (results / "environment.properties").write_text("x=1\n")
    done = run_pytest(["suites", "-q", "--alluredir", "allure", "--clean-alluredir"], cwd=root)
    assert done.code == 0, done.out
    assert not (results / "0123-result.json").exists() and list(results.glob("*-result.json"))


# ---- a read-only or full --alluredir -------------------------------------------------------------------

def test_a_read_only_alluredir_is_one_line_before_the_run(tmpfs):  # noqa: F811
    (tmpfs / "allure").mkdir()
    subprocess.run(["mount", "-o", "remount,ro", str(tmpfs)], check=True)
    done = run_pytest([*ARGS, "--alluredir", str(tmpfs / "allure")])
    assert done.code == 4, done.out
    one_error_line(done.out, "--alluredir", "read-only")
    no_traceback(done.out)


def test_a_full_alluredir_is_one_line_and_the_run_completes(tmpfs, tmp_path):  # noqa: F811
    (tmpfs / "allure").mkdir()
    fill(tmpfs)
    report = tmp_path / "r.json"
    done = run_pytest([*ARGS, "--alluredir", str(tmpfs / "allure")], report=report)
    assert done.code == 1, done.out  # a requested output is missing
    one_error_line(done.out, "--alluredir", "Allure results were not all written", "no space left")
    no_traceback(done.out)
    assert done.report is not None and done.report["summary"]["cases"] > 6  # every case ran


def test_an_internal_error_never_leaves_a_complete_passing_report(tmp_path):
    root = project(tmp_path / "p")
    (root / "conftest.py").write_text("def pytest_runtest_logfinish(nodeid, location):\n"
                                      "    raise OSError(28, 'No space left on device')\n")
    done = run_pytest(["suites", "-q"], cwd=root, report=tmp_path / "r.json")
    assert done.code == 3, done.out
    partial = tmp_path / "r.partial.json"
    report = done.report or json.loads(partial.read_text())
    assert report["complete"] is False and report["verdict"]["passed"] is False, report
    assert "internal error" in report["stopped"]


# ---- a full or read-only --absa-cache: the run goes on without it ------------------------------------

@needs_extra("openai")
@pytest.mark.parametrize("disk", ["full", "read-only"])
def test_a_cache_folder_that_cannot_be_written_is_one_warning_never_a_model_error(tmpfs, tmp_path, disk):  # noqa: F811
    if disk == "full":
        fill(tmpfs)
    else:
        subprocess.run(["mount", "-o", "remount,ro", str(tmpfs)], check=True)
    with FakeOpenAI() as server:
        (tmp_path / "models.yaml").write_text(
            f"models:\n  remote: {{kind: openai, base_url: '{server.base_url}', model: lexicon, retries: 0}}\n")
        done = run_pytest([*ARGS, "--absa-models", str(tmp_path / "models.yaml"), "--absa-model", "remote",
                           "--absa-cache", str(tmpfs / "cache")], report=tmp_path / "r.json")
        assert server.requests > 0
    assert done.code == 0, done.out
    assert done.out.count("the prediction cache --absa-cache") == 1, done.out
    assert "raised OperationalError" not in done.out and "raised OSError" not in done.out
    no_traceback(done.out)
    assert done.report["summary"]["errors"] == 0


# ---- the absa-checks commands --------------------------------------------------------------------------

@pytest.mark.parametrize("argv, option", [
    (["merge", "a.json", "b.json", "-o", " "], "--out"),
    (["generate", "--source", "builtin-restaurant", "--out", " "], "--out"),
    (["augment", "--input", "train.xml", "--out", "a.jsonl", "--strategies", " , "], "--strategies"),
    (["validate", ""], "paths"),
])
def test_an_empty_value_is_refused_by_every_command(tmp_path, argv, option):
    (tmp_path / "train.xml").write_text(SEMEVAL)
    done = cli(*argv, cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    one_error_line(done.stderr, option, "empty value")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train.xml"]  # no file named " "


ARTS_VARIANTS = {"1_0_adv1": {"id": "1_0", "sentence": "The soup was hot.", "term": "soup", "from": 4, "to": 8,
                              "polarity": "positive"},
                 "1_0_adv2": {"id": "1_0", "sentence": "The soup was cold and the bread was bad.", "term": "soup",
                              "from": 4, "to": 8, "polarity": "negative"}}


@pytest.mark.parametrize("command", ["augment", "generate"])
@pytest.mark.parametrize("content, why", [("<sentences></sentences>\n", "no sentence with an annotated aspect"),
                                          (json.dumps(ARTS_VARIANTS), "without an original")])
def test_an_input_that_gives_no_unit_is_an_error_not_an_empty_output(tmp_path, command, content, why):
    source = tmp_path / ("empty.xml" if content.startswith("<") else "variants.json")
    source.write_text(content)
    done = cli(command, "--input", str(source), "--out", str(tmp_path / "out.jsonl"), cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    one_error_line(done.stderr, "--input", "nothing was read", why)
    assert not (tmp_path / "out.jsonl").exists()
    no_traceback(done.stderr)


def test_validate_of_a_folder_without_suites_fails(tmp_path):
    (tmp_path / "emptyd").mkdir()
    done = cli("validate", "emptyd", cwd=tmp_path)
    assert done.returncode == 1, done.stdout
    one_error_line(done.stdout, "emptyd", "no suite file found")


@pytest.mark.parametrize("given, message", [("suites", "is a folder, not a file"), ("nope.yaml", "not found")])
def test_a_models_file_that_is_a_folder_or_missing_is_an_error(tmp_path, given, message):
    (tmp_path / "suites").mkdir()
    done = cli("models", "--models-file", given, cwd=tmp_path)
    assert done.returncode == 2, done.stdout
    one_error_line(done.stderr, "--models-file", given, message)
    listed = cli("models", cwd=tmp_path)  # no models.yaml here and none asked for: the built-ins
    assert listed.returncode == 0 and "built-in" in listed.stdout


def test_absa_models_naming_a_folder_says_so(tmp_path):
    done = run_pytest([*ARGS, "--absa-models", str(REPO / "suites")])
    assert done.code == 4, done.out
    one_error_line(done.out, "--absa-models", "is a folder, not a file")


def test_messages_name_the_option_the_user_used(tmp_path):
    for name in ("a.json", "b.json"):
        (tmp_path / name).write_text("{}")
    merged = cli("merge", "a.json", "b.json", "-o", "m.json", "--markdown", "m.json", cwd=tmp_path)
    assert merged.returncode == 2
    line = one_error_line(merged.stderr, "one file")
    assert "--markdown m.json" in line and "--absa-markdown" not in line
    data = tmp_path / "data" / "semeval14"
    data.mkdir(parents=True)
    (data / "Restaurants_Test_Gold.xml").write_text(SEMEVAL)
    (tmp_path / "train.xml").write_text(SEMEVAL.replace("soup", "stew"))
    env_only = subprocess.run([sys.executable, "-m", "absa_checks.cli", "augment", "--input", "train.xml", "--out",
                               str(data / "Restaurants_Test_Gold.xml")], cwd=tmp_path, capture_output=True, text=True,
                              timeout=300, env={**os.environ, "PYTHONPATH": str(REPO),
                                                "ABSA_DATA_DIR": str(tmp_path / "data")})
    assert env_only.returncode == 2, env_only.stderr
    line = one_error_line(env_only.stderr, "an input of this run")
    assert "$ABSA_DATA_DIR" in line and "--data" not in line
    assert (data / "Restaurants_Test_Gold.xml").read_text() == SEMEVAL


@pytest.mark.slow
def test_junitxml_over_an_examples_file_known_only_from_xdist_results_is_not_written(tmp_path):
    """Under pytest-xdist the controller collects nothing: the examples file is learnt from the results,
    before pytest writes its JUnit file, which is then not written (one line, exit 1)."""
    root = project(tmp_path / "p", "mine.examples.data")
    target = root / "suites" / "mine.examples.data"
    before = digest(target)
    done = run_pytest(["suites", "-q", "-n", "1", "--junitxml", "suites/mine.examples.data"], cwd=root)
    assert done.code == 1, done.out
    one_error_line(done.out, "--junitxml", "an input of this run", "(not written)")
    assert digest(target) == before
