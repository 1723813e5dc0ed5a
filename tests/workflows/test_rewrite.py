"""The LLM rewriter (issue 29): its requests, every check on its answers, and `generate --rewriter` end to end
through the local fake OpenAI server (tests/openai_server.py)."""

from __future__ import annotations

import json

import pytest
from openai_server import FakeOpenAI

from absa_checks.cli import main
from absa_checks.common.examples import Aspect, Example, Opinion, Unit, Variant
from absa_checks.common.llm_requests import request_key
from absa_checks.perturb import rewrite_check as rc
from absa_checks.perturb import rewrite_prompt as rp
from absa_checks.perturb.engine import Quarantined
from absa_checks.perturb.resources import load_resources
from absa_checks.suites.candidates import parse_candidates
from conftest import REPO, needs_extra

# A sentence of two aspects: the target "desserts" (positive) and "staff" (positive)
DESSERTS = Example("The desserts were delicious and the staff was friendly.",
                   Aspect("desserts", 4, 12, "positive"), (Aspect("staff", 36, 41, "positive"),),
                   (Opinion("delicious", 18, 27, 0), Opinion("friendly", 46, 54, 1)))
VOCABULARY = frozenset({"desserts", "staff", "wine list", "service"})


@pytest.fixture(scope="module")
def resources():
    return load_resources("restaurant")


def answer(example: Example, replace: list[tuple[str, str]], sentiments: list[str], **extra) -> str:
    """A well-formed answer: each (old, new) at old's first occurrence; `extra` overrides any key."""
    edits = []
    for old, new in replace:
        start = example.sentence.index(old)
        edits.append({"start": start, "end": start + len(old), "old": old, "new": new})
    sentence = example.sentence
    for e in sorted(edits, key=lambda e: -e["start"]):
        sentence = sentence[:e["start"]] + e["new"] + sentence[e["end"]:]
    aspects = (example.target, *example.others)
    found = {"edits": edits, "sentence": sentence,
             "sentiments": [{"aspect": a.term, "sentiment": s} for a, s in zip(aspects, sentiments)], **extra}
    return json.dumps(found)


def verify(content: str, resources, strategy: str = "revtgt", example: Example = DESSERTS):
    request = rp.request(example, strategy, rp.BodySettings())
    assert request is not None
    return rc.verify(Unit("s", "u1", example), request, content, resources, VOCABULARY, {"rewriter": "r"})


def reason(outcome) -> str:
    assert isinstance(outcome, Quarantined), f"shipped: {outcome.example.sentence}"
    return outcome.reason


# ------------------------------------------------------------------ the request

def test_a_request_is_the_prompt_the_worked_examples_and_the_unit_with_the_sentiments_wanted():
    request = rp.request(DESSERTS, "revtgt", rp.BodySettings())
    assert request is not None and request.intended == ("negative", "positive")
    body = request.body
    assert body["temperature"] == 0.0 and body["seed"] == 0 and body["model"] == rp.DEFAULT_REWRITER_MODEL
    assert body["messages"][0] == {"role": "system", "content": rp.SYSTEM}
    assert body["messages"][1:-1] == list(rp.FEW_SHOT)
    last = body["messages"][-1]["content"]
    assert "Sentence: The desserts were delicious and the staff was friendly." in last
    assert '"desserts" at 4-12 (the target): now positive, must become negative' in last
    assert '"staff" at 36-41: now positive, must stay positive' in last
    assert "4:desserts" in last  # the word offsets
    # REVNON: the target kept, an aspect of the target's sentiment reversed
    assert rp.request(DESSERTS, "revnon", rp.BodySettings()).intended == ("positive", "negative")
    # not applicable: a neutral target; REVNON without another polar aspect
    neutral = Example("The menu is printed.", Aspect("menu", 4, 8, "neutral"))
    alone = Example("The soup was cold.", Aspect("soup", 4, 8, "negative"))
    assert rp.request(neutral, "revtgt", rp.BodySettings()) is None
    assert rp.request(alone, "revnon", rp.BodySettings()) is None
    # the key changes with the model name or any setting
    other = rp.request(DESSERTS, "revtgt", rp.BodySettings(model="other"))
    assert request_key(other.body) != request_key(body)


def test_the_worked_examples_pass_the_checks_their_answers_are_verified(resources):
    for n, shot in enumerate(rp.SHOTS):
        example = rp._shot_example(shot)
        outcome = verify(rp.FEW_SHOT[2 * n + 1]["content"], resources, shot.strategy, example)
        assert isinstance(outcome, Variant), (shot.sentence, outcome)


# ------------------------------------------------------------------ every check, one reason each

def test_a_good_rewrite_ships_with_its_provenance_and_remapped_spans(resources):
    outcome = verify(answer(DESSERTS, [("delicious", "bland")], ["negative", "positive"]), resources)
    assert isinstance(outcome, Variant) and outcome.origin == "rewriter"
    assert outcome.example.sentence == "The desserts were bland and the staff was friendly."
    assert outcome.example.polarity == "negative" and outcome.example.others[0].polarity == "positive"
    staff = outcome.example.others[0]
    assert outcome.example.sentence[staff.start:staff.end] == "staff"
    assert outcome.provenance == {"rewriter": "r"}


@pytest.mark.parametrize("content, expected", [
    ("I'm sorry, but I can't help with that.", rc.DECLINED),
    ('{"edits": [], "sentence": null, "sentiments": [], "cannot": "no small edit"}', rc.DECLINED),
    ('{"edits": [{"start": 18, "end": 27, "new": "bland"}], "sentence": "The desserts', rc.NOT_JSON),
    ("Here is the edit: delicious -> bland", rc.NOT_JSON),
    ('["not", "an", "object"]', rc.NOT_JSON),
    ('{"edits": [{"start": "18", "end": 27, "new": "bland"}], "sentence": "x", "sentiments": []}', rc.NOT_JSON),
    ('{"edits": [{"start": 18, "end": 27, "new": "bland"}], "sentiments": []}', rc.NOT_JSON),
])
def test_malformed_answers_and_refusals_are_quarantined(resources, content, expected):
    assert reason(verify(content, resources)) == expected


def test_a_fenced_json_block_is_read(resources):
    content = "```json\n" + answer(DESSERTS, [("delicious", "bland")], ["negative", "positive"]) + "\n```"
    assert isinstance(verify(content, resources), Variant)
    # labels as a data file writes them, and a returned sentence with a trailing line break
    found = json.loads(answer(DESSERTS, [("delicious", "bland")], ["NEG", "Positive"]))
    found["sentence"] += "\n"
    outcome = verify(json.dumps(found), resources)
    assert isinstance(outcome, Variant) and outcome.example.sentence.endswith("friendly.")


def _raw(edits: list[dict], sentence: str, sentiments=("negative", "positive")) -> str:
    return json.dumps({"edits": edits, "sentence": sentence, "sentiments": list(sentiments)})


@pytest.mark.parametrize("edits, sentence, expected", [
    # beyond the sentence's end, a negative offset, start after end
    ([{"start": 50, "end": 70, "new": "x"}], "x", rc.OUTSIDE),
    ([{"start": -1, "end": 3, "new": "x"}], "x", rc.OUTSIDE),
    ([{"start": 27, "end": 18, "new": "bland"}], "x", rc.OUTSIDE),
    # offsets that do not hold the "old" text they claim (off by one)
    ([{"start": 19, "end": 28, "old": "delicious", "new": "bland"}], "x", rc.OUTSIDE),
    # overlapping spans, and two insertions at one point
    ([{"start": 18, "end": 27, "new": "bland"}, {"start": 20, "end": 30, "new": "x"}], "x", rc.OVERLAP),
    ([{"start": 18, "end": 18, "new": "not "}, {"start": 18, "end": 18, "new": "very "}], "x", rc.OVERLAP),
    # the sentence returned is not what the edits give
    ([{"start": 18, "end": 27, "old": "delicious", "new": "bland"}],
     "The desserts were awful and the staff was friendly.", rc.MISAPPLIED),
    # a "rewrite" that changes nothing: no edit, or an edit that replaces a word with itself
    ([], "The desserts were delicious and the staff was friendly.", rc.UNCHANGED),
    ([{"start": 18, "end": 27, "old": "delicious", "new": "delicious"}],
     "The desserts were delicious and the staff was friendly.", rc.UNCHANGED),
])
def test_spans_are_checked_against_the_original(resources, edits, sentence, expected):
    assert reason(verify(_raw(edits, sentence), resources)) == expected


def test_the_target_dropped_or_changed_or_another_aspect_touched_is_quarantined(resources):
    dropped = answer(DESSERTS, [("The desserts were delicious", "It was bland")], ["negative", "positive"])
    changed = answer(DESSERTS, [("desserts", "dessert")], ["negative", "positive"])
    other = answer(DESSERTS, [("delicious", "bland"), ("staff", "staff members")], ["negative", "positive"])
    # the term written a second time: its count changes
    repeated = answer(DESSERTS, [("delicious", "bland desserts")], ["negative", "positive"])
    # the term kept, but a noun joined to it: no longer the aspect annotated
    joined = answer(DESSERTS, [("delicious", "bland"), ("staff was", "staff members were")], ["negative", "positive"])
    for content in (dropped, changed, other, repeated, joined):
        assert reason(verify(content, resources)) == rc.ASPECT_CHANGED


def test_a_new_aspect_term_is_quarantined(resources):
    content = answer(DESSERTS, [("delicious", "bland, unlike the wine list,")], ["negative", "positive"])
    assert reason(verify(content, resources)) == rc.NEW_ASPECT


def test_too_big_an_edit_is_quarantined(resources):
    content = answer(DESSERTS, [("were delicious", "were, to be honest with you after all these long years of "
                                                   "visits, bland")], ["negative", "positive"])
    outcome = verify(content, resources)
    assert reason(outcome) == rc.TOO_BIG and "words changed" in outcome.detail


def test_sentiments_that_flip_another_aspect_or_keep_the_target_are_quarantined(resources):
    flips_other = answer(DESSERTS, [("delicious", "bland"), ("friendly", "rude")], ["negative", "negative"])
    keeps_target = answer(DESSERTS, [("delicious", "bland")], ["positive", "positive"])
    missing = answer(DESSERTS, [("delicious", "bland")], ["negative"])
    for content in (flips_other, keeps_target, missing):
        assert reason(verify(content, resources)) == rc.WRONG_SENTIMENTS


def test_the_lexicon_must_read_the_reversal_and_no_kept_aspect_reversed(resources):
    # REVTGT: an edit the lexicon reads going the old way (more praise, not less), or one of function words only
    more_praise = answer(DESSERTS, [("delicious", "delicious and superb")], ["negative", "positive"])
    assert reason(verify(more_praise, resources)) == rc.NOT_REVERSED
    for function_words in ([("were", "are")], [("The", "These"), ("were", "are")]):
        assert reason(verify(answer(DESSERTS, function_words, ["negative", "positive"]), resources)) == rc.NO_OPINION_EDIT
    # words the lexicon does not know ("ages" -> "minutes"): unread, not contradicted: it ships (the reviewer and the
    # blind rounds are what judge it)
    battery = Example("The battery lasts ages.", Aspect("battery", 4, 11, "positive"), (),
                      (Opinion("lasts ages", 12, 22, 0),))
    unknown = answer(battery, [("ages", "minutes")], ["negative"])
    assert isinstance(verify(unknown, resources, example=battery), Variant)
    assert reason(verify(answer(battery, [("lasts", "lasts")], ["negative"]), resources, example=battery)) == rc.UNCHANGED
    # REVTGT claiming the right sentiments but reversing the other aspect's words too
    separate = Example("The desserts were delicious. The staff was friendly.",
                       Aspect("desserts", 4, 12, "positive"), (Aspect("staff", 33, 38, "positive"),),
                       (Opinion("delicious", 18, 27, 0), Opinion("friendly", 43, 51, 1)))
    both = answer(separate, [("delicious", "awful"), ("friendly", "rude")], ["negative", "positive"])
    assert reason(verify(both, resources, example=separate)) == rc.OTHER_MOVED
    # REVNON: the target's words moved against its sentiment
    revnon = answer(separate, [("delicious", "awful"), ("friendly", "rude")], ["positive", "negative"])
    assert reason(verify(revnon, resources, "revnon", separate)) == rc.TARGET_EDITED
    unmarked = Example(separate.sentence, separate.target, separate.others, (Opinion("friendly", 43, 51, 1),))
    assert reason(verify(revnon, resources, "revnon", unmarked)) == rc.TARGET_MOVED
    good = answer(separate, [("friendly", "rude")], ["positive", "negative"])
    assert isinstance(verify(good, resources, "revnon", separate), Variant)
    # the reversing words after the target's clause, in no other aspect's, are read with it
    average = Example("Food was average but tasty.", Aspect("Food", 0, 4, "positive"))
    assert isinstance(verify(answer(average, [("but tasty", "and bland")], ["negative"]), resources,
                             example=average), Variant)


def test_the_rules_context_checks_apply_to_the_result(resources):
    # a discourse word that depends on the old polarity, left as it was where the sentiment changed
    even = Example("Even the desserts were delicious.", Aspect("desserts", 9, 17, "positive"), (),
                   (Opinion("delicious", 23, 32, 0),))
    kept = answer(even, [("delicious", "bland")], ["negative"])
    outcome = verify(kept, resources, example=even)
    assert reason(outcome) == rc.DISCOURSE_DEPENDS and outcome.detail == "Even"
    assert isinstance(verify(answer(even, [("Even", "Sadly,"), ("delicious", "bland")], ["negative"]), resources,
                             example=even), Variant)
    # a contrast left between two aspects that now agree
    contrast = Example("The soup was cold but the bread was fresh.", Aspect("soup", 4, 8, "negative"),
                       (Aspect("bread", 26, 31, "positive"),), (Opinion("cold", 13, 17, 0), Opinion("fresh", 36, 41, 1)))
    agree = answer(contrast, [("cold", "hot")], ["positive", "positive"])
    assert reason(verify(agree, resources, example=contrast)) == rc.CONTRAST
    fixed = answer(contrast, [("cold", "hot"), ("but", "and")], ["positive", "positive"])
    assert isinstance(verify(fixed, resources, example=contrast), Variant)
    # a double negation the original did not have
    double = answer(DESSERTS, [("were delicious", "were not never awful")], ["negative", "positive"])
    assert reason(verify(double, resources)) == rc.P + "double negation"


def test_every_reason_is_a_fixed_rewriter_category():
    assert all(r.startswith(rc.P) for r in rc.REASONS) and len(set(rc.REASONS)) == len(rc.REASONS)


# ------------------------------------------------------------------ generate --rewriter, end to end

REVIEWS = ("Even the [desserts|pos] were {delicious|desserts}.\n"
           "The [soup|neg] was {cold|soup} but the [bread|pos] was {fresh|bread}.\n"
           "[Service|neg] tonight.\n")
EVEN = "Even the desserts were delicious."


def _setup(tmp_path, server: FakeOpenAI, **settings) -> list[str]:
    """reviews.txt and a models.yaml whose `rw` is the fake server; the arguments of `generate --rewriter rw`."""
    (tmp_path / "reviews.txt").write_text(REVIEWS)
    entry = {"kind": "openai", "base_url": server.base_url, "model": "rewriter", "backoff": 0, **settings}
    (tmp_path / "models.yaml").write_text(json.dumps({"models": {"rw": entry, "lex": {"kind": "lexicon"}}}))
    return ["generate", "--input", str(tmp_path / "reviews.txt"), "--domain", "restaurant", "--strategies",
            "revtgt,revnon", "--rewriter", "rw", "--models-file", str(tmp_path / "models.yaml"),
            "--cache", str(tmp_path / "cache")]


GOOD_EVEN = json.dumps({"edits": [{"start": 0, "end": 4, "old": "Even", "new": "Sadly,"},
                                  {"start": 23, "end": 32, "old": "delicious", "new": "bland"}],
                        "sentence": "Sadly, the desserts were bland.",
                        "sentiments": [{"aspect": "desserts", "sentiment": "negative"}]})


@needs_extra("openai")
def test_generate_with_a_rewriter_ships_verified_variants_beside_the_rules_and_caches(tmp_path, capsys):
    with FakeOpenAI() as server:
        args = _setup(tmp_path, server)
        server.rewrites[EVEN] = GOOD_EVEN  # the other requests are refused ("I can't help with that")
        assert main([*args, "--out", str(tmp_path / "out.jsonl")]) == 0
        first = server.requests
        err = capsys.readouterr().err
        records = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
        llm = [r for r in records if r.get("origin") == "rewriter"]
        assert [r["sentence"] for r in llm] == ["Sadly, the desserts were bland."]
        provenance = llm[0]["provenance"]
        assert provenance["rewriter"] == "rw" and provenance["model"] == "rewriter"
        assert provenance["prompt_sha256"] == rp.PROMPT_SHA256 and len(provenance["request_key"]) == 64
        assert any(r.get("origin") is None for r in records)  # the rules' variants are still there
        assert "rewriter rw: 2 requests sent, 0 answers from the cache" in err
        # what went over the wire is what --export-requests writes (the key a replay server answers by)
        assert main([*args[:args.index("--rewriter")], "--export-requests", str(tmp_path / "req.jsonl")]) == 0
        exported = {json.loads(line)["key"] for line in (tmp_path / "req.jsonl").read_text().splitlines()}
        assert {request_key(body) for body in server.bodies} == exported and len(exported) == 2
        assert "quarantined: 1 x rewriter: the rewriter declined" in err
        # a second run asks nothing: every answer comes from the cache
        assert main([*args, "--out", str(tmp_path / "again.jsonl")]) == 0
        assert server.requests == first
        assert "0 requests sent, 2 answers from the cache" in capsys.readouterr().err
        assert (tmp_path / "again.jsonl").read_text() == (tmp_path / "out.jsonl").read_text()
        # the candidates file: the LLM's candidates beside the rules', told apart, readable by review
        assert main([*args, "--candidates", "--out", str(tmp_path / "cand.jsonl")]) == 0
        text = (tmp_path / "cand.jsonl").read_text()
        candidates = parse_candidates(text, "cand.jsonl")
        mine = [c for c in candidates if c.record.get("origin") == "rewriter"]
        assert {c.status for c in mine} == {"shipped", "quarantined"}
        assert all(c.record["generator"]["name"] == "absa-checks rewriter" for c in mine)
        assert any(c.record["generator"]["name"] == "absa-checks" for c in candidates)
        assert len({c.candidate_id for c in candidates}) == len(candidates)


@needs_extra("openai")
def test_a_429_is_retried_and_a_timeout_is_a_quarantined_no_answer(tmp_path, capsys):
    with FakeOpenAI() as server:
        args = _setup(tmp_path, server, retries=1, timeout=0.5, max_concurrency=1)
        server.rewrites[EVEN] = GOOD_EVEN
        server.slow_seconds = 3
        server.faults = ["429:0", "", "slow", "slow"]  # the first request: 429, then answered; the second: too slow
        assert main([*args, "--out", str(tmp_path / "out.jsonl")]) == 1  # written, but incomplete
        err = capsys.readouterr().err
        assert "1 failed" in err and "quarantined: 1 x rewriter: no answer" in err
        assert err.strip().splitlines()[-1].startswith("absa-checks: incomplete: the rewriter rw got no answer to 1 of "
                                                       "2 requests (1 x no complete reply within timeout 0.5 s)")
        assert '"Sadly, the desserts were bland."' in (tmp_path / "out.jsonl").read_text()
        assert server.requests == 4  # 429 then answered; past the deadline twice (1 retry)
        # the failed request is not cached: the next run asks it again
        assert main([*args, "--out", str(tmp_path / "again.jsonl")]) == 0
        assert "1 requests sent, 1 answers from the cache, 0 failed" in capsys.readouterr().err


@needs_extra("openai")
def test_a_verifier_that_reads_another_sentiment_quarantines(tmp_path, capsys):
    with FakeOpenAI() as server, FakeOpenAI() as agrees, FakeOpenAI() as disagrees:
        args = _setup(tmp_path, server)
        server.rewrites[EVEN] = GOOD_EVEN
        agrees.always, disagrees.always = "answer:negative", "answer:positive"  # the variant's target: negative
        models = json.loads((tmp_path / "models.yaml").read_text())
        for name, judge in (("yes", agrees), ("no", disagrees)):
            models["models"][name] = {"kind": "openai", "base_url": judge.base_url, "model": "judge"}
        models["models"]["lister"] = {"kind": "openai", "base_url": agrees.base_url, "model": "m", "mode": "extract"}
        (tmp_path / "models.yaml").write_text(json.dumps(models))
        assert main([*args, "--verifier", "lister", "--out", str(tmp_path / "x.jsonl")]) == 2
        assert "--verifier lister: the verifier is asked each aspect's sentiment; give it mode: classify" in \
            capsys.readouterr().err
        assert main([*args, "--verifier", "yes", "--out", str(tmp_path / "yes.jsonl")]) == 0
        shipped = [json.loads(line) for line in (tmp_path / "yes.jsonl").read_text().splitlines()
                   if '"origin": "rewriter"' in line]
        assert len(shipped) == 1 and shipped[0]["provenance"]["verifier"] == "yes"
        assert agrees.requests == 1  # asked about the verified variant only, without the intent
        assert main([*args, "--verifier", "yes", "--out", str(tmp_path / "again.jsonl")]) == 0
        assert agrees.requests == 1  # a second run asks the verifier nothing either (the prediction cache)
        assert (tmp_path / "again.jsonl").read_text() == (tmp_path / "yes.jsonl").read_text()
        capsys.readouterr()
        assert main([*args, "--verifier", "no", "--out", str(tmp_path / "no.jsonl")]) == 0
        assert '"origin": "rewriter"' not in (tmp_path / "no.jsonl").read_text()
        assert "quarantined: 1 x rewriter: the verifier reads another sentiment" in capsys.readouterr().err


def test_export_requests_asks_nothing_and_writes_one_line_per_request(tmp_path, capsys):
    (tmp_path / "reviews.txt").write_text(REVIEWS)
    out = tmp_path / "requests.jsonl"
    assert main(["generate", "--input", str(tmp_path / "reviews.txt"), "--domain", "restaurant", "--strategies",
                 "revtgt,revnon", "--export-requests", str(out)]) == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert lines and all(line["key"] == request_key(line["request"]) for line in lines)
    assert all(line["request"]["model"] == "rewriter" for line in lines)
    sentences = {line["request"]["messages"][-1]["content"].split("\nSentence: ")[1].split("\n")[0] for line in lines}
    assert EVEN in sentences  # quarantined by the rules (a discourse word)
    assert "Service tonight." in sentences  # no opinion words: the rules cannot, the rewriter is asked
    # --rewriter-all asks for every unit the strategies apply to
    every = tmp_path / "every.jsonl"
    assert main(["generate", "--input", str(tmp_path / "reviews.txt"), "--domain", "restaurant", "--strategies",
                 "revtgt,revnon", "--export-requests", str(every), "--rewriter-all"]) == 0
    assert len(every.read_text().splitlines()) > len(lines)
    # the input is never written over; --out is refused beside --export-requests
    before = (tmp_path / "reviews.txt").read_text()
    assert main(["generate", "--input", str(tmp_path / "reviews.txt"), "--export-requests",
                 str(tmp_path / "reviews.txt")]) != 0
    assert (tmp_path / "reviews.txt").read_text() == before
    assert main(["generate", "--input", str(tmp_path / "reviews.txt"), "--export-requests", str(out), "--out",
                 str(tmp_path / "x.jsonl")]) != 0
    assert "--out: --export-requests writes only the rewriter's requests" in capsys.readouterr().err


@needs_extra("openai")
def test_without_a_rewriter_the_output_is_the_rules_alone_byte_for_byte(tmp_path, capsys):
    """The rules-only default is unchanged: the rewriter adds lines (origin rewriter), never changes the rules'."""
    with FakeOpenAI() as server:  # refuses every rewrite: only quarantined answers
        args = _setup(tmp_path, server)
        plain = [a for a in args if a not in ("--rewriter", "rw", "--models-file", str(tmp_path / "models.yaml"),
                                              "--cache", str(tmp_path / "cache"))]
        for name, extra in (("rules", plain), ("both", args)):
            assert main([*extra, "--out", str(tmp_path / f"{name}.jsonl"), "--quarantine",
                         str(tmp_path / f"{name}.q.jsonl")]) == 0
            assert main([*extra, "--candidates", "--out", str(tmp_path / f"{name}.c.jsonl")]) == 0
        assert server.requests > 0
    for suffix in (".jsonl", ".q.jsonl", ".c.jsonl"):
        rules = (tmp_path / f"rules{suffix}").read_text().splitlines()
        both = (tmp_path / f"both{suffix}").read_text().splitlines()
        assert [line for line in both if "rewriter" not in line] == rules
    assert "rewriter" in (tmp_path / "both.c.jsonl").read_text()
    # the generator's fingerprint (the run's `generator` part) does not hash the rewriter's modules
    from absa_checks.common import fingerprint

    assert all((fingerprint.PACKAGE / path).is_file() for path in fingerprint.NOT_GENERATOR)


def test_the_rewriter_must_be_an_openai_entry_one_line_each(tmp_path, capsys):
    (tmp_path / "reviews.txt").write_text(REVIEWS)
    (tmp_path / "models.yaml").write_text("models:\n  lex:\n    kind: lexicon\n")
    base = ["generate", "--input", str(tmp_path / "reviews.txt"), "--out", str(tmp_path / "out.jsonl"),
            "--models-file", str(tmp_path / "models.yaml")]
    for name, expected in (("lex", "--rewriter lex: a model of kind lexicon cannot be asked this; name a models.yaml "
                                    "entry of kind openai"),
                           ("nope", "--rewriter: unknown model 'nope'")):
        assert main([*base, "--rewriter", name]) == 2
        err = capsys.readouterr().err
        assert expected in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    (tmp_path / "models.yaml").write_text("models:\n  rw: {kind: openai, base_url: 'http://127.0.0.1:9/v1', model: x}\n")
    assert main([*base, "--rewriter", "rw", "--verifier", "nope"]) == 2  # the verifier's name blames --verifier
    err = capsys.readouterr().err
    assert "--verifier: unknown model 'nope'" in err and len(err.strip().splitlines()) == 1
    assert main(["generate", "--input", str(tmp_path / "reviews.txt"), "--out", str(tmp_path / "out.jsonl"),
                 "--rewriter-all"]) == 2
    assert "--rewriter-all: only used with --rewriter NAME or --export-requests FILE" in capsys.readouterr().err
    assert not (tmp_path / "out.jsonl").exists()


@needs_extra("openai")
def test_llm_candidates_join_a_file_by_update_and_reach_a_frozen_test_only_when_accepted(tmp_path, capsys):
    from absa_checks.perturb.frozen import frozen_variants, of_source
    from absa_checks.suites.candidates import read_candidates
    from absa_checks.suites.files import load_file

    with FakeOpenAI() as server:
        args = _setup(tmp_path, server)
        server.rewrites[EVEN] = GOOD_EVEN
        plain = args[:args.index("--rewriter")]
        cand = tmp_path / "cand.jsonl"
        assert main([*plain, "--candidates", "--out", str(cand)]) == 0
        rules_text = cand.read_text()
        assert "rewriter" not in rules_text
        # --update with the rewriter adds its candidates and keeps every line there
        assert main([*args, "--update", str(cand)]) == 0
        text = cand.read_text()
        assert text.startswith(rules_text) and text != rules_text
        sent = server.requests
        # once they are there, another --update adds nothing and asks nothing
        assert main([*args, "--update", str(cand)]) == 0
        assert cand.read_text() == text and server.requests == sent
    loaded = load_file(tmp_path / "reviews.txt", "restaurant")
    unit = next(u for u in loaded.units if u.original.sentence == EVEN)

    def frozen():
        found = of_source(read_candidates(cand), loaded.name, "revtgt", str(cand))
        return frozen_variants(found, loaded, (unit,), "revtgt", str(cand)).by_unit.get(unit.unit_id, ())

    assert frozen() == ()  # not decided: nothing the LLM wrote reaches the frozen test
    llm = next(c for c in read_candidates(cand) if c.record.get("origin") == "rewriter" and c.status == "shipped")
    assert main(["decide", str(cand), "--accept", llm.candidate_id, "--reviewer", "ann"]) == 0
    (variant,) = frozen()
    assert variant.example.sentence == "Sadly, the desserts were bland."
    assert variant.provenance["generator"]["rewriter"] == "rw" and variant.provenance["reviewer"] == "ann"



FAULTY = ("The [soup|pos] was {hot|soup} and the [bread|pos] was {fresh|bread}.\n"   # flips another aspect too
          "The [tea|pos] was {lovely|tea} and the [cake|pos] was {moist|cake}.\n"    # drops the target
          "The [wine|pos] was {superb|wine}.\n"                                      # malformed JSON
          "The [salad|pos] was {crisp|salad}.\n"                                     # a span outside the sentence
          "The [steak|pos] was {tender|steak}.\n")                                   # changes nothing


@needs_extra("openai")
def test_faulty_answers_through_the_server_are_each_quarantined_with_their_reason(tmp_path, capsys):
    with FakeOpenAI() as server:
        args = _setup(tmp_path, server)
        (tmp_path / "reviews.txt").write_text(FAULTY)
        soup = Example("The soup was hot and the bread was fresh.", Aspect("soup", 4, 8, "positive"),
                       (Aspect("bread", 25, 30, "positive"),))
        tea = Example("The tea was lovely and the cake was moist.", Aspect("tea", 4, 7, "positive"),
                      (Aspect("cake", 27, 31, "positive"),))
        server.rewrites.update({
            soup.sentence: answer(soup, [("hot", "cold"), ("fresh", "stale")], ["negative", "negative"]),
            tea.sentence: answer(tea, [("The tea was lovely", "It was awful")], ["negative", "positive"]),
            "The wine was superb.": '{"edits": [{"start": 13, "end": 19, "new": "awful"}], "sentence": ',
            "The salad was crisp.": _raw([{"start": 40, "end": 45, "new": "soggy"}], "The salad was soggy.",
                                         ["negative"]),
            "The steak was tender.": _raw([], "The steak was tender.", ["negative"]),
        })
        assert main([*args, "--strategies", "revtgt", "--rewriter-all", "--out", str(tmp_path / "out.jsonl")]) == 0
    err = capsys.readouterr().err
    for reason in (rc.WRONG_SENTIMENTS, rc.ASPECT_CHANGED, rc.NOT_JSON, rc.OUTSIDE, rc.UNCHANGED):
        assert f"x {reason}" in err, reason
    assert "revtgt (rewriter): 0 variants" in err and '"origin": "rewriter"' not in (tmp_path / "out.jsonl").read_text()


# 13 units the rules quarantine ("Even" before a reversed opinion: the rewriter is asked about each, REVTGT), with
# the rules' own variants for the others: past max_consecutive_failures (8 by default) in a row
LARGE = REVIEWS + "".join(f"Even the [dish{i}|pos] was {{tasty|dish{i}}}.\n" for i in range(12)) \
    + "The [pasta|pos] was {good|pasta} and the [wine|neg] was {bad|wine}.\n"
CLOSED = "closed port"


def _closed_port_url() -> str:
    """A 127.0.0.1 URL nothing listens on (the port was bound, then let go)."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}/v1"


def _rules_alone(args: list[str]) -> list[str]:
    """`generate`'s arguments without the rewriter's options."""
    out, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg in ("--rewriter", "--models-file", "--cache"):
            skip = True
        else:
            out.append(arg)
    return out


@needs_extra("openai")
@pytest.mark.parametrize("size", ["tiny", "large"])
@pytest.mark.parametrize("fault, kind", [("500", "HTTP 500"), ("malformed", "a malformed reply"),
                                         (CLOSED, "ConnectError")])
def test_an_endpoint_that_fails_still_writes_the_rules_variants_counts_its_failures_and_exits_1(tmp_path, capsys,
                                                                                                 size, fault, kind):
    """A closed port, 500s or garbage, on 2 requests or past max_consecutive_failures: the same exit status 1 and
    one line counting the failed requests by kind; the rules' variants and candidates written as without the
    rewriter, the answers had before the endpoint failed written too (they used to be lost with everything)."""
    with FakeOpenAI() as server:
        args = _setup(tmp_path, server, retries=0, max_concurrency=1)
        if size == "large":
            (tmp_path / "reviews.txt").write_text(LARGE)
        if fault == CLOSED:
            models = json.loads((tmp_path / "models.yaml").read_text())
            models["models"]["rw"]["base_url"] = _closed_port_url()
            (tmp_path / "models.yaml").write_text(json.dumps(models))
        else:
            server.rewrites[EVEN] = GOOD_EVEN
            server.always = fault  # every request fails but EVEN's first (then cached)
        rules = _rules_alone(args)
        assert main([*rules, "--out", str(tmp_path / "rules.jsonl")]) == 0
        assert main([*rules, "--candidates", "--out", str(tmp_path / "rules.c.jsonl")]) == 0
        capsys.readouterr()
        server.faults = [""] if fault != CLOSED else []
        for name, extra in (("out.jsonl", []), ("cand.jsonl", ["--candidates"])):
            assert main([*args, "--rewriter-all", *extra, "--out", str(tmp_path / name)]) == 1, name
            err = capsys.readouterr().err
            assert "Traceback" not in err
            last = err.strip().splitlines()[-1]
            asked = 6 if size == "tiny" else 22  # (--rewriter-all) revtgt and revnon of every unit they apply to
            failed = asked - (fault != CLOSED)
            assert last.startswith(f"absa-checks: incomplete: the rewriter rw got no answer to {failed} of {asked} "
                                   "requests ("), last
            assert f"x {kind}" in last and "run the same command again once http://127.0.0.1:" in last, last
            assert ("x not sent: stopped after 8 failed requests in a row" in last) == (size == "large"), last
            assert sum(f"{kind}" in line for line in err.splitlines()) == 1  # counted in one line
        lines = (tmp_path / "out.jsonl").read_text().splitlines()
        assert [line for line in lines if '"origin": "rewriter"' not in line] == \
            (tmp_path / "rules.jsonl").read_text().splitlines()
        assert any("Sadly, the desserts were bland." in line for line in lines) == (fault != CLOSED)
        cand = (tmp_path / "cand.jsonl").read_text()
        assert [line for line in cand.splitlines() if '"origin": "rewriter"' not in line] == \
            (tmp_path / "rules.c.jsonl").read_text().splitlines()
        assert rc.NO_ANSWER not in cand  # a failed request is pending work, not a candidate to review


@needs_extra("openai")
def test_a_rerun_once_the_endpoint_answers_finishes_the_rewriter_work_and_keeps_the_rules_lines_once(tmp_path,
                                                                                                     capsys):
    with FakeOpenAI() as server:
        args = _setup(tmp_path, server, retries=0, max_concurrency=1)
        (tmp_path / "reviews.txt").write_text(LARGE)
        server.rewrites[EVEN] = GOOD_EVEN
        server.always = "500"
        out, cand = tmp_path / "out.jsonl", tmp_path / "cand.jsonl"
        assert main([*args, "--out", str(out)]) == 1
        assert main([*args, "--candidates", "--out", str(cand)]) == 1
        first_out, first_cand = out.read_text(), cand.read_text()
        assert "Sadly," not in first_out + first_cand
        server.always = ""
        capsys.readouterr()
        assert main([*args, "--out", str(out)]) == 0
        err = capsys.readouterr().err
        assert "incomplete" not in err and ", 0 failed" in err
        again = out.read_text().splitlines()
        assert [line for line in again if '"origin": "rewriter"' not in line] == first_out.splitlines()
        assert sum("Sadly, the desserts were bland." in line for line in again) == 1
        # --update on the candidates file of the failed run asks the pending requests, adds only the rewriter's
        assert main([*args, "--update", str(cand)]) == 0
        text = cand.read_text()
        assert text.startswith(first_cand)
        added = [json.loads(line) for line in text[len(first_cand):].splitlines()]
        assert added and all(r["origin"] == "rewriter" for r in added)
        ids = [c.candidate_id for c in parse_candidates(text, "cand.jsonl")]
        assert len(ids) == len(set(ids))
        assert sum(r["status"] == "shipped" for r in added) == 1
        sent = server.requests
        assert main([*args, "--update", str(cand)]) == 0 and cand.read_text() == text and server.requests == sent


@needs_extra("openai")
def test_a_no_answer_candidate_an_older_version_wrote_is_asked_again_by_update(tmp_path, capsys):
    """Files written before failed requests were left out hold "rewriter: no answer" candidates: `--update` asks
    those requests again instead of taking the unit as done."""
    with FakeOpenAI() as server:
        args = [*_setup(tmp_path, server), "--strategies", "revtgt"]
        cand = tmp_path / "cand.jsonl"
        assert main([*args, "--candidates", "--out", str(cand)]) == 0  # EVEN's rewrite declined
        old = [json.loads(line) for line in cand.read_text().splitlines()]
        declined = next(r for r in old if r.get("origin") == "rewriter" and r["sentence"] == EVEN)
        declined["reason"] = f"{rc.NO_ANSWER}: model 'rw': HTTP 500 from {server.base_url}/chat/completions, after 1 tries"
        cand.write_text("".join(json.dumps(r) + "\n" for r in old))
        before = cand.read_text()
        server.rewrites[EVEN] = GOOD_EVEN
        fresh = [*args[:args.index("--cache")], "--cache", str(tmp_path / "fresh"), *args[args.index("--cache") + 2:]]
        assert main([*fresh, "--update", str(cand)]) == 0  # a failed request was never cached
        text = cand.read_text()
        assert text.startswith(before)
        added = [json.loads(line) for line in text[len(before):].splitlines()]
        assert [(r["status"], r["sentence"]) for r in added] == [("shipped", "Sadly, the desserts were bland.")]


@needs_extra("openai")
def test_a_verifier_that_keeps_failing_leaves_the_variant_pending_not_a_disagreement(tmp_path, capsys):
    with FakeOpenAI() as server, FakeOpenAI() as judge:
        args = _setup(tmp_path, server)
        server.rewrites[EVEN] = GOOD_EVEN
        judge.always = "500"
        models = json.loads((tmp_path / "models.yaml").read_text())
        models["models"]["v"] = {"kind": "openai", "base_url": judge.base_url, "model": "judge", "retries": 0,
                                 "max_consecutive_failures": 1}
        (tmp_path / "models.yaml").write_text(json.dumps(models))
        rules = _rules_alone(args)
        assert main([*rules, "--out", str(tmp_path / "rules.jsonl")]) == 0
        capsys.readouterr()
        assert main([*args, "--verifier", "v", "--out", str(tmp_path / "out.jsonl")]) == 1
        err = capsys.readouterr().err
        last = err.strip().splitlines()[-1]
        assert last.startswith("absa-checks: incomplete: the rewriter rw got no answer to 1 of 2 requests (1 x the "
                               "verifier v: model 'v': stopped after 1 failed requests in a row"), last
        assert rc.VERIFIER not in err and "Traceback" not in err
        assert (tmp_path / "out.jsonl").read_text() == (tmp_path / "rules.jsonl").read_text()
        judge.always = "answer:negative"
        assert main([*args, "--verifier", "v", "--out", str(tmp_path / "again.jsonl")]) == 0
        assert "Sadly, the desserts were bland." in (tmp_path / "again.jsonl").read_text()


@needs_extra("openai")
def test_a_key_the_server_echoes_in_its_answer_is_kept_out_of_every_file(tmp_path, capsys, monkeypatch):
    key = "sk-rewriterTestKey0123456789abcdef"
    monkeypatch.setenv("RW_KEY", key)
    with FakeOpenAI() as server:
        args = _setup(tmp_path, server, api_key_env="RW_KEY")
        server.rewrites[EVEN] = f"I cannot do that with key {key}"
        assert main([*args, "--candidates", "--out", str(tmp_path / "cand.jsonl")]) == 0
        assert server.authorizations[-1] == f"Bearer {key}"  # it was sent, where it belongs
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.name.startswith("predictions.sqlite") for p in written)
    for path in written:
        assert key.encode() not in path.read_bytes(), path
    assert key not in capsys.readouterr().err
    assert "I cannot do that with key ***" in (tmp_path / "cand.jsonl").read_text()


MISAPPLIED_EVEN = json.dumps({"edits": [{"start": 23, "end": 32, "old": "delicious", "new": "bland"}],
                              "sentence": "Sadly, the desserts were bland.",
                              "sentiments": [{"aspect": "desserts", "sentiment": "negative"}]})


@needs_extra("openai")
def test_a_refused_answer_goes_back_once_with_the_reason_and_a_mended_one_ships(tmp_path, capsys):
    with FakeOpenAI() as server:
        args = [*_setup(tmp_path, server), "--strategies", "revtgt"]
        server.rewrites[EVEN] = MISAPPLIED_EVEN  # the edits give "Even the desserts were bland.", not the sentence
        server.repairs[EVEN] = GOOD_EVEN
        assert main([*args, "--out", str(tmp_path / "out.jsonl")]) == 0
        err = capsys.readouterr().err
        repair = [b for b in server.bodies if b["messages"][-1]["content"].startswith("Your edit was not accepted")]
        assert len(repair) == 1
        first, turn = repair[0]["messages"][-2:]
        assert first == {"role": "assistant", "content": MISAPPLIED_EVEN}
        assert turn["content"].startswith("Your edit was not accepted: the edits do not give the sentence returned "
                                          "(they give 'Even the desserts were bland.')")
        assert {k: v for k, v in repair[0].items() if k != "messages"} == {
            k: v for k, v in server.bodies[0].items() if k != "messages"}  # the first turn's settings
        llm = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()
               if '"origin": "rewriter"' in line]
        assert [r["sentence"] for r in llm] == ["Sadly, the desserts were bland."]
        assert llm[0]["provenance"]["repair_turn"] == 1
        assert llm[0]["provenance"]["request_key"] == request_key(repair[0])
        assert "revtgt (rewriter): 1 variants" in err
        # a second run sends nothing: both turns come from the cache
        sent = server.requests
        assert main([*args, "--out", str(tmp_path / "again.jsonl")]) == 0
        assert server.requests == sent and (tmp_path / "again.jsonl").read_text() == (tmp_path / "out.jsonl").read_text()


@needs_extra("openai")
def test_no_repair_turn_for_a_refusal_nor_with_repairs_0_and_a_repeated_fault_keeps_its_reason(tmp_path, capsys):
    with FakeOpenAI() as server:
        args = [*_setup(tmp_path, server), "--strategies", "revtgt"]
        server.rewrites[EVEN] = MISAPPLIED_EVEN  # and no repair answer: the model repeats itself
        assert main([*args, "--rewriter-repairs", "0", "--out", str(tmp_path / "none.jsonl")]) == 0
        first = server.requests
        assert first >= 2 and not any(b["messages"][-1]["content"].startswith("Your edit") for b in server.bodies)
        capsys.readouterr()
        assert main([*args, "--out", str(tmp_path / "out.jsonl")]) == 0
        err = capsys.readouterr().err
        assert server.requests == first + 1  # only EVEN's answer went back (the first turns from the cache)
        assert f"quarantined: 1 x {rc.MISAPPLIED}" in err and f"quarantined: 1 x {rc.DECLINED}" in err
        assert main([*args, "--rewriter-repairs", "4", "--out", str(tmp_path / "x.jsonl")]) == 2
        assert "--rewriter-repairs: use a whole number from 0 to 3" in capsys.readouterr().err


@needs_extra("openai")
def test_export_with_a_rewriter_writes_the_repair_turns_its_kept_answers_need_and_a_replay_then_ships(tmp_path,
                                                                                                       capsys):
    """Offline: answer the first turns, run (the repair request is unknown: no answer), export what is pending
    (exactly the repair turn), answer it, run again: the mended variant ships."""
    with FakeOpenAI() as server:
        args = [*_setup(tmp_path, server), "--strategies", "revtgt"]
        server.rewrites[EVEN] = MISAPPLIED_EVEN
        assert main([*args, "--rewriter-repairs", "0", "--out", str(tmp_path / "first.jsonl")]) == 0
        server.faults = ["404"]  # the first turns come from the cache; the repair turn is refused
        assert main([*args, "--out", str(tmp_path / "out.jsonl")]) == 1  # the repair turn is pending
        err = capsys.readouterr().err
        assert f"x {rc.NO_ANSWER}" in err and "got no answer to 1 of 3 requests (1 x HTTP 404)" in err
        assert main([*args, "--export-requests", str(tmp_path / "pending.jsonl")]) == 0
        pending = [json.loads(line) for line in (tmp_path / "pending.jsonl").read_text().splitlines()]
        assert len(pending) == 1
        assert pending[0]["request"]["messages"][-2]["content"] == MISAPPLIED_EVEN
        assert pending[0]["key"] == request_key(pending[0]["request"])
        server.repairs[EVEN] = GOOD_EVEN
        asked = server.requests
        assert main([*args, "--out", str(tmp_path / "again.jsonl")]) == 0
        assert server.requests == asked + 1  # only the pending repair turn was sent
        assert "Sadly, the desserts were bland." in (tmp_path / "again.jsonl").read_text()
        assert main([*args, "--export-requests", str(tmp_path / "none.jsonl")]) == 0
        assert (tmp_path / "none.jsonl").read_text() == ""


def test_the_prompt_in_the_docs_is_the_prompt_sent():
    text = (REPO / "docs" / "served.md").read_text()
    assert rp.SYSTEM in text and rp.REPAIR.split("{")[0] in text


@needs_extra("openai")
def test_revnon_answers_get_their_repair_turn_too_and_none_with_repairs_0(tmp_path, capsys):
    soup = "The soup was cold but the bread was fresh."
    broken = json.dumps({"edits": [{"start": 36, "end": 41, "old": "fresh", "new": "stale"}],
                         "sentence": "The soup was cold and the bread was stale.",
                         "sentiments": [{"aspect": "soup", "sentiment": "negative"},
                                        {"aspect": "bread", "sentiment": "negative"}]})
    with FakeOpenAI() as server:
        args = [*_setup(tmp_path, server), "--strategies", "revnon", "--rewriter-all"]
        server.rewrites[soup] = broken  # the edit gives "... but the bread was stale.", not the sentence returned
        repairs = lambda: [b for b in server.bodies  # noqa: E731
                           if b["messages"][-1]["content"].startswith("Your edit was not accepted")]
        assert main([*args, "--rewriter-repairs", "0", "--out", str(tmp_path / "none.jsonl")]) == 0
        assert repairs() == [] and f"x {rc.MISAPPLIED}" in capsys.readouterr().err
        assert main([*args, "--out", str(tmp_path / "default.jsonl")]) == 0
        assert len(repairs()) == 2  # the sentence's two units (soup, bread), each answer sent back once
        assert all("Task: REVNON" in b["messages"][-3]["content"] for b in repairs())
