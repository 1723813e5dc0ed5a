"""Models that find the aspects themselves: the tagger's decoding, its scores against an independent
computation from the raw SemEval XML, behavioural suites on it (target not found is its own outcome),
and a replay of stored outputs giving the same numbers as the live model."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from absa_checks.common.tuples import AspectTuple
from absa_checks.models.tagging import decode
from conftest import MODELS, SHARED_DATA, needs_extra, needs_shared_data

E2E = MODELS / "minilm-absa-e2e-rest"
needs_e2e = pytest.mark.skipif(not (E2E / "config.json").is_file(), reason=f"the end-to-end checkpoint is not at {E2E}")


def test_decoding_runs_of_tags_into_aspects():
    sentence = "The fish tacos were great but the wine list is short."
    # pieces: The fish tac ##os were great but the wine list is short .
    offsets = [(0, 0), (0, 3), (4, 8), (9, 12), (12, 14), (15, 19), (20, 25), (26, 29), (30, 33), (34, 38), (39, 43),
               (44, 46), (47, 52), (52, 53), (0, 0)]
    tags = ["O", "O", "B-positive", "I-positive", "I-neutral", "O", "O", "O", "O", "B-negative", "I-NEG", "O", "O",
            "O", "O"]
    assert decode(sentence, offsets, tags) == [AspectTuple("fish tacos", "positive", 4, 14),
                                               AspectTuple("wine list", "negative", 34, 43)]
    # a B inside a run starts a new aspect; an I after O starts one; a gap of more than one space splits
    assert [t.aspect for t in decode("ab cd", [(0, 2), (3, 5)], ["B-positive", "B-positive"])] == ["ab", "cd"]
    assert [t.aspect for t in decode("ab cd", [(0, 2), (3, 5)], ["O", "I-negative"])] == ["cd"]
    assert [t.aspect for t in decode("ab  cd", [(0, 2), (4, 6)], ["B-positive", "I-positive"])] == ["ab", "cd"]
    with pytest.raises(ValueError, match="not a unified BIO tag"):
        decode("ab", [(0, 2)], ["ASPECT"])


@needs_extra("transformers")
@needs_e2e
@needs_shared_data
@pytest.mark.slow
def test_the_extraction_suite_reports_the_strict_pair_f1_an_independent_computation_gives(run):
    """`pytest suites/extraction` with the tagger: its strict (aspect, polarity) F1 on SemEval-2014
    restaurant equals one computed here from the raw XML, and the checkpoint README's 68.96."""
    from model_adapters.transformers_tagger import TransformersTagger

    result = run(["suites/extraction/quality.yaml", "--absa-model", f"transformers-tagger:{E2E}", "--absa-data",
                  str(SHARED_DATA), "--absa-sources", "semeval14-restaurant", "--absa-no-cache"])
    found = result.report["extraction"]["semeval14-restaurant"]
    # independently: the XML read here, the tagger asked here, exact (from, to, polarity) sets
    xml = SHARED_DATA / "semeval2014" / "Restaurants_Test_Gold.xml"
    sentences = list(ET.parse(xml).getroot().iter("sentence"))
    tagger = TransformersTagger("bert-e2e", str(E2E))
    gold = found_n = tp = 0
    for first in range(0, len(sentences), 64):
        batch = sentences[first:first + 64]
        for sentence, predicted in zip(batch, tagger.extract([s.findtext("text") for s in batch])):
            wanted = {(int(a.get("from")), int(a.get("to")), a.get("polarity")) for a in sentence.iter("aspectTerm")
                      if a.get("polarity") != "conflict"}
            got = {(p.start, p.end, p.polarity) for p in predicted}
            gold, found_n, tp = gold + len(wanted), found_n + len(got), tp + len(wanted & got)
    assert (gold, found_n) == (1120, 1180)
    f1 = found["pair"]["strict"]["f1"]
    assert (f1["k"], f1["n"]) == (2 * tp, gold + found_n)
    assert round(100 * f1["value"], 2) == round(100 * 2 * tp / (gold + found_n), 2) == 68.96
    assert round(100 * found["aspect"]["strict"]["f1"]["value"], 2) == 84.26  # the checkpoint's README
    flexible = found["pair"]["flexible"]["f1"]
    assert flexible["value"] > f1["value"] and flexible["ci95"][0] < flexible["value"] < flexible["ci95"][1]
    assert set(found["pair"]["strict"]) == {"f1", "precision", "recall"} and "triplet" not in found
    assert "strict F1 [95% CI]" in result.summary and "semeval14-restaurant  pair" in result.summary


@needs_shared_data
def test_extraction_gates_and_text_answers_from_stored_outputs(tmp_path, run):
    """A replay of stored text answers (the gold quads of ASQP rest15 as ASQP paraphrases, every tenth
    sentence answered with nothing): all four levels scored, and F1 gates decided like the others."""
    from absa_checks.sources.gold import asqp_sentences

    sentences = asqp_sentences(SHARED_DATA / "asqp" / "rest15" / "test.txt")
    sentiment = {"positive": "great", "negative": "bad", "neutral": "ok"}
    with (tmp_path / "out.jsonl").open("w", encoding="utf-8") as out:
        for n, s in enumerate(sentences):
            text = " [SSEP] ".join(f"{g.category} is {sentiment[g.polarity]} because {g.aspect or 'it'} is "
                                   f"{g.opinion or 'it'}" for g in s.gold) if n % 10 else "none"
            out.write(json.dumps({"sentence": s.sentence, "text": text}) + "\n")
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "suite.yaml").write_text("suite: x\ntests:\n  - name: extraction\n    task: extraction\n"
                                         "    sources: [asqp-rest15]\n    gates: {min_quad_f1: 0.97, "
                                         "min_pair_f1_flexible: 0.5}\n")
    result = run(["suite.yaml", "--absa-model", "extraction-replay:out.jsonl", "--absa-data", str(SHARED_DATA)],
                 cwd=tmp_path)
    found = result.report["extraction"]["asqp-rest15"]
    assert set(found) >= {"aspect", "pair", "triplet", "quad"} and found["sentences"] == len(sentences)
    recall = found["quad"]["strict"]["recall"]["value"]
    assert found["quad"]["strict"]["precision"]["value"] == 1.0 and 0.85 < recall < 0.95  # a tenth unanswered
    gates = {g["gate"]: g for g in result.report["gates"]}
    assert gates["min_quad_f1"]["verdict"] == "fail" and gates["min_pair_f1_flexible"]["verdict"] == "pass"
    assert result.code == 1 and "quad F1" in gates["min_quad_f1"]["reason"]


@needs_extra("transformers")
@needs_e2e
@needs_shared_data
@pytest.mark.slow
def test_behavioural_suites_on_an_extraction_model_and_its_replay_agree(tmp_path, run):
    args = ["suites/invariance/revnon.yaml", "suites/directional/revtgt.yaml", "suites/invariance/adddiff.yaml",
            "suites/extraction/quality.yaml", "--absa-sources", "builtin-restaurant,asqp-rest16", "--absa-sample", "80",
            "--absa-no-cache", "--absa-data", str(SHARED_DATA)]
    live = run([*args, "--absa-model", f"transformers-tagger:{E2E}"])
    assert live.report["summary"]["not_found"] > 0, live.out[-3000:]
    strategy = live.report["sources"]["builtin-restaurant"]["strategies"]["adddiff"]
    assert {"not_found_rate", "fail_rate"} <= set(strategy)
    assert "not found [95% CI]" in live.summary
    not_found = [c for c in live.report["cases"] if c["status"] == "not-found"]
    assert not_found and all("not among the aspects found" in c["reason"] for c in not_found)
    # the stored outputs of every sentence the run asked about, replayed: the same numbers
    from absa_checks.sources.gold_sources import load_gold
    from model_adapters.transformers_tagger import TransformersTagger

    sentences = sorted({c[side]["sentence"] for c in live.report["cases"] for side in ("original", "variant")}
                       | {s.sentence for s in load_gold("asqp-rest16", SHARED_DATA)})
    tagger = TransformersTagger("e2e", str(E2E))
    stored = tmp_path / "outputs.jsonl"
    with stored.open("w", encoding="utf-8") as out:
        for first in range(0, len(sentences), 64):
            batch = sentences[first:first + 64]
            for sentence, found in zip(batch, tagger.extract(batch)):
                out.write(json.dumps({"sentence": sentence, "aspects": [t.__dict__ for t in found]}) + "\n")
    replayed = run([*args, "--absa-model", f"extraction-replay:{stored}"])
    assert replayed.report["sources"] == live.report["sources"]
    assert replayed.report["extraction"] == {"asqp-rest16": {**live.report["extraction"]["asqp-rest16"],
                                                             "model": f"extraction-replay:{stored}"}}
    assert replayed.report["summary"] == live.report["summary"]
    assert [g["verdict"] for g in replayed.report["gates"]] == [g["verdict"] for g in live.report["gates"]]


SUITE = """
suite: text
sources:
  tiny:
    examples:
      - id: a
        sentence: "The fries were soggy."
        aspect: fries
        polarity: negative
        variants:
          adddiff: "The fries were soggy, but the beer was great."
      - id: b
        sentence: "The staff was kind."
        aspect: staff
        polarity: positive
        variants:
          adddiff: "The staff was kind, but the room was dirty."
tests:
  - name: adddiff
    strategy: adddiff
    sources: [tiny]
"""


def test_unreadable_text_answers_are_errors_of_their_cases_never_a_crash(tmp_path, run):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "suite.yaml").write_text(SUITE)
    outputs = [
        {"sentence": "The fries were soggy.", "text": "fries: negative"},
        {"sentence": "The fries were soggy, but the beer was great.", "text": '[{"aspect": "fries", "polarity": "neg"},'
                                                                              ' {"aspect": "beer", "polarity": "pos"}]'},
        {"sentence": "The staff was kind.", "text": "staff: delightful"},
        {"sentence": "The staff was kind, but the room was dirty.", "text": '[{"aspect": "staff"'},
    ]
    (tmp_path / "out.jsonl").write_text("".join(json.dumps(o) + "\n" for o in outputs))
    result = run(["suite.yaml", "--absa-model", "extraction-replay:out.jsonl"], cwd=tmp_path)
    assert result.code == 1 and "Traceback" not in result.out
    cases = {c["unit"]: c for c in result.report["cases"]}
    assert cases["a"]["status"] == "passed"
    assert cases["b"]["status"] == "error" and "'delightful' is not a polarity" in cases["b"]["reason"]
    assert "1 cases had no prediction" in result.report["verdict"]["reason"]


@needs_shared_data
def test_an_expanded_ground_truth_counts_the_forms_readers_accepted(tmp_path, run):
    """`gold: {expanded: FILE}` (or the older `expanded:` per source): the accepted alternatives count under
    expanded matching, never under strict nor under flexible (the rules score on their own)."""
    from absa_checks.sources.gold import asqp_sentences

    sentences = asqp_sentences(SHARED_DATA / "asqp" / "rest15" / "test.txt")
    first = sentences[0]
    assert [g.aspect for g in first.gold] == ["food"]
    with (tmp_path / "out.jsonl").open("w", encoding="utf-8") as out:
        for s in sentences:
            aspects = [{"aspect": "meal" if s is first else g.aspect, "polarity": g.polarity} for g in s.gold]
            out.write(json.dumps({"sentence": s.sentence, "aspects": aspects}) + "\n")
    (tmp_path / "accepted.jsonl").write_text(json.dumps({"id": first.sentence_id, "tuples": [{"aspect": ["meal"]}]})
                                             + "\n")
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    suite = "suite: x\ntests:\n  - name: extraction\n    task: extraction\n    sources: [asqp-rest15]\n"

    def pair_tp(text: str) -> tuple[int, int, int | None]:
        (tmp_path / "suite.yaml").write_text(text)
        found = run(["suite.yaml", "--absa-model", "extraction-replay:out.jsonl", "--absa-data", str(SHARED_DATA)],
                    cwd=tmp_path).report["extraction"]["asqp-rest15"]["pair"]
        expanded = found["expanded"]["f1"]["k"] if "expanded" in found else None
        return found["strict"]["f1"]["k"], found["flexible"]["f1"]["k"], expanded

    strict, flexible, none = pair_tp(suite)
    assert none is None  # no expanded gold: no expanded score
    for given in ("    expanded: {asqp-rest15: accepted.jsonl}\n", "    gold: {expanded: accepted.jsonl}\n"):
        assert pair_tp(suite + given) == (strict, flexible, strict + 2)  # k = 2 TP: one more true positive
    # every report format shows it beside strict and flexible: the terminal, Markdown and Allure's summary tables
    shown = run(["suite.yaml", "--absa-model", "extraction-replay:out.jsonl", "--absa-data", str(SHARED_DATA),
                 "--absa-markdown", "summary.md"], cwd=tmp_path)
    assert "expanded F1 [95% CI]" in shown.out and "expanded F1 [95% CI]" in (tmp_path / "summary.md").read_text()
    (tmp_path / "accepted.jsonl").write_text('{"id": "rest15-1", "tuples": []}\n')
    (tmp_path / "suite.yaml").write_text(suite + "    expanded: {asqp-rest15: accepted.jsonl}\n")
    broken = run(["suite.yaml", "--absa-model", "extraction-replay:out.jsonl", "--absa-data", str(SHARED_DATA)],
                 cwd=tmp_path)
    assert "accepted.jsonl:1: sentence rest15-1 has 1 gold tuples, the line gives alternatives for 0" in broken.out


@needs_extra("transformers")
@needs_e2e
@pytest.mark.slow
def test_an_extraction_models_answers_are_cached_per_sentence(tmp_path, run):
    args = ["suites/invariance/adddiff.yaml", "--absa-sources", "builtin-restaurant", "--absa-sample", "20",
            "--absa-model", f"transformers-tagger:{E2E}", "--absa-cache", str(tmp_path / "cache")]
    cold, warm = run(args), run(args)
    first, second = cold.report["timing"]["predictions"], warm.report["timing"]["predictions"]
    assert first["model_loaded"] and first["cache_hits"] == 0 and first["predicted"] == first["unique_queries"] > 20
    assert not second["model_loaded"] and second["cache_hits"] == second["unique_queries"] == first["unique_queries"]
    assert warm.report["sources"] == cold.report["sources"]


@pytest.mark.parametrize("offsets, field", [
    ({"start": "x", "end": 9}, "'start' is 'x', not a character offset (a whole number from 0 to 19"),
    ({"start": -1, "end": 9}, "'start' is -1, outside the sentence (0 to 19"),
    ({"start": 4.0, "end": 9}, "'start' is 4.0, not a character offset"),
    ({"start": 4, "end": 90}, "'end' is 90, outside the sentence (0 to 19"),
    ({"start": 9, "end": 4}, "'start' 9 is after 'end' 4"),
])
def test_a_malformed_offset_in_a_replay_line_errors_that_lines_cases_only(tmp_path, run, offsets, field):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "suite.yaml").write_text(SUITE)
    outputs = [
        {"sentence": "The fries were soggy.", "aspects": [{"aspect": "fries", "polarity": "negative", "start": 4,
                                                           "end": 9}]},
        {"sentence": "The fries were soggy, but the beer was great.",
         "aspects": [{"aspect": "fries", "polarity": "negative"}, {"aspect": "beer", "polarity": "positive"}]},
        {"sentence": "The staff was kind.", "aspects": [{"aspect": "staff", "polarity": "positive", **offsets}]},
        {"sentence": "The staff was kind, but the room was dirty.",
         "aspects": [{"aspect": "staff", "polarity": "positive"}, {"aspect": "room", "polarity": "negative"}]},
    ]
    (tmp_path / "out.jsonl").write_text("".join(json.dumps(o) + "\n" for o in outputs))
    result = run(["suite.yaml", "--absa-model", "extraction-replay:out.jsonl"], cwd=tmp_path)
    assert result.report is not None and "Traceback" not in result.out, result.out[-3000:]
    cases = {c["unit"]: c for c in result.report["cases"]}
    assert cases["a"]["status"] == "passed"  # the other lines' cases are unaffected
    assert cases["b"]["status"] == "error", cases["b"]
    assert "out.jsonl:3: aspect 1 ('staff'): " + field in cases["b"]["reason"]
    assert result.code == 1 and "1 cases had no prediction" in result.report["verdict"]["reason"]


@pytest.mark.parametrize("indent", [None, 2], ids=["one-line", "pretty-printed"])
def test_a_replay_file_that_is_one_json_array_says_so_and_how_to_write_json_lines(tmp_path, indent):
    """It used to say "arr.jsonl:1: each line needs 'sentence'" though line 1 held the sentences, inside the
    array (issue 35, probe 34)."""
    from absa_checks.common.errors import AdapterError
    from model_adapters.extraction_replay import ExtractionReplay

    path = tmp_path / "arr.jsonl"
    path.write_text(json.dumps([{"sentence": "The fries were soggy.",
                                 "aspects": [{"aspect": "fries", "polarity": "negative"}]}], indent=indent) + "\n")
    with pytest.raises(AdapterError) as err:
        ExtractionReplay("extraction-replay:arr.jsonl", path)
    assert str(err.value).startswith(f"model 'extraction-replay:arr.jsonl': {path}:1: a JSON array, not one object "
                                     "per line (JSON Lines); write each object on its own line, e.g. {")
