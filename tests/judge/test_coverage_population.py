"""Coverage counts the population a strategy applies to (issue 36, acceptance point 3): polar targets for
REVTGT, polar targets with another polar aspect for REVNON, every target for ADDDIFF. A unit outside it is
neither in the denominator nor in the covered-versus-uncovered accuracy comparison; it is counted apart, by
why, and every report names the population."""

from __future__ import annotations

from pathlib import Path

from absa_checks.common.examples import Aspect, Example, Unit
from absa_checks.judge import coverage
from absa_checks.judge.outcomes import CaseOutcome
from absa_checks.judge.stats import newcombe_difference
from absa_checks.perturb.variants import VariantSet
from absa_checks.reports import summary_table, terminal
from absa_checks.run.plans import coverage_plan
from absa_checks.suites import spec, strategies


def _example(polarity: str, *others: str) -> Example:
    sentence = "The soup was fine and the bread and the wine."
    spans = [("bread", 26), ("wine", 40)]
    return Example(sentence, Aspect("soup", 4, 8, polarity),
                   tuple(Aspect(term, start, start + len(term), p) for (term, start), p in zip(spans, others)))


# u0: polar, another polar aspect; u1: polar, another polar aspect; u2: neutral target; u3: polar, its other
# aspects all neutral; u4: polar, alone
EXAMPLES = {"u0": _example("positive", "negative"), "u1": _example("negative", "neutral", "positive"),
            "u2": _example("neutral", "positive"), "u3": _example("positive", "neutral", "neutral"),
            "u4": _example("negative")}
UNITS = tuple(Unit("s", unit_id, example) for unit_id, example in EXAMPLES.items())


def _test(tmp_path: Path, strategy: str, extra: str = "") -> spec.TestSpec:
    (tmp_path / "suite.yaml").write_text(f"suite: s\ntests:\n  - name: t\n    strategy: {strategy}\n"
                                         f"    sources: [builtin-laptop]\n{extra}")
    return spec.parse_suite(tmp_path / "suite.yaml", ("builtin-laptop",)).tests[0]


def _outcome(unit: str, strategy: str, right: bool) -> CaseOutcome:
    predicted = {"label": "positive" if right else "negative", "probs": {}}
    return CaseOutcome(f"{unit}-{strategy}", f"n::{unit}", unit, "suite::t", "t", "s", unit, strategy, "flip", 0.0,
                       {"gold": "positive"}, {"gold": "negative"}, "passed", "", model="m",
                       original_prediction=predicted, variant_prediction=predicted)


def _counted(tmp_path: Path, strategy: str, covered: dict[str, bool], uncovered: dict[str, bool],
             extra: str = "") -> tuple[coverage.Coverage, dict]:
    """Plan a test of `strategy` over the five units (those in `covered` got a case, the rest no variant), then
    count, the model right or wrong on each original as given."""
    without = tuple((u, "nothing to perturb") for u in EXAMPLES if u not in covered)
    plan = coverage_plan(_test(tmp_path, strategy, extra), "s", UNITS, VariantSet("generated", {},
                         without_variant=without), ["m"])
    answers = {u: uncovered[u] for u in plan.originals}
    record = coverage.record(plan.test, plan.source, plan.strategy, plan.units, plan.without_case, {"m": answers},
                             population=plan.population, outside=plan.outside)
    outcomes = [_outcome(u, plan.strategy, right) for u, right in covered.items()]
    return coverage.coverage([record], outcomes, "m")["s"][plan.strategy], plan.originals


def test_a_neutral_target_is_outside_revtgts_denominator(tmp_path):
    found, asked = _counted(tmp_path, "revtgt", {"u0": True, "u2": True}, {"u1": False, "u3": True, "u4": False})
    assert found.population == "polar targets"
    assert (found.units, found.with_case, found.outside) == (4, 1, {"neutral target": 1})  # u2 apart, its case too
    assert "u2" not in asked  # its original is not asked: it is in no comparison
    assert found.to_dict()["outside_population"] == 1 and found.to_dict()["population"] == "polar targets"


def test_revtgt_keeping_neutral_targets_counts_every_target(tmp_path):
    found, _ = _counted(tmp_path, "revtgt", {"u0": True}, {u: True for u in EXAMPLES}, "    neutral: keep\n")
    assert (found.population, found.units, found.outside) == ("targets", 5, {})


def test_a_target_whose_other_aspects_are_all_neutral_is_outside_revnons(tmp_path):
    found, asked = _counted(tmp_path, "revnon", {"u0": True}, {"u1": True, "u2": True, "u3": False, "u4": False})
    assert found.population == "polar targets with another polar aspect"
    assert (found.units, found.with_case) == (2, 1)  # u0 and u1
    assert found.outside == {"no other polar aspect": 2, "neutral target": 1}  # u3 and u4; u2
    assert set(asked) == {"u1"}


def test_adddiff_and_the_robustness_strategies_count_every_target(tmp_path):
    for strategy in ("adddiff", "case", "typos"):
        found, _ = _counted(tmp_path, strategy, {u: True for u in EXAMPLES}, {})
        assert (found.population, found.units, found.outside) == ("targets", 5, {}), strategy


def test_a_chain_counts_the_intersection_of_its_steps(tmp_path):
    assert strategies.population("revnon+adddiff").name == "polar targets with another polar aspect"
    found, _ = _counted(tmp_path, "revtgt+revnon", {"u0": True}, {u: True for u in EXAMPLES})
    assert (found.population, found.units) == ("polar targets with another polar aspect", 2)


def test_the_difference_is_computed_over_the_population_only(tmp_path):
    # covered: u0 right; outside: u2 (neutral, has a case, wrong), u3 and u4 (no other polar aspect, right)
    found, _ = _counted(tmp_path, "revnon", {"u0": True, "u2": False}, {"u1": False, "u3": True, "u4": True})
    assert (found.accuracy_covered.k, found.accuracy_covered.n) == (1, 1)
    assert (found.accuracy_uncovered.k, found.accuracy_uncovered.n) == (0, 1)
    assert found.difference == newcombe_difference(1, 1, 0, 1)


def test_every_line_names_the_population_and_counts_the_rest_apart(tmp_path):
    found, _ = _counted(tmp_path, "revtgt", {"u0": True}, {"u1": False, "u3": True, "u4": False})
    (row,) = summary_table.coverage_rows({"m": {"s": {"revtgt": found}}})
    assert row[2] == "1/4 polar targets" and row[4] == "1: neutral target (1)"
    table = summary_table.Table(summary_table.COVERAGE_TITLE, summary_table.COVERAGE_HEADER, (row,))
    lines = terminal.coverage_lines(table)
    assert lines[2:] == ["  s: revtgt 1/4 polar targets, 1 outside (+66.7)"]  # 1 of 1 right with a case, 1 of 3 without
    assert all(len(line) <= terminal.LINE_LIMIT for line in lines)
    assert "applies to" in lines[1] and "population" in summary_table.COVERAGE_TITLE
    chain = (row[0], "revnon+adddiff", *row[2:])  # strategies saying the same share a line
    both = summary_table.Table(table.title, table.header, (row, chain))
    assert terminal.coverage_lines(both)[2:] == ["  s: revtgt, revnon+adddiff 1/4 polar targets, 1 outside (+66.7)"]
    markdown = "\n".join(summary_table.render_markdown(table))
    assert "| s | revtgt | 1/4 polar targets | " in markdown and "outside the population" in markdown


def test_a_record_without_a_population_counts_every_unit():
    """A shard report written before populations were recorded merges as before: every unit counts."""
    old = coverage.record("t", "s", "revtgt", ["a", "b"], {"b": "no variant: y"}, {"m": {"b": True}})
    del old["population"], old["outside"]
    found = coverage.coverage([old], [_outcome("a", "revtgt", True)], "m")["s"]["revtgt"]
    assert (found.units, found.with_case, found.population, found.outside) == (2, 1, "", {})
    assert summary_table.counted_cell(found) == "1/2"
