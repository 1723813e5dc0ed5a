"""The expanded-gold file (absa_checks.sources.expanded_gold): read line by line against the user's copy of the
data, every mistake one message naming the file and line."""

from __future__ import annotations

import json

import pytest

from absa_checks.common.errors import DataError
from absa_checks.common.tuples import AnnotatedSentence, AspectTuple
from absa_checks.sources import expanded_gold as eg

SENTENCES = [AnnotatedSentence("r-1", "great pizza , rude waiter", (AspectTuple("pizza", "positive", opinion="great"),
                                                                     AspectTuple("waiter", "negative", opinion="rude"))),
             AnnotatedSentence("r-2", "fine", (AspectTuple("", "neutral", opinion="fine"),))]


def _line(quad=0, **more):
    return eg.line({"id": "r-1", "sha256": eg.sentence_sha256(SENTENCES[0].sentence), "quad": quad,
                    "aspect": [{"term": "the pizza", "step": "zoom-out"}], "opinion": [], **more})


def test_each_quads_line_gives_its_alternatives_and_other_sentences_keep_none(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text(eg.line(eg.header("toy", model="m")) + _line(0) + _line(1, aspect=["our waiter"],
                                                                          opinion=[{"term": "very rude"}]))
    found = eg.read(SENTENCES, path)
    assert found[0].alternatives(0, "aspect") == ("the pizza",) and found[0].alternatives(1, "aspect") == ("our waiter",)
    assert found[0].alternatives(1, "opinion") == ("very rude",) and found[0].alternatives(0, "opinion") == ()
    assert found[1] == SENTENCES[1]


def test_the_older_one_line_per_sentence_form_is_read_too(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text(json.dumps({"id": "r-1", "tuples": [{"aspect": ["the pizza"]}, {"opinion": ["so rude"]}]}) + "\n")
    found = eg.read(SENTENCES, path)
    assert found[0].aspect_alternatives == (("the pizza",), ()) and found[0].opinion_alternatives == ((), ("so rude",))


@pytest.mark.parametrize("text, said", [
    (_line(sha256="0" * 64), "x.jsonl:1: sentence r-1 is not the sentence this file was made from"),
    (_line(quad=2), "x.jsonl:1: quad 2: sentence r-1 has gold quads 0-1"),
    (_line(quad=True), "x.jsonl:1: quad True"),
    (_line(id="r-9"), "x.jsonl:1: no sentence with id 'r-9' in the gold data"),
    ('{"id": "r-1", "quad": 0\n', "x.jsonl:1: not JSON"),
    ("[1]\n", "x.jsonl:1: not a JSON object"),
    (_line(aspect="the pizza"), "x.jsonl:1: aspect: not a list of accepted forms"),
    (_line(opinion=[{"term": ""}]), "x.jsonl:1: opinion: each accepted form is text"),
    ('{"expanded_gold": 2}\n', "x.jsonl:1: expanded_gold format 2 is not 1"),
    ('{"id": "r-1", "tuples": [{}]}\n', "x.jsonl:1: sentence r-1 has 2 gold tuples, the line gives alternatives for 1"),
])
def test_a_mistake_is_one_message_naming_the_line(tmp_path, text, said):
    path = tmp_path / "x.jsonl"
    path.write_text(text)
    with pytest.raises(DataError) as caught:
        eg.read(SENTENCES, path)
    assert said in str(caught.value)


def test_lines_are_the_same_bytes_for_the_same_rows():
    row = {"b": 1, "a": ["é"]}
    assert eg.line(row) == eg.line(dict(reversed(list(row.items())))) == '{"a": ["é"], "b": 1}\n'
