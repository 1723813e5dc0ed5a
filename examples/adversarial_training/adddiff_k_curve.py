"""The ADDDIFF(k) curve of several models, from their JSON reports of `suites/invariance/adddiff_k.yaml`.

    python examples/adversarial_training/adddiff_k_curve.py plain=rest.json augmented=rest-aug.json \
        --source semeval14-restaurant --out docs/images/adddiff_k_restaurant.png

Prints one row per model (fail rate in % for k = 1..5, with 95% intervals) and draws the curves.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def curve(report: dict, source: str) -> dict[int, dict]:
    """k -> the adddiff_k<k> test's fail rate on `source` (value, ci95)."""
    found = {}
    for test in report["tests"]:
        name = test["test"].split("::")[-1]
        if name.startswith("adddiff_k") and test["source"] == source:
            found[int(name[len("adddiff_k"):])] = test["fail_rate"]
    return dict(sorted(found.items()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="+", metavar="NAME=REPORT.json")
    parser.add_argument("--source", required=True)
    parser.add_argument("--out", type=Path, help="a PNG of the curves (needs matplotlib)")
    args = parser.parse_args(argv)
    curves = {}
    for item in args.reports:
        name, _, path = item.partition("=")
        if not path:
            parser.error(f"{item!r}: write NAME=REPORT.json")
        curves[name] = curve(json.loads(Path(path).read_text(encoding="utf-8")), args.source)
        if not curves[name]:
            parser.error(f"{path} has no adddiff_k test on {args.source}; run suites/invariance/adddiff_k.yaml")
    ks = sorted({k for found in curves.values() for k in found})
    print("| model | " + " | ".join(f"k={k}" for k in ks) + " |")
    print("|---|" + "---|" * len(ks))
    for name, found in curves.items():
        cells = [f"{100 * r['value']:.1f} [{100 * r['ci95'][0]:.1f}, {100 * r['ci95'][1]:.1f}]" if k in found
                 and (r := found[k])["n"] else "-" for k in ks]
        print(f"| {name} | " + " | ".join(cells) + " |")
    if args.out:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        figure, axes = plt.subplots(figsize=(5.5, 3.5), dpi=110)
        for name, found in curves.items():
            k = list(found)
            values = [100 * found[i]["value"] for i in k]
            low = [100 * (found[i]["value"] - found[i]["ci95"][0]) for i in k]
            high = [100 * (found[i]["ci95"][1] - found[i]["value"]) for i in k]
            axes.errorbar(k, values, yerr=[low, high], marker="o", capsize=3, label=name)
        axes.set_xlabel("k: opposite-sentiment aspects appended")
        axes.set_ylabel("ADDDIFF fail rate (%)")
        axes.set_xticks(ks)
        axes.set_title(f"ADDDIFF(k) on {args.source}")
        axes.legend()
        figure.tight_layout()
        figure.savefig(args.out)
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
