"""Gates per slice (hard=true, aspects=multi, opposite_others>=1, ...): parsed, decided and shown."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from absa_checks.common.errors import SpecError
from absa_checks.judge.stats import wilson
from absa_checks.suites import slices
from absa_checks.suites.spec import parse_suite

KNOWN = ("builtin-restaurant", "builtin-laptop")


def suite(tmp_path: Path, gates: str) -> Path:
    path = tmp_path / "sliced.yaml"
    path.write_text(textwrap.dedent("""\
        suite: sliced
        tests:
          - name: adddiff
            strategy: adddiff
            expect: unchanged
            sources: [builtin-restaurant]
            gates:
        """) + textwrap.indent(textwrap.dedent(gates), " " * 6), encoding="utf-8")
    return path


def test_slice_gates_parse_to_one_spelling_per_selector(tmp_path):
    spec = parse_suite(suite(tmp_path, """\
        max_fail_rate: 0.3
        slices:
          hard = True: {min_accuracy: 0.7}
          opposite_others>=1: {max_fail_rate: 0.4, min_ars: 0.2}
        """), KNOWN)
    gates = spec.tests[0].gates.to_dict()
    assert gates == {"max_fail_rate": 0.3, "slices": {"hard=true": {"min_accuracy": 0.7},
                                                      "opposite_others>=1": {"max_fail_rate": 0.4, "min_ars": 0.2}}}


@pytest.mark.parametrize("body,line,fragment", [
    ("slices:\n  hardness=true: {min_accuracy: 0.7}\n", 9, "unknown slice kind 'hardness'"),
    ("slices:\n  hard>=1: {min_accuracy: 0.7}\n", 9, "hard takes '='"),
    ("slices:\n  opposite_others>=one: {min_accuracy: 0.7}\n", 9, "is a count"),
    ("slices:\n  gold=mixed: {min_accuracy: 0.7}\n", 9, "gold is one of positive, negative, neutral"),
    ("slices:\n  hard=true: {min_acc: 0.7}\n", 9, "did you mean 'min_accuracy'"),
    ("slices:\n  hard=true: {min_accuracy: 70}\n", 9, "fraction between 0 and 1"),
    ("slices:\n  hard=true: {}\n", 9, "has no gate"),
])
def test_a_wrong_slice_gate_names_file_line_and_fix(tmp_path, body, line, fragment):
    path = suite(tmp_path, body)
    with pytest.raises(SpecError) as err:
        parse_suite(path, KNOWN)
    assert str(err.value).startswith(f"{path}:{line}: ") and fragment in str(err.value), str(err.value)


@pytest.mark.parametrize("selector,said", [
    ("hard=true,hard=false", "hard=true and hard=false"),
    ("aspects=single, gold=positive, aspects=multi", "aspects=single and aspects=multi"),
    ("opposite_others>=2,opposite_others<2", "opposite_others>=2 and opposite_others<2"),
    ("opposite_others=1,opposite_others>1", "opposite_others=1 and opposite_others>1"),
])
def test_a_slice_that_contradicts_itself_is_refused_naming_file_and_line(tmp_path, selector, said):
    # it used to parse, select no unit, and report the gate as no-data and the run PASSED
    path = suite(tmp_path, f"slices:\n  {selector}: {{min_accuracy: 0.7}}\n")
    with pytest.raises(SpecError) as err:
        parse_suite(path, KNOWN)
    assert str(err.value) == (f"{path}:9: slice {selector!r} contradicts itself ({said}), so no unit can be in it; "
                              "keep one of the conditions")
    kept = slices.parse("hard=true,hard=true,opposite_others>=1,opposite_others<=1")  # repeated, or one count left
    assert len(kept) == 4 and slices.matches("hard=true,opposite_others>=1,opposite_others<=1",
                                             {"hard": True, "opposite_others": 1})


def test_selectors_match_units_by_their_slices():
    unit = {"aspects": "multi", "hard": True, "opposite_others": 2, "gold": "positive"}
    assert slices.matches("hard=true", unit) and slices.matches("aspects=multi,gold=positive", unit)
    assert slices.matches("opposite_others>=1", unit) and slices.matches("opposite_others<3", unit)
    assert not slices.matches("opposite_others=0", unit) and not slices.matches("hard=true,gold=negative", unit)


@pytest.mark.slow
def test_slice_gates_are_decided_on_the_slice_and_shown(run, tmp_path):
    path = suite(tmp_path, """\
        slices:
          opposite_others>=1: {min_accuracy: 0.99, max_fail_rate: 0.9}
          aspects=single: {min_variant_accuracy: 0.01}
        """)
    markdown = tmp_path / "summary.md"
    result = run([str(path), "-q", "--absa-markdown", str(markdown)])
    assert result.report is not None, result.out[-3000:]
    cases = result.report["cases"]
    # independent of the metrics code: the slice's units and accuracy straight from the cases
    units = {c["unit"]: c for c in cases if c["slices"]["opposite_others"] >= 1}
    right = sum(c["original_prediction"]["label"] == c["original"]["gold"] for c in units.values())
    assert units and right < 0.99 * len(units)
    gates = {(g["slice"], g["gate"]): g for g in result.report["gates"] if g.get("slice")}
    accuracy = gates[("opposite_others>=1", "min_accuracy")]
    assert (accuracy["metric"]["k"], accuracy["metric"]["n"]) == (right, len(units))
    expected = wilson(right, len(units))
    assert accuracy["metric"]["ci95"] == pytest.approx([expected.low, expected.high])
    assert accuracy["verdict"] == "fail" and accuracy["reason"].startswith("slice opposite_others>=1: ")
    in_slice = [c for c in cases if c["slices"]["opposite_others"] >= 1]
    failed = sum(c["status"] == "failed" for c in in_slice)
    fail_rate = gates[("opposite_others>=1", "max_fail_rate")]
    assert (fail_rate["metric"]["k"], fail_rate["metric"]["n"]) == (failed, len(in_slice))
    assert fail_rate["verdict"] == "pass"
    assert gates[("aspects=single", "min_variant_accuracy")]["verdict"] == "pass"
    assert result.code == 1 and "1 of 3 gates failed" in result.summary
    assert "gates on slices" in result.summary and "opposite_others>=1" in result.summary
    trait = result.report["readiness"]["slices"]
    assert trait["verdict"] == "fail" and "3 gates: 2 pass, 1 fail" in trait["evidence"]
    text = markdown.read_text()
    assert "builtin-restaurant [opposite_others>=1]" in text and "| opposite_others>=1 |" in text
    assert "### Production readiness" in text and "| slices | fail |" in text
