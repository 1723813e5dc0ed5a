"""What reviewing adds: a real review round on SemEval-2014 restaurant training units, then a blind audit.

    python benchmarks/quality/review_round.py draw --seed 8 --units 250 --reviewers 2 --out DIR
    (reviewers: `absa-checks review DIR/review-K.jsonl`, one page each, nothing else shown to them)
    python benchmarks/quality/review_round.py sheet --seed 8 --dir DIR [--judges 2]
    (judges: the rubric and one DIR/items-K.jsonl each, as in every blind round)
    python benchmarks/quality/review_round.py score --dir DIR --verdicts DIR/verdicts-*.jsonl [--json DIR/scores.json]

`draw` writes the candidates of the real command (`absa-checks generate --candidates`, REVTGT and REVNON)
for --units training units drawn with --seed among those no earlier round used (docs/quality/*/key.jsonl),
split by unit into one candidates file per reviewer (`review-K.jsonl`), and `units.json` (seed, units).
When DIR holds the round's `decisions.jsonl`, the files are written with those decisions (the reviewed state).

`sheet` joins the reviewed files into `reviewed.jsonl` (the file a suite freezes) and draws the audit: every
variant a frozen test would run (accepted, or edited with the reviewer's text) and every variant the
generator shipped (what a run without review measures), one item per distinct text, shuffled with --seed, in
the item shape of the earlier rounds (no field tells which pool, decision or generator an item is from);
`key.jsonl` maps each item to its candidate and pools; `decisions.jsonl` keeps the reviewers' decisions. The items quote ../shared: git ignores them.

`score` joins the verdicts with the key and prints, per strategy, with review and without: units covered (of
the units drawn) and the validity of their variants (fluent, sentiment_ok, both) with Clopper-Pearson 95%
intervals computed here from the raw counts (scipy's beta quantiles), not by the code under test.

`crosscheck` feeds the same verdicts of the reviewed variants through the product (`absa-checks audit score`
into reviewed.jsonl, as an answered sheet `audit-answers.jsonl`) and prints its table, to set beside score's.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

from scipy.stats import beta

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from absa_checks.suites.files import load_file  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
TRAIN = SHARED / "data" / "semeval2014" / "Restaurants_Train_v2.xml"
KEY_SOURCE = "semeval14-restaurant-train"  # how earlier rounds' keys name these units
STRATEGIES = ("revtgt", "revnon")
INTENDED = {"positive": "negative", "negative": "positive"}
USED = ("accepted", "edited")


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]


def _earlier_units(out: Path) -> set[str]:
    """The units of every other round (this round's own key, once written, does not count)."""
    seen = set()
    for key in sorted((REPO / "docs" / "quality").glob("*/key.jsonl")):
        if key.parent.resolve() == out.resolve() or key.parent.name == out.name:
            continue
        seen |= {row["unit"] for row in _lines(key) if row.get("source") == KEY_SOURCE}
    return seen


def draw(seed: int, units: int, reviewers: int, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    every = out / "all-candidates.jsonl"
    if not every.exists():
        subprocess.run([sys.executable, "-m", "absa_checks.cli", "generate", "--input", str(TRAIN), "--strategies",
                        ",".join(STRATEGIES), "--candidates", "--out", str(every)], check=True, cwd=REPO)
    lines = every.read_text(encoding="utf-8").split("\n")
    records = [json.loads(line) for line in lines if line.strip()]
    earlier = _earlier_units(out)
    eligible = sorted({r["unit"] for r in records} - earlier, key=lambda u: tuple(map(int, u.split("_"))))
    drawn = random.Random(seed).sample(eligible, units)
    shard = {unit: index % reviewers for index, unit in enumerate(drawn)}
    lines = [x for x in lines if x.strip()]
    made = out / "decisions.jsonl"  # a round already reviewed: its files as the reviewers left them
    decided = {d["id"]: d for d in _lines(made)} if made.exists() else {}
    for index, r in enumerate(records):
        if r["id"] in decided:
            r.update({key: value for key, value in decided[r["id"]].items() if value is not None or key != "edited"})
            lines[index] = json.dumps(r, ensure_ascii=False)
    for k in range(reviewers):
        kept = [line for line, r in zip(lines, records) if shard.get(r["unit"]) == k]
        (out / f"review-{k + 1}.jsonl").write_text("\n".join(kept) + "\n", encoding="utf-8")
    (out / "units.json").write_text(json.dumps({"seed": seed, "source": KEY_SOURCE, "file": TRAIN.name,
                                                "excluded_earlier": len(earlier & {r["unit"] for r in records}),
                                                "units": drawn}, indent=1) + "\n")
    decidable = sum(1 for r in records if r["unit"] in shard and r["status"] != "not_applicable")
    print(f"seed {seed}: {units} units of {len(eligible)} eligible ({len(earlier)} used earlier); {decidable} "
          f"candidates to decide in {reviewers} files under {out}")


def _variant_text(record: dict, pool: str) -> str:
    return record["edited"]["sentence"] if pool == "used" and record["decision"] == "edited" else record["sentence"]


def sheet(seed: int, folder: Path, judges: int) -> None:
    files = sorted(folder.glob("review-*.jsonl"))
    text = "".join(path.read_text(encoding="utf-8") for path in files)
    (folder / "reviewed.jsonl").write_text(text, encoding="utf-8")
    with (folder / "decisions.jsonl").open("w", encoding="utf-8") as stream:  # the reviewers' work, committed
        for r in (json.loads(line) for line in text.split("\n") if line.strip()):
            if r["status"] != "not_applicable":
                stream.write(json.dumps({key: r.get(key) for key in ("id", "unit", "strategy", "status", "reason",
                                                                     "decision", "edited", "reviewer",
                                                                     "decided_at")}, ensure_ascii=False) + "\n")
    items: dict[tuple[str, str], dict] = {}
    for r in (json.loads(line) for line in text.split("\n") if line.strip()):
        pools = [pool for pool, wanted in (("shipped", r["status"] == "shipped"), ("used", r["decision"] in USED))
                 if wanted]
        for pool in pools:
            variant = _variant_text(r, pool)
            item = items.setdefault((r["id"], variant), {"candidate": r["id"], "unit": r["unit"],
                                                         "strategy": r["strategy"], "pools": [], "record": r,
                                                         "variant": variant})
            item["pools"].append(pool)
    originals = {u.unit_id: u.original for u in load_file(TRAIN, None).units}  # as `generate --input` reads it
    order = sorted(items)
    random.Random(seed).shuffle(order)
    ids = [f"r{seed}-{n:04d}" for n in range(len(order))]
    with (folder / "key.jsonl").open("w", encoding="utf-8") as stream:
        for item_id, k in zip(ids, order):
            i = items[k]
            stream.write(json.dumps({"id": item_id, "source": KEY_SOURCE, "unit": i["unit"], "strategy": i["strategy"],
                                     "candidate": i["candidate"], "pools": i["pools"]}) + "\n")
    size = (len(order) + judges - 1) // judges
    for j in range(judges):
        with (folder / f"items-{j + 1}.jsonl").open("w", encoding="utf-8") as stream:
            for item_id, k in zip(ids[j * size:(j + 1) * size], order[j * size:(j + 1) * size]):
                r, original = items[k]["record"], originals[items[k]["unit"]]
                polarity = original.polarity
                stream.write(json.dumps({
                    "id": item_id, "strategy": r["strategy"], "term": original.target.term,
                    "original_polarity": polarity,
                    "intended_polarity": INTENDED.get(polarity, polarity) if r["strategy"] == "revtgt" else polarity,
                    "other_aspects": [{"term": a.term, "polarity": a.polarity} for a in original.others],
                    "original": original.sentence, "variant": items[k]["variant"]}, ensure_ascii=False) + "\n")
    readme = (SHARED / "quality" / "README.md").read_text(encoding="utf-8")
    (folder / "rubric.md").write_text(readme[readme.index("## The rubric"):readme.index("## Protocol")],
                                      encoding="utf-8")
    print(f"seed {seed}: {len(order)} items ({sum('used' in i['pools'] for i in items.values())} reviewed, "
          f"{sum('shipped' in i['pools'] for i in items.values())} shipped) in {judges} files under {folder}")


def clopper_pearson(k: int, n: int) -> tuple[float, float]:
    low = 0.0 if k == 0 else float(beta.ppf(0.025, k, n - k + 1))
    high = 1.0 if k == n else float(beta.ppf(0.975, k + 1, n - k))
    return low, high


def exact_rate(k: int, n: int) -> dict:
    """A rate with its Clopper-Pearson 95% interval, from scipy's beta quantiles (not the product's code)."""
    low, high = clopper_pearson(k, n) if n else (None, None)
    return {"k": k, "n": n, "rate": k / n if n else None, "low": low, "high": high}


def score(folder: Path, verdict_paths: list[Path]) -> dict:
    key = {row["id"]: row for row in _lines(folder / "key.jsonl")}
    verdicts = {v["id"]: v for path in verdict_paths for v in _lines(path)}
    missing = sorted(set(key) - set(verdicts))
    if missing:
        raise SystemExit(f"{len(missing)} items have no verdict (first: {missing[0]})")
    drawn = json.loads((folder / "units.json").read_text())["units"]
    records = _lines(folder / "reviewed.jsonl")
    yes = {"yes", True}
    table: dict = {}
    for strategy in STRATEGIES:
        for pool in ("shipped", "used"):
            rows = [verdicts[i] for i, row in key.items() if row["strategy"] == strategy and pool in row["pools"]]
            covered = {r["unit"] for r in records if r["strategy"] == strategy
                       and (r["status"] == "shipped" if pool == "shipped" else r["decision"] in USED)}
            valid_units = {key[i]["unit"] for i, row in key.items() if row["strategy"] == strategy
                           and pool in row["pools"] and verdicts[i]["fluent"] in yes
                           and verdicts[i]["sentiment_ok"] in yes}
            table[f"{strategy}/{pool}"] = {
                "units": len(drawn), "covered": exact_rate(len(covered), len(drawn)),
                "valid_units": exact_rate(len(valid_units), len(drawn)),
                "fluent": exact_rate(sum(v["fluent"] in yes for v in rows), len(rows)),
                "sentiment_ok": exact_rate(sum(v["sentiment_ok"] in yes for v in rows), len(rows)),
                "both": exact_rate(sum(v["fluent"] in yes and v["sentiment_ok"] in yes for v in rows), len(rows))}
    decisions = defaultdict(int)
    for r in records:
        decisions[(r["strategy"], r["status"], r["decision"])] += 1
    table["decisions"] = {"/".join(str(p) for p in k): v for k, v in sorted(decisions.items(), key=str)}

    def pct(cell: dict) -> str:
        if not cell["n"]:
            return "n/a"
        return f"{100 * cell['rate']:.1f}% [{100 * cell['low']:.1f}, {100 * cell['high']:.1f}] ({cell['k']}/{cell['n']})"

    print("| strategy | variants | units with a case | valid: both | fluent | sentiment_ok | units with a valid case |")
    print("|---|---|---|---|---|---|---|")
    for strategy in STRATEGIES:
        for pool, name in (("shipped", "generator only"), ("used", "reviewed")):
            c = table[f"{strategy}/{pool}"]
            print(f"| {strategy.upper()} | {name} | {pct(c['covered'])} | {pct(c['both'])} | {pct(c['fluent'])} | "
                  f"{pct(c['sentiment_ok'])} | {pct(c['valid_units'])} |")
    return table


def crosscheck(folder: Path, verdict_paths: list[Path]) -> int:
    """The product's own path on the same verdicts: the reviewed variants' answers as an answered audit sheet,
    `absa-checks audit score` storing them in reviewed.jsonl; its rates must equal score's "reviewed" rows."""
    key = {row["id"]: row for row in _lines(folder / "key.jsonl")}
    verdicts = {v["id"]: v for path in verdict_paths for v in _lines(path)}
    records = {r["id"]: r for r in _lines(folder / "reviewed.jsonl")}
    answered = folder / "audit-answers.jsonl"
    with answered.open("w", encoding="utf-8") as stream:
        for item_id, row in key.items():
            if "used" not in row["pools"]:
                continue
            r, v = records[row["candidate"]], verdicts[item_id]
            stream.write(json.dumps({"item": r["id"], "strategy": r["strategy"], "target": r["term"],
                                     "question": "(answered in round 8)", "original": r["original"]["sentence"],
                                     "variant": _variant_text(r, "used"), "fluent": v["fluent"],
                                     "sentiment_ok": v["sentiment_ok"], "reason": v.get("reason", "")},
                                    ensure_ascii=False) + "\n")
    for r in records.values():  # scored afresh: the verdicts of an earlier crosscheck are dropped
        r.pop("audit", None)
    (folder / "reviewed.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records.values()),
                                           encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "absa_checks.cli", "audit", "score", str(folder / "reviewed.jsonl"),
                           str(answered)], cwd=REPO, capture_output=True, text=True)
    print(done.stdout + done.stderr, end="")
    return done.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    d = commands.add_parser("draw")
    d.add_argument("--seed", type=int, required=True)
    d.add_argument("--units", type=int, default=250)
    d.add_argument("--reviewers", type=int, default=2)
    d.add_argument("--out", required=True)
    s = commands.add_parser("sheet")
    s.add_argument("--seed", type=int, required=True)
    s.add_argument("--dir", required=True)
    s.add_argument("--judges", type=int, default=2)
    c = commands.add_parser("score")
    c.add_argument("--dir", required=True)
    c.add_argument("--verdicts", nargs="+", required=True)
    c.add_argument("--json", default=None)
    x = commands.add_parser("crosscheck")
    x.add_argument("--dir", required=True)
    x.add_argument("--verdicts", nargs="+", required=True)
    args = parser.parse_args()
    if args.command == "draw":
        draw(args.seed, args.units, args.reviewers, Path(args.out))
    elif args.command == "sheet":
        sheet(args.seed, Path(args.dir), args.judges)
    elif args.command == "crosscheck":
        return crosscheck(Path(args.dir), [Path(p) for p in args.verdicts])
    else:
        table = score(Path(args.dir), [Path(p) for p in args.verdicts])
        if args.json:
            Path(args.json).write_text(json.dumps(table, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
