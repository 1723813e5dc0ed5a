"""The audit (docs/suites.md, "Auditing"): `absa-checks audit draw` writes a blinded sheet, `absa-checks audit
score` stores the judges' verdicts in the candidates file and prints fluent, sentiment_ok and both per strategy
with exact (Clopper-Pearson) intervals. Real files and the real command throughout.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from candidate_examples import EXAMPLES_ABC

from absa_checks.cli import main
from absa_checks.judge import audit
from absa_checks.judge.stats import clopper_pearson
from absa_checks.suites.candidates import CandidatesError, candidate_id, read_candidates
from conftest import REPO, SHARED, run_pytest

EXAMPLES = EXAMPLES_ABC + """\
  - id: d
    sentence: The staff were friendly and the wine was cheap.
    aspect: staff
    polarity: positive
    aspects:
      - term: wine
        polarity: positive
  - id: e
    sentence: The dessert was awful.
    aspect: dessert
    polarity: negative
"""
PROVENANCE = ("generator", "decision", "reviewer", "decided_at", "status", "reason", "edits", "edited", "seed",
              "params", "mode", "unit_hash", "unit", "source", "audit", "id")
SHEET_KEYS = {"item", "strategy", "target", "question", "original", "variant", "fluent", "sentiment_ok", "reason"}


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("audit")
    (folder / "mine.yaml").write_text(EXAMPLES)
    assert main(["generate", "--input", str(folder / "mine.yaml"), "--candidates", "--out",
                 str(folder / "reviewed.jsonl")]) == 0
    return folder / "reviewed.jsonl"


@pytest.fixture
def reviewed(generated, tmp_path) -> Path:
    """A copy with every shipped candidate accepted, and one of them edited by the reviewer."""
    lines = []
    edited = False
    for line in generated.read_text().splitlines():
        record = json.loads(line)
        if record["status"] == "shipped":
            record.update(decision="accepted", reviewer="ann", decided_at="2026-11-26T10:00:00+00:00")
            if not edited and record["strategy"] == "revtgt":
                record.update(decision="edited", edited={"sentence": record["sentence"].replace(".", "!")})
                edited = True
        lines.append(json.dumps(record, ensure_ascii=False))
    path = tmp_path / "reviewed.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def draw(path: Path, out: Path, *extra: str, sample: int = 10, seed: int = 1) -> int:
    return main(["audit", "draw", str(path), "--sample", str(sample), "--seed", str(seed), "--out", str(out), *extra])


def answer(sheet: Path, out: Path, verdict=lambda item: ("yes", "yes", "")) -> Path:
    lines = []
    for item in rows(sheet):
        item["fluent"], item["sentiment_ok"], item["reason"] = verdict(item)
        lines.append(json.dumps(item, ensure_ascii=False))
    out.write_text("\n".join(lines) + "\n")
    return out


# intervals


def beta_quantile_by_hand(q: float, a: float, b: float) -> float:
    """The Beta(a, b) quantile by bisection on the regularised incomplete beta function, integrated with
    Simpson's rule: written out here, independent of scipy."""
    import math

    def cdf(x: float) -> float:
        if x <= 0:
            return 0.0
        if x >= 1:
            return 1.0
        steps = 4000
        h = x / steps
        log_norm = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)

        def f(t: float) -> float:
            if t <= 0:
                return 0.0 if a > 1 else (1.0 if a == 1 else float("inf"))
            return math.exp(log_norm + (a - 1) * math.log(t) + (b - 1) * math.log1p(-t))
        total = f(0) + f(x) + sum((4 if i % 2 else 2) * f(i * h) for i in range(1, steps))
        return total * h / 3

    low, high = 0.0, 1.0
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (middle, high) if cdf(middle) < q else (low, middle)
    return (low + high) / 2


@pytest.mark.parametrize("k,n", [(7, 10), (1, 10), (9, 10), (25, 30), (93, 100)])
def test_audit_intervals_are_clopper_pearson_by_the_beta_quantiles(k, n):
    rate = audit.Tally(n, k, k, k).rates()["both"]
    assert rate.method == "clopper-pearson"
    assert rate.low == pytest.approx(beta_quantile_by_hand(0.025, k, n - k + 1), abs=2e-4)
    assert rate.high == pytest.approx(beta_quantile_by_hand(0.975, k + 1, n - k), abs=2e-4)


def test_audit_intervals_known_values():
    # 0/10: [0, 1 - 0.025^(1/10)]; 10/10: [0.025^(1/10), 1] (closed forms of the Beta quantiles at the ends)
    none, every, seven = (audit.Tally(10, k, k, k).rates()["fluent"] for k in (0, 10, 7))
    assert (none.low, none.high) == (0.0, pytest.approx(1 - 0.025 ** 0.1, abs=1e-9))
    assert (every.low, every.high) == (pytest.approx(0.025 ** 0.1, abs=1e-9), 1.0)
    assert (none.high, every.low) == (pytest.approx(0.30850, abs=1e-5), pytest.approx(0.69150, abs=1e-5))
    assert (seven.low, seven.high) == (pytest.approx(0.3475, abs=1e-4), pytest.approx(0.9333, abs=1e-4))  # tables
    assert audit.Tally().to_dict() == {"audited": 0, "fluent": None, "sentiment_ok": None, "both": None}
    assert audit.Tally(10, 7, 7, 7).to_dict()["both"] == clopper_pearson(7, 10).to_dict()


# published rounds reloaded


def test_reloading_round_7_verdicts_gives_its_published_counts():
    """docs/quality/round-7: the key and the two judges' verdicts, read as answered sheet lines, give
    scores.json's k of n for every strategy (scores.json's intervals are Wilson's; the audit's are exact)."""
    folder = REPO / "docs" / "quality" / "round-7"
    key = {row["id"]: row for row in map(json.loads, (folder / "key.jsonl").read_text().splitlines())}
    verdicts = []
    for name in ("verdicts-1.jsonl", "verdicts-2.jsonl"):
        lines = [json.dumps({**v, "item": v["id"], "strategy": key[v["id"]]["strategy"],
                             "variant": f"round-7 item {v['id']}"})
                 for v in map(json.loads, (folder / name).read_text().splitlines())]
        found, unanswered = audit.read_sheet("\n".join(lines), name)
        assert unanswered == []
        verdicts += found
    table = audit.tally((v.strategy, v.fluent, v.sentiment_ok) for v in verdicts)
    published = json.loads((folder / "scores.json").read_text())
    assert set(table) == {cell.split("/")[0] for cell in published}
    for cell, scores in published.items():
        mine = table[cell.split("/")[0]]
        for name in ("fluent", "sentiment_ok", "both"):
            assert (getattr(mine, name), mine.audited) == (scores[name]["k"], scores[name]["n"])


JUDGED = SHARED / "quality" / "judged_2026-11.jsonl"


@pytest.mark.skipif(not JUDGED.is_file(), reason=f"needs {JUDGED} (set ABSA_SHARED_DIR to the shared folder)")
def test_the_first_rounds_adddiff_verdicts_scored_by_the_command_give_94_95_93(tmp_path, capsys):
    """judged_2026-11.jsonl's 100 ADDDIFF rows of ours, as a reviewed candidates file: drawn whole (sample 200),
    answered with the recorded verdicts, scored: its README's 94% / 95% / 93% (n 100)."""
    judged = [r for r in map(json.loads, JUDGED.read_text().splitlines())
              if r["generator"] == "absa-checks" and r["strategy"] == "adddiff"]
    lines, verdict_of = [], {}
    for r in judged:
        start = r["variant"].find(r["term"])
        record = {"strategy": "adddiff", "unit": r["unit"], "source": r["source"], "sentence": r["variant"],
                  "term": r["term"], "from": start, "to": start + len(r["term"]), "polarity": r["intended_polarity"],
                  "other_aspects": [], "original": {"sentence": r["original"], "term": r["term"]},
                  "status": "shipped", "reason": None, "decision": "accepted", "reviewer": "first round",
                  "decided_at": "2026-11-20T00:00:00+00:00",
                  "unit_hash": hashlib.sha256(r["original"].encode()).hexdigest()[:16]}
        record["id"] = candidate_id(record)
        verdict_of[record["id"]] = (r["fluent"], r["sentiment_ok"], r["reason"])
        lines.append(json.dumps(record, ensure_ascii=False))
    path = tmp_path / "judged.jsonl"
    path.write_text("\n".join(lines) + "\n")
    assert draw(path, tmp_path / "sheet.jsonl", sample=200) == 0
    assert len(rows(tmp_path / "sheet.jsonl")) == 100
    answered = answer(tmp_path / "sheet.jsonl", tmp_path / "answered.jsonl", lambda item: verdict_of[item["item"]])
    capsys.readouterr()
    assert main(["audit", "score", str(path), str(answered)]) == 0
    table = capsys.readouterr().out
    assert "adddiff" in table and " 100 " in table
    assert "94% [87, 98]" in table and "95% [89, 98]" in table and "93% [86, 97]" in table
    audited = [c.audit() for c in read_candidates(path)]
    assert len(audited) == 100 and all(a is not None for a in audited)
    assert sum(a["fluent"] and a["sentiment_ok"] for a in audited if a) == 93


# draw


def test_draw_is_deterministic_blinded_and_differs_for_another_seed(reviewed, tmp_path):
    assert draw(reviewed, tmp_path / "a.jsonl", sample=2, seed=5) == 0
    assert draw(reviewed, tmp_path / "b.jsonl", sample=2, seed=5) == 0
    assert draw(reviewed, tmp_path / "c.jsonl", sample=2, seed=6) == 0
    a, b, c = (rows(tmp_path / f"{x}.jsonl") for x in "abc")
    assert a == b and (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    assert a != c
    for item in a:
        assert set(item) == SHEET_KEYS  # exactly the sheet's shape: nothing that tells the provenance
        assert item["fluent"] is None and item["sentiment_ok"] is None and item["reason"] == ""
        assert not set(item) & set(PROVENANCE) - {"item", "reason"}  # "reason" is the judge's, empty
    text = (tmp_path / "a.jsonl").read_text()
    for word in ("absa-checks", "accepted", "edited", "ann", "antonym", "shipped", "generator"):
        assert word not in text.lower()
    candidates = {c.candidate_id: c for c in read_candidates(reviewed)}
    per_strategy: dict[str, int] = {}
    for item in a:
        candidate = candidates[item["item"]]
        assert item["variant"] == candidate.example().sentence  # the text a frozen test runs (the edit's)
        assert item["strategy"] == candidate.strategy and item["target"] == candidate.example().target.term
        per_strategy[item["strategy"]] = per_strategy.get(item["strategy"], 0) + 1
    assert all(n == 2 for n in per_strategy.values()) and len(per_strategy) == 3
    meta = json.loads((tmp_path / "a.jsonl.meta.json").read_text())
    assert (meta["seed"], meta["sample"], meta["pool"]) == (5, 2, "used")
    assert meta["file_sha256"] == hashlib.sha256(reviewed.read_bytes()).hexdigest()
    assert "fluent" in (tmp_path / "a.rubric.md").read_text() and "sentiment_ok" in (tmp_path / "a.rubric.md").read_text()


def test_draw_takes_all_of_a_small_strategy_and_says_so(reviewed, tmp_path, capsys):
    available = {}
    for c in read_candidates(reviewed):
        if c.decision in ("accepted", "edited"):
            available[c.strategy] = available.get(c.strategy, 0) + 1
    assert draw(reviewed, tmp_path / "s.jsonl", sample=100) == 0
    said = capsys.readouterr().err
    drawn = rows(tmp_path / "s.jsonl")
    assert len(drawn) == sum(available.values())
    for strategy, n in available.items():
        assert f"{strategy}: {n} of {n} (only {n} in the pool: all of them)" in said


def test_draw_pools_used_and_shipped(generated, reviewed, tmp_path, capsys):
    """`used` = the accepted and edited candidates (the edited text); `shipped` = the generator's shipped
    candidates whatever was decided, with the generator's text. A file with nothing decided has no `used`."""
    rejected = tmp_path / "rejected.jsonl"
    lines = []
    for record in rows(reviewed):
        if record["strategy"] == "adddiff" and record.get("decision") == "accepted":
            record["decision"] = "rejected"
        lines.append(json.dumps(record, ensure_ascii=False))
    rejected.write_text("\n".join(lines) + "\n")
    assert draw(rejected, tmp_path / "used.jsonl", sample=50) == 0
    assert {i["strategy"] for i in rows(tmp_path / "used.jsonl")} == {"revtgt", "revnon"}
    assert draw(rejected, tmp_path / "shipped.jsonl", "--pool", "shipped", sample=50) == 0
    shipped = rows(tmp_path / "shipped.jsonl")
    assert {i["strategy"] for i in shipped} == {"revtgt", "revnon", "adddiff"}
    generated_text = {r["id"]: r["sentence"] for r in rows(generated)}
    assert all(i["variant"] == generated_text[i["item"]] for i in shipped)  # not the reviewer's edit
    capsys.readouterr()
    assert draw(generated, tmp_path / "none.jsonl", sample=5) == 2
    assert "no candidate in the pool 'used'" in capsys.readouterr().err
    assert not (tmp_path / "none.jsonl").exists()


def test_draw_never_writes_over_an_existing_sheet_or_the_candidates_file(reviewed, tmp_path, capsys):
    sheet = tmp_path / "sheet.jsonl"
    sheet.write_text('{"item": "x", "fluent": true}\n')
    before = reviewed.read_bytes()
    assert draw(reviewed, sheet) == 2
    assert "already exists" in capsys.readouterr().err and sheet.read_text() == '{"item": "x", "fluent": true}\n'
    assert draw(reviewed, reviewed) == 2
    assert "same file" in capsys.readouterr().err and reviewed.read_bytes() == before
    (tmp_path / "notes.rubric.md").write_text("my own notes")
    assert draw(reviewed, tmp_path / "notes.jsonl") == 2
    assert "is not the rubric" in capsys.readouterr().err and (tmp_path / "notes.rubric.md").read_text() == "my own notes"
    assert not (tmp_path / "notes.jsonl").exists()
    assert main(["audit", "draw", str(reviewed), "--sample", "0", "--seed", "1", "--out", str(tmp_path / "z")]) == 2
    assert "at least one" in capsys.readouterr().err


def test_questions_say_what_sentiment_ok_asks_per_strategy(reviewed, tmp_path):
    assert draw(reviewed, tmp_path / "s.jsonl", sample=100) == 0
    by = {}
    for item in rows(tmp_path / "s.jsonl"):
        by.setdefault(item["strategy"], []).append(item)
    burgers = next(i for i in by["revtgt"] if i["target"] == "burgers")
    assert burgers["question"] == "Is the sentiment towards 'burgers' now negative?"
    soup = next(i for i in by["revnon"] if i["target"] == "soup")
    assert "'soup' still negative" in soup["question"] and "'bread' now positive" in soup["question"]
    pasta = next(i for i in by["adddiff"] if i["target"] == "pasta")
    assert "'pasta' still positive" in pasta["question"] and "negative sentiment about" in pasta["question"]


# score


def test_score_writes_each_verdict_on_its_line_and_keeps_every_other_line_byte_for_byte(reviewed, tmp_path, capsys):
    original = reviewed.read_text().split("\n")
    assert draw(reviewed, tmp_path / "s.jsonl", sample=1, seed=3) == 0
    answers = {"revtgt": ("no", "yes", "not fluent"), "revnon": (True, False, "bread unchanged"),
               "adddiff": ("Yes", " YES ", "")}
    answered = answer(tmp_path / "s.jsonl", tmp_path / "answered.jsonl", lambda i: answers[i["strategy"]])
    assert main(["audit", "score", str(reviewed), str(answered)]) == 0
    out = capsys.readouterr().out
    assert "revtgt" in out and "0% [0, 98]" in out and "100% [3, 100]" in out
    after = reviewed.read_text().split("\n")
    judged = {i["item"]: i for i in rows(answered)}
    assert len(after) == len(original)
    for old, new in zip(original, after):
        if not old.strip() or json.loads(old)["id"] not in judged:
            assert old == new
            continue
        record = json.loads(new)
        found = record.pop("audit")
        assert record == json.loads(old)
        item = judged[record["id"]]
        expected = {"revtgt": (False, True, "not fluent"), "revnon": (True, False, "bread unchanged"),
                    "adddiff": (True, True, "")}[record["strategy"]]
        assert (found["fluent"], found["sentiment_ok"], found["reason"]) == expected
        assert found["sentence"] == item["variant"] and found["sheet"].startswith("answered.jsonl")
        assert found["scored_at"].endswith("+00:00")
    audited = [c for c in read_candidates(reviewed) if c.audit() is not None]
    assert {c.candidate_id for c in audited} == set(judged)


def test_the_sheet_record_names_the_seed_in_the_audit(reviewed, tmp_path):
    assert draw(reviewed, tmp_path / "s.jsonl", sample=1, seed=9) == 0
    answer(tmp_path / "s.jsonl", tmp_path / "s.jsonl.tmp")
    (tmp_path / "s.jsonl.tmp").replace(tmp_path / "s.jsonl")  # answered in place, as an editor would
    assert main(["audit", "score", str(reviewed), str(tmp_path / "s.jsonl")]) == 0
    sheets = {r["audit"]["sheet"] for r in rows(reviewed) if r.get("audit")}
    assert sheets == {"s.jsonl (seed 9, pool used)"}


def test_an_edit_after_the_audit_drops_the_verdict_out(reviewed, tmp_path):
    assert draw(reviewed, tmp_path / "s.jsonl", sample=100) == 0
    answered = answer(tmp_path / "s.jsonl", tmp_path / "a.jsonl")
    assert main(["audit", "score", str(reviewed), str(answered)]) == 0
    target = next(c for c in read_candidates(reviewed) if c.decision == "accepted" and c.strategy == "revtgt")
    assert target.audit() is not None
    assert main(["decide", str(reviewed), "--reject", target.candidate_id, "--reviewer", "bo", "--replace"]) == 0
    again = {c.candidate_id: c for c in read_candidates(reviewed)}[target.candidate_id]
    assert again.audit() is not None  # rejecting keeps the text: the verdict still stands (the test does not run it)
    lines = []
    for record in rows(reviewed):
        if record["id"] == target.candidate_id:
            record.update(decision="edited", edited={"sentence": record["sentence"].rstrip(".") + " indeed."})
        lines.append(json.dumps(record, ensure_ascii=False))
    reviewed.write_text("\n".join(lines) + "\n")
    edited = {c.candidate_id: c for c in read_candidates(reviewed)}[target.candidate_id]
    assert edited.record["audit"]["sentence"] != edited.text() and edited.audit() is None


def test_a_shipped_pool_verdict_on_an_edited_candidate_is_stored_not_counted_and_said(reviewed, tmp_path, capsys):
    assert draw(reviewed, tmp_path / "s.jsonl", "--pool", "shipped", sample=100) == 0
    answered = answer(tmp_path / "s.jsonl", tmp_path / "a.jsonl")
    capsys.readouterr()
    assert main(["audit", "score", str(reviewed), str(answered)]) == 0
    assert "1 verdicts judged a text the candidate no longer runs" in capsys.readouterr().err
    edited = next(c for c in read_candidates(reviewed) if c.decision == "edited")
    assert edited.record["audit"]["sentence"] == edited.record["sentence"] != edited.text()
    assert edited.audit() is None
    assert all(c.audit() is not None for c in read_candidates(reviewed) if c.status == "shipped" and c is not edited
               and c.decision != "edited")


def test_the_score_table_counts_exactly_the_verdicts_the_message_says_it_counts(reviewed, tmp_path, capsys):
    """A verdict on a text the candidate no longer runs is stored and said not to be counted: it used to be
    counted in the table all the same (n said 1 more than the verdicts that count)."""
    assert draw(reviewed, tmp_path / "s.jsonl", "--pool", "shipped", sample=100) == 0
    answered = answer(tmp_path / "s.jsonl", tmp_path / "a.jsonl")
    drawn = len(rows(answered))
    capsys.readouterr()
    assert main(["audit", "score", str(reviewed), str(answered)]) == 0
    captured = capsys.readouterr()
    table = {line.split()[0]: int(line.split()[1]) for line in captured.out.splitlines()[1:]}
    assert f"{drawn} verdicts stored, {drawn - 1} counted in the table" in captured.err
    assert "1 verdicts judged a text the candidate no longer runs" in captured.err
    assert "not counted in the table nor as its validity" in captured.err
    assert sum(table.values()) == drawn - 1
    counted = [c for c in read_candidates(reviewed) if c.audit() is not None]  # what validity will count
    assert len(counted) == drawn - 1
    by_strategy: dict[str, int] = {}
    for candidate in counted:
        by_strategy[candidate.strategy] = by_strategy.get(candidate.strategy, 0) + 1
    assert table == dict(sorted(by_strategy.items()))


@pytest.mark.parametrize("change,words", [
    (lambda item: {**item, "item": "ffffffffffff"}, "not a candidate of"),
    (lambda item: {**item, "fluent": "maybe"}, "'fluent' is \"maybe\"; answer true or false"),
    (lambda item: {**item, "sentiment_ok": 1}, "'sentiment_ok' is 1; answer true or false"),
    (lambda item: {**item, "reason": 3}, "'reason' is 3"),
    (lambda item: {k: v for k, v in item.items() if k != "variant"}, "has no 'variant'"),
    (lambda item: {**item, "strategy": "adddiff" if item["strategy"] != "adddiff" else "revtgt"}, "keep the line"),
    (lambda item: [item], "not a sheet item"),
])
def test_score_refuses_a_bad_line_naming_sheet_and_line_and_writes_nothing(reviewed, tmp_path, capsys, change, words):
    assert draw(reviewed, tmp_path / "s.jsonl", sample=1) == 0
    answered = answer(tmp_path / "s.jsonl", tmp_path / "a.jsonl")
    lines = answered.read_text().splitlines()
    lines[1] = json.dumps(change(json.loads(lines[1])))
    answered.write_text("\n".join(lines) + "\n")
    before = reviewed.read_bytes()
    capsys.readouterr()
    assert main(["audit", "score", str(reviewed), str(answered)]) == 2
    err = capsys.readouterr().err
    assert f"{answered}:2:" in err and words in err and "Traceback" not in err
    assert reviewed.read_bytes() == before


def test_score_refuses_unanswered_items_unless_asked_and_then_says_how_many(reviewed, tmp_path, capsys):
    assert draw(reviewed, tmp_path / "s.jsonl", sample=2) == 0
    n = len(rows(tmp_path / "s.jsonl"))
    answered = answer(tmp_path / "s.jsonl", tmp_path / "a.jsonl",
                      lambda item: ("yes", "yes", "") if item["strategy"] != "revnon" else (None, "yes", ""))
    before = reviewed.read_bytes()
    capsys.readouterr()
    assert main(["audit", "score", str(reviewed), str(answered)]) == 2
    err = capsys.readouterr().err
    assert "not answered (2 of" in err and "--skip-unanswered" in err and reviewed.read_bytes() == before
    assert main(["audit", "score", str(reviewed), str(answered), "--skip-unanswered"]) == 0
    assert f"{n - 2} verdicts stored, {n - 2} counted in the table; 2 items not answered" in capsys.readouterr().err
    assert sum(r.get("audit") is not None for r in rows(reviewed)) == n - 2


def test_score_refuses_one_item_answered_twice_and_a_missing_sheet(reviewed, tmp_path, capsys):
    assert draw(reviewed, tmp_path / "s.jsonl", sample=1) == 0
    answered = answer(tmp_path / "s.jsonl", tmp_path / "a.jsonl")
    assert main(["audit", "score", str(reviewed), str(answered), str(answered)]) == 2
    assert "is named twice" in capsys.readouterr().err
    assert main(["audit", "score", str(reviewed), str(tmp_path / "gone.jsonl")]) == 2
    assert "not found" in capsys.readouterr().err
    assert main(["audit", "score", str(reviewed), str(reviewed)]) == 2
    assert "is FILE itself" in capsys.readouterr().err


def test_two_judges_sheets_of_one_draw_give_the_and_of_their_verdicts_with_each_kept(reviewed, tmp_path, capsys):
    assert draw(reviewed, tmp_path / "s.jsonl", sample=10) == 0
    one = answer(tmp_path / "s.jsonl", tmp_path / "ann.jsonl")
    first = rows(tmp_path / "s.jsonl")[0]["item"]
    two = answer(tmp_path / "s.jsonl", tmp_path / "bob.jsonl",
                 lambda item: ("yes", "no", "not reversed") if item["item"] == first else ("yes", "yes", ""))
    assert main(["audit", "score", str(reviewed), str(one), str(two)]) == 0
    audited = {r["id"]: r["audit"] for r in rows(reviewed) if r.get("audit")}
    assert len(audited) == len(rows(tmp_path / "s.jsonl"))
    assert (audited[first]["fluent"], audited[first]["sentiment_ok"], audited[first]["reason"]) == (
        True, False, "not reversed")
    assert [(j["sheet"], j["sentiment_ok"]) for j in audited[first]["judges"]] == [("ann.jsonl", True),
                                                                                  ("bob.jsonl", False)]
    assert all(a["fluent"] and a["sentiment_ok"] for item, a in audited.items() if item != first)
    assert read_candidates(reviewed)  # the file with its judges reads back


@pytest.mark.parametrize("change, words", [
    (lambda items: items[1:], "is answered here and not on"),
    (lambda items: [{**items[0], "variant": items[0]["variant"] + " Really."}, *items[1:]], "judged another text"),
])
def test_judges_sheets_that_differ_are_one_error_naming_sheet_and_line(reviewed, tmp_path, capsys, change, words):
    assert draw(reviewed, tmp_path / "s.jsonl", sample=10) == 0
    one = answer(tmp_path / "s.jsonl", tmp_path / "ann.jsonl")
    items = change(rows(answer(tmp_path / "s.jsonl", tmp_path / "tmp.jsonl")))
    two = tmp_path / "bob.jsonl"
    two.write_text("".join(json.dumps(item) + "\n" for item in items))
    before = reviewed.read_bytes()
    capsys.readouterr()
    assert main(["audit", "score", str(reviewed), str(one), str(two)]) == 2
    err = capsys.readouterr().err
    assert words in err and ".jsonl:1:" in err and len(err.strip().splitlines()) == 1
    assert reviewed.read_bytes() == before


def test_a_crlf_file_with_a_bom_stays_so_after_scoring(reviewed, tmp_path):
    crlf = tmp_path / "crlf.jsonl"
    crlf.write_bytes(b"\xef\xbb\xbf" + reviewed.read_bytes().replace(b"\n", b"\r\n"))
    assert draw(crlf, tmp_path / "s.jsonl", sample=1) == 0
    assert main(["audit", "score", str(crlf), str(answer(tmp_path / "s.jsonl", tmp_path / "a.jsonl"))]) == 0
    data = crlf.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and data.count(b"\r\n") == reviewed.read_bytes().count(b"\n")
    assert sum(c.audit() is not None for c in read_candidates(crlf)) == 3


@pytest.mark.parametrize("value,words", [
    ("yes", "'audit' is an object"),
    ({"fluent": "yes", "sentiment_ok": True, "reason": "", "sentence": "x", "sheet": "s", "scored_at": "t"},
     "'audit.fluent' must be true or false"),
    ({"fluent": True, "sentiment_ok": True, "reason": "", "sheet": "s", "scored_at": "t"},
     "'audit.sentence' must be a text"),
])
def test_the_candidates_file_refuses_a_malformed_audit_naming_the_line(reviewed, tmp_path, value, words):
    lines = reviewed.read_text().splitlines()
    record = json.loads(lines[2])
    record["audit"] = value
    lines[2] = json.dumps(record)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(CandidatesError, match=rf"bad.jsonl:3: {words}".replace("(", r"\(").replace(")", r"\)")):
        read_candidates(bad)


# validity in every report, and the gate


def counted_from_the_file(path: Path, strategy: str) -> tuple[int, int, int, int]:
    """audited, fluent, sentiment_ok, both: straight from the file's lines (accepted or edited, the audit's
    sentence still the text the candidate runs)."""
    found = [0, 0, 0, 0]
    for r in rows(path):
        runs = r["edited"]["sentence"] if r.get("decision") == "edited" else r.get("sentence")
        a = r.get("audit")
        if r["strategy"] != strategy or r.get("decision") not in ("accepted", "edited") or not a or a["sentence"] != runs:
            continue
        found = [found[0] + 1, found[1] + a["fluent"], found[2] + a["sentiment_ok"],
                 found[3] + (a["fluent"] and a["sentiment_ok"])]
    return found[0], found[1], found[2], found[3]


VALIDITY_SUITE = """\
suite: audited
sources:
  mine: {{file: mine.yaml}}
  again: {{file: mine.yaml}}
tests:
  - name: reviewed-revtgt
    strategy: revtgt
    sources: mine
    variants: {{frozen: reviewed.jsonl}}
    gates: {{min_validity: {revtgt}}}
  - name: reviewed-revnon
    strategy: revnon
    sources: mine
    variants: {{frozen: reviewed.jsonl}}
    gates: {{min_validity: {revnon}}}
  - name: unaudited-revtgt
    strategy: revtgt
    sources: again
    variants: {{frozen: unaudited.jsonl}}
    gates: {{min_validity: 0.5}}
  - name: generated-adddiff
    strategy: adddiff
    sources: mine
"""


@pytest.fixture(scope="module")
def audited_run(generated, tmp_path_factory):
    """A reviewed file audited by the real commands (every REVTGT and REVNON candidate judged; one REVTGT
    verdict then dropped out by an edit), a suite with min_validity gates, one run with every report."""
    folder = tmp_path_factory.mktemp("validity")
    (folder / "mine.yaml").write_text(EXAMPLES)
    lines = []
    for record in rows(generated):
        if record["status"] == "shipped":
            record.update(decision="accepted", reviewer="ann", decided_at="2026-11-26T10:00:00+00:00")
        lines.append(json.dumps(record, ensure_ascii=False))
    (folder / "reviewed.jsonl").write_text("\n".join(lines) + "\n")
    (folder / "unaudited.jsonl").write_text("\n".join(lines) + "\n")
    assert draw(folder / "reviewed.jsonl", folder / "sheet.jsonl", sample=100, seed=2) == 0
    verdicts = iter([("yes", "yes", ""), ("yes", "no", "x"), ("no", "yes", "y"), ("yes", "yes", "")] * 10)
    answer(folder / "sheet.jsonl", folder / "answered.jsonl", lambda item: next(verdicts))
    assert main(["audit", "score", str(folder / "reviewed.jsonl"), str(folder / "answered.jsonl")]) == 0
    # an edit after the audit: that verdict no longer counts
    lines = []
    edited = False
    for record in rows(folder / "reviewed.jsonl"):
        if not edited and record["strategy"] == "revtgt" and record.get("audit"):
            record.update(decision="edited", edited={"sentence": record["sentence"].rstrip(".") + " indeed."})
            edited = True
        lines.append(json.dumps(record, ensure_ascii=False))
    (folder / "reviewed.jsonl").write_text("\n".join(lines) + "\n")
    lows = {}
    for strategy in ("revtgt", "revnon"):
        audited, _, _, both = counted_from_the_file(folder / "reviewed.jsonl", strategy)
        assert audited >= 2 and both >= 1
        lows[strategy] = clopper_pearson(both, audited).low
    # revtgt's gate just under its lower bound (passes), revnon's just over (fails)
    (folder / "suite.yaml").write_text(VALIDITY_SUITE.format(revtgt=round(lows["revtgt"] - 0.005, 4),
                                                             revnon=round(lows["revnon"] + 0.005, 4)))
    done = run_pytest(["suite.yaml", "--model", "lexicon", "--absa-markdown", str(folder / "summary.md"),
                       "--alluredir", str(folder / "allure")], cwd=folder, report=folder / "report.json")
    assert done.report is not None, done.out[-3000:]
    return folder, done


def test_validity_in_the_json_report_equals_the_counts_made_from_the_file(audited_run):
    folder, done = audited_run
    validity = done.report["validity"]
    for strategy in ("revtgt", "revnon"):
        audited, fluent, sentiment, both = counted_from_the_file(folder / "reviewed.jsonl", strategy)
        found = validity["mine"][strategy]
        assert found["audited"] == audited
        for key, k in (("fluent", fluent), ("sentiment_ok", sentiment), ("both", both)):
            assert found[key] == clopper_pearson(k, audited).to_dict()
            assert (found[key]["k"], found[key]["n"], found[key]["ci_method"]) == (k, audited, "clopper-pearson")
    assert counted_from_the_file(folder / "reviewed.jsonl", "revtgt")[0] == \
        sum(r["strategy"] == "revtgt" and bool(r.get("audit")) for r in rows(folder / "reviewed.jsonl")) - 1
    none = {"audited": 0, "fluent": None, "sentiment_ok": None, "both": None}
    assert validity["mine"]["adddiff"] == none  # generated: never audited
    assert validity["again"]["revtgt"] == none  # frozen, nothing audited


def test_validity_beside_each_fail_rate_in_terminal_markdown_and_allure(audited_run):
    folder, done = audited_run
    cells = {}
    for strategy in ("revtgt", "revnon"):
        audited, _, _, both = counted_from_the_file(folder / "reviewed.jsonl", strategy)
        rate = clopper_pearson(both, audited)
        cells[strategy] = (f"valid {100 * rate.value:.0f}% [{100 * rate.low:.0f}, {100 * rate.high:.0f}] "
                           f"(n {audited})")
    lines = done.summary.splitlines()
    line = next(x for x in lines if x.startswith("validity of the variants"))
    assert line == ("validity of the variants (audited: fluent and the intended sentiment, exact 95% CI): mine "
                    f"revnon {cells['revnon'].removeprefix('valid ')}, revtgt {cells['revtgt'].removeprefix('valid ')}")
    assert lines[lines.index(line) + 1] == ("  not audited: adddiff on mine; revtgt on again (frozen variants are "
                                            "audited with `absa-checks audit draw`)")
    markdown = (folder / "summary.md").read_text()
    assert "| fail rate [95% CI] | validity (audited) [95% CI] |" in markdown
    for strategy, cell in (*cells.items(), ("adddiff", "not audited")):
        row = next(x for x in markdown.splitlines() if x.startswith(f"| mine | {strategy} |"))
        fail = done.report["sources"]["mine"]["strategies"][strategy]["fail_rate"]
        assert f"{100 * fail['value']:.2f} [{100 * fail['ci95'][0]:.1f}, {100 * fail['ci95'][1]:.1f}] | {cell} |" in row
    summaries = [json.loads(p.read_text()) for p in (folder / "allure").glob("*-result.json")]
    html = next(s for s in summaries if s["name"] == "absa-checks summary")["descriptionHtml"]
    assert "validity (audited) [95% CI]" in html and all(cell in html for cell in cells.values())
    assert "not audited" in html


def test_the_validity_gate_decides_on_the_lower_bound_and_fails_when_not_audited(audited_run):
    _, done = audited_run
    gates = {(g["test"].split("::")[-1], g["source"]): g for g in done.report["gates"] if g["gate"] == "min_validity"}
    assert gates[("reviewed-revtgt", "mine")]["verdict"] == "pass"
    revnon = gates[("reviewed-revnon", "mine")]
    assert revnon["verdict"] == "fail" and "lower bound" in revnon["reason"]
    assert revnon["metric"] == done.report["validity"]["mine"]["revnon"]["both"]
    missing = gates[("unaudited-revtgt", "again")]
    assert missing["verdict"] == "fail" and missing["metric"] is None
    assert "not audited" in missing["reason"] and "absa-checks audit draw unaudited.jsonl" in missing["reason"]
    assert done.code == 1 and "absa-checks FAILED" in done.summary
    assert done.report["verdict"]["passed"] is False


def test_validity_survives_shards_and_merge(audited_run, tmp_path):
    folder, done = audited_run
    import subprocess
    import sys

    for k in (1, 2):
        run_pytest(["suite.yaml", "--model", "lexicon", "--absa-shard", f"{k}/2"], cwd=folder,
                   report=tmp_path / f"shard-{k}.json")
    merged = subprocess.run([sys.executable, "-m", "absa_checks.cli", "merge", str(tmp_path / "shard-1.json"),
                             str(tmp_path / "shard-2.json"), "-o", str(tmp_path / "merged.json")], cwd=folder,
                            capture_output=True, text=True, timeout=300, env={**__import__("os").environ,
                                                                              "PYTHONPATH": str(REPO)})
    assert merged.returncode in (0, 1), merged.stderr
    report = json.loads((tmp_path / "merged.json").read_text())
    assert report["validity"] == done.report["validity"]
    assert [g["verdict"] for g in report["gates"] if g["gate"] == "min_validity"] == \
        [g["verdict"] for g in done.report["gates"] if g["gate"] == "min_validity"]


def test_min_validity_on_a_test_that_is_not_frozen_is_refused_naming_the_line(tmp_path, capsys):
    (tmp_path / "mine.yaml").write_text(EXAMPLES)
    (tmp_path / "suite.yaml").write_text("suite: x\nsources:\n  mine: {file: mine.yaml}\ntests:\n  - name: t\n"
                                         "    strategy: revtgt\n    sources: mine\n    gates: {min_validity: 0.9}\n")
    assert main(["validate", str(tmp_path / "suite.yaml")]) != 0
    err = capsys.readouterr()
    said = err.out + err.err
    assert "suite.yaml:8" in said and "min_validity" in said and "frozen" in said


def test_validity_from_records_joins_workers_and_leaves_the_rest_not_audited():
    records = [{"source": "s", "strategy": "revtgt", "audits": {"a": [True, True], "b": [True, False]}},
               {"source": "s", "strategy": "revtgt", "audits": {"b": [True, False], "c": [False, False]}},
               {"source": "s", "strategy": "revnon", "audits": {}},
               {"source": "s", "strategy": "adddiff"}]
    found = audit.validity(records, [("t", "revtgt")])
    assert found["s"]["revtgt"] == audit.Tally(3, 2, 1, 1)
    assert found["s"]["revnon"] == found["s"]["adddiff"] == found["t"]["revtgt"] == audit.Tally()
    assert audit.cell(found["s"]["revtgt"]) == "valid 33% [1, 91] (n 3)" and audit.cell(audit.Tally()) == "not audited"


def test_audits_of_a_unit_whose_source_changed_no_longer_count(audited_run, tmp_path):
    """The pool is the candidates that fit the source's present content: a unit changed under the frozen file
    drops its verdicts out of validity (and the run fails on the stale file, as frozen tests do)."""
    folder, done = audited_run
    for name in ("reviewed.jsonl", "unaudited.jsonl", "suite.yaml"):
        (tmp_path / name).write_bytes((folder / name).read_bytes())
    (tmp_path / "mine.yaml").write_text(EXAMPLES.replace("The pasta was great.", "The pasta was really great."))
    again = run_pytest(["suite.yaml", "--model", "lexicon"], cwd=tmp_path, report=tmp_path / "r.json")
    assert again.report is not None, again.out[-2000:]
    for strategy in ("revtgt", "revnon"):
        pasta = sum(r["strategy"] == strategy and r["unit"] == "c" and bool(r.get("audit"))
                    and r.get("decision") == "accepted" for r in rows(folder / "reviewed.jsonl"))
        before = done.report["validity"]["mine"][strategy]["audited"]
        assert again.report["validity"]["mine"][strategy]["audited"] == before - pasta
    assert any(r["unit"] == "c" and r.get("audit") for r in rows(folder / "reviewed.jsonl"))
    assert any(g["gate"] == "frozen_up_to_date" and g["verdict"] == "fail" for g in again.report["gates"])
