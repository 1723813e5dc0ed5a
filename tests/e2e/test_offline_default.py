"""The README's main command: `pytest suites/` offline, with the default model, prints the summary table."""

from __future__ import annotations

import re

import pytest


@pytest.mark.slow
def test_offline_default_run_prints_the_summary(run):
    result = run(["suites/", "-rs"], env={"ABSA_DATA_DIR": ""})
    assert result.code == 0, result.out[-3000:]
    summary = result.summary
    assert "model lexicon" in summary
    assert "source" in summary and "fail rate [95% CI]" in summary and "ARS [95% CI]" in summary
    assert re.search(r"restaurant-inline +all \(units\)", summary)
    assert re.search(r"builtin-restaurant +revtgt", summary)
    # ADDDIFF's k sweep in one line per source, the other capabilities in the matrix (each row: -v, the reports)
    assert "adddiff by k, fail rate % (k = 1, 2, 3, 4, 5" in summary and "  builtin-laptop by k: " in summary
    assert "capability x test type" in summary and re.search(r"\nnegation +\d", summary)
    assert "absa-checks PASSED" in summary
    # dataset tests are skipped with a reason that says how to get the data
    assert "--absa-data DIR" in result.out


@pytest.mark.slow
def test_markers_select_strategies_and_sources(run):
    only_revtgt = run(["suites/", "-m", "revtgt", "--absa-sources", "restaurant-inline"], env={"ABSA_DATA_DIR": ""})
    cases = only_revtgt.report["cases"]
    assert cases and {c["strategy"] for c in cases} == {"revtgt"}
    by_source = run(["suites/", "-m", "source_restaurant_inline and adddiff"], env={"ABSA_DATA_DIR": ""})
    assert {(c["source"], c["strategy"]) for c in by_source.report["cases"]} == {("restaurant-inline", "adddiff")}
    by_name = run(["suites/", "-k", "burgers", "--absa-sources", "restaurant-inline"], env={"ABSA_DATA_DIR": ""})
    assert {c["unit"] for c in by_name.report["cases"]} == {"burgers"}


@pytest.mark.slow
def test_sampling_is_seeded(run):
    args = ["suites/", "--absa-sample", "4", "--absa-sources", "restaurant-inline"]
    first = run(args + ["--absa-seed", "7"], env={"ABSA_DATA_DIR": ""})
    again = run(args + ["--absa-seed", "7"], env={"ABSA_DATA_DIR": ""})
    other = run(args + ["--absa-seed", "8"], env={"ABSA_DATA_DIR": ""})
    def units(r) -> list[str]:
        return sorted({c["unit"] for c in r.report["cases"]})

    assert len(units(first)) == 4 and units(first) == units(again)
    assert units(other) != units(first)


@pytest.mark.slow
def test_generated_cases_run_offline_on_the_builtin_fixtures(run):
    result = run(["suites/", "-m", "source_builtin_restaurant or source_builtin_laptop"], env={"ABSA_DATA_DIR": ""})
    cases = result.report["cases"]
    generated = [c for c in cases if c["variant"]["record_id"] and ":revtgt" in c["variant"]["record_id"]]
    assert {c["source"] for c in cases} == {"builtin-restaurant", "builtin-laptop"}
    assert {c["strategy"] for c in cases} >= {"revtgt", "revnon", "adddiff", "revnon+adddiff", "adddiff(k=5)"}
    assert len(generated) > 300  # 327 REVTGT cases since the checks of blind round 5 (docs/perturbations.md)
    # every variant carries its edit record; quarantined attempts are counted, not dropped
    assert all(c["variant"].get("edits") for c in cases)
    assert result.report["quarantine"]["counts"]["builtin-restaurant"]


@pytest.mark.slow
def test_the_aspect_blind_baseline_fails_revnon_and_adddiff_clearly_more(run):
    """lexicon-sentence reads the whole sentence, so edits to other aspects move it; lexicon does not."""
    from absa_checks.judge.stats import wilson

    args = ["suites/", "-m", "revnon or adddiff", "--absa-sources", "builtin-restaurant,builtin-laptop"]
    reports = {model: run(args + ["--model", model], env={"ABSA_DATA_DIR": ""}).report
               for model in ("lexicon", "lexicon-sentence")}
    for strategy in ("revnon", "adddiff"):
        pooled = {}
        for model, report in reports.items():
            rates = [s["strategies"][strategy]["fail_rate"] for s in report["sources"].values()]
            pooled[model] = wilson(sum(r["k"] for r in rates), sum(r["n"] for r in rates))
        aware, blind = pooled["lexicon"], pooled["lexicon-sentence"]
        assert blind.low > aware.high, (strategy, aware, blind)  # the 95% intervals do not even touch
        assert blind.value > 2 * aware.value
