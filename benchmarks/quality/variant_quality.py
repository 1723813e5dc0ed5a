"""Blind judgement of generated variants: draw a sample, then score a judge's verdicts.

    python benchmarks/quality/variant_quality.py draw --seed 1 --out DIR [--per-cell 25] [--arts-per-cell 5]
                                              [--split train] [--strategies revtgt revnon]
    python benchmarks/quality/variant_quality.py score --key DIR/key.jsonl --verdicts V1.jsonl [V2.jsonl ...]

`draw` takes SemEval-2014 test units (laptop and restaurant, TOWE opinion spans) that are NOT in the
earlier judgement (../shared/quality/judged_2026-11.jsonl) nor in any key given with --exclude, and for
each strategy and domain draws --per-cell units whose variant our generator ships at its default
settings, plus --arts-per-cell units with ARTS's published variant (to keep the judge calibrated). It
writes `items-N.jsonl` shards (shuffled; no field tells which generator made an item), `key.jsonl`
(item id -> generator, source, unit, strategy) and `rubric.md` (the rubric, verbatim from
shared/quality/README.md). Give a judge only a rubric and one items file. The items and the rubric
quote ../shared: git ignores them under docs/quality/; commit the key, the verdicts and the scores.

`score` joins verdict lines ({"id", "fluent", "sentiment_ok", "reason"}) with the key and prints, per
strategy and generator, n and the rates of fluent, sentiment_ok and both, with Wilson 95% intervals.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from absa_checks.common.examples import Example, Variant  # noqa: E402
from absa_checks.judge.stats import wilson  # noqa: E402
from absa_checks.perturb.engine import Settings, generate  # noqa: E402
from absa_checks.perturb.resources import load_resources  # noqa: E402
from absa_checks.sources import load_dataset  # noqa: E402
from absa_checks.sources.semeval import load_semeval  # noqa: E402

SHARED = Path(__file__).resolve().parents[3] / "shared"
SOURCES = {"semeval14-laptop": ("laptop", "arts-laptop"), "semeval14-restaurant": ("restaurant", "arts-restaurant")}
STRATEGIES = ("revtgt", "revnon", "adddiff")
INTENDED = {"revtgt": lambda p: {"positive": "negative", "negative": "positive"}.get(p, p)}
SHARD = 110  # items per judge


def _judged_units(paths: list[Path]) -> set[tuple[str, str]]:
    seen = set()
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            seen.add((row["source"], row["unit"]))
    return seen


def _item(example: Example, variant: Example, strategy: str) -> dict:
    return {"strategy": strategy, "term": example.target.term, "original_polarity": example.polarity,
            "intended_polarity": INTENDED.get(strategy, lambda p: p)(example.polarity),
            "other_aspects": [{"term": a.term, "polarity": a.polarity} for a in example.others],
            "original": example.sentence, "variant": variant.sentence}


def draw(seed: int, out: Path, per_cell: int, arts_per_cell: int, data: Path, exclude: list[Path],
         split: str = "test", strategies: tuple[str, ...] = STRATEGIES) -> None:
    rng = random.Random(seed)
    seen = _judged_units([SHARED / "quality" / "judged_2026-11.jsonl", *exclude])
    items, key = [], []
    for test_source, (domain, arts) in SOURCES.items():
        resources = load_resources(domain)
        # Training units are named "<source>-train" in the key, so later rounds can exclude them too.
        source = test_source if split == "test" else f"{test_source}-train"
        loaded = load_dataset(test_source, data) if split == "test" else load_semeval(data, source, domain, split)
        units = [u for u in loaded.units if (source, u.unit_id) not in seen]
        published = {u.unit_id: u for u in load_dataset(arts, data).units} if split == "test" else {}
        for strategy in strategies:
            shipped = []
            for unit in units:
                outcome = generate(unit, strategy, Settings(seed=0), resources, domain)
                if isinstance(outcome, Variant):
                    shipped.append((unit, outcome))
            for unit, variant in rng.sample(shipped, min(per_cell, len(shipped))):
                items.append(_item(unit.original, variant.example, strategy))
                key.append({"generator": "absa-checks", "source": source, "unit": unit.unit_id, "strategy": strategy,
                            "shipped_of": len(shipped)})
            given = [(u, published[u.unit_id].given[strategy][0]) for u in units
                     if u.unit_id in published and published[u.unit_id].given.get(strategy)]
            for unit, variant in rng.sample(given, min(arts_per_cell, len(given))):
                original = published[unit.unit_id].original
                items.append(_item(original, variant.example, strategy))
                key.append({"generator": "arts-published", "source": source, "unit": unit.unit_id,
                            "strategy": strategy})
    order = list(range(len(items)))
    rng.shuffle(order)
    out.mkdir(parents=True, exist_ok=True)
    ids = [f"q{seed}-{n:04d}" for n in range(len(order))]
    with (out / "key.jsonl").open("w", encoding="utf-8") as stream:
        for item_id, index in zip(ids, order):
            stream.write(json.dumps({"id": item_id, **key[index]}) + "\n")
    for shard, first in enumerate(range(0, len(order), SHARD), 1):
        with (out / f"items-{shard}.jsonl").open("w", encoding="utf-8") as stream:
            for item_id, index in zip(ids[first:first + SHARD], order[first:first + SHARD]):
                stream.write(json.dumps({"id": item_id, **items[index]}, ensure_ascii=False) + "\n")
    readme = (SHARED / "quality" / "README.md").read_text(encoding="utf-8")
    rubric = readme[readme.index("## The rubric"):readme.index("## Protocol")]
    (out / "rubric.md").write_text(rubric, encoding="utf-8")
    print(f"seed {seed}: {len(items)} items in {(len(order) + SHARD - 1) // SHARD} shards under {out}")


def score(key_path: Path, verdict_paths: list[Path]) -> dict:
    key = {row["id"]: row for row in map(json.loads, key_path.read_text(encoding="utf-8").splitlines())}
    cells: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for path in verdict_paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                verdict = json.loads(line)
                row = key[verdict["id"]]
                cells[(row["strategy"], row["generator"])].append(verdict)
    missing = set(key) - {v["id"] for rows in cells.values() for v in rows}
    table = {}
    print(f"{'strategy':8} {'generator':15} {'n':>4}  {'fluent':>20}  {'sentiment_ok':>20}  {'both':>20}")
    for (strategy, generator), rows in sorted(cells.items()):
        n = len(rows)
        counts = {"fluent": sum(r["fluent"] == "yes" for r in rows),
                  "sentiment_ok": sum(r["sentiment_ok"] == "yes" for r in rows),
                  "both": sum(r["fluent"] == "yes" and r["sentiment_ok"] == "yes" for r in rows)}
        cell = {}
        for name, k in counts.items():
            interval = wilson(k, n)
            cell[name] = {"k": k, "n": n, "rate": k / n, "low": interval.low, "high": interval.high}
        table[f"{strategy}/{generator}"] = cell
        print(f"{strategy:8} {generator:15} {n:4d}  " + "  ".join(
            f"{100 * c['rate']:5.1f}% [{100 * c['low']:4.1f}, {100 * c['high']:5.1f}]" for c in cell.values()))
    if missing:
        print(f"{len(missing)} items have no verdict")
    return table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    d = commands.add_parser("draw")
    d.add_argument("--seed", type=int, required=True)
    d.add_argument("--out", required=True)
    d.add_argument("--per-cell", type=int, default=25)
    d.add_argument("--arts-per-cell", type=int, default=5)
    d.add_argument("--data", default=str(SHARED / "data"))
    d.add_argument("--exclude", nargs="*", default=[], help="key.jsonl files of earlier rounds")
    d.add_argument("--split", choices=("test", "train"), default="test",
                   help="SemEval-2014 split to draw units from (train: no published ARTS variants)")
    d.add_argument("--strategies", nargs="+", choices=STRATEGIES, default=list(STRATEGIES))
    s = commands.add_parser("score")
    s.add_argument("--key", required=True)
    s.add_argument("--verdicts", nargs="+", required=True)
    s.add_argument("--json", default=None)
    args = parser.parse_args()
    if args.command == "draw":
        draw(args.seed, Path(args.out), args.per_cell, args.arts_per_cell, Path(args.data),
             [Path(p) for p in args.exclude], args.split, tuple(args.strategies))
    else:
        table = score(Path(args.key), [Path(p) for p in args.verdicts])
        if args.json:
            Path(args.json).write_text(json.dumps(table, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
