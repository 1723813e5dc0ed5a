"""Splits x seeds: the variance between and within splits, against the hand formula.

End to end: six replayed prediction sets (the published ARTS laptop predictions of two models, each
perturbed three ways, standing for three seeds) as a nested models.yaml group of 2 splits x 3 seeds.
Each checkpoint's ARS and accuracy are computed here straight from the CSVs, and the decomposition by
the formula written out below; the report must agree.
"""

from __future__ import annotations

import csv
import hashlib
import math
from collections import defaultdict
from fractions import Fraction

import pytest

from absa_checks.common.errors import AbsaChecksError
from absa_checks.judge.splits import decompose
from absa_checks.models.adapters import read_groups, resolve_run
from conftest import ARTS_OUTPUT, SHARED_DATA, needs_shared_data

SUFFIXES = ("_adv1", "_adv2", "_adv3", "_adv4")
ROTATE = {"positive": "negative", "negative": "neutral", "neutral": "positive"}


def hand(values: dict[str, list[float]]) -> tuple[float, float]:
    """(between, within), exactly as docs/readiness.md writes them, in exact fractions."""
    exact = {s: [Fraction(v) for v in found] for s, found in values.items()}
    means = {s: sum(found) / len(found) for s, found in exact.items()}
    grand = sum(means.values()) / len(means)
    between = sum((m - grand) ** 2 for m in means.values()) / (len(means) - 1)
    n = sum(len(found) for found in exact.values())
    within = sum((v - means[s]) ** 2 for s, found in exact.items() for v in found) / (n - len(exact))
    return float(between), float(within)


def test_decompose_matches_the_formula_on_small_numbers():
    found = decompose({"a": [0.5, 0.6, 0.7], "b": [0.8, 0.8, 0.9]})
    # split means 0.6 and 0.8333..; between = 2 * (0.11666..)^2 / 1; within = (0.02 + 0.00666..) / 4
    assert found.between == pytest.approx(2 * (0.7166666666666667 - 0.6) ** 2, abs=1e-15)
    assert found.between == pytest.approx(0.0272222222222222, abs=1e-15)
    assert found.within == pytest.approx(0.0066666666666667, abs=1e-15)
    assert found.mean == pytest.approx(4.3 / 6, abs=1e-15)
    assert [s.mean for s in found.splits] == [pytest.approx(0.6), pytest.approx(2.5 / 3)]


def test_one_split_has_no_between_and_single_seeds_no_within():
    assert decompose({"a": [0.5, 0.7]}).between is None
    assert decompose({"a": [0.5], "b": [0.7]}).within is None
    assert decompose({"a": [0.5], "b": [0.7]}).between == pytest.approx(0.02)


def test_a_nested_group_lists_its_splits_in_order(tmp_path):
    models = tmp_path / "models.yaml"
    models.write_text("models:\n" + "".join(f"  m{i}: {{kind: lexicon, scope: target}}\n" for i in range(4))
                      + "groups:\n  grid:\n    splits: {s1: [m0, m1], s2: [m2, m3]}\n"
                        "    claims: {source: builtin-restaurant, accuracy: 0.6}\n")
    resolved = resolve_run("grid", models)
    assert [s.name for s in resolved.specs] == ["m0", "m1", "m2", "m3"]
    assert resolved.group.splits == (("s1", ("m0", "m1")), ("s2", ("m2", "m3")))
    assert resolved.claims["grid"][0].value == 0.6


@pytest.mark.parametrize("body,message", [
    ("grid: {splits: [m0, m1]}", "splits must map split names"),
    ("grid: {members: [m0], splits: {s1: [m1]}}", "members: [...] or splits"),
    ("grid: {splits: {s1: [m0]}, seeds: 3}", "unknown key(s) seeds"),
    ("grid: {splits: {s1: [m0]}, claims: {source: x, ars: 59.3}}", "write 0.593 for 59.3%"),
    ("grid: {splits: {s1: [m0]}, claims: {accuracy: 0.8}}", "needs 'source:'"),
])
def test_a_wrong_group_is_one_clear_message(tmp_path, body, message):
    models = tmp_path / "models.yaml"
    models.write_text("models:\n  m0: {kind: lexicon}\n  m1: {kind: lexicon}\ngroups:\n  " + body + "\n")
    with pytest.raises(AbsaChecksError) as err:
        read_groups(models)
    assert message in str(err.value) and str(models) in str(err.value)


def perturbed(rows: list[dict], column: str, tag: str) -> dict[str, str]:
    """id -> prediction: the column's, with about one row in eight rotated (which ones depends on tag)."""
    found = {}
    for row in rows:
        digest = int(hashlib.sha256(f"{tag}:{row['id']}".encode()).hexdigest(), 16)
        found[row["id"]] = ROTATE[row[column]] if digest % 8 == 0 else row[column]
    return found


def scores(rows: list[dict], predicted: dict[str, str]) -> tuple[float, float]:
    """(accuracy on the originals, ARS) from the CSV alone."""
    units: dict[str, list[bool]] = defaultdict(list)
    originals = {}
    for row in rows:
        unit = row["id"]
        for suffix in SUFFIXES:
            unit = unit[: -len(suffix)] if unit.endswith(suffix) else unit
        right = predicted[row["id"]] == row["gold_label"]
        units[unit].append(right)
        if unit == row["id"]:
            originals[unit] = right
    return (sum(originals.values()) / len(originals),
            sum(all(found) for found in units.values()) / len(units))


@pytest.mark.slow
@needs_shared_data
def test_two_splits_of_three_replayed_seeds_decompose_as_the_hand_formula(run, tmp_path):
    source_csv = ARTS_OUTPUT / "laptop_results.csv"
    rows = list(csv.DictReader(source_csv.open(encoding="utf-8")))
    layout = {"split-1": ("bert_pt", ["a1", "a2", "a3"]), "split-2": ("bert_sent", ["b1", "b2", "b3"])}
    entries, expected = [], {"ARS": defaultdict(list), "original accuracy": defaultdict(list)}
    for split, (column, seeds) in layout.items():
        for seed in seeds:
            predicted = perturbed(rows, column, seed)
            path = tmp_path / f"{seed}.csv"
            with path.open("w", encoding="utf-8", newline="") as out:
                writer = csv.writer(out)
                writer.writerow(["id", "gold_label", "prediction"])
                writer.writerows([row["id"], row["gold_label"], predicted[row["id"]]] for row in rows)
            entries.append(f"  {seed}: {{kind: replay, path: {path}, column: prediction}}\n")
            accuracy, ars = scores(rows, predicted)
            expected["original accuracy"][split].append(accuracy)
            expected["ARS"][split].append(ars)
    models = tmp_path / "models.yaml"
    models.write_text("models:\n" + "".join(entries) + "groups:\n  grid:\n    splits:\n"
                      + "".join(f"      {split}: [{', '.join(seeds)}]\n" for split, (_, seeds) in layout.items()))
    result = run(["suites/", "-q", "--absa-data", str(SHARED_DATA), "--absa-sources", "arts-laptop",
                  "--absa-models", str(models), "--model", "grid"])
    assert result.report is not None, result.out[-3000:]
    found = result.report["splits"]["sources"]["arts-laptop"]
    for metric in ("ARS", "original accuracy"):
        mine = found[metric]
        for split in layout:
            assert mine["per_split"][split]["values"] == pytest.approx(expected[metric][split], abs=1e-12)
        between, within = hand(expected[metric])
        assert mine["between_split_variance"] == pytest.approx(between, rel=1e-12)
        assert mine["within_split_variance"] == pytest.approx(within, rel=1e-12)
        assert mine["between_split_std"] == pytest.approx(math.sqrt(between), rel=1e-12)
    # the two published models differ a lot, their perturbations a little: between >> within
    assert found["ARS"]["between_split_variance"] > 10 * found["ARS"]["within_split_variance"]
    assert result.report["splits"]["splits"] == {"split-1": ["a1", "a2", "a3"], "split-2": ["b1", "b2", "b3"]}
    trait = result.report["readiness"]["variance between and within splits"]
    assert trait["verdict"] == "reported" and "2 splits" in trait["evidence"]
    assert "splits x seeds" in result.summary and "between" in result.summary


def grid_project(tmp_path) -> None:
    """tests/e2e/test_exit_status.py's tiny suite, and a 2 x 2 group whose checkpoint b2 raises on every prediction."""
    from e2e.test_exit_status import setup_project
    setup_project(tmp_path, "gates: {max_fail_rate: 1.0}")
    with (tmp_path / "mymodel.py").open("a") as module:
        module.write("\n\ndef seed_2(queries):\n    return by_first_clause(queries)\n")
    (tmp_path / "models.yaml").write_text(
        "models:\n  a1: {kind: python, target: 'mymodel:by_first_clause'}\n"
        "  a2: {kind: python, target: 'mymodel:seed_2'}\n  b1: {kind: lexicon}\n  b2: {kind: python, target: 'mymodel:boom'}\n"
        "groups:\n  grid:\n    splits: {s1: [a1, a2], s2: [b1, b2]}\n")


def test_a_checkpoint_that_raises_on_every_prediction_makes_the_splits_variance_not_decided(run, tmp_path):
    grid_project(tmp_path)
    result = run(["suite.yaml", "--absa-models", "models.yaml", "--model", "grid"], cwd=tmp_path)
    assert result.code == 1 and result.report is not None, result.out[-3000:]
    ars = result.report["splits"]["sources"]["tiny"]["ARS"]
    assert ars["partial"] is True and ars["between_split_variance"] is None and ars["within_split_variance"] is None
    assert ars["std"] is None and list(ars["missing"]) == ["b2"]
    assert "3 of its 3 cases had no prediction" in ars["missing"]["b2"] and "the model exploded" in ars["missing"]["b2"]
    trait = result.report["readiness"]["variance between and within splits"]
    assert trait["verdict"] == "not decided" and "b2 measured nothing" in trait["evidence"]
    row = next(line for line in result.summary.splitlines() if line.startswith("tiny    ARS ")
               and "partial" in line)
    assert "(partial, without b2)" in row and row.count("not decided") == 2
    assert not result.report["verdict"]["passed"]


def test_a_deselected_checkpoint_of_a_splits_group_never_passes_silently(run, tmp_path):
    grid_project(tmp_path)
    result = run(["suite.yaml", "--absa-models", "models.yaml", "--model", "grid", "-k", "not b2"], cwd=tmp_path)
    assert result.code == 1 and result.report is not None, result.out[-3000:]
    assert result.report["splits"]["sources"]["tiny"]["ARS"]["missing"] == {
        "b2": "no case of the run ran on it, deselected or not collected"}
    assert not result.report["verdict"]["passed"]
    assert "absa-checks FAILED: the splits x seeds variance is not decided: b2 measured nothing" in result.out
