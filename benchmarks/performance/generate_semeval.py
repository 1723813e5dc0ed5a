"""Benchmark: generate REVTGT, REVNON and ADDDIFF over both SemEval-2014 test sets (with TOWE opinions).

    python benchmarks/performance/generate_semeval.py [--data ../shared/data] [--repeat 2] [--json out.json]

Reports wall time per step (loading WordNet and the tagger, loading the data, generating) and the
coverage: REVTGT attempted for every opinion-annotated target and how many ship, REVNON and ADDDIFF
shipped, and every quarantine by reason. Each repeat runs in the same process (the second shows the
warm cost). The last line says whether run 1 met the 15 s budget, and under what load.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from absa_checks.common.examples import Variant  # noqa: E402
from absa_checks.perturb.engine import Quarantined, Settings, generate  # noqa: E402
from absa_checks.perturb.resources import load_resources  # noqa: E402
from absa_checks.sources import load_dataset  # noqa: E402

SOURCES = {"semeval14-laptop": "laptop", "semeval14-restaurant": "restaurant"}
STRATEGIES = ("revtgt", "revnon", "adddiff")
BUDGET_S = 15.0  # run 1, in a new process (docs/performance.md); measured here, not asserted by a test


def measure(data: Path) -> dict:
    timings, results = {}, {}
    started = time.perf_counter()
    resources = {domain: load_resources(domain) for domain in SOURCES.values()}
    timings["resources_s"] = time.perf_counter() - started
    step = time.perf_counter()
    loaded = {name: load_dataset(name, data) for name in SOURCES}
    timings["load_data_s"] = time.perf_counter() - step
    step = time.perf_counter()
    for name, source in loaded.items():
        domain = SOURCES[name]
        annotated = {u.unit_id for u in source.units
                     if any(o.aspect == 0 and not o.inferred for o in u.original.opinions)}
        counts: dict[str, Counter] = {s: Counter() for s in STRATEGIES}
        reasons: dict[str, Counter] = {s: Counter() for s in STRATEGIES}
        for unit in source.units:
            for strategy in STRATEGIES:
                outcome = generate(unit, strategy, Settings(seed=0), resources[domain], domain)
                kind = {Variant: "accepted", Quarantined: "quarantined"}.get(type(outcome), "not_applicable")
                counts[strategy][kind] += 1
                if unit.unit_id in annotated:
                    counts[strategy][kind + "_annotated"] += 1
                if isinstance(outcome, Quarantined):
                    reasons[strategy][outcome.reason] += 1
        neutral = sum(u.original.polarity == "neutral" for u in source.units if u.unit_id in annotated)
        results[name] = {"units": len(source.units), "opinion_annotated_targets": len(annotated),
                         "neutral_annotated_targets": neutral,
                         "counts": {s: dict(c) for s, c in counts.items()},
                         "quarantined_by_reason": {s: dict(r) for s, r in reasons.items()}}
    timings["generate_s"] = time.perf_counter() - step
    timings["total_s"] = time.perf_counter() - started
    return {"timings": timings, "results": results}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[3] / "shared" / "data"))
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    runs = [measure(Path(args.data)) for _ in range(args.repeat)]
    first = runs[0]
    for name, r in first["results"].items():
        revtgt = r["counts"]["revtgt"]
        attempted = revtgt.get("accepted_annotated", 0) + revtgt.get("quarantined_annotated", 0)
        accepted = revtgt.get("accepted_annotated", 0)
        print(f"{name}: {r['units']} units, {r['opinion_annotated_targets']} opinion-annotated targets"
              f" ({r['neutral_annotated_targets']} neutral: skipped by REVTGT's default)")
        print(f"  revtgt  attempted {attempted}, accepted {accepted} ({100 * accepted / attempted:.2f}%)"
              f" [+{revtgt.get('accepted', 0) - accepted} on inferred opinions]")
        print(f"  revnon  accepted {r['counts']['revnon'].get('accepted', 0)}")
        print(f"  adddiff accepted {r['counts']['adddiff'].get('accepted', 0)} of {r['units']}")
        for strategy, reasons in r["quarantined_by_reason"].items():
            for reason, n in sorted(reasons.items(), key=lambda item: -item[1]):
                print(f"    {strategy} quarantined {n:3d} x {reason}")
    for i, run in enumerate(runs, 1):
        t = run["timings"]
        print(f"run {i}: total {t['total_s']:.2f} s = resources {t['resources_s']:.2f} + data {t['load_data_s']:.2f}"
              f" + generate {t['generate_s']:.2f}")
    total = runs[0]["timings"]["total_s"]
    print(f"budget: {BUDGET_S:.0f} s for run 1 (a new process): {'met' if total <= BUDGET_S else 'MISSED'}"
          f" ({total:.2f} s on {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f})")
    if args.json:
        Path(args.json).write_text(json.dumps({"python": platform.python_version(), "runs": runs}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
