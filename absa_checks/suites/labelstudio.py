"""Review candidates in Label Studio: a candidates file as Label Studio tasks, and its JSON export as decisions.

Pure conversions (docs/suites.md, "Frozen variants", "Label Studio"); `absa-checks labelstudio` reads and writes
the files. The decisions are written by `candidates.decide`, which checks each changed line as reading does:
this module only says which decision each task's annotation gives, by whom and when.

Formats, as Label Studio documents them (labelstud.io/guide/task_format, /guide/predictions, /tags/choices,
/tags/textarea): an import is a JSON list of tasks `{"data": {...}, "predictions": [{"model_version", "result"}]}`;
the "JSON" export is that list with `"annotations": [{"id", "result": [{"from_name", "to_name", "type",
"value"}], "completed_by", "created_at", "updated_at", "was_cancelled"}]` on each task. A `choices` result's
value is `{"choices": [...]}`, a `textarea` one's `{"text": [...]}`.
"""

from __future__ import annotations

import datetime
import json
from dataclasses import dataclass, field
from typing import Any

from absa_checks.suites.candidates import Candidate, CandidatesError, Decision, decide

DECISION = "decision"  # the Choices tag's name: accept or reject
EDITED = "edited"  # the TextArea tag's name: the reviewer's sentence (an edit)
SHOWN = "variant"  # the Text tag the controls label
CHOICES = {"accept": "accepted", "reject": "rejected"}
DECIDABLE = ("shipped", "quarantined")
MODEL_VERSION = "absa-checks decision in the candidates file"

LABEL_CONFIG = f"""\
<View>
  <Header value="Is the variant fluent, with the target's intended sentiment?"/>
  <Text name="about" value="$about"/>
  <Header value="Original"/>
  <Text name="original" value="$original"/>
  <Header value="Variant"/>
  <Text name="{SHOWN}" value="${SHOWN}"/>
  <Choices name="{DECISION}" toName="{SHOWN}" choice="single" showInline="true">
    <Choice value="accept" hotkey="a"/>
    <Choice value="reject" hotkey="r"/>
  </Choices>
  <Header value="Or write the corrected variant: it must keep the target (leave empty to accept or reject)"/>
  <TextArea name="{EDITED}" toName="{SHOWN}" rows="2" maxSubmissions="1" editable="true"
            placeholder="the edited sentence"/>
</View>
"""


class LabelStudioError(CandidatesError):
    """A Label Studio export that cannot be read as decisions: one line naming the export, the task and the fix."""


def tasks(candidates: tuple[Candidate, ...]) -> list[dict[str, Any]]:
    """One task per decidable candidate (shipped or quarantined), in file order. A decided candidate carries its
    decision as a prediction, so the reviewer sees it and may change it; a prediction is never read back."""
    return [_task(c) for c in candidates if c.status in DECIDABLE]


def _task(c: Candidate) -> dict[str, Any]:
    r = c.record
    original = r.get("original") or {}
    span = f"{r['from']}-{r['to']}" if isinstance(r.get("from"), int) and isinstance(r.get("to"), int) else "not found"
    edits = "; ".join(f"{e.get('old', '')!r} -> {e.get('new', '')!r} ({e.get('why', '')})" for e in r.get("edits") or ())
    polarity = r.get("polarity") or ""
    about = (f"{c.strategy.upper()} on '{r.get('term', '')}' ({original.get('polarity')} -> {polarity or 'not named'}); "
             f"{c.status}{': ' + str(r['reason']) if r.get('reason') else ''}; source {c.source}, unit {c.unit}"
             + (f"; edits: {edits}" if edits else "") + (f"; decided: {c.decision} by {r.get('reviewer')}"
                                                        if c.decision else ""))
    data = {"candidate_id": c.candidate_id, "source": c.source, "unit": c.unit, "strategy": c.strategy,
            "status": c.status, "reason": r.get("reason") or "", "original": original.get("sentence", ""),
            "original_polarity": original.get("polarity") or "", "variant": r.get("sentence") or "",
            "target": r.get("term", ""), "target_span": span, "polarity": polarity, "edits": edits,
            "decision": c.decision or "", "reviewer": r.get("reviewer") or "", "decided_at": r.get("decided_at") or "",
            "about": about}
    task: dict[str, Any] = {"data": data}
    if c.decision is not None:
        task["predictions"] = [{"model_version": MODEL_VERSION, "result": _result(c)}]
    return task


def _result(c: Candidate) -> list[dict[str, Any]]:
    choice = "reject" if c.decision == "rejected" else "accept"
    found: list[dict[str, Any]] = [{"from_name": DECISION, "to_name": SHOWN, "type": "choices",
                                    "value": {"choices": [choice]}}]
    if c.decision == "edited":
        found.append({"from_name": EDITED, "to_name": SHOWN, "type": "textarea",
                      "value": {"text": [c.record["edited"]["sentence"]]}})
    return found


def config_xml() -> str:
    """The labeling config the tasks are made for (Label Studio: project Settings > Labeling Interface > Code)."""
    return LABEL_CONFIG


@dataclass(frozen=True)
class Imported:
    """One candidate's decision from the export: what, by whom, when (ISO 8601, UTC), from which annotation."""

    candidate_id: str
    decision: Decision
    reviewer: str
    decided_at: str
    where: str  # "EXPORT: task T (candidate C), annotation A": for messages


@dataclass
class ExportReading:
    """What the export gives: the decisions, and what was left aside (counted for the summary)."""

    decisions: list[Imported] = field(default_factory=list)
    cancelled: int = 0  # annotations skipped because the annotator cancelled (skipped) the task
    unannotated: int = 0  # tasks with no annotation left to read
    several: int = 0  # candidates with more than one annotation: the latest was taken


def read_export(text: str, shown: str, known: set[str], reviewer: str, now: str) -> ExportReading:
    """The decisions of a Label Studio JSON export (a list of tasks). Refuses, with one LabelStudioError naming
    the export and the task: not a JSON list of tasks, a task without `data.candidate_id` or with an id not in
    `known`, an annotation (the one taken) with no decision or a contradictory one. Cancelled annotations are
    skipped; of several annotations of one candidate (one task or several), the latest (`updated_at`, else
    `created_at`; the later in the export on a tie) is taken. `reviewer` and `now` stand in where the export
    names no annotator or time."""
    try:
        found = json.loads(text.removeprefix("\ufeff"))
    except ValueError as err:
        raise LabelStudioError(f"{shown}: not JSON ({err}); export the project with Label Studio's 'JSON' "
                               "format") from None
    if not isinstance(found, list):
        raise LabelStudioError(f"{shown}: expected a JSON list of tasks (Label Studio's 'JSON' export), got "
                               f"{type(found).__name__}")
    reading = ExportReading()
    latest: dict[str, list[tuple[tuple, dict, str]]] = {}
    for number, task in enumerate(found, 1):
        where = f"{shown}: task {number}"
        if not isinstance(task, dict) or not isinstance(task.get("data"), dict):
            raise LabelStudioError(f"{where} has no 'data' object; export with Label Studio's 'JSON' format (not "
                                   "JSON-MIN or CSV)")
        if "id" in task:
            where = f"{shown}: task {number} (Label Studio id {task['id']})"
        cid = task["data"].get("candidate_id")
        if not isinstance(cid, str) or not cid:
            raise LabelStudioError(f"{where} has no 'data.candidate_id'; import only tasks written by `absa-checks "
                                   "labelstudio export`")
        if cid not in known:
            raise LabelStudioError(f"{where}: candidate '{cid}' is not in the candidates file; import the export "
                                   "into the file its tasks were made from")
        annotations = task.get("annotations") or []
        if not isinstance(annotations, list) or not all(isinstance(a, dict) for a in annotations):
            raise LabelStudioError(f"{where}: 'annotations' is not a list of objects; export with Label Studio's "
                                   "'JSON' format")
        live = [a for a in annotations if not a.get("was_cancelled")]
        reading.cancelled += len(annotations) - len(live)
        if not live:
            reading.unannotated += 1
        for order, annotation in enumerate(live):
            at = _time(annotation, f"{where} (candidate {cid})")
            key = (at is not None, at or datetime.datetime.min.replace(tzinfo=datetime.timezone.utc), number, order)
            latest.setdefault(cid, []).append((key, annotation, f"{where} (candidate {cid})"))
    for cid, annotations in latest.items():
        reading.several += len(annotations) > 1
        key, annotation, where = max(annotations, key=lambda found: found[0])
        if "id" in annotation:
            where += f", annotation {annotation['id']}"
        decided_at = _iso(key[1]) if key[0] else now
        reading.decisions.append(Imported(cid, _decision(annotation, where), _annotator(annotation) or reviewer,
                                          decided_at, where))
    return reading


def _decision(annotation: dict, where: str) -> Decision:
    """The decision an annotation gives: a choice (accept/reject) and/or an edited sentence."""
    result = annotation.get("result")
    if not isinstance(result, list) or not all(isinstance(r, dict) for r in result):
        raise LabelStudioError(f"{where}: 'result' is not a list of objects; export with Label Studio's 'JSON' format")
    choices: list[str] = []
    texts: list[str] = []
    for item in result:
        value = item.get("value") if isinstance(item.get("value"), dict) else {}
        if item.get("from_name") == DECISION:
            given = value.get("choices")
            choices += [str(c) for c in given] if isinstance(given, list) else []
        elif item.get("from_name") == EDITED:
            given = value.get("text")
            given = [given] if isinstance(given, str) else given if isinstance(given, list) else []
            texts += [str(t).strip() for t in given if str(t).strip()]
    unknown = [c for c in choices if c.strip().lower() not in CHOICES]
    if unknown:
        raise LabelStudioError(f"{where}: unknown choice {unknown[0]!r} in '{DECISION}'; the choices are accept and "
                               "reject (the labeling config of `absa-checks labelstudio export --config`)")
    picked = sorted({CHOICES[c.strip().lower()] for c in choices})
    if len(picked) > 1:
        raise LabelStudioError(f"{where}: both accept and reject chosen; choose one in Label Studio and export again")
    if len(texts) > 1:
        raise LabelStudioError(f"{where}: {len(texts)} edited sentences in '{EDITED}'; keep one in Label Studio "
                               "and export again")
    if texts:
        if picked == ["rejected"]:
            raise LabelStudioError(f"{where}: rejected and edited at once; choose accept with the edit (or clear the "
                                   "edit to reject) in Label Studio and export again")
        return Decision("edited", {"sentence": texts[0]})
    if not picked:
        raise LabelStudioError(f"{where}: the annotation gives no decision; choose accept or reject in "
                               f"'{DECISION}' (or write the edited sentence in '{EDITED}'), or cancel it, in Label "
                               "Studio and export again (the project's labeling config must be the one of "
                               "`absa-checks labelstudio export --config`)")
    return Decision(picked[0])


def _annotator(annotation: dict) -> str | None:
    """Who annotated: `completed_by`'s email (or id) when the export gives an object; with a bare id, the email
    in `created_username` ("EMAIL, ID") when there is one, else "label-studio user ID"."""
    by = annotation.get("completed_by")
    if isinstance(by, dict):
        for key in ("email", "username", "id"):
            if by.get(key) not in (None, ""):
                return str(by[key]) if key != "id" else f"label-studio user {by[key]}"
        return None
    named = annotation.get("created_username")
    if isinstance(named, str) and "@" in named.split(",")[0]:
        return named.split(",")[0].strip()
    if isinstance(by, (int, str)) and not isinstance(by, bool) and str(by).strip():
        return f"label-studio user {by}"
    return None


def _time(annotation: dict, where: str) -> datetime.datetime | None:
    """The annotation's time (`updated_at`, else `created_at`) in UTC; a time without a zone is taken as UTC."""
    for key in ("updated_at", "created_at"):
        given = annotation.get(key)
        if given in (None, ""):
            continue
        try:
            at = datetime.datetime.fromisoformat(str(given).replace("Z", "+00:00"))
        except ValueError:
            raise LabelStudioError(f"{where}: '{key}' {given!r} is not an ISO 8601 time; export again from Label "
                                   "Studio (or remove it: then the time of the import is written)") from None
        return at.replace(tzinfo=at.tzinfo or datetime.timezone.utc).astimezone(datetime.timezone.utc)
    return None


def _iso(at: datetime.datetime) -> str:
    return at.replace(microsecond=0).isoformat()


def decided_later(record: dict, decided_at: str) -> bool:
    """Whether the file's line holds a decision made after `decided_at` (e.g. on the review page after the
    annotation): such a decision is kept, never replaced by the older annotation."""
    if record.get("decision") is None or not isinstance(record.get("decided_at"), str):
        return False
    try:
        mine = datetime.datetime.fromisoformat(record["decided_at"].replace("Z", "+00:00"))
        theirs = datetime.datetime.fromisoformat(decided_at)
    except ValueError:
        return False
    utc = datetime.timezone.utc
    return mine.replace(tzinfo=mine.tzinfo or utc) > theirs.replace(tzinfo=theirs.tzinfo or utc)


def apply(text: str, shown: str, candidates: tuple[Candidate, ...], reading: ExportReading) -> tuple[str, list[Imported],
                                                                                             list[Imported]]:
    """The file's text with the export's decisions written by `candidates.decide`, each with its own reviewer
    and time; every other line byte for byte. A decision made in the file after the annotation is kept.
    Returns the text, the decisions written and those kept back. An edit `decide` refuses (one that removes
    the target) is its CandidatesError, naming the file's line and the task."""
    line_of = {c.candidate_id: c.line for c in candidates}
    lines = text.split("\n")  # as parse_candidates: "\n" ends a line, nothing else does
    written, kept = [], []
    for found in reading.decisions:
        index = line_of[found.candidate_id] - 1
        if decided_later(json.loads(lines[index].removeprefix("\ufeff")), found.decided_at):
            kept.append(found)
            continue
        # decide on this line alone, at its own line number (the lines before it blank: decide skips them), so
        # each annotation keeps its annotator and time and the file is not read again per decision
        try:
            new, _ = decide("\n" * index + lines[index], shown, {found.candidate_id: found.decision}, found.reviewer,
                            found.decided_at)
        except CandidatesError as err:
            raise LabelStudioError(f"{err} (from {found.where})") from None
        lines[index] = new.split("\n")[index]
        written.append(found)
    return "\n".join(lines), written, kept
