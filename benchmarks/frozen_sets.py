"""Issue 36: the audited, frozen variant sets of the public test sets, rebuilt from the data, the recorded answers,
the recorded review and the recorded audit verdicts (docs/frozen-sets.md says what each step is and why).

    python benchmarks/frozen_sets.py candidates --out DIR     # rules, then the rewriter (recorded answers, 2 repair turns)
    python benchmarks/frozen_sets.py review-items --out DIR   # the review pass's items, in shares (quote the data)
    python benchmarks/frozen_sets.py decide --out DIR         # the recorded review decisions, written on the candidates
    python benchmarks/frozen_sets.py audit-items --out DIR    # the blind audit's sheets, two judges an item
    python benchmarks/frozen_sets.py score --out DIR          # the recorded verdicts, written on the candidates
    python benchmarks/frozen_sets.py freeze --out DIR         # the textless files shipped in suites/frozen/
    python benchmarks/frozen_sets.py all --out DIR            # every step; `--check` compares with suites/frozen/

DIR holds the full candidates files (they quote the data: keep DIR out of git). Everything recorded that the steps
read is committed: benchmarks/rewriter-answers/test-sets.jsonl (the stand-in's answers),
benchmarks/frozen-sets/review.jsonl (the stand-in reviewers' decisions) and benchmarks/frozen-sets/verdicts.jsonl
(the blind judges' verdicts). The same data and files give byte-identical shipped files.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import test_sets_rewriter as rewriter_run  # noqa: E402

SHARED = Path(os.environ.get("ABSA_SHARED_DIR", ROOT.parent / "shared"))
SOURCES = rewriter_run.SOURCES  # the sets made here (REVTGT, REVNON, ADDDIFF)
ARTS = ("arts-laptop", "arts-restaurant")  # ARTS's own published variants: audited, never replaced
ANSWERS = ROOT / "benchmarks" / "rewriter-answers" / "test-sets.jsonl"
RECORDED = ROOT / "benchmarks" / "frozen-sets"
REVIEW = RECORDED / "review.jsonl"
REPAIRS = 2
POLAR = ("positive", "negative")
REVIEW_SHARE = 50
OPPOSITE = {"positive": "negative", "negative": "positive"}


def _cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "absa_checks.cli", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=3600)


def candidates(out: Path) -> None:
    """revtgt and revnon: rules, then the rewriter's replayed answers (benchmarks/test_sets_rewriter.py run);
    adddiff: rules; the arts-* sources: their own published variants (mode given)."""
    out.mkdir(parents=True, exist_ok=True)
    rewriter_run.run(out, ANSWERS.resolve(), REPAIRS)
    for source in SOURCES:
        target = out / f"adddiff-{source}.jsonl"
        target.unlink(missing_ok=True)
        done = _cli("generate", "--source", source, "--data", str(SHARED / "data"), "--variants", "generated",
                    "--strategies", "adddiff", "--candidates", "--out", str(target))
        if done.returncode != 0:
            raise SystemExit(done.stderr)
    for source in ARTS:
        target = out / f"given-{source}.jsonl"
        target.unlink(missing_ok=True)
        done = _cli("generate", "--source", source, "--data", str(SHARED / "data"), "--variants", "given",
                    "--strategies", "revtgt,revnon,adddiff", "--candidates", "--out", str(target))
        if done.returncode != 0:
            raise SystemExit(done.stderr)


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _units(source: str) -> dict:
    from absa_checks.sources import load_dataset
    return {u.unit_id: u for u in load_dataset(source, SHARED / "data").units}


def _in_population(strategy: str, unit) -> bool:
    target = unit.original.target
    if target.polarity not in POLAR:
        return False
    return strategy == "revtgt" or any(a.polarity in POLAR for a in unit.original.others)


def intended(strategy: str, unit) -> list[dict]:
    """Every aspect of the unit's original with its sentiment now and the one the variant must give it."""
    target = unit.original.target
    found = [{"term": target.term, "target": True, "now": target.polarity,
              "must_be": OPPOSITE.get(target.polarity, target.polarity) if strategy == "revtgt" else target.polarity}]
    for a in unit.original.others:
        if strategy == "revnon" and a.polarity == target.polarity:
            must = OPPOSITE.get(a.polarity, a.polarity)
        elif strategy == "revnon" and a.polarity in POLAR:
            must = f"{a.polarity} (more strongly)"
        else:
            must = a.polarity
        found.append({"term": a.term, "target": False, "now": a.polarity, "must_be": must})
    return found


TASKS = {"revtgt": "REVTGT: reverse the sentiment towards the target; every other aspect keeps its sentiment",
         "revnon": "REVNON: the target keeps its sentiment; every other aspect that shares the target's sentiment is "
                   "reversed, every other aspect of the opposite sentiment is made more strongly so"}


def review_selection(out: Path) -> list[tuple[str, dict]]:
    """(source, candidate) of each review item, in a fixed order: every REVTGT and REVNON variant the rules
    shipped (the rules' own variants were valid 4 times of 8 on fresh units), and for every unit of a
    strategy's population with no shipped variant, its last attempt (the rewriter's when it made one)."""
    chosen: list[tuple[str, dict]] = []
    for source in SOURCES:
        rows = _rows(out / f"candidates-{source}.jsonl")
        units = _units(source)
        shipped = {(r["unit"], r["strategy"]) for r in rows if r["status"] == "shipped"}
        last: dict[tuple[str, str], dict] = {}
        for r in rows:
            if r["strategy"] not in TASKS:
                continue
            if r["status"] == "shipped" and r.get("origin") != "rewriter":
                chosen.append((source, r))
            elif r["status"] == "quarantined" and (r["unit"], r["strategy"]) not in shipped \
                    and _in_population(r["strategy"], units[r["unit"]]):
                key = (r["unit"], r["strategy"])
                if key not in last or r.get("origin") == "rewriter":
                    last[key] = r
        chosen += [(source, r) for r in last.values()]
    return chosen


def review_item(source: str, r: dict, unit) -> dict:
    proposal = r.get("sentence") if r.get("sentence") != unit.original.sentence else None
    note = None
    if r["status"] == "quarantined":
        note = (r.get("reason") or "").removeprefix("rewriter: ")
    return {"item": r["id"], "task": TASKS[r["strategy"]], "original": unit.original.sentence,
            "aspects": intended(r["strategy"], unit), "proposal": proposal, "note": note}


def review_items(out: Path) -> None:
    chosen = review_selection(out)
    units = {source: _units(source) for source in SOURCES}
    items = [review_item(source, r, units[source][r["unit"]]) for source, r in chosen]
    random.Random(36).shuffle(items)
    folder = out / "review-shares"
    folder.mkdir(parents=True, exist_ok=True)
    for n, start in enumerate(range(0, len(items), REVIEW_SHARE), 1):
        part = items[start:start + REVIEW_SHARE]
        (folder / f"share-{n:02d}.jsonl").write_text(
            "".join(json.dumps(i, ensure_ascii=False) + "\n" for i in part), encoding="utf-8")
    print(f"{len(items)} review items in {n} shares in {folder}", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("step", choices=("candidates", "review-items"))
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    {"candidates": candidates, "review-items": review_items}[args.step](args.out)


if __name__ == "__main__":
    main()
