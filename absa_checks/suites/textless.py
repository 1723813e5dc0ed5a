"""Textless candidates files: a reviewed, audited candidates file that can be shipped without dataset text.

A textless line (`"textless": 1`) keeps a candidate's id, provenance, decision and audit verdicts, and its
variant as edits of the unit's original sentence (character spans, old and new text); the sentences, terms
and the original are left out and rebuilt from the user's own copy of the data (docs/suites.md, "Shipped
(textless) files"). `strip` makes a line textless, `rebuild` restores it from its unit; `freeze_text` and
`rebuild_text` do a whole file; `read_frozen` is what a frozen test reads. A line whose unit is gone or whose
`unit_hash` differs stays textless: the frozen file's stale check (absa_checks.perturb.frozen) names it.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

from absa_checks.common.examples import Unit
from absa_checks.sources.base import LoadedSource
from absa_checks.suites import candidates
from absa_checks.suites.candidates import (
    USED,
    Candidate,
    CandidatesError,
    check_record,
    parse_candidates,
    parse_line,
    read_text,
    unit_hash,
)

TEXTLESS = "textless"
# a textless line's keys, in this order (those the candidate has)
TEXTLESS_KEYS = ("id", TEXTLESS, "strategy", "unit", "source", "status", "reason", "term", "from", "to", "polarity",
        "other_aspects", "edits", "given_sha256", "origin", "generator", "seed", "params", "mode", "unit_hash",
        "decision", "reviewer", "decided_at", "edited", "audit")
# a rebuilt (full) line's keys, in the order `absa-checks generate --candidates` writes them
FULL_KEYS = ("id", "strategy", "unit", "source", "sentence", "term", "from", "to", "polarity", "other_aspects",
             "original", "edits", "origin", "status", "reason", "generator", "seed", "params", "mode", "unit_hash",
             "decision", "reviewer", "decided_at", "edited", "audit")
# an audit's keys as the candidates file has them (the judged sentence, the judges), and as a textless line has
# them (the judged sentence's hash instead)
FULL_AUDIT_KEYS = (*candidates.AUDIT_KEYS, "judges")
TEXTLESS_AUDIT_KEYS = tuple("sentence_sha256" if key == "sentence" else key for key in FULL_AUDIT_KEYS)
EDITED_BY_REVIEWER = "edited by the reviewer"
DIFFERENCE = "the candidate's text"  # the edits of a candidate whose own edits do not give its sentence
_TOKENS = re.compile(r"\s+|\w+|[^\w\s]")


def is_textless(record: object) -> bool:
    return isinstance(record, dict) and record.get(TEXTLESS) == 1


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def word_edits(original: str, sentence: str, why: str) -> list[dict[str, Any]]:
    """The fewest word-level edits (difflib over words, spaces and punctuation) that turn `original` into
    `sentence`: [{start, end, old, new, why}], spans of `original`."""
    a, b = _TOKENS.findall(original), _TOKENS.findall(sentence)
    offsets = [0]
    for token in a:
        offsets.append(offsets[-1] + len(token))
    found = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op != "equal":
            start, end = offsets[i1], offsets[i2]
            found.append({"start": start, "end": end, "old": original[start:end], "new": "".join(b[j1:j2]),
                          "why": why})
    return found


def apply_edits(original: str, edits: object, at: str) -> str:
    """`original` with `edits` applied; an edit whose `old` is not the text at its span (the unit's sentence
    is not the one the line was made from) is one CandidatesError naming the line."""
    if not isinstance(edits, list) or not all(isinstance(e, dict) for e in edits):
        raise CandidatesError(f"{at}: 'edits' is a list of {{start, end, old, new, why}}; freeze the line again "
                              "with `absa-checks freeze`")
    out, at_char = [], 0
    for e in sorted(edits, key=lambda e: (e.get("start", -1), e.get("end", -1))):
        start, end, old, new = e.get("start"), e.get("end"), e.get("old"), e.get("new")
        if not (_int(start) and _int(end) and isinstance(old, str) and isinstance(new, str)) or start < at_char:
            raise CandidatesError(f"{at}: edit {e!r} is not a whole-number span (start, end) with 'old' and 'new' "
                                  "texts, apart from the others; freeze the line again with `absa-checks freeze`")
        if original[start:end] != old:
            raise CandidatesError(f"{at}: the edit at {start}-{end} expects other text than the unit's sentence has "
                                  "there: the line was made from another version of the unit (stale); regenerate its "
                                  "candidates with `absa-checks generate --update FILE`")
        out += [original[at_char:start], new]
        at_char = end
    return "".join(out + [original[at_char:]])


def _int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _edits_of(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The candidate's own edits when they give its sentence from the original, else word-level ones."""
    original, sentence = record["original"]["sentence"], record["sentence"]
    own = [{key: e.get(key) for key in ("start", "end", "old", "new", "why")} for e in record.get("edits") or ()]
    try:
        if apply_edits(original, own, "") == sentence:
            return own
    except CandidatesError:
        pass
    return word_edits(original, sentence, DIFFERENCE)


def _spans(aspects: object) -> list[dict[str, Any]]:
    return [{"from": a.get("from"), "to": a.get("to"), "polarity": a.get("polarity")}
            for a in aspects if isinstance(a, dict)] if isinstance(aspects, list) else []


def _strip_audit(audit: dict[str, Any]) -> dict[str, Any]:
    """The verdicts without text: the judged sentence as its hash, the judges' reasons left out (they quote
    the sentence; the audit's own records keep them)."""
    found = dict(audit)
    judged = found.pop("sentence", None)
    if isinstance(judged, str):
        found["sentence_sha256"] = sha256(judged)
    found["reason"] = ""
    if isinstance(found.get("judges"), list):
        found["judges"] = [{key: ("" if key == "reason" else j.get(key)) for key in candidates.JUDGE_KEYS if key in j}
                           for j in found["judges"] if isinstance(j, dict)]
    return {key: found[key] for key in TEXTLESS_AUDIT_KEYS if key in found}


def strip(record: dict[str, Any]) -> dict[str, Any]:
    """A candidate's textless line (a line already textless: the same, keys in order). `record` is a checked
    line (candidates.parse_line), so an edited candidate's span is filled in."""
    if is_textless(record):
        return {key: record[key] for key in TEXTLESS_KEYS if key in record}
    found: dict[str, Any] = {key: record[key] for key in TEXTLESS_KEYS if key in record and key not in
                             ("reason", "term", "other_aspects", "edits", "edited", "audit")}
    given = record.get("mode") == "given" and isinstance(record.get("sentence"), str)
    if not given and isinstance(record.get("term"), str) and \
            record["term"] != (record.get("original") or {}).get("term"):
        found["term"] = record["term"]  # a variant that recased or changed its target
    found[TEXTLESS] = 1
    used = record.get("status") == "shipped" or record.get("decision") in USED
    found["reason"] = record.get("reason") if used else None  # other reasons may quote the data
    if "other_aspects" in record:
        found["other_aspects"] = _spans(record["other_aspects"])
    if given:  # a source's own variant (ARTS's): its text is the source's, found again there by its hash
        found["given_sha256"] = sha256(record["sentence"])
    elif isinstance(record.get("sentence"), str):
        found["edits"] = _edits_of(record)
    edited = record.get("edited")
    if isinstance(edited, dict):
        found["edited"] = {"edits": word_edits(record["original"]["sentence"], edited["sentence"],
                                               EDITED_BY_REVIEWER),
                           **{key: edited[key] for key in ("from", "to", "polarity") if key in edited},
                           **({"other_aspects": _spans(edited["other_aspects"])} if "other_aspects" in edited
                              else {})}
    if isinstance(record.get("audit"), dict):
        found["audit"] = _strip_audit(record["audit"])
    return {key: found[key] for key in TEXTLESS_KEYS if key in found}


def _term(sentence: str | None, start: object, end: object, otherwise: str | None) -> str | None:
    if sentence is not None and _int(start) and _int(end):
        return sentence[start:end]
    return otherwise


def _aspects(sentence: str | None, spans: list, unit: Unit) -> list[dict[str, Any]]:
    """The other aspects with their terms: at their span, else (an attempt that lost one) the unit's own."""
    own = unit.original.others
    return [{"term": _term(sentence, a.get("from"), a.get("to"), own[i].term if i < len(own) else None),
             "from": a.get("from"), "to": a.get("to"), "polarity": a.get("polarity")} for i, a in enumerate(spans)]


def rebuild(record: dict[str, Any], unit: Unit, at: str = "") -> dict[str, Any]:
    """A textless line's full candidate, from its unit (whose content has the line's unit_hash): the edits
    applied to the unit's sentence, the terms read at their spans. An edit whose old text is not there, or a
    target span that is not the unit's target, is one CandidatesError naming the line (`at`)."""
    o = unit.original
    target = o.target.term
    found: dict[str, Any] = {key: value for key, value in record.items() if key != TEXTLESS}
    sentence = apply_edits(o.sentence, record["edits"], at) if "edits" in record else None
    own_term = record.get("term", target)
    if "given_sha256" in found:
        wanted = found.pop("given_sha256")
        variant = next((v for v in unit.given.get(record["strategy"], ()) if sha256(v.example.sentence) == wanted),
                       None)
        if variant is None:
            raise CandidatesError(f"{at}: the source no longer gives this {record['strategy']} variant of unit "
                                  f"{unit.unit_id} (stale); regenerate its candidates with `absa-checks generate "
                                  "--update FILE`")
        sentence, own_term = variant.example.sentence, variant.example.target.term
    found["sentence"] = sentence
    if sentence is not None:
        term = _term(sentence, record.get("from"), record.get("to"), target)
        if term != own_term:
            raise CandidatesError(f"{at}: the target's span {record.get('from')}-{record.get('to')} does not hold the "
                                  f"unit's target in the rebuilt sentence (stale); regenerate its candidates with "
                                  "`absa-checks generate --update FILE`")
        found["term"] = term
    if "other_aspects" in record:
        found["other_aspects"] = _aspects(sentence, record["other_aspects"] or [], unit)
    found["original"] = {"sentence": o.sentence, "term": target, "from": o.target.start, "to": o.target.end,
                         "polarity": o.polarity}
    text = sentence
    edited = record.get("edited")
    if isinstance(edited, dict):
        text = apply_edits(o.sentence, edited.get("edits"), at)
        full = {"sentence": text, **{key: edited[key] for key in ("from", "to", "polarity") if key in edited}}
        term = _term(text, edited.get("from"), edited.get("to"), None)
        if term is not None and term != target:
            full["term"] = term
        if "other_aspects" in edited:
            full["other_aspects"] = _aspects(text, edited["other_aspects"] or [], unit)
        found["edited"] = full
    audit = record.get("audit")
    if isinstance(audit, dict):
        if text is not None and audit.get("sentence_sha256") == sha256(text):
            judged = {key: value for key, value in audit.items() if key != "sentence_sha256"}
            found["audit"] = {key: (text if key == "sentence" else judged[key]) for key in FULL_AUDIT_KEYS
                              if key == "sentence" or key in judged}
        else:  # it judged another text than the line now runs: not this candidate's verdict
            found.pop("audit")
    return {key: found[key] for key in FULL_KEYS if key in found}


def freeze_text(text: str, shown: str) -> str:
    """A candidates file's textless form: every line checked, then stripped; one line each, in the file's order.
    The same input gives the same bytes."""
    return "".join(json.dumps(strip(c.record), ensure_ascii=False) + "\n" for c in parse_candidates(text, shown))


@dataclass(frozen=True)
class Rebuilt:
    """A file's text with its textless lines rebuilt, and the textless lines that could not be (stale): for each,
    'FILE:LINE: unit U ...'."""

    text: str
    stale: tuple[str, ...]


def rebuild_text(text: str, shown: str, loaded: LoadedSource) -> Rebuilt:
    """Each textless line rebuilt from its unit of `loaded` (other lines kept byte for byte); a line whose unit
    is gone or whose content changed (unit_hash) stays textless and is named in `stale`."""
    units = {unit.unit_id: unit for unit in loaded.units}
    lines = text.split("\n")  # as parse_candidates: "\n" ends a line, nothing else does
    stale = []
    for index, line in enumerate(lines):
        bom = "\ufeff" if index == 0 and line.startswith("\ufeff") else ""
        if not line.strip():
            continue
        at = f"{shown}:{index + 1}"
        record = parse_line(line.removeprefix(bom), at, index + 1).record
        if not is_textless(record):
            continue
        unit = units.get(record["unit"])
        if unit is None or unit_hash(unit.original) != record["unit_hash"]:
            why = "is not in the source" if unit is None else "has changed since the line was made"
            stale.append(f"{at}: unit {record['unit']} {why}")
            continue
        full = rebuild(record, unit, at)
        lines[index] = bom + json.dumps(parse_line(json.dumps(full, ensure_ascii=False), at, index + 1).record,
                                        ensure_ascii=False)
    return Rebuilt("\n".join(lines), tuple(stale))


def read_frozen(path: Path, shown: str, loaded: LoadedSource) -> tuple[Candidate, ...]:
    """A frozen test's candidates file, full or textless: the textless lines a run uses (accepted, edited or
    audited) rebuilt from `loaded`'s units before they are checked, the others (not applicable, rejected, not
    decided) left textless; a stale one stays textless (the frozen_up_to_date gate names its unit, from every
    line's unit_hash). Each line is read once (a run reads files of thousands of lines); `rebuild_text` rebuilds
    every line."""
    units = {unit.unit_id: unit for unit in loaded.units}
    hashes: dict[str, str] = {}  # unit id -> unit_hash, computed once per unit

    def rebuilt(candidate: Candidate, at: str, number: int) -> Candidate:
        record = candidate.record
        if not is_textless(record) or (candidate.decision not in USED and record.get("audit") is None):
            return candidate  # a run uses only the accepted, edited and audited lines' text
        unit = units.get(record["unit"])
        if unit is None:
            return candidate
        if unit.unit_id not in hashes:
            hashes[unit.unit_id] = unit_hash(unit.original)
        return check_record(rebuild(record, unit, at), at, number) if hashes[unit.unit_id] == record["unit_hash"] \
            else candidate

    return parse_candidates(read_text(path, shown), shown, rebuilt)
