"""The audit: a blinded sample of a candidates file's variants judged by people, and the validity it measures.

`draw` picks, per strategy, N candidates of a pool (`used`: what a frozen test runs, the reviewer's text when
edited; `shipped`: the generator's shipped proposals whatever was decided) with `random.Random(seed)`, and
shuffles them into sheet items that carry no provenance (no generator, decision, reviewer, status, reason or
edits): a judge sees the original, the variant and the question the rubric asks of it. `read_sheet` reads
the answers (true/false or yes/no), refusing a malformed line with SHEET:LINE; `record_verdicts` writes each
verdict on its candidate's line as `audit` and keeps every other line byte for byte; `tally` counts fluent,
sentiment_ok and both per strategy, with exact (Clopper-Pearson) intervals.

A verdict counts only while the sentence judged is still the text its candidate runs
(`Candidate.audit`): an edit after the audit drops it out. `validity` is what the reports show beside a
fail rate, from a frozen test's candidates.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from absa_checks.common.errors import AbsaChecksError
from absa_checks.common.examples import Example
from absa_checks.judge.gates import GateResult
from absa_checks.judge.stats import Rate, clopper_pearson
from absa_checks.suites.candidates import USED, Candidate, rewrite_lines

POOLS = ("used", "shipped")
YES_NO = {"yes": True, "no": False, "true": True, "false": False, "y": True, "n": False}
SHEET_KEYS = ("item", "strategy", "target", "question", "original", "variant", "fluent", "sentiment_ok", "reason")

# The rubric of ../shared/quality/README.md, verbatim (docs/perturbations.md, "Blind rounds").
RUBRIC = """\
# Judging the variants: the rubric

Each line of the sheet is one item: an original sentence and a variant of it. Answer two questions per
item, in its `fluent` and `sentiment_ok` fields (true/false, or "yes"/"no"), and add a short `reason`
whenever an answer is no. The item's `question` says what `sentiment_ok` asks of that item. Judge the
text only; the items carry nothing about how they were made, and should not.

- **fluent**: does the variant read as fluent, grammatical English at least as natural as the
  original? (yes/no)
- **sentiment_ok**: REVTGT: is the sentiment towards the target now the intended polarity? REVNON: do
  the other aspects that shared the target's sentiment now have the opposite sentiment, the ones
  already opposite are exaggerated (not weakened), and the target's sentiment is unchanged? ADDDIFF:
  is the sentiment towards the target unchanged, and do the added clauses express the opposite
  sentiment about other aspects? (yes/no)

Add a short reason whenever an answer is no. Be strict but fair; judge the text, not what the
generator intended.

Conventions:
- Spacing, tokenisation and a missing/extra final full stop are ignored. Artifacts that change or
  invent words ("rich_people", "filet minor") are not.
- Dropped articles in appended clauses ("battery is dead") are normal review style. Agreement errors
  ("waiters is angry") and predicates that do not fit their subject ("spec is disappointed") are not
  fluent.
- A variant that contradicts its own unchanged context is not fluent (a "but", "even", "not only",
  "equally", "highly recommend" that no longer makes sense). ADDDIFF's topical jump is tolerated.
- Mild reversals ("not great") reach the intended polarity when nothing in the context contradicts
  them; "not unmatched", "dull green" (a colour), "warm atmosphere" do not reverse anything.
- Other aspects = the other annotated aspect terms of the sentence; neutral ones need not change.
- Neutral targets: REVTGT keeps them neutral; REVNON must not weaken a polar aspect; ADDDIFF clauses
  must be clearly polar.
- ADDDIFF fails sentiment_ok if an added clause covers or compares against the target ("food is
  below average" for a dish; "Japanese food is better") or has the target's own polarity.

When done, give the sheet back; `absa-checks audit score FILE SHEET` reads it.
"""


class AuditError(AbsaChecksError):
    """A sheet or an audit that cannot be used: one line naming the file (and line) and the fix."""


def pool(candidates: Iterable[Candidate], which: str) -> list[Candidate]:
    """The candidates a sample is drawn from: `used` (accepted and edited: what a frozen test runs) or
    `shipped` (the generator's shipped proposals, decided or not: validity without review)."""
    if which not in POOLS:
        raise AuditError(f"unknown pool {which!r}; use one of {', '.join(POOLS)}")
    if which == "used":
        return [c for c in candidates if c.decision in USED]
    return [c for c in candidates if c.status == "shipped"]


def variant_of(candidate: Candidate, which: str) -> Example:
    """The variant judged: what the candidate runs (`used`), or the generator's proposal as shipped."""
    if which == "used" or candidate.decision != "edited":
        return candidate.example()
    shipped = candidate.record
    return Candidate(candidate.line, candidate.candidate_id, candidate.source, candidate.unit, candidate.strategy,
                     candidate.status, None, candidate.unit_hash, shipped).example()


def _quoted(terms: Iterable[str]) -> str:
    found = [f"'{t}'" for t in terms]
    return found[0] if len(found) == 1 else ", ".join(found[:-1]) + " and " + found[-1]


def question(variant: Example, strategy: str, original: str) -> str:
    """What `sentiment_ok` asks of this item, in plain English (the rubric's question for its strategy)."""
    target, polarity = variant.target.term, variant.target.polarity
    if strategy == "revtgt":
        if polarity == "neutral":
            return f"Is the sentiment towards '{target}' still neutral (REVTGT keeps a neutral target neutral)?"
        return f"Is the sentiment towards '{target}' now {polarity}?"
    if strategy == "revnon":
        polar = [a for a in variant.others if a.polarity in ("positive", "negative")]
        asked = [f"'{a.term}' now {a.polarity} (made {a.polarity} if it was not, more strongly {a.polarity} if it "
                 "already was, never weakened)" for a in polar]
        neutral = [a.term for a in variant.others if a.polarity not in ("positive", "negative")]
        rest = f"; {_quoted(neutral)} need not change" if neutral else ""
        others = "; ".join(asked) if asked else "the other aspects unchanged"
        return f"Is the sentiment towards '{target}' still {polarity}, and is the sentiment towards {others}{rest}?"
    if strategy == "adddiff":
        added = [a for a in variant.others if a.term not in original]
        opposite = sorted({a.polarity for a in added if a.polarity}) or ["the opposite of the target's"]
        about = _quoted(a.term for a in added) if added else "the other aspects it adds"
        return (f"Is the sentiment towards '{target}' still {polarity}, and do the added clauses express "
                f"{' / '.join(opposite)} sentiment about {about}, without covering or comparing against '{target}'?")
    return (f"Is the sentiment towards '{target}' {polarity} in the variant, and does the rest of the sentence "
            f"change as a {strategy} variant should?")


def sheet_item(candidate: Candidate, which: str) -> dict[str, Any]:
    """One line of a sheet: the candidate's id, what a judge needs, empty answers; no provenance."""
    variant = variant_of(candidate, which)
    original = (candidate.record.get("original") or {}).get("sentence", "")
    return {"item": candidate.candidate_id, "strategy": candidate.strategy, "target": variant.target.term,
            "question": question(variant, candidate.strategy, original), "original": original,
            "variant": variant.sentence, "fluent": None, "sentiment_ok": None, "reason": ""}


@dataclass(frozen=True)
class Drawn:
    items: list[dict[str, Any]]
    per_strategy: dict[str, tuple[int, int]]  # strategy -> (drawn, in the pool)


def draw(candidates: Iterable[Candidate], sample: int, seed: int, which: str = "used") -> Drawn:
    """Up to `sample` candidates of each strategy in the pool (all of them when it has fewer), chosen and
    shuffled with random.Random(seed): the same file, sample and seed give the same sheet."""
    if sample < 1:
        raise AuditError(f"--sample {sample}: draw at least one item per strategy")
    found = pool(candidates, which)
    rng = random.Random(seed)
    chosen: list[Candidate] = []
    per_strategy: dict[str, tuple[int, int]] = {}
    for strategy in sorted({c.strategy for c in found}):
        mine = [c for c in found if c.strategy == strategy]  # file order: stable for a seed
        picked = rng.sample(mine, min(sample, len(mine)))
        per_strategy[strategy] = (len(picked), len(mine))
        chosen += picked
    rng.shuffle(chosen)
    return Drawn([sheet_item(c, which) for c in chosen], per_strategy)


@dataclass(frozen=True)
class AuditVerdict:
    item: str
    strategy: str
    fluent: bool
    sentiment_ok: bool
    reason: str
    sentence: str  # the variant text judged
    at: str        # SHEET:LINE

    @property
    def both(self) -> bool:
        return self.fluent and self.sentiment_ok


def _answer(value: object, key: str, at: str) -> bool | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in YES_NO:
        return YES_NO[value.strip().lower()]
    raise AuditError(f"{at}: '{key}' is {json.dumps(value)}; answer true or false (or \"yes\" / \"no\")")


def read_sheet(text: str, shown: str) -> tuple[list[AuditVerdict], list[str]]:
    """The answered items of a sheet, and the SHEET:LINE of each unanswered one (fluent or sentiment_ok
    empty). A line that is not a sheet item, or an answer that is neither true/false nor yes/no, is one
    AuditError naming SHEET:LINE and the fix."""
    verdicts: list[AuditVerdict] = []
    unanswered: list[str] = []
    seen: dict[str, str] = {}
    for number, line in enumerate(text.removeprefix("\ufeff").split("\n"), 1):
        if not line.strip():
            continue
        at = f"{shown}:{number}"
        try:
            item = json.loads(line)
        except ValueError as err:
            raise AuditError(f"{at}: not a JSON line ({err.args[0].split(':')[0]}); each line is one sheet item, "
                             "as `absa-checks audit draw` wrote it") from None
        if not isinstance(item, dict) or not isinstance(item.get("item"), str) or not item["item"]:
            raise AuditError(f"{at}: not a sheet item (a JSON object with 'item', 'variant', 'fluent', "
                             "'sentiment_ok', 'reason', as `absa-checks audit draw` wrote it)")
        for key in ("variant", "strategy"):
            if not isinstance(item.get(key), str) or not item[key]:
                raise AuditError(f"{at}: item '{item['item']}' has no '{key}' text; keep the line as drawn and "
                                 "fill in only 'fluent', 'sentiment_ok' and 'reason'")
        if item["item"] in seen:
            raise AuditError(f"{at}: item '{item['item']}' is also on {seen[item['item']]}; one verdict an item "
                             "(remove one of the lines, or score the sheets one at a time)")
        seen[item["item"]] = at
        reason = item.get("reason")
        if reason is None:
            reason = ""
        if not isinstance(reason, str):
            raise AuditError(f"{at}: 'reason' is {json.dumps(reason)}; write it as a text (\"\" when none)")
        fluent, sentiment = _answer(item.get("fluent"), "fluent", at), _answer(item.get("sentiment_ok"),
                                                                              "sentiment_ok", at)
        if fluent is None or sentiment is None:
            unanswered.append(at)
            continue
        verdicts.append(AuditVerdict(item["item"], item["strategy"], fluent, sentiment, reason.strip(), item["variant"], at))
    return verdicts, unanswered


def combine_judges(sheets: Sequence[tuple[Sequence[AuditVerdict], Sequence[str], str]]
                   ) -> dict[str, tuple[AuditVerdict, str | list[dict[str, Any]]]]:
    """The verdict of each item over several sheets (verdicts, unanswered SHEET:LINEs, sheet name). Sheets that
    share no item are separate draws, one judge each. Sheets that share an item are judges of one draw: each
    must answer the same items about the same text, and an item's verdict is the AND of theirs (valid only when
    every judge says fluent and intended sentiment), with each judge's kept. AuditError naming SHEET:LINE when
    they differ."""
    owners: dict[str, list[int]] = {}
    for index, (found, _, _) in enumerate(sheets):
        for verdict in found:
            owners.setdefault(verdict.item, []).append(index)
    judged = sorted({i for found in owners.values() if len(found) > 1 for i in found})
    out: dict[str, tuple[AuditVerdict, str | list[dict[str, Any]]]] = {}
    for index, (found, _, name) in enumerate(sheets):
        if index not in judged:
            for verdict in found:
                if verdict.item in out:  # only possible within the sheet: read_sheet refuses it
                    raise AuditError(f"{verdict.at}: item '{verdict.item}' is also answered on {out[verdict.item][0].at}")
                out[verdict.item] = (verdict, name)
    if not judged:
        return out
    first = sheets[judged[0]]
    by_item = {index: {v.item: v for v in sheets[index][0]} for index in judged}  # each judge's verdicts, by item
    items = by_item[judged[0]]
    for index in judged[1:]:
        found, _, name = sheets[index]
        own = by_item[index]
        for verdict in found:
            other = items.get(verdict.item)
            if other is None:
                raise AuditError(f"{verdict.at}: item '{verdict.item}' is answered here and not on {first[2]}; the "
                                 "judges' sheets of one draw answer the same items (answer it there, or score the "
                                 "sheets apart)")
            if other.sentence != verdict.sentence:
                raise AuditError(f"{verdict.at}: item '{verdict.item}' judged another text than on {other.at}; give "
                                 "each judge the same sheet as drawn")
        missing = [v for item, v in items.items() if item not in own]
        if missing:
            raise AuditError(f"{missing[0].at}: item '{missing[0].item}' is answered here and not on {name}; the "
                             "judges' sheets of one draw answer the same items (answer it there, or score the "
                             "sheets apart)")
    for item, verdict in items.items():
        each = [by_item[i][item] for i in judged]
        if item in out:
            raise AuditError(f"{verdict.at}: item '{item}' is also answered on {out[item][0].at}, a sheet of another "
                             "draw; score the draws one at a time")
        judges = [{"fluent": v.fluent, "sentiment_ok": v.sentiment_ok, "reason": v.reason, "sheet": sheets[i][2]}
                  for v, i in zip(each, judged)]
        reason = "; ".join(v.reason for v in each if v.reason)
        out[item] = (AuditVerdict(item, verdict.strategy, all(v.fluent for v in each), all(v.sentiment_ok for v in each),
                             reason, verdict.sentence, verdict.at), judges)
    return out


def record_verdicts(text: str, shown: str, verdicts: Mapping[str, tuple[AuditVerdict, str | list[dict[str, Any]]]],
                    now: str) -> tuple[str, list[AuditVerdict]]:
    """The candidates file's text with each verdict ({item: (verdict, sheet name or its judges)}) written on its
    candidate's line as `audit` (an earlier audit replaced); every other line byte for byte. Returns the new
    text and the verdicts whose item is not a candidate of the file (an error for the caller)."""

    def write(record: dict, found: tuple[AuditVerdict, str | list[dict[str, Any]]], at: str) -> None:
        verdict, sheet = found
        if record.get("status") == "not_applicable":
            raise AuditError(f"{verdict.at}: item '{verdict.item}' is a unit with no variant in {at} "
                             "(not_applicable); there is nothing to audit: remove the line from the sheet")
        judges = sheet if isinstance(sheet, list) else None  # several judges: each one's verdict kept
        record["audit"] = {"fluent": verdict.fluent, "sentiment_ok": verdict.sentiment_ok, "reason": verdict.reason,
                           "sentence": verdict.sentence,
                           "sheet": ", ".join(j["sheet"] for j in judges) if judges else sheet, "scored_at": now,
                           **({"judges": judges} if judges else {})}

    new, left = rewrite_lines(text, shown, dict(verdicts), write)
    return new, sorted((v for v, _ in left.values()), key=lambda v: v.at)


@dataclass(frozen=True)
class Tally:
    """Audited verdicts of one strategy: how many, and how many fluent, sentiment_ok and both."""

    audited: int = 0
    fluent: int = 0
    sentiment_ok: int = 0
    both: int = 0

    def add(self, fluent: bool, sentiment_ok: bool) -> Tally:
        return Tally(self.audited + 1, self.fluent + fluent, self.sentiment_ok + sentiment_ok,
                     self.both + (fluent and sentiment_ok))

    def rates(self) -> dict[str, Rate]:
        """fluent, sentiment_ok and both with exact (Clopper-Pearson) 95% intervals."""
        return {key: clopper_pearson(getattr(self, key), self.audited) for key in ("fluent", "sentiment_ok", "both")}

    def to_dict(self) -> dict[str, Any]:
        """`validity.<source>.<strategy>` of the JSON report: rate objects, or null when not audited."""
        if not self.audited:
            return {"audited": 0, "fluent": None, "sentiment_ok": None, "both": None}
        return {"audited": self.audited, **{key: rate.to_dict() for key, rate in self.rates().items()}}


def tally(verdicts: Iterable[tuple[str, bool, bool]]) -> dict[str, Tally]:
    """strategy -> Tally, from (strategy, fluent, sentiment_ok) verdicts."""
    found: dict[str, Tally] = {}
    for strategy, fluent, sentiment_ok in verdicts:
        found[strategy] = found.get(strategy, Tally()).add(fluent, sentiment_ok)
    return dict(sorted(found.items()))


def shown_rate(rate: Rate) -> str:
    return f"{100 * rate.value:.0f}% [{100 * rate.low:.0f}, {100 * rate.high:.0f}]"


def summary_lines(found: Mapping[str, Tally]) -> list[str]:
    """The per-strategy table `audit score` prints."""
    lines = [f"{'strategy':10} {'n':>4}  {'fluent':>16}  {'sentiment_ok':>16}  {'both':>16}   (Clopper-Pearson 95%)"]
    for strategy, one in found.items():
        rates = one.rates()
        lines.append(f"{strategy:10} {one.audited:4d}  " + "  ".join(
            f"{shown_rate(rates[key]):>16}" for key in ("fluent", "sentiment_ok", "both")))
    return lines


NOT_AUDITED = "not audited"


def validity(records: Iterable[Mapping[str, Any]], pairs: Iterable[tuple[str, str]] = ()
             ) -> dict[str, dict[str, Tally]]:
    """source -> strategy -> Tally for every source and strategy of a run (`pairs`, and those of the records):
    a frozen test's from the audit verdicts its coverage record carries (the accepted and edited candidates of
    its pool whose audit still judges the text they run), an empty Tally (not audited) for every other."""
    verdicts: dict[tuple[str, str], dict[str, list[bool]]] = {}
    keys = set(pairs)
    for record in records:
        key = (record["source"], record["strategy"])
        keys.add(key)
        if record.get("audits") is not None:
            verdicts.setdefault(key, {}).update(record["audits"])
    found: dict[str, dict[str, Tally]] = {}
    for source, strategy in sorted(keys):
        mine = verdicts.get((source, strategy), {})
        found.setdefault(source, {})[strategy] = tally((strategy, bool(f), bool(s)) for f, s in mine.values()).get(
            strategy, Tally())
    return found


def to_report(found: Mapping[str, Mapping[str, Tally]]) -> dict[str, dict[str, dict[str, Any]]]:
    """`validity.<source>.<strategy>` of the JSON report."""
    return {source: {strategy: one.to_dict() for strategy, one in strategies.items()}
            for source, strategies in found.items()}


def cell(one: Tally | None) -> str:
    """Beside a fail rate: "valid 93% [87, 97] (n 120)" (both fluent and the intended sentiment, exact 95%
    interval), or "not audited"."""
    if one is None or not one.audited:
        return NOT_AUDITED
    return f"valid {shown_rate(one.rates()['both'])} (n {one.audited})"


GATE = "min_validity"


def frozen_files(records: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str], str]:
    """(source, strategy) -> the frozen file its test runs, as the suite names it."""
    return {(r["source"], r["strategy"]): r["frozen"] for r in records if r.get("frozen")}


def live_pairs(records: Iterable[Mapping[str, Any]]) -> frozenset[tuple[str, str]]:
    """(source, strategy) pairs whose test runs live variants there by its suite (no frozen or audited file): a
    test with files per source gates `min_validity` only on the sources that have one."""
    return frozenset((r["source"], r["strategy"]) for r in records if not r.get("frozen") and not r.get("ignored"))


def ignored_pairs(records: Iterable[Mapping[str, Any]]) -> frozenset[tuple[str, str]]:
    """(source, strategy) pairs whose frozen or audited file the run left aside (--absa-variants live)."""
    return frozenset((r["source"], r["strategy"]) for r in records if r.get("ignored"))


LIVE_OPTION = "--absa-variants live"


def gates(tests: Iterable[Any], found: Mapping[str, Mapping[str, Tally]], files: Mapping[tuple[str, str], str],
          live: frozenset[tuple[str, str]] = frozenset(), ignored: frozenset[tuple[str, str]] = frozenset()
          ) -> list[GateResult]:
    """`min_validity` of each test that sets it: passes when the LOWER bound of the exact 95% interval of
    `both` (fluent and the intended sentiment) is at least the threshold; fails below it, and fails when the
    test's variants are not audited (never a vacuous pass). Not a gate on the `live` pairs (a source its test
    names in neither `frozen` nor `audited`); on the `ignored` pairs (--absa-variants live left the file aside)
    it fails, saying validity was not measured."""
    results = []
    for test in tests:
        threshold = test.gates.get(GATE)
        if threshold is None:
            continue
        if (test.source, test.strategy) in live:
            continue
        one = found.get(test.source, {}).get(test.strategy, Tally())
        where = f"{test.strategy} on {test.source}"
        if (test.source, test.strategy) in ignored:
            results.append(GateResult(GATE, test.test, test.source, threshold, None, "lower bound", "fail",
                                      f"not measured: {LIVE_OPTION} ran the live generator for {where}, whose "
                                      "variants are never audited; run without the option to gate the audited "
                                      "validity of the test's files"))
            continue
        if not one.audited:
            file = files.get((test.source, test.strategy), "FILE")
            results.append(GateResult(GATE, test.test, test.source, threshold, None, "lower bound", "fail",
                                      f"the variants of {where} are not audited (no verdict on a candidate it runs): "
                                      f"`absa-checks audit draw {file} --sample N --seed S --out SHEET`, have the "
                                      f"sheet judged, then `absa-checks audit score {file} SHEET`"))
            continue
        both = one.rates()["both"]
        shown = f"validity (fluent and the intended sentiment) {cell(one)[len('valid '):]}"
        if both.low >= threshold:
            results.append(GateResult(GATE, test.test, test.source, threshold, both, "lower bound", "pass",
                                      f"{shown}: its lower bound {both.low:.2%} is at least {threshold:.2%}"))
        else:
            results.append(GateResult(GATE, test.test, test.source, threshold, both, "lower bound", "fail",
                                      f"{shown}: its lower bound {both.low:.2%} is below {threshold:.2%} (audit more "
                                      "items to narrow the interval, or review the variants that failed)"))
    return results
