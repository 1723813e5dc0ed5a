"""`absa-checks augment`: adversarial training data from a training file, and the leakage guard that keeps
test sentences and their variants out of it."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from conftest import REPO, SHARED_DATA, needs_shared_data

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
