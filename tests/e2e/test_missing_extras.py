"""Without an optional extra (torch and transformers are not in `pip install -e ".[test]"`): a run with a model
that needs it stops before it starts with one line naming the extra, and the project's own tests that need it
are skipped naming it (a failure when ABSA_REQUIRE_EXTRAS=1, as in CI, which installs every extra).

A module is made missing in a subprocess by wrapping every finder on `sys.meta_path` so that it finds no
spec for it: importing it then fails and `importlib.util.find_spec` returns None, as when it is not
installed. (Not `sys.modules[name] = None`: libraries that look a module up in `sys.modules`, as scipy does
for torch, then find None there and break, which no real install does.)"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import EXTRAS, REPO, REQUIRE_EXTRAS, _plugin_args

TIMEOUT = 300  # a liveness bound only: each run here stops before its first case


def named_missing(made_missing: tuple[str, ...]) -> str:
    """How the error names the transformers extra's modules missing in the subprocess: those made missing
    there and those not installed here at all (in a venv with only .[test], all of them)."""
    from absa_checks.models.adapters import missing_modules

    absent = set(made_missing) | set(missing_modules(EXTRAS["transformers"]))
    return ", ".join(m for m in EXTRAS["transformers"] if m in absent)


def pytest_without(modules: tuple[str, ...], args: list[str], cwd: Path = REPO, env: dict | None = None):
    """`pytest ARGS` in a subprocess where `modules` cannot be imported."""
    shim = (f"import sys\nHIDDEN = {list(modules)!r}\n"
            "class Hide:\n"
            "    def __init__(self, finder): self.finder = finder\n"
            "    def __getattr__(self, name): return getattr(self.finder, name)\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name.split('.')[0] in HIDDEN: return None\n"
            "        return self.finder.find_spec(name, path, target)\n"
            "sys.meta_path[:] = [Hide(f) for f in sys.meta_path]\n"
            "import pytest\nsys.exit(pytest.main(sys.argv[1:]))")
    full_env = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_ADDOPTS", REQUIRE_EXTRAS):
        full_env.pop(name, None)
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-c", shim, "-p", "no:cacheprovider", *_plugin_args(), *args], cwd=cwd,
                          env=full_env, capture_output=True, text=True, timeout=TIMEOUT)


@pytest.mark.parametrize("missing", [("torch",), ("transformers",), ("torch", "transformers", "safetensors")])
@pytest.mark.parametrize("model", ["transformers:{ckpt}", "transformers-tagger:{ckpt}", "mine", "mine,mine-too"])
def test_a_model_whose_extra_is_missing_stops_the_run_with_one_line_naming_the_extra(tmp_path, missing, model):
    checkpoint = tmp_path / "ckpt"
    checkpoint.mkdir()
    (tmp_path / "models.yaml").write_text(
        "models:\n  mine: {kind: transformers, path: '${MY_CKPT}'}\n  mine-too: {kind: transformers, path: '${MY_CKPT}'}\n")
    done = pytest_without(missing, [str(REPO / "suites" / "invariance" / "adddiff.yaml"), "-q",
                                    "--absa-models", str(tmp_path / "models.yaml"),
                                    "--absa-model", model.format(ckpt=checkpoint)], env={"MY_CKPT": str(checkpoint)})
    out = done.stdout + done.stderr
    assert done.returncode == 4, out[-3000:]
    lines = [line for line in out.splitlines() if line.strip()]
    assert len(lines) == 1, out[-3000:]
    assert f"needs {named_missing(missing)}, not installed here: pip install -e '.[transformers]'" in lines[0]
    assert "absa-checks[transformers]" in lines[0] and "Traceback" not in out and "ModuleNotFoundError" not in out


def test_a_model_whose_extra_is_missing_stops_an_xdist_run_before_it_starts(tmp_path):
    pytest.importorskip("xdist", reason="pytest-xdist is part of the test extras: pip install -e '.[test]'")
    done = pytest_without(("torch",), [str(REPO / "suites" / "invariance" / "adddiff.yaml"), "-q", "-n", "2",
                                       "--absa-model", f"transformers:{tmp_path}"])
    out = done.stdout + done.stderr
    assert done.returncode == 4 and "Traceback" not in out, out[-3000:]
    assert out.count(f"needs {named_missing(('torch',))}, not installed here: pip install -e '.[transformers]'") == 1


def test_models_of_other_kinds_run_without_the_extra(tmp_path):
    done = pytest_without(EXTRAS["transformers"], [str(REPO / "suites" / "invariance" / "adddiff.yaml"), "-q",
                                                   "--tb=no", "--absa-sources", "builtin-restaurant",
                                                   "--absa-model", "lexicon"])
    out = done.stdout + done.stderr
    assert done.returncode in (0, 1) and ("absa-checks PASSED" in out or "absa-checks FAILED" in out), out[-3000:]
    assert "not installed here" not in out and "cases" in out


TEST_OF_THE_REPORT_EXTRA = "tests/e2e/test_reliability.py::test_pictures_survive_a_zero_width_interval_side"


def test_a_project_test_whose_extra_is_missing_is_skipped_naming_the_extra():
    done = pytest_without(("matplotlib",), [TEST_OF_THE_REPORT_EXTRA, "-rs"])
    assert done.returncode == 0, done.stdout[-3000:]
    assert "1 skipped" in done.stdout
    assert "needs the report extra (matplotlib not installed): pip install -e '.[report]'" in done.stdout


def test_with_require_extras_a_missing_extra_fails_the_test_instead():
    done = pytest_without(("matplotlib",), [TEST_OF_THE_REPORT_EXTRA, "-rE"], env={REQUIRE_EXTRAS: "1"})
    assert done.returncode == 1, done.stdout[-3000:]
    assert "1 error" in done.stdout and "skipped" not in done.stdout and "pip install -e '.[report]'" in done.stdout
    assert f"{REQUIRE_EXTRAS}=1" in done.stdout


def test_with_the_extra_installed_the_test_runs():
    done = pytest_without((), [TEST_OF_THE_REPORT_EXTRA], env={REQUIRE_EXTRAS: "1"})
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout[-3000:]


def test_every_test_that_runs_a_transformers_model_is_marked():
    """A test file that names a transformers kind or points models.yaml's bert-* entries at a checkpoint, or
    imports torch or transformers, carries needs_extra("transformers"): a guard for tests added later."""
    reading_names_only = {"e2e/test_missing_extras.py", "conftest.py", "reports/test_terminal.py"}  # names, runs none
    needs = ("transformers:", "transformers-tagger:", "import torch", "from transformers", "ABSA_BERT_")
    for path in sorted((REPO / "tests").rglob("*.py")):
        text, name = path.read_text(), path.relative_to(REPO / "tests").as_posix()
        if name in reading_names_only or not any(n in text for n in needs):
            continue
        assert 'needs_extra("transformers")' in text, f"{name} runs a transformers model: mark it"


def check_extra_skips(extra: str, output: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(REPO / ".ci" / "check_extra_skips.py"), extra], input=output,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.slow
def test_the_ci_check_accepts_the_transformers_tests_skipped_without_the_extra_and_nothing_else():
    """.ci/run's acceptance step, on the real output of the selection it runs in a venv without torch."""
    done = pytest_without(EXTRAS["transformers"], ["-q", "-rs", "-m", "needs_extra(extra='transformers')", "tests/"])
    assert done.returncode == 0, done.stdout[-3000:]
    assert check_extra_skips("transformers", done.stdout).returncode == 0
    assert check_extra_skips("report", done.stdout).returncode == 1  # not skipped naming *that* extra
    ran = pytest_without((), ["-q", "-rs", TEST_OF_THE_REPORT_EXTRA])  # a selected test that ran: not accepted
    assert "1 passed" in ran.stdout and check_extra_skips("report", ran.stdout).returncode == 1
    other = done.stdout.replace("needs the transformers extra", "needs the checkpoint", 1)
    refused = check_extra_skips("transformers", other)
    assert refused.returncode == 1 and "does not name the transformers extra" in refused.stderr
