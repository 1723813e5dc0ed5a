"""Generated variants are kept in the cache folder between runs: read back exactly, generated again when the
generator, the unit or the row changes, and a run reads them instead of loading WordNet."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace

import pytest

from absa_checks.common.examples import Aspect, Edit, Example, Opinion, Variant
from absa_checks.models.cache import PredictionCache
from absa_checks.perturb import outcome_json
from absa_checks.perturb.engine import Quarantined
from absa_checks.perturb.strategies import NotApplicable
from absa_checks.perturb.variants import VariantRequest
from absa_checks.run.run_state import StoredOutcomes, VariantCache
from absa_checks.sources.catalog import load_named
from conftest import run_pytest

STRATEGIES = ("revtgt", "revnon", "adddiff", "revnon+adddiff")


@pytest.fixture(scope="module")
def restaurant():
    loaded = load_named("builtin-restaurant", None)
    return loaded, tuple(loaded.units[:40])


@pytest.fixture(scope="module")
def cold(restaurant, tmp_path_factory):
    """Every strategy's variants, generated once into a fresh store."""
    loaded, units = restaurant
    folder = tmp_path_factory.mktemp("store")
    cache = VariantCache(0, StoredOutcomes(PredictionCache(folder)))
    return folder, {s: cache.variants(VariantRequest(s), loaded, units) for s in STRATEGIES}


def _never(domain):
    raise AssertionError(f"generated for {domain}: the store should have answered")


def _warm(folder, generator: str | None = None) -> VariantCache:
    store = StoredOutcomes(PredictionCache(folder))
    if generator is not None:
        store.generator = generator
    cache = VariantCache(0, store)
    cache.resources = _never  # type: ignore[method-assign]
    return cache


def test_every_outcome_reads_back_exactly():
    example = Example("Tasty burgers, soggy “fries”.", Aspect("burgers", 6, 13, "positive"),
                      (Aspect("“fries”", 21, 28, "negative"),), (Opinion("Tasty", 0, 5, 0, True),), "r1")
    variant = Variant("revtgt", example, (Edit(0, 5, "Tasty", "Bland", "antonym"),), "generated",
                      {"rewriter": "x", "n": 1})
    for outcome in (variant, replace(variant, provenance=None), Quarantined("s", "u1", "revnon", "why", "d", "x"),
                    NotApplicable("the target has no opinion words")):
        back = outcome_json.loads(outcome_json.dumps(outcome))
        assert back == outcome and type(back) is type(outcome)
        assert getattr(back, "provenance", None) == getattr(outcome, "provenance", None)  # not compared by ==


@pytest.mark.parametrize("text", ["", "[]", "{}", '{"variant": {}}', '{"quarantined": {"x": 1}}',
                                  '{"not_applicable": 3}', '{"other": "x"}', '{"a": 1, "b": 2}'])
def test_a_text_that_is_no_outcome_is_a_value_error(text):
    with pytest.raises(ValueError, match="not a stored outcome"):
        outcome_json.loads(text)


def test_a_second_run_reads_every_strategys_variants_without_generating(restaurant, cold):
    loaded, units = restaurant
    folder, first = cold
    assert {s: len(v.by_unit) for s, v in first.items()}["adddiff"] == len(units)
    warm = _warm(folder)
    for strategy in STRATEGIES:
        again = warm.variants(VariantRequest(strategy), loaded, units)
        assert again == first[strategy]
    assert warm.store is not None and warm.store.read == len(STRATEGIES) * len(units)


def test_another_generator_another_seed_or_another_annotation_is_generated_again(restaurant, cold):
    loaded, units = restaurant
    folder, first = cold
    with pytest.raises(AssertionError, match="generated for restaurant"):
        _warm(folder, generator="another generator").variants(VariantRequest("revtgt"), loaded, units)
    other_seed = _warm(folder)
    other_seed.seed = 1
    with pytest.raises(AssertionError, match="generated for restaurant"):
        other_seed.variants(VariantRequest("adddiff"), loaded, units)
    with pytest.raises(AssertionError, match="generated for restaurant"):
        _warm(folder).variants(VariantRequest("adddiff", params=(("k", 2),)), loaded, units)
    unit = units[0]
    flipped = replace(unit, original=replace(unit.original, target=replace(unit.original.target, polarity="neutral")))
    with pytest.raises(AssertionError, match="generated for restaurant"):
        _warm(folder).variants(VariantRequest("revtgt"), loaded, (flipped,))


def test_a_damaged_row_is_generated_again_and_rewritten(restaurant, tmp_path):
    loaded, units = restaurant
    units = units[:5]
    first = VariantCache(0, StoredOutcomes(PredictionCache(tmp_path))).variants(VariantRequest("revtgt"), loaded, units)
    with sqlite3.connect(tmp_path / "predictions.sqlite") as db:
        db.execute("UPDATE variants SET outcome = '{\"variant\": 1}'")
    again = VariantCache(0, StoredOutcomes(PredictionCache(tmp_path)))
    assert again.variants(VariantRequest("revtgt"), loaded, units) == first
    assert again.store is not None and again.store.read == 0
    with sqlite3.connect(tmp_path / "predictions.sqlite") as db:
        assert all(json.loads(text) for text, in db.execute("SELECT outcome FROM variants"))
    assert _warm(tmp_path).variants(VariantRequest("revtgt"), loaded, units) == first


SUITE = """\
suite: store
tests:
  - name: reversal
    strategy: revtgt
    sources: [builtin-restaurant]
  - name: others
    strategy: revnon+adddiff
    sources: [builtin-laptop]
"""


@pytest.mark.slow
def test_a_warm_run_gives_the_cold_runs_cases_and_outcomes(tmp_path):
    (tmp_path / "suite.yaml").write_text(SUITE)
    runs = [run_pytest([str(tmp_path / "suite.yaml"), "--absa-cache", str(tmp_path / "cache"), "-q"], cwd=tmp_path,
                       report=tmp_path / f"report-{n}.json") for n in range(2)]
    assert [r.code for r in runs] == [runs[0].code] * 2 and runs[0].report is not None, runs[0].out
    cases = [[(c["nodeid"], c["variant"], c["status"], c.get("reason")) for c in r.report["cases"]] for r in runs]
    assert cases[0] and cases[0] == cases[1]
    with sqlite3.connect(tmp_path / "cache" / "predictions.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM variants").fetchone()[0] > 0
