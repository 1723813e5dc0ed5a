"""The shared tagger's real outputs for the flexible matcher: cache them, draw pairs to label, score F1.

    python benchmarks/quality/matching_pairs.py predict [--data ../shared/data] [--model ../shared/models/minilm-absa-e2e-rest]
    python benchmarks/quality/matching_pairs.py draw [--seed 24] [--n 40]
    python benchmarks/quality/matching_pairs.py f1 [--data ../shared/data]

(all with `--cache FILE`, default CACHE below; `predict --sources semeval14-restaurant ...` for fewer).

`predict` runs the end-to-end tagger (model_adapters/transformers_tagger.py, the bert-e2e entry of
models.yaml) once on every test sentence of the four extraction sources and caches its answers in
CACHE (under /tmp: the file holds the public sentences, so it never goes into the repository).

`draw` lists the candidate (gold, predicted) pairs of the SemEval-2014 test sentences (restaurant and
laptop) whose spans overlap without being equal: where strict matching says no and flexible matching
may say yes, the pairs the matcher has to decide. It shuffles them with random.Random(seed), keeps the
first `n`, and prints each with its sentence (for the reader who labels it) and with the short fragment
that goes into tests/data/matching_pairs.yaml: the text from the first to the last character of the
two spans (the terms, never the whole sentence), and the sentence's other gold terms inside it.

`f1` prints (aspect, polarity) pair F1 in % on the four sources, strict and flexible, counted both
ways: as absa-checks does (predictions told apart by normalised term and polarity where the gold has
no spans, so a term predicted twice in an ASQP sentence is one prediction) and by span as before issue
24 (each place counts) -- the numbers in docs/extraction.md.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from absa_checks.common.tuples import AspectTuple  # noqa: E402
from absa_checks.judge.scoring import rates, sentence_counts  # noqa: E402
from absa_checks.sources.gold_sources import GOLD_SOURCES, load_gold  # noqa: E402

CACHE = Path("/tmp/absa-matching/tagger_outputs.jsonl")
SEMEVAL = ("semeval14-restaurant", "semeval14-laptop")
BATCH = 64


def predict(data: Path, model: str, cache: Path, sources: list[str]) -> None:
    from model_adapters.transformers_tagger import TransformersTagger
    sentences = list(dict.fromkeys(s.sentence for name in sources for s in load_gold(name, data)))
    tagger = TransformersTagger("bert-e2e", model, device="cpu")
    cache.parent.mkdir(parents=True, exist_ok=True)
    partial = cache.with_suffix(".partial")
    with partial.open("w", encoding="utf-8") as out:
        for first in range(0, len(sentences), BATCH):
            batch = sentences[first:first + BATCH]
            for sentence, found in zip(batch, tagger.extract(batch)):
                aspects = [{"aspect": t.aspect, "polarity": t.polarity, "start": t.start, "end": t.end} for t in found]
                out.write(json.dumps({"sentence": sentence, "aspects": aspects}) + "\n")
    partial.replace(cache)
    print(f"{len(sentences)} sentences -> {cache} (truncated: {tagger.truncated})")


def cached(cache: Path = CACHE) -> dict[str, list[AspectTuple]]:
    if not cache.is_file():
        raise SystemExit(f"{cache} not found: run `python benchmarks/quality/matching_pairs.py predict` first")
    answers = {}
    for line in cache.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        answers[record["sentence"]] = [AspectTuple(**a) for a in record["aspects"]]
    return answers


def candidates(data: Path, cache: Path) -> list[dict]:
    """Every (gold, predicted) pair of the SemEval-2014 test sentences whose spans overlap but differ."""
    answers = cached(cache)
    found = []
    for name in SEMEVAL:
        for s in load_gold(name, data):
            for g in s.gold:
                for p in answers[s.sentence]:
                    if p.start < g.end and g.start < p.end and (p.start, p.end) != (g.start, g.end):
                        low, high = min(p.start, g.start), max(p.end, g.end)
                        others = [o.aspect for o in s.gold if o != g and low <= o.start and o.end <= high]
                        found.append({"source": name, "id": s.sentence_id, "sentence": s.sentence,
                                      "gold": g.aspect, "prediction": p.aspect, "fragment": s.sentence[low:high],
                                      "others": others})
    return found


def draw(data: Path, cache: Path, seed: int, n: int) -> None:
    pool = candidates(data, cache)
    picked = random.Random(seed).sample(pool, min(n, len(pool)))
    print(f"# {len(pool)} candidate pairs; seed {seed}; {len(picked)} drawn")
    for c in picked:
        print(json.dumps(c, ensure_ascii=False))


def f1(data: Path, cache: Path) -> None:
    answers = cached(cache)
    print("| source | matching | pair F1, a term once per sentence | pair F1, every place counts |")
    print("|---|---|---|---|")
    for name in GOLD_SOURCES:
        sentences = load_gold(name, data)
        for mode in ("strict", "flexible"):
            cells = []
            for sentence_view in (lambda s: s, lambda s: replace(s, spans=True)):
                counts = [sentence_counts(sentence_view(s), answers[s.sentence], "pair", mode) for s in sentences]
                rate = rates(counts, seed=0, resamples=1)["f1"]
                cells.append(f"{100 * rate.k / rate.n:.2f} ({rate.k // 2} TP; {rate.n} predicted + gold)")
            print(f"| {name} | {mode} | {cells[0]} | {cells[1]} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stage", choices=("predict", "draw", "f1"))
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--model", default=str(ROOT.parent / "shared" / "models" / "minilm-absa-e2e-rest"))
    parser.add_argument("--seed", type=int, default=24)
    parser.add_argument("--n", type=int, default=40)
    parser.add_argument("--cache", type=Path, default=CACHE)
    parser.add_argument("--sources", nargs="+", choices=list(GOLD_SOURCES), default=list(GOLD_SOURCES))
    args = parser.parse_args()
    data = Path(args.data)
    if args.stage == "predict":
        predict(data, args.model, args.cache, args.sources)
    elif args.stage == "draw":
        draw(data, args.cache, args.seed, args.n)
    else:
        f1(data, args.cache)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
