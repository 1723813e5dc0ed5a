"""Issue 37's two timings in one run: the cold suite run against the plain-inference floor, and the warm rerun.

    python benchmarks/performance/run_speed.py [--repeat 5] [--sources arts-laptop] [--json run_speed.json]
        [--data ../shared/data] [--checkpoint ../shared/models/minilm-absa-pair-rest] [--no-bytecode]

Each repeat runs, one after the other (interleaved, so all three see the same machine state), as whole
processes from this checkout (PYTHONPATH = this tree):

- floor: benchmarks/performance/plain_inference.py, the same checkpoint predicting the same unique (aspect, sentence)
  pairs of the sources' ARTS files, ordered by token count, batch 64 (model load included);
- cold: `pytest suites/ --absa-data DATA --absa-sources SOURCES --model bert-pt` into an empty cache folder;
- warm: the same command again on the cache the cold run filled (no model load).

It prints best and median of each, cold / floor and warm / floor (on medians, and on each repeat's own
pair), the warm time against the budgets (cold <= 1.15 x floor, warm <= 1.5 s), the load average before and
after, and the cold run's own `timing` (JSON report). Python writes bytecode as on a user's machine (one
untimed warm rerun first compiles the modules, asserts rewritten by pytest included); `--no-bytecode` sets
PYTHONDONTWRITEBYTECODE=1 instead, so every process compiles from source.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ARTS_FILES = {"arts-laptop": "laptop_test_enriched.json", "arts-restaurant": "rest_test_enriched.json"}
COLD_BUDGET, WARM_BUDGET_S = 1.15, 1.5


def timed(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    took = time.perf_counter() - started
    if done.returncode not in (0, 1):  # 1: a gate failed, which is the model's finding, not the run's
        raise SystemExit(f"{' '.join(command[:4])} ... exited {done.returncode}:\n{done.stdout[-3000:]}")
    return took


def summary(values: list[float]) -> dict[str, float]:
    return {"best": min(values), "median": statistics.median(values)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--checkpoint", default=str(ROOT.parent / "shared" / "models" / "minilm-absa-pair-rest"))
    parser.add_argument("--sources", default="arts-laptop", help="ARTS sources, comma-separated")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", default=None, help="write the result here")
    parser.add_argument("--no-bytecode", action="store_true", help="PYTHONDONTWRITEBYTECODE=1 in every process")
    args = parser.parse_args()
    data, sources = Path(args.data).resolve(), args.sources.split(",")
    unknown = [s for s in sources if s not in ARTS_FILES]
    if unknown:
        raise SystemExit(f"--sources: only {', '.join(ARTS_FILES)} (an ARTS file is the floor's input), not {unknown}")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS", "ABSA_DATA_DIR", "PYTHONDONTWRITEBYTECODE")}
    env.update(ABSA_BERT_PT_PATH=args.checkpoint, PYTHONPATH=str(ROOT))
    if args.no_bytecode:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    work = Path(tempfile.mkdtemp(prefix="absa-run-speed-"))
    suite = [sys.executable, "-m", "pytest", "suites/", "-q", "--tb=no", "-p", "no:cacheprovider",
             "--absa-data", str(data), "--absa-sources", ",".join(sources), "--model", "bert-pt"]
    floor = [sys.executable, "benchmarks/performance/plain_inference.py", args.checkpoint,
             *[str(data / "arts" / "arts_testset" / ARTS_FILES[s]) for s in sources], "--batch-size", "64"]
    load_before = os.getloadavg()
    if not args.no_bytecode:  # compile once, untimed (a replay model: no checkpoint needed for that)
        subprocess.run(suite[:-2] + ["--model", "lexicon", "--absa-no-cache", "--absa-report", str(work / "x.json")],
                       cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    times: dict[str, list[float]] = {"floor": [], "cold": [], "warm": []}
    for i in range(args.repeat):
        cache = work / f"cache-{i}"
        times["floor"].append(timed(floor, env))
        times["cold"].append(timed(suite + ["--absa-cache", str(cache), "--absa-report", str(work / "cold.json")], env))
        times["warm"].append(timed(suite + ["--absa-cache", str(cache), "--absa-report", str(work / "warm.json")], env))
        print(f"repeat {i + 1}/{args.repeat}: floor {times['floor'][-1]:.2f} s, cold {times['cold'][-1]:.2f} s, "
              f"warm {times['warm'][-1]:.2f} s", flush=True)
    load_after = os.getloadavg()
    cold_report, warm_report = (json.loads((work / f"{name}.json").read_text())["timing"] for name in ("cold", "warm"))
    found = {name: summary(values) for name, values in times.items()}
    pairs = [c / f for c, f in zip(times["cold"], times["floor"])]
    result = {
        "command": " ".join(suite[2:]), "sources": sources, "repeat": args.repeat, "bytecode": not args.no_bytecode,
        "seconds": found, "all_seconds": times,
        "cold_over_floor": {"median": found["cold"]["median"] / found["floor"]["median"],
                            "best": found["cold"]["best"] / found["floor"]["best"],
                            "per_repeat_median": statistics.median(pairs)},
        "warm_over_floor": found["warm"]["median"] / found["floor"]["median"],
        "budgets": {"cold_over_floor": COLD_BUDGET, "warm_s": WARM_BUDGET_S},
        "met": {"cold": found["cold"]["median"] / found["floor"]["median"] <= COLD_BUDGET,
                "warm": found["warm"]["median"] <= WARM_BUDGET_S},
        "load_average": {"before": load_before, "after": load_after},
        "cold_report_timing": cold_report, "warm_report_timing": warm_report,
    }
    print(f"\n{', '.join(sources)}, {args.repeat} interleaved repeats, bytecode {'written' if not args.no_bytecode else 'off'}; "
          f"load average {load_before[0]:.1f} before, {load_after[0]:.1f} after (1 min)")
    for name in ("floor", "cold", "warm"):
        print(f"  {name:5}  best {found[name]['best']:7.2f} s   median {found[name]['median']:7.2f} s")
    ratio = result["cold_over_floor"]
    print(f"  cold / floor: {ratio['median']:.3f} on medians ({ratio['best']:.3f} on bests, {ratio['per_repeat_median']:.3f} "
          f"median of each repeat's pair); budget {COLD_BUDGET}: {'met' if result['met']['cold'] else 'MISSED'}")
    print(f"  warm: {found['warm']['median']:.2f} s median ({result['warm_over_floor']:.3f} of the floor); budget "
          f"{WARM_BUDGET_S} s: {'met' if result['met']['warm'] else 'MISSED'}")
    predictions = cold_report["predictions"]
    print(f"  cold run's report: wall {cold_report['wall_seconds']:.1f} s, predicting {predictions['seconds']:.1f} s "
          f"({predictions['predicted']} of {predictions['unique_queries']} unique queries in {predictions['model_calls']} calls)")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
