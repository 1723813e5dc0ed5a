"""Label Studio: a candidates file as tasks, and Label Studio's JSON export back as decisions (docs/suites.md,
"Label Studio"). Real files and the real command: `generate --candidates` writes the file, `labelstudio
export` the tasks, a hand-made export in Label Studio's documented "JSON" format stands for the annotators'
work, `labelstudio import` writes the decisions with candidates.decide.
"""

from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from candidate_examples import EXAMPLES_ABC

from absa_checks.cli import main
from absa_checks.suites.candidates import read_candidates

EXAMPLES = EXAMPLES_ABC + """\
  - id: d
    sentence: The staff were friendly.
    aspect: staff
    polarity: positive
"""


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("generated")
    (folder / "mine.yaml").write_text(EXAMPLES)
    assert main(["generate", "--input", str(folder / "mine.yaml"), "--strategies", "revtgt,revnon", "--candidates",
                 "--out", str(folder / "r.jsonl")]) == 0
    return folder / "r.jsonl"


@pytest.fixture
def file(generated, tmp_path) -> Path:
    shutil.copy(generated, tmp_path / "r.jsonl")
    return tmp_path / "r.jsonl"


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8-sig").splitlines() if line.strip()]


def export_tasks(file: Path, *extra: str) -> list[dict]:
    out = file.parent / "tasks.json"
    assert main(["labelstudio", "export", str(file), "--out", str(out), *extra]) == 0
    return json.loads(out.read_text())


def annotation(result: list, *, ann_id: int, by=None, at: str | None = "2026-11-20T10:00:00.123456Z",
               cancelled: bool = False, **more) -> dict:
    found = {"id": ann_id, "result": result, "was_cancelled": cancelled, "ground_truth": False, "lead_time": 3.2,
             "task": 1, **more}
    if by is not None:
        found["completed_by"] = by
    if at is not None:
        found["created_at"] = found["updated_at"] = at
    return found


def choice(value: str) -> dict:
    return {"id": "x1", "from_name": "decision", "to_name": "variant", "type": "choices",
            "value": {"choices": [value]}}


def text(value: str) -> dict:
    return {"id": "x2", "from_name": "edited", "to_name": "variant", "type": "textarea", "value": {"text": [value]}}


def exported(tasks: list[dict], annotations: dict[str, list[dict]]) -> list[dict]:
    """What Label Studio's JSON export gives for these tasks: each with its id, data, annotations, predictions."""
    return [{"id": 100 + i, "data": t["data"], "annotations": annotations.get(t["data"]["candidate_id"], []),
             "predictions": t.get("predictions", []), "project": 7, "created_at": "2026-11-19T09:00:00Z"}
            for i, t in enumerate(tasks)]


def import_(file: Path, export: list | dict | str, *extra: str) -> int:
    path = file.parent / "export.json"
    path.write_text(export if isinstance(export, str) else json.dumps(export))
    return main(["labelstudio", "import", str(file), str(path), *extra])


def test_export_gives_a_task_per_decidable_candidate_and_a_config_that_fits_them(file):
    config = file.parent / "config.xml"
    tasks = export_tasks(file, "--config", str(config))
    candidates = read_candidates(file)
    decidable = [c for c in candidates if c.status in ("shipped", "quarantined")]
    assert any(c.status == "not_applicable" for c in candidates)  # left out: nothing to decide
    assert [t["data"]["candidate_id"] for t in tasks] == [c.candidate_id for c in decidable]
    for task, c in zip(tasks, decidable):
        r = c.record
        assert task["data"] | {} == task["data"] and {
            "candidate_id": c.candidate_id, "original": r["original"]["sentence"], "variant": r["sentence"],
            "target": r["term"], "strategy": c.strategy, "source": c.source, "status": c.status,
            "reason": r["reason"] or "", "polarity": r["polarity"] or ""}.items() <= task["data"].items()
        assert "predictions" not in task  # nothing decided yet
    root = ET.fromstring(config.read_text())
    names = {e.get("name"): e for e in root.iter() if e.get("name")}
    assert names["decision"].tag == "Choices" and names["decision"].get("toName") == "variant"
    assert sorted(c.get("value") for c in names["decision"]) == ["accept", "reject"]
    assert names["edited"].tag == "TextArea" and names["variant"].tag == "Text"
    shown = {e.get("value")[1:] for e in root.iter("Text")}
    assert {"original", "variant"} <= shown and all(key in t["data"] for key in shown for t in tasks)


def test_an_export_with_accept_reject_edit_cancelled_and_two_annotations_gives_exactly_those_decisions(file):
    tasks = export_tasks(file)
    assert len(tasks) >= 5
    accept, reject, edit, cancelled, twice = (t["data"] for t in tasks[:5])
    untouched = [t["data"]["candidate_id"] for t in tasks[5:]]
    edited = edit["variant"] + " Really."
    before = file.read_bytes()
    export = exported(tasks, {
        accept["candidate_id"]: [annotation([choice("accept")], ann_id=1, by={"id": 3, "email": "ann@example.org"})],
        reject["candidate_id"]: [annotation([choice("reject")], ann_id=2, by=4, created_username=" bob@example.org, 4",
                                            at="2026-11-20T11:30:00+02:00")],
        edit["candidate_id"]: [annotation([choice("accept"), text(f"  {edited}\n")], ann_id=3, by={"id": 5})],
        cancelled["candidate_id"]: [annotation([], ann_id=4, by=6, cancelled=True)],
        # the later one wins, wherever it stands in the list
        twice["candidate_id"]: [annotation([choice("reject")], ann_id=6, by={"email": "eve@example.org"},
                                           at="2026-11-21T08:00:00Z"),
                                annotation([choice("accept")], ann_id=5, by={"email": "dan@example.org"},
                                           at="2026-11-20T08:00:00Z")],
    })
    assert import_(file, export) == 0
    after = {r["id"]: r for r in records(file)}
    assert {k: (r["decision"], r["reviewer"], r["decided_at"]) for k, r in after.items() if r["decision"]} == {
        accept["candidate_id"]: ("accepted", "ann@example.org", "2026-11-20T10:00:00+00:00"),
        reject["candidate_id"]: ("rejected", "bob@example.org", "2026-11-20T09:30:00+00:00"),
        edit["candidate_id"]: ("edited", "label-studio user 5", "2026-11-20T10:00:00+00:00"),
        twice["candidate_id"]: ("rejected", "eve@example.org", "2026-11-21T08:00:00+00:00"),
    }
    assert after[edit["candidate_id"]]["edited"]["sentence"] == edited
    assert read_candidates(file)[0]  # still a valid file
    assert after[cancelled["candidate_id"]]["decision"] is None and all(after[i]["decision"] is None for i in untouched)
    # every other line byte for byte
    changed = {accept["candidate_id"], reject["candidate_id"], edit["candidate_id"], twice["candidate_id"]}
    old, new = before.split(b"\n"), file.read_bytes().split(b"\n")
    assert len(old) == len(new)
    assert [a == b for a, b in zip(old, new)] == [not a.strip() or json.loads(a)["id"] not in changed for a in old]
    # importing the same export again changes nothing
    again = file.read_bytes()
    assert import_(file, export) == 0 and file.read_bytes() == again


def test_an_exported_decision_is_a_prediction_never_read_back_and_a_later_decision_in_the_file_is_kept(file, capsys):
    first, second = [c for c in read_candidates(file) if c.status == "shipped"][:2]
    assert main(["decide", str(file), "--reject", first.candidate_id, second.candidate_id, "--reviewer", "zoe"]) == 0
    tasks = export_tasks(file)
    by_id = {t["data"]["candidate_id"]: t for t in tasks}
    assert by_id[first.candidate_id]["predictions"][0]["result"][0]["value"] == {"choices": ["reject"]}
    before = file.read_bytes()
    # a task with only its prediction decides nothing; an annotation older than the file's decision is kept back
    export = exported(tasks, {second.candidate_id: [annotation([choice("accept")], ann_id=9, by={"id": 1},
                                                               at="2020-01-01T00:00:00Z")]})
    assert import_(file, export) == 0
    assert file.read_bytes() == before
    assert f"1 kept as decided in the file after their annotation ({second.candidate_id})" in capsys.readouterr().err


def test_without_an_annotator_or_a_time_the_reviewer_option_and_now_are_written(file):
    tasks = export_tasks(file)
    cid = tasks[0]["data"]["candidate_id"]
    assert import_(file, exported(tasks, {cid: [annotation([choice("accept")], ann_id=1, at=None)]}),
                   "--reviewer", "kim") == 0
    found = next(r for r in records(file) if r["id"] == cid)
    assert found["reviewer"] == "kim" and re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", found["decided_at"])


def test_a_crlf_file_with_a_byte_order_mark_keeps_both(file):
    file.write_bytes(b"\xef\xbb\xbf" + file.read_bytes().replace(b"\n", b"\r\n"))
    tasks = export_tasks(file)
    cid = tasks[0]["data"]["candidate_id"]
    assert import_(file, exported(tasks, {cid: [annotation([choice("accept")], ann_id=1, by={"id": 2})]})) == 0
    data = file.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and data.count(b"\r\n") == data.count(b"\n")
    assert read_candidates(file)[0].decision == "accepted"


def _bad(tasks: list[dict], case: str):
    """A hand-made export with one mistake of the kind `case` names."""
    cid = tasks[0]["data"]["candidate_id"]
    one = lambda *result, **more: exported(tasks, {cid: [annotation(list(result), ann_id=1, by={"id": 1}, **more)]})  # noqa: E731
    variant, target = tasks[0]["data"]["variant"], tasks[0]["data"]["target"]
    return {
        "unknown candidate": exported([{"data": {**tasks[0]["data"], "candidate_id": "000000000000"}}],
                                      {"000000000000": [annotation([choice("accept")], ann_id=1)]}),
        "no candidate id": [{"id": 1, "data": {"text": variant}, "annotations": []}],
        "no decision": one(),
        "a decision of another config": one({**choice("accept"), "from_name": "sentiment"}),
        "edit removes the target": one(choice("accept"), text(variant.replace(target, "meal"))),
        "rejected and edited": one(choice("reject"), text(variant + " Yes.")),
        "both choices": one({**choice("accept"), "value": {"choices": ["accept", "reject"]}}),
        "unknown choice": one(choice("maybe")),
        "two edits": one({**text(variant), "value": {"text": [variant, variant + " Yes."]}}),
        "not a time": one(choice("accept"), at="yesterday"),
        "not a list": {"tasks": []},
        "json-min": [{"id": 1, "candidate_id": cid, "decision": "accept"}],
        "not json": "[{",
        "the latest gives no decision": exported(tasks, {cid: [
            annotation([choice("accept")], ann_id=1, at="2026-11-20T08:00:00Z"),
            annotation([], ann_id=2, at="2026-11-21T08:00:00Z")]}),
    }[case]


REFUSALS = {
    "unknown candidate": "candidate '000000000000' is not in the candidates file",
    "no candidate id": "has no 'data.candidate_id'",
    "no decision": "the annotation gives no decision",
    "a decision of another config": "the annotation gives no decision",
    "edit removes the target": "the edit removes the target",
    "rejected and edited": "rejected and edited at once",
    "both choices": "both accept and reject chosen",
    "unknown choice": "unknown choice 'maybe'",
    "two edits": "2 edited sentences",
    "not a time": "is not an ISO 8601 time",
    "not a list": "expected a JSON list of tasks",
    "json-min": "has no 'data' object",
    "not json": "not JSON",
    "the latest gives no decision": "annotation 2: the annotation gives no decision",
}


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_a_mistake_in_the_export_is_refused_in_one_line_and_the_file_is_unchanged(file, capsys, case):
    tasks = export_tasks(file)
    cid = tasks[0]["data"]["candidate_id"]
    # a good decision beside the bad one is not written either
    good = exported(tasks[1:2], {tasks[1]["data"]["candidate_id"]: [annotation([choice("reject")], ann_id=7,
                                                                                                  by={"id": 8})]})
    bad = _bad(tasks, case)
    export = good + bad if isinstance(bad, list) else bad
    capsys.readouterr()
    before = file.read_bytes()
    assert import_(file, export) == 2
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("absa-checks: ") and REFUSALS[case] in lines[0], err
    assert "Traceback" not in err and file.read_bytes() == before
    if case in ("no decision", "edit removes the target"):
        assert str(file.parent / "export.json") in lines[0] and f"candidate {cid}" in lines[0]
    if case == "edit removes the target":  # candidates.decide's message, naming the file's line
        line = next(c.line for c in read_candidates(file) if c.candidate_id == cid)
        assert f"{file}:{line}: the edit removes the target" in lines[0]


def test_an_absent_export_and_the_file_given_as_its_own_export_are_refused(file, capsys):
    before = file.read_bytes()
    assert main(["labelstudio", "import", str(file), str(file.parent / "nope.json")]) == 2
    assert "Label Studio export not found" in capsys.readouterr().err
    assert main(["labelstudio", "import", str(file), str(file)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and file.read_bytes() == before


def test_export_refuses_writing_over_the_candidates_file(file, capsys):
    before = file.read_bytes()
    assert main(["labelstudio", "export", str(file), "--out", str(file)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--out" in err and file.read_bytes() == before


def test_an_annotation_without_an_annotator_needs_the_reviewer_option(file, capsys, monkeypatch):
    import getpass

    def no_login_name() -> str:  # no login variable and a user id without a passwd entry
        raise KeyError("getpwuid(): uid not found")

    monkeypatch.setattr(getpass, "getuser", no_login_name)
    tasks = export_tasks(file)
    cid = tasks[0]["data"]["candidate_id"]
    before = file.read_bytes()
    capsys.readouterr()
    assert import_(file, exported(tasks, {cid: [annotation([choice("accept")], ann_id=1)]})) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "names no annotator; pass --reviewer NAME" in err
    assert f"candidate {cid}" in err and file.read_bytes() == before


def test_a_candidate_in_two_tasks_takes_the_latest_annotation_of_both(file, capsys):
    """The same tasks imported twice into a project: one candidate, two tasks; the latest annotation decides."""
    tasks = export_tasks(file)
    cid = tasks[0]["data"]["candidate_id"]
    export = exported(tasks[:1], {cid: [annotation([choice("accept")], ann_id=1, by={"id": 1},
                                                   at="2026-11-22T08:00:00Z")]})
    export += exported(tasks[:1], {cid: [annotation([choice("reject")], ann_id=2, by={"id": 2},
                                                    at="2026-11-21T08:00:00Z")]})
    assert import_(file, export) == 0
    found = next(r for r in records(file) if r["id"] == cid)
    assert (found["decision"], found["reviewer"]) == ("accepted", "label-studio user 1")
    assert "1 candidates with several annotations: the latest taken" in capsys.readouterr().err


@pytest.fixture(scope="module")
def builtin(tmp_path_factory) -> Path:
    """The REVTGT candidates of the built-in restaurant source: shipped, quarantined and not applicable."""
    out = tmp_path_factory.mktemp("builtin") / "b.jsonl"
    assert main(["generate", "--source", "builtin-restaurant", "--strategies", "revtgt", "--candidates", "--out",
                 str(out)]) == 0
    return out


def test_quarantined_candidates_are_tasks_too_and_can_be_accepted_or_edited(builtin, tmp_path, capsys):
    file = tmp_path / "b.jsonl"
    shutil.copy(builtin, file)
    candidates = read_candidates(file)
    statuses = [c.status for c in candidates]
    tasks = export_tasks(file)
    assert len(tasks) == statuses.count("shipped") + statuses.count("quarantined")
    quarantined = [t["data"] for t in tasks if t["data"]["status"] == "quarantined"]
    assert len(quarantined) >= 2 and all(q["reason"] for q in quarantined)
    taken, fixed = quarantined[:2]
    fixed_text = f"Honestly, {fixed['variant']}"
    before = file.read_bytes()
    assert import_(file, exported(tasks, {
        taken["candidate_id"]: [annotation([choice("accept")], ann_id=1, by={"id": 1})],
        fixed["candidate_id"]: [annotation([text(fixed_text)], ann_id=2, by={"id": 1})]})) == 0
    after = {r["id"]: r for r in records(file)}
    assert after[taken["candidate_id"]]["decision"] == "accepted"
    assert (after[fixed["candidate_id"]]["decision"], after[fixed["candidate_id"]]["edited"]["sentence"]) == \
        ("edited", fixed_text)
    changed = sum(a != b for a, b in zip(before.split(b"\n"), file.read_bytes().split(b"\n")))
    assert changed == 2


@pytest.mark.parametrize("args", [["export", "{file}", "--out", " "], ["import", "{file}", ""],
                                  ["import", "{file}", "{file}", "--reviewer", " "]])
def test_an_empty_option_is_refused_naming_it(file, capsys, args):
    before = file.read_bytes()
    assert main(["labelstudio", *[a.format(file=file) for a in args]]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "is empty; give a value" in err and file.read_bytes() == before


def test_export_refuses_a_bad_candidates_file_naming_its_line_and_writes_no_tasks(file, capsys):
    lines = file.read_text().split("\n")
    lines[1] = lines[1].replace('"status": "shipped"', '"status": "maybe"')
    file.write_text("\n".join(lines))
    assert main(["labelstudio", "export", str(file), "--out", str(file.parent / "tasks.json")]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and f"{file}:2: unknown status 'maybe'" in err
    assert not (file.parent / "tasks.json").exists()
