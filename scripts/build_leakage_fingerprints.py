"""Build absa_checks/fixtures/public_test_sets.sha256.txt, the fingerprints the `augment` leakage guard
knows the public test sets by, from the project's shared data (see each folder's README there).

    python scripts/build_leakage_fingerprints.py [--data ../shared/data] [--out FILE]

Every sentence of each file is read (sentences without aspects too; the ARTS files with all their
variants), normalised and hashed as absa_checks/workflows/leakage.py does; no sentence is written. Then, per test set
the suites run, the variants absa-checks' own generator makes of it (`absa-checks generate --source NAME
--variants generated`, seed 0 and default parameters: REVTGT, REVNON, ADDDIFF), as a set `NAME:generated`:
the very cases the suites test, which augment must never turn into training data. Variants made with
another seed or other parameters are other sentences, and only `augment --data DIR --seed S` finds those. A missing file
is one message and nothing is written. tests/workflows/test_leakage.py checks the shipped file equals this output.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from absa_checks.common import outputs  # noqa: E402
from absa_checks.workflows.leakage import FINGERPRINTS_FILE, PublicSet, fingerprint, format_fingerprints  # noqa: E402


def xml_texts(path: Path) -> list[str]:
    return [text.text or "" for text in ET.parse(path).getroot().iter("text")]


def arts_sentences(path: Path) -> list[str]:
    """{id: {"sentence": ...}}: an ARTS test set (originals and _adv1/2/3 variants) or generator input."""
    return [record["sentence"] for record in json.loads(path.read_text(encoding="utf-8")).values()]


def gcae_sentences(path: Path) -> list[str]:  # [{"sentence": ..., "aspect": ..., "sentiment": ...}]
    return [record["sentence"] for record in json.loads(path.read_text(encoding="utf-8"))]


def towe_sentences(path: Path) -> list[str]:  # s_id, sentence (space-tokenised), tags; one row per target
    rows = path.read_text(encoding="utf-8").splitlines()[1:]
    return [row.split("\t")[1] for row in rows if row.strip()]


# name (the source name the suites use), description, its files under the data folder with their readers.
# A test set is also read in the other layouts the shared data ships it in (the ARTS generator inputs and
# TOWE): TOWE, and ARTS's copies joined with it, corrected a few typos of the SemEval text ("reccomend"),
# and a training tool may be given any of these files.
SEMEVAL_COPIES = "the same sentences as ARTS generator inputs and TOWE rows, a few typos corrected there"
SETS = (
    ("semeval14-restaurant", f"SemEval-2014 Task 4 restaurant test (gold); {SEMEVAL_COPIES}",
     (("semeval2014/Restaurants_Test_Gold.xml", xml_texts), ("arts/src_data/rest/test.json", arts_sentences),
      ("arts/src_data/rest/test_sent.json", arts_sentences),
      ("arts/src_data/rest/test_sent_towe.json", arts_sentences), ("towe/14res/test.tsv", towe_sentences))),
    ("semeval14-laptop", f"SemEval-2014 Task 4 laptop test (gold); {SEMEVAL_COPIES}",
     (("semeval2014/Laptops_Test_Gold.xml", xml_texts), ("arts/src_data/laptop/test.json", arts_sentences),
      ("arts/src_data/laptop/test_sent.json", arts_sentences),
      ("arts/src_data/laptop/test_sent_towe.json", arts_sentences),
      ("towe/14lap/test.tsv", towe_sentences))),
    ("arts-restaurant", "ARTS restaurant test set, originals and RevTgt/RevNon/AddDiff variants",
     (("arts/arts_testset/rest_test_enriched.json", arts_sentences),)),
    ("arts-laptop", "ARTS laptop test set, originals and RevTgt/RevNon/AddDiff variants",
     (("arts/arts_testset/laptop_test_enriched.json", arts_sentences),)),
    ("mams-restaurant", "MAMS aspect-term test; the same sentences as ARTS generator inputs",
     (("mams/MAMS-ATSA/raw/test.xml", xml_texts), ("arts/src_data/mams/test.json", arts_sentences),
      ("arts/src_data/mams/test_sent.json", arts_sentences),
      ("arts/src_data/mams/test_sent_towe.json", arts_sentences))),
    ("gcae-hard-restaurant", "GCAE hard restaurant test",
     (("gcae_hard/atsa-restaurant/atsa_hard_test.json", gcae_sentences),)),
    ("gcae-hard-laptop", "GCAE hard laptop test", (("gcae_hard/atsa-laptop/atsa_hard_test.json", gcae_sentences),)),
)


# The sources whose generated variants are shipped too (as the suites generate them, seed 0, defaults).
GENERATED = ("semeval14-restaurant", "semeval14-laptop", "arts-restaurant", "arts-laptop", "mams-restaurant",
             "gcae-hard-restaurant", "gcae-hard-laptop")
GENERATED_SEED = 0
GENERATED_STRATEGIES = ("revtgt", "revnon", "adddiff")


def generated_sentences(name: str, data_dir: Path) -> list[str]:
    """The variants `absa-checks generate --source NAME --variants generated` writes (seed 0, defaults)."""
    from absa_checks.perturb.engine import Settings
    from absa_checks.sources.catalog import load_named
    from absa_checks.workflows import generate

    loaded = load_named(name, data_dir)
    made, _, _ = generate.run(loaded, list(GENERATED_STRATEGIES), Settings(GENERATED_SEED, ()), "generated")
    return [variant.example.sentence for _, variant in made]


def sentences_of(files: tuple, data_dir: Path) -> list[str]:
    return [sentence for relative, read in files for sentence in read(data_dir / relative)]


def build(data_dir: Path) -> str:
    missing = [relative for _, _, files in SETS for relative, _ in files if not (data_dir / relative).is_file()]
    if missing:
        raise SystemExit(f"build_leakage_fingerprints: {data_dir} lacks {', '.join(missing)}; pass --data with the "
                         "project's shared data folder (each folder's README says where the files come from)")
    sets = []
    for name, description, files in SETS:
        sentences = sentences_of(files, data_dir)
        prints = frozenset(fingerprint(s) for s in sentences)
        where = ", ".join(relative for relative, _ in files)
        sets.append(PublicSet(name, f"{description}: {where}; {len(sentences)} sentences, {len(prints)} distinct",
                              prints))
    for name in GENERATED:
        sentences = generated_sentences(name, data_dir)
        prints = frozenset(fingerprint(s) for s in sentences)
        sets.append(PublicSet(f"{name}:generated", f"the variants absa-checks generates of {name} (seed "
                              f"{GENERATED_SEED}, default parameters: {', '.join(GENERATED_STRATEGIES)}); "
                              f"{len(sentences)} sentences, {len(prints)} distinct", prints))
    return format_fingerprints(sets)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    shared = Path(os.environ.get("ABSA_SHARED_DIR", REPO.parent / "shared"))
    parser.add_argument("--data", default=os.environ.get("ABSA_DATA_DIR") or str(shared / "data"),
                        help="the shared data folder (default: $ABSA_DATA_DIR, else $ABSA_SHARED_DIR/data, else "
                             "../shared/data beside the checkout)")
    parser.add_argument("--out", default=str(REPO / "absa_checks" / "fixtures" / FINGERPRINTS_FILE))
    args = parser.parse_args(argv)
    text = build(Path(args.data))
    out = outputs.write_text(outputs.Named("--out", Path(args.out)), text)  # atomic; never a device or a link
    print(f"wrote {out} ({len(text.encode('utf-8')):,} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
