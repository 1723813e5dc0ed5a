"""Tests for absa_checks/judge/metrics.py: ARS, accuracies and fail rates from hand-built case outcomes.

The fixture below has two sources and three strategies. Every expected count is tallied by hand
in the comments next to the data.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from absa_checks.judge.metrics import aggregate
from absa_checks.judge.outcomes import CaseOutcome
from absa_checks.judge.stats import clopper_pearson, wilson

SUITE = "suites/s.yaml"
TEST_OF = {"revtgt": f"{SUITE}::revtgt", "revnon": f"{SUITE}::revnon", "adddiff": f"{SUITE}::adddiff"}
EXPECT_OF = {"revtgt": "flip", "revnon": "unchanged", "adddiff": "unchanged"}
GATES_OF = {"revtgt": {"max_fail_rate": 0.2}, "revnon": {"max_fail_rate": 0.1, "basis": "point"},
            "adddiff": {"min_ars": 0.5}}


def outcome(source: str, unit: str, strategy: str, case: str, original_gold: str, original_pred: str,
            variant_gold: str, variant_pred: str | None, status: str) -> CaseOutcome:
    """A CaseOutcome with every field filled; `variant_pred` None means the case errored."""
    def prediction(label):
        probs = {p: (0.8 if p == label else 0.1) for p in ("negative", "neutral", "positive")}
        return {"label": label, "probs": probs}

    return CaseOutcome(
        case_id=f"{source}-{case}", nodeid=f"{SUITE}::{strategy}[{source}-{case}]", name=case,
        test=TEST_OF[strategy], test_name=strategy, source=source, unit=unit, strategy=strategy,
        expect=EXPECT_OF[strategy], tolerance=0.0,
        original={"sentence": f"{unit} sentence", "term": "food", "from": 4, "to": 8, "gold": original_gold,
                  "record_id": unit},
        variant={"sentence": f"{unit} {case} variant", "term": "food", "from": 4, "to": 8, "gold": variant_gold,
                 "record_id": unit},
        status=status, reason="" if status == "passed" else f"{status} by hand",
        gates=dict(GATES_OF[strategy]), suite_sha256="0" * 64,
        original_prediction=prediction(original_pred),
        variant_prediction=prediction(variant_pred) if variant_pred is not None else None)


POS, NEG, NEU = "positive", "negative", "neutral"

OUTCOMES = [
    # source alpha ------------------------------------------------------------------------------
    # a1: original right, all three variants right -> robust
    outcome("alpha", "a1", "revtgt", "a1-t", POS, POS, NEG, NEG, "passed"),
    outcome("alpha", "a1", "revnon", "a1-n", POS, POS, POS, POS, "passed"),
    outcome("alpha", "a1", "adddiff", "a1-d", POS, POS, POS, POS, "passed"),
    # a2: original WRONG (gold neg, predicted pos), both variants predicted right -> not robust;
    #     the unchanged expectation fails (pos -> neg). No revtgt variant.
    outcome("alpha", "a2", "revnon", "a2-n", NEG, POS, NEG, NEG, "failed"),
    outcome("alpha", "a2", "adddiff", "a2-d", NEG, POS, NEG, NEG, "failed"),
    # a3: original right, revtgt right, two adddiff variants of which one is wrong -> not robust
    outcome("alpha", "a3", "revtgt", "a3-t", POS, POS, NEG, NEG, "passed"),
    outcome("alpha", "a3", "adddiff", "a3-d1", POS, POS, POS, POS, "passed"),
    outcome("alpha", "a3", "adddiff", "a3-d2", POS, POS, POS, NEG, "failed"),
    # a4: the revtgt case errored -> the unit is left out of the source's accuracy and ARS; its revnon case,
    #     which has a prediction, counts in the revnon rates
    outcome("alpha", "a4", "revtgt", "a4-t", POS, POS, NEG, None, "error"),
    outcome("alpha", "a4", "revnon", "a4-n", POS, POS, POS, POS, "passed"),
    # a5: neutral target; ARTS keeps it neutral under revtgt; all right -> robust
    outcome("alpha", "a5", "revtgt", "a5-t", NEU, NEU, NEU, NEU, "passed"),
    outcome("alpha", "a5", "revnon", "a5-n", NEU, NEU, NEU, NEU, "passed"),
    # source beta -------------------------------------------------------------------------------
    # b1: original right, revtgt predicted neutral (gold pos) -> variant wrong, flip failed
    outcome("beta", "b1", "revtgt", "b1-t", NEG, NEG, POS, NEU, "failed"),
    # b2: all right -> robust
    outcome("beta", "b2", "revtgt", "b2-t", POS, POS, NEG, NEG, "passed"),
]


def kn(rate):
    return rate.k, rate.n


@pytest.fixture(scope="module")
def metrics():
    return aggregate(OUTCOMES)


def test_run_counts(metrics):
    # 14 cases; passed: a1 3, a3 1 (d1), a3-t 1, a4-n 1, a5 2, b2 1 = 9;
    # failed: a2 2, a3-d2 1, b1 1 = 4; errors: a4-t = 1
    assert (metrics.cases, metrics.passed, metrics.failed, metrics.errors) == (14, 9, 4, 1)


def test_source_alpha(metrics):
    alpha = metrics.sources["alpha"]
    # scored units a1, a2, a3, a5 (a4 errored)
    assert alpha.units == 4
    assert alpha.units_with_errors == 1
    # originals right: a1, a3, a5 (a2 wrong) -> 3/4
    assert kn(alpha.original_accuracy) == (3, 4)
    # robust: a1, a5 (a2: original wrong though its variants are right; a3: one adddiff variant wrong)
    assert kn(alpha.ars) == (2, 4)
    assert alpha.ars.method == "clopper-pearson"
    # R: binom.test(2, 4)$conf.int = 0.06758599 0.93241401
    assert (alpha.ars.low, alpha.ars.high) == (pytest.approx(0.06758599), pytest.approx(0.93241401))
    assert alpha.original_accuracy.method == "wilson"


def test_source_beta(metrics):
    beta = metrics.sources["beta"]
    assert (beta.units, beta.units_with_errors) == (2, 0)
    assert kn(beta.original_accuracy) == (2, 2)   # b1, b2 originals right
    assert kn(beta.ars) == (1, 2)                 # b2 only
    assert list(beta.strategies) == ["revtgt"]
    s = beta.strategies["revtgt"]
    assert (s.n, s.units) == (2, 2)
    assert kn(s.original_accuracy) == (2, 2)
    assert kn(s.variant_accuracy) == (1, 2)       # b1 variant predicted neutral, gold positive
    assert kn(s.fail_rate) == (1, 2)


def test_alpha_strategies(metrics):
    strategies = metrics.sources["alpha"].strategies
    assert sorted(strategies) == ["adddiff", "revnon", "revtgt"]

    # revtgt: cases a1-t, a3-t, a5-t (a4-t errored: counted in errors, in no rate); a2 has no revtgt variant,
    # so its wrong original does not count here: original accuracy 3/3 (the source's is 3/4)
    t = strategies["revtgt"]
    assert (t.n, t.units, t.errors) == (3, 3, 1)
    assert kn(t.original_accuracy) == (3, 3)
    assert kn(t.variant_accuracy) == (3, 3)
    assert kn(t.fail_rate) == (0, 3)

    # revnon: cases a1-n, a2-n, a4-n, a5-n (a4-n has its prediction: counted, though a4-t errored)
    # originals: a1 right, a2 wrong, a4 right, a5 right -> 3/4; variants all right -> 4/4; a2-n failed -> 1/4
    n = strategies["revnon"]
    assert (n.n, n.units, n.errors) == (4, 4, 0)
    assert kn(n.original_accuracy) == (3, 4)
    assert kn(n.variant_accuracy) == (4, 4)
    assert kn(n.fail_rate) == (1, 4)

    # adddiff: cases a1-d, a2-d, a3-d1, a3-d2 -> n = 4 over 3 distinct units
    # originals over DISTINCT units: a1 right, a2 wrong, a3 right -> 2/3 (per case it would be 3/4)
    # variants: a1-d, a2-d, a3-d1 right, a3-d2 wrong -> 3/4; failed: a2-d, a3-d2 -> 2/4
    d = strategies["adddiff"]
    assert (d.n, d.units) == (4, 3)
    assert kn(d.original_accuracy) == (2, 3)
    assert kn(d.variant_accuracy) == (3, 4)
    assert kn(d.fail_rate) == (2, 4)
    assert d.fail_rate.method == "wilson"


def test_per_test_metrics(metrics):
    tests = {(t.test, t.source): t for t in metrics.tests}
    assert list(tests) == sorted(tests)  # reported in (test, source) order
    assert set(tests) == {(TEST_OF["revtgt"], "alpha"), (TEST_OF["revnon"], "alpha"),
                          (TEST_OF["adddiff"], "alpha"), (TEST_OF["revtgt"], "beta")}

    # revtgt/alpha: a1-t, a3-t, a5-t scored; a4-t errored
    t = tests[(TEST_OF["revtgt"], "alpha")]
    assert (t.strategy, t.expect) == ("revtgt", "flip")
    assert (t.n, t.failed, t.errors) == (3, 0, 1)
    assert kn(t.fail_rate) == (0, 3)
    assert kn(t.variant_accuracy) == (3, 3)
    assert t.gates == {"max_fail_rate": 0.2}

    # revnon/alpha: a1-n, a2-n, a4-n, a5-n (a4-n has its prediction, though the unit's revtgt case errored)
    n = tests[(TEST_OF["revnon"], "alpha")]
    assert (n.strategy, n.expect) == ("revnon", "unchanged")
    assert (n.n, n.failed, n.errors) == (4, 1, 0)
    assert kn(n.fail_rate) == (1, 4)
    assert kn(n.variant_accuracy) == (4, 4)
    assert n.gates == {"max_fail_rate": 0.1, "basis": "point"}

    # adddiff/alpha: 4 cases, a2-d and a3-d2 failed, a3-d2 wrong
    d = tests[(TEST_OF["adddiff"], "alpha")]
    assert (d.n, d.failed, d.errors) == (4, 2, 0)
    assert kn(d.fail_rate) == (2, 4)
    assert kn(d.variant_accuracy) == (3, 4)

    # revtgt/beta: b1-t failed and wrong, b2-t right
    b = tests[(TEST_OF["revtgt"], "beta")]
    assert (b.n, b.failed, b.errors) == (2, 1, 0)
    assert kn(b.fail_rate) == (1, 2)
    assert kn(b.variant_accuracy) == (1, 2)


def test_rates_carry_their_intervals(metrics):
    alpha = metrics.sources["alpha"]
    assert alpha.original_accuracy == wilson(3, 4)
    assert alpha.ars == clopper_pearson(2, 4)
    assert alpha.strategies["adddiff"].original_accuracy == wilson(2, 3)


def test_order_does_not_matter(metrics):
    shuffled = list(OUTCOMES)
    random.Random(7).shuffle(shuffled)
    assert aggregate(shuffled) == metrics
    assert aggregate(reversed(OUTCOMES)) == metrics


def test_ars_drops_when_a_variant_of_a_robust_unit_fails():
    # only b2 -> robust 1/1; add a wrong revtgt variant to b2 -> 0/1 while original accuracy stays 1/1
    base = [o for o in OUTCOMES if o.unit == "b2"]
    assert kn(aggregate(base).sources["beta"].ars) == (1, 1)
    extra = outcome("beta", "b2", "revtgt", "b2-t2", POS, POS, NEG, POS, "failed")
    beta = aggregate(base + [extra]).sources["beta"]
    assert kn(beta.ars) == (0, 1)
    assert kn(beta.original_accuracy) == (1, 1)


def test_all_units_errored():
    only = [o for o in OUTCOMES if o.unit == "a4"]
    alpha = aggregate(only).sources["alpha"]
    assert (alpha.units, alpha.units_with_errors) == (0, 1)
    assert kn(alpha.ars) == (0, 0) and kn(alpha.original_accuracy) == (0, 0)
    # the errored revtgt case is counted, in no rate; the revnon case with its prediction is scored
    assert {name: (s.n, s.errors) for name, s in alpha.strategies.items()} == {"revnon": (1, 0), "revtgt": (0, 1)}
    assert alpha.ars_covers == () and alpha.ars_lost_to_errors == ("revtgt", "revnon")
    tests = {t.strategy: (t.n, t.errors) for t in aggregate(only).tests}
    assert tests == {"revnon": (1, 0), "revtgt": (0, 1)}


def test_empty():
    metrics = aggregate([])
    assert metrics.sources == {} and metrics.tests == []
    assert (metrics.cases, metrics.passed, metrics.failed, metrics.errors) == (0, 0, 0, 0)


# --- ARS means what ARTS means -------------------------------------------------------------------

def test_extra_tests_are_reported_beside_ars_not_folded_into_it():
    """ADDDIFF(k) and chains are their own rows; a unit's ARS still reads only its revtgt, revnon and
    adddiff variants (the standard suites'), so a wrong adddiff(k=5) variant does not cost the unit."""
    base = [c for c in OUTCOMES if c.source == "alpha"]
    k5 = replace(outcome("alpha", "a1", "adddiff", "a1-k5", POS, POS, POS, NEG, "failed"),
                 strategy="adddiff(k=5)", test=f"{SUITE}::adddiff_k5", case_id="alpha-a1-k5")
    chain = replace(outcome("alpha", "a5", "revnon", "a5-c", NEU, NEU, NEU, POS, "failed"),
                    strategy="revnon+adddiff", test=f"{SUITE}::revnon_adddiff", case_id="alpha-a5-c")
    alpha = aggregate(base + [k5, chain]).sources["alpha"]
    assert kn(alpha.ars) == (2, 4)  # a1 and a5 stay robust
    assert alpha.ars_covers == ("revtgt", "revnon", "adddiff") and not alpha.ars_partial
    assert kn(alpha.strategies["adddiff(k=5)"].fail_rate) == (1, 1)
    assert kn(alpha.strategies["revnon+adddiff"].fail_rate) == (1, 1)


def test_a_deselected_strategy_makes_ars_partial():
    beta = aggregate([c for c in OUTCOMES if c.source == "beta"]).sources["beta"]
    assert beta.ars_covers == ("revtgt",) and beta.ars_partial
    assert kn(beta.ars) == (1, 2)
    only_extra = aggregate([replace(outcome("gamma", "g1", "adddiff", "g1-k2", POS, POS, POS, POS, "passed"),
                                    strategy="adddiff(k=2)")]).sources["gamma"]
    assert only_extra.ars_covers == () and only_extra.ars.n == 0  # no ARS at all, not a made-up one


def test_cases_with_a_prediction_count_when_another_case_of_their_unit_errored():
    """Probe 15: a replay file cut mid-row left every ADDDIFF case of a unit without a prediction; the REVTGT
    and REVNON cases of those units ran (7 of 15 REVTGT failed) but vanished from the rates (revtgt n=3, fail
    rate 0; no revnon row) and the ARS gate blamed -m/-k."""
    from absa_checks.judge.gates import evaluate
    from absa_checks.reports import summary_table

    cases = []
    for i in range(6):  # u0..u5: every adddiff case errored; revtgt fails on u0..u2; revnon on u0
        unit = f"u{i}"
        cases.append(outcome("alpha", unit, "adddiff", f"{unit}-d", POS, POS, POS, None, "error"))
        cases.append(outcome("alpha", unit, "revtgt", f"{unit}-t", POS, POS, NEG, POS if i < 3 else NEG,
                             "failed" if i < 3 else "passed"))
        cases.append(outcome("alpha", unit, "revnon", f"{unit}-n", POS, POS, POS, NEG if i == 0 else POS,
                             "failed" if i == 0 else "passed"))
    metrics = aggregate(cases)
    alpha = metrics.sources["alpha"]
    found = {name: (s.n, s.errors, kn(s.fail_rate)) for name, s in alpha.strategies.items()}
    assert found == {"adddiff": (0, 6, (0, 0)), "revtgt": (6, 0, (3, 6)), "revnon": (6, 0, (1, 6))}
    tests = {t.strategy: (t.n, t.failed, t.errors) for t in metrics.tests}
    assert tests == {"adddiff": (0, 0, 6), "revtgt": (6, 3, 0), "revnon": (6, 1, 0)}
    assert alpha.ars_partial and alpha.ars_lost_to_errors == ("revtgt", "revnon", "adddiff")
    gate = next(g for g in evaluate(metrics, "interval") if g.name == "min_ars")
    assert gate.verdict == "fail"
    assert "is in a unit with a case that has no prediction (an error; 6 units left out of ARS)" in gate.reason
    assert "deselected" not in gate.reason
    shown = {row[1]: row[2] for row in summary_table.rows(metrics, [gate]) if row[0] == "alpha"}
    assert (shown["adddiff"], shown["revtgt"], shown["revnon"]) == ("0 (+6 errors)", "6", "6")
