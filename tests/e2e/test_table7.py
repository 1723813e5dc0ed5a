"""Replaying the published ARTS predictions reproduces the paper's Table 7 (Xing et al., 2020).

Runs `pytest suites/` as a user would and reads the JSON report. Original accuracy and ARS are the
paper's numbers; each strategy's original -> variant accuracy is checked against the paper for
BERT-PT laptop and, for every model, against an independent computation straight from the CSV.
"""

from __future__ import annotations

import csv
from collections import defaultdict

import pytest

from conftest import ARTS_OUTPUT, SHARED_DATA, needs_shared_data

# (source, csv, column): (original accuracy, ARS), as printed in the paper's Table 7
PAPER = {
    ("arts-laptop", "laptop", "TD_LSTM"): (68.03, 22.57),
    ("arts-laptop", "laptop", "bert_sent"): (73.04, 17.40),
    ("arts-laptop", "laptop", "bert_pt"): (78.53, 53.29),
    ("arts-restaurant", "rest", "TD_LSTM"): (78.12, 30.18),
    ("arts-restaurant", "rest", "bert_sent"): (80.62, 10.89),
    ("arts-restaurant", "rest", "bert_pt"): (86.70, 59.29),
}
PAPER_BERT_PT_LAPTOP_STRATEGIES = {"revtgt": (82.40, 60.09), "revnon": (93.33, 83.70), "adddiff": (78.53, 75.71)}
SUFFIX = {"_adv1": "revtgt", "_adv2": "revnon", "_adv4": "adddiff", "_adv3": "adddiff"}


def pct(rate: dict) -> float:
    return round(100 * rate["k"] / rate["n"], 2)


def strategies_from_csv(path, column) -> dict[str, tuple[float, float]]:
    """Per strategy (original accuracy on the units with that variant, variant accuracy), from the CSV alone."""
    units: dict[str, dict[str, bool]] = defaultdict(dict)
    for row in csv.DictReader(path.open(encoding="utf-8")):
        unit, kind = row["id"], "original"
        for suffix, strategy in SUFFIX.items():
            if unit.endswith(suffix):
                unit, kind = unit[: -len(suffix)], strategy
        units[unit][kind] = row[column] == row["gold_label"]
    result = {}
    for strategy in ("revtgt", "revnon", "adddiff"):
        having = [u for u in units.values() if strategy in u]
        result[strategy] = (round(100 * sum(u["original"] for u in having) / len(having), 2),
                            round(100 * sum(u[strategy] for u in having) / len(having), 2))
    return result


@needs_shared_data
@pytest.mark.parametrize("source,domain,column", list(PAPER), ids=[f"{s}-{c}" for s, _, c in PAPER])
def test_replay_reproduces_table7(run, source, domain, column):
    predictions = ARTS_OUTPUT / f"{domain}_results.csv"
    result = run(["suites/", "-q", "--absa-data", str(SHARED_DATA), "--absa-sources", source,
                  "--model", f"replay:{predictions}#{column}"])
    assert result.report is not None, result.out[-3000:]
    metrics = result.report["sources"][source]
    assert (pct(metrics["original_accuracy"]), pct(metrics["ars"])) == PAPER[(source, domain, column)]
    assert metrics["units"] == {"arts-laptop": 638, "arts-restaurant": 1120}[source]
    measured = {name: (pct(s["original_accuracy"]), pct(s["variant_accuracy"]))
                for name, s in metrics["strategies"].items()}
    assert measured == strategies_from_csv(predictions, column)
    if (source, column) == ("arts-laptop", "bert_pt"):
        assert measured == PAPER_BERT_PT_LAPTOP_STRATEGIES
    assert result.report["summary"]["errors"] == 0
    assert "arts-laptop" in result.summary or "arts-restaurant" in result.summary
