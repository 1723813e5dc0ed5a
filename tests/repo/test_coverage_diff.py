"""scripts/coverage_diff.py: two coverage.py JSON files compared by the path inside the checkout."""

from __future__ import annotations

import importlib.util
import json
import sys

from conftest import REPO

SPEC = importlib.util.spec_from_file_location("coverage_diff", REPO / "scripts" / "coverage_diff.py")
assert SPEC is not None and SPEC.loader is not None
coverage_diff = importlib.util.module_from_spec(SPEC)
sys.modules["coverage_diff"] = coverage_diff  # dataclasses look their module up there
SPEC.loader.exec_module(coverage_diff)


def coverage_json(path, files):
    path.write_text(json.dumps({"files": {name: {"summary": {"num_statements": n}, "executed_lines": lines}
                                          for name, (n, lines) in files.items()}}))
    return path


def test_a_file_that_loses_lines_is_named_with_them(tmp_path, capsys):
    before = coverage_json(tmp_path / "before.json", {
        "/work/main/absa_checks/a.py": (10, list(range(1, 11))),
        "/work/main/absa_checks/b.py": (100, list(range(1, 51))),
        "/work/main/model_adapters/gone.py": (4, [1, 2])})
    after = coverage_json(tmp_path / "after.json", {
        "absa_checks/a.py": (10, [1, 2, 3, 4, 5, 6, 7, 8]),  # 2 lines lost: 20 points
        "absa_checks/b.py": (100, list(range(2, 51)))})       # 1 line lost: 1 point, not more than 1
    assert coverage_diff.main([str(before), str(after), "--lines"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "before: 54.39% of 114 statements (62 executed, 3 files)"
    assert out[1] == "after: 51.82% of 110 statements (57 executed, 2 files)"
    assert out[2:] == ["2 files lose more than 1 points:",
                       "  model_adapters/gone.py: 50.0% -> 0.0% (2 lines no longer run)", "    1, 2",
                       "  absa_checks/a.py: 100.0% -> 80.0% (2 lines no longer run)", "    9, 10"]
