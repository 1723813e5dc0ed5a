"""How fast the `openai` adapter lets go of a bad server (issue 24, mechanism 5):

1. a reply trickled one byte every 0.5 s (tests/openai_server.py's "trickle" fault), `timeout: 3`,
   `retries: 0`: seconds until the request gives up (it used to take 25 s);
2. a pytest run (`--absa-model good,stuck`: the first checkpoint's cases run, the second's server never
   answers, `timeout: 600`, `retries: 4`) sent SIGTERM, then one sent SIGINT (Ctrl-C), once every worker
   thread waits on the server: seconds from the signal to the end of the process (it used to be over a
   minute), its exit status and whether the partial report was written.

    python benchmarks/performance/openai_deadlines.py

Each figure is the worst of three runs; a run that has not ended 120 s after the signal is killed and
counted as hung, never dropped.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from importlib.metadata import entry_points
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from openai_server import FakeOpenAI  # noqa: E402

from absa_checks.models.protocol import Query  # noqa: E402
from model_adapters.openai_adapter import OpenAIAdapter  # noqa: E402

SUITE = """suite: served
tests:
  - name: adddiff
    strategy: adddiff
    sources: [builtin-restaurant]
    sample: 6
"""
SENTENCE = "The fries were soggy."


def _plugin_args() -> list[str]:
    installed = any(ep.name == "absa_checks" for ep in entry_points(group="pytest11"))
    return [] if installed else ["-p", "absa_checks.pytest_plugin.plugin"]


def trickle_seconds() -> float:
    with FakeOpenAI() as server:
        server.always = "trickle"
        adapter = OpenAIAdapter("served", server.base_url, "lexicon", timeout=3, retries=0)
        started = time.perf_counter()
        answer = adapter.predict([Query(SENTENCE, "fries", 4, 9)])[0]
        took = time.perf_counter() - started
    assert "no complete reply within timeout 3 s" in getattr(answer, "message", ""), answer
    return took


HANG = 120  # seconds after the signal before a run counts as hung (and is killed)


def signal_seconds(sig: int) -> tuple[float, int, bool]:
    with tempfile.TemporaryDirectory() as folder, FakeOpenAI() as good, FakeOpenAI() as stuck:
        project = Path(folder)
        stuck.always = "hang"
        (project / "pytest.ini").write_text("[pytest]\n")
        (project / "suite.yaml").write_text(SUITE)
        (project / "models.yaml").write_text(
            "models:\n"
            f"  good: {{kind: openai, base_url: '{good.base_url}', model: lexicon}}\n"
            f"  stuck: {{kind: openai, base_url: '{stuck.base_url}', model: lexicon, timeout: 600, retries: 4, "
            "max_concurrency: 4}\n")
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        process = subprocess.Popen(
            [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *_plugin_args(), "suite.yaml",
             "--absa-model", "good,stuck", "--absa-report", "r.json"],
            cwd=project, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while stuck.requests < 4 and process.poll() is None:
            time.sleep(0.02)
        if process.poll() is not None:
            raise SystemExit(f"the run ended (exit {process.returncode}) before it reached the hanging server")
        time.sleep(0.5)  # every worker thread is now blocked reading
        started = time.perf_counter()
        process.send_signal(sig)
        try:
            code = process.wait(timeout=HANG)
        except subprocess.TimeoutExpired:  # counted as a hang, never hidden: the figure says so
            process.kill()
            process.wait()
            return float("inf"), -9, False
        took = time.perf_counter() - started
        partial = project / "r.partial.json"
        written = partial.is_file() and json.loads(partial.read_text())["complete"] is False
    return took, code, written


def main() -> int:
    trickle = max(trickle_seconds() for _ in range(3))
    print(f"trickled reply, timeout 3 s: gave up after {trickle:.2f} s (worst of 3)")
    for name, sig in (("SIGTERM", signal.SIGTERM), ("Ctrl-C (SIGINT)", signal.SIGINT)):
        runs = [signal_seconds(sig) for _ in range(3)]
        worst = max(r[0] for r in runs)
        hung = sum(r[0] == float("inf") for r in runs)
        if hung:
            print(f"{name}: {hung} of 3 runs did NOT end within {HANG} s of the signal (killed)")
            worst = max(r[0] for r in runs if r[0] != float("inf")) if hung < 3 else float("nan")
        print(f"{name} while waiting on a hanging server: the run ended {worst:.2f} s after the signal (worst of 3); "
              f"exit statuses {sorted({r[1] for r in runs})}; partial report written: {all(r[2] for r in runs)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
