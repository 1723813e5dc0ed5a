"""Issue 36: the audited, frozen variant sets of the public test sets, rebuilt from the data, the recorded answers,
the recorded reviews and the recorded audit verdicts (docs/frozen-sets.md says what each step is and why).

    python benchmarks/quality/frozen_sets.py all --out DIR [--check]  # every step below; --check: byte for byte vs suites/frozen/
    python benchmarks/quality/frozen_sets.py candidates --out DIR     # rules, then the rewriter (recorded answers, 2 repair turns)
    python benchmarks/quality/frozen_sets.py decide --out DIR         # the four review passes' recorded decisions
    python benchmarks/quality/frozen_sets.py score --out DIR          # the recorded verdicts (two judges), at a fixed time
    python benchmarks/quality/frozen_sets.py freeze --out DIR         # the textless files shipped in suites/frozen/
    python benchmarks/quality/frozen_sets.py rates --out DIR          # validity per source x strategy and origin (scipy)

and, to make the items the people (here: stand-in helper sessions) answered:
    review-items [--second | --third | --fourth] --out DIR    # a review pass's items, in shares (they quote the data)
    audit-items --out DIR                                     # the blind audit's sheets, two judges an item

DIR holds the full candidates files (they quote the data: keep DIR out of git). Everything recorded that the steps
read is committed: benchmarks/recorded/rewriter-answers/test-sets.jsonl (the stand-in's answers) and
benchmarks/recorded/frozen-sets/ (review*.jsonl, verdicts.jsonl: README there). The same data, files and generator (its
fingerprint is in every line) give byte-identical shipped files.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from benchmarks.quality import test_sets_rewriter as rewriter_run  # noqa: E402

SHARED = Path(os.environ.get("ABSA_SHARED_DIR", ROOT.parent / "shared"))
SOURCES = rewriter_run.SOURCES  # the sets made here (REVTGT, REVNON, ADDDIFF)
ARTS = ("arts-laptop", "arts-restaurant")  # ARTS's own published variants: audited, never replaced
ANSWERS = ROOT / "benchmarks" / "recorded" / "rewriter-answers" / "test-sets.jsonl"
RECORDED = ROOT / "benchmarks" / "recorded" / "frozen-sets"
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
    """revtgt and revnon: rules, then the rewriter's replayed answers (benchmarks/quality/test_sets_rewriter.py run);
    adddiff: rules; the arts-* sources: their own published variants (mode given)."""
    out.mkdir(parents=True, exist_ok=True)
    rewriter_run.run(out, ANSWERS.resolve(), REPAIRS)
    made = [(f"adddiff-{source}.jsonl", source, "generated", "adddiff") for source in SOURCES]
    made += [(f"given-{source}.jsonl", source, "given", "revtgt,revnon,adddiff") for source in ARTS]
    for name, source, variants, strategies in made:
        target = out / name
        target.unlink(missing_ok=True)
        done = _cli("generate", "--source", source, "--data", str(SHARED / "data"), "--variants", variants,
                    "--strategies", strategies, "--candidates", "--out", str(target))
        if done.returncode != 0:
            raise SystemExit(done.stderr)


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _units(source: str) -> dict:
    from absa_checks.sources import load_dataset
    return {u.unit_id: u for u in load_dataset(source, SHARED / "data").units}


def _in_population(strategy: str, unit) -> bool:
    """The unit is one the strategy applies to (suites.strategies: REVTGT polar targets, REVNON polar targets with
    another polar aspect), as the run's coverage counts them."""
    from absa_checks.suites import strategies
    return strategies.population(strategy).applies(unit.original)


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


TASKS = {"adddiff": "ADDDIFF: clauses about other aspects, not in the sentence, are appended with the sentiment opposite "
                    "to the target's; the target keeps its sentiment; the added clauses must join fluently (a "
                    "connective that fits what precedes), must not cover or compare against the target or anything "
                    "the sentence already says, and must not contradict the sentence",
         "revtgt": "REVTGT: reverse the sentiment towards the target; every other aspect keeps its sentiment",
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


def _added(r: dict, unit) -> list[dict]:
    """An ADDDIFF candidate's appended aspects (those of its other aspects after the original sentence's text)."""
    keep = len(unit.original.sentence.rstrip(".!? ")) if r["strategy"] == "adddiff" else None
    return [a for a in r.get("other_aspects") or () if keep is not None and a["from"] >= keep]


def review_item(source: str, r: dict, unit) -> dict:
    proposal = r.get("sentence") if r.get("sentence") != unit.original.sentence else None
    note = None
    if r["status"] == "quarantined":
        note = (r.get("reason") or "").removeprefix("rewriter: ")
    aspects = intended(r["strategy"], unit) + [{"term": a["term"], "target": False, "added": True, "now": None,
                                                "must_be": a["polarity"]} for a in _added(r, unit)]
    return {"item": r["id"], "task": TASKS[r["strategy"]], "original": unit.original.sentence,
            "aspects": aspects, "proposal": proposal, "note": note}


RESCUED = ("semeval14-restaurant", "mams-restaurant")  # REVTGT's coverage there after the first pass: 91.0%, 89.99%
REVIEW_2 = RECORDED / "review-2.jsonl"


def second_selection(out: Path) -> list[tuple[str, dict]]:
    """The second pass (other reviewers, a larger rewrite allowed): every REVTGT polar target of RESCUED with no
    variant after the first pass; the candidate the first pass decided (else the unit's last attempt)."""
    first = {row["item"]: row for row in _rows(REVIEW)}
    chosen = []
    for source in RESCUED:
        rows = _rows(out / f"frozen-{source}.jsonl")
        units = _units(source)
        used = {r["unit"] for r in rows if r["strategy"] == "revtgt" and r.get("decision") in ("accepted", "edited")}
        last: dict[str, dict] = {}
        for r in rows:
            if r["strategy"] != "revtgt" or r["unit"] in used or r["status"] == "not_applicable" \
                    or not _in_population("revtgt", units[r["unit"]]):
                continue
            if r["unit"] not in last or r["id"] in first:
                last[r["unit"]] = r
        chosen += [(source, r) for r in last.values()]
    return chosen


THIRD = (("semeval14-laptop", "revnon"), ("mams-restaurant", "revtgt"), ("mams-restaurant", "revnon"),
         ("mams-restaurant", "adddiff"))  # below the bar in the first audit (docs/frozen-sets.md)
REVIEW_3 = RECORDED / "review-3.jsonl"


def third_selection(out: Path) -> list[tuple[str, dict]]:
    """The third pass: every variant of THIRD's cells that nobody reviewed (shipped on the checks alone)."""
    chosen = []
    for source in SOURCES:
        rows = _rows(out / f"frozen-{source}.jsonl")
        chosen += [(source, r) for r in rows if (source, r["strategy"]) in THIRD and r.get("reviewer") == CHECKS_ONLY]
    return chosen


FOURTH = "mams-restaurant"  # REVTGT 85.5% and ADDDIFF 99.0% of their populations after the third pass
REVIEW_4 = RECORDED / "review-4.jsonl"


def fourth_selection(out: Path) -> list[tuple[str, dict]]:
    """The fourth pass (other reviewers; a rewrite may change the events that carry the sentiment): every REVTGT
    polar target and every ADDDIFF unit of FOURTH with no variant after the third pass; the candidate last
    decided (else the unit's last attempt)."""
    rows = _rows(out / f"frozen-{FOURTH}.jsonl")
    units = _units(FOURTH)
    chosen: dict[tuple[str, str], dict] = {}
    used = {(r["unit"], r["strategy"]) for r in rows if r.get("decision") in ("accepted", "edited")}
    for r in rows:
        key = (r["unit"], r["strategy"])
        if r["strategy"] not in ("revtgt", "adddiff") or key in used or r["status"] == "not_applicable" \
                or (r["strategy"] == "revtgt" and not _in_population("revtgt", units[r["unit"]])):
            continue
        if key not in chosen or r.get("decision") is not None:
            chosen[key] = r
    return [(FOURTH, r) for r in chosen.values()]


def review_items(out: Path, second: bool = False, third: bool = False, fourth: bool = False) -> None:
    chosen = fourth_selection(out) if fourth else third_selection(out) if third else second_selection(out) \
        if second else review_selection(out)
    units = {source: _units(source) for source in SOURCES}
    items = [review_item(source, r, units[source][r["unit"]]) for source, r in chosen]
    if second or fourth:  # what the last reviewer said, as the note
        first = {row["item"]: row for path in ((REVIEW,) if second else (REVIEW, REVIEW_2, REVIEW_3))
                 for row in _rows(path)}
        for item in items:
            said = first.get(item["item"])
            if said:
                item["note"] = f"an earlier reviewer said: {said['decision']}, {said['reason']}"
    random.Random(39 if fourth else 38 if third else 37 if second else 36).shuffle(items)
    folder = out / ("review-4-shares" if fourth else "review-3-shares" if third else "review-2-shares" if second
                    else "review-shares")
    folder.mkdir(parents=True, exist_ok=True)
    for n, start in enumerate(range(0, len(items), REVIEW_SHARE), 1):
        part = items[start:start + REVIEW_SHARE]
        (folder / f"share-{n:02d}.jsonl").write_text(
            "".join(json.dumps(i, ensure_ascii=False) + "\n" for i in part), encoding="utf-8")
    print(f"{len(items)} review items in {n} shares in {folder}", file=sys.stderr)


REVIEWED_AT = "2026-11-29T12:45:00+00:00"  # when the review pass's decisions were recorded (benchmarks/recorded/frozen-sets)
SCORED_EPOCH = "1795960800"                # 2026-11-29T14:00:00Z: the audit verdicts' `scored_at` (SOURCE_DATE_EPOCH)
CHECKS_ONLY = "not reviewed: shipped on the checks alone"  # the `reviewer` of a shipped variant nobody reviewed


def _edited(sentence: str, r: dict, unit) -> dict | None:
    """The reviewer's text as an 'edited' decision: the target's and every other aspect's span found in it (the
    occurrence of the same rank as in the original) with its intended polarity; None when a term is lost or
    occurs another number of times (the edit cannot be tied to the annotation)."""
    from absa_checks.suites.candidates import same_occurrence
    original = unit.original
    wanted = [(a["must_be"] or "").split(" ")[0] or None for a in intended(r["strategy"], unit)[1:]]  # the others
    start = same_occurrence(sentence, original.target.term, original.sentence, original.target.start)
    if start is None or sentence.strip() == original.sentence.strip():
        return None
    others = []
    for a, polarity in zip(original.others, wanted):
        found = same_occurrence(sentence, a.term, original.sentence, a.start)
        if found is None:
            return None
        others.append({"term": a.term, "from": found, "to": found + len(a.term), "polarity": polarity})
    if r["strategy"] == "adddiff":  # the appended aspects the reviewer kept, where they are now
        for a in _added(r, unit):
            found = same_occurrence(sentence, a["term"], r["sentence"], a["from"])
            if found is not None:
                others.append({"term": a["term"], "from": found, "to": found + len(a["term"]), "polarity": a["polarity"]})
        if len(others) == len(original.others):
            return None  # nothing appended is left: not an ADDDIFF variant
    return {"sentence": sentence, "from": start, "to": start + len(original.target.term), "polarity": r["polarity"],
            "other_aspects": others}


def _reviewed(out: Path) -> dict[str, list[dict]]:
    """source -> the recorded review decisions on its candidates: the first pass's (benchmarks/recorded/frozen-sets/
    review.jsonl), then the second's (review-2.jsonl), which replace the first's on the same candidate."""
    of_item = {r["id"]: source for source, r in review_selection(out)}
    found: dict[str, list[dict]] = {source: [] for source in SOURCES}
    for row in _rows(REVIEW):
        found[of_item[row["item"]]].append(row)
    if REVIEW_2.exists():
        units = {source: _units(source) for source in RESCUED}
        for source in RESCUED:
            rows = {r["id"]: r for r in _rows(out / f"candidates-{source}.jsonl")}
            for row in _rows(REVIEW_2):
                if row["item"] in rows and rows[row["item"]]["unit"] in units[source]:
                    found[source].append({**row, "share": f"2-{row['share']}"})
    if REVIEW_3.exists():
        of_third = {r["id"]: source for source in SOURCES for r in _rows(out / f"candidates-{source}.jsonl") +
                    _rows(out / f"adddiff-{source}.jsonl")}
        for row in _rows(REVIEW_3):
            found[of_third[row["item"]]].append({**row, "share": f"3-{row['share']}"})
    if REVIEW_4.exists():
        found[FOURTH] += [{**row, "share": f"4-{row['share']}"} for row in _rows(REVIEW_4)]
    return found


def decide(out: Path) -> dict:
    """Per source, one file (REVTGT and REVNON candidates, then ADDDIFF's) with the review pass's decisions, and
    every other shipped candidate accepted on the checks alone (its reviewer says so)."""
    from absa_checks.suites.candidates import Decision
    from absa_checks.suites.candidates import decide as write_decisions
    counts: dict = {}
    reviewed = _reviewed(out)
    for source in SOURCES:
        units = _units(source)
        text = (out / f"candidates-{source}.jsonl").read_text(encoding="utf-8") + \
            (out / f"adddiff-{source}.jsonl").read_text(encoding="utf-8")
        rows = {r["id"]: r for r in (json.loads(line) for line in text.splitlines() if line.strip())}
        by_reviewer: dict[str, dict] = {}
        tally = {"accept": 0, "edit": 0, "reject": 0, "edit_not_tied": 0}
        for row in reviewed[source]:
            r = rows[row["item"]]
            wanted: str | Decision = {"accept": "accepted", "reject": "rejected"}.get(row["decision"], "")
            variant_text = row["sentence"] or ""
            if row["decision"] == "accept" and r["status"] == "quarantined":
                # the reviewer accepted the attempt's text with the sentiments the item showed (`intended`); the
                # attempt's own annotation may say otherwise (a refused REVNON attempt keeps the others' old
                # labels): recorded as the reviewer's text with the intended annotation
                variant_text = r["sentence"]
            if variant_text:
                edited = _edited(variant_text, r, units[r["unit"]])
                if edited is None:
                    tally["edit_not_tied"] += 1
                    continue
                wanted = Decision("edited", edited)
            tally[row["decision"]] += 1
            by_reviewer.setdefault(f"review stand-in {row['share']}", {})[row["item"]] = wanted
        decided = {i for mine in by_reviewer.values() for i in mine}
        by_reviewer[CHECKS_ONLY] = {i: "accepted" for i, r in rows.items()
                                    if r["status"] == "shipped" and i not in decided}
        tally["accepted_on_checks"] = len(by_reviewer[CHECKS_ONLY])
        for reviewer, decisions in by_reviewer.items():
            text, left = write_decisions(text, source, decisions, reviewer, REVIEWED_AT)
            assert not left, left
        (out / f"frozen-{source}.jsonl").write_text(text, encoding="utf-8")
        counts[source] = tally
    print(json.dumps(counts, indent=1))
    return counts


AUDIT_SEED = 3601
AUDIT_SAMPLE = {"ours": 130, "arts": 80}  # items per strategy and file: ours n >= 100 (issue 36), ARTS's for the table
JUDGE_SHARES = 14                          # per judge round; two rounds: every item judged by two judges


def _audited_files(out: Path) -> list[tuple[str, Path, str, int]]:
    """(source, the full file, the pool drawn from, items per strategy) of every audited file."""
    return [(s, out / f"frozen-{s}.jsonl", "used", AUDIT_SAMPLE["ours"]) for s in SOURCES] + \
           [(s, out / f"given-{s}.jsonl", "shipped", AUDIT_SAMPLE["arts"]) for s in ARTS]


def _drawn(out: Path) -> list[tuple[str, list[dict]]]:
    from absa_checks.judge import audit
    from absa_checks.suites.candidates import read_candidates
    found = []
    for source, path, pool, sample in _audited_files(out):
        candidates = read_candidates(path)
        items = audit.draw(candidates, sample, AUDIT_SEED, pool).items
        if source in ARTS:
            items = _arts_questions(items, {c.candidate_id: c for c in candidates}, _units(source))
        found.append((source, items))
    return found


def _arts_questions(items: list[dict], candidates: dict, units: dict) -> list[dict]:
    """ARTS's published REVNON variants name no other aspect, so the sheet's question would ask for the other
    aspects "unchanged": ask what REVNON asks instead, from the unit's own annotation (the aspects that shared
    the target's sentiment now opposite, the opposite ones more strongly so), as our own REVNON items do."""
    from dataclasses import replace

    from absa_checks.judge import audit
    fixed = []
    for item in items:
        candidate = candidates[item["item"]]
        if item["strategy"] == "revnon" and not candidate.record.get("other_aspects"):
            original = units[candidate.unit].original
            flip = {"positive": "negative", "negative": "positive"}
            others = tuple(replace(a, polarity=flip[a.polarity]) if a.polarity == original.target.polarity
                           and a.polarity in flip else a for a in original.others)
            asked = replace(candidate.example(), others=others)
            item = {**item, "question": audit.question(asked, "revnon", item["original"])}
        fixed.append(item)
    return fixed


def audit_items(out: Path) -> None:
    """The sheets' items of every audited file, drawn with AUDIT_SEED, pooled (ours and ARTS's shuffled together,
    nothing telling them apart), then dealt twice into JUDGE_SHARES shares: round a and round b, so that two
    judges answer every item, each share to its own judge."""
    from absa_checks.judge import audit
    items = [item for _, drawn in _drawn(out) for item in drawn]
    if VERDICTS.exists():  # a later audit: only the drawn items no judge has answered yet (a verdict is of its text)
        judged = set(_verdicts())
        items = [item for item in items if any((r, item["item"], _sha(item["variant"])) not in judged for r in "ab")]
    folder = out / "judge-shares"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "RUBRIC.md").write_text(audit.RUBRIC, encoding="utf-8")
    for round_name, seed in (("a", AUDIT_SEED + 1), ("b", AUDIT_SEED + 2)):
        dealt = list(items)
        random.Random(seed).shuffle(dealt)
        shares = min(JUDGE_SHARES, -(-len(dealt) // 100))  # about 100-120 items a judge
        size = -(-len(dealt) // shares)
        for n in range(shares):
            part = dealt[n * size:(n + 1) * size]
            (folder / f"share-{round_name}{n + 1:02d}.jsonl").write_text(
                "".join(json.dumps(i, ensure_ascii=False) + "\n" for i in part), encoding="utf-8")
    print(f"{len(items)} items, {2 * shares} shares in {folder}", file=sys.stderr)


VERDICTS = RECORDED / "verdicts.jsonl"


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _verdicts() -> dict[tuple[str, str, str], dict]:
    """(round, item, sha256 of the text judged) -> the verdict; a later line (a re-judged item) replaces an earlier."""
    return {(row["round"], row["item"], row["variant_sha256"]): row for row in _rows(VERDICTS)}


def score(out: Path) -> None:
    """Each audited file's two answered sheets (round a's and round b's judges), rebuilt from the draw and the
    recorded verdicts, scored with `absa-checks audit score FILE SHEET_A SHEET_B` at a fixed time."""
    verdicts = _verdicts()
    folder = out / "sheets"
    folder.mkdir(parents=True, exist_ok=True)
    for (source, drawn), (_, path, _, _) in zip(_drawn(out), _audited_files(out)):
        sheets = []
        for round_name in ("a", "b"):
            lines = []
            for item in drawn:
                v = verdicts[(round_name, item["item"], _sha(item["variant"]))]
                lines.append(json.dumps({**item, "fluent": v["fluent"], "sentiment_ok": v["sentiment_ok"],
                                         "reason": v["reason"]}, ensure_ascii=False) + "\n")
            sheet = folder / f"{source}-{round_name}.jsonl"
            sheet.write_text("".join(lines), encoding="utf-8")
            sheets.append(str(sheet))
        env = {**os.environ, "PYTHONPATH": str(ROOT), "SOURCE_DATE_EPOCH": SCORED_EPOCH}
        done = subprocess.run([sys.executable, "-m", "absa_checks.cli", "audit", "score", str(path), *sheets],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            raise SystemExit(done.stderr)
        print(f"{source}:\n{done.stdout}", file=sys.stderr)


def rates(out: Path) -> dict:
    """Validity per source x strategy from the recorded verdicts and the draw alone (not the product's audit code):
    an item is valid only when both judges say fluent and sentiment_ok; exact (Clopper-Pearson) 95% intervals
    with scipy; and per origin of the variant (the rules' own, the rewriter's, a reviewer's text)."""
    from scipy.stats import beta

    def exact(k: int, n: int) -> dict:
        low = 0.0 if k == 0 else float(beta.ppf(0.025, k, n - k + 1))
        high = 1.0 if k == n else float(beta.ppf(0.975, k + 1, n - k))
        return {"valid": k, "n": n, "rate": round(k / n, 4), "low": round(low, 4), "high": round(high, 4)}

    verdicts = _verdicts()
    found: dict = {}
    for source, path, _, _ in _audited_files(out):
        rows = {r["id"]: r for r in _rows(path)}
        for item in dict(_drawn(out))[source]:
            r = rows[item["item"]]
            judged = [verdicts[(k, item["item"], _sha(item["variant"]))] for k in ("a", "b")]
            both = all(v["fluent"] and v["sentiment_ok"] for v in judged)
            origin = ("reviewer's text" if r.get("decision") == "edited" else
                      "ARTS" if r.get("mode") == "given" else "rewriter" if r.get("origin") == "rewriter" else "rules")
            for key in ((source, item["strategy"], "all"), (source, item["strategy"], origin),
                        ("ours" if source in SOURCES else "arts", item["strategy"], origin)):
                k, n = found.get(key, (0, 0))
                found[key] = (k + both, n + 1)
    table = {" / ".join(key): exact(k, n) for key, (k, n) in sorted(found.items())}
    print(json.dumps(table, indent=1))
    return table


SHIPPED = ROOT / "suites" / "frozen"


def freeze(out: Path, into: Path = SHIPPED) -> None:
    """The textless files: `absa-checks freeze` of each audited file."""
    into.mkdir(parents=True, exist_ok=True)
    for source, path, _, _ in _audited_files(out):
        target = into / f"{source}.jsonl"
        target.unlink(missing_ok=True)
        done = _cli("freeze", str(path), "--out", str(target))
        if done.returncode != 0:
            raise SystemExit(done.stderr)


def every_step(out: Path, check: bool = False) -> None:
    candidates(out)
    decide(out)
    score(out)
    if not check:
        freeze(out)
        return
    fresh = out / "shipped"
    if fresh.exists():
        for old in fresh.iterdir():
            old.unlink()
    freeze(out, fresh)
    differ = [p.name for p in sorted(SHIPPED.glob("*.jsonl")) if (fresh / p.name).read_bytes() != p.read_bytes()]
    if differ:
        raise SystemExit(f"rebuilt files differ from suites/frozen/: {', '.join(differ)}")
    print(f"suites/frozen/: {len(list(SHIPPED.glob('*.jsonl')))} files rebuilt byte for byte", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("step", choices=("candidates", "review-items", "decide", "audit-items", "score", "freeze",
                                         "rates", "all"))
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--check", action="store_true", help="with all: compare the rebuilt files with suites/frozen/")
    parser.add_argument("--second", action="store_true", help="with review-items: the second pass's items")
    parser.add_argument("--third", action="store_true", help="with review-items: the third pass's items")
    parser.add_argument("--fourth", action="store_true", help="with review-items: the fourth pass's items")
    args = parser.parse_args()
    if args.step == "all":
        every_step(args.out, args.check)
        return
    if args.step == "review-items":
        review_items(args.out, args.second, args.third, args.fourth)
        return
    {"candidates": candidates, "decide": decide, "audit-items": audit_items,
     "score": score, "freeze": freeze, "rates": rates}[args.step](args.out)


if __name__ == "__main__":
    main()
