"""Are the template sentences valid by construction? A blind round: draw, judge, score.

    python benchmarks/quality/template_quality.py draw --seed 9 --per-test 4 --out DIR
    (judges: DIR/rubric.md and one DIR/items-K.jsonl each; nothing else)
    python benchmarks/quality/template_quality.py score --dir DIR --verdicts DIR/verdicts-*.jsonl [--json DIR/scores.json]

`draw` runs the real thing: `pytest suites/capabilities/ --model lexicon --absa-report` (the built-in
capability suites at their defaults), takes the template cases from the JSON report, groups them by sentence
(an instance with two aspects is two cases: one sentence, two labels), and draws --per-test sentences of
every template test with --seed (the originals and the variants of pairs alike), none judged in a round
given with --exclude. Items are shuffled and
say only the sentence and its aspects with their labels; `key.jsonl` keeps the test, capability and type.

`score` prints fluent, labels_ok and both, overall and per capability, with Clopper-Pearson 95% intervals
from the raw counts (scipy), and the judges' reasons for every "no".
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from review_round import _lines, exact_rate  # noqa: E402  (the same exact intervals and JSONL reading)

REPO = Path(__file__).resolve().parents[2]
JUDGES = 2
RUBRIC = """# Rubric: template sentences

Each item is one sentence, as a product review would contain it, and its aspects with the sentiment each
is labelled with (positive, negative or neutral).

- **fluent**: does the sentence read as fluent, grammatical, natural English that a reviewer could have
  written? (yes/no) Plain or repetitive style is fine; wrong agreement ("the fries was"), a wrong article
  ("a excellent"), a word that does not fit its noun ("the battery was delicious", "a friendly price") or
  a construction that does not make sense is not.
- **labels_ok**: is the sentiment the sentence expresses towards EACH listed aspect exactly its label, as
  an ordinary reader takes it? (yes/no) Neutral means the sentence expresses no opinion about that aspect
  (a fact, a mention). Where the sentence says how something was before and how it is now, the current
  state counts. A comparison ("A is better than B") is positive about A and negative about B.

Add a short reason whenever an answer is no. Be strict but fair; judge the text, not what anyone intended.
"""


def _report() -> dict:
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "r.json"
        subprocess.run([sys.executable, "-m", "pytest", "suites/capabilities/", "-p", "no:cacheprovider", "-q",
                        "--tb=no", "--model", "lexicon", "--absa-report", str(report)], cwd=REPO,
                       capture_output=True, text=True)
        return json.loads(report.read_text())


def draw(seed: int, per_test: int, out: Path, exclude: list[Path]) -> None:
    judged = {row["sentence"] for path in exclude for row in _lines(path)}  # earlier rounds' sentences
    cases = [c for c in _report()["cases"] if str(c["source"]).startswith("templates-")]
    sentences: dict[tuple[str, str], dict] = {}
    for case in cases:
        for side in ("original", "variant"):
            part = case[side]
            entry = sentences.setdefault((case["test_name"], part["sentence"]), {
                "test": case["test_name"], "capability": case.get("capability"), "type": case.get("type"),
                "sentence": part["sentence"], "aspects": {}})
            entry["aspects"][part["term"]] = part["gold"]
    by_test: dict[str, list[dict]] = defaultdict(list)
    for entry in sentences.values():
        by_test[entry["test"]].append(entry)
    rng = random.Random(seed)
    drawn = []
    for test in sorted(by_test):
        pool = sorted((e for e in by_test[test] if e["sentence"] not in judged), key=lambda e: e["sentence"])
        drawn += rng.sample(pool, min(per_test, len(pool)))
    rng.shuffle(drawn)
    out.mkdir(parents=True, exist_ok=True)
    ids = [f"t{seed}-{n:04d}" for n in range(len(drawn))]
    with (out / "key.jsonl").open("w", encoding="utf-8") as stream:
        for item_id, entry in zip(ids, drawn):
            stream.write(json.dumps({"id": item_id, "test": entry["test"], "capability": entry["capability"],
                                     "type": entry["type"], "sentence": entry["sentence"]}, ensure_ascii=False) + "\n")
    size = (len(drawn) + JUDGES - 1) // JUDGES
    for j in range(JUDGES):
        with (out / f"items-{j + 1}.jsonl").open("w", encoding="utf-8") as stream:
            for item_id, entry in list(zip(ids, drawn))[j * size:(j + 1) * size]:
                stream.write(json.dumps({"id": item_id, "sentence": entry["sentence"],
                                         "aspects": [{"term": t, "label": g} for t, g in entry["aspects"].items()]},
                                        ensure_ascii=False) + "\n")
    (out / "rubric.md").write_text(RUBRIC, encoding="utf-8")
    print(f"seed {seed}: {len(drawn)} sentences of {len(by_test)} template tests ({len(sentences)} distinct in the "
          f"run) in {JUDGES} files under {out}")


def score(folder: Path, verdict_paths: list[Path]) -> dict:
    key = {row["id"]: row for row in _lines(folder / "key.jsonl")}
    verdicts = {v["id"]: v for path in verdict_paths for v in _lines(path)}
    missing = sorted(set(key) - set(verdicts))
    if missing:
        raise SystemExit(f"{len(missing)} items have no verdict (first: {missing[0]})")
    yes = {"yes", True}
    groups: dict[str, list[str]] = defaultdict(list)
    for item_id, row in key.items():
        groups["all"].append(item_id)
        groups[str(row["capability"])].append(item_id)
    table = {}
    print(f"{'capability':16} {'n':>4}  {'fluent':>22}  {'labels_ok':>22}  {'both':>22}")
    for name in ["all", *sorted(g for g in groups if g != "all")]:
        rows = [verdicts[i] for i in groups[name]]
        cell = {"fluent": exact_rate(sum(v["fluent"] in yes for v in rows), len(rows)),
                "labels_ok": exact_rate(sum(v["labels_ok"] in yes for v in rows), len(rows)),
                "both": exact_rate(sum(v["fluent"] in yes and v["labels_ok"] in yes for v in rows), len(rows))}
        table[name] = cell
        print(f"{name:16} {len(rows):4d}  " + "  ".join(
            f"{100 * c['rate']:5.1f}% [{100 * c['low']:4.1f}, {100 * c['high']:5.1f}]" for c in cell.values()))
    for item_id, v in sorted(verdicts.items()):
        if v["fluent"] not in yes or v["labels_ok"] not in yes:
            print(f"  {item_id} ({key[item_id]['test']}): {key[item_id]['sentence']!r}: {v.get('reason', '')}")
    return table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    d = commands.add_parser("draw")
    d.add_argument("--seed", type=int, required=True)
    d.add_argument("--per-test", type=int, default=4)
    d.add_argument("--out", required=True)
    d.add_argument("--exclude", nargs="*", default=[], help="key.jsonl files of earlier rounds: their sentences are not drawn")
    s = commands.add_parser("score")
    s.add_argument("--dir", required=True)
    s.add_argument("--verdicts", nargs="+", required=True)
    s.add_argument("--json", default=None)
    args = parser.parse_args()
    if args.command == "draw":
        draw(args.seed, args.per_test, Path(args.out), [Path(p) for p in args.exclude])
    else:
        table = score(Path(args.dir), [Path(p) for p in args.verdicts])
        if args.json:
            Path(args.json).write_text(json.dumps(table, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
