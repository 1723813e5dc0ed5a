"""`--model bert-pt` on the shared fine-tuned MiniLM checkpoints: real inference, predict-once, the cache.

The pair checkpoint's README states its ARTS restaurant scores (accuracy 82.14, ARS 47.41, variant
accuracy REVTGT 58.98, REVNON 73.87, ADDDIFF 73.04); the run must reproduce them within 0.1 points.
"""

from __future__ import annotations

import pytest

from conftest import PAIR_MODEL, SENTENCE_MODEL, SHARED_DATA, needs_extra, needs_shared_data, needs_shared_models

pytestmark = [needs_extra("transformers"), needs_shared_data, needs_shared_models, pytest.mark.slow]

ENV = {"ABSA_BERT_PT_PATH": str(PAIR_MODEL), "ABSA_BERT_SENT_PATH": str(SENTENCE_MODEL)}
ARGS = ["suites/", "-q", "--tb=no", "--absa-data", str(SHARED_DATA), "--absa-sources", "arts-restaurant"]


def pct(rate: dict) -> float:
    return 100 * rate["k"] / rate["n"]


@pytest.fixture(scope="module")
def pair_runs(tmp_path_factory):
    """A cold run into an empty cache, then a warm run from it."""
    from conftest import run_pytest

    folder = tmp_path_factory.mktemp("pair")
    args = ARGS + ["--model", "bert-pt", "--absa-cache", str(folder / "cache")]
    cold = run_pytest(args, report=folder / "cold.json", env=ENV)
    warm = run_pytest(args, report=folder / "warm.json", env=ENV)
    return cold, warm


def test_bert_pt_reproduces_the_checkpoint_readme(pair_runs):
    cold, _ = pair_runs
    assert cold.report is not None, cold.out[-3000:]
    source = cold.report["sources"]["arts-restaurant"]
    assert pct(source["original_accuracy"]) == pytest.approx(82.14, abs=0.1)
    assert pct(source["ars"]) == pytest.approx(47.41, abs=0.1)
    variants = {name: pct(s["variant_accuracy"]) for name, s in source["strategies"].items()}
    assert variants == pytest.approx({"revtgt": 58.98, "revnon": 73.87, "adddiff": 73.04}, abs=0.1)
    assert cold.report["run"]["model"]["input"] == "aspect-first"


def test_cold_run_predicts_each_unique_query_once_and_warm_run_loads_no_model(pair_runs):
    cold, warm = pair_runs
    first, second = cold.report["timing"]["predictions"], warm.report["timing"]["predictions"]
    # 3530 ARTS restaurant records; the model sees (aspect, sentence) only, and some repeat
    from absa_checks.sources import load_dataset

    units = load_dataset("arts-restaurant", SHARED_DATA).units
    examples = [u.original for u in units] + [v.example for u in units for found in u.given.values() for v in found]
    distinct = len({(e.target.term, e.sentence) for e in examples})
    assert len(examples) == 3530 and distinct < 3530
    assert first["unique_queries"] == first["predicted"] == distinct and first["cache_hits"] == 0
    assert first["model_calls"] == -(-first["predicted"] // 64) and first["model_loaded"]
    assert second["predicted"] == 0 and second["cache_hits"] == first["unique_queries"] and not second["model_loaded"]
    assert warm.report["sources"] == cold.report["sources"]  # the same answers, from the cache
    # how much faster the warm run is: benchmarks/performance/inference_overhead.py (docs/performance.md), not a test


def test_xdist_workers_predict_each_query_once_between_them(run):
    pytest.importorskip("xdist")
    result = run(ARGS + ["--model", "bert-pt", "--absa-no-cache", "--absa-sample", "80", "-n", "2"], env=ENV)
    stats = result.report["timing"]["predictions"]
    assert stats["processes"] == 2
    assert stats["predicted"] == stats["unique_queries"] > 100  # once in all, not once per worker


def test_the_sentence_only_checkpoint_fails_revnon_and_adddiff_clearly_more(pair_runs, run):
    cold, _ = pair_runs
    blind = run(ARGS + ["--model", "bert-sent", "--absa-no-cache"], env=ENV).report
    assert blind["run"]["model"]["input"] == "sentence-only"
    for strategy in ("revnon", "adddiff"):
        aware = cold.report["sources"]["arts-restaurant"]["strategies"][strategy]["fail_rate"]
        sentence = blind["sources"]["arts-restaurant"]["strategies"][strategy]["fail_rate"]
        assert sentence["ci95"][0] > aware["ci95"][1], (strategy, aware, sentence)  # intervals apart


def test_two_real_checkpoints_in_one_run_under_xdist(tmp_path):
    """bert-pt and bert-sent together: each predicted once between the workers, each checkpoint's numbers
    equal to its own run (read back warm from the shared cache, without loading a model)."""
    from conftest import run_pytest

    args = ARGS + ["--absa-sample", "60", "--absa-cache", str(tmp_path / "cache")]
    both = run_pytest(args + ["--model", "bert-pt,bert-sent", "-n", "2"], report=tmp_path / "both.json", env=ENV)
    assert both.report is not None, both.out[-3000:]
    stats = both.report["timing"]["predictions"]["per_checkpoint"]
    for name in ("bert-pt", "bert-sent"):
        assert stats[name]["predicted"] == stats[name]["unique_queries"] > 0 and stats[name]["model_loaded"]
        alone = run_pytest(args + ["--model", name], report=tmp_path / f"{name}.json", env=ENV).report
        assert alone["timing"]["predictions"]["cache_hits"] == stats[name]["unique_queries"]
        assert not alone["timing"]["predictions"]["model_loaded"]
        assert both.report["checkpoints"][name]["sources"] == alone["sources"]
    ars = both.report["sources"]["arts-restaurant"]["ars"]
    assert set(ars["per_checkpoint"]) == {"bert-pt", "bert-sent"} and ars["std"] > 0
