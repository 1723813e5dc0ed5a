"""Slice metrics on ARTS match counts computed by hand from the raw files; GCAE hard subsets load."""

from __future__ import annotations

import csv
import json
import re
from collections import defaultdict

import pytest

from absa_checks.sources import load_dataset
from conftest import ARTS_OUTPUT, SHARED_DATA, needs_shared_data

pytestmark = needs_shared_data
OPPOSITE = {"positive": "negative", "negative": "positive"}


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    from conftest import run_pytest

    out = tmp_path_factory.mktemp("slices") / "r.json"
    run_pytest(["suites/", "-q", "--tb=no", "--absa-data", str(SHARED_DATA), "--absa-sources", "arts-laptop",
                "--model", f"replay:{ARTS_OUTPUT / 'laptop_results.csv'}#bert_pt"], report=out)
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def by_hand():
    """Straight from the ARTS JSON and the CSV: each original's sentence mates and whether bert_pt got it right."""
    records = json.loads((SHARED_DATA / "arts/arts_testset/laptop_test_enriched.json").read_text())
    originals = {k: r for k, r in records.items() if "_adv" not in k}
    mates = defaultdict(list)
    for key, r in originals.items():
        mates[(key.rsplit("_", 1)[0], r["sentence"])].append(key)
    right = {row["id"]: row["bert_pt"] == row["gold_label"]
             for row in csv.DictReader((ARTS_OUTPUT / "laptop_results.csv").open())}
    rows = {}
    for key, r in originals.items():
        others = [originals[m]["polarity"] for m in mates[(key.rsplit("_", 1)[0], r["sentence"])] if m != key]
        rows[key] = {"multi": bool(others), "hard": any(p != r["polarity"] for p in others),
                     "opposite": sum(p == OPPOSITE.get(r["polarity"]) for p in others),
                     "gold": r["polarity"], "right": right[key]}
    return rows


@pytest.mark.parametrize("slice_name,keep", [
    ("aspects=multi", lambda r: r["multi"]),
    ("aspects=single", lambda r: not r["multi"]),
    ("hard=true", lambda r: r["hard"]),
    ("opposite_others=1", lambda r: r["opposite"] == 1),
    ("gold=neutral", lambda r: r["gold"] == "neutral"),
])
def test_slice_units_and_original_accuracy_match_a_hand_count(report, by_hand, slice_name, keep):
    chosen = [r for r in by_hand.values() if keep(r)]
    found = report["sources"]["arts-laptop"]["slices"][slice_name]
    assert found["units"] == len(chosen) > 0
    assert found["original_accuracy"]["k"] == sum(r["right"] for r in chosen)


def test_gold_slices_match_the_published_label_counts(report):
    slices = report["sources"]["arts-laptop"]["slices"]
    assert [slices[f"gold={g}"]["units"] for g in ("positive", "negative", "neutral")] == [341, 128, 169]


@pytest.mark.slow
def test_slices_appear_in_the_markdown_summary_and_in_the_terminal_with_v(run, tmp_path):
    markdown = tmp_path / "summary.md"
    args = ["suites/", "--tb=no", "--absa-data", str(SHARED_DATA), "--absa-sources", "arts-laptop",
            "--model", f"replay:{ARTS_OUTPUT / 'laptop_results.csv'}#bert_pt"]
    quiet = run(args + ["-q", "--absa-markdown", str(markdown)])
    text = markdown.read_text()
    assert "| source | slice | units | original accuracy | ARS [95% CI] |" in text
    assert "| arts-laptop | gold=positive | 341 |" in text
    assert "slices: 11 rows in the reports, or here with -v" in quiet.summary
    verbose = run(args + ["-v"])
    assert re.search(r"\narts-laptop\s+gold=positive\s+341\s+", verbose.summary)


def test_gcae_hard_subsets_load_as_sources():
    laptop = load_dataset("gcae-hard-laptop", SHARED_DATA)
    restaurant = load_dataset("gcae-hard-restaurant", SHARED_DATA)
    assert len(laptop.units) == 108 - 3  # 3 conflict items are never targets
    assert len(restaurant.units) + len(restaurant.issues) == 245 - 8  # 8 conflict; the rest loaded or reported
    for unit in laptop.units + restaurant.units:
        example = unit.original
        assert example.sentence[example.target.start:example.target.end] == example.target.term
        assert example.others  # every sentence of a "hard" subset has several aspects
