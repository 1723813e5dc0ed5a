"""The candidates file: every variant `absa-checks generate --candidates` proposed, with a reviewer's decision.

One JSON object a line (docs/suites.md, "Frozen variants"). A test with `variants: {frozen: FILE}` runs
exactly the accepted and edited candidates of FILE; the generator is never asked. Reading refuses a bad
line with its number: not JSON, an unknown status or decision, a decision without its reviewer, an edit
whose sentence no longer holds the target.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from absa_checks.common import inputs
from absa_checks.common.errors import AbsaChecksError
from absa_checks.common.examples import Aspect, Edit, Example, term_starts

STATUSES = ("shipped", "quarantined", "not_applicable")
DECISIONS = ("accepted", "rejected", "edited")
USED = ("accepted", "edited")  # the decisions whose candidates a frozen test runs
REQUIRED_KEYS = ("id", "source", "unit", "strategy", "status", "unit_hash")
CANDIDATE_VARIANT_KEYS = ("sentence", "term", "from", "to", "polarity")
ID_KEYS = ("source", "unit", "strategy", "status", "sentence", "from", "to", "polarity", "unit_hash")
CANDIDATES_NOT_FOUND = "candidates file not found; write it with `absa-checks generate --candidates --out FILE`"


T = TypeVar("T")


class CandidatesError(AbsaChecksError):
    """A candidates file that cannot be read or used: one line naming the file (and line) and the fix."""


@dataclass(frozen=True)
class Candidate:
    """One line of a candidates file, checked; `record` is the line's object as written."""

    line: int
    candidate_id: str
    source: str
    unit: str
    strategy: str
    status: str
    decision: str | None
    unit_hash: str
    record: dict[str, Any]

    def example(self) -> Example:
        """The variant a frozen test runs: the reviewer's text when edited, else the candidate's."""
        r = self.record
        if self.decision == "edited":
            e = r["edited"]
            target = Aspect(e.get("term", r["term"]), e["from"], e["to"], e.get("polarity", r["polarity"]))
            return Example(e["sentence"], target, _others(e["sentence"], r, e))
        target = Aspect(r["term"], r["from"], r["to"], r["polarity"])
        return Example(r["sentence"], target, tuple(Aspect(a["term"], a["from"], a["to"], a.get("polarity"))
                                                     for a in r.get("other_aspects") or ()))

    def audit(self) -> dict[str, Any] | None:
        """The audit verdict that counts (`absa-checks audit score`): only while the sentence judged is still the
        text the candidate runs, so an edit after the audit drops it out. None when not audited (or dropped)."""
        found = self.record.get("audit")
        if not isinstance(found, dict):
            return None
        text = self.text()  # None: no text (a textless line not rebuilt) has no verdict that counts
        return found if text is not None and found.get("sentence") == text else None

    def text(self) -> str | None:
        """The candidate's variant text: the reviewer's when edited, else the generator's (None: it has none)."""
        if self.decision == "edited":
            return self.record["edited"]["sentence"]
        sentence = self.record.get("sentence")
        return sentence if isinstance(sentence, str) else None

    def edits(self) -> tuple[Edit, ...]:
        """The generator's edits; for an edited candidate, the reviewer's sentence as one edit of the original."""
        r = self.record
        if self.decision == "edited":
            original = r["original"]["sentence"]
            return (Edit(0, len(original), original, r["edited"]["sentence"], "edited by the reviewer"),)
        return tuple(Edit(e["start"], e["end"], e["old"], e["new"], e.get("why", "")) for e in r.get("edits") or ())

    def provenance(self) -> dict[str, Any]:
        """What a frozen case carries into its outcome and the reports."""
        r = self.record
        found = {"candidate": self.candidate_id, "decision": self.decision, "reviewer": r.get("reviewer"),
                 "decided_at": r.get("decided_at"), "generator": r.get("generator"), "status": self.status,
                 "reason": r.get("reason"), "edits": r.get("edits") or [], "unit_hash": self.unit_hash}
        if self.decision == "edited":
            found["edited"] = r["edited"]
            found["generated_sentence"] = r.get("sentence")
        return found


def unit_hash(example: Example) -> str:
    """The content of a unit's original that its variants depend on: the sentence, the target and the other
    aspects with their spans and labels. A change here means its frozen candidates no longer fit it."""
    aspects = [[a.term, a.start, a.end, a.polarity] for a in (example.target, *example.others)]
    text = json.dumps([example.sentence, aspects], ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def candidate_id(record: dict) -> str:
    """Stable: the same proposal for the same unit at the same content always has the same id; another
    proposal, or the unit's content changed, another id."""
    keys = ID_KEYS + (("origin",) if record.get("origin") else ())  # an LLM's candidate ("rewriter") apart
    text = json.dumps([record.get(key) for key in keys], ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def read_candidates(path: Path, shown: str | None = None) -> tuple[Candidate, ...]:
    """Every line of the file, checked; the first bad line is one CandidatesError naming it."""
    shown = shown or str(path)
    return parse_candidates(read_text(path, shown), shown)


def read_text(path: Path, shown: str | None = None, not_found: str = CANDIDATES_NOT_FOUND) -> str:
    """The file's text as it is (a byte-order mark kept), or one CandidatesError saying why it cannot be read:
    the one reader of a candidates file (the commands, a frozen test, the review page, which reads an audit
    sheet with it too). `shown` names the file in the message, `not_found` says what to do when there is none;
    what is no regular file (a folder, a FIFO, a device) is refused before it is opened (common.inputs)."""
    shown = shown or str(path)
    try:
        return inputs.read_bytes(path).decode("utf-8")
    except FileNotFoundError:
        raise CandidatesError(f"{shown}: {not_found}") from None
    except (OSError, UnicodeDecodeError) as err:
        raise CandidatesError(f"{shown}: cannot be read as UTF-8 text ({err})") from None


@dataclass(frozen=True)
class ReviewedWork:
    """What people put into a candidates file that regenerating it would lose: decided lines, audit verdicts."""

    decisions: int
    audits: int

    def __bool__(self) -> bool:
        return bool(self.decisions or self.audits)

    def said(self) -> str:
        """'3 reviewer decisions and 1 audit verdict' (the parts that are there)."""
        parts = [f"{n} {what}{'' if n == 1 else 's'}" for n, what in ((self.decisions, "reviewer decision"),
                                                                     (self.audits, "audit verdict")) if n]
        return " and ".join(parts)


def reviewed_work_in(path: Path) -> ReviewedWork:
    """The reviewed work in a file about to be written anew (`reviewed_work`, read leniently): none where there is
    no regular file, or where it cannot be read (the write then says why)."""
    if not path.is_file():
        return ReviewedWork(0, 0)
    try:
        text = inputs.read_bytes(path).decode("utf-8", errors="replace")
    except OSError:
        return ReviewedWork(0, 0)
    return reviewed_work(text)


def reviewed_work(text: str) -> ReviewedWork:
    """The decisions and audit verdicts a file's lines hold, read leniently (a line that is no JSON object is
    not counted): for refusing to write over a reviewed candidates file, whatever else is wrong with it."""
    decisions = audits = 0
    for line in text.removeprefix("\ufeff").split("\n"):
        try:
            record = json.loads(line) if line.strip() else None
        except ValueError:
            continue
        if isinstance(record, dict):
            decisions += record.get("decision") not in (None, "")
            audits += isinstance(record.get("audit"), dict)
    return ReviewedWork(decisions, audits)


def parse_candidates(text: str, shown: str,
                     then: Callable[[Candidate, str, int], Candidate] | None = None) -> tuple[Candidate, ...]:
    """Every line of a candidates file's text, checked (a byte-order mark an editor left is not a bad line);
    `then(candidate, "FILE:LINE", number)`, when given, may give another candidate for a line (a textless line
    rebuilt from its unit: suites.textless.read_frozen) before ids are compared."""
    found: list[Candidate] = []
    seen: dict[str, int] = {}
    # lines end at "\n" only: str.splitlines would also split at U+2028 or U+0085 inside a sentence
    for number, line in enumerate(text.removeprefix("\ufeff").split("\n"), 1):
        if not line.strip():
            continue
        at = f"{shown}:{number}"
        candidate = parse_line(line, at, number)
        if then is not None:
            candidate = then(candidate, at, number)
        if candidate.candidate_id in seen:
            raise CandidatesError(f"{shown}:{number}: candidate id '{candidate.candidate_id}' is also on line "
                                  f"{seen[candidate.candidate_id]}; each candidate has its own id")
        seen[candidate.candidate_id] = number
        found.append(candidate)
    return tuple(found)


def parse_line(line: str, at: str, number: int) -> Candidate:
    """One line, checked (the review page checks an edit with it before saving): `at` is "FILE:LINE"."""
    return check_record(load_line(line, at), at, number)


def load_line(line: str, at: str) -> object:
    """One line's JSON value (checked by check_record), or one CandidatesError naming FILE:LINE."""
    try:
        return json.loads(line)
    except ValueError as err:
        raise CandidatesError(f"{at}: not a JSON line ({err.args[0].split(':')[0]}); each line is one JSON "
                              "object (a candidate)") from None


def check_record(record: object, at: str, number: int) -> Candidate:
    """One line's value, checked as a candidate (parse_line without the JSON reading)."""
    if not isinstance(record, dict):
        raise CandidatesError(f"{at}: expected a JSON object (a candidate), got {type(record).__name__}")
    missing = [key for key in REQUIRED_KEYS if not isinstance(record.get(key), str) or not record[key]]
    if missing:
        raise CandidatesError(f"{at}: missing {', '.join(repr(k) for k in missing)} (a text each); write the "
                              "file with `absa-checks generate --candidates`")
    status, decision = record["status"], record.get("decision")
    if status not in STATUSES:
        raise CandidatesError(f"{at}: unknown status {status!r}; use one of {', '.join(STATUSES)}")
    if decision is not None and decision not in DECISIONS:
        raise CandidatesError(f"{at}: unknown decision {decision!r}; use one of {', '.join(DECISIONS)}, or null "
                              "(not decided yet)")
    if decision is not None:
        if status == "not_applicable":
            raise CandidatesError(f"{at}: decision {decision!r} on a unit with no candidate (status not_applicable); "
                                  "set it back to null")
        for key in ("reviewer", "decided_at"):
            if not isinstance(record.get(key), str) or not record[key].strip():
                raise CandidatesError(f"{at}: decision {decision!r} needs '{key}' (who decided, and when: an ISO "
                                      "8601 time); `absa-checks decide` writes both")
    textless = record.get("textless") == 1  # a shipped line without text: checked once rebuilt (suites.textless)
    if textless and "sentence" in record:
        raise CandidatesError(f"{at}: a textless line (\"textless\": 1) holds no 'sentence'; drop one of the two "
                              "(`absa-checks freeze` writes textless lines)")
    if not textless and (status == "shipped" or decision == "accepted"):
        _check_variant(record, at)
    if decision == "edited" and not textless:
        _check_edit(record, at)
    if record.get("audit") is not None:
        _check_audit(record["audit"], at, "sentence_sha256" if textless else "sentence")
    return Candidate(number, record["id"], record["source"], record["unit"], record["strategy"], status, decision,
                     record["unit_hash"], record)


def _check_variant(record: dict, at: str) -> None:
    for key in CANDIDATE_VARIANT_KEYS:
        if key not in record:
            raise CandidatesError(f"{at}: missing '{key}' (the candidate's {', '.join(CANDIDATE_VARIANT_KEYS)})")
    sentence, term, start, end = record["sentence"], record["term"], record["from"], record["to"]
    if not isinstance(sentence, str) or not isinstance(term, str) or not _ints(start, end):
        raise CandidatesError(f"{at}: 'sentence' and 'term' must be texts, 'from' and 'to' whole numbers (a "
                              "quarantined attempt without the target's span can only be decided 'edited', with it)")
    if sentence[start:end] != term:
        raise CandidatesError(f"{at}: the target '{term}' is not at {start}-{end} of the sentence; correct 'from' "
                              "and 'to' (or decide 'edited' with the span in 'edited')")
    for a in record.get("other_aspects") or ():
        if not isinstance(a, dict) or not _ints(a.get("from"), a.get("to")) or sentence[a["from"]:a["to"]] != a.get("term"):
            name = a.get("term") if isinstance(a, dict) else a
            raise CandidatesError(f"{at}: the other aspect {name!r} is not at its span in the sentence (the attempt "
                                  "lost or repeated it); decide 'edited' instead, where the spans are found in the "
                                  "reviewer's text")


AUDIT_KEYS = {"fluent": bool, "sentiment_ok": bool, "reason": str, "sentence": str, "sheet": str, "scored_at": str}


JUDGE_KEYS = {"fluent": bool, "sentiment_ok": bool, "reason": str, "sheet": str}


def _check_audit(audit: object, at: str, judged: str = "sentence") -> None:
    """`audit`: the judges' verdict on the candidate's text (`absa-checks audit score` writes it): with several
    judges, the AND of theirs and each in `judges`. A textless line has the judged text's `sentence_sha256`."""
    if not isinstance(audit, dict):
        raise CandidatesError(f"{at}: 'audit' is an object {{{', '.join(AUDIT_KEYS)}}} (`absa-checks audit score` "
                              "writes it), or null")
    judges = audit.get("judges")
    if judges is not None and (not isinstance(judges, list) or not all(
            isinstance(j, dict) and all(isinstance(j.get(k), kind) for k, kind in JUDGE_KEYS.items()) for j in judges)):
        raise CandidatesError(f"{at}: 'audit.judges' is a list of {{{', '.join(JUDGE_KEYS)}}}, one per judge's sheet; "
                              "write audits with `absa-checks audit score FILE SHEET...`")
    for key, kind in AUDIT_KEYS.items():
        key = judged if key == "sentence" else key
        if not isinstance(audit.get(key), kind):
            what = "true or false" if kind is bool else "a text"
            raise CandidatesError(f"{at}: 'audit.{key}' must be {what}; write audits with `absa-checks audit "
                                  "score FILE SHEET` (or set 'audit' to null)")


def _check_edit(record: dict, at: str) -> None:
    edited = record.get("edited")
    if not isinstance(edited, dict) or not isinstance(edited.get("sentence"), str) or not edited["sentence"].strip():
        raise CandidatesError(f"{at}: decision 'edited' needs 'edited': {{\"sentence\": ..., \"from\": ..., "
                              "\"to\": ...}} (the reviewer's text and the target's span in it)")
    sentence, term = edited["sentence"], edited.get("term", record["term"])
    if not term_starts(sentence, term):
        raise CandidatesError(f"{at}: the edit removes the target '{term}' from the sentence; keep the target (or "
                              "reject the candidate instead)")
    start, end = edited.get("from"), edited.get("to")
    if not _ints(start, end):
        reference = record if _ints(record.get("from")) else record.get("original") or {}
        found = same_occurrence(sentence, term, reference.get("sentence"), reference.get("from"))
        if found is None:
            raise CandidatesError(f"{at}: the edited sentence holds the target '{term}' "
                                  f"{len(term_starts(sentence, term))} times, not as often as before; give its span "
                                  "as 'from' and 'to' in 'edited'")
        edited["from"], edited["to"] = found, found + len(term)
    elif sentence[start:end] != term:
        raise CandidatesError(f"{at}: the edited sentence does not hold the target '{term}' at {start}-{end}; "
                              "correct 'from' and 'to' in 'edited'")
    polarity = edited.get("polarity", record["polarity"])
    if polarity not in ("positive", "negative", "neutral", "conflict"):
        raise CandidatesError(f"{at}: 'edited.polarity' {polarity!r} is not a polarity" + (
            "; the candidate names none, so the edit must" if record["polarity"] is None else ""))
    if record["polarity"] is not None and polarity != record["polarity"]:
        raise CandidatesError(f"{at}: 'edited.polarity' {polarity!r} is not the {record['strategy']} variant's "
                              f"polarity ({record['polarity']}): the test's expectation rests on it; keep it, or "
                              "reject the candidate")
    _others(sentence, record, edited, at)


def _others(sentence: str, record: dict, edited: dict, at: str = "") -> tuple[Aspect, ...]:
    """The other aspects in the reviewer's sentence: as given in `edited.other_aspects`, else each found once."""
    given = edited.get("other_aspects")
    if given is not None:
        if not isinstance(given, list) or not all(isinstance(a, dict) for a in given):
            raise CandidatesError(f"{at}: 'edited.other_aspects' is a list of {{term, from, to, polarity}}")
        out = []
        for a in given:
            if not _ints(a.get("from"), a.get("to")) or sentence[a["from"]:a["to"]] != a.get("term"):
                raise CandidatesError(f"{at}: other aspect {a.get('term')!r} is not at its span in the edited "
                                      "sentence; correct 'from' and 'to'")
            out.append(Aspect(a["term"], a["from"], a["to"], a.get("polarity")))
        return tuple(out)
    out = []
    for a in record.get("other_aspects") or ():
        found = same_occurrence(sentence, a["term"], record.get("sentence"), a.get("from"))
        if found is None:
            raise CandidatesError(f"{at}: the edited sentence holds the other aspect '{a['term']}' "
                                  f"{len(term_starts(sentence, a['term']))} times, not as often as before; give "
                                  "'other_aspects' with their spans in 'edited'")
        out.append(Aspect(a["term"], found, found + len(a["term"]), a.get("polarity")))
    return tuple(out)


def same_occurrence(sentence: str, term: str, reference: object, start: object) -> int | None:
    """Where `term` is in an edited sentence: its one occurrence; or, when it occurs as often as in the
    sentence the reviewer edited (`reference`, where it was at `start`), the occurrence of the same rank (an
    edit that keeps the repeated words keeps their order). None when neither says."""
    starts = term_starts(sentence, term)
    if len(starts) == 1:
        return starts[0]
    before = term_starts(reference, term) if isinstance(reference, str) else []
    if starts and len(before) == len(starts) and start in before:
        return starts[before.index(start)]
    return None


def _ints(*values: object) -> bool:
    return all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values)


@dataclass(frozen=True)
class Decision:
    """What a reviewer says of one candidate: `accepted`, `rejected`, `edited` (with `edited`, the reviewer's
    text: {"sentence", optional "from"/"to"/"polarity"/"other_aspects"}) or None (back to undecided)."""

    decision: str | None
    edited: dict[str, Any] | None = None


def decide(text: str, shown: str, decisions: dict[str, str | Decision], reviewer: str,
           now: str) -> tuple[str, list[str]]:
    """The file's text with `decisions` ({id: accepted|rejected, or a Decision}) written on their lines; every
    other line is kept byte for byte. Each changed line is checked as reading checks it (an edit that removes
    the target is one CandidatesError naming the line), so a refused decision changes nothing. Returns the
    new text and the ids it did not find (an error for the caller)."""

    def write(record: dict, wanted: Decision, at: str) -> None:
        if record.get("status") == "not_applicable":
            raise CandidatesError(f"{at}: candidate '{record['id']}' is a unit with no variant "
                                  "(not_applicable); there is nothing to accept or reject")
        if wanted.decision not in (*DECISIONS, None):
            raise CandidatesError(f"{at}: unknown decision {wanted.decision!r}; use one of {', '.join(DECISIONS)}")
        if (wanted.decision == "edited") != (wanted.edited is not None):
            raise CandidatesError(f"{at}: 'edited' goes with the decision 'edited' (the reviewer's text), and only with it")
        record.pop("edited", None)
        if wanted.decision is None:
            record.update(decision=None, reviewer=None, decided_at=None)
        else:
            record.update(decision=wanted.decision, reviewer=reviewer, decided_at=now)
        if wanted.edited is not None:
            record["edited"] = dict(wanted.edited)

    wanted = {key: value if isinstance(value, Decision) else Decision(value) for key, value in decisions.items()}
    new, left = rewrite_lines(text, shown, wanted, write)
    return new, sorted(left)


def others_decisions(candidates: Iterable[Candidate], ids: Collection[str], reviewer: str) -> list[Candidate]:
    """The candidates among `ids` that a reviewer other than `reviewer` has decided, in file order: deciding
    them again would replace that reviewer's decision (`absa-checks decide` refuses it without --replace)."""
    return [c for c in candidates if c.candidate_id in ids and c.record.get("decision") is not None
            and str(c.record.get("reviewer") or "").strip() != reviewer.strip()]


def rewrite_lines(text: str, shown: str, wanted: dict[str, T], change: Callable[[dict, T, str], None]
                  ) -> tuple[str, dict[str, T]]:
    """The file's text with each line whose id is in `wanted` changed by `change(record, value, "FILE:LINE")`
    and then checked as reading checks it (an edit's span is filled in there); every other line byte for
    byte, a byte-order mark and CRLF endings kept. Returns the new text and the entries of `wanted` whose id
    no line has. `decide` and the audit's verdicts write through it."""
    lines = text.split("\n")  # as read_candidates: "\n" ends a line, nothing else does
    left = dict(wanted)
    for index, line in enumerate(lines):
        if not line.strip():
            continue
        bom = "\ufeff" if index == 0 and line.startswith("\ufeff") else ""
        record = json.loads(line.removeprefix(bom))
        key = str(record.get("id"))
        if key not in left:
            continue
        at = f"{shown}:{index + 1}"
        change(record, left.pop(key), at)
        ending = "\r" if line.endswith("\r") else ""  # a CRLF file stays CRLF
        checked = parse_line(json.dumps(record, ensure_ascii=False), at, index + 1)
        lines[index] = bom + json.dumps(checked.record, ensure_ascii=False) + ending
    return "\n".join(lines), left
