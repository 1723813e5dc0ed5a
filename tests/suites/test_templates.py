"""Template tests (issue 28): agreement, seeding, gold by construction, INV/DIR pairs, errors, and a real run.

The pure tests read tests/data/templates/lexicons/ as the built-in lexicons (monkeypatched), so they do not
depend on the words the project ships; the real runs use the shipped ones with the suite's own merged over.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from absa_checks.common.errors import SpecError
from absa_checks.suites import cases as cases_module
from absa_checks.suites import lexicons, templates
from absa_checks.suites.spec import parse_suite
from conftest import run_pytest

DATA = Path(__file__).parents[1] / "data" / "templates"
LEXICON = {  # tests/data/templates/lexicons/restaurant.yaml, as the checks below need it
    "food": {"pizza": False, "pasta": False, "sushi": False, "fries": True},
    "drinks": {"wine": False, "beer": False, "coffee": False, "tea": False},
}
POSITIVE = {"great", "excellent", "delicious", "tasty", "friendly", "attentive", "fresh"}
NEGATIVE = {"terrible", "awful", "bland", "soggy", "rude", "slow", "flat", "stale"}


@pytest.fixture(autouse=True)
def test_lexicons(monkeypatch):
    monkeypatch.setattr(lexicons, "LEXICON_DIR", DATA / "lexicons")


def suite(tmp_path: Path, tests: str, head: str = "domain: restaurant\n") -> Path:
    path = tmp_path / "t.yaml"
    path.write_text("suite: t\n" + head + "tests:\n" + textwrap.indent(textwrap.dedent(tests), "  "))
    return path


def one_test(tmp_path: Path, tests: str, head: str = "domain: restaurant\n"):
    return parse_suite(suite(tmp_path, tests, head), ()).tests[0]


def expanded(test, seed=0):
    found = templates.expand(test.template, test.name, seed)
    return found, cases_module.expand(test, test.template.source, found.units, found.by_unit)


VOCAB = """\
- name: vocab
  template: "The {a1} {a1.was} {o1}."
  slots: {a1: {aspect: food}, o1: {opinion: any, for: a1}}
  gold: {a1: o1}
  n: N
"""


# ------------------------------------------------------------------------------------------------ agreement

def test_agreement_follows_the_aspects_number(tmp_path):
    test = one_test(tmp_path, """\
        - name: agree
          template: "{a1.a} {a1} {a1.was} {o1}; {a1.it} {a1.is} here and {a1.has} fans, {a1.does} {a1.its} best."
          slots: {a1: {aspect: food}, o1: {opinion: positive, for: a1}}
          gold: {a1: o1}
          n: all
        """)
    found, _ = expanded(test)
    seen = set()
    for unit in found.units:
        term = unit.original.target.term.lower()
        plural = LEXICON["food"][term]
        sentence = unit.original.sentence
        seen.add(plural)
        verbs = ("were", "they", "are", "have", "do", "their") if plural else ("was", "it", "is", "has", "does", "its")
        wrong = ("was", "it", "is", "has", "does", "its") if plural else ("were", "they", "are", "have", "do", "their")
        words = re.findall(r"[A-Za-z]+", sentence.lower())
        assert all(v in words for v in verbs) and not any(w in words for w in wrong), sentence
    assert seen == {True, False}


@pytest.mark.parametrize("word, article", [
    ("apple", "an"), ("pizza", "a"), ("hour", "an"), ("honest price", "an"), ("unit", "a"), ("user", "a"),
    ("umbrella", "an"), ("onion", "an"), ("one-off", "a"), ("European dish", "a"), ("SSD", "an"), ("HDMI port", "an"),
    ("USB port", "a"), ("LCD", "an"), ("CPU", "a"), ("eggplant", "an"), ("Italian place", "an")])
def test_a_or_an(word, article):
    assert templates.a_or_an(word) == article


def test_the_first_letter_is_capitalised_and_the_span_holds_the_term_as_written(tmp_path):
    test = one_test(tmp_path, """\
        - name: start
          template: "{a1} {a1.was} {o1}, said {p}."
          slots: {a1: {aspect: food}, o1: {opinion: positive, for: a1}, p: {word: name}}
          gold: {a1: o1}
          n: 5
        """)
    found, _ = expanded(test)
    for unit in found.units:
        target = unit.original.target
        assert unit.original.sentence[0].isupper()
        assert target.start == 0 and unit.original.sentence[target.start:target.end] == target.term
        assert target.term[0].isupper() and target.term.lower() in LEXICON["food"]


# ------------------------------------------------------------------------------------------------ seeding

def test_same_seed_same_cases_and_ids_another_seed_other_draws(tmp_path):
    test = one_test(tmp_path, VOCAB.replace("N", "5"))
    _, first = expanded(test, seed=0)
    _, again = expanded(test, seed=0)
    _, other = expanded(test, seed=1)
    assert [(c.case_id, c.name, c.original.sentence) for c in first] == \
        [(c.case_id, c.name, c.original.sentence) for c in again]
    assert len(first) == 5 and len({c.case_id for c in first}) == 5
    assert {c.original.sentence for c in first} != {c.original.sentence for c in other}
    # ids come from the test name and the filled words, not from a draw counter
    ids = {c.original.sentence: c.case_id for c in first}
    for case in other:
        assert ids.get(case.original.sentence, case.case_id) == case.case_id


def test_all_gives_every_combination_once(tmp_path):
    test = one_test(tmp_path, VOCAB.replace("N", "all"))
    found, cases = expanded(test)
    # 4 food terms x (positive: food 2 + all 2, negative: food 2 + all 2)
    assert found.instances == 4 * (4 + 4) == len(cases) == len({c.original.sentence for c in cases})
    assert {c.original.sentence for c in expanded(test, seed=5)[1]} == {c.original.sentence for c in cases}


def test_distinct_words_in_one_instance_unless_same(tmp_path):
    test = one_test(tmp_path, """\
        - name: two
          template: "The {a1} and the {a2} {a2.was} {o1}."
          slots: {a1: {aspect: drinks}, a2: {aspect: drinks}, o1: {opinion: positive, for: a2}}
          gold: {a1: positive, a2: o1}
          n: all
        """)
    found, _ = expanded(test)
    pairs = {(u.original.target.term, u.original.others[0].term) for u in found.units}
    assert all(a != b for a, b in pairs) and len({u.original.sentence for u in found.units}) == 4 * 3 * 3  # 3 positive words fit drinks
    same = one_test(tmp_path, """\
        - name: two
          template: "The {a1} and the {a2} {a2.was} {o1}."
          slots: {a1: {aspect: drinks}, a2: {aspect: drinks, same: a1}, o1: {opinion: positive, for: a2}}
          gold: {a2: o1}
          n: all
        """)
    assert expanded(same)[0].instances == 4 * 4 * 3


# ------------------------------------------------------------------------------------------------ gold

def test_gold_by_construction_with_opposite_and_constants(tmp_path):
    test = one_test(tmp_path, """\
        - name: gold
          template: "The {a1} {a1.was} not {o1}, the {a2} {a2.was} {o2} and the {a3} {a3.was} there."
          slots:
            a1: {aspect: any}
            o1: {opinion: any, for: a1}
            a2: {aspect: any, other_than: a1}
            o2: {opinion: negative, for: a2}
            a3: {aspect: drinks, other_than: [a1, a2]}
          gold: {a1: {opposite: o1}, a2: o2, a3: neutral}
          n: 30
        """)
    found, cases = expanded(test)
    assert len(cases) == 3 * 30
    for case in cases:
        example = case.original
        assert case.variant.example == example  # mft: the instance itself, asked once
        for aspect in (example.target, *example.others):
            assert example.sentence[aspect.start:aspect.end] == aspect.term
        labels = {}
        for aspect in (example.target, *example.others):
            opinion = re.search(rf"\b{re.escape(aspect.term)} (?:was|were) (not )?(\w+)", example.sentence)
            assert opinion, example.sentence
            negated, word = opinion.groups()
            polarity = "neutral" if word == "there" else "positive" if word in POSITIVE else "negative"
            assert word == "there" or word in POSITIVE | NEGATIVE
            labels[aspect.term] = {"positive": "negative", "negative": "positive"}[polarity] if negated else polarity
            assert aspect.polarity == labels[aspect.term], (example.sentence, aspect)
    assert len({case.original.target.term for case in cases}) > 5


def test_opinions_fit_their_aspects_category(tmp_path):
    test = one_test(tmp_path, VOCAB.replace("N", "all").replace("food", "drinks"))
    for unit in expanded(test)[0].units:
        word = unit.original.sentence.rstrip(".").split()[-1]
        assert word in {"fresh", "flat", "stale", "great", "excellent", "terrible", "awful"}


# ------------------------------------------------------------------------------------------------ pairs

def test_inv_pairs_differ_in_the_varied_slot_only(tmp_path):
    test = one_test(tmp_path, """\
        - name: tax
          type: inv
          template: "The {a1} {a1.was} {o1} at {p}'s."
          slots: {a1: {aspect: drinks}, o1: {opinion: any, for: a1}, p: {word: name}}
          gold: {a1: o1}
          vary: a1
          n: 10
        """)
    _, cases = expanded(test)
    assert len(cases) == 10 and test.expectation.kind == "unchanged"
    for case in cases:
        before, after = case.original.sentence.split(), case.variant.example.sentence.split()
        differ = [i for i, (a, b) in enumerate(zip(before, after)) if a != b]
        assert len(before) == len(after) and len(differ) == 1, (before, after)
        assert case.original.target.term in LEXICON["drinks"] and case.variant.example.target.term in LEXICON["drinks"]
        assert case.original.target.term != case.variant.example.target.term
        assert case.original.polarity == case.variant.example.polarity


def test_dir_vary_an_opinion_to_flip_and_the_variant_template(tmp_path):
    flip = one_test(tmp_path, """\
        - name: flip
          type: dir
          template: "The {a1} {a1.was} {o1}."
          slots: {a1: {aspect: drinks}, o1: {opinion: any, for: a1}}
          gold: {a1: o1}
          vary: o1
          n: 8
        """)
    assert flip.expectation.kind == "flip"
    for case in expanded(flip)[1]:
        assert (case.original.target.term, case.original.target.start) == \
            (case.variant.example.target.term, case.variant.example.target.start)
        assert {case.original.polarity, case.variant.example.polarity} == {"positive", "negative"}
    variant = one_test(tmp_path, """\
        - name: more
          type: dir
          template: "The {a1} {a1.was} {o1}."
          variant: "The {a1} {a1.was} {i} {o1}."
          slots: {a1: {aspect: drinks}, o1: {opinion: negative, for: a1}, i: {word: intensifier}}
          gold: {a1: o1}
          expect: unchanged
          n: 6
        """)
    for case in expanded(variant)[1]:
        words = case.variant.example.sentence.split()
        assert words[3] in ("very", "really", "extremely")
        assert " ".join(words[:3] + words[4:]) == case.original.sentence
        assert case.variant.example.polarity == case.original.polarity == "negative"
    negated = one_test(tmp_path, """\
        - name: negated
          type: dir
          template: "The {a1} {a1.was} {o1}."
          variant: "The {a1} {a1.was} not {o1}."
          slots: {a1: {aspect: drinks}, o1: {opinion: positive, for: a1}}
          gold: {a1: o1}
          variant_gold: {a1: {opposite: o1}}
          n: 3
        """)
    assert {(c.original.polarity, c.variant.example.polarity) for c in expanded(negated)[1]} == {("positive", "negative")}


# ------------------------------------------------------------------------------------------------ errors

ERRORS = [
    ("unknown-slot", 'template: "The {a1} {a1.was} {o2}."', "the template uses the slot '{o2}'", "template"),
    ("gold-not-aspect", "gold: {o1: o1}", "gold key 'o1' is a opinion slot", "gold"),
    ("gold-unknown", "gold: {a9: o1}", "gold key 'a9' is not a slot", "gold"),
    ("for-non-aspect", "slots: {a1: {aspect: food}, o1: {opinion: any, for: p}, p: {word: name}}",
     "'for' names an aspect slot", "slots"),
    ("n-too-large", "n: 500", "n: 500 but the slots have only 32 distinct fillings", "n"),
    ("n-zero", "n: 0", "'n' must be a whole number of at least 1 (draws) or 'all', got 0", "n"),
    ("n-huge", "n: 50000", "n: 50000 is more than 20,000 instances for one test", "n"),
    ("polarity-name", "slots: {a1: {aspect: food}, positive: {opinion: any, for: a1}}", "slot name 'positive' is "
     "a polarity", "slots"),
    ("category", "slots: {a1: {aspect: fod}, o1: {opinion: any, for: a1}}", "did you mean 'food'?", "slots"),
    ("attribute", 'template: "The {a1} {a1.wsa} {o1}."', "did you mean '{a1.was}'?", "template"),
    ("mft-pair", "vary: a1; type: mft", "a pair ('vary:' or 'variant:') is an inv or dir test", "type"),
    ("brace", 'template: "The {a1} {a1.was} {o1"', "unbalanced '{'", "template"),
    ("unused", "slots: {a1: {aspect: food}, o1: {opinion: any, for: a1}, x: {word: name}}", "slot 'x' is not used",
     "slots"),
]


@pytest.mark.parametrize("name, change, message, key", ERRORS, ids=[e[0] for e in ERRORS])
def test_each_mistake_is_one_line_naming_file_and_line(tmp_path, name, change, message, key):
    body = {"template": '"The {a1} {a1.was} {o1}."', "slots": "{a1: {aspect: food}, o1: {opinion: any, for: a1}}",
            "gold": "{a1: o1}", "n": "5"}
    for one in change.split("; "):
        own, _, value = one.partition(": ")
        body[own] = value
    text = "- name: broken\n" + "".join(f"  {k}: {v}\n" for k, v in body.items())
    path = suite(tmp_path, text)
    with pytest.raises(SpecError) as caught:
        parse_suite(path, ())
    shown = str(caught.value)
    lines = path.read_text().splitlines()
    line = next(i for i, row in enumerate(lines, 1) if row.strip().startswith(f"{key}:"))
    assert "\n" not in shown and shown.startswith(f"{path}:{line}: test 'broken': "), shown
    assert message in shown, shown


def test_a_category_without_words_of_a_polarity_is_named(tmp_path):
    path = suite(tmp_path, """\
        - name: broken
          template: "The {a1} {a1.was} {o1}."
          slots: {a1: {aspect: view}, o1: {opinion: negative, for: a1}}
          gold: {a1: o1}
        """, head="domain: laptop\nlexicons: {aspects: {view: [view, screen]}, opinions: {positive: {view: [sharp]}}}\n")
    with pytest.raises(SpecError) as caught:  # no laptop lexicon in tests/data: the suite's is the only one
        parse_suite(path, ())
    assert str(caught.value) == (
        f"{path}:7: test 'broken': opinion slot 'o1' (negative, for a1): category 'view' has no negative words in "
        "the laptop lexicon; add some under 'lexicons: {opinions: {negative: {view: [...]}}}', or give 'a1' a "
        "category that has them")


def test_an_empty_lexicon_list_is_an_error_naming_its_line(tmp_path):
    path = suite(tmp_path, VOCAB.replace("N", "5"), head="domain: restaurant\nlexicons:\n  words:\n    name: []\n")
    with pytest.raises(SpecError) as caught:
        parse_suite(path, ())
    assert str(caught.value).startswith(f"{path}:5: 'lexicons.words.name' must be a non-empty list of words")


def test_flip_by_an_opinion_no_gold_label_comes_from_is_refused(tmp_path):
    path = suite(tmp_path, """\
        - name: broken
          type: dir
          template: "The {a1} {a1.was} {o1}."
          slots: {a1: {aspect: food}, o1: {opinion: any, for: a1}}
          gold: {a1: positive}
          vary: o1
        """)
    with pytest.raises(SpecError, match=r"t.yaml:8: test 'broken': expect: flip varies 'o1', but no gold label comes "
                                        r"from it"):
        parse_suite(path, ())


def test_flip_needs_a_changing_gold(tmp_path):
    path = suite(tmp_path, """\
        - name: broken
          type: dir
          template: "The {a1} {a1.was} {o1}."
          variant: "The {a1} {a1.was} so {o1}."
          slots: {a1: {aspect: food}, o1: {opinion: positive, for: a1}}
          gold: {a1: o1}
        """)
    with pytest.raises(SpecError, match=r"t.yaml:4: test 'broken': expect: flip needs the variant's gold to differ"):
        parse_suite(path, ())


def test_a_suites_lexicon_extends_the_built_in_one(tmp_path):
    test = one_test(tmp_path, VOCAB.replace("N", "all"),
                    head="domain: restaurant\nlexicons: {aspects: {food: [ramen]}, opinions: {positive: {food: [yummy]}}}\n")
    terms = {u.original.target.term for u in expanded(test)[0].units}
    assert terms == {"pizza", "pasta", "sushi", "fries", "ramen"}
    assert any("yummy" in u.original.sentence for u in expanded(test)[0].units)
    assert dict(test.template.lexicon.files)  # the built-in file read: part of the run's fingerprint


# ------------------------------------------------------------------------------------------------ real runs

def test_a_template_suite_runs_with_the_lexicon_model(tmp_path):
    """One real run. `-n 2` on template suites: tests/pytest_plugin/test_xdist.py compares `pytest suites/` (which holds the
    built-in template suites) with and without workers, report for report."""
    models = tmp_path / "models.yaml"  # a laptop checkpoint leaves the restaurant template tests out
    models.write_text("models:\n  rest: {kind: lexicon, scope: target, domains: [restaurant]}\n"
                      "  lap: {kind: lexicon, scope: sentence, domains: [laptop]}\n")
    args = [str(DATA / "suite.yaml"), "--model", "rest,lap", "--absa-models", str(models), "-q"]
    single = run_pytest(args, report=tmp_path / "one.json")
    report = single.report
    assert report is not None, single.out
    cases = report["cases"]
    assert {case["model"] for case in cases} == {"rest"}
    assert report["manifest"]["domains"]["lap"]["left_out"] == ["templates-restaurant"]
    counts: dict[str, int] = {}
    for case in cases:
        counts[case["test_name"]] = counts.get(case["test_name"], 0) + 1
        assert case["source"] == "templates-restaurant" and case["status"] in ("passed", "failed")
        for side in ("original", "variant"):
            example = case[side]
            assert example["sentence"][example["from"]:example["to"]] == example["term"]
            assert example["gold"] in ("positive", "negative")
    assert counts == {"vocabulary": 6, "contrast-but": 10, "taxonomy-drinks": 4, "intensifier": 4, "reversed": 4}
    assert {case["strategy"] for case in cases} == {"template:mft", "template:inv", "template:dir"}
    assert {case["expect"] for case in cases} == {"gold", "unchanged", "flip"}
    assert "templates-restaurant" in single.summary


def test_an_expectation_the_type_does_not_take_names_the_type(tmp_path):
    path = suite(tmp_path, """\
        - name: broken
          template: "The {a1} {a1.was} {o1}."
          slots: {a1: {aspect: food}, o1: {opinion: positive, for: a1}}
          gold: {a1: o1}
          vary: a1
          expect: flip
        """)
    with pytest.raises(SpecError) as caught:
        parse_suite(path, ())
    assert str(caught.value) == (f"{path}:9: test 'broken' is type inv (a pair without 'type:'), which expects "
                                 "unchanged or gold, not 'flip'; change 'expect' or set 'type' (mft: gold; inv: "
                                 "unchanged, gold; dir: flip, unchanged, gold)")


def test_a_word_under_two_polarities_for_one_category_is_refused(tmp_path):
    path = suite(tmp_path, VOCAB.replace("N", "5"),
                 head="domain: restaurant\nlexicons:\n  opinions:\n    negative:\n      food: [Great]\n")
    with pytest.raises(SpecError) as caught:
        parse_suite(path, ())
    assert str(caught.value) == (f"{path}:6: 'Great' is positive (opinions.positive.all) and negative "
                                 "(opinions.negative.food) for the same category, so a sentence with it would have "
                                 "no single gold label: keep it under one polarity")
    # one word for two categories, each under its own polarity, is fine (cheap prices, cheap decor)
    fine = suite(tmp_path, VOCAB.replace("N", "5"), head="domain: restaurant\nlexicons:\n  opinions:\n"
                 "    positive: {price: [cheap]}\n    negative: {ambience: [cheap]}\n")
    assert parse_suite(fine, ()).tests


def test_all_is_no_aspect_category(tmp_path):
    path = suite(tmp_path, VOCAB.replace("N", "5"), head="domain: restaurant\nlexicons: {aspects: {all: [thing]}}\n")
    with pytest.raises(SpecError, match=r"t.yaml:3: 'all' is not an aspect category"):
        parse_suite(path, ())


def test_a_gate_a_template_test_never_measures_is_refused(tmp_path):
    path = suite(tmp_path, VOCAB.replace("N", "5") + "  gates: {min_ars: 0.5}\n")
    with pytest.raises(SpecError, match=r"t.yaml:9: 'min_ars' gates the ARS of real sentences under revtgt, revnon "
                                        r"and adddiff; template test 'vocab' has none: gate it with max_fail_rate"):
        parse_suite(path, ())


def test_all_over_a_huge_space_is_refused(tmp_path):
    names = ", ".join(f"w{i}" for i in range(30))
    path = suite(tmp_path, """\
        - name: huge
          template: "The {a1} {a1.was} {o1}, said {p}, {q} and {r}."
          slots: {a1: {aspect: food}, o1: {opinion: positive, for: a1}, p: {word: many}, q: {word: many},
                  r: {word: many}}
          gold: {a1: o1}
          n: all
        """, head=f"domain: restaurant\nlexicons: {{words: {{many: [{names}]}}}}\n")
    with pytest.raises(SpecError, match=r"t.yaml:10: test 'huge': n: all would fill more than 20,000 instances; give "
                                        r"a number of draws \(n: 200\)"):
        parse_suite(path, ())


def test_a_domain_without_a_lexicon_says_to_add_aspects(tmp_path):
    path = suite(tmp_path, VOCAB.replace("N", "5"), head="domain: laptop\n")  # tests/data has no laptop lexicon
    with pytest.raises(SpecError, match=r"t.yaml:6: test 'vocab': slot 'a1': the laptop lexicon has no aspect terms"):
        parse_suite(path, ())


def test_no_suite_file_under_tests_becomes_cases_of_the_projects_own_run():
    """A suite a test runs in a subprocess sits under tests/; `pytest` (the project's tests) must not collect it
    as cases of its own run (its verdict would join the test session's)."""
    import fnmatch

    import conftest
    from absa_checks.suites.suite_files import classify

    tests = Path(__file__).resolve().parents[1]
    suites = [path for path in tests.rglob("*.y*ml") if classify(path, tests.parent).kind in ("suite", "suite-like")]
    assert suites, "tests/data/templates/suite.yaml is expected here"
    for path in suites:
        relative = path.relative_to(tests).as_posix()
        assert any(fnmatch.fnmatch(relative, pattern) for pattern in conftest.collect_ignore_glob), relative
