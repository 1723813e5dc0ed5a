"""`-n 2` gives the same JSON report, timings aside, as a single process."""

from __future__ import annotations

import pytest

from conftest import ARTS_OUTPUT, SHARED_DATA, needs_shared_data

pytest.importorskip("xdist", reason="pytest-xdist is part of the test extras: pip install -e '.[test]'")


def comparable(report: dict) -> dict:
    return {key: value for key, value in report.items() if key != "timing"}


@needs_shared_data
@pytest.mark.slow
def test_two_workers_give_the_same_report_as_one_process(run):
    args = ["suites/", "-q", "--absa-data", str(SHARED_DATA), "--absa-sources", "arts-laptop,restaurant-inline",
            "--model", f"replay:{ARTS_OUTPUT / 'laptop_results.csv'}#bert_pt"]
    single = run(args)
    parallel = run(args + ["-n", "2"])
    assert single.report is not None and parallel.report is not None, parallel.out[-2000:]
    # restaurant-inline has no replayed predictions: those cases error in both runs, the same way
    assert single.report["summary"]["cases"] > 1200 and single.report["summary"]["errors"] > 0
    assert comparable(parallel.report) == comparable(single.report)
    assert single.code == parallel.code


@pytest.mark.slow
def test_two_workers_offline_default(run):
    single = run(["suites/", "-q"])
    parallel = run(["suites/", "-q", "-n", "2"])
    assert single.report["cases"] and comparable(parallel.report) == comparable(single.report)
    assert single.report["capabilities"]["aspect robustness"].keys() == {"inv", "dir"}  # the matrix, the same
