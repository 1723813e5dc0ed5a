"""Concurrent requests to a served model: the `openai` adapter against a local OpenAI-compatible server
that takes 50 ms per request, sequentially (max_concurrency 1) and 8 at a time.

    python benchmarks/openai_concurrency.py

The same 96 queries (the built-in restaurant sentences' targets), the same adapter and batch size (one
batch of 96), the server on 127.0.0.1 (tests/openai_server.py, backed by the lexicon model); best of two
passes each; the answers are checked to be the same.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from openai_server import FakeOpenAI  # noqa: E402

from absa_checks.models.protocol import Query  # noqa: E402
from absa_checks.sources.builtin import load_builtin  # noqa: E402
from model_adapters.openai_adapter import OpenAIAdapter  # noqa: E402


def main() -> int:
    units = load_builtin("builtin-restaurant").units[:96]
    queries = [Query(u.original.sentence, u.original.target.term, u.original.target.start, u.original.target.end)
               for u in units]
    timings, answers = {}, {}
    with FakeOpenAI(delay=0.05) as server:
        for concurrency in (1, 8):
            adapter = OpenAIAdapter("served", server.base_url, "lexicon", max_concurrency=concurrency)
            best = float("inf")
            for _ in range(2):
                started = time.perf_counter()
                answers[concurrency] = adapter.predict(queries)
                best = min(best, time.perf_counter() - started)
            timings[concurrency] = best
    for concurrency, seconds in timings.items():
        print(f"max_concurrency {concurrency}: {len(queries)} requests in {seconds:.2f} s "
              f"({len(queries) / seconds:.1f} requests/s)")
    same = answers[1] == answers[8]
    print(f"speed-up {timings[1] / timings[8]:.2f}x; the same answers: {same}")
    return 0 if same and timings[1] / timings[8] >= 6 else 1


if __name__ == "__main__":
    sys.exit(main())
