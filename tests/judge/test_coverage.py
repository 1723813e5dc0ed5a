"""Coverage, told (issue 27, part 4): per source and strategy, units with a case of the units drawn, why the
rest have none, and the originals' accuracy with a case vs without (Newcombe's difference); ARS over the
complete units. Every count is checked against counts made straight from the JSON report's cases and
quarantine list, and the accuracy without a case against the model asked directly."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from absa_checks.judge import coverage
from absa_checks.judge.outcomes import CaseOutcome
from absa_checks.judge.stats import Z95, newcombe_difference
from absa_checks.models.adapters import build, resolve
from absa_checks.models.predictions import Prediction, predict_all, query_for
from absa_checks.reports import terminal
from absa_checks.sources.catalog import load_named
from conftest import REPO, needs_shared_data, run_pytest

ARS = ("revtgt", "revnon", "adddiff")


# -- the difference and its interval, by hand -------------------------------------------------------------

def _wilson_by_hand(k: int, n: int) -> tuple[float, float]:
    p, z = k / n, Z95
    centre = (2 * n * p + z * z) / (2 * (n + z * z))
    half = z * math.sqrt(z * z + 4 * n * p * (1 - p)) / (2 * (n + z * z))
    return centre - half, centre + half


@pytest.mark.parametrize("k1, n1, k2, n2", [(56, 70, 48, 80), (9, 10, 3, 10), (5, 56, 0, 29), (0, 10, 0, 20),
                                            (30, 40, 31, 40)])
def test_the_difference_is_newcombes_hybrid_score_interval(k1, n1, k2, n2):
    l1, u1 = _wilson_by_hand(k1, n1)
    l2, u2 = _wilson_by_hand(k2, n2)
    p1, p2 = k1 / n1, k2 / n2
    low = p1 - p2 - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = p1 - p2 + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    found = newcombe_difference(k1, n1, k2, n2)
    assert found.value == pytest.approx(p1 - p2, abs=1e-12)
    assert (found.low, found.high) == (pytest.approx(low, abs=1e-12), pytest.approx(high, abs=1e-12))
    assert found.significant == (low > 0 or high < 0)


def test_newcombes_published_examples():
    """Newcombe (1998), Statistics in Medicine 17:873-890, table II, method 10 (to 4 decimals)."""
    examples = {(56, 70, 48, 80): (0.0524, 0.3339), (9, 10, 3, 10): (0.1705, 0.8090),
                (6, 7, 2, 7): (0.0582, 0.8062), (5, 56, 0, 29): (-0.0381, 0.1926)}
    for (k1, n1, k2, n2), (low, high) in examples.items():
        found = newcombe_difference(k1, n1, k2, n2)
        assert (round(found.low, 4), round(found.high, 4)) == (low, high), (k1, n1, k2, n2)
    assert newcombe_difference(56, 70, 48, 80).significant and not newcombe_difference(5, 56, 0, 29).significant


def test_an_empty_group_has_no_difference():
    for args in ((0, 0, 3, 10), (3, 10, 0, 0)):
        found = newcombe_difference(*args)
        assert not found.defined and not found.significant
        assert found.to_dict() == {"value": None, "ci95": None, "ci_method": "newcombe-wilson", "significant": False}


# -- the pure function -------------------------------------------------------------------------------------

def _outcome(unit: str, strategy: str, right: bool | None, model: str = "m", source: str = "s") -> CaseOutcome:
    gold = "positive"
    predicted = None if right is None else {"label": gold if right else "negative", "probs": {}}
    return CaseOutcome(f"{unit}-{strategy}-{model}", f"n::{unit}-{strategy}", unit, "suite::t", "t", source, unit,
                       strategy, "flip", 0.0, {"gold": gold}, {"gold": "negative"}, "passed", "", model=model,
                       original_prediction=predicted, variant_prediction=predicted)


def test_counts_reasons_and_accuracies_from_a_record_and_the_outcomes():
    record = coverage.record("suite::t", "s", "revtgt", [f"u{i}" for i in range(10)],
                             {"u6": "quarantined: x", "u7": "quarantined: x", "u8": "no variant: y", "u9": "no variant: y"},
                             {"m": {"u6": True, "u7": False, "u8": False, "u9": None}})
    outcomes = [_outcome("u0", "revtgt", True), _outcome("u1", "revtgt", True), _outcome("u2", "revtgt", True),
                _outcome("u3", "revtgt", False), _outcome("u4", "revtgt", None)]  # u5: planned, not run
    found = coverage.coverage([record], outcomes, "m")["s"]["revtgt"]
    assert (found.units, found.with_case, found.without_case) == (10, 5, 5)
    assert found.by_reason == {"no variant: y": 2, "quarantined: x": 2, coverage.NOT_RUN: 1}
    assert (found.accuracy_covered.k, found.accuracy_covered.n) == (3, 4)  # u4's original has no answer
    assert (found.accuracy_uncovered.k, found.accuracy_uncovered.n) == (1, 3)  # u9 has no answer, u5 no reason
    assert found.difference == newcombe_difference(3, 4, 1, 3)
    # a strategy with outcomes and no record counts its units with a case only
    alone = coverage.coverage([], [_outcome("u0", "adddiff", True)], "m")["s"]["adddiff"]
    assert (alone.units, alone.with_case, alone.by_reason, alone.accuracy_uncovered.n) == (1, 1, {}, 0)


def test_records_from_workers_or_shards_join_their_answers():
    first = coverage.record("t", "s", "revtgt", ["a", "b"], {"a": "r", "b": "r"}, {"m": {"a": True, "b": None}})
    second = coverage.record("t", "s", "revtgt", ["a", "b"], {"a": "r", "b": "r"}, {"m": {"a": None, "b": False}})
    (joined,) = coverage.merged([first, second])
    assert joined["originals"] == {"m": {"a": True, "b": False}}


def test_several_checkpoints_each_have_their_accuracies():
    record = coverage.record("t", "s", "revtgt", ["a", "b", "c"], {"c": "r"}, {"m1": {"c": True}, "m2": {"c": False}})
    outcomes = [_outcome("a", "revtgt", True, "m1"), _outcome("b", "revtgt", False, "m1"),
                _outcome("a", "revtgt", False, "m2"), _outcome("b", "revtgt", False, "m2")]
    per_model = {m: coverage.coverage([record], [o for o in outcomes if o.model == m], m) for m in ("m1", "m2")}
    assert per_model["m1"]["s"]["revtgt"].accuracy_uncovered.k == 1
    assert per_model["m2"]["s"]["revtgt"].accuracy_covered.k == 0
    shown = coverage.run_report(per_model)["s"]["revtgt"]
    assert shown["accuracy_covered"]["per_checkpoint"] == {"m1": 0.5, "m2": 0.0}
    assert set(shown["difference"]["per_checkpoint"]) == {"m1", "m2"}


# -- a real run: counts straight from the report's cases ----------------------------------------------------

POLAR = ("positive", "negative")


def _outside(strategy: str, example) -> bool:
    """By hand, issue 36's populations: REVTGT applies to polar targets, REVNON to polar targets with another
    polar aspect (a chain to the units every step applies to), every other strategy to every target."""
    steps = strategy.split("(")[0].split("+")
    polar = example.target.polarity in POLAR
    if "revnon" in steps:
        return not (polar and any(a.polarity in POLAR for a in example.others))
    return "revtgt" in steps and not polar


def _check_against_cases(report: dict, sources: list[str], model_name: str = "lexicon",
                         data_dir: Path | None = None) -> None:
    """Every coverage entry of the report against the report's own cases and quarantine list, and the
    accuracy without a case against the model asked directly about those units' originals; only the units in
    the strategy's population count, the rest apart."""
    cases: dict[tuple[str, str], dict[str, list[dict]]] = defaultdict(lambda: defaultdict(list))
    for case in report["cases"]:
        cases[(case["source"], case["strategy"])][case["unit"]].append(case)
    label = {test["test"]: test["strategy"] for test in report["tests"]}  # adddiff(k=3) is its own row
    quarantined: dict[tuple[str, str], dict[str, str]] = defaultdict(dict)
    for variant in report["quarantine"]["variants"]:
        quarantined[(variant["source"], label[variant["test"]])][variant["unit_id"]] = variant["reason"]
    adapter = build(resolve(model_name, REPO / "models.yaml"))
    assert set(report["coverage"]) == set(sources)
    for source in sources:
        units = {u.unit_id: u.original for u in load_named(source, data_dir).units}
        asked = predict_all(adapter, [query_for(e) for e in units.values()], 64)
        right = {unit: isinstance(asked[query_for(e)], Prediction) and asked[query_for(e)].label == e.polarity
                 for unit, e in units.items()}
        for strategy, found in report["coverage"][source].items():
            outside = {u for u, e in units.items() if _outside(strategy, e)}
            steps = strategy.split("(")[0].split("+")
            assert found["population"] == ("polar targets with another polar aspect" if "revnon" in steps else
                                           "polar targets" if "revtgt" in steps else "targets"), strategy
            mine = {u: c for u, c in cases[(source, strategy)].items() if u not in outside}
            assert found["with_case"] == len(mine), (source, strategy)
            assert found["units"] == found["with_case"] + sum(found["by_reason"].values())
            assert set(mine) <= set(units)
            if found["units"] + found["outside_population"] < len(units):  # a test with `sample:` (the robustness
                continue  # suite): which units were drawn is not in the report; its counts add up, as above
            assert (found["units"], found["outside_population"]) == (len(units) - len(outside), len(outside))
            assert found["outside_population"] == sum(found["outside_by_reason"].values())
            counted: dict[str, int] = defaultdict(int)
            for unit, reason in quarantined[(source, strategy)].items():
                if unit not in outside:
                    counted[coverage.quarantined_reason(reason)] += 1
            assert {r: n for r, n in found["by_reason"].items() if r.startswith("quarantined: ")} == dict(counted)
            assert all(r.startswith(("quarantined: ", "no variant: ")) for r in found["by_reason"])
            first = [sorted(c, key=lambda c: c["case_id"])[0] for c in mine.values()]
            covered_ok = sum(c["original_prediction"]["label"] == c["original"]["gold"] for c in first)
            assert (found["accuracy_covered"]["k"], found["accuracy_covered"]["n"]) == (covered_ok, len(first))
            without = [u for u in units if u not in mine and u not in outside]
            assert (found["accuracy_uncovered"]["k"], found["accuracy_uncovered"]["n"]) == \
                (sum(right[u] for u in without), len(without)), (source, strategy)
            assert found["difference"] == newcombe_difference(covered_ok, len(first), sum(right[u] for u in without),
                                                              len(without)).to_dict()
        # ARS over the units with a case of each of the three strategies
        by_unit: dict[str, list[dict]] = defaultdict(list)
        for case in report["cases"]:
            if case["source"] == source and case["strategy"] in ARS:
                by_unit[case["unit"]].append(case)
        complete = {u: c for u, c in by_unit.items() if {x["strategy"] for x in c} == set(ARS)}
        robust = sum(all(x["original_prediction"]["label"] == x["original"]["gold"] and
                         x["variant_prediction"]["label"] == x["variant"]["gold"] for x in c) for c in complete.values())
        shown = report["sources"][source]
        assert (shown["complete_units"], shown["ars_complete"]["k"], shown["ars_complete"]["n"]) == \
            (len(complete), robust, len(complete))
        assert 0 < len(complete) < shown["ars"]["n"]  # generated sources: REVTGT and REVNON cover a part


@pytest.fixture(scope="module")
def builtin_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("coverage")
    done = run_pytest(["suites/", "--model", "lexicon", "--absa-sources", "builtin-restaurant,builtin-laptop",
                       "--absa-markdown", str(folder / "summary.md"), "--alluredir", str(folder / "allure")],
                      report=folder / "report.json")
    assert done.report is not None, done.out[-3000:]
    return folder, done


@pytest.mark.slow
def test_builtin_sources_counts_equal_the_cases(builtin_run):
    _, done = builtin_run
    _check_against_cases(done.report, ["builtin-laptop", "builtin-restaurant"])
    revtgt = done.report["coverage"]["builtin-restaurant"]["revtgt"]
    assert 0 < revtgt["with_case"] < revtgt["units"] and revtgt["accuracy_uncovered"]["n"] > 50


def source_line(summary: str, source: str) -> str:
    """A source's coverage line as one line: its folded continuations joined back (reports.terminal.fold)."""
    lines = summary.splitlines()
    start = next(i for i, x in enumerate(lines) if x.startswith(f"  {source}: "))
    parts = [lines[start]]
    for x in lines[start + 1:]:
        if not x.startswith(terminal.FOLDED):
            break
        parts.append(x.strip())
    return " ".join(parts)


def test_every_report_format_shows_coverage_and_bias(builtin_run):
    folder, done = builtin_run
    found = done.report["coverage"]["builtin-restaurant"]["revtgt"]
    counted = f"{found['with_case']}/{found['units']} polar targets"
    d = found["difference"]
    point = f"{100 * d['value']:+.1f}"
    interval = f"{point} [{100 * d['ci95'][0]:.1f}, {100 * d['ci95'][1]:.1f}]" + ("*" if d["significant"] else "")
    top_reason = next(iter(found["by_reason"]))
    # terminal (without -v): on its source's line (folded within 160 characters), its population (REVTGT applies
    # to polar targets), its count and difference
    line = source_line(done.summary, "builtin-restaurant")
    apart = f", {found['outside_population']} outside" if found["outside_population"] else ""
    assert f"revtgt {counted}{apart} ({point}{'*' if d['significant'] else ''})" in line
    assert "coverage: units with a case / units the strategy applies to" in done.summary
    # Markdown: the whole table, with the reasons and the interval
    markdown = (folder / "summary.md").read_text()
    row = next(x for x in markdown.splitlines() if x.startswith(f"| builtin-restaurant | revtgt | {counted} | "))
    assert counted in row and interval in row and f"{top_reason} ({found['by_reason'][top_reason]})" in row
    assert "all (complete units)" in markdown
    # Allure: the summary's tables
    summaries = [json.loads(p.read_text()) for p in (folder / "allure").glob("*-result.json")]
    html = next(s for s in summaries if s["name"] == "absa-checks summary")["descriptionHtml"]
    assert "coverage: units with a case" in html and counted in html and interval in html
    # JSON: the keys the issue names
    assert set(found) >= {"units", "with_case", "by_reason", "accuracy_covered", "accuracy_uncovered", "difference",
                          "population", "outside_population", "outside_by_reason"}
    assert set(found["accuracy_covered"]) >= {"value", "k", "n", "ci95", "ci_method"}


def test_verbose_terminal_shows_the_reasons(tmp_path):
    done = run_pytest(["suites/directional/revtgt.yaml", "--model", "lexicon", "--absa-sources", "builtin-laptop",
                       "-v"], report=tmp_path / "r.json")
    found = done.report["coverage"]["builtin-laptop"]["revtgt"]
    row = next(x for x in done.summary.splitlines() if x.startswith("builtin-laptop") and " revtgt " in x and "/" in x)
    reason = next(iter(found["by_reason"]))
    assert f"{found['with_case']}/{found['units']}" in row and reason in row


def test_deselected_cases_are_counted_as_not_run(tmp_path):
    done = run_pytest(["suites/directional/revtgt.yaml", "--model", "lexicon", "--absa-sources", "builtin-laptop",
                       "-k", "not battery"], report=tmp_path / "r.json")
    found = done.report["coverage"]["builtin-laptop"]["revtgt"]
    ran = {c["unit"] for c in done.report["cases"]}
    assert found["with_case"] == len(ran) > 0
    assert found["units"] + found["outside_population"] == len(load_named("builtin-laptop", None).units)
    assert found["by_reason"][coverage.NOT_RUN] > 0
    assert found["units"] == found["with_case"] + sum(found["by_reason"].values())


@pytest.mark.slow
def test_xdist_and_merged_shards_give_the_single_runs_coverage(tmp_path):
    args = ["suites/directional/revtgt.yaml", "suites/invariance/revnon.yaml", "--model", "lexicon",
            "--absa-sources", "builtin-laptop", "--absa-sample", "60", "--absa-no-cache"]
    single = run_pytest(args, report=tmp_path / "single.json").report
    assert single["coverage"]["builtin-laptop"]["revtgt"]["accuracy_uncovered"]["n"] > 0
    distributed = run_pytest([*args, "-n", "2"], report=tmp_path / "xdist.json").report
    assert distributed["coverage"] == single["coverage"]
    for k in (1, 2):
        run_pytest([*args, "--absa-shard", f"{k}/2"], report=tmp_path / f"shard-{k}.json")
    merged = subprocess.run([sys.executable, "-m", "absa_checks.cli", "merge", str(tmp_path / "shard-1.json"),
                             str(tmp_path / "shard-2.json"), "-o", str(tmp_path / "merged.json")], cwd=REPO,
                            capture_output=True, text=True, timeout=300)
    assert merged.returncode in (0, 1), merged.stderr
    assert json.loads((tmp_path / "merged.json").read_text())["coverage"] == single["coverage"]


@needs_shared_data
def test_semeval_restaurant_counts_equal_the_cases(tmp_path):
    from conftest import SHARED_DATA
    done = run_pytest(["suites/directional/revtgt.yaml", "suites/invariance/revnon.yaml", "suites/invariance/adddiff.yaml",
                       "--model", "lexicon", "--absa-sources", "semeval14-restaurant", "--absa-data", str(SHARED_DATA)],
                      report=tmp_path / "r.json")
    assert done.report is not None, done.out[-3000:]
    _check_against_cases(done.report, ["semeval14-restaurant"], data_dir=SHARED_DATA)


def test_a_strategy_that_covers_no_unit_is_reported_too(tmp_path):
    """No item stands for a test without gates whose units all lack a variant; its coverage is still told."""
    (tmp_path / "suite.yaml").write_text(
        "suite: s\ntests:\n  - name: revnon\n    strategy: revnon\n    expect: unchanged\n    sample: 2\n"
        "    sources: [builtin-laptop]\n  - name: revtgt\n    strategy: revtgt\n    expect: flip\n    sample: 2\n"
        "    sources: [builtin-laptop]\n")
    done = run_pytest(["suite.yaml", "--model", "lexicon", "--absa-seed", "45", "--absa-models",
                       str(REPO / "models.yaml")], cwd=tmp_path, report=tmp_path / "r.json")
    assert done.report is not None, done.out[-3000:]
    found = done.report["coverage"]["builtin-laptop"]["revnon"]
    assert not [c for c in done.report["cases"] if c["strategy"] == "revnon"]
    # both are outside REVNON's population (issue 36): counted apart, by why, never asked about
    assert (found["units"], found["with_case"], found["by_reason"]) == (0, 0, {})
    assert found["outside_by_reason"] == {"neutral target": 1, "no other polar aspect": 1}
    assert found["accuracy_uncovered"]["n"] == 0 and found["accuracy_covered"]["n"] == 0
    assert found["difference"]["value"] is None
    assert "revnon 0/0 polar targets with another polar aspect, 2 outside" in source_line(done.summary, "builtin-laptop")


def test_several_checkpoints_each_get_the_coverage_of_their_own_domain(tmp_path):
    (tmp_path / "models.yaml").write_text(
        "models:\n  laptop-rules:\n    kind: lexicon\n    scope: target\n    domains: [laptop]\n"
        "  both-rules:\n    kind: lexicon\n    scope: sentence\n")
    (tmp_path / "suite.yaml").write_text(
        "suite: s\ntests:\n  - name: revtgt\n    strategy: revtgt\n    expect: flip\n    sample: 20\n"
        "    sources: [builtin-laptop, builtin-restaurant]\n")
    done = run_pytest(["suite.yaml", "--model", "laptop-rules,both-rules", "--absa-models",
                       str(tmp_path / "models.yaml")], cwd=tmp_path, report=tmp_path / "r.json")
    assert done.report is not None, done.out[-3000:]
    mine = {name: found["coverage"] for name, found in done.report["checkpoints"].items()}
    assert set(mine["laptop-rules"]) == {"builtin-laptop"}
    assert set(mine["both-rules"]) == {"builtin-laptop", "builtin-restaurant"}
    for name, coverage_of in mine.items():
        for source, strategies in coverage_of.items():
            found = strategies["revtgt"]
            cases = {c["unit"] for c in done.report["cases"] if c["model"] == name and c["source"] == source}
            assert found["with_case"] == len(cases) and found["units"] + found["outside_population"] == 20
            assert found["accuracy_uncovered"]["n"] == found["units"] - found["with_case"]
    top = done.report["coverage"]["builtin-laptop"]["revtgt"]
    assert set(top["difference"]["per_checkpoint"]) == {"laptop-rules", "both-rules"}
    restaurant = done.report["coverage"]["builtin-restaurant"]["revtgt"]  # only the second checkpoint runs it
    assert set(restaurant["difference"]["per_checkpoint"]) == {"both-rules"}
    assert restaurant["with_case"] == mine["both-rules"]["builtin-restaurant"]["revtgt"]["with_case"]
