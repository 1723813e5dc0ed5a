"""Screen ARTS's published REVTGT and REVNON variants with the checks our own variants must pass.

    python benchmarks/quality/screen_arts.py [--data ../shared/data] [--json out.json]

Each published variant is joined with its SemEval-2014 unit (same id; TOWE opinion spans and the
other aspects' polarities) and run through absa_checks.perturb.screen: the edits are recovered by a
token diff. Prints, per source and strategy, how many would ship and how many each reason would
quarantine (a variant is counted under its first reason). The arts-* sources keep shipping the
published variants as they are, so Table 7 still reproduces; this only measures them.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from absa_checks.perturb.resources import load_resources  # noqa: E402
from absa_checks.perturb.screen import screen  # noqa: E402
from absa_checks.sources import load_dataset  # noqa: E402

PAIRS = {"arts-laptop": ("semeval14-laptop", "laptop"), "arts-restaurant": ("semeval14-restaurant", "restaurant")}


def measure(data: Path) -> dict:
    results = {}
    for arts, (semeval, domain) in PAIRS.items():
        resources = load_resources(domain)
        annotated = {u.unit_id: u for u in load_dataset(semeval, data).units}
        for strategy in ("revtgt", "revnon"):
            counts, reasons = Counter(), Counter()
            for unit in load_dataset(arts, data).units:
                for variant in unit.given.get(strategy, ()):
                    ours = annotated.get(unit.unit_id)
                    if ours is None or ours.original.sentence.strip() != unit.original.sentence.strip():
                        counts["not screened (no matching SemEval unit)"] += 1
                        continue
                    found = screen(ours.original, variant.example.sentence, strategy, resources)
                    counts["would ship" if not found else "would quarantine"] += 1
                    if found:
                        reasons[found[0][0]] += 1
            results[f"{arts}/{strategy}"] = {"counts": dict(counts), "quarantined_by_reason": dict(reasons)}
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[3] / "shared" / "data"))
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    results = measure(Path(args.data))
    for name, r in results.items():
        total = sum(r["counts"].values())
        print(f"{name}: {total} published; " + ", ".join(f"{k} {v}" for k, v in sorted(r["counts"].items())))
        for reason, n in sorted(r["quarantined_by_reason"].items(), key=lambda item: -item[1]):
            print(f"    {n:4d} x {reason}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
