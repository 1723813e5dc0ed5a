"""SemEval-2014 and MAMS loaders, TOWE opinion joins (ARTS JSON and TOWE TSV), opinion inference."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from absa_checks.common.examples import Aspect
from absa_checks.sources import BUILTIN_SOURCES, load_dataset
from absa_checks.sources.infer import infer_opinions
from absa_checks.sources.mams import load_mams
from absa_checks.sources.semeval import load_semeval, read_semeval_xml
from absa_checks.sources.towe import align_tokens
from conftest import SHARED_DATA, needs_shared_data

# ------------------------------------------------------------------------------------------ helpers


def write_xml(path: Path, sentences: list[tuple[str | None, str, list[tuple[str, str, int, int]]]]) -> Path:
    """sentences: (id or None, text, [(term, polarity, from, to), ...])."""
    root = ET.Element("sentences")
    for sentence_id, text, aspects in sentences:
        node = ET.SubElement(root, "sentence", {"id": sentence_id} if sentence_id else {})
        ET.SubElement(node, "text").text = text
        if aspects:
            terms = ET.SubElement(node, "aspectTerms")
            for term, polarity, start, end in aspects:
                ET.SubElement(terms, "aspectTerm", {"term": term, "polarity": polarity,
                                                    "from": str(start), "to": str(end)})
    path.parent.mkdir(parents=True, exist_ok=True)
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)
    return path


def aspect(text: str, term: str, polarity: str, nth: int = 0) -> tuple[str, str, int, int]:
    start = -1
    for _ in range(nth + 1):
        start = text.index(term, start + 1)
    return term, polarity, start, start + len(term)


def tsv_row(sentence_id: str, tokens: str, target: tuple[int, int], opinions: list[tuple[int, int]]) -> str:
    """A TOWE row; target/opinions are inclusive token index ranges."""
    words = tokens.split()

    def tags(runs: list[tuple[int, int]]) -> str:
        marks = ["O"] * len(words)
        for first, last in runs:
            marks[first] = "B"
            for i in range(first + 1, last + 1):
                marks[i] = "I"
        return " ".join(f"{w}\\{m}" for w, m in zip(words, marks))

    return "\t".join([sentence_id, tokens, tags([target]), tags(opinions)])


def write_tsv(path: Path, rows: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("s_id\tsentence\ttarget_tags\topinion_words_tags\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def target_opinions(unit) -> list[tuple[int, int]]:
    return sorted((o.start, o.end) for o in unit.original.opinions if o.aspect == 0 and not o.inferred)


def spans_text(text: str, spans) -> list[str]:
    return [text[s:e] for s, e in spans]


# ------------------------------------------------------------------------------------------ synthetic


def test_conflict_aspects_stay_as_others_but_are_never_targets(tmp_path):
    text = "The food was great but the price was a mixed bag and the decor is plain."
    write_xml(tmp_path / "semeval2014/Laptops_Test_Gold.xml", [
        ("1:1", text, [aspect(text, "food", "positive"), aspect(text, "price", "conflict"),
                       aspect(text, "decor", "neutral")]),
        ("1:2", "Only conflict here.", [("conflict", "conflict", 5, 13)]),
        ("1:3", "No aspects at all.", []),
    ])
    source = load_semeval(tmp_path, "semeval14-laptop", "laptop")
    assert source.domain == "laptop"
    assert [u.unit_id for u in source.units] == ["1:1_0", "1:1_2"]
    assert all(u.original.target.polarity is not None for u in source.units)
    food = source.units[0].original
    assert food.record_id == "1:1_0"
    assert [(a.term, a.polarity) for a in food.others] == [("price", None), ("decor", "neutral")]
    decor = source.units[1].original
    assert [(a.term, a.polarity) for a in decor.others] == [("food", "positive"), ("price", None)]
    sentences = read_semeval_xml(tmp_path / "semeval2014/Laptops_Test_Gold.xml")
    assert [len(s.aspects) for s in sentences] == [3, 1, 0]
    assert sentences[1].aspects[0].polarity is None



def test_a_sentence_with_an_empty_text_is_counted_and_named_not_dropped_silently(tmp_path):
    """An empty (or blank) <text> has nothing to test: it is dropped with its aspects, one `empty_text` data
    issue naming the file and the sentence, never a span mismatch per aspect or nothing at all."""
    text = "The food was great."
    write_xml(tmp_path / "semeval2014/Laptops_Test_Gold.xml", [
        ("2:1", text, [aspect(text, "food", "positive")]),
        ("2:2", "", [("food", "positive", 4, 8)]),
        ("2:3", "", []),
        ("2:4", "   ", [("a", "negative", 0, 1), ("b", "neutral", 1, 2)]),
    ])
    source = load_semeval(tmp_path, "semeval14-laptop", "laptop")
    assert [u.unit_id for u in source.units] == ["2:1_0"]
    assert [(i.record_id, i.kind, i.message, i.action) for i in source.issues] == [
        ("2:2", "empty_text", "Laptops_Test_Gold.xml: sentence '2:2' has an empty <text> (1 aspect term); fill in "
                              "its text or delete it", "dropped"),
        ("2:3", "empty_text", "Laptops_Test_Gold.xml: sentence '2:3' has an empty <text> (0 aspect terms); fill in "
                              "its text or delete it", "dropped"),
        ("2:4", "empty_text", "Laptops_Test_Gold.xml: sentence '2:4' has an empty <text> (2 aspect terms); fill in "
                              "its text or delete it", "dropped")]
    assert all(i.source == "semeval14-laptop" for i in source.issues)

@pytest.mark.parametrize(("text", "tokens", "expected"), [
    ("I couldn't pay $150 for it.", "I could n't pay $ 150 for it .",
     ["I", "could", "n't", "pay", "$", "150", "for", "it", "."]),
    ('It said "great" -- really.', "It said `` great '' -- really .",
     ["It", "said", '"', "great", '"', "--", "really", "."]),
    ("The charge time is superb- 2-3 hours.", "The charge time is superb -- 2-3 hours .",
     ["The", "charge", "time", "is", "superb", "-", "2-3", "hours", "."]),
    ("Great food..I loved it", "Great food .. I loved it", ["Great", "food", "..", "I", "loved", "it"]),
    ("Food is hot- ready to eat!", "Food is hot ready to eat !", ["Food", "is", "hot", "ready", "to", "eat", "!"]),
    ("It is distintive.", "It is distinctive .", ["It", "is", "distintive", "."]),
])
def test_tokens_align_to_the_original_characters(text, tokens, expected):
    spans = align_tokens(text, tokens.split())
    assert spans is not None
    assert spans_text(text, spans) == expected


def test_tokens_that_do_not_fit_the_text_do_not_align():
    assert align_tokens("The food was great.", "The soup was great .".split()) is None
    assert align_tokens("The food was great, really.", "The food was great .".split()) is None  # words left over


def test_towe_tsv_rows_join_by_target_span_and_bad_rows_become_issues(tmp_path):
    first = "The screen couldn't be brighter for $150, I'm told."
    second = "Did not like the new Windows 10 and touchpad gestures."
    write_xml(tmp_path / "semeval2014/Laptops_Test_Gold.xml", [
        ("10:1", first, [aspect(first, "screen", "positive")]),
        ("10:2", second, [aspect(second, "Windows 10", "negative"), aspect(second, "touchpad gestures", "conflict")]),
        ("10:3", "Battery is great.", [("Battery", "positive", 0, 7)]),
    ])
    write_tsv(tmp_path / "towe/14lap/test.tsv", [
        tsv_row("10:1", "The screen could n't be brighter for $ 150 , I 'm told .", (1, 1), [(2, 5)]),
        tsv_row("10:2", "Did not like the new Windows 10 and touchpad gestures .", (5, 6), [(1, 2)]),
        tsv_row("10:2", "Did not like the new Windows 10 and touchpad gestures .", (8, 9), [(1, 2)]),
        tsv_row("10:3", "Keyboard is great .", (0, 0), [(2, 2)]),  # not this sentence's tokens
        "10:3\tBattery is great .\tBattery\\B is\\O\tBattery\\O is\\O great\\B .\\O",  # tags do not repeat the tokens
        "99:9\tGhost row .\tGhost\\B row\\O .\\O\tGhost\\O row\\B .\\O",  # sentence id not in the XML
        "garbage line without tabs",
    ])
    source = load_semeval(tmp_path, "semeval14-laptop", "laptop")
    units = {u.unit_id: u for u in source.units}
    assert set(units) == {"10:1_0", "10:2_0", "10:3_0"}
    screen = units["10:1_0"].original
    assert spans_text(first, target_opinions(units["10:1_0"])) == ["couldn't be brighter"]
    windows = units["10:2_0"].original
    # the other (conflict) aspect's opinion is joined too, indexed 1
    assert [(o.text, o.aspect, o.inferred) for o in windows.opinions] == [("not like", 0, False),
                                                                         ("not like", 1, False)]
    assert screen.opinions and all(first[o.start:o.end] == o.text for o in screen.opinions)
    dropped = [i for i in source.issues if i.action == "dropped"]
    assert sorted(i.kind for i in dropped) == ["malformed_record", "malformed_record", "unaligned_tokens",
                                               "unknown_sentence"]
    assert all(i.source == "semeval14-laptop" for i in dropped)
    battery = units["10:3_0"].original  # its row was dropped: opinions are inferred
    assert [(o.text, o.inferred) for o in battery.opinions] == [("great", True)]


def test_arts_towe_json_offsets_map_onto_the_semeval_text(tmp_path):
    text = "tech support would not fix the fault unless I bought your plan for $150 extra."
    theirs = "tech support would not fix the fault unless I bought your plan for $ 150 extra."
    twice = "the food was great and the food was cheap"
    write_xml(tmp_path / "semeval2014/Restaurants_Test_Gold.xml", [
        ("s1", text, [aspect(text, "tech support", "negative"), aspect(theirs, "plan", "neutral")]),
        ("s2", twice, [aspect(twice, "food", "positive"), aspect(twice, "food", "positive", nth=1)]),
    ])
    plan = theirs.index("plan")
    records = {
        "s1": {"sentence": theirs, "id": "s1", "term_list": {
            "s1_0": {"id": "s1_0", "term": "tech support", "polarity": "negative", "from": 0, "to": 12,
                     "opinion_words": ["not fix"], "opinion_position": [[19, 26]]},
            "s1_1": {"id": "s1_1", "term": "plan", "polarity": "neutral", "from": plan, "to": plan + 4,
                     "opinion_words": ["$ 150"], "opinion_position": [[theirs.index("$"), theirs.index("$") + 5]]}}},
        # the file repeats the first occurrence's span for the second "food": it goes to the second one
        "s2": {"sentence": twice, "id": "s2", "term_list": {
            "s2_0": {"id": "s2_0", "term": "food", "polarity": "positive", "from": 4, "to": 8,
                     "opinion_words": ["great"], "opinion_position": [[13, 18]]},
            "s2_1": {"id": "s2_1", "term": "food", "polarity": "positive", "from": 4, "to": 8,
                     "opinion_words": ["great"], "opinion_position": [[13, 18]]}}},
    }
    path = tmp_path / "arts/src_data/rest/test_sent_towe.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(records), encoding="utf-8")
    source = load_semeval(tmp_path, "semeval14-restaurant", "restaurant")
    units = {u.unit_id: u for u in source.units}
    support = units["s1_0"].original
    assert [(o.text, o.aspect) for o in support.opinions] == [("not fix", 0), ("$150", 1)]
    assert spans_text(twice, target_opinions(units["s2_1"])) == ["great"]
    assert [i.kind for i in source.issues] == ["opinion_text_changed", "opinion_target_moved"]


def test_inference_keeps_a_direct_negation_with_its_word():
    sentence = "The food is not good."
    opinions = infer_opinions(sentence, [Aspect("food", 4, 8)])
    assert [(o.text, o.aspect, o.inferred) for o in opinions] == [("not good", 0, True)]
    assert [sentence[o.start:o.end] for o in opinions] == ["not good"]
    sentence = "The screen isn't bad."
    assert [o.text for o in infer_opinions(sentence, [Aspect("screen", 4, 10)])] == ["isn't bad"]


def test_inference_takes_the_words_attached_to_each_aspect_only():
    sentence = "The wonderful friendly staff was excellent, but the wine was awful."
    staff = Aspect("staff", sentence.index("staff"), sentence.index("staff") + 5)
    wine = Aspect("wine", sentence.index("wine"), sentence.index("wine") + 4)
    opinions = infer_opinions(sentence, [staff, wine])
    # attributive then predicative adjectives of the staff; "awful" is the wine's alone
    assert [(o.text, o.aspect) for o in opinions] == [("wonderful", 0), ("friendly", 0), ("excellent", 0),
                                                      ("awful", 1)]


def test_inference_never_marks_an_aspect_term():
    sentence = "Great support and a good price."
    aspects = [Aspect("support", 6, 13), Aspect("price", 25, 30)]
    for o in infer_opinions(sentence, aspects):
        assert all(o.end <= a.start or o.start >= a.end for a in aspects)
        assert sentence[o.start:o.end] == o.text


def test_mams_xml_without_ids(tmp_path):
    first = "The food was delicious but the staff was rude."
    write_xml(tmp_path / "mams/MAMS-ATSA/raw/test.xml", [
        (None, first, [aspect(first, "food", "positive"), aspect(first, "staff", "negative")]),
        (None, "Nothing to see.", []),
        (None, "Good wine, bad bread.", [("wine", "positive", 5, 9), ("bread", "negative", 15, 20)]),
    ])
    source = load_mams(tmp_path, "mams-restaurant")
    assert source.domain == "restaurant"
    assert [u.unit_id for u in source.units] == ["mams-test-0_0", "mams-test-0_1", "mams-test-2_0", "mams-test-2_1"]
    food = source.units[0].original
    assert [(o.text, o.aspect, o.inferred) for o in food.opinions] == [("delicious", 0, True), ("rude", 1, True)]


def test_the_new_sources_are_registered():
    for name in ("arts-laptop", "arts-restaurant"):
        assert name in BUILTIN_SOURCES
    assert BUILTIN_SOURCES["semeval14-laptop"].relative_path == "semeval2014/Laptops_Test_Gold.xml"
    assert BUILTIN_SOURCES["semeval14-restaurant"].relative_path == "semeval2014/Restaurants_Test_Gold.xml"
    assert BUILTIN_SOURCES["mams-restaurant"].relative_path == "mams/MAMS-ATSA/raw/test.xml"
    assert "SemEval-2014 Task 4" in BUILTIN_SOURCES["semeval14-laptop"].how_to_get
    assert "github.com/siat-nlp/MAMS-for-ABSA" in BUILTIN_SOURCES["mams-restaurant"].how_to_get


# ------------------------------------------------------------------------------------------ real data

EXPECTED = {  # units, targets with opinion spans from arts/src_data/*/test_sent_towe.json
    "semeval14-laptop": (638, 466),
    "semeval14-restaurant": (1120, 846),
}
XML = {"semeval14-laptop": "Laptops_Test_Gold.xml", "semeval14-restaurant": "Restaurants_Test_Gold.xml"}
DOMAIN = {"semeval14-laptop": "laptop", "semeval14-restaurant": "restaurant"}


@pytest.fixture(scope="module")
def towe_only_dir(tmp_path_factory):
    """A data dir with only semeval2014/ and towe/ (no ARTS JSON): the TOWE TSV path."""
    root = tmp_path_factory.mktemp("towe_only")
    for name in ("semeval2014", "towe"):
        (root / name).symlink_to(SHARED_DATA / name, target_is_directory=True)
    return root


@needs_shared_data
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_semeval_test_sets_load_with_towe_opinions(name):
    source = load_dataset(name, SHARED_DATA)
    units, with_opinions = EXPECTED[name]
    assert len(source.units) == units
    assert len({u.unit_id for u in source.units}) == units
    assert sum(1 for u in source.units if target_opinions(u)) == with_opinions
    for unit in source.units:
        example = unit.original
        assert example.record_id == unit.unit_id
        for a in (example.target, *example.others):
            assert example.sentence[a.start:a.end] == a.term
        for o in example.opinions:
            assert example.sentence[o.start:o.end] == o.text
            assert 0 <= o.aspect <= len(example.others)
    assert not [i for i in source.issues if i.action == "dropped"]


@needs_shared_data
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_other_aspects_carry_their_polarities(name):
    root = ET.parse(SHARED_DATA / "semeval2014" / XML[name]).getroot()
    labels = {}
    for node in root.iter("sentence"):
        labels[node.get("id")] = [t.get("polarity") for t in node.iter("aspectTerm")]
    source = load_dataset(name, SHARED_DATA)
    seen = set()
    for unit in source.units:
        sentence_id, k = unit.unit_id.rsplit("_", 1)
        expected = [p for i, p in enumerate(labels[sentence_id]) if i != int(k)]
        got = [a.polarity or "conflict" for a in unit.original.others]
        assert got == expected
        seen.update(got)
    assert {"positive", "negative", "neutral", "conflict"} <= seen


@needs_shared_data
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_towe_tsv_path_matches_the_json_path(name, towe_only_dir):
    from_json = {u.unit_id: target_opinions(u) for u in load_dataset(name, SHARED_DATA).units}
    source = load_semeval(towe_only_dir, name, DOMAIN[name])
    assert not [i for i in source.issues if i.kind == "unaligned_tokens"]
    from_tsv = {u.unit_id: target_opinions(u) for u in source.units}
    wanted = [uid for uid, spans in from_json.items() if spans]
    found = [uid for uid in wanted if from_tsv[uid]]
    assert len(found) >= 0.95 * len(wanted)
    assert [uid for uid in found if from_tsv[uid] != from_json[uid]] == []


@needs_shared_data
def test_mams_loads_with_inferred_opinions():
    source = load_dataset("mams-restaurant", SHARED_DATA)
    assert source.domain == "restaurant"
    assert len(source.units) == 1336
    assert source.units[0].unit_id == "mams-test-0_0"
    opinions = [o for u in source.units for o in u.original.opinions]
    assert opinions and all(o.inferred for o in opinions)
    assert sum(1 for u in source.units if any(o.aspect == 0 for o in u.original.opinions)) > 400
    for unit in source.units:
        example = unit.original
        spans = [(a.start, a.end) for a in (example.target, *example.others)]
        for o in example.opinions:
            assert example.sentence[o.start:o.end] == o.text
            assert all(o.end <= s or o.start >= e for s, e in spans)
