"""Print the size of every module of the two packages, longest first, and refuse a long one without a reason.

    python scripts/module_sizes.py [--root DIR] [--limit 500]

Every .py file under absa_checks/ and model_adapters/ (of the repository, or of --root) with its number of
lines. A module over --limit lines must say why at its top: its docstring holds a paragraph beginning
"Why this module is long:" and the reason. The exit status is 1 when one does not (each named on stderr), else 0.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("absa_checks", "model_adapters")
LIMIT = 500
REASON = re.compile(r"^why this module is long:\s*\S", re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True)
class ModuleSize:
    path: str  # relative to the root, with forward slashes
    lines: int
    reason: bool  # its docstring says why it is long


def has_reason(source: str) -> bool:
    """The module's docstring (its top, nothing further down) has a "Why this module is long:" paragraph."""
    try:
        docstring = ast.get_docstring(ast.parse(source)) or ""
    except SyntaxError:
        return False
    return REASON.search(docstring) is not None


def measure(root: Path) -> list[ModuleSize]:
    """Every module of the packages under root, longest first (then by path)."""
    found = []
    for package in PACKAGES:
        for path in (root / package).rglob("*.py"):
            source = path.read_text(encoding="utf-8")
            found.append(ModuleSize(path.relative_to(root).as_posix(), len(source.splitlines()), has_reason(source)))
    return sorted(found, key=lambda m: (-m.lines, m.path))


def unexplained(sizes: list[ModuleSize], limit: int) -> list[ModuleSize]:
    return [m for m in sizes if m.lines > limit and not m.reason]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=str(REPO), help="the repository to measure (default: this one)")
    parser.add_argument("--limit", type=int, default=LIMIT, help=f"lines a module may have without a reason "
                        f"(default {LIMIT})")
    args = parser.parse_args(argv)
    root = Path(args.root)
    if not any((root / package).is_dir() for package in PACKAGES):
        print(f"--root {root}: neither {' nor '.join(PACKAGES)} is there; name the repository's folder",
              file=sys.stderr)
        return 2
    sizes = measure(root)
    for module in sizes:
        note = (" (over the limit: its reason is at its top)" if module.reason else " (over the limit, no reason)") \
            if module.lines > args.limit else ""
        print(f"{module.lines:6d}  {module.path}{note}")
    bad = unexplained(sizes, args.limit)
    for module in bad:
        print(f"module_sizes: {module.path} has {module.lines} lines (over {args.limit}); split it along its jobs, "
              "or write why at its top (a docstring paragraph \"Why this module is long: ...\")", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
