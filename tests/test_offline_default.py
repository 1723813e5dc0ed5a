"""The README's main command: `pytest suites/` offline, with the default model, prints the summary table."""

from __future__ import annotations


def test_offline_default_run_prints_the_summary(run):
    result = run(["suites/"], env={"ABSA_DATA_DIR": ""})
    assert result.code == 0, result.out[-3000:]
    summary = result.summary
    assert "model lexicon" in summary
    assert "source" in summary and "fail rate [95% CI]" in summary and "ARS [95% CI]" in summary
    assert "restaurant-inline  all (units)" in summary
    assert "absa-checks PASSED" in summary
    # ARTS tests are skipped with a reason that says how to get the data
    assert "skipped" in result.out
    skipped = run(["suites/", "-rs"], env={"ABSA_DATA_DIR": ""})
    assert "--absa-data DIR" in skipped.out


def test_markers_select_strategies_and_sources(run):
    only_revtgt = run(["suites/", "-m", "revtgt"], env={"ABSA_DATA_DIR": ""})
    cases = only_revtgt.report["cases"]
    assert cases and {c["strategy"] for c in cases} == {"revtgt"}
    by_source = run(["suites/", "-m", "source_restaurant_inline and adddiff"], env={"ABSA_DATA_DIR": ""})
    assert {(c["source"], c["strategy"]) for c in by_source.report["cases"]} == {("restaurant-inline", "adddiff")}
    by_name = run(["suites/", "-k", "burgers"], env={"ABSA_DATA_DIR": ""})
    assert {c["unit"] for c in by_name.report["cases"]} == {"burgers"}


def test_sampling_is_seeded(run):
    first = run(["suites/", "--absa-sample", "4", "--absa-seed", "7"], env={"ABSA_DATA_DIR": ""})
    again = run(["suites/", "--absa-sample", "4", "--absa-seed", "7"], env={"ABSA_DATA_DIR": ""})
    other = run(["suites/", "--absa-sample", "4", "--absa-seed", "8"], env={"ABSA_DATA_DIR": ""})
    units = lambda r: sorted({c["unit"] for c in r.report["cases"]})
    assert len(units(first)) == 4 and units(first) == units(again)
    assert units(other) != units(first)
