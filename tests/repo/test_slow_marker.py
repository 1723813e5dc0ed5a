"""The README's test command leaves the tests marked `slow` out (tests/conftest.py, `left_out_slow`); a marker
expression or the test's own name brings them back. Checked on a throwaway folder with this conftest."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

TESTS = '''\
import pytest

def test_quick():
    pass

@pytest.mark.slow
@pytest.mark.parametrize("n", [1, 2])
def test_long(n):
    pass
'''


def collected(folder: Path, *args: str) -> set[str]:
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:absa_checks",
                           "--collect-only", "-q", *args], cwd=folder, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return {line.split("::", 1)[1] for line in done.stdout.splitlines() if "::" in line}


def test_the_slow_tests_run_only_when_asked_for(tmp_path):
    (tmp_path / "tests").mkdir()
    shutil.copy(Path(__file__).parents[1] / "conftest.py", tmp_path / "tests" / "conftest.py")
    (tmp_path / "tests" / "test_some.py").write_text(TESTS)
    (tmp_path / "pytest.ini").write_text("[pytest]\ntestpaths = tests\nmarkers =\n    slow: slow\n")
    slow = {"test_long[1]", "test_long[2]"}
    assert collected(tmp_path) == {"test_quick"}
    assert collected(tmp_path, "-m", "slow") == slow
    assert collected(tmp_path, "-m", "slow or not slow") == {"test_quick", *slow}
    assert collected(tmp_path, "tests/test_some.py::test_long[2]") == {"test_long[2]"}


def test_every_longest_first_test_exists():
    """LONGEST_FIRST names tests by their node id under tests/: a moved or renamed test would silently lose its
    place at the front of the run."""
    import re

    from conftest import LONGEST_FIRST

    tests = Path(__file__).parents[1]
    missing = [name for name in LONGEST_FIRST if not (tests / name.split("::")[0]).is_file()
               or not re.search(rf"^def {name.split('::')[1]}\(", (tests / name.split("::")[0]).read_text(), re.M)]
    assert not missing, missing
