"""docs/reliability.md names a test for every row: each named test exists, and the rows are numbered once."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ROW = re.compile(r"^\|\s*(\d+)\s*\|.*\|\s*([^|]*)\|\s*$", re.M)
REFERENCE = re.compile(r"`(?:((?:\w+/)*test_\w+\.py)|\.\.\.)?(?:::(\w+))?[^`]*`")  # a path under tests/


def _rows() -> list[tuple[int, str]]:
    return [(int(number), tests) for number, tests in ROW.findall((REPO / "docs" / "reliability.md").read_text())]


def test_every_row_has_its_own_number():
    numbers = [number for number, _ in _rows()]
    assert len(numbers) > 100
    assert sorted(numbers) == list(range(1, len(numbers) + 1)), "rows are numbered 1..N, each once"
    count = re.search(r"The catalogue has (\d+) rows", (REPO / "docs" / "reliability.md").read_text())
    assert count and int(count.group(1)) == len(numbers)


def test_every_test_a_row_names_exists():
    missing, files = [], set()
    for number, tests in _rows():
        current = None
        for file_name, name in REFERENCE.findall(tests):
            if file_name:
                current = file_name
                files.add(file_name)
                if not (REPO / "tests" / file_name).is_file():
                    missing.append(f"row {number}: tests/{file_name}")
                    continue
            if name and current and (REPO / "tests" / current).is_file():
                if not re.search(rf"^(async )?def {name}\(", (REPO / "tests" / current).read_text(), re.M):
                    missing.append(f"row {number}: {current}::{name}")
    assert not missing, missing
    assert len(files) > 50, f"the catalogue's test files were not read: {sorted(files)}"
