"""CI: read `pytest -rs -m "needs_extra(extra='EXTRA')"` output (stdin) from a venv without EXTRA, and fail
unless every selected test was skipped with a reason naming EXTRA and its install command, and none failed.

    python .ci/check_extra_skips.py transformers < pytest-output.txt
"""

from __future__ import annotations

import re
import sys

SKIPPED = re.compile(r"^SKIPPED \[(\d+)\] [^:]+:\d+: (.*)$")
FINAL = re.compile(r"^=*\s*(?P<counts>(\d+ \w+(, )?)+) in [\d.]+s")


def check(extra: str, output: str) -> list[str]:
    """What is wrong ([] when nothing is)."""
    wanted = f"needs the {extra} extra"
    install = f"pip install -e '.[{extra}]'"
    problems, skipped = [], 0
    for line in output.splitlines():
        found = SKIPPED.match(line)
        if found:
            skipped += int(found.group(1))
            if wanted not in found.group(2) or install not in found.group(2):
                problems.append(f"a skip that does not name the {extra} extra: {line}")
    finals = [FINAL.match(line.strip("= ")) for line in output.splitlines()]
    counts = {word: int(n) for m in finals if m for n, word in re.findall(r"(\d+) (\w+)", m.group("counts"))}
    if not counts:
        problems.append("no pytest summary line found")
    if counts.get("skipped", 0) == 0:
        problems.append(f"no test of the {extra} extra was selected and skipped")
    others = {word: n for word, n in counts.items() if word not in ("skipped", "deselected", "warning", "warnings")}
    if others:
        problems.append(f"every selected test must be skipped; also: {others}")
    if skipped != counts.get("skipped", 0):
        problems.append(f"-rs lists {skipped} skips, the summary {counts.get('skipped', 0)}")
    return problems


def main() -> int:
    extra = sys.argv[1]
    output = sys.stdin.read()
    problems = check(extra, output)
    for problem in problems:
        print(f"check_extra_skips: {problem}", file=sys.stderr)
    if not problems:
        print(f"check_extra_skips: every test of the {extra} extra was skipped, naming it")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
