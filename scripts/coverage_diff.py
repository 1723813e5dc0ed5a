"""Do two test runs cover the same code? Compares two coverage.py JSON files (`pytest --cov=... --cov-report=json`,
or `coverage json`), e.g. the full test run before a change and the README's test command after it.

    python scripts/coverage_diff.py BEFORE.json AFTER.json [--drop 1.0] [--lines]

Prints the total line coverage of each, then every file whose line coverage drops by more than `--drop`
percentage points (default 1.0), with how many of its lines the first run executed and the second did not;
`--lines` also lists those line numbers. Files are matched by their path inside the checkout (from the package
folder on), so two checkouts in different folders compare. Exit status 0 whatever the numbers: reading them is
the reader's job (docs/performance.md "The project's own tests").
"""
from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path

PACKAGES = ("absa_checks", "model_adapters")


@dataclass(frozen=True)
class FileCoverage:
    statements: int
    executed: frozenset[int]

    @property
    def percent(self) -> float:
        return 100.0 * len(self.executed) / self.statements if self.statements else 100.0


def package_path(path: str) -> str:
    """`/work/main/absa_checks/cli/run.py` -> `absa_checks/cli/run.py` (the path unchanged outside the packages)."""
    parts = Path(path).parts
    for index, part in enumerate(parts):
        if part in PACKAGES:
            return "/".join(parts[index:])
    return "/".join(parts)


def read(path: Path) -> dict[str, FileCoverage]:
    files = json.loads(path.read_text())["files"]
    return {package_path(name): FileCoverage(entry["summary"]["num_statements"], frozenset(entry["executed_lines"]))
            for name, entry in files.items()}


def total(files: dict[str, FileCoverage]) -> tuple[int, int]:
    """(executed statements, statements) over all files."""
    return sum(len(f.executed) for f in files.values()), sum(f.statements for f in files.values())


@dataclass(frozen=True)
class Drop:
    path: str
    before: float
    after: float
    lost: tuple[int, ...]  # lines executed before and not after


def drops(before: dict[str, FileCoverage], after: dict[str, FileCoverage], threshold: float) -> list[Drop]:
    """The files whose coverage falls by more than `threshold` points, largest fall first (a file only in
    `before` counts as covered 0% after: it moved or was deleted, and its lines are listed as lost)."""
    found = []
    for path, old in before.items():
        new = after.get(path, FileCoverage(old.statements, frozenset()))
        if old.percent - new.percent > threshold:
            found.append(Drop(path, old.percent, new.percent, tuple(sorted(old.executed - new.executed))))
    return sorted(found, key=lambda d: (d.after - d.before, d.path))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--drop", type=float, default=1.0, help="report files that lose more than this many points")
    parser.add_argument("--lines", action="store_true", help="list the line numbers no longer executed")
    args = parser.parse_args(argv)
    before, after = read(args.before), read(args.after)
    for name, files in (("before", before), ("after", after)):
        executed, statements = total(files)
        print(f"{name}: {100.0 * executed / statements:.2f}% of {statements} statements ({executed} executed, "
              f"{len(files)} files)")
    found = drops(before, after, args.drop)
    print(f"{len(found)} files lose more than {args.drop:g} points:" if found else
          f"no file loses more than {args.drop:g} points")
    for drop in found:
        print(f"  {drop.path}: {drop.before:.1f}% -> {drop.after:.1f}% ({len(drop.lost)} lines no longer run)")
        if args.lines:
            print(f"    {', '.join(map(str, drop.lost))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
