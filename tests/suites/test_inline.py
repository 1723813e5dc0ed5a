"""Examples written in a suite: their opinion words (given, or inferred), and every example that gets no
variant for a test listed with its reason, never a silent zero."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from absa_checks.common.errors import SpecError
from absa_checks.suites.inline import load_inline
from absa_checks.suites.spec import parse_suite

SUITE = """\
suite: mine
sources:
  mine:
    examples:
      - id: soup
        sentence: "The soup was bland but the bread was warm."
        aspect: soup
        polarity: negative
        aspects: [{term: bread, polarity: positive}]
      - id: soup-given
        sentence: "The soup was bland but the bread was warm."
        aspect: soup
        polarity: negative
        opinions: [bland]
        aspects: [{term: bread, polarity: positive, opinions: [{text: warm, span: [37, 41]}]}]
      - id: staff
        sentence: "The staff was there."
        aspect: staff
        polarity: neutral
      - id: room
        sentence: "The room is quiet."
        aspect: room
        polarity: positive
        opinions: []
tests:
  - name: revtgt
    strategy: revtgt
    sources: [mine]
  - name: revnon
    strategy: revnon
    sources: [mine]
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def units(tmp_path: Path, text: str = SUITE) -> dict:
    suite = parse_suite(write(tmp_path, text), ())
    return {u.unit_id: u for u in load_inline(suite.inline_sources["mine"]).units}


def test_given_opinions_are_used_and_missing_ones_inferred(tmp_path):
    found = units(tmp_path)
    given = [(o.text, o.start, o.aspect, o.inferred) for o in found["soup-given"].original.opinions]
    assert given == [("bland", 13, 0, False), ("warm", 37, 1, False)]
    inferred = [(o.text, o.aspect, o.inferred) for o in found["soup"].original.opinions]
    assert ("bland", 0, True) in inferred  # the same word, found by the inference used for MAMS
    assert found["room"].original.opinions == ()  # [] says: this target has no opinion words


@pytest.mark.parametrize("opinions, fragment", [
    ("[tasty]", "the opinion 'tasty' does not occur as whole words"),
    ("[blan]", "the opinion 'blan' does not occur as whole words"),
    ("bland", "must be a list of the aspect's opinion words"),
    ("[{span: [13, 18]}]", "an opinion needs 'text'"),
    ("[{text: bland, span: [0, 3]}]", "covers 'The', not 'bland'"),
])
def test_opinion_mistakes_name_the_line_and_the_fix(tmp_path, opinions, fragment):
    text = SUITE.replace("        opinions: [bland]\n", f"        opinions: {opinions}\n")
    with pytest.raises(SpecError) as info:
        parse_suite(write(tmp_path, text), ())
    assert fragment in str(info.value)
    assert str(info.value).startswith(f"{tmp_path / 'suite.yaml'}:")


def test_an_opinion_that_occurs_twice_needs_a_span(tmp_path):
    text = SUITE.replace('"The soup was bland but the bread was warm."\n        aspect: soup\n        polarity: '
                         'negative\n        opinions: [bland]',
                         '"The soup was warm but the bread was warm."\n        aspect: soup\n        polarity: '
                         'negative\n        opinions: [warm]')
    text = text.replace("[{text: warm, span: [37, 41]}]", "[{text: warm, span: [36, 40]}]")
    with pytest.raises(SpecError) as info:
        parse_suite(write(tmp_path, text), ())
    assert "the opinion 'warm' occurs 2 times" in str(info.value) and "span: [from, to]" in str(info.value)


def test_every_example_without_a_variant_is_listed_with_its_reason(tmp_path, run):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    write(tmp_path, SUITE)
    result = run(["suite.yaml", "-rs"], cwd=tmp_path)
    # soup (inferred) and soup-given both get a REVTGT case; staff (neutral) and room ([]) get none
    cases = {c["nodeid"].split("::")[-1] for c in result.report["cases"]}
    assert {"revtgt[mine:soup]", "revtgt[mine:soup-given]"} <= cases
    skipped = [line for line in result.out.splitlines() if line.startswith("SKIPPED")]
    assert any("example 'room' gave no revtgt variant: the target has no opinion words" in line for line in skipped)
    assert any("example 'staff' gave no revnon variant: a neutral target has no sentiment to share or oppose"
               in line for line in skipped)
    assert len(skipped) == 4
    summary = result.summary
    assert "4 times an example written in a suite got no variant (skipped; -rs lists them): " in summary
    assert summary.splitlines()[-2].startswith("absa-checks ")  # the verdict stays the last line


def test_an_example_without_a_given_variant_beside_others_with_one_is_listed(tmp_path, run):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    text = SUITE.replace("        polarity: neutral\n", "        polarity: neutral\n        variants:\n"
                                                          "          revtgt: \"The staff was not there.\"\n")
    write(tmp_path, text)
    result = run(["suite.yaml", "-rs", "-k", "revtgt"], cwd=tmp_path)
    assert "example 'soup' gave no revtgt variant: the source gives no revtgt variant for it" in result.out


def test_the_stock_suites_cover_every_built_in_source_or_say_why_not():
    from absa_checks.sources import BUILTIN_SOURCES
    from absa_checks.sources.catalog import known_source_names

    repo = Path(__file__).resolve().parents[2]
    doc = (repo / "docs" / "suites.md").read_text()
    for path in sorted((repo / "suites").rglob("*.yaml")):
        if path.name.endswith(".examples.yaml"):
            continue
        suite = parse_suite(path, known_source_names())
        if not suite.tests:  # extraction quality only (suites/extraction): scored on gold data, not these sources
            assert suite.extraction_tests
            continue
        if all(test.template is not None for test in suite.tests):  # template tests make their own sentences
            continue
        covered = {source for test in suite.tests if test.template is None for source in test.sources}
        missing = set(BUILTIN_SOURCES) - covered
        if path.name in ("revtgt.yaml", "revnon.yaml", "adddiff.yaml"):  # the ARS triple: everywhere
            assert not missing, (path.name, missing)
        else:  # the others run on fewer sources, and docs/suites.md's table says why
            row = next((line for line in doc.splitlines() if line.startswith(f"| `{path.name}`")), None)
            assert missing and row is not None and "why not the others" in doc, path.name
