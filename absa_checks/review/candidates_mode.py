"""The review page over a candidates file: each candidate as the page shows it, and a reviewer's decision
applied with `suites.candidates.decide` (the page has no rules of its own: a refused decision is the
CandidatesError `decide` raises, one line naming the file's line)."""

from __future__ import annotations

from typing import Any

from absa_checks.review.marking import Span, changed, locate, render
from absa_checks.suites.candidates import Candidate, CandidatesError, Decision, decide, parse_candidates, parse_line

NAME = "candidates"
EDIT_KEYS = ("sentence", "from", "to", "polarity", "other_aspects")


def check(text: str, shown: str) -> None:
    """Every line checked as reading checks it: a bad file is refused before anything is served or written."""
    parse_candidates(text, shown)


def items(text: str, shown: str) -> list[dict[str, Any]]:
    return [view(c) for c in parse_candidates(text, shown)]


def to_do(found: list[dict[str, Any]]) -> str:
    """The start line's count: the candidates a reviewer can still decide."""
    left = sum(1 for item in found if item["decidable"] and item["record"].get("decision") is None)
    return f"{left} candidate{'' if left == 1 else 's'} to decide; every decision is saved at once"


def view(candidate: Candidate) -> dict[str, Any]:
    """A candidate for the page: its record as written, its line, whether it can be decided, the sentence an
    edit starts from, and the original and variant as HTML (changed words, target and other aspects marked)."""
    r = candidate.record
    original: dict[str, Any] = r["original"] if isinstance(r.get("original"), dict) else {}
    o_sentence: str = original["sentence"] if isinstance(original.get("sentence"), str) else ""
    o_term: str = original["term"] if isinstance(original.get("term"), str) else ""
    term: str = r["term"] if isinstance(r.get("term"), str) else o_term
    edited = r.get("edited") if candidate.decision == "edited" and isinstance(r.get("edited"), dict) else None
    if edited is not None:
        variant, start, end, others = edited["sentence"], edited.get("from"), edited.get("to"), \
            edited.get("other_aspects") or r.get("other_aspects") or []
    else:
        variant, start, end, others = r.get("sentence"), r.get("from"), r.get("to"), r.get("other_aspects") or []
    polarity = r.get("polarity") or ""
    o_spans: list[Span] = []
    v_spans: list[Span] = []
    where = locate(o_sentence, o_term or term, original.get("from"), original.get("to"))
    if where:
        o_spans.append(Span(*where, "target", f"target: {term} ({original.get('polarity') or '?'})"))
    if isinstance(variant, str):
        where = locate(variant, term, start, end)
        if where:
            v_spans.append(Span(*where, "target", f"target: {term} ({polarity or '?'})"))
    for aspect in others if isinstance(others, list) else []:
        if not isinstance(aspect, dict) or not isinstance(aspect.get("term"), str):
            continue
        title = f"aspect: {aspect['term']} ({aspect.get('polarity') or '?'})"
        if isinstance(variant, str):
            where = locate(variant, aspect["term"], aspect.get("from"), aspect.get("to"))
            if where:
                v_spans.append(Span(*where, "aspect", title))
        where = locate(o_sentence, aspect["term"], aspect.get("from"), aspect.get("to"))
        if where:
            o_spans.append(Span(*where, "aspect", title))
    if isinstance(variant, str):
        left, right = changed(o_sentence, variant)
        diff = {"original": render(o_sentence, o_spans, left, "del"), "variant": render(variant, v_spans, right, "mark")}
    else:
        diff = {"original": render(o_sentence, o_spans, [False] * len(o_sentence), "del"), "variant": ""}
    prefill = variant if isinstance(variant, str) else o_sentence
    return {"id": candidate.candidate_id, "line": candidate.line, "decidable": candidate.status != "not_applicable",
            "record": r, "diff": diff, "prefill": prefill}


class DecidedMeanwhile(CandidatesError):
    """The candidate's decision on disk is not the one the page showed when the reviewer decided (another tab,
    or `absa-checks decide`, decided it since): nothing is written; `item` is the candidate as it is now."""

    def __init__(self, message: str, item: dict[str, Any]) -> None:
        super().__init__(message)
        self.item = item


def apply(text: str, shown: str, body: dict[str, Any], reviewer: str, now: str) -> tuple[str, dict[str, Any]]:
    """The file's text with the decision in `body` ({"id", "decision", "edited", "was"}) written on its line
    (every other line byte for byte), and the candidate as the page shows it now. CandidatesError when refused;
    DecidedMeanwhile when `was` ({"decision", "decided_at"}: what the page showed) is not what is on disk."""
    found = {c.candidate_id: c for c in parse_candidates(text, shown)}  # a bad file is refused, never half rewritten
    wanted = body.get("id")
    if not isinstance(wanted, str) or wanted not in found:
        raise CandidatesError(f"{shown}: no candidate {wanted!r}; reload the page (the file may have changed)")
    was, record = body.get("was"), found[wanted].record
    if isinstance(was, dict) and (was.get("decision"), was.get("decided_at")) != \
            (record.get("decision"), record.get("decided_at")):
        said = f"{record['decision']} by {record.get('reviewer')} at {record.get('decided_at')}" \
            if record.get("decision") else "set back to undecided"
        raise DecidedMeanwhile(f"{shown}:{found[wanted].line}: candidate {wanted} was {said} meanwhile (another tab "
                               "or `absa-checks decide`); nothing written: the page shows it now, decide again to "
                               "change it", view(found[wanted]))
    decision = body.get("decision")
    if decision not in ("accepted", "rejected", "edited", None):
        raise CandidatesError(f"unknown decision {decision!r}; use accepted, rejected, edited or null (undo)")
    edited = body.get("edited")
    if decision == "edited":
        if not isinstance(edited, dict) or not isinstance(edited.get("sentence"), str):
            raise CandidatesError("an edit needs 'edited': {\"sentence\": the reviewer's text}")
        edited = {key: edited[key] for key in EDIT_KEYS if key in edited}
        # no span given: candidates.decide finds the target (once, or at the same rank as before the edit)
    else:
        edited = None
    new, unknown = decide(text, shown, {wanted: Decision(decision, edited)}, reviewer, now)
    if unknown:  # cannot happen after the check above, unless two lines share an id (refused by reading)
        raise CandidatesError(f"{shown}: no candidate {', '.join(unknown)}")
    line = found[wanted].line
    return new, view(parse_line(new.removeprefix("\ufeff").split("\n")[line - 1].removesuffix("\r"),
                                f"{shown}:{line}", line))

