"""The leakage guard without options: the package knows the public test sets by the fingerprints of their
normalised sentences (absa_checks/fixtures/public_test_sets.sha256.txt, built by
scripts/build_leakage_fingerprints.py), so `augment` refuses them with or without --data."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from absa_checks.suites.files import load_file
from absa_checks.workflows import augment
from absa_checks.workflows.leakage import (
    FINGERPRINTS_FILE,
    fingerprint,
    normalise,
    sets_by_fingerprint,
    shipped_test_sets,
)
from conftest import REPO, SHARED_DATA, needs_shared_data

SHIPPED = REPO / "absa_checks" / "fixtures" / FINGERPRINTS_FILE
SCRIPT = REPO / "scripts" / "build_leakage_fingerprints.py"
SEMEVAL = SHARED_DATA / "semeval2014"
TEST_SETS = ["semeval14-restaurant", "semeval14-laptop", "arts-restaurant", "arts-laptop", "mams-restaurant",
             "gcae-hard-restaurant", "gcae-hard-laptop"]
SET_NAMES = TEST_SETS + [f"{name}:generated" for name in TEST_SETS]  # and the variants absa-checks makes of them


def augment_cli(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "ABSA_DATA_DIR"}  # no data directory anywhere
    return subprocess.run([sys.executable, "-m", "absa_checks.cli", "augment", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=600)


def build_script():
    spec = importlib.util.spec_from_file_location("build_leakage_fingerprints", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def public() -> dict[str, tuple[str, ...]]:
    return sets_by_fingerprint(shipped_test_sets())


def xml_of(path: Path, sentences: list[ET.Element]) -> Path:
    root = ET.Element("sentences")
    root.extend(sentences)
    ET.ElementTree(root).write(path, encoding="unicode")
    return path


def with_aspects(path: Path) -> list[ET.Element]:
    return [s for s in ET.parse(path).getroot().iter("sentence") if s.find("aspectTerms") is not None]


# -- the shipped file -------------------------------------------------------------------------------------

def test_the_shipped_file_holds_fingerprints_of_every_public_test_set_and_no_sentence():
    sets = shipped_test_sets()
    assert [s.name for s in sets] == SET_NAMES
    lines = [line for line in SHIPPED.read_text(encoding="utf-8").splitlines()
             if line and not line.startswith(("#", "["))]
    assert lines and all(re.fullmatch(r"[0-9a-f]{16}", line) for line in lines)  # hashes only, no text
    assert all(len(s.fingerprints) >= 40 for s in sets)
    assert SHIPPED.stat().st_size < 1_000_000  # the generated variants included


@pytest.mark.slow
@needs_shared_data
def test_the_shipped_file_equals_what_the_script_builds_from_the_shared_data(tmp_path):
    out = tmp_path / "built.txt"
    built = subprocess.run([sys.executable, str(SCRIPT), "--data", str(SHARED_DATA), "--out", str(out)],
                           capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    assert out.read_text(encoding="utf-8") == SHIPPED.read_text(encoding="utf-8"), (
        "the shipped fingerprints are stale: run scripts/build_leakage_fingerprints.py and commit the result")


def test_the_script_refuses_a_folder_without_the_test_sets_and_writes_nothing(tmp_path):
    (tmp_path / "semeval2014").mkdir()
    out = tmp_path / "built.txt"
    built = subprocess.run([sys.executable, str(SCRIPT), "--data", str(tmp_path), "--out", str(out)],
                           capture_output=True, text=True, timeout=300)
    assert built.returncode != 0 and "Traceback" not in built.stderr
    assert "lacks semeval2014/Restaurants_Test_Gold.xml" in built.stderr and not out.exists()


# -- normalisation: what counts as the same sentence ----------------------------------------------------------

@pytest.mark.parametrize("variant", [
    "THE LAMB STEW WAS FINE, BUT THE WAITER DIDN'T SMILE.",       # case
    "the lamb  stew was fine ,but the waiter didn't smile .",      # spacing and punctuation spacing
    "The lamb stew was fine , but the waiter did n't smile .",     # tokenised (PTB) as TOWE and ASQP are
    "The lamb stew was fine, but the waiter didn\u2019t smile.",   # a typographic apostrophe
    "The\u00a0lamb stew was fine \u2014 but the waiter didn't smile!",  # no-break space, a dash, "!"
    "\uff34he lamb stew was \ufb01ne, but the waiter didn't smile.",  # full-width T, the "fi" ligature (NFKC)
    "  The lamb stew was fine, but the waiter didn't smile.\n",    # leading and trailing whitespace
    "The lamb st\u00e9w was f\u00efne, but the waiter didn't smile.",  # accents (composed)
    "The lamb ste\u0301w was fine, but the waiter didn't smile.",      # an accent as a combining mark
    "The lamb stew was fine, but the waiter didn&#39;t smile.",     # an HTML entity from a scraped copy
])
def test_a_sentence_differing_only_in_case_spacing_punctuation_or_unicode_form_is_the_same(variant):
    sentence = "The lamb stew was fine, but the waiter didn't smile."
    assert normalise(variant) == normalise(sentence) and fingerprint(variant) == fingerprint(sentence)


@pytest.mark.parametrize("other", [
    "The lamb stew was fine, but the waiter didn't smile at all.",  # a word more
    "The lamb stew was fine, but the waiter did smile.",             # a word changed
    "The lamb stew was fine, but the waitress didn't smile.",
])
def test_a_sentence_with_other_words_is_another_sentence(other):
    assert fingerprint(other) != fingerprint("The lamb stew was fine, but the waiter didn't smile.")


# -- the guard, on the real test sets -----------------------------------------------------------------------

@needs_shared_data
@pytest.mark.parametrize("relative, named", [
    ("semeval2014/Restaurants_Test_Gold.xml", "semeval14-restaurant"),
    ("semeval2014/Laptops_Test_Gold.xml", "semeval14-laptop"),
    ("arts/arts_testset/rest_test_enriched.json", "arts-restaurant"),
    ("arts/arts_testset/laptop_test_enriched.json", "arts-laptop"),
    ("mams/MAMS-ATSA/raw/test.xml", "mams-restaurant"),
    ("arts/src_data/rest/test_sent_towe.json", "semeval14-restaurant"),  # the same sentences, other layouts
    ("arts/src_data/laptop/test.json", "semeval14-laptop"),
    ("arts/src_data/mams/test_sent_towe.json", "mams-restaurant"),
])
def test_every_unit_of_a_public_test_file_is_caught_in_any_layout_augment_reads(relative, named):
    loaded = load_file(SHARED_DATA / relative)
    found = augment.leaks(loaded, {}, public())
    assert loaded.units and len(found) == len(loaded.units)
    assert all(named in leak.test_sources for leak in found)


@needs_shared_data
@pytest.mark.parametrize("relative", ["towe/14res/test.tsv", "towe/14lap/test.tsv"])
def test_the_tokenised_towe_copies_of_the_test_sets_are_caught(relative):
    """TOWE's space-tokenised sentences ("could n't", "$ 150") have the fingerprints of the originals."""
    rows = (SHARED_DATA / relative).read_text(encoding="utf-8").splitlines()[1:]
    known = public()
    sentences = {row.split("\t")[1] for row in rows}
    assert sentences and all(fingerprint(s) in known for s in sentences)


@needs_shared_data
@pytest.mark.parametrize("relative", ["gcae_hard/atsa-restaurant/atsa_hard_test.json",
                                      "gcae_hard/atsa-laptop/atsa_hard_test.json"])
def test_the_lower_cased_gcae_hard_sentences_are_the_semeval_test_sentences(relative):
    domain = "restaurant" if "restaurant" in relative else "laptop"
    known = public()
    records = json.loads((SHARED_DATA / relative).read_text(encoding="utf-8"))
    assert all({f"gcae-hard-{domain}", f"semeval14-{domain}"} <= set(known[fingerprint(r["sentence"])])
               for r in records)


@pytest.mark.slow
@needs_shared_data
def test_augment_refuses_the_semeval_restaurant_test_set_without_data(tmp_path):
    out = tmp_path / "aug.jsonl"
    refused = augment_cli("--input", str(SEMEVAL / "Restaurants_Test_Gold.xml"), "--out", str(out))
    assert refused.returncode == 2 and not out.exists()
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in refused.stderr
    # 600 of the file's 800 sentences carry a non-conflict aspect: the 1,120 units augment would vary
    assert "augment: 600 input sentences are test sentences or variants of them (1,120 units), " \
           "in semeval14-restaurant 600," in lines[0]
    assert "--drop-leaks" in lines[0]
    dropped = augment_cli("--input", str(SEMEVAL / "Restaurants_Test_Gold.xml"), "--out", str(out), "--drop-leaks")
    assert dropped.returncode == 2 and not out.exists()
    assert "all 600 input sentences are test sentences" in dropped.stderr and "nothing was written" in dropped.stderr


@pytest.mark.slow
@needs_shared_data
def test_drop_leaks_drops_and_counts_test_sentences_and_keeps_the_training_ones(tmp_path):
    """A training file with test sentences in it, altered in case and spacing, and an ARTS variant in markup."""
    train = with_aspects(SEMEVAL / "Restaurants_Train_v2.xml")[:30]
    test = with_aspects(SEMEVAL / "Laptops_Test_Gold.xml")[:3]
    for sentence in test[:2]:  # case and spacing changed; the offsets stay valid
        text = sentence.find("text")
        text.text = text.text.upper().replace(" ", "\t", 1)
        for term in sentence.iter("aspectTerm"):
            term.set("term", term.get("term").upper())
    path = xml_of(tmp_path / "train.xml", [*train, *test])
    assert all(fingerprint(s.findtext("text")) not in public() for s in train)  # real training sentences
    out = tmp_path / "aug.jsonl"
    refused = augment_cli("--input", str(path), "--out", str(out), "--domain", "laptop")
    assert refused.returncode == 2 and not out.exists()
    assert "augment: 3 input sentences are test sentences or variants of them" in refused.stderr
    assert "in semeval14-laptop 3, arts-laptop 3" in refused.stderr
    kept = augment_cli("--input", str(path), "--out", str(out), "--domain", "laptop", "--drop-leaks")
    assert kept.returncode == 0, kept.stderr
    assert "3 input sentences dropped" in kept.stderr and "in semeval14-laptop 3, arts-laptop 3" in kept.stderr
    made = {normalise(json.loads(line)["original"]["sentence"]) for line in out.read_text().splitlines()}
    assert made and made <= {normalise(s.findtext("text")) for s in train}

    arts = json.loads((SHARED_DATA / "arts" / "arts_testset" / "rest_test_enriched.json").read_text())
    record = next(r for key, r in arts.items() if key.endswith("_adv3")  # an AddDiff variant
                  and not set("[]{}|") & set(r["sentence"]))
    marked = record["sentence"][:record["from"]] + f"[{record['sentence'][record['from']:record['to']]}|pos]" \
        + record["sentence"][record["to"]:]
    markup = tmp_path / "train.txt"
    markup.write_text("The [soup|pos] was a little cold but tasty.\n" + marked.lower() + "\n", encoding="utf-8")
    refused = augment_cli("--input", str(markup), "--out", str(out), "--domain", "restaurant")
    assert refused.returncode == 2 and "1 input sentences are test sentences" in refused.stderr
    assert "in arts-restaurant 1" in refused.stderr


# -- no false positives: the training sets --------------------------------------------------------------------

@needs_shared_data
@pytest.mark.parametrize("train, overlaps", [("Restaurants_Train_v2.xml", 14), ("Laptop_Train_v2.xml", 1)])
def test_training_sentences_match_only_where_the_test_sets_really_hold_them(train, overlaps):
    """SemEval-2014 TRAIN: of 3,041 restaurant and 3,045 laptop sentences, 14 and 1 have a public test
    set's fingerprint. Each is a real, verbatim duplicate (the same text is in that test set: 13 restaurant
    training sentences are MAMS test sentences, one restaurant and one laptop training sentence are also in
    their SemEval-2014 test set), never a hash collision; dropping them with --drop-leaks is right."""
    script = build_script()
    texts = [t.text or "" for t in ET.parse(SEMEVAL / train).getroot().iter("text")]
    known = public()
    matched = [t for t in texts if fingerprint(t) in known]
    assert len(matched) == overlaps
    verbatim = {s.strip() for _, _, files in script.SETS for s in script.sentences_of(files, SHARED_DATA)}
    assert all(text.strip() in verbatim for text in matched)  # the very same text, not only the same hash
    files = {name: files for name, _, files in script.SETS}
    for text in matched:
        for name in known[fingerprint(text)]:
            assert normalise(text) in {normalise(s) for s in script.sentences_of(files[name], SHARED_DATA)}


# -- the variants absa-checks generates of the test sets, and the project's own suite examples -------------

@pytest.mark.slow
@needs_shared_data
def test_augment_refuses_the_variants_absa_checks_generates_of_a_public_test_set(tmp_path):
    generated = tmp_path / "gen.json"
    made = subprocess.run([sys.executable, "-m", "absa_checks.cli", "generate", "--source", "gcae-hard-laptop",
                           "--data", str(SHARED_DATA), "--variants", "generated", "--out", str(generated),
                           "--format", "arts"], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert made.returncode == 0, made.stderr
    records = json.loads(generated.read_text(encoding="utf-8"))
    variants = {key: record for key, record in records.items() if "_adv" in key}  # not the originals
    assert len(variants) > 50
    renamed = tmp_path / "train.json"  # the variants with fresh ids, so augment reads them as originals
    renamed.write_text(json.dumps({f"v{i}": record for i, record in enumerate(variants.values())}), encoding="utf-8")
    result = augment_cli("--input", str(renamed), "--out", str(tmp_path / "aug.jsonl"), "--domain", "laptop")
    assert result.returncode == 2 and "gcae-hard-laptop:generated" in result.stderr, result.stderr[-2000:]
    assert not (tmp_path / "aug.jsonl").exists() and "Traceback" not in result.stderr


SUITE_WITH_EXAMPLE = """suite: own
sources:
  mine:
    examples:
      - id: t
        sentence: "The tiramisu was divine, but the espresso was bitter."
        aspect: tiramisu
        polarity: positive
        aspects: [{term: espresso, polarity: negative}]
tests:
  - name: revtgt
    strategy: revtgt
    expect: flip
    sources: [mine]
"""


@pytest.mark.slow
def test_augment_checks_the_projects_own_suite_examples_and_says_which_it_read(tmp_path):
    (tmp_path / "suites").mkdir()
    (tmp_path / "suites" / "s.yaml").write_text(SUITE_WITH_EXAMPLE, encoding="utf-8")
    (tmp_path / "train.txt").write_text("The [tiramisu|pos] was divine, but the [espresso|neg] was bitter.\n"
                                        "The [pasta|pos] was fresh and the [wine|pos] was cheap.\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "ABSA_DATA_DIR"}
    env["PYTHONPATH"] = str(REPO)

    def augment_here(*args: str, cwd=tmp_path) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "absa_checks.cli", "augment", *args], cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=600)

    refused = augment_here("--input", "train.txt", "--out", "aug.jsonl")  # ./suites by default
    assert refused.returncode == 2 and "suites/s.yaml source mine" in refused.stderr, refused.stderr[-2000:]
    assert not (tmp_path / "aug.jsonl").exists()
    dropped = augment_here("--input", "train.txt", "--out", "aug.jsonl", "--drop-leaks")
    assert dropped.returncode == 0, dropped.stderr[-2000:]
    assert "the own examples of 1 suite file(s) in suites" in dropped.stderr
    assert "tiramisu" not in (tmp_path / "aug.jsonl").read_text(encoding="utf-8")
    # elsewhere, the suites named with --suites; with none, the line says the project's were not checked
    other = tmp_path / "other"
    other.mkdir()
    named = augment_here("--input", str(tmp_path / "train.txt"), "--out", "aug.jsonl",
                         "--suites", str(tmp_path / "suites"), cwd=other)
    assert named.returncode == 2 and "source mine" in named.stderr
    (other / "clean.txt").write_text("The [pasta|pos] was fresh and the [wine|pos] was cheap.\n", encoding="utf-8")
    bare = augment_here("--input", "clean.txt", "--out", "aug.jsonl", cwd=other)
    assert bare.returncode == 0 and "no suite's own examples (no ./suites folder here" in bare.stderr
    missing = augment_here("--input", "clean.txt", "--out", "aug2.jsonl", "--suites", "nowhere", cwd=other)
    assert missing.returncode != 0 and "--suites nowhere: not found" in missing.stderr
    assert not (other / "aug2.jsonl").exists()
