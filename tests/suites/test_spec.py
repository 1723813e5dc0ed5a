"""Unit tests of the suite parser: valid suites, and the file, line and key named by every error.

Suite YAML is written into pytest's tmp_path (YAML under tests/ would be collected as a suite).
In the error tables, the line an error must name is marked in the YAML with a `# <-` comment,
unless the case gives it explicitly.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from absa_checks.common.errors import SpecError
from absa_checks.suites.examples_spec import parse_examples_file
from absa_checks.suites.gates_spec import GateSpec
from absa_checks.suites.inline import load_inline
from absa_checks.suites.spec import parse_suite

REPO = Path(__file__).resolve().parents[2]
KNOWN = ("builtin-restaurant", "builtin-laptop", "arts-laptop", "arts-restaurant", "semeval14-laptop",
         "semeval14-restaurant", "mams-restaurant", "gcae-hard-laptop", "gcae-hard-restaurant")
MARK = "# <-"


def write(tmp_path: Path, text: str, name: str = "suite.yaml") -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def marked_line(text: str) -> int:
    lines = [i for i, line in enumerate(textwrap.dedent(text).splitlines(), 1) if MARK in line]
    assert len(lines) == 1, f"the YAML of a case must mark exactly one line with '{MARK}'"
    return lines[0]


def parse_error(path: Path, **kwargs) -> SpecError:
    with pytest.raises(SpecError) as info:
        parse_suite(path, KNOWN, **kwargs)
    return info.value


def assert_names(err: SpecError, path: str | Path, line: int, *fragments: str) -> None:
    message = str(err)
    assert message.startswith(f"{path}:{line}: "), message
    assert (err.path, err.line) == (str(path), line)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"


# ---------------------------------------------------------------------------------------------
# valid suites

VALID = """\
suite: smoke
description: a small suite
defaults:
  sources: [arts-laptop]
  sample: 50
  tags: [nightly]
  gates:
    max_fail_rate: 0.4
    basis: point
tests:
  - name: flip-it
    strategy: revtgt
    gates:
      min_ars: 0.3
  - name: keep-it
    description: other aspects change
    strategy: revnon
    sources: [arts-restaurant, arts-laptop]
    sample: 10
    tags: [quick, inv]
    expect: unchanged
    tolerance: 0.05
    gates:
      max_fail_rate: 0.2
      basis: interval
"""


def test_valid_suite_merges_defaults_into_tests(tmp_path):
    path = write(tmp_path, VALID)
    suite = parse_suite(path, KNOWN)
    assert (suite.path, suite.name, suite.description) == (str(path), "smoke", "a small suite")
    assert [t.name for t in suite.tests] == ["flip-it", "keep-it"]
    first, second = suite.tests

    assert first.line == 11 and second.line == 15
    assert first.key == f"{path}::flip-it"
    assert first.sources == ("arts-laptop",)
    assert first.sample == 50
    assert first.tags == ("nightly",)
    assert first.description == ""
    assert first.expectation.kind == "flip" and first.expectation.tolerance == 0.0
    # gates from the defaults and from the test are merged
    assert first.gates == GateSpec.of(max_fail_rate=0.4, min_ars=0.3, basis="point")


def test_valid_suite_test_values_override_defaults(tmp_path):
    second = parse_suite(write(tmp_path, VALID), KNOWN).tests[1]
    assert second.description == "other aspects change"
    assert second.sources == ("arts-restaurant", "arts-laptop")
    assert second.sample == 10
    assert second.tags == ("quick", "inv")
    assert second.expectation.kind == "unchanged" and second.expectation.tolerance == 0.05
    assert second.gates == GateSpec.of(max_fail_rate=0.2, basis="interval")


def test_suite_name_defaults_to_file_stem_and_suite_hash_follows_content(tmp_path):
    text = "tests:\n  - {name: a, strategy: revtgt, sources: arts-laptop}\n"
    one = parse_suite(write(tmp_path, text, "one.yaml"), KNOWN)
    two = parse_suite(write(tmp_path, text, "two.yaml"), KNOWN)
    other = parse_suite(write(tmp_path, text + "# changed\n", "three.yaml"), KNOWN)
    assert (one.name, two.name) == ("one", "two")
    assert one.tests[0].sources == ("arts-laptop",)  # a single name is a list of one
    assert one.sha256 == two.sha256 != other.sha256


def test_display_path_names_the_suite_in_specs_and_errors(tmp_path):
    path = write(tmp_path, "tests:\n  - {name: a, strategy: revtgt, sources: [arts-laptop]}\n")
    suite = parse_suite(path, KNOWN, display_path="suites/x.yaml")
    assert suite.path == "suites/x.yaml" and suite.tests[0].key == "suites/x.yaml::a"
    bad = write(tmp_path, "tests:\n  - {name: a, strategy: revtgtt, sources: [arts-laptop]}\n", "bad.yaml")
    assert_names(parse_error(bad, display_path="suites/bad.yaml"), "suites/bad.yaml", 2, "'tests.0.strategy'")


@pytest.mark.parametrize("strategy, expected", [
    ("revtgt", "flip"),
    ("revnon", "unchanged"),
    ("adddiff", "unchanged"),
    ("revnon+adddiff", "unchanged"),
    ("revtgt+revnon", "flip"),
    ("revtgt+adddiff", "flip"),
])
def test_default_expectation_per_strategy(tmp_path, strategy, expected):
    path = write(tmp_path, f"tests:\n  - name: t\n    strategy: {strategy}\n    sources: [arts-laptop]\n")
    test = parse_suite(path, KNOWN).tests[0]
    assert test.strategy == strategy
    assert test.expectation.kind == expected


def test_expect_in_defaults_or_test_overrides_the_strategy_default(tmp_path):
    path = write(tmp_path, """\
        defaults: {expect: gold, sources: [arts-laptop]}
        tests:
          - {name: a, strategy: revtgt}
          - {name: b, strategy: revnon, expect: flip}
        """)
    assert [t.expectation.kind for t in parse_suite(path, KNOWN).tests] == ["gold", "flip"]


def test_chain_is_written_without_spaces(tmp_path):
    path = write(tmp_path, "tests:\n  - {name: a, strategy: ' revnon + adddiff ', sources: [arts-laptop]}\n")
    assert parse_suite(path, KNOWN).tests[0].strategy == "revnon+adddiff"


@pytest.mark.parametrize("name", ["revtgt", "2nd-pass", "laptop.revnon_v2"])
def test_test_names_may_use_letters_digits_underscore_dash_dot(tmp_path, name):
    path = write(tmp_path, f"tests:\n  - {{name: {name}, strategy: revtgt, sources: [arts-laptop]}}\n")
    assert parse_suite(path, KNOWN).tests[0].name == name


def test_sample_null_in_a_test_cancels_the_default(tmp_path):
    path = write(tmp_path, """\
        defaults: {sample: 5, sources: [arts-laptop]}
        tests:
          - {name: a, strategy: revtgt, sample: null}
        """)
    assert parse_suite(path, KNOWN).tests[0].sample is None


# ---------------------------------------------------------------------------------------------
# suite errors: (case id, YAML with the blamed line marked, fragments the message must contain)

SUITE_ERRORS = [
    ("unknown-top-level-key", """\
        suite: s
        test:  # <-
          - {name: a, strategy: revtgt, sources: [arts-laptop]}
        """, ["unknown key 'test' in the file", "did you mean 'tests'?"]),
    ("unknown-test-key", """\
        tests:
          - name: a
            stratgy: revtgt  # <-
            sources: [arts-laptop]
        """, ["unknown key 'stratgy' in 'tests.0'", "did you mean 'strategy'?"]),
    ("unknown-gate-key", """\
        tests:
          - name: a
            strategy: revtgt
            sources: [arts-laptop]
            gates:
              max_fail: 0.3  # <-
        """, ["unknown key 'max_fail' in 'tests.0.gates'", "did you mean 'max_fail_rate'?"]),
    ("unknown-gate-key-in-defaults", """\
        defaults:
          gates:
            min_arss: 0.3  # <-
        tests:
          - {name: a, strategy: revtgt, sources: [arts-laptop]}
        """, ["unknown key 'min_arss' in 'defaults.gates'", "did you mean 'min_ars'?"]),
    ("unknown-key-without-close-match", """\
        tests:
          - name: a
            strategy: revtgt
            sources: [arts-laptop]
            xyzzy: 1  # <-
        """, ["unknown key 'xyzzy' in 'tests.0'", "allowed keys: name, description, strategy, expect"]),
    ("unknown-strategy", """\
        tests:
          - name: a
            strategy: revtgtt  # <-
            sources: [arts-laptop]
        """, ["'tests.0.strategy' is 'revtgtt'", "did you mean 'revtgt'?"]),
    ("unknown-strategy-in-chain", """\
        tests:
          - name: a
            strategy: revnon+addiff  # <-
            sources: [arts-laptop]
        """, ["'tests.0.strategy' is 'revnon+addiff', whose step 'addiff' is not a strategy",
              "did you mean 'adddiff'?"]),
    ("empty-step-in-chain", """\
        tests:
          - name: a
            strategy: revtgt+  # <-
            sources: [arts-laptop]
        """, ["whose step '' is not a strategy", "use one of: revtgt, revnon, adddiff"]),
    ("missing-strategy", """\
        tests:
          - name: a  # <-
            sources: [arts-laptop]
        """, ["test 'a' needs a 'strategy'", "revnon+adddiff"]),
    ("unknown-expectation", """\
        tests:
          - name: a
            strategy: revtgt
            expect: flipped  # <-
            sources: [arts-laptop]
        """, ["'tests.0.expect' is 'flipped'", "did you mean 'flip'?"]),
    ("unknown-expectation-in-defaults", """\
        defaults:
          expect: same  # <-
        tests:
          - {name: a, strategy: revtgt, sources: [arts-laptop]}
        """, ["'defaults.expect' is 'same'", "use one of: flip, unchanged, gold"]),
    ("unknown-source", """\
        tests:
          - name: a
            strategy: revtgt
            sources: [arts-laptp]  # <-
        """, ["unknown source 'arts-laptp'", "did you mean 'arts-laptop'?"]),
    ("unknown-source-second-in-block-list", """\
        tests:
          - name: a
            strategy: revtgt
            sources:
              - arts-laptop
              - arts-restorant  # <-
        """, ["unknown source 'arts-restorant'", "did you mean 'arts-restaurant'?"]),
    ("unknown-source-in-defaults", """\
        defaults:
          sources: [nowhere]  # <-
        tests:
          - {name: a, strategy: revtgt}
        """, ["unknown source 'nowhere'", "known sources: " + ", ".join(KNOWN)]),
    ("missing-sources", """\
        tests:
          - name: a  # <-
            strategy: revtgt
        """, ["test 'a' needs 'sources' (here or under 'defaults')", "known sources: " + ", ".join(KNOWN)]),
    ("sample-not-a-number", """\
        tests:
          - name: a
            strategy: revtgt
            sources: [arts-laptop]
            sample: ten  # <-
        """, ["'tests.0.sample' must be a whole number of at least 1, got 'ten'"]),
    ("sample-zero", """\
        defaults:
          sample: 0  # <-
        tests:
          - {name: a, strategy: revtgt, sources: [arts-laptop]}
        """, ["'defaults.sample' must be a whole number of at least 1, got 0"]),
    ("sample-boolean", """\
        tests:
          - name: a
            strategy: revtgt
            sources: [arts-laptop]
            sample: yes  # <-
        """, ["'tests.0.sample' must be a whole number of at least 1, got True"]),
    ("gate-fraction-above-one", """\
        tests:
          - name: a
            strategy: revtgt
            sources: [arts-laptop]
            gates:
              max_fail_rate: 1.5  # <-
        """, ["'tests.0.gates.max_fail_rate' must be a fraction between 0 and 1", "got 1.5"]),
    ("gate-percent-string", """\
        defaults:
          gates:
            min_ars: 30%  # <-
        tests:
          - {name: a, strategy: revtgt, sources: [arts-laptop]}
        """, ["'defaults.gates.min_ars' must be a fraction between 0 and 1 (e.g. 0.25 for 25%)", "got '30%'"]),
    ("gate-basis", """\
        tests:
          - name: a
            strategy: revtgt
            sources: [arts-laptop]
            gates: {basis: intervals}  # <-
        """, ["'tests.0.gates.basis' is 'intervals'", "did you mean 'interval'?"]),
    ("gates-not-a-mapping", """\
        tests:
          - name: a
            strategy: revtgt
            sources: [arts-laptop]
            gates: [0.3]  # <-
        """, ["'tests.0.gates' must be a mapping (key: value lines), got a list"]),
    ("top-level-sources-a-number", """\
        sources: 3  # <-
        tests:
          - {name: a, strategy: revtgt, sources: [arts-laptop]}
        """, ["'sources' must be a mapping (key: value lines), got 3"]),
    ("top-level-sources-a-list", """\
        sources: [arts-laptop]  # <-
        tests:
          - {name: a, strategy: revtgt}
        """, ["the top-level 'sources' names this file's own example sources", "under 'defaults:'"]),
    ("test-sources-a-number", """\
        tests:
          - name: a
            strategy: revtgt
            sources: 3  # <-
        """, ["'tests.0.sources' must be a list of names, got 3"]),
    ("tags-a-number", """\
        tests:
          - name: a
            strategy: revtgt
            sources: [arts-laptop]
            tags: 3  # <-
        """, ["'tests.0.tags' must be a list of names, got 3"]),
    ("tests-a-mapping", """\
        suite: s
        tests: {}  # <-
        """, ["'tests' must be a non-empty list of tests (each starting with '- name:')"]),
    ("tests-empty-list", """\
        tests: []  # <-
        """, ["'tests' must be a non-empty list of tests"]),
    ("tests-missing", """\
        suite: s  # <-
        description: no tests here
        """, ["a suite file needs a 'tests:' list"]),
    ("test-a-string", """\
        tests:
          - revtgt  # <-
        """, ["'tests.0' must be a mapping (key: value lines), got the string 'revtgt'"]),
    ("file-a-list", """\
        - name: a  # <-
        """, ["the file must be a mapping (key: value lines), got a list"]),
    ("defaults-a-list", """\
        defaults: [arts-laptop]  # <-
        tests:
          - {name: a, strategy: revtgt, sources: [arts-laptop]}
        """, ["'defaults' must be a mapping (key: value lines), got a list"]),
    ("defaults-unknown-key", """\
        defaults:
          strategy: revtgt  # <-
        tests:
          - {name: a, sources: [arts-laptop]}
        """, ["unknown key 'strategy' in 'defaults'", "allowed keys: expect, tolerance, sources"]),
    ("tolerance-with-flip", """\
        tests:
          - name: a
            strategy: revnon
            expect: flip
            tolerance: 0.1  # <-
            sources: [arts-laptop]
        """, ["'tolerance' only applies to expect: unchanged (test 'a' expects flip)"]),
    ("tolerance-in-defaults-with-revtgt", """\
        defaults:
          tolerance: 0.1  # <-
        tests:
          - {name: a, strategy: revtgt, sources: [arts-laptop]}
        """, ["'tolerance' only applies to expect: unchanged (test 'a' expects flip)"]),
    ("tolerance-above-one", """\
        tests:
          - name: a
            strategy: revnon
            tolerance: 5  # <-
            sources: [arts-laptop]
        """, ["'tests.0.tolerance' must be a fraction between 0 and 1", "got 5"]),
    ("duplicate-key-in-test", """\
        tests:
          - name: a
            strategy: revtgt
            strategy: revnon  # <-
            sources: [arts-laptop]
        """, ["key 'strategy' appears twice in the same mapping (first on line 3); keep one"]),
    ("duplicate-top-level-key", """\
        tests:
          - {name: a, strategy: revtgt, sources: [arts-laptop]}
        tests:  # <-
          - {name: b, strategy: revtgt, sources: [arts-laptop]}
        """, ["key 'tests' appears twice in the same mapping (first on line 1)"]),
    ("duplicate-test-names", """\
        tests:
          - name: same
            strategy: revtgt
            sources: [arts-laptop]
          - name: same  # <-
            strategy: revnon
            sources: [arts-laptop]
        """, ["two tests are named 'same'; names must be unique in a suite"]),
    ("test-without-name", """\
        tests:
          - strategy: revtgt  # <-
            sources: [arts-laptop]
        """, ["every test needs a 'name'"]),
    ("test-name-with-space", """\
        tests:
          - name: flip it  # <-
            strategy: revtgt
            sources: [arts-laptop]
        """, ["test name 'flip it' may only use letters, digits, '_', '-' and '.'"]),
    ("test-name-a-number", """\
        tests:
          - name: 3  # <-
            strategy: revtgt
            sources: [arts-laptop]
        """, ["'tests.0.name' must be a non-empty string, got 3"]),
    ("suite-name-a-number", """\
        suite: 3  # <-
        tests:
          - {name: a, strategy: revtgt, sources: [arts-laptop]}
        """, ["'suite' must be a non-empty string, got 3"]),
    ("unreadable-date-value", """\
        description: 2024-13-45  # <-
        tests:
          - {name: a, strategy: revtgt, sources: [arts-laptop]}
        """, ["cannot read the value '2024-13-45'", "put it in quotes"]),
]


@pytest.mark.parametrize("text, fragments", [c[1:] for c in SUITE_ERRORS], ids=[c[0] for c in SUITE_ERRORS])
def test_suite_error_names_file_line_and_key(tmp_path, text, fragments):
    path = write(tmp_path, text)
    assert_names(parse_error(path), path, marked_line(text), *fragments)


BARE_NAMES = [  # a name YAML reads as no string: the error says so and how to quote it (issue 35, probe 27)
    ("test-name-yes", """\
        tests:
          - name: yes  # <-
            strategy: revtgt
            sources: [arts-laptop]
        """, ["'tests.0.name' must be a non-empty string, got True; the name yes is read by YAML as true; "
              "quote it: 'yes'"]),
    ("test-source-null", """\
        tests:
          - name: a
            strategy: revtgt
            sources: [arts-laptop, null]  # <-
        """, ["'tests.0.sources.1' must be a non-empty string, got nothing; the name null is read by YAML as null "
              "(no value); quote it: 'null'"]),
    ("test-source-off", """\
        tests:
          - name: a
            strategy: revtgt
            sources: off  # <-
        """, ["the name off is read by YAML as false; quote it: 'off'"]),
    ("inline-source-on", """\
        sources:
          on:  # <-
            examples:
              - {sentence: "The soup was bland.", aspect: soup, polarity: negative}
        tests:
          - {name: a, strategy: revtgt, sources: [arts-laptop]}
        """, ["the source name on is read by YAML as true; quote it: 'on':"]),
    ("inline-source-null", """\
        sources:
          null:  # <-
            examples:
              - {sentence: "The soup was bland.", aspect: soup, polarity: negative}
        tests:
          - {name: a, strategy: revtgt, sources: [arts-laptop]}
        """, ["mapping keys must be plain words; the name null is read by YAML as null (no value); quote it: "
              "'null':"]),
    ("unknown-key-no", """\
        tests:
          - name: a
            strategy: revtgt
            sources: [arts-laptop]
            no: 1  # <-
        """, ["unknown key 'False'", "the name no is read by YAML as false; quote it: 'no':"]),
]


@pytest.mark.parametrize("text, fragments", [c[1:] for c in BARE_NAMES], ids=[c[0] for c in BARE_NAMES])
def test_a_name_yaml_reads_as_no_string_says_so_and_how_to_quote_it(tmp_path, text, fragments):
    path = write(tmp_path, text)
    assert_names(parse_error(path), path, marked_line(text), *fragments)


# malformed YAML: the marker would sit inside the broken syntax, so the line is given here
YAML_ERRORS = [
    ("bad-indentation", "tests:\n  - name: a\n    strategy: revtgt\n   sources: [arts-laptop]\n", 4,
     ["expected <block end>", "while parsing a block collection on line 2"]),
    ("unclosed-quote", 'tests:\n  - name: "a\n    strategy: revtgt\n    sources: [arts-laptop]\n', 2,
     ["found unexpected end of stream (while scanning a quoted scalar)"]),
    ("unclosed-bracket", "tests:\n  - name: a\n    strategy: revtgt\n    sources: [arts-laptop\n", 4,
     ["while parsing a flow sequence"]),
    ("missing-colon", "tests:\n  - name a\n    strategy: revtgt\n", 3,
     ["mapping values are not allowed here"]),
    ("tab-indentation", "tests:\n\t- name: a\n", 2,
     ["found character '\\t' that cannot start any token"]),
    ("unknown-tag", "tests:\n  - name: a\n    strategy: !flip revtgt\n", 3,
     ["could not determine a constructor for the tag '!flip'"]),
]


@pytest.mark.parametrize("text, line, fragments", [c[1:] for c in YAML_ERRORS], ids=[c[0] for c in YAML_ERRORS])
def test_malformed_yaml_is_invalid_yaml_with_a_line(tmp_path, text, line, fragments):
    path = write(tmp_path, text)
    err = parse_error(path)
    assert_names(err, path, line, "invalid YAML: ", *fragments)
    assert str(err).endswith("fix the syntax there (indentation, a missing ':' or an unclosed quote are the usual causes)")


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n", "---\n"])
def test_empty_suite_file(tmp_path, text):
    path = write(tmp_path, text)
    assert_names(parse_error(path), path, 1, "the suite file is empty; it needs at least a 'tests:' list")


def test_unreadable_suite_file_has_no_line(tmp_path):
    err = parse_error(tmp_path / "absent.yaml")
    assert str(err) == f"{tmp_path / 'absent.yaml'}: cannot read the suite file: No such file or directory"
    assert err.line is None


# ---------------------------------------------------------------------------------------------
# inline examples and examples files

def inline_suite(examples: str) -> str:
    """A suite whose source `mine` holds `examples` (YAML indented by 6, starting on line 4)."""
    return ("sources:\n  mine:\n    examples:\n" + textwrap.indent(textwrap.dedent(examples), " " * 6)
            + "tests:\n  - {name: a, strategy: revtgt, sources: [mine]}\n")


def test_inline_examples_are_parsed(tmp_path):
    path = write(tmp_path, inline_suite("""\
        - id: fries
          sentence: "The fries were cold, but the beer was great."
          aspect: fries
          polarity: negative
          aspects: [{term: beer, polarity: positive, span: [29, 33]}]
          variants:
            revtgt: "The fries were hot, and the beer was great."
            revnon:
              sentence: "The fries were cold, and the beer was awful."
              polarity: negative
            adddiff:
              - "The fries were cold, but the beer was great, and the staff is kind."
              - {sentence: "The fries were cold, but the beer was great, and the music is fun.", span: [4, 9]}
        - id: 7
          sentence: "The wait was long, the wait was dull."
          aspect: wait
          span: [23, 27]
          polarity: neutral
        """))
    suite = parse_suite(path, KNOWN)
    source = suite.inline_sources["mine"]
    assert (source.name, source.path) == ("mine", str(path))
    fries, wait = source.examples
    assert (fries.example_id, fries.aspect, fries.span, fries.polarity, fries.line) == ("fries", "fries", None, "negative", 4)
    assert fries.others == (("beer", "positive", (29, 33)),)
    assert [(v.strategy, v.polarity, v.span, v.line) for v in fries.variants] == [
        ("revtgt", None, None, 10), ("revnon", "negative", None, 11),
        ("adddiff", None, None, 15), ("adddiff", None, (4, 9), 16)]
    assert (wait.example_id, wait.span) == ("7", (23, 27))


def test_inline_revtgt_variants_flip_the_gold_unless_given(tmp_path):
    path = write(tmp_path, inline_suite("""\
        - id: u
          sentence: "The fries were cold."
          aspect: fries
          polarity: negative
          variants:
            revtgt: "The fries were hot."
            revnon: "The fries were very cold."
            revtgt+revnon: "The fries were very hot."
        - id: v
          sentence: "The fries were cold."
          aspect: fries
          polarity: negative
          variants:
            revtgt: {sentence: "The fries were not cold.", polarity: neutral}
        """))
    loaded = load_inline(parse_suite(path, KNOWN).inline_sources["mine"])
    u, v = loaded.units
    assert {name: variants[0].example.polarity for name, variants in u.given.items()} == {
        "revtgt": "positive", "revnon": "negative", "revtgt+revnon": "positive"}
    assert v.given["revtgt"][0].example.polarity == "neutral"


# (case id, examples YAML placed from line 4 of the suite, the blamed line, fragments)
EXAMPLE_ERRORS = [
    ("span-does-not-cover-the-aspect", """\
        - sentence: "The fries were cold."
          aspect: fries
          span: [0, 3]  # <-
          polarity: negative
        """, ["'sources.mine.examples.0.span' [0, 3] covers 'The', not 'fries'; 'fries' is at [4, 9]"]),
    ("span-outside-the-sentence", """\
        - sentence: "The fries were cold."
          aspect: fries
          span: [4, 99]  # <-
          polarity: negative
        """, ["'sources.mine.examples.0.span' must be [from, to]", "(0 <= from < to <= 20), got [4, 99]"]),
    ("aspect-absent-from-sentence", """\
        - sentence: "The fries were cold."
          aspect: burger  # <-
          polarity: negative
        """, ["'sources.mine.examples.0.aspect': 'burger' does not occur in 'The fries were cold.'"]),
    ("aspect-twice-without-span", """\
        - sentence: "The fries were cold, the fries were old."
          aspect: fries  # <-
          polarity: negative
        """, ["'sources.mine.examples.0.aspect': 'fries' occurs 2 times", "(at [4, 9] and [25, 30])",
              "add 'span: [from, to]' to say which"]),
    ("other-aspect-absent", """\
        - sentence: "The fries and the beer."
          aspect: fries
          polarity: negative
          aspects:
            - term: wine  # <-
        """, ["'sources.mine.examples.0.aspects.0.term': 'wine' does not occur"]),
    ("other-aspects-not-a-list", """\
        - sentence: "The fries and the beer."
          aspect: fries
          polarity: negative
          aspects: {term: beer}  # <-
        """, ["'sources.mine.examples.0.aspects' must be a list of the other aspects", "got a mapping"]),
    ("unknown-polarity", """\
        - sentence: "The fries were cold."
          aspect: fries
          polarity: negativ  # <-
        """, ["'sources.mine.examples.0.polarity' is 'negativ'", "did you mean 'negative'?"]),
    ("missing-polarity", """\
        - sentence: "The fries were cold."  # <-
          aspect: fries
        """, ["an example needs 'polarity'"]),
    ("unknown-example-key", """\
        - sentence: "The fries were cold."
          aspect: fries
          polarity: negative
          label: negative  # <-
        """, ["unknown key 'label' in 'sources.mine.examples.0'", "allowed keys: id, sentence, aspect"]),
    ("empty-id", """\
        - id:  # <-
          sentence: "The fries were cold."
          aspect: fries
          polarity: negative
        """, ["'sources.mine.examples.0.id' must be a non-empty name or number, got nothing"]),
    ("duplicate-id", """\
        - {id: x, sentence: "The fries were cold.", aspect: fries, polarity: negative}
        - {id: x, sentence: "The beer was cold.", aspect: beer, polarity: negative}  # <-
        """, ["example id 'x' is used twice"]),
    ("variant-strategy-unknown", """\
        - sentence: "The fries were cold."
          aspect: fries
          polarity: negative
          variants:
            revtgtt: "The fries were hot."  # <-
        """, ["unknown strategy 'revtgtt' under 'variants'", "did you mean 'revtgt'?"]),
    ("variant-lacks-the-aspect", """\
        - sentence: "The fries were cold."
          aspect: fries
          polarity: negative
          variants:
            revtgt: "The chips were hot."  # <-
        """, ["'sources.mine.examples.0.variants.revtgt': 'fries' does not occur in 'The chips were hot.'",
              "a variant must keep the aspect 'fries' verbatim"]),
    ("variant-repeats-the-aspect", """\
        - sentence: "The fries were cold."
          aspect: fries
          polarity: negative
          variants:
            adddiff:
              - "The fries were cold, but the bread was warm."
              - "The fries were cold, and the fries were old."  # <-
        """, ["'sources.mine.examples.0.variants.adddiff.1': 'fries' occurs 2 times",
              "write the variant as a mapping with 'sentence:' and 'span: [from, to]'"]),
    ("variant-without-sentence", """\
        - sentence: "The fries were cold."
          aspect: fries
          polarity: negative
          variants:
            revtgt: {polarity: positive}  # <-
        """, ["a variant needs 'sentence'"]),
    ("variants-a-list", """\
        - sentence: "The fries were cold."
          aspect: fries
          polarity: negative
          variants: ["The fries were hot."]  # <-
        """, ["'sources.mine.examples.0.variants' must be a mapping (key: value lines), got a list"]),
]


@pytest.mark.parametrize("examples, fragments", [c[1:] for c in EXAMPLE_ERRORS], ids=[c[0] for c in EXAMPLE_ERRORS])
def test_inline_example_error_names_file_line_and_key(tmp_path, examples, fragments):
    path = write(tmp_path, inline_suite(examples))
    assert_names(parse_error(path), path, 3 + marked_line(examples), *fragments)


NFD_CAFE, NFC_CAFE = "cafe\u0301 au lait", "caf\u00e9 au lait"  # print alike; the first is e + a combining accent
FORMS = "they differ only in Unicode normalisation: the {0} writes 'é' as 'e' + the combining U+0301 (decomposed, " \
        "NFD), the {1} as one character (NFC), so they print alike but do not match; write both in one form"


@pytest.mark.parametrize("sentence, term, field, fragment", [
    (f"The {NFD_CAFE} was awful.", NFC_CAFE, "aspect", FORMS.format("sentence", "aspect")),
    (f"The {NFC_CAFE} was awful.", NFD_CAFE, "aspect", FORMS.format("aspect", "sentence")),
    (f"The {NFC_CAFE} was awful.", "café au lait", "aspect", ""),  # the same form: it matches
    ("The soup was crème brûlée.", "cre\u0300me", "opinions", FORMS.format("opinion", "sentence").replace(
        "'é' as 'e' + the combining U+0301", "'è' as 'e' + the combining U+0300")),
])
def test_an_aspect_or_opinion_in_another_unicode_form_says_so(tmp_path, sentence, term, field, fragment):
    """"'café au lait' does not occur in 'The café au lait ...'; same spelling and case" told the user to fix a
    spelling they could not see differs (issue 35, probe 14). Nothing is normalised: a sentence goes to the model
    as written and its offsets count its characters."""
    aspect = "soup" if field == "opinions" else term
    line = f"  opinions: [{json.dumps(term)}]  # <-\n" if field == "opinions" else ""
    examples = (f"- sentence: {json.dumps(sentence, ensure_ascii=False)}\n  aspect: {json.dumps(aspect, ensure_ascii=False)}"
                f"{'  # <-' if not line else ''}\n  polarity: negative\n{line}")
    path = write(tmp_path, inline_suite(examples))
    if not fragment:
        assert parse_suite(path, KNOWN).inline_sources["mine"].examples
        return
    assert_names(parse_error(path), path, 3 + marked_line(examples), "does not occur", fragment)


@pytest.mark.parametrize("body, line, fragments", [
    ("    examples: []\n", 3, ["'sources.mine.examples' must be a non-empty list"]),
    ("    file: a.examples.yaml\n    examples: []\n", 2, ["source 'mine' needs exactly one of 'examples'"]),
    ("    {}\n", 2, ["source 'mine' needs exactly one of 'examples'"]),
    ("    path: a.examples.yaml\n", 3, ["unknown key 'path' in 'sources.mine'; allowed keys: examples, file"]),
    ("    fil: a.examples.yaml\n", 3, ["unknown key 'fil' in 'sources.mine'; did you mean 'file'?"]),
], ids=["empty-examples", "both", "neither", "unknown-key", "misspelt-file"])
def test_inline_source_body_errors(tmp_path, body, line, fragments):
    path = write(tmp_path, "sources:\n  mine:\n" + body + "tests:\n  - {name: a, strategy: revtgt, sources: [mine]}\n")
    assert_names(parse_error(path), path, line, *fragments)


EXAMPLES_FILE = """\
# two examples
examples:
  - id: one
    sentence: "The fries were cold."
    aspect: fries
    polarity: negative
    variants:
      revtgt: "The fries were hot."
"""


def test_examples_file_named_by_a_suite(tmp_path):
    write(tmp_path, EXAMPLES_FILE, "data/food.examples.yaml")
    path = write(tmp_path, """\
        sources:
          food:
            file: ../data/food.examples.yaml
        tests:
          - {name: a, strategy: revtgt, sources: [food, arts-laptop]}
        """, "suites/s.yaml")
    suite = parse_suite(path, KNOWN)
    source = suite.inline_sources["food"]
    assert source.name == "food"
    assert Path(source.path).resolve() == (tmp_path / "data/food.examples.yaml").resolve()
    assert [e.example_id for e in source.examples] == ["one"]
    assert suite.tests[0].sources == ("food", "arts-laptop")


def test_parse_examples_file_directly(tmp_path):
    path = write(tmp_path, EXAMPLES_FILE, "food.examples.yaml")
    source = parse_examples_file(path, "food")
    assert (source.name, source.path) == ("food", str(path))
    assert source.examples[0].line == 3 and source.examples[0].variants[0].line == 8


def test_missing_examples_file_names_the_suite_line_and_path(tmp_path):
    path = write(tmp_path, """\
        sources:
          x:
            file: missing.examples.yaml  # <-
        tests:
          - {name: a, strategy: revtgt, sources: [x]}
        """)
    assert_names(parse_error(path), path, 3,
                 f"examples file '{tmp_path / 'missing.examples.yaml'}' not found",
                 "the path in 'file:' is relative to the suite file")
    shown = parse_error(path, display_path="suites/s.yaml")
    assert str(shown) == ("suites/s.yaml:3: examples file 'suites/missing.examples.yaml' not found; "
                          "the path in 'file:' is relative to the suite file")


def test_examples_file_that_is_a_directory(tmp_path):
    (tmp_path / "dir.examples.yaml").mkdir()
    path = write(tmp_path, "sources:\n  x: {file: dir.examples.yaml}\ntests:\n  - {name: a, strategy: revtgt, sources: [x]}\n")
    assert_names(parse_error(path), path, 2, "examples file",
                 "cannot be read (it is a folder, not a regular file: name a file)")


def test_error_inside_examples_file_names_that_file(tmp_path):
    write(tmp_path, EXAMPLES_FILE.replace("aspect: fries", "aspect: chips"), "data/food.examples.yaml")
    path = write(tmp_path, "sources:\n  x: {file: ../data/food.examples.yaml}\n"
                           "tests:\n  - {name: a, strategy: revtgt, sources: [x]}\n", "suites/s.yaml")
    shown = "checkout/data/food.examples.yaml"
    err = parse_error(path, display_path="checkout/suites/s.yaml")
    assert_names(err, shown, 5, "'examples.0.aspect': 'chips' does not occur in 'The fries were cold.'")
    direct = tmp_path / "data/food.examples.yaml"
    with pytest.raises(SpecError) as info:
        parse_examples_file(direct, "x")
    assert_names(info.value, direct, 5, "'examples.0.aspect'")


@pytest.mark.parametrize("text, line, fragments", [
    ("", 1, ["the examples file is empty; it needs an 'examples:' list"]),
    ("examples:\n  - id: a\n    id: b\n", 3, ["key 'id' appears twice in the same mapping (first on line 2)"]),
    ("example:\n  - {sentence: a, aspect: a, polarity: neutral}\n", 1,
     ["unknown key 'example' in the file; did you mean 'examples'?"]),
    ("examples: {}\n", 1, ["'examples' must be a non-empty list"]),
    ("examples:\n  - sentence: 'a\n", 2, ["invalid YAML: found unexpected end of stream"]),
])
def test_examples_file_errors(tmp_path, text, line, fragments):
    path = write(tmp_path, text, "bad.examples.yaml")
    with pytest.raises(SpecError) as info:
        parse_examples_file(path, "bad")
    assert_names(info.value, path, line, *fragments)


# ---------------------------------------------------------------------------------------------
# the project's own suites

REAL_SUITES = sorted(p for p in (REPO / "suites").glob("**/*.yaml") if not p.name.endswith(".examples.yaml"))


def test_the_project_has_suites():
    assert len(REAL_SUITES) >= 3


@pytest.mark.parametrize("path", REAL_SUITES, ids=[p.relative_to(REPO / "suites").as_posix() for p in REAL_SUITES])
def test_real_suite_parses(path):
    suite = parse_suite(path, KNOWN)
    assert len(suite.tests) + len(suite.extraction_tests) >= 1
    for test in suite.tests:
        if test.template is not None:  # a template test makes its own sentences, as templates-<domain>
            assert test.sources == (test.template.source,) and test.capability and test.type
            continue
        assert set(test.sources) <= set(KNOWN) | set(suite.inline_sources)
        for name in test.sources:
            if name in suite.inline_sources:
                assert suite.inline_sources[name].examples


# ---------------------------------------------------------------------------------------------
# suites that would pass vacuously or count twice (issue 35, H2)

@pytest.mark.parametrize("variant", [
    '    revtgt: "The soup was bland but the staff were friendly."  # <-\n',
    '    revnon: {sentence: "The soup was bland but  the staff were friendly."}  # <-\n',
    '    adddiff:\n      - "The soup was bland but the staff were friendly, and the bread was stale."\n'
    '      - "The soup was bland but the staff were friendly."  # <-\n',
], ids=["revtgt", "revnon-spacing-only", "adddiff-second-of-a-list"])
def test_a_given_variant_identical_to_its_sentence_is_a_suite_error(tmp_path, variant):
    examples = ('- sentence: "The soup was bland but the staff were friendly."\n  aspect: soup\n'
                '  polarity: negative\n  aspects: [{term: staff, polarity: positive}]\n  variants:\n' + variant)
    path = write(tmp_path, inline_suite(examples))
    strategy = variant.split(":")[0].strip()
    assert_names(parse_error(path), path, 3 + marked_line(examples),
                 f"this {strategy} variant is the example's sentence unchanged, so it tests nothing",
                 "write the changed sentence, or remove the variant")


@pytest.mark.parametrize("chain", ["revtgt+revtgt", "revnon + adddiff + revnon", "typos+typos"])
def test_a_chain_that_repeats_a_strategy_is_refused(tmp_path, chain):
    text = f"tests:\n  - name: a\n    strategy: {chain}  # <-\n    sources: [builtin-restaurant]\n"
    path = write(tmp_path, text)
    repeated = chain.split("+")[0].strip()
    assert_names(parse_error(path), path, 3, f"names '{repeated}' twice", "a chain takes each strategy once")


def test_the_chains_docs_suites_names_are_still_accepted(tmp_path):
    path = write(tmp_path, "tests:\n  - {name: a, strategy: revnon+adddiff, sources: [builtin-restaurant]}\n"
                           "  - {name: b, strategy: revtgt + revnon, sources: [builtin-restaurant]}\n")
    assert [t.strategy for t in parse_suite(path, KNOWN).tests] == ["revnon+adddiff", "revtgt+revnon"]


@pytest.mark.parametrize("text", [
    "tests:\n  - name: a\n    strategy: revtgt\n    sources: [arts-laptop, builtin-laptop, arts-laptop]  # <-\n",
    "defaults:\n  sources:\n    - arts-laptop\n    - arts-laptop  # <-\ntests:\n  - {name: a, strategy: revtgt}\n",
    "tests:\n  - name: a\n    task: extraction\n    sources: [semeval14-laptop, semeval14-laptop]  # <-\n",
], ids=["test", "defaults", "extraction-test"])
def test_a_source_named_twice_in_a_test_is_refused(tmp_path, text):
    path = write(tmp_path, text)
    source = "semeval14-laptop" if "extraction" in text else "arts-laptop"
    assert_names(parse_error(path), path, marked_line(text), f"names the source '{source}' twice",
                 "would be collected and counted twice")
