"""Progress while a model predicts: the display's rules on a fake clock, the xdist sum, and real terminals.

The terminal tests run pytest under `script` (a pseudo-terminal, as a user sees it) or with a pipe (a CI
log), with a Python model that sleeps per batch so the prediction takes a known while.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from absa_checks.models.progress import (
    PLAIN_INTERVAL,
    FileProgress,
    Progress,
    ProgressDisplay,
    ProgressWatcher,
    combine,
    duration,
    progress_line,
)
from conftest import PAIR_MODEL, REPO, needs_extra, needs_shared_models, run_pytest


class Recorder:
    """A Lines that keeps what a terminal would show, event by event."""

    def __init__(self, accept_rewrites: bool = True):
        self.events: list[tuple[str, str]] = []
        self.accept_rewrites = accept_rewrites

    def write(self, text: str) -> None:
        self.events.append(("line", text))

    def rewrite(self, text: str) -> bool:
        if not self.accept_rewrites:
            return False
        self.events.append(("rewrite", text))
        return True

    def close(self) -> None:
        self.events.append(("close", ""))


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_line_says_done_total_rate_and_eta():
    assert progress_line(Progress("bert-pt", 12288, 22870, 128.0)) == \
        "absa-checks: bert-pt: 12,288/22,870 inputs, 96/s, ETA 1m 50s"
    assert progress_line(Progress("bert-pt", 22870, 22870, 238.2, finished=True)) == \
        "absa-checks: bert-pt: 22,870 inputs predicted in 3m 58s (96/s)"
    assert progress_line(Progress("m", 0, 10, 0.0)).endswith("0/10 inputs, 0/s, ETA unknown")
    assert duration(3725) == "1h 02m" and duration(59.4) == "59s"


def test_live_lines_are_rewritten_at_most_every_fifth_of_a_second_and_closed_once():
    lines, clock = Recorder(), Clock()
    display = ProgressDisplay(lines, live=True, clock=clock)
    display.loading("m", "transformers, /ckpt")
    for done, when in ((10, 0.0), (20, 0.1), (30, 0.25), (40, 0.3)):
        clock.now = when
        display.show(Progress("m", done, 100, when + 0.1))
    display.show(Progress("m", 100, 100, 1.0, finished=True))
    kinds = [(kind, text.split(": ", 2)[-1]) for kind, text in lines.events]
    assert kinds == [("line", "loading model 'm' (transformers, /ckpt)"),
                     ("rewrite", "10/100 inputs, 100/s, ETA 1s"), ("rewrite", "30/100 inputs, 86/s, ETA 1s"),
                     ("rewrite", "100 inputs predicted in 1s (100/s)"), ("close", "")]


def test_a_log_gets_a_line_every_ten_seconds_and_a_closing_line_only_after_one():
    lines, clock = Recorder(), Clock()
    display = ProgressDisplay(lines, live=False, clock=clock)
    for second in range(0, 25):
        clock.now = float(second)
        display.show(Progress("m", second * 10, 300, float(second)))
    display.show(Progress("m", 300, 300, 25.0, finished=True))
    written = [text for kind, text in lines.events if kind == "line"]
    assert written == ["absa-checks: m: 100/300 inputs, 10/s, ETA 20s", "absa-checks: m: 200/300 inputs, 10/s, ETA 10s",
                       "absa-checks: m: 300 inputs predicted in 25s (12/s)"]
    assert PLAIN_INTERVAL == 10.0
    short = Recorder()
    quick = ProgressDisplay(short, live=False, clock=clock)
    quick.show(Progress("m", 5, 10, 1.0))
    quick.show(Progress("m", 10, 10, 2.0, finished=True))
    assert short.events == []  # a prediction shorter than the interval leaves a log alone


def test_when_someone_else_writes_on_the_live_line_the_display_goes_on_in_plain_lines():
    lines, clock = Recorder(accept_rewrites=False), Clock()
    display = ProgressDisplay(lines, live=True, clock=clock)
    display.show(Progress("m", 10, 100, 1.0))
    clock.now = 1.0  # within the plain interval: no new line
    display.show(Progress("m", 20, 100, 2.0))
    clock.now = 11.0
    display.show(Progress("m", 90, 100, 11.0))
    assert [text.split(": ", 2)[-1] for kind, text in lines.events if kind == "line"] == [
        "10/100 inputs, 10/s, ETA 9s", "90/100 inputs, 8/s, ETA 1s"]


def test_the_controller_shows_the_sum_of_its_workers_and_closes_each_checkpoint_once(tmp_path):
    gw0, gw1 = FileProgress(tmp_path, "gw0"), FileProgress(tmp_path, "gw1")
    gw0.loading("m", "transformers, /ckpt")
    gw0.update(Progress("m", 64, 200, 2.0))
    gw1.update(Progress("m", 32, 100, 3.0))
    lines = Recorder()
    watcher = ProgressWatcher(tmp_path, ProgressDisplay(lines, live=True, clock=Clock()))
    watcher.poll_once()
    assert lines.events == [("line", "absa-checks: loading model 'm' (transformers, /ckpt)"),
                            ("rewrite", "absa-checks: m: 96/300 inputs, 32/s, ETA 6s")]
    assert combine([Progress("m", 1, 2, 1.0, True), Progress("m", 1, 2, 2.0, False)]).finished is False
    gw0.update(Progress("m", 200, 200, 4.0, finished=True))
    gw1.update(Progress("m", 100, 100, 5.0, finished=True))
    watcher.poll_once()
    watcher.poll_once()
    assert lines.events[2:] == [("rewrite", "absa-checks: m: 300 inputs predicted in 5s (60/s)"), ("close", "")]


SUITE = """
suite: progress
tests:
  - name: adddiff
    strategy: adddiff
    sources: [builtin-restaurant]
"""

SLOW_MODEL = '''
import sys
import time


def predict(queries):
    if not getattr(predict, "spoke", False):  # one line of the model's own: pytest captures it
        print("the slow model says hello", file=sys.stderr)
        predict.spoke = True
    time.sleep({pause})
    return ["positive" for _ in queries]
'''


def project(tmp_path: Path, pause: float) -> Path:
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "suite.yaml").write_text(SUITE)
    (tmp_path / "slow.py").write_text(SLOW_MODEL.format(pause=pause))
    return tmp_path


def on_terminal(folder: Path, *args: str, env: dict | None = None) -> str:
    """pytest under a pseudo-terminal; its output as the terminal received it (carriage returns kept)."""
    script = shutil.which("script")
    assert script, "util-linux's script is needed to give pytest a real terminal"
    command = " ".join([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "suite.yaml",
                        "--absa-model", "python:slow:predict", "--absa-batch-size", "16", *args])
    extra = env
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_ADDOPTS", "PYTEST_XDIST_WORKER")}
    env.update(COLUMNS="120", PYTHONPATH=str(REPO), **(extra or {}))
    done = subprocess.run([script, "-q", "-e", "-c", command, "/dev/null"], cwd=folder, env=env,
                          capture_output=True, timeout=300)
    return done.stdout.decode("utf-8", "replace").replace("\r\n", "\n")


def live_lines(output: str) -> list[str]:
    """Each state the live line went through (the text after each carriage return)."""
    return [part.strip() for line in output.split("\n") for part in line.split("\r")[1:]
            if part.startswith("absa-checks:")]


def progress_states(output: str) -> list[str]:
    """Every progress text on screen, live or plain, in order."""
    return [part.split("\x1b")[0].strip() for line in output.split("\n") for part in line.split("\r")
            if part.startswith("absa-checks: python")]


def test_a_terminal_shows_one_live_line_outside_the_captured_output(tmp_path):
    # 764 inputs in batches of 16 at 40 ms each: about 2 s of prediction
    output = on_terminal(project(tmp_path, 0.04), "-rA")
    states = live_lines(output)
    assert len(states) >= 5, output[:3000]
    assert states[0].startswith("absa-checks: python:slow:predict: 16/764 inputs, ")
    assert all(" inputs, " in s and "/s, ETA " in s for s in states[:-1])
    assert states[-1].startswith("absa-checks: python:slow:predict: 764 inputs predicted in ")
    counts = [int(s.split(": ")[2].split("/")[0].replace(",", "")) for s in states[:-1]]
    assert counts == sorted(counts)
    # -rA shows the captured output of the test that waited for the predictions: the model's own line
    # is there, the progress is not
    captured = output[output.index("Captured stderr setup"):]
    assert "the slow model says hello" in captured and "absa-checks: python:slow" not in captured
    assert output.count("the slow model says hello") == 1
    # pytest's own line for the file goes on after the progress block (a case that met its expectation adds
    # no letter without -v: the line holds only the file's name and its percentage)
    after = output[output.index("inputs predicted in"):]
    assert after.split("\n")[1].startswith("suite.yaml \x1b[32m") and "[100%]" in after.split("\n")[1]


@pytest.mark.slow
def test_two_workers_show_their_sum_on_the_controller(tmp_path):
    temporary = tmp_path / "tmp"  # the run's own temporary folder: other tests' runs do not touch it
    temporary.mkdir()
    output = on_terminal(project(tmp_path, 0.04), "-n", "2", env={"TMPDIR": str(temporary)})
    assert list(temporary.glob("absa-progress-*")) == []  # the workers' files are gone
    states = progress_states(output)
    # a Python model's answers are not cached, so each worker predicts all 764 inputs: the sum is 1,528
    assert any(s.startswith("absa-checks: python:slow:predict: 1,528 inputs predicted in ") for s in states), output
    assert all("/1,528 inputs" in s for s in states if "predicted in" not in s)
    assert "passed" in output


@pytest.mark.slow
def test_quiet_runs_and_logs_get_no_live_line(tmp_path):
    folder = project(tmp_path, 0.04)
    quiet = on_terminal(folder, "-q")
    assert live_lines(quiet) == [] and "absa-checks: python:slow" not in quiet  # under 10 s: nothing
    # a CI log (a pipe, not a terminal), 12 s of prediction: plain lines about every 10 s, then the last
    (folder / "slow.py").write_text(SLOW_MODEL.format(pause=0.25))
    log = run_pytest(["suite.yaml", "--absa-model", "python:slow:predict", "--absa-batch-size", "16"], cwd=folder)
    lines = [line for line in log.out.splitlines() if line.startswith("absa-checks: python:slow")]
    assert "\r" not in log.out
    assert 2 <= len(lines) <= 3, log.out[:3000]
    assert "/764 inputs, " in lines[0] and lines[-1].startswith("absa-checks: python:slow:predict: 764 inputs predicted")


@pytest.mark.parametrize("workers", [[], ["-n", "2"]])
def test_a_project_without_suites_gets_no_progress_folder(tmp_path, workers):
    (tmp_path / "test_plain.py").write_text(textwrap.dedent("""
        def test_one():
            assert True
    """))
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    result = run_pytest([*workers, "test_plain.py"], cwd=tmp_path, env={"TMPDIR": str(temporary)})
    assert result.code == 0
    assert list(temporary.glob("absa-*")) == []  # nothing of absa-checks (pytest keeps its own there)


@pytest.mark.slow
@needs_extra("transformers")
@needs_shared_models
def test_loading_a_checkpoint_is_one_line_and_transformers_bars_stay_out_of_the_tests_output(tmp_path):
    result = run_pytest(["suites/invariance/adddiff.yaml", "--absa-model", f"transformers:{PAIR_MODEL}",
                         "--absa-sources", "builtin-restaurant", "--absa-sample", "5", "--absa-no-cache", "-rA"])
    assert result.out.count(f"absa-checks: loading model 'transformers:{PAIR_MODEL}' (transformers, {PAIR_MODEL})") == 1
    assert "Loading weights" not in result.out and "Captured stderr" not in result.out
