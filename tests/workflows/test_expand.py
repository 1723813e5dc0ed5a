"""`absa-checks expand` (issue 38): the workflow with an in-process endpoint, every fault of a real one against
the local fake OpenAI server (tests/openai_server.py), and the replay of the recorded answers, which reproduces the
shipped expanded gold byte for byte."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from openai_server import FakeOpenAI

from absa_checks.cli import main
from absa_checks.common.llm_requests import read_answers, request_key
from absa_checks.common.tuples import AnnotatedSentence, AspectTuple
from absa_checks.expansion import checks, prompt
from absa_checks.models.cache import PredictionCache
from absa_checks.models.protocol import QueryError
from absa_checks.sources.expanded_gold import read
from absa_checks.workflows import expand
from conftest import REPO, SHARED_DATA, needs_extra

SENTENCE = "The grilled salmon was n't worth the price , but our waiter was really friendly ."
GOLD = (AspectTuple("grilled salmon", "negative", opinion="n't worth", category="food prices"),
        AspectTuple("waiter", "positive", opinion="really friendly", category="service general"))
ZOOM_IN = json.dumps({"quads": [{"quad": 1, "aspect": [], "opinion": [{"term": "not worth", "span": "n't worth"},
                                                                     {"term": "worth", "span": "worth"}]},
                                {"quad": 2, "aspect": [], "opinion": [{"term": "friendly", "span": "friendly"}]}]})
ZOOM_OUT = json.dumps({"quads": [{"quad": 1, "aspect": [{"term": "The grilled salmon", "span": "The grilled salmon"},
                                                        {"term": "the smoked salmon", "span": "the smoked salmon"}],
                                  "opinion": []},
                                 {"quad": 2, "aspect": [{"term": "our waiter", "span": "our waiter"}], "opinion": []}]})
# JUDGE sees: The grilled salmon, our waiter (zoom-out), not worth, friendly (zoom-in: ZOOM-IN's first)
JUDGE = json.dumps({"verdicts": [{"candidate": 1, "reason": "same", "valid": True},
                                 {"candidate": 2, "reason": "same", "valid": True},
                                 {"candidate": 3, "reason": "same dish", "valid": True},
                                 {"candidate": 4, "reason": "same", "valid": False}]})


class Endpoint:
    """An entry of kind openai in process: each body answered by `reply(step, body)` (a text or a QueryError)."""

    def __init__(self, reply):
        self.reply, self.asked, self.base_url, self.model = reply, [], "http://127.0.0.1:9/v1", "expander"
        self.temperature, self.seed, self.max_tokens, self.shown_base_url = 0.0, 0, None, self.base_url

    def complete(self, bodies):
        self.asked += bodies
        return [self.reply(prompt.step_of(b), b) for b in bodies]

    def hide(self, text):
        return text


def _expander(endpoint) -> expand.Expander:
    return expand.Expander("stand-in", endpoint, prompt.ExpanderSettings())


def _answers(step, body):
    return {"zoom-in": ZOOM_IN, "zoom-out": ZOOM_OUT, "judge": JUDGE}[step]


SENTENCES = [AnnotatedSentence("s-1", SENTENCE, GOLD), AnnotatedSentence("s-2", "its alright",
                                                                         (AspectTuple("", "neutral", opinion=""),))]


def test_expand_checks_every_form_asks_judge_once_per_sentence_and_keeps_what_it_accepts(tmp_path):
    endpoint = Endpoint(_answers)
    done = expand.expand("toy", SENTENCES, _expander(endpoint), PredictionCache(tmp_path / "cache"))
    assert [prompt.step_of(b) for b in endpoint.asked] == ["zoom-in", "zoom-out", "judge"]  # s-2 has no term: not asked
    judge = endpoint.asked[-1]["messages"][-1]["content"]
    assert '1. quad 1, opinion (gold "n\'t worth"): "not worth"' in judge
    assert '"worth"' not in judge.split("Candidates:")[1]
    outcome = done.outcomes["s-1"]
    assert [(c.quad, c.field, c.term, c.step) for c in outcome.accepted] == [
        (0, "opinion", "not worth", "zoom-in"), (1, "opinion", "friendly", "zoom-in"),
        (0, "aspect", "The grilled salmon", "zoom-out")]
    assert done.tally == Counter({("zoom-in", checks.REJECT_NEGATION): 1,
                                  ("zoom-out", checks.REJECT_NOT_IN_SENTENCE): 1,
                                  ("judge", checks.REJECT_JUDGE): 1})
    assert outcome.status == "expanded" and done.outcomes["s-2"].status == "nothing to expand"
    assert (done.sent, done.cached, done.incomplete("stand-in", "there")) == (3, 0, None)
    text = expand.file_text(done, _expander(endpoint), "d" * 64)
    lines = [json.loads(line) for line in text.splitlines()]
    assert lines[0]["expanded_gold"] == 1 and lines[0]["accepted_opinion_forms"] == 2
    assert lines[1] == {"id": "s-1", "sha256": lines[1]["sha256"], "quad": 0,
                        "aspect": [{"term": "The grilled salmon", "step": "zoom-out"}],
                        "opinion": [{"term": "not worth", "step": "zoom-in"}],
                        "provenance": {"status": "expanded", "zoom-in": request_key(endpoint.asked[0]),
                                       "zoom-out": request_key(endpoint.asked[1]),
                                       "judge": request_key(endpoint.asked[2])}}
    # read back: the sentences get their alternatives, in quad order
    (tmp_path / "x.jsonl").write_text(text)
    back = read(SENTENCES, tmp_path / "x.jsonl")
    assert back[0].alternatives(0, "aspect") == ("The grilled salmon",) and back[0].alternatives(1, "opinion") == \
        ("friendly",)
    # a second run asks nothing and writes the same bytes
    again = Endpoint(_answers)
    second = expand.expand("toy", SENTENCES, _expander(again), PredictionCache(tmp_path / "cache"))
    assert again.asked == [] and second.cached == 3
    assert expand.file_text(second, _expander(again), "d" * 64) == text


@pytest.mark.parametrize("fault, said", [
    (QueryError("timed out after 1 s", reason="timeout"), "zoom-out: timeout"),
    ("I'm sorry, but I can't help with that.", "zoom-out: malformed answer (not a JSON object)"),
    ('{"quads": [{"quad": 1, "aspect": "salmon"}]}', 'zoom-out: malformed answer (quad 1: "aspect" is not a list)'),
])
def test_a_failed_or_malformed_answer_leaves_its_sentence_incomplete_and_nothing_else(tmp_path, fault, said):
    endpoint = Endpoint(lambda step, body: fault if step == "zoom-out" else _answers(step, body))
    done = expand.expand("toy", SENTENCES, _expander(endpoint), PredictionCache(tmp_path / "cache"))
    outcome = done.outcomes["s-1"]
    assert outcome.status == f"incomplete: {said}"
    # ZOOM-IN's forms are still judged (the judge answer covers four; only two are asked: two verdicts count)
    assert [c.term for c in outcome.candidates] == ["not worth", "friendly"]
    line = done.incomplete("stand-in", "http://127.0.0.1:9/v1")
    assert line.startswith("incomplete: 1 of 2 sentences of toy are not fully expanded (1 x ")
    assert "only the requests without an answer are asked again (exit status 1)" in line
    head = json.loads(expand.file_text(done, _expander(endpoint), "").splitlines()[0])
    assert head["incomplete_sentences"] == 1
    # the failed or malformed answer is not kept: the next run asks that request again, and only it
    again = Endpoint(_answers)
    second = expand.expand("toy", SENTENCES, _expander(again), PredictionCache(tmp_path / "cache"))
    assert [prompt.step_of(b) for b in again.asked] == ["zoom-out", "judge"]  # judge: its candidate list grew
    assert second.outcomes["s-1"].status == "expanded"


def test_a_judge_answer_that_fails_accepts_nothing(tmp_path):
    endpoint = Endpoint(lambda step, body: "no" if step == "judge" else _answers(step, body))
    done = expand.expand("toy", SENTENCES, _expander(endpoint), None)
    outcome = done.outcomes["s-1"]
    assert outcome.accepted == () and outcome.status.startswith("incomplete: judge: malformed")
    assert done.failures == Counter({"malformed answer": 1})


def test_pending_is_the_zoom_requests_then_judge_once_their_answers_are_kept(tmp_path):
    cache = PredictionCache(tmp_path / "cache")
    expander = _expander(Endpoint(_answers))
    first = expand.pending(SENTENCES, expander, cache)
    assert [prompt.step_of(b) for b in first] == ["zoom-in", "zoom-out"]
    assert expand.export_all(SENTENCES, prompt.ExpanderSettings()).count("\n") == 2
    expand.expand("toy", SENTENCES, _expander(Endpoint(lambda step, body: QueryError("down", reason="HTTP 503")
                                                       if step == "judge" else _answers(step, body))), cache)
    assert [prompt.step_of(b) for b in expand.pending(SENTENCES, expander, cache)] == ["judge"]


# ---------------------------------------------------------------- through the CLI, against the fake server

ASQP = "Gross food – Wow -####[['food', 'food quality', 'negative', 'Gross']]\n" \
       "The waiter was n't friendly .####[['waiter', 'service general', 'negative', \"n't friendly\"]]\n"


def _project(tmp_path: Path, server: FakeOpenAI, **settings) -> list[str]:
    (tmp_path / "data/asqp/rest15").mkdir(parents=True)
    (tmp_path / "data/asqp/rest15/test.txt").write_text(ASQP)
    entry = {"kind": "openai", "base_url": server.base_url, "model": "expander", "backoff": 0, "retries": 0,
             **settings}
    (tmp_path / "models.yaml").write_text(json.dumps({"models": {"ex": entry}}))
    return ["expand", "--source", "asqp-rest15", "--data", str(tmp_path / "data"), "--expander", "ex",
            "--models-file", str(tmp_path / "models.yaml"), "--cache", str(tmp_path / "cache")]


def _zoom(aspect=(), opinion=()):
    return json.dumps({"quads": [{"quad": 1, "aspect": [{"term": t, "span": s} for t, s in aspect],
                                  "opinion": [{"term": t, "span": s} for t, s in opinion]}]})


@needs_extra("openai")
def test_expand_against_an_endpoint_refusing_answering_badly_and_timing_out(tmp_path, capsys, monkeypatch):
    key = "sk-expander-0123456789abcdefghij"
    monkeypatch.setenv("EXPANDER_KEY", key)
    with FakeOpenAI() as server:
        args = _project(tmp_path, server, timeout=1, api_key_env="EXPANDER_KEY")
        waiter = "The waiter was n't friendly ."
        server.expansions[("zoom-in", waiter)] = _zoom(opinion=[("not friendly", "n't friendly"),
                                                                ("friendly", "friendly")])     # negation dropped
        server.expansions[("zoom-out", waiter)] = _zoom(aspect=[("The waiter", "The waiter"),
                                                                ("the waitress", "the waitress")])  # not in it
        server.expansions[("judge", waiter)] = json.dumps({"verdicts": [
            {"candidate": 1, "reason": "written out", "valid": True}, {"candidate": 2, "reason": "d", "valid": True}]})
        server.expansions[("zoom-in", "Gross food – Wow -")] = "{not json"   # malformed JSON
        # zoom-out of the first sentence: no answer set, so the fake refuses ("I can't help with that")
        out = tmp_path / "rest15.expanded.jsonl"
        assert main([*args, "--out", str(out)]) == 1
        err = capsys.readouterr().err
        assert "rejected: 1 x drops or adds a negation of the gold opinion (zoom-in)" in err
        assert "rejected: 1 x its span is not words of the sentence (zoom-out)" in err
        assert "incomplete: 1 of 2 sentences of asqp-rest15 are not fully expanded (2 x malformed answer)" in err
        # the key went in the Authorization header and nowhere else
        assert server.authorizations and all(key in a for a in server.authorizations)
        assert key not in err and key not in out.read_text()
        lines = [json.loads(line) for line in out.read_text().splitlines()]
        assert lines[1]["provenance"]["status"] == ("incomplete: zoom-in: malformed answer (not a JSON object); "
                                                     "zoom-out: malformed answer (not a JSON object)")
        assert lines[2]["aspect"] == [{"term": "The waiter", "step": "zoom-out"}]
        assert lines[2]["opinion"] == [{"term": "not friendly", "step": "zoom-in"}]
        # a timeout: the request fails (nothing kept), the run says so; the answers had come from the cache
        (tmp_path / "cache2").mkdir()
        server.always = "hang"
        server.hang_seconds = 5
        again = [*args[:-1], str(tmp_path / "cache2"), "--out", str(tmp_path / "again.jsonl")]
        assert main(again) == 1
        err = capsys.readouterr().err
        assert "incomplete: 2 of 2 sentences" in err and "timeout" in err.lower()
        server.always = ""
        # what --export-requests writes (nothing asked) is what went over the wire
        asked = server.requests
        assert main([*args[:-2], "--export-requests", str(tmp_path / "req.jsonl")]) == 0
        assert server.requests == asked
        exported = {json.loads(line)["key"] for line in (tmp_path / "req.jsonl").read_text().splitlines()}
        assert exported <= {request_key(b) for b in server.bodies} and len(exported) == 4


def test_expand_refuses_what_it_cannot_do_in_one_line(tmp_path, capsys):
    assert main(["expand", "--source", "asqp-rest15", "--out", str(tmp_path / "x.jsonl")]) == 2
    assert "--out: expanding asks an LLM; name it with --expander NAME" in capsys.readouterr().err
    assert main(["expand", "--source", "asqp-rest15", "--cache", "c", "--export-requests", "r.jsonl"]) == 2
    assert "--cache: only used with --expander NAME" in capsys.readouterr().err
    assert main(["expand", "--source", "asqp-rest15", "--data", str(tmp_path), "--export-requests",
                 str(tmp_path / "r.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "--source asqp-rest15:" in err and "Traceback" not in err and not (tmp_path / "r.jsonl").exists()


# ---------------------------------------------------------------- the shipped files, replayed

needs_asqp = pytest.mark.skipif(not (SHARED_DATA / "asqp/rest15/test.txt").is_file(),
                                reason=f"the ASQP test sets are not at {SHARED_DATA}/asqp; put the project's shared/ "
                                       "folder beside the checkout or set ABSA_SHARED_DIR")


@needs_asqp
@pytest.mark.parametrize("source", ["asqp-rest15", "asqp-rest16"])
def test_replaying_the_recorded_answers_makes_the_shipped_file_byte_for_byte(source):
    """benchmarks/recorded/expansion/answers.jsonl answered in process (the HTTP path: benchmarks/quality/
    expanded_gold.py run --check, through serve-replay)."""
    from absa_checks.common.fingerprint import sha256_of_file
    from absa_checks.sources.gold_sources import GOLD_SOURCES, load_gold

    recorded = read_answers(REPO / "benchmarks/recorded/expansion/answers.jsonl")
    endpoint = Endpoint(lambda step, body: recorded[request_key(body)].content)
    done = expand.expand(source, load_gold(source, SHARED_DATA), _expander(endpoint), None)
    text = expand.file_text(done, _expander(endpoint), sha256_of_file(SHARED_DATA / GOLD_SOURCES[source].relative_path))
    assert done.incomplete_sentences == 0
    assert text == (REPO / "suites/extraction/expanded" / f"{source}.expanded.jsonl").read_text(encoding="utf-8")
