"""How fast the token tagger extracts, in file order vs longest first (what absa-checks does).

    python benchmarks/performance/extraction_throughput.py [--data ../shared/data] [--model ../shared/models/minilm-absa-e2e-rest]

The same sentences (SemEval-2014 restaurant and laptop test, ASQP rest15 and rest16 test: 2,680), the
same adapter, the same batch size (64), one process; the best of three timed passes of each order after
one warm-up pass. The answers are checked to be the same in both orders.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from absa_checks.sources.gold_sources import GOLD_SOURCES, load_gold  # noqa: E402
from model_adapters.transformers_tagger import TransformersTagger  # noqa: E402

BATCH = 64


def timed(tagger: TransformersTagger, sentences: list[str]) -> tuple[float, dict]:
    started = time.perf_counter()
    found = {}
    for first in range(0, len(sentences), BATCH):
        batch = sentences[first:first + BATCH]
        found.update(zip(batch, tagger.extract(batch)))
    return time.perf_counter() - started, found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--model", default=str(ROOT.parent / "shared" / "models" / "minilm-absa-e2e-rest"))
    args = parser.parse_args()
    sentences = list(dict.fromkeys(s.sentence for name in GOLD_SOURCES for s in load_gold(name, Path(args.data))))
    tagger = TransformersTagger("e2e", args.model, device="cpu")
    tagger.load()
    orders = {"file order": sentences, "longest first": sorted(sentences, key=lambda s: (-len(s), s))}
    timed(tagger, sentences[:256])  # warm-up
    best, answers = {}, {}
    for name, ordered in orders.items():
        runs = [timed(tagger, ordered) for _ in range(3)]
        best[name] = min(seconds for seconds, _ in runs)
        answers[name] = runs[0][1]
    same = answers["file order"] == answers["longest first"]
    for name, seconds in best.items():
        print(f"{name:14s} {len(sentences):,} sentences in {seconds:.1f} s ({len(sentences) / seconds:.0f}/s)")
    print(f"speed-up {best['file order'] / best['longest first']:.2f}x; the same answers: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
