"""Concurrent requests to a served model: the `openai` adapter against a local OpenAI-compatible server
that takes 50 ms per request, sequentially (max_concurrency 1) and 8 at a time.

    python benchmarks/performance/openai_concurrency.py

The same 96 queries (the built-in restaurant sentences' targets), the same adapter and batch size (one
batch of 96), the server on 127.0.0.1 (tests/openai_server.py, backed by the lexicon model); best of two
passes each; the answers are checked to be the same.

The server runs twice: in the benchmark's own process (a thread, as the tests run it: the adapter and the
server then share one interpreter lock) and in a process of its own (as a real endpoint is: only the
adapter's own cost is measured). The exit status is 1 when the separate-process speed-up is under 6x.
"""

from __future__ import annotations

import multiprocessing
import sys
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from openai_server import FakeOpenAI  # noqa: E402

from absa_checks.models.protocol import Query  # noqa: E402
from absa_checks.sources.builtin import load_builtin  # noqa: E402
from model_adapters.openai_adapter import OpenAIAdapter  # noqa: E402


def _serve(connection) -> None:
    """The server in a process of its own: sends its address, serves until told to stop."""
    with FakeOpenAI(delay=0.05) as server:
        connection.send(server.base_url)
        connection.recv()


@contextmanager
def in_thread():
    with FakeOpenAI(delay=0.05) as server:
        yield server.base_url


@contextmanager
def in_process():
    ours, theirs = multiprocessing.Pipe()
    process = multiprocessing.Process(target=_serve, args=(theirs,), daemon=True)
    process.start()
    try:
        yield ours.recv()
    finally:
        ours.send("stop")
        process.join(10)


def measure(base_url: str, queries: list[Query]) -> tuple[dict[int, float], bool]:
    timings, answers = {}, {}
    for concurrency in (1, 8):
        adapter = OpenAIAdapter("served", base_url, "lexicon", max_concurrency=concurrency)
        best = float("inf")
        for _ in range(2):
            started = time.perf_counter()
            answers[concurrency] = adapter.predict(queries)
            best = min(best, time.perf_counter() - started)
        timings[concurrency] = best
    return timings, answers[1] == answers[8]


def main() -> int:
    units = load_builtin("builtin-restaurant").units[:96]
    queries = [Query(u.original.sentence, u.original.target.term, u.original.target.start, u.original.target.end)
               for u in units]
    speedups = {}
    for where, server in (("server in this process (a thread)", in_thread), ("server in its own process", in_process)):
        with server() as base_url:
            timings, same = measure(base_url, queries)
        print(f"{where}:")
        for concurrency, seconds in timings.items():
            print(f"  max_concurrency {concurrency}: {len(queries)} requests in {seconds:.2f} s "
                  f"({len(queries) / seconds:.1f} requests/s)")
        speedups[where] = timings[1] / timings[8]
        print(f"  speed-up {speedups[where]:.2f}x; the same answers: {same}")
        if not same:
            return 1
    return 0 if speedups["server in its own process"] >= 6 else 1


if __name__ == "__main__":
    sys.exit(main())
