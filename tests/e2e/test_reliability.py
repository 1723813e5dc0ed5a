"""Never a silent wrong answer (docs/reliability.md lists every case and its test): interrupted runs,
bad options and paths checked before the run, a failing batch, secrets.

Interrupts are real signals sent to a real pytest subprocess, timed by a model that writes a line per batch.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import install_adapter_package, needs_extra

SUITE = """suite: s
tests:
  - name: adddiff
    strategy: adddiff
    sources: [builtin-restaurant]
    sample: 24
    gates: {max_fail_rate: 1.0}
"""

# A cacheable adapter kind (entry point, as a third party would register it) that is slow on purpose and
# says how far it got: one line per batch in $PROGRESS; with $FAIL_BATCH it raises on that batch.
SLOW_KIND = '''
import os, time
from absa_checks.models.adapters import AdapterKind


class Slow:
    cacheable = True

    def __init__(self, name):
        self.name, self.calls = name, 0

    def describe(self):
        return {"kind": "slow"}

    def fingerprint(self):
        return "slow-" + self.name

    def predict(self, queries):
        self.calls += 1
        if os.environ.get("FAIL_BATCH") == str(self.calls):
            raise RuntimeError("batch %d broke" % self.calls)
        time.sleep(float(os.environ.get("BATCH_SECONDS", "0")))
        with open(os.environ["PROGRESS"], "a") as progress:
            progress.write("%s %d\\n" % (self.name, len(queries)))
        return ["positive" for _ in queries]


KIND = AdapterKind("slow", keys=(), build=lambda spec: Slow(spec.name), inline=lambda rest: {}, inline_form="slow:x")
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    install_adapter_package(tmp_path / "site", "slowkind", SLOW_KIND, "slow")
    root = tmp_path / "project"
    root.mkdir()
    (root / "s.yaml").write_text(SUITE)
    return root


def env_for(project: Path, **extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "ABSA_"))}
    env.update(PYTHONPATH=str(project.parent / "site"), PROGRESS=str(project / "progress.txt"), **extra)
    return env


def pytest_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "s.yaml", "--absa-model", "slow:x",
            "--absa-batch-size", "4", *args]


def batches_done(project: Path, model: str = "") -> int:
    path = project / "progress.txt"
    lines = path.read_text().splitlines() if path.is_file() else []
    return sum(line.startswith(model) for line in lines)


def cached(project: Path) -> int:
    with sqlite3.connect(project / ".absa-cache" / "predictions.sqlite") as db:
        return db.execute("SELECT COUNT(*) FROM predictions").fetchone()[0]


def interrupt(project: Path, sig: int, *args: str, group: bool = False, model: str = "slow:x", batches: int = 2
              ) -> subprocess.CompletedProcess:
    """Start the run, wait until `batches` batches of `model` are predicted, send `sig` (to the whole process
    group, as a terminal's Ctrl-C does, when `group`), and wait for the run to end."""
    process = subprocess.Popen(pytest_command("--absa-report", "r.json", "--absa-markdown", "r.md", *args),
                               cwd=project, env=env_for(project, BATCH_SECONDS="0.4"), stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, start_new_session=group)
    deadline = time.monotonic() + 120
    while batches_done(project, model) < batches and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
    assert process.poll() is None, "the run ended before it could be interrupted"
    os.killpg(process.pid, sig) if group else process.send_signal(sig)
    out, _ = process.communicate(timeout=120)
    return subprocess.CompletedProcess(process.args, process.returncode, out, "")


TWO_CHECKPOINTS = ("--absa-model", "slow:x,slow:y")  # y predicts after x's cases have run


@pytest.mark.parametrize("sig, args, group, after_cases", [
    (signal.SIGINT, (), False, False), (signal.SIGTERM, (), False, False),
    (signal.SIGINT, TWO_CHECKPOINTS, False, True), (signal.SIGTERM, TWO_CHECKPOINTS, False, True),
    (signal.SIGINT, ("-n", "2"), True, False), (signal.SIGINT, ("-n", "2", *TWO_CHECKPOINTS), True, False)],
    ids=["ctrl-c-predicting", "sigterm-predicting", "ctrl-c-after-cases", "sigterm-after-cases",
         "ctrl-c-xdist", "ctrl-c-xdist-after-cases"])
@pytest.mark.slow
def test_an_interrupted_run_reports_partial_beside_the_last_complete_report(project: Path, sig, args, group,
                                                                           after_cases):
    (project / "r.json").write_text('{"complete": true, "previous": "run"}')
    result = interrupt(project, sig, *args, group=group, model="slow:y" if "slow:x,slow:y" in args else "slow:x")
    assert result.returncode != 0, result.stdout[-3000:]
    assert json.loads((project / "r.json").read_text()) == {"complete": True, "previous": "run"}  # untouched
    partial = project / "r.partial.json"
    assert partial.is_file() or not after_cases, result.stdout[-3000:]
    if partial.is_file():  # some cases ran before the interrupt: they are reported, as partial
        report = json.loads(partial.read_text())
        assert report["cases"]
        assert report["complete"] is False and report["stopped"].startswith("interrupted")
        assert report["verdict"]["passed"] is False and report["verdict"]["exit_status"] != 0
        assert (project / "r.partial.md").read_text().startswith("> **Partial run**")
        assert "JSON report of the partial run" in result.stdout
    assert "absa-checks PASSED" not in result.stdout
    assert not (project / "r.md").exists()


def test_predictions_made_before_an_interrupt_are_kept_and_not_made_again(project: Path):
    # the model reports a batch done just before answering it; once the third is reported, the first two
    # have been answered and kept
    interrupt(project, signal.SIGINT, batches=3)
    kept = cached(project)
    assert 8 <= kept < 24  # at least the first two batches, not all of them
    (project / "progress.txt").unlink()
    rerun = subprocess.run(pytest_command("--absa-report", "r.json"), cwd=project, env=env_for(project),
                           capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stdout[-3000:]
    timing = json.loads((project / "r.json").read_text())["timing"]["predictions"]
    assert timing["cache_hits"] == kept and timing["predicted"] == timing["unique_queries"] - kept
    assert json.loads((project / "r.json").read_text())["complete"] is True
    assert not (project / "r.partial.json").exists()


def test_a_failing_batch_fails_only_its_own_cases(project: Path):
    result = subprocess.run(pytest_command("--absa-report", "r.json"), cwd=project,
                            env=env_for(project, FAIL_BATCH="3"), capture_output=True, text=True, timeout=300)
    report = json.loads((project / "r.json").read_text())
    assert result.returncode == 1 and report["verdict"]["passed"] is False
    errored = [c for c in report["cases"] if c["status"] == "error"]
    assert errored and len(errored) < len(report["cases"])  # batch 3's cases only; the others were scored
    assert all("batch 3 broke" in c["reason"] for c in errored)
    assert cached(project) == report["timing"]["predictions"]["unique_queries"] - 4  # every other batch kept


@pytest.mark.parametrize("args, message", [
    (["--absa-data", "no/such/folder"], "--absa-data no/such/folder: no such folder"),
    (["--absa-data", "s.yaml"], "--absa-data s.yaml: no such folder"),
    (["--absa-report", "."], "--absa-report .: is a folder; name a file in it"),
    (["--absa-report", "s.yaml/r.json"], "--absa-report s.yaml/r.json: s.yaml is a file"),
    (["--absa-markdown", "s.yaml/deeper/r.md"], "--absa-markdown s.yaml/deeper/r.md: s.yaml is a file"),
    (["--absa-regression-alpha", "5"], "--absa-regression-alpha 5.0: a significance level is between 0 and 1"),
    (["--absa-regression-alpha", "0"], "--absa-regression-alpha 0.0: a significance level is between 0 and 1"),
    (["--absa-regression-min-effect", "1.5"], "--absa-regression-min-effect 1.5: an ARS drop as a fraction"),
    (["--absa-cache", "s.yaml"], "--absa-cache s.yaml: is a file, not a folder"),
    (["--absa-sample", "0"], "--absa-sample must be at least 1"),
    (["--absa-batch-size", "0"], "--absa-batch-size must be at least 1"),
    (["--absa-models", "nowhere.yaml"], "--absa-models: nowhere.yaml not found"),
], ids=["data-missing", "data-is-a-file", "report-is-a-folder", "report-under-a-file", "markdown-under-a-file",
        "alpha-5", "alpha-0", "min-effect", "cache-is-a-file", "sample-0", "batch-0", "models-file-missing"])
def test_bad_options_and_paths_stop_the_run_before_it_starts(project: Path, args: list[str], message: str):
    result = subprocess.run(pytest_command(*args), cwd=project, env=env_for(project), capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 4, result.stdout[-2000:] + result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    assert batches_done(project) == 0  # nothing was predicted


def test_environment_values_never_reach_a_report_or_an_error(project: Path):
    (project / "secretmodule_abc.py").write_text("def predict(queries):\n    return ['positive' for _ in queries]\n")
    (project / "models.yaml").write_text("models:\n  mine: {kind: python, target: '${MY_TARGET}'}\n"
                                         "  gone: {kind: replay, path: '${MY_PATH}', column: m}\n")
    env = env_for(project, MY_TARGET="secretmodule_abc:predict", MY_PATH="hidden-dir-7f3/preds.csv")
    ran = subprocess.run([sys.executable, "-m", "pytest", "s.yaml", "--absa-model", "mine", "--absa-report", "r.json"],
                         cwd=project, env=env, capture_output=True, text=True, timeout=300)
    text = (project / "r.json").read_text()
    assert "secretmodule_abc:predict" not in text + ran.stdout + ran.stderr
    assert json.loads(text)["run"]["model"]["target"] == "${MY_TARGET}"
    broken = subprocess.run([sys.executable, "-m", "pytest", "s.yaml", "--absa-model", "gone", "--absa-report",
                             "g.json"], cwd=project, env=env, capture_output=True, text=True, timeout=300)
    assert broken.returncode != 0
    everything = broken.stdout + broken.stderr + (project / "g.json").read_text() if (project / "g.json").exists() \
        else broken.stdout + broken.stderr
    assert "hidden-dir-7f3" not in everything and "${MY_PATH}" in everything


@needs_extra("report")
def test_pictures_survive_a_zero_width_interval_side():
    """A rate equal to its interval's end (a mean across checkpoints that all agree) made matplotlib raise
    after the whole run ('xerr must not contain negative values'), losing the Markdown summary."""
    from absa_checks.reports import pictures

    # the bound one ulp above the value, as `mean - hypot(mean - low, 0)` can give
    rate = {"value": 0.1, "k": None, "n": 30, "ci95": [0.10000000000000002, 0.2], "ci_method": "checkpoints"}
    sources = {"s": {"strategies": {"adddiff": {"fail_rate": rate, "original_accuracy": rate,
                                                "variant_accuracy": rate, "n": 30, "units": 30}}}}
    assert pictures.fail_rate_chart(sources).startswith(b"\x89PNG")


def run_in(project: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args], cwd=project,
                          env=env_for(project, **env), capture_output=True, text=True, timeout=300)


def test_a_latin1_suite_is_an_error_naming_file_line_and_encoding(project: Path):
    (project / "s.yaml").write_bytes(SUITE.replace("name: adddiff", "name: adddiff\n    description: caf\xe9")
                                     .encode("latin-1"))
    result = run_in(project, "s.yaml")
    assert result.returncode == 2
    assert "s.yaml:4: not UTF-8 text (byte 0xe9; Latin-1 or Windows-1252?); save the file as UTF-8" in result.stdout
    assert "Traceback" not in result.stdout


def test_a_utf16_suite_with_a_byte_order_mark_is_read(project: Path):
    (project / "s.yaml").write_bytes(SUITE.encode("utf-16"))
    result = run_in(project, "s.yaml", "--absa-report", "r.json")
    assert result.returncode == 0, result.stdout[-2000:]
    assert json.loads((project / "r.json").read_text())["summary"]["cases"] > 0


def test_a_yaml_alias_bomb_is_refused_quickly(project: Path):
    bomb = "suite: s\na: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n" for i in range(8))
    (project / "s.yaml").write_text(bomb + "tests: []\n")
    started = time.monotonic()
    result = run_in(project, "s.yaml")
    assert result.returncode == 2 and time.monotonic() - started < 60
    assert "the YAML expands to more than 200,000 keys and items" in result.stdout


@pytest.mark.parametrize("garbage", [b"this is not a database" * 100, b"SQLite format 3\x00" + b"\x01" * 200],
                         ids=["text", "truncated"])
def test_a_corrupt_cache_is_moved_aside_and_rebuilt(project: Path, garbage: bytes):
    cache = project / ".absa-cache"
    cache.mkdir()
    (cache / "predictions.sqlite").write_bytes(garbage)
    result = run_in(project, *pytest_command()[5:], "--absa-report", "r.json")
    assert result.returncode == 0, result.stdout[-3000:]
    assert "the prediction cache" in result.stdout and "was unreadable" in result.stdout
    assert [p.name.startswith("predictions.sqlite.corrupt-") for p in cache.iterdir()].count(True) == 1
    assert cached(project) == json.loads((project / "r.json").read_text())["timing"]["predictions"]["unique_queries"]


def test_a_baseline_of_another_schema_version_fails_its_gate_with_the_reason(project: Path):
    (project / "old.json").write_text(json.dumps({"schema": "absa-checks/report", "schema_version": 99, "cases": []}))
    result = run_in(project, *pytest_command()[5:], "--absa-baseline", "old.json", "--absa-report", "r.json")
    assert result.returncode == 1
    gate = [g for g in json.loads((project / "r.json").read_text())["gates"] if g["gate"] == "no_regression"][0]
    assert gate["verdict"] == "fail" and "is absa-checks/report version 99" in gate["reason"]


def test_a_source_typo_names_the_collected_sources(project: Path):
    result = run_in(project, "s.yaml", "--absa-sources", "builtin-restaurnt")
    assert result.returncode == 4
    assert ("--absa-sources: no collected test uses builtin-restaurnt (did you mean builtin-restaurant?); the "
            "collected suites use builtin-restaurant") in result.stderr


def test_an_empty_environment_variable_is_not_the_working_directory(project: Path):
    (project / "models.yaml").write_text("models:\n  mine: {kind: replay, path: '${MY_PREDS}', column: m}\n")
    result = run_in(project, "s.yaml", "--absa-model", "mine", MY_PREDS="")
    assert result.returncode == 4
    assert "takes its path from the environment variable MY_PREDS, which is empty" in result.stderr


def test_a_gated_test_without_cases_fails_its_gate_with_the_reason(project: Path):
    """REVNON on sentences with one aspect has nothing to perturb: the gate used to vanish and the run pass."""
    (project / "s.yaml").write_text(SUITE + """  - name: revnon
    strategy: revnon
    sources: [lonely]
    gates: {max_fail_rate: 0.5}
sources:
  lonely:
    examples:
      - {id: a, sentence: "The soup was lovely.", aspect: soup, polarity: positive}
      - {id: b, sentence: "The staff were rude.", aspect: staff, polarity: negative}
""")
    result = run_in(project, *pytest_command()[5:], "--absa-report", "r.json")
    assert result.returncode == 1, result.stdout[-3000:]
    gates = json.loads((project / "r.json").read_text())["gates"]
    empty = [g for g in gates if g["gate"] == "has_cases"]
    assert len(empty) == 1 and empty[0]["verdict"] == "fail" and empty[0]["source"] == "lonely"
    assert "test 'revnon' has gates but no cases on lonely (2 units" in empty[0]["reason"]
    assert "absa-checks FAILED" in result.stdout


@pytest.mark.parametrize("value", [0, -5, "128", 3.5, True])
def test_a_transformers_max_length_out_of_range_is_refused_before_loading(value):
    from absa_checks.common.errors import AdapterError
    from model_adapters.transformers_adapter import TransformersAdapter

    with pytest.raises(AdapterError, match=rf"model 'm': max_length {value!r} is not a whole number of tokens"):
        TransformersAdapter("m", "/nowhere", max_length=value)


@pytest.mark.parametrize("sentence, message", [
    ("The soupy broth was cold.", "'soup' occurs only inside a longer word ('soupy')"),
    ("The soupy soup was cold.", None),  # the whole word is found, not the one inside soupy
])
def test_an_aspect_is_found_as_a_word_not_inside_one(tmp_path: Path, sentence: str, message: str | None):
    from absa_checks.common.errors import AbsaChecksError
    from absa_checks.suites.inline import load_inline
    from absa_checks.suites.spec import parse_suite

    suite = tmp_path / "s.yaml"
    suite.write_text(f"suite: s\nsources:\n  mine:\n    examples:\n      - {{sentence: \"{sentence}\", aspect: soup, "
                     "polarity: negative}\ntests:\n  - {name: t, strategy: adddiff, sources: [mine]}\n")
    if message:
        with pytest.raises(AbsaChecksError, match=re.escape(message)):
            parse_suite(suite, ())
        return
    unit = load_inline(parse_suite(suite, ()).inline_sources["mine"]).units[0]
    target = unit.original.target
    assert (target.start, unit.original.sentence[target.start:target.end]) == (10, "soup")


def test_semeval_conflict_aspects_are_counted_not_dropped_silently():
    from absa_checks.sources import load_dataset
    from conftest import SHARED_DATA

    loaded = load_dataset("semeval14-restaurant", SHARED_DATA)
    conflicts = [i for i in loaded.issues if i.kind == "conflict_polarity"]
    assert len(conflicts) == 14  # grep -c "<aspectTerm [^>]*polarity=\"conflict\"" Restaurants_Test_Gold.xml
    assert all(i.action == "reported" for i in conflicts)


def test_two_tests_running_one_strategy_on_one_source_is_an_error_naming_both(project: Path):
    """Reports count cases per source and strategy: a copied suite would double n and narrow the intervals."""
    (project / "copy.yaml").write_text(SUITE.replace("suite: s", "suite: copy"))
    result = run_in(project, "s.yaml", "copy.yaml")
    assert result.returncode == 2
    assert ("copy.yaml:3: tests 's.yaml::adddiff' and 'copy.yaml::adddiff' both run adddiff on builtin-restaurant; "
            "their cases would be counted twice") in result.stdout
    assert "Traceback" not in result.stdout


def test_a_worker_killed_mid_run_makes_the_run_partial_not_one_other_failure(project: Path):
    """The model kills its process once (os._exit, as the OOM killer would); xdist replaces the worker."""
    (project / "conftest.py").write_text('''
import os

def pytest_runtest_setup(item):
    marker = os.path.join(os.path.dirname(__file__), "killed-once")
    if "gw" in os.environ.get("PYTEST_XDIST_WORKER", "") and not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(1)
''')
    result = run_in(project, *pytest_command()[5:], "-n", "2", "--absa-report", "r.json")
    assert result.returncode != 0
    assert (project / "killed-once").exists() and not (project / "r.json").exists()
    report = json.loads((project / "r.partial.json").read_text())
    assert report["complete"] is False and report["stopped"].startswith("a pytest-xdist worker crashed")
    assert report["verdict"]["passed"] is False
    assert "other tests failed" not in report["verdict"]["reason"]


def test_example_ids_never_collide_with_numbered_variants(tmp_path: Path):
    """Unit "x" with two ADDDIFF variants and unit "x:0": three cases, three names (two used to share "x:0")."""
    from absa_checks.suites.cases import expand
    from absa_checks.suites.inline import load_inline
    from absa_checks.suites.spec import parse_suite

    suite = tmp_path / "s.yaml"
    suite.write_text('''suite: s
sources:
  mine:
    examples:
      - id: x
        sentence: "The soup was lovely."
        aspect: soup
        polarity: positive
        variants:
          adddiff: ["The soup was lovely, but the bread was stale.", "The soup was lovely, but the wine was sour."]
      - id: "x:0"
        sentence: "The tea was cold."
        aspect: tea
        polarity: negative
        variants:
          adddiff: "The tea was cold, but the cake was great."
tests:
  - {name: t, strategy: adddiff, sources: [mine]}
''')
    parsed = parse_suite(suite, ())
    loaded = load_inline(parsed.inline_sources["mine"])
    cases = expand(parsed.tests[0], "mine", loaded.units, {u.unit_id: u.given["adddiff"] for u in loaded.units})
    assert sorted(c.name for c in cases) == ["mine:x#0", "mine:x#1", "mine:x:0"]


@pytest.mark.parametrize("name, text, message", [
    ("bad.xml", b'<sentences><sentence id="1"><text>The caf\xe9 soup.</text></sentence></sentences>',
     "bad.xml: not well-formed XML (not well-formed (invalid token): line 1, column 41)"),
    ("bad.json", b'{"a": {"sentence": "caf\xe9"}}', "bad.json: not valid JSON"),
], ids=["latin1-xml", "latin1-json"])
def test_a_data_file_in_another_encoding_is_one_message(tmp_path: Path, name: str, text: bytes, message: str):
    (tmp_path / name).write_bytes(text)
    done = subprocess.run([sys.executable, "-m", "absa_checks.cli", "generate", "--input", str(tmp_path / name),
                           "--out", str(tmp_path / "o.jsonl")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr


def test_an_oversized_suite_is_refused_before_parsing(project: Path):
    (project / "s.yaml").write_text(SUITE + "# " + "x" * 10_500_000 + "\n")
    result = run_in(project, "s.yaml")
    assert result.returncode == 2
    assert "s.yaml: the file is 10.5 MB; suite and examples files are read up to 10 MB" in result.stdout
