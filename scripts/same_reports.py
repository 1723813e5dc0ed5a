"""Does a change keep behaviour? Runs the same two runs in two checkouts and compares their JSON reports.

    python scripts/same_reports.py BEFORE_TREE AFTER_TREE [--data ../shared/data]

The runs (issue 26's "behaviour does not change"): the default suites with the offline `lexicon` model, and
the ARTS laptop replay of the published BERT-PT predictions (`--absa-data`, `--absa-sources arts-laptop`).
Each tree runs with its own code (PYTHONPATH = the tree). The reports are compared field by field with
`timing` left out; every other difference is printed by its path, and the exit status is 1 if any remains
outside `--allow` (glob patterns over the paths, list indices written `[*]`, whose difference is expected
and stated, e.g. `cases[*].suite_sha256` when the suite files themselves changed). Differences are shown
grouped by path, with how many there are.
"""
from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path


def run(tree: Path, args: list[str], report: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("ABSA_DATA_DIR", "PYTEST_ADDOPTS", "CI")}
    env["PYTHONPATH"] = str(tree)
    # a checkout from before issue 26 has its plugin at absa_checks/plugin.py: load that one, not the installed
    # entry point's module (which names the current layout)
    old = ["-p", "no:absa_checks", "-p", "absa_checks.plugin"] if (tree / "absa_checks" / "plugin.py").is_file() else []
    done = subprocess.run([sys.executable, "-m", "pytest", "suites/", "-q", "--tb=no", "-p", "no:cacheprovider",
                           "--absa-no-cache", *old, *args, "--absa-report", str(report)], cwd=tree, env=env,
                          capture_output=True, text=True)
    if not report.is_file():
        raise SystemExit(f"{tree}: no report (exit {done.returncode}):\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return json.loads(report.read_text())


def differences(before, after, path: str = "", tolerance: float = 0.0) -> list[str]:
    if isinstance(before, dict) and isinstance(after, dict):
        found = []
        for key in sorted(set(before) | set(after)):
            where = f"{path}.{key}" if path else key
            if key not in before or key not in after:
                found.append(f"{where}: only {'after' if key in after else 'before'}")
            else:
                found += differences(before[key], after[key], where, tolerance)
        return found
    if isinstance(before, list) and isinstance(after, list):
        if len(before) != len(after):
            return [f"{path}: {len(before)} items before, {len(after)} after"]
        return [d for i, (b, a) in enumerate(zip(before, after)) for d in differences(b, a, f"{path}[{i}]", tolerance)]
    if isinstance(before, float) and isinstance(after, float) and abs(before - after) <= tolerance:
        return []
    return [] if before == after else [f"{path}: {str(before)[:80]!r} -> {str(after)[:80]!r}"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "data"))
    parser.add_argument("--allow", action="append", default=[],
                        help="a glob over difference paths (indices as [*]) whose difference is expected")
    parser.add_argument("--tolerance", type=float, default=0.0,
                        help="floats this close are equal (the statistics on scipy move some by ~1e-15)")
    args = parser.parse_args()
    data = Path(args.data).resolve()
    with tempfile.TemporaryDirectory() as work:
        models = Path(work) / "models.yaml"
        csv = data / "arts" / "output" / "laptop_results.csv"
        models.write_text(f"models:\n  bert-pt: {{kind: replay, path: '{csv}', column: bert_pt}}\n")
        runs = {"default suites (lexicon)": [],
                "ARTS laptop replay (published BERT-PT)": ["--absa-data", str(data), "--absa-sources", "arts-laptop",
                                                           "--absa-models", str(models), "--model", "bert-pt"]}
        status = 0
        for name, extra in runs.items():
            reports = [run(tree.resolve(), extra, Path(work) / f"{side}.json")
                       for side, tree in (("before", args.before), ("after", args.after))]
            for report in reports:
                report.pop("timing", None)
            groups: dict[str, list[str]] = {}
            for line in differences(*reports, tolerance=args.tolerance):
                groups.setdefault(re.sub(r"\[\d+\]", "[*]", line.split(": ", 1)[0]), []).append(line)
            unexpected = [path for path in groups if not any(fnmatch.fnmatchcase(path, pattern.replace("[*]", "[[]*[]]")) for pattern in args.allow)]
            print(f"{name}: {reports[1]['summary']['cases']:,} cases; {sum(map(len, groups.values()))} differences "
                  f"outside timing at {len(groups)} paths, {len(unexpected)} not allowed")
            for path, lines in groups.items():
                print(f"  {'' if path in unexpected else 'allowed: '}{path} x{len(lines)}, e.g. {lines[0].split(': ', 1)[1]}")
            status |= bool(unexpected)
    return status


if __name__ == "__main__":
    sys.exit(main())
