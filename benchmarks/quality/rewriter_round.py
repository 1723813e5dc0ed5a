"""Issue 29's round: coverage and blind validity of the LLM rewriter on SemEval-2014 training units.

    python benchmarks/quality/rewriter_round.py draw --seed 29 --out DIR [--per-cell 60]
    python benchmarks/quality/rewriter_round.py export --out DIR
    python benchmarks/quality/rewriter_round.py run --out DIR --answers ANSWERS [--repairs N]
    python benchmarks/quality/rewriter_round.py pending --out DIR     (the repair turns the kept answers need)
    python benchmarks/quality/rewriter_round.py items --out DIR --seed 29 [--arts 20]
    python benchmarks/quality/rewriter_round.py score --out DIR --verdicts V1.jsonl [V2.jsonl ...]

`draw` takes the SemEval-2014 TRAINING units (laptop and restaurant, TOWE opinion spans) of sentences no
earlier round judged (every docs/quality/*/key.jsonl, and shared/quality/judged_2026-11.jsonl) and draws,
with the seed, --per-cell units per domain and strategy from its population: REVTGT, the targets with a
positive or negative gold and at least one annotated opinion word (opinion-annotated polar targets);
REVNON, the polar targets whose sentence has another polar aspect. It writes one examples file per domain
and strategy (the units, as `absa-checks generate --input` reads them; they quote the data, so git ignores
them) and `units.jsonl` (source, unit, strategy: committed).

`export` runs `absa-checks generate --input FILE --strategies S --export-requests ...` on each file: the
exact requests the rewriter is sent by default (the units the rules did not ship), with the default prompt
and settings (model "rewriter", temperature 0, seed 0), into `requests.jsonl`.

`run` serves the answers with `absa-checks serve-replay`, names it in a models.yaml as the rewriter
`stand-in` (model "rewriter", the default settings, so every request is one the answers hold), runs
`absa-checks generate --input FILE --strategies S --rewriter stand-in --candidates --out ...` on each
file, and counts, per strategy, the units with a shipped variant: the rules alone, and rules + rewriter;
and the rewriter's answers by verdict and reason (`coverage.json`).

`items` draws the blind items: every variant the rewriter shipped, every variant the rules shipped on the
drawn units, and --arts published ARTS variants of SemEval-2014 test units (calibration), shuffled, with
no field that tells their origin, in shards of 110; `key.jsonl` says which is which. `score` joins the
verdicts with the key (benchmarks/quality/variant_quality.py's score: rates with Wilson 95% intervals).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks" / "quality"))

from absa_checks.common.examples import Unit  # noqa: E402
from absa_checks.sources.semeval import load_semeval  # noqa: E402

SHARED = Path(os.environ.get("ABSA_SHARED_DIR", ROOT.parent / "shared"))
DOMAINS = ("restaurant", "laptop")
STRATEGIES = ("revtgt", "revnon")
POLAR = ("positive", "negative")
SHARD = 110


def _source(domain: str) -> str:
    return f"semeval14-{domain}-train"


def _sentence_id(unit_id: str) -> str:
    return unit_id.rsplit("_", 1)[0]


def judged_sentences() -> set[tuple[str, str]]:
    """(source, sentence id) of every unit an earlier round judged or drew, on either split."""
    seen = set()
    paths = [*sorted((ROOT / "docs" / "quality").glob("*/key.jsonl")), SHARED / "quality" / "judged_2026-11.jsonl",
             *sorted((ROOT / "docs" / "quality").glob("*/units.jsonl"))]  # and every unit an earlier round drew
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if "unit" in row and "source" in row:
                seen.add((row["source"], _sentence_id(row["unit"])))
    return seen


def in_population(unit: Unit, strategy: str) -> bool:
    example = unit.original
    if example.polarity not in POLAR:
        return False
    if strategy == "revtgt":
        return any(o.aspect == 0 for o in example.opinions)
    return any(a.polarity in POLAR for a in example.others)


def _span(start: int, end: int) -> list[int]:
    return [start, end]


def example_entry(unit: Unit) -> dict:
    """The unit as an examples file entry (absa_checks/schemas/examples.schema.json), opinions by span."""
    e = unit.original
    opinions = lambda index: [{"text": o.text, "span": _span(o.start, o.end)}  # noqa: E731
                              for o in e.opinions if o.aspect == index]
    return {"id": unit.unit_id, "sentence": e.sentence, "aspect": e.target.term,
            "span": _span(e.target.start, e.target.end), "polarity": e.polarity, "opinions": opinions(0),
            "aspects": [{"term": a.term, **({"polarity": a.polarity} if a.polarity else {}),  # conflict: none
                         "span": _span(a.start, a.end), "opinions": opinions(n)} for n, a in enumerate(e.others, 1)]}


def draw(seed: int, out: Path, per_cell: int, data: Path) -> None:
    rng = random.Random(seed)
    seen = judged_sentences()
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for domain in DOMAINS:
        loaded = load_semeval(data, _source(domain), domain, "train")
        fresh = [u for u in loaded.units if (_source(domain), _sentence_id(u.unit_id)) not in seen]
        for strategy in STRATEGIES:
            population = [u for u in fresh if in_population(u, strategy)]
            drawn = sorted(rng.sample(population, min(per_cell, len(population))), key=lambda u: u.unit_id)
            text = json.dumps({"examples": [example_entry(u) for u in drawn]}, ensure_ascii=False, indent=1)
            (out / f"sample-{domain}-{strategy}.examples.yaml").write_text(text + "\n", encoding="utf-8")
            rows += [{"source": _source(domain), "unit": u.unit_id, "strategy": strategy,
                      "population": len(population)} for u in drawn]
            print(f"{domain} {strategy}: drew {len(drawn)} of {len(population)} units "
                  f"({len(loaded.units) - len(fresh)} units of judged sentences left out)")
    (out / "units.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _cli(*args: str, **kw) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "absa_checks.cli", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, **kw)


def _files(out: Path):
    for domain in DOMAINS:
        for strategy in STRATEGIES:
            yield domain, strategy, out / f"sample-{domain}-{strategy}.examples.yaml"


def export(out: Path) -> None:
    lines: dict[str, str] = {}
    for domain, strategy, path in _files(out):
        target = out / f"requests-{domain}-{strategy}.jsonl"
        target.unlink(missing_ok=True)
        done = _cli("generate", "--input", str(path), "--domain", domain, "--strategies", strategy,
                    "--export-requests", str(target))
        if done.returncode != 0:
            raise SystemExit(done.stderr)
        print(done.stderr.strip())
        for line in target.read_text(encoding="utf-8").splitlines():
            lines[json.loads(line)["key"]] = line
    (out / "requests.jsonl").write_text("".join(line + "\n" for line in lines.values()), encoding="utf-8")
    print(f"{len(lines)} distinct requests in {out / 'requests.jsonl'}")


PORT = 18729  # the replay server's: the rewriter's cache is kept by endpoint, so every step asks the same one


def _serve(answers: Path) -> tuple[subprocess.Popen, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    server = subprocess.Popen([sys.executable, "-m", "absa_checks.cli", "serve-replay", str(answers), "--port",
                               str(PORT)], cwd=ROOT,
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert server.stdout is not None
    line = server.stdout.readline()
    found = re.search(r"http://127\.0\.0\.1:\d+/v1", line)
    if not found:
        server.kill()
        raise SystemExit(f"serve-replay did not start: {line}{server.stderr.read() if server.stderr else ''}")
    return server, found.group(0)


def _models(out: Path, base_url: str) -> Path:
    models = out / "models.yaml"
    models.write_text(f"models:\n  stand-in:\n    kind: openai\n    base_url: {base_url}\n    model: rewriter\n"
                      "    max_concurrency: 4\n    retries: 0\n", encoding="utf-8")
    return models


def pending(out: Path, repairs: int | None) -> None:
    """The repair turns the kept first answers need (`generate --rewriter --export-requests`: nothing is asked),
    into requests-repair.jsonl, for the stand-in to answer."""
    models = _models(out, f"http://127.0.0.1:{PORT}/v1")
    lines: dict[str, str] = {}
    for domain, strategy, path in _files(out):
        target = out / f"requests-repair-{domain}-{strategy}.jsonl"
        target.unlink(missing_ok=True)
        done = _cli("generate", "--input", str(path), "--domain", domain, "--strategies", strategy, "--rewriter",
                    "stand-in", "--models-file", str(models), "--cache", str(out / "cache"),
                    *(["--rewriter-repairs", str(repairs)] if repairs is not None else []),
                    "--export-requests", str(target))
        if done.returncode != 0:
            raise SystemExit(done.stderr)
        for line in target.read_text(encoding="utf-8").splitlines():
            lines[json.loads(line)["key"]] = line
    (out / "requests-repair.jsonl").write_text("".join(line + "\n" for line in lines.values()), encoding="utf-8")
    print(f"{len(lines)} pending requests in {out / 'requests-repair.jsonl'}")


def run(out: Path, answers: Path, repairs: int | None = None) -> dict:
    server, base_url = _serve(answers)
    models = _models(out, base_url)
    units = [json.loads(line) for line in (out / "units.jsonl").read_text(encoding="utf-8").splitlines()]
    drawn = Counter(row["strategy"] for row in units)
    shipped: dict[str, Counter] = defaultdict(Counter)
    reasons: dict[str, Counter] = defaultdict(Counter)
    try:
        for domain, strategy, path in _files(out):
            target = out / f"candidates-{domain}-{strategy}.jsonl"
            target.unlink(missing_ok=True)
            done = _cli("generate", "--input", str(path), "--domain", domain, "--strategies", strategy,
                        "--rewriter", "stand-in", "--models-file", str(models), "--candidates",
                        "--out", str(target), "--cache", str(out / "cache"),
                        *(["--rewriter-repairs", str(repairs)] if repairs is not None else []), timeout=1800)
            if done.returncode != 0:
                raise SystemExit(done.stderr)
            print(done.stderr.strip())
            made: dict[str, set[str]] = defaultdict(set)
            for line in target.read_text(encoding="utf-8").splitlines():
                row = json.loads(line)
                if row.get("strategy") != strategy:
                    continue
                made_by = "rewriter" if row.get("origin") == "rewriter" else "rules"
                if row.get("status") == "shipped":
                    made[row["unit"]].add(made_by)
                else:
                    why = (row.get("reason") or "?").removeprefix("rewriter: ")
                    reasons[f"{strategy}/{made_by}"][why.split(":")[0]] += 1
            for origins in made.values():
                shipped[strategy]["rules" if "rules" in origins else "rewriter"] += 1
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(10)
    result = {"drawn": dict(drawn), "shipped": {s: dict(c) for s, c in shipped.items()},
              "coverage": {s: {"rules": shipped[s]["rules"] / drawn[s],
                               "rules+rewriter": (shipped[s]["rules"] + shipped[s]["rewriter"]) / drawn[s]}
                           for s in STRATEGIES if drawn[s]},
              "not_shipped_by_reason": {k: dict(c.most_common()) for k, c in sorted(reasons.items())}}
    (out / "coverage.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=1))
    return result


def _originals(out: Path) -> dict[tuple[str, str, str], dict]:
    """(domain, strategy, unit) -> its examples-file entry (the original's other aspects and their polarities);
    the domain is part of the key: the two training sets share unit ids."""
    found = {}
    for domain, strategy, path in _files(out):
        for entry in json.loads(path.read_text(encoding="utf-8"))["examples"]:
            found[(domain, strategy, entry["id"])] = entry
    return found


def _item(strategy: str, entry: dict, variant: str) -> dict:
    polarity = entry["polarity"]
    intended = {"positive": "negative", "negative": "positive"}.get(polarity, polarity) if strategy == "revtgt" else polarity
    return {"strategy": strategy, "term": entry["aspect"], "original_polarity": polarity,
            "intended_polarity": intended,
            "other_aspects": [{"term": a["term"], "polarity": a.get("polarity")} for a in entry["aspects"]],
            "original": entry["sentence"], "variant": variant}


def items(out: Path, seed: int, arts: int, data: Path) -> None:
    from absa_checks.sources import load_dataset

    rng = random.Random(seed)
    originals = _originals(out)
    made, key = [], []
    for domain, strategy, _path in _files(out):
        for line in (out / f"candidates-{domain}-{strategy}.jsonl").read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if row.get("strategy") == strategy and row.get("status") == "shipped":
                generator = "llm-rewriter" if row.get("origin") == "rewriter" else "absa-checks"
                made.append(_item(strategy, originals[(domain, strategy, row["unit"])], row["sentence"]))
                key.append({"generator": generator, "source": _source(domain), "unit": row["unit"],
                            "strategy": strategy, "candidate": row["id"]})
    for domain in DOMAINS:  # calibration: ARTS's published variants of SemEval-2014 test units
        loaded = load_dataset(f"arts-{domain}", data)
        for strategy in STRATEGIES:
            given = [u for u in loaded.units if u.given.get(strategy) and u.original.polarity in POLAR]
            for unit in rng.sample(given, min(arts // 2, len(given))):
                e = unit.original
                entry = {"polarity": e.polarity, "aspect": e.target.term, "sentence": e.sentence,
                         "aspects": [{"term": a.term, "polarity": a.polarity} for a in e.others]}
                made.append(_item(strategy, entry, unit.given[strategy][0].example.sentence))
                key.append({"generator": "arts-published", "source": f"arts-{domain}", "unit": unit.unit_id,
                            "strategy": strategy})
    order = list(range(len(made)))
    rng.shuffle(order)
    ids = [f"w{seed}-{n:04d}" for n in range(len(order))]
    with (out / "key.jsonl").open("w", encoding="utf-8") as stream:
        for item_id, index in zip(ids, order):
            stream.write(json.dumps({"id": item_id, **key[index]}) + "\n")
    shards = 0
    for shards, first in enumerate(range(0, len(order), SHARD), 1):
        with (out / f"items-{shards}.jsonl").open("w", encoding="utf-8") as stream:
            for item_id, index in zip(ids[first:first + SHARD], order[first:first + SHARD]):
                stream.write(json.dumps({"id": item_id, **made[index]}, ensure_ascii=False) + "\n")
    readme = (SHARED / "quality" / "README.md").read_text(encoding="utf-8")
    (out / "rubric.md").write_text(readme[readme.index("## The rubric"):readme.index("## Protocol")], encoding="utf-8")
    print(f"seed {seed}: {len(made)} items ({Counter(k['generator'] for k in key)}) in {shards} shards under {out}")


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def score(out: Path, verdict_paths: list[Path]) -> dict:
    """Per strategy and generator (and, for the rewriter, per lexicon gate: the variants that gate ships): n and
    the rates of fluent, sentiment_ok and both, an item counting as yes when EVERY judge of it said yes (two
    judges an item), with Clopper-Pearson 95% intervals (review_round.exact_rate: scipy's beta quantiles); and
    how often the judges agreed."""
    from review_round import exact_rate

    key = {row["id"]: row for row in _lines(out / "key.jsonl")}
    by_item: dict[str, list[dict]] = defaultdict(list)
    for path in verdict_paths:
        for verdict in _lines(path):
            by_item[verdict["id"]].append(verdict)
    missing = sorted(set(key) - set(by_item))
    if missing:
        raise SystemExit(f"{len(missing)} items have no verdict (first: {missing[0]})")
    cells: dict[str, list[list[dict]]] = defaultdict(list)
    for item_id, row in key.items():
        names = [f"{row['strategy']}/{row['generator']}"]
        names += [f"{row['strategy']}/{row['generator']}/gate-{gate}" for gate in row.get("gates", [])]
        for name in names:
            cells[name].append(by_item[item_id])
    yes = lambda v, field: v[field] in ("yes", True)  # noqa: E731
    table: dict = {}
    print(f"{'cell':36} {'n':>4}  {'fluent':>18}  {'sentiment_ok':>18}  {'both':>18}  agree")
    for name, items in sorted(cells.items()):
        counts = {"fluent": sum(all(yes(v, "fluent") for v in vs) for vs in items),
                  "sentiment_ok": sum(all(yes(v, "sentiment_ok") for v in vs) for vs in items),
                  "both": sum(all(yes(v, "fluent") and yes(v, "sentiment_ok") for v in vs) for vs in items)}
        agree = sum(len({(yes(v, "fluent"), yes(v, "sentiment_ok")) for v in vs}) == 1 for vs in items)
        table[name] = {**{k: exact_rate(c, len(items)) for k, c in counts.items()},
                       "judges_agree": exact_rate(agree, len(items))}
        print(f"{name:36} {len(items):4d}  " + "  ".join(
            f"{100 * table[name][k]['rate']:5.1f}% [{100 * table[name][k]['low']:4.1f},{100 * table[name][k]['high']:5.1f}]"
            for k in counts) + f"  {100 * agree / len(items):4.0f}%")
    return table


def gate(out: Path, name: str, add_missing: bool = False) -> None:
    """Marks in key.jsonl the rewriter's items that the candidates files of the last `run` ship, as shipped under
    the gate `name`; a shipped LLM variant that is not in the key (never judged) is an error."""
    domain_of = {f"sample-{d}-{s}.examples": (d, s) for d in DOMAINS for s in STRATEGIES}
    shipped = set()
    for domain, strategy, _path in _files(out):
        for row in _lines(out / f"candidates-{domain}-{strategy}.jsonl"):
            if row.get("origin") == "rewriter" and row.get("status") == "shipped":
                shipped.add((_source(domain_of[row["source"]][0]), strategy, row["unit"]))
    rows = _lines(out / "key.jsonl")
    judged = {(r["source"], r["strategy"], r["unit"]) for r in rows if r["generator"] == "llm-rewriter"}
    if shipped - judged and not add_missing:
        raise SystemExit(f"{len(shipped - judged)} shipped LLM variants were never judged, e.g. "
                         f"{sorted(shipped - judged)[0]}; --add-missing writes them as items of their own")
    if shipped - judged:  # items of their own, for fresh judges (the ids go on from the key's last)
        originals = _originals(out)
        number = max(int(r["id"].rsplit("-", 1)[1]) for r in rows) + 1
        extra = []
        for domain, strategy, _path in _files(out):
            for row in _lines(out / f"candidates-{domain}-{strategy}.jsonl"):
                if (_source(domain), strategy, row["unit"]) in shipped - judged and row.get("origin") == "rewriter" \
                        and row.get("status") == "shipped":
                    item_id = f"{rows[0]['id'].rsplit('-', 1)[0]}-{number:04d}"
                    number += 1
                    extra.append({"id": item_id, **_item(strategy, originals[(domain, strategy, row["unit"])],
                                                        row["sentence"])})
                    rows.append({"id": item_id, "generator": "llm-rewriter", "source": _source(domain),
                                 "unit": row["unit"], "strategy": strategy, "candidate": row["id"], "gates": []})
        shard = out / f"items-extra-{name}.jsonl"
        shard.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in extra), encoding="utf-8")
        print(f"{len(extra)} shipped LLM variants were not judged: written to {shard} for fresh judges")
    for row in rows:
        if row["generator"] == "llm-rewriter":
            gates = [g for g in row.get("gates", []) if g != name]
            row["gates"] = gates + ([name] if (row["source"], row["strategy"], row["unit"]) in shipped else [])
    (out / "key.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    print(f"gate {name}: {len(shipped)} shipped LLM variants, all judged")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    d = commands.add_parser("draw")
    d.add_argument("--seed", type=int, required=True)
    d.add_argument("--out", required=True)
    d.add_argument("--per-cell", type=int, default=60)
    d.add_argument("--data", default=str(SHARED / "data"))
    e = commands.add_parser("export")
    e.add_argument("--out", required=True)
    r = commands.add_parser("run")
    r.add_argument("--out", required=True)
    r.add_argument("--answers", required=True)
    r.add_argument("--repairs", type=int, default=None,
                   help="repair turns for every strategy (default: the product's, by strategy; round 11 ran "
                        "before they existed: 0; round 12 with 1)")
    p = commands.add_parser("pending")
    p.add_argument("--out", required=True)
    p.add_argument("--repairs", type=int, default=None)
    i = commands.add_parser("items")
    i.add_argument("--out", required=True)
    i.add_argument("--seed", type=int, required=True)
    i.add_argument("--arts", type=int, default=20, help="published ARTS variants per strategy (calibration)")
    i.add_argument("--data", default=str(SHARED / "data"))
    s = commands.add_parser("score")
    s.add_argument("--out", required=True)
    s.add_argument("--verdicts", nargs="+", required=True)
    g = commands.add_parser("gate")
    g.add_argument("--out", required=True)
    g.add_argument("--name", required=True)
    g.add_argument("--add-missing", action="store_true")
    args = parser.parse_args()
    if args.command == "gate":
        gate(Path(args.out), args.name, args.add_missing)
    elif args.command == "items":
        items(Path(args.out), args.seed, args.arts, Path(args.data))
    elif args.command == "score":
        table = score(Path(args.out), [Path(p) for p in args.verdicts])
        (Path(args.out) / "scores.json").write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    elif args.command == "draw":
        draw(args.seed, Path(args.out), args.per_cell, Path(args.data))
    elif args.command == "export":
        export(Path(args.out))
    elif args.command == "run":
        run(Path(args.out), Path(args.answers), args.repairs)
    elif args.command == "pending":
        pending(Path(args.out), args.repairs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
