"""What absa-checks adds on top of the model: suite vs plain batched inference, and cold vs warm.

    python benchmarks/performance/inference_overhead.py [--data ../shared/data] [--checkpoint ../shared/models/minilm-absa-pair-rest]

(a) `pytest suites/ --model bert-pt` over ARTS laptop + restaurant (cache off) against
    benchmarks/performance/plain_inference.py on the same unique queries, same batch size, both timed as whole
    processes (model load included), one after the other, twice, best of each;
(b) a cold run into an empty cache, then a warm run from it;
(c) the queries and model calls each run made (from the JSON report).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def timed(command: list[str], env: dict) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=ROOT, env=env, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--checkpoint", default=str(ROOT.parent / "shared" / "models" / "minilm-absa-pair-rest"))
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    data = Path(args.data)
    env = {**os.environ, "ABSA_BERT_PT_PATH": args.checkpoint}
    work = Path(tempfile.mkdtemp(prefix="absa-bench-"))
    suite = [sys.executable, "-m", "pytest", "suites/", "-q", "--tb=no", "-p", "no:cacheprovider",
             "--absa-data", str(data), "--absa-sources", "arts-laptop,arts-restaurant", "--model", "bert-pt"]
    plain = [sys.executable, "benchmarks/performance/plain_inference.py", args.checkpoint,
             str(data / "arts/arts_testset/laptop_test_enriched.json"),
             str(data / "arts/arts_testset/rest_test_enriched.json"), "--batch-size", "64"]
    suite_times, plain_times = [], []
    for _ in range(args.repeat):  # interleaved, so both see the same machine state
        plain_times.append(timed(plain, env))
        suite_times.append(timed(suite + ["--absa-no-cache", "--absa-report", str(work / "nocache.json")], env))
    cache = ["--absa-cache", str(work / "cache")]
    cold = timed(suite + cache + ["--absa-clear-cache", "--absa-report", str(work / "cold.json")], env)
    warm = timed(suite + cache + ["--absa-report", str(work / "warm.json")], env)
    stats = {name: json.loads((work / f"{name}.json").read_text())["timing"]["predictions"]
             for name in ("nocache", "cold", "warm")}
    result = {"plain_inference_s": min(plain_times), "suite_s": min(suite_times),
              "ratio_suite_over_plain": min(suite_times) / min(plain_times),
              "cold_s": cold, "warm_s": warm, "cold_over_warm": cold / warm, "predictions": stats,
              "all_plain_s": plain_times, "all_suite_s": suite_times}
    print(f"(a) plain batched inference {result['plain_inference_s']:.1f} s; pytest suites/ --model bert-pt "
          f"{result['suite_s']:.1f} s; ratio {result['ratio_suite_over_plain']:.3f}")
    print(f"(b) cold {cold:.1f} s, warm {warm:.1f} s: warm is {result['cold_over_warm']:.1f}x faster")
    for name, s in stats.items():
        print(f"(c) {name:7s}: {s['unique_queries']} unique queries, {s['predicted']} predicted in "
              f"{s['model_calls']} model calls, {s['cache_hits']} from the cache, model loaded: {s['model_loaded']}")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
