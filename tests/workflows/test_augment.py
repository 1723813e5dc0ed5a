"""`absa-checks augment`: adversarial training data from a training file, and the leakage guard that keeps
test sentences and their variants out of it."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import PAIR_MODEL, REPO, SHARED_DATA, needs_extra, needs_shared_data, needs_shared_models

SEMEVAL = SHARED_DATA / "semeval2014"


def augment(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "absa_checks.cli", "augment", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=600)


def training_file(path: Path, extra: list[ET.Element] = ()) -> Path:
    """The first 40 sentences of SemEval-2014's restaurant training set (read from ../shared at test time)."""
    root = ET.parse(SEMEVAL / "Restaurants_Train_v2.xml").getroot()
    sentences = ET.Element("sentences")
    for sentence in [*list(root.iter("sentence"))[:40], *extra]:
        sentences.append(sentence)
    ET.ElementTree(sentences).write(path, encoding="unicode")
    return path


@pytest.mark.slow
@needs_shared_data
def test_variants_of_a_training_file_as_jsonl_and_semeval_xml(tmp_path):
    train = training_file(tmp_path / "train.xml")
    done = augment("--input", str(train), "--out", str(tmp_path / "aug.jsonl"), "--domain", "restaurant",
                   "--adddiff-per-unit", "2", "--data", str(SHARED_DATA))
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in (tmp_path / "aug.jsonl").read_text().splitlines()]
    assert {"sentence", "term", "from", "to", "polarity", "strategy", "unit"} <= set(records[0])
    for r in records:
        assert r["sentence"][r["from"]:r["to"]] == r["term"]
        flips = r["strategy"] == "revtgt"
        assert (r["polarity"] != r["original"]["polarity"]) == (flips and r["original"]["polarity"] != "neutral")
    adddiff = [r for r in records if r["strategy"] == "adddiff"]
    units = {r["unit"] for r in adddiff}
    assert len(adddiff) > len(units)  # two per unit where two distinct ones were drawn
    assert "no test sentence in the input" in done.stderr and "adddiff: " in done.stderr
    xml = augment("--input", str(train), "--out", str(tmp_path / "aug.xml"), "--domain", "restaurant")
    assert xml.returncode == 0, xml.stderr
    parsed = ET.parse(tmp_path / "aug.xml").getroot()
    first = parsed.find("sentence")
    terms = first.findall("aspectTerms/aspectTerm")
    assert terms and all(first.findtext("text")[int(t.get("from")):int(t.get("to"))] == t.get("term") for t in terms)


@pytest.mark.slow
@needs_shared_data
def test_the_leakage_guard_refuses_test_sentences_and_their_variants(tmp_path):
    test = ET.parse(SEMEVAL / "Restaurants_Test_Gold.xml").getroot()
    leaked = next(s for s in test.iter("sentence") if s.find("aspectTerms") is not None)
    arts = json.loads((SHARED_DATA / "arts" / "arts_testset" / "rest_test_enriched.json").read_text())
    record = next(r for key, r in arts.items() if key.endswith("_adv1"))  # a REVTGT variant of a test sentence
    variant_text = record["sentence"]
    variant = ET.Element("sentence", id="v1")
    ET.SubElement(variant, "text").text = variant_text
    terms = ET.SubElement(variant, "aspectTerms")
    ET.SubElement(terms, "aspectTerm", term=record["term"], polarity=record["polarity"],
                  **{"from": str(record["from"]), "to": str(record["to"])})
    train = training_file(tmp_path / "train.xml", [leaked, variant])
    refused = augment("--input", str(train), "--out", str(tmp_path / "aug.jsonl"), "--domain", "restaurant",
                      "--data", str(SHARED_DATA))
    assert refused.returncode == 2 and "2 input sentences are test sentences or variants of them" in refused.stderr
    assert "--drop-leaks" in refused.stderr and not (tmp_path / "aug.jsonl").exists()
    dropped = augment("--input", str(train), "--out", str(tmp_path / "aug.jsonl"), "--domain", "restaurant",
                      "--data", str(SHARED_DATA), "--drop-leaks")
    assert dropped.returncode == 0 and "2 input sentences dropped" in dropped.stderr
    sentences = {json.loads(line)["original"]["sentence"] for line in (tmp_path / "aug.jsonl").read_text().splitlines()}
    assert leaked.findtext("text") not in sentences and variant_text not in sentences


@needs_extra("transformers")
@needs_shared_data
@needs_shared_models
@pytest.mark.slow
def test_the_training_recipe_is_wired_end_to_end(tmp_path, run):
    """examples/adversarial_training/train.py on a few dozen records (one epoch; the real recipe runs 8 on
    the whole training set), then the suites on the result with --absa-baseline on the shared checkpoint."""
    train = training_file(tmp_path / "train.xml")
    made = augment("--input", str(train), "--out", str(tmp_path / "aug.jsonl"), "--domain", "restaurant")
    assert made.returncode == 0, made.stderr
    src = SHARED_DATA / "arts" / "src_data" / "rest"
    trained = subprocess.run([sys.executable, str(REPO / "examples" / "adversarial_training" / "train.py"),
                              "--train", str(src / "train.json"), "--train", str(tmp_path / "aug.jsonl"),
                              "--dev", str(src / "dev.json"), "--out", str(tmp_path / "model"), "--limit", "48",
                              "--epochs", "1", "--base", str(PAIR_MODEL)], capture_output=True, text=True, timeout=600)
    assert trained.returncode == 0, trained.stderr[-2000:]
    log = json.loads((tmp_path / "model" / "training_log.json").read_text())
    assert log["records"] == 48 and log["log"][0]["epoch"] == 1
    args = ["suites/directional/revtgt.yaml", "--absa-sources", "builtin-restaurant", "--absa-sample", "20"]
    released = run([*args, "--absa-model", f"transformers:{PAIR_MODEL}"])
    (tmp_path / "released.json").write_text(json.dumps(released.report))
    candidate = run([*args, "--absa-model", f"transformers:{tmp_path / 'model'}", "--absa-baseline",
                     str(tmp_path / "released.json")])
    assert "comparison" in candidate.report and any(g["gate"] == "no_regression" for g in candidate.report["gates"])


@needs_extra("report")  # the PNG of the curves
def test_the_adddiff_k_curve_reads_each_models_report(tmp_path):
    def report(rates):
        return {"tests": [{"test": f"suites/invariance/adddiff_k.yaml::adddiff_k{k}", "source": "s",
                           "fail_rate": {"value": v, "ci95": [v - 0.01, v + 0.02], "n": 100, "k": int(100 * v)}}
                          for k, v in enumerate(rates, 1)]
                + [{"test": "x.yaml::adddiff_k1", "source": "other", "fail_rate": {"value": 0.9, "n": 1}}]}
    for name, rates in (("a", [0.1, 0.2]), ("b", [0.05, 0.07])):
        (tmp_path / f"{name}.json").write_text(json.dumps(report(rates)))
    out = tmp_path / "curve.png"
    done = subprocess.run([sys.executable, "examples/adversarial_training/adddiff_k_curve.py", f"plain={tmp_path / 'a.json'}",
                           f"augmented={tmp_path / 'b.json'}", "--source", "s", "--out", str(out)],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "| plain | 10.0 [9.0, 12.0] | 20.0 [19.0, 22.0] |" in done.stdout
    assert "| augmented | 5.0 [4.0, 7.0] | 7.0 [6.0, 9.0] |" in done.stdout
    assert out.read_bytes()[:4] == b"\x89PNG"
    missing = subprocess.run([sys.executable, "examples/adversarial_training/adddiff_k_curve.py",
                              f"plain={tmp_path / 'a.json'}", "--source", "nowhere"], cwd=REPO, capture_output=True,
                             text=True, timeout=120)
    assert missing.returncode == 2 and "no adddiff_k test on nowhere" in missing.stderr
