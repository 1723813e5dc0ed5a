"""What the frozen sets cost the stock run's collection (issue 36: at most 1 s more than without them).

    python benchmarks/performance/frozen_collection.py [--repeat 5]      # needs the public data (ABSA_SHARED_DIR or ../shared)

Times `pytest suites/ --collect-only -q --absa-data DATA` (a warm cache folder, filled by one run first; best of N
and median) for
- `shipped`: the suites as they are (REVTGT, REVNON and ADDDIFF read the frozen files of suites/frozen/ for the
  SemEval-2014 and MAMS sources, and ARTS's audit files),
- `without`: the same suites with their `frozen:` and `audited:` mappings taken out (a copy in a temporary folder:
  the generator's variants on every source, as before issue 36): the fairest baseline, the same run minus the files,
- `live`: the suites as they are with `--absa-variants live` (the option that leaves the files aside),
and counts the items each collects. The numbers in docs/performance.md ("Frozen sets: collection") come from here.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("ABSA_SHARED_DIR", ROOT.parent / "shared")) / "data"


def without_files(suites: Path) -> None:
    """Every `variants:` block that names frozen or audited files replaced by the default (auto)."""
    for path in suites.rglob("*.yaml"):
        text = path.read_text(encoding="utf-8")
        stripped = re.sub(r"\n(\s+)variants:.*\n(?:\1\s+.*\n)+", "\n", text)
        if stripped != text:
            path.write_text(stripped, encoding="utf-8")


def collect(root: Path, cache: Path, *more: str) -> tuple[float, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ABSA_DATA_DIR", "PYTEST_ADDOPTS", "CI")}
    env.update(PYTHONPATH=str(ROOT), COLUMNS="80")
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "suites/", "-p", "no:cacheprovider", "--collect-only",
                           "-q", "--absa-data", str(DATA), "--absa-cache", str(cache), *more], cwd=root, env=env,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(done.stdout[-2000:] + done.stderr[-2000:])
    return time.perf_counter() - started, done.stdout.strip().splitlines()[-1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        copy = Path(work) / "project"
        shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(".git", ".venv", "node_modules", "test-artifacts",
                                                                   "__pycache__", "*.egg-info"))
        without_files(copy / "suites")
        kinds = {"shipped": (ROOT, ()), "without": (copy, ()), "live": (ROOT, ("--absa-variants", "live"))}
        times: dict[str, list[float]] = {k: [] for k in kinds}
        said: dict[str, str] = {}
        for kind, (root, more) in kinds.items():
            collect(root, Path(work) / f"cache-{kind}", *more)  # fills the warm cache folder
        for _ in range(args.repeat):
            for kind, (root, more) in kinds.items():
                seconds, said[kind] = collect(root, Path(work) / f"cache-{kind}", *more)
                times[kind].append(seconds)
    for kind, found in times.items():
        print(f"{kind:8} best {min(found):.2f} s, median {statistics.median(found):.2f} s (of {args.repeat}, warm); "
              f"{said[kind]}")
    extra = statistics.median(times["shipped"]) - statistics.median(times["without"])
    print(f"the frozen sets cost {extra:+.2f} s (median shipped - median without)")
    print(f"load average while measuring: {os.getloadavg()[0]:.1f} (1 min) on {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
