"""Issue 38's blind validity round for the shipped expanded gold (docs/extraction.md, "How valid the added forms are").

    python benchmarks/quality/expanded_validity.py draw --out DIR [--seed 40] [--per-set 150]
    python benchmarks/quality/expanded_validity.py score --key benchmarks/recorded/expansion/validity-seed40-key.jsonl \
        --verdicts benchmarks/recorded/expansion/validity-seed40-verdicts.jsonl

`draw` takes, per ASQP test set, PER_SET of the forms the shipped files accept (random.Random(seed) over every
accepted (sentence, quad, field, form), in file order), and as distractors every candidate the pipeline
refused (JUDGE's refusals, and the deterministic checks' refusals other than "the gold term itself" and
"proposed twice"), read from the recorded answers, and PLANTED controls that are clearly not valid (another
quad's aspect; the opinion without its negation); shuffles them together (the same seed) into two shards,
each to be read by two judges who get only RUBRIC and the shard's items (sentence, gold quad, field,
candidate; no field says where an item came from). DIR/key.jsonl says what each item is (no sentence text:
kept with the verdicts in benchmarks/recorded/expansion/, validity-seed<N>-key.jsonl).

`score` reads the judges' verdicts ({"item", "judge", "valid", "reason"} lines) and prints, per set, the share
of accepted forms valid by both judges, by each, and by either, with Clopper-Pearson 95% intervals, the
judges' agreement, and how the distractors fared.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from absa_checks.common.llm_requests import read_answers  # noqa: E402
from absa_checks.expansion import checks, prompt  # noqa: E402
from absa_checks.expansion.prompt import FormCandidate  # noqa: E402
from absa_checks.judge.stats import clopper_pearson  # noqa: E402
from absa_checks.sources.expanded_gold import read  # noqa: E402
from absa_checks.sources.gold_sources import load_gold  # noqa: E402
from absa_checks.workflows.expand import zoom_bodies  # noqa: E402

SHARED = Path(os.environ.get("ABSA_SHARED_DIR", ROOT.parent / "shared"))
SOURCES = ("asqp-rest15", "asqp-rest16")
SHIPPED = ROOT / "suites" / "extraction" / "expanded"
ANSWERS = ROOT / "benchmarks" / "recorded" / "expansion" / "answers.jsonl"
PLANTED = 20  # planted controls per set
RUBRIC = """\
# Judging other forms of a gold term

Each item is a review sentence (tokenised: "do n't", "food ."), one of its gold annotations (aspect term,
category, sentiment, opinion term; NULL: not named in the sentence) and a candidate: another form proposed
for that annotation's aspect term or its opinion term.

- **valid**: would a careful annotator accept the candidate in place of the gold term, for this sentence and
  this annotation? (yes/no)
  - an aspect form must name the same thing: a determiner, a possessive or a modifier added or dropped is
    fine when what is named stays the same; a part of it, a larger thing, another thing, or words that are
    no part of a name (a verb, an opinion) are not;
  - an opinion form must express the same opinion about that aspect with the same sentiment: intensity
    words added or dropped are fine when the opinion stays the same; a negation lost or added, a changed
    sentiment, or words that belong to another aspect or opinion are not;
  - a candidate that writes out a contraction ("not worth" for "n't worth") or corrects the spelling of
    the sentence's words counts as those words.

Add a short reason whenever the answer is no. Be strict but fair. Tokenisation spaces and letter case are
ignored.
"""


def _accepted(source: str) -> list[dict]:
    sentences = read(load_gold(source, SHARED / "data"), SHIPPED / f"{source}.expanded.jsonl")
    found = []
    for s in sentences:
        for quad in range(len(s.gold)):
            for field in prompt.TERM_FIELDS:
                for term in s.alternatives(quad, field):
                    found.append({"set": source, "id": s.sentence_id, "quad": quad, "field": field, "term": term,
                                  "kind": "accepted"})
    return found


def _refused(source: str) -> list[dict]:
    """The candidates the pipeline refused (JUDGE, or the checks but for no-op reasons), from the answers."""
    answers = {key: a.content for key, a in read_answers(ANSWERS).items()}
    settings = prompt.ExpanderSettings()
    from absa_checks.common.llm_requests import request_key

    found = []
    for s in load_gold(source, SHARED / "data"):
        zooms = zoom_bodies(s, settings)
        if not zooms:
            continue
        seen: set = set()
        passed = []
        for step, body in zooms.items():
            for proposal in checks.read_zoom(answers[request_key(body)], len(s.gold)):
                made = checks.check(proposal, step, s.sentence, s.gold, seen)
                if isinstance(made, FormCandidate):
                    passed.append(made)
                elif made not in (checks.REJECT_GOLD_ITSELF, checks.REJECT_TWICE, checks.REJECT_MALFORMED,
                                  checks.REJECT_NO_QUAD):
                    found.append({"set": source, "id": s.sentence_id, "quad": proposal.quad,
                                  "field": proposal.field, "term": str(proposal.term), "kind": f"checks: {made}"})
        if passed:
            said = checks.read_judge(answers[request_key(prompt.judge_body(s.sentence, s.gold, tuple(passed),
                                                                            settings))], len(passed))
            found += [{"set": source, "id": s.sentence_id, "quad": c.quad, "field": c.field, "term": c.term,
                       "kind": "judge refused"} for i, c in enumerate(passed) if said.get(i) is False]
    return found


def _planted(source: str, rng: random.Random, n: int) -> list[dict]:
    """Controls no generator made, each clearly not valid: another quad's aspect term in place of the gold aspect,
    or the gold opinion with its negation dropped; n per set (half each where there are enough): how often the
    judges accept these says how far their "valid" can be trusted."""
    other, negated = [], []
    for s in load_gold(source, SHARED / "data"):
        aspects = {g.aspect for g in s.gold if g.aspect}
        for quad, g in enumerate(s.gold):
            for a in sorted(aspects - {g.aspect}):
                if g.aspect and a.casefold() not in g.aspect.casefold() and g.aspect.casefold() not in a.casefold():
                    other.append({"set": source, "id": s.sentence_id, "quad": quad, "field": "aspect", "term": a,
                                  "kind": "planted: another aspect"})
            words = (g.opinion or "").split()
            cut = [w for w in words if w.casefold() not in ("not", "n't", "never", "no", "nothing")]
            if g.opinion and cut and len(cut) < len(words):
                negated.append({"set": source, "id": s.sentence_id, "quad": quad, "field": "opinion",
                                "term": " ".join(cut), "kind": "planted: negation dropped"})
    half = min(n // 2, len(negated))
    return rng.sample(negated, half) + rng.sample(other, n - half)


def draw(out: Path, seed: int, per_set: int) -> None:
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    items = []
    for source in SOURCES:
        accepted = _accepted(source)
        items += rng.sample(accepted, per_set) + _refused(source) + _planted(source, rng, PLANTED)
        print(f"{source}: {len(accepted)} accepted forms, {per_set} drawn; {len(_refused(source))} refused ones and "
              f"{PLANTED} planted controls added")
    rng.shuffle(items)
    gold = {s: {x.sentence_id: x for x in load_gold(s, SHARED / "data")} for s in SOURCES}
    key, shards = [], [[], []]
    for n, item in enumerate(items):
        item_id = hashlib.sha256(f"{seed}:{n}:{item['set']}:{item['id']}:{item['quad']}:{item['field']}:"
                                 f"{item['term']}".encode()).hexdigest()[:10]
        key.append({"item": item_id, **item})
        sentence = gold[item["set"]][item["id"]]
        g = sentence.gold[item["quad"]]
        shards[n % 2].append({"item": item_id, "sentence": sentence.sentence,
                              "gold": {"aspect": g.aspect or "NULL", "category": g.category, "sentiment": g.polarity,
                                       "opinion": g.opinion or "NULL"},
                              "candidate_for": f"the {item['field']} term", "gold_term":
                                  (getattr(g, item["field"]) or "NULL"), "candidate": item["term"]})
    (out / "key.jsonl").write_text("".join(json.dumps(k, ensure_ascii=False) + "\n" for k in key), encoding="utf-8")
    (out / "RUBRIC.md").write_text(RUBRIC, encoding="utf-8")
    for n, shard in enumerate(shards, 1):
        (out / f"items-{n}.jsonl").write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in shard),
                                              encoding="utf-8")
    print(f"{len(items)} items in 2 shards: {out}; seed {seed}")


def _pct(k: int, n: int) -> str:
    found = clopper_pearson(k, n)
    low, high = found.low, found.high
    return f"{100 * k / n:.1f}% [{100 * low:.1f}, {100 * high:.1f}] ({k}/{n})" if n else "-"


def score(key_file: Path, verdicts_file: Path) -> dict:
    key = {k["item"]: k for k in map(json.loads, key_file.read_text(encoding="utf-8").splitlines())}
    said: dict[str, dict[str, bool]] = defaultdict(dict)
    for v in map(json.loads, verdicts_file.read_text(encoding="utf-8").splitlines()):
        said[v["item"]][v["judge"]] = bool(v["valid"])
    missing = [item for item in key if len(said.get(item, {})) != 2]
    if missing:
        raise SystemExit(f"{len(missing)} items lack two verdicts, e.g. {missing[:3]}")
    result = {}
    for source in SOURCES:
        # a form drawn as accepted that the shipped file no longer accepts (the checks were tightened after the draw)
        # is left out of the rates, and counted
        shipped = {(a["id"], a["quad"], a["field"], a["term"]) for a in _accepted(source)}
        rows = [(k, list(said[i].values())) for i, k in key.items() if k["set"] == source]
        dropped = sum(k["kind"] == "accepted" and (k["id"], k["quad"], k["field"], k["term"]) not in shipped
                      for k, _ in rows)
        rows = [(k, v) for k, v in rows if k["kind"] != "accepted" or (k["id"], k["quad"], k["field"], k["term"])
                in shipped]
        accepted = [v for k, v in rows if k["kind"] == "accepted"]
        refused = [v for k, v in rows if k["kind"] not in ("accepted",) and not k["kind"].startswith("planted")]
        planted = [v for k, v in rows if k["kind"].startswith("planted")]
        n = len(accepted)
        both, either = sum(all(v) for v in accepted), sum(any(v) for v in accepted)
        agree = sum(v[0] == v[1] for v in accepted)
        by_field = Counter((k["field"], all(v)) for k, v in rows if k["kind"] == "accepted")
        result[source] = {"accepted_n": n, "drawn_but_no_longer_shipped": dropped, "valid_both": _pct(both, n),
                          "valid_either": _pct(either, n),
                          "judge_agreement": _pct(agree, n),
                          "aspect_valid_both": _pct(by_field[("aspect", True)],
                                                    by_field[("aspect", True)] + by_field[("aspect", False)]),
                          "opinion_valid_both": _pct(by_field[("opinion", True)],
                                                     by_field[("opinion", True)] + by_field[("opinion", False)]),
                          "refused_n": len(refused), "refused_valid_both": _pct(sum(all(v) for v in refused),
                                                                               len(refused)),
                          "planted_n": len(planted), "planted_valid_either": _pct(sum(any(v) for v in planted),
                                                                                 len(planted))}
    print(json.dumps(result, indent=1))
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("step", choices=("draw", "score"))
    parser.add_argument("--out", type=Path, default=None, help="draw: the folder the shards and key.jsonl go to")
    parser.add_argument("--key", type=Path, default=None, help="score: the key.jsonl draw wrote")
    parser.add_argument("--seed", type=int, default=40)
    parser.add_argument("--per-set", type=int, default=150)
    parser.add_argument("--verdicts", type=Path, default=None)
    args = parser.parse_args()
    if args.step == "draw":
        if args.out is None:
            raise SystemExit("draw: give --out DIR")
        draw(args.out, args.seed, args.per_set)
    elif args.key is None or args.verdicts is None:
        raise SystemExit("score: give --key KEY.jsonl and --verdicts VERDICTS.jsonl")
    else:
        score(args.key, args.verdicts)


if __name__ == "__main__":
    main()
