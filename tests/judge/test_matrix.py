"""The capability x test-type matrix (judge/matrix.py): the test keys and their defaults, the cells, the gates on
them, and the matrix in the reports of a real run (Allure: tests/reports/test_allure_support.py; -n 2 and merged shards
give the same matrix: tests/pytest_plugin/test_xdist.py, tests/run/test_shards.py)."""

from __future__ import annotations

import importlib.util
import json
import textwrap
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from absa_checks.common.errors import SpecError
from absa_checks.judge import matrix
from absa_checks.judge.outcomes import CaseOutcome
from absa_checks.judge.stats import wilson
from absa_checks.judge.verdict import Verdict
from absa_checks.reports import summary_table, terminal
from absa_checks.suites.gates_spec import GateSpec
from absa_checks.suites.spec import parse_suite

KNOWN = ("builtin-restaurant", "builtin-laptop")


def suite(tmp_path: Path, body: str, top: str = "") -> Path:
    path = tmp_path / "m.yaml"
    path.write_text("suite: m\n" + textwrap.dedent(top) + "defaults: {sources: [builtin-restaurant]}\ntests:\n"
                    + textwrap.indent(textwrap.dedent(body), "  "), encoding="utf-8")
    return path


# --- the keys and their defaults ------------------------------------------------------------------------------

def test_defaults_come_from_the_strategy_and_the_expectation(tmp_path):
    spec = parse_suite(suite(tmp_path, """\
        - {name: t, strategy: revtgt}
        - {name: n, strategy: revnon}
        - {name: d, strategy: adddiff}
        - {name: c, strategy: revnon+adddiff}
        - {name: g, strategy: revtgt, expect: gold}
        - {name: u, strategy: revtgt, expect: unchanged}
        """), KNOWN)
    cells = {t.name: (t.capability, t.type) for t in spec.tests}
    assert cells == {"t": ("aspect robustness", "dir"), "n": ("aspect robustness", "inv"),
                     "d": ("aspect robustness", "inv"), "c": ("aspect robustness", "inv"),
                     "g": ("aspect robustness", "mft"), "u": ("aspect robustness", "inv")}


def test_capability_and_type_as_written_or_from_defaults_capability_in_one_spelling(tmp_path):
    path = tmp_path / "m2.yaml"
    path.write_text(textwrap.dedent("""\
        suite: m
        defaults: {sources: [builtin-restaurant], capability: Binding, type: inv}
        tests:
          - {name: a, strategy: revnon, capability: "  Negation   Scope "}
          - {name: b, strategy: revtgt, type: dir}
          - {name: c, strategy: revtgt, expect: gold, type: MFT, capability: Vocabulary}
          - {name: d, strategy: adddiff}
        """), encoding="utf-8")
    spec = parse_suite(path, KNOWN)
    assert {t.name: (t.capability, t.type) for t in spec.tests} == {
        "a": ("negation scope", "inv"), "b": ("binding", "dir"), "c": ("vocabulary", "mft"), "d": ("binding", "inv")}


@pytest.mark.parametrize("body, line, fragment", [
    ("- {name: a, strategy: revtgt, type: inv}\n", 4, "is type inv but expects flip"),
    ("- {name: a, strategy: revnon, type: mft}\n", 4, "is type mft but expects unchanged"),
    ("- {name: a, strategy: revnon, type: mtf}\n", 4, "did you mean 'mft'"),
    ("- {name: a, strategy: revnon, type: checklist}\n", 4, "use one of: mft, inv, dir"),
    ("- {name: a, strategy: revnon, capability: ''}\n", 4, "must be a non-empty string"),
    ("- name: a\n  strategy: revnon\n  gates: {capabilities: {x: {inv: {max_fail_rate: 0.2}}}}\n", 6,
     "put 'capabilities' under the suite's top-level 'gates:'"),
])
def test_a_wrong_key_names_file_line_and_fix(tmp_path, body, line, fragment):
    path = suite(tmp_path, body)
    with pytest.raises(SpecError) as err:
        parse_suite(path, KNOWN)
    assert str(err.value).startswith(f"{path}:{line}: ") and fragment in str(err.value), str(err.value)


@pytest.mark.parametrize("top, line, fragment", [
    ("gates: {basis: point}\n", 2, "holds 'capabilities'"),
    ("gates: {capabilities: {}}\n", 2, "names no capability"),
    ("gates: {capabilities: {negation: {}}}\n", 2, "has no test type"),
    ("gates: {capabilities: {negation: {mft: {}}}}\n", 2, "has no gate; give max_fail_rate"),
    ("gates: {capabilities: {negation: {mtf: {max_fail_rate: 0.2}}}}\n", 2, "did you mean 'mft'"),
    ("gates: {capabilities: {negation: {mft: {max_fail_rate: 20}}}}\n", 2, "fraction between 0 and 1"),
    ("gates: {capabilities: {negation: {mft: {min_ars: 0.2}}}}\n", 2, "unknown key 'min_ars'"),
    ("gates: {max_fail_rate: 0.2}\n", 2, "unknown key 'max_fail_rate'"),
])
def test_a_wrong_suite_gate_names_file_line_and_fix(tmp_path, top, line, fragment):
    path = suite(tmp_path, "- {name: a, strategy: revnon}\n", top)
    with pytest.raises(SpecError) as err:
        parse_suite(path, KNOWN)
    assert str(err.value).startswith(f"{path}:{line}: ") and fragment in str(err.value), str(err.value)


def test_suite_gates_reach_every_test_and_survive_the_round_trip(tmp_path):
    spec = parse_suite(suite(tmp_path, "- {name: a, strategy: revnon}\n- {name: b, strategy: revtgt}\n",
                             "gates:\n  basis: point\n  capabilities:\n    Negation: {MFT: {max_fail_rate: 0.2}, "
                             "inv: {max_fail_rate: 0.1, basis: interval}}\n"), KNOWN)
    wanted = {"negation": {"mft": {"max_fail_rate": 0.2, "basis": "point"},
                           "inv": {"max_fail_rate": 0.1, "basis": "interval"}}}
    for test in spec.tests:
        assert test.gates.to_dict() == {"capabilities": wanted} and test.gates.is_empty()
        assert GateSpec.from_dict(json.loads(json.dumps(test.gates.to_dict()))) == test.gates


# --- the cells ---------------------------------------------------------------------------------------------------

def outcome(case: str, capability: str, kind: str, status: str, model: str = "m", strategy: str = "revnon",
            expect: str = "unchanged", gates: dict | None = None) -> CaseOutcome:
    return CaseOutcome(case, f"s.yaml::t[{case}]", case, "s.yaml::t", "t", "src", f"u-{case}", strategy, expect, 0.0,
                       {"sentence": f"original {case}", "term": "food"}, {"sentence": f"variant {case}", "term": "food"},
                       status, f"why {case}", gates or {}, model=model, capability=capability, type=kind)


def test_cells_count_passed_and_failed_cases_and_keep_the_first_failures_by_case_id():
    found = [outcome(f"c{i:02d}", "negation", "mft", "failed" if i % 3 == 0 else "passed") for i in range(30)]
    found += [outcome("e1", "negation", "mft", "error"), outcome("e2", "negation", "mft", "not-found"),
              outcome("x1", "binding", "dir", "passed")]
    cells = matrix.build(reversed(found))
    assert list(cells) == ["binding", "negation"]
    cell = cells["negation"]["mft"]
    assert (cell.n, cell.failed, cell.unscored) == (30, 10, 2) and cell.fail_rate == wilson(10, 30)
    assert [e["case"] for e in cell.examples] == ["c00", "c03", "c06"] and len(cell.examples) == matrix.EXAMPLES
    assert cell.examples[0] == {"case": "c00", "nodeid": "s.yaml::t[c00]", "test": "t", "source": "src",
                                "term": "food", "sentence": "original c00", "variant": "variant c00",
                                "reason": "why c00", "model": "m"}
    assert cells["binding"]["dir"].fail_rate == wilson(0, 1) and cells["binding"]["dir"].examples == ()


def test_a_record_without_capability_gets_the_parsers_defaults():
    old = outcome("a", "", "", "failed", strategy="revtgt", expect="flip").to_dict()
    del old["capability"], old["type"]  # a report written before the matrix
    read = CaseOutcome.from_dict(old)
    assert (read.capability, read.type) == ("aspect robustness", "dir")
    assert matrix.cell_of(replace(read, capability="", type="")) == ("aspect robustness", "dir")
    assert list(matrix.build([read])["aspect robustness"]) == ["dir"]


def test_types_are_ordered_mft_inv_dir():
    cells = matrix.build([outcome("a", "c", "dir", "passed"), outcome("b", "c", "mft", "passed"),
                          outcome("d", "c", "inv", "passed")])
    assert list(cells["c"]) == ["mft", "inv", "dir"]


# --- the gates -------------------------------------------------------------------------------------------------

def gated(threshold: float, basis: str = "") -> dict:
    return {"capabilities": {"negation": {"mft": {"max_fail_rate": threshold, **({"basis": basis} if basis else {})}}}}


def decided(found: list[CaseOutcome], basis: str = "interval"):
    return matrix.evaluate(matrix.build(found), matrix.declared(found), basis)


@pytest.mark.parametrize("failed, threshold, basis, verdict", [
    (1, 0.5, "", "pass"),            # 1/20: Wilson [0.9%, 23.6%], wholly below 50%
    (18, 0.5, "", "fail"),           # 18/20: [69.9%, 97.2%], wholly above
    (6, 0.2, "", "inconclusive"),    # 6/20: [14.5%, 51.9%] straddles 20%
    (6, 0.2, "point", "fail"),       # point 30% > 20%
    (3, 0.2, "point", "pass"),       # point 15% <= 20%
])
def test_a_cell_gate_is_decided_by_the_interval_rules(failed, threshold, basis, verdict):
    found = [outcome(f"c{i:02d}", "negation", "mft", "failed" if i < failed else "passed", gates=gated(threshold, basis))
             for i in range(20)]
    (gate,) = decided(found)
    assert gate.verdict == verdict, gate.reason
    assert gate.rate == wilson(failed, 20) and gate.cell == "negation mft" and gate.basis == (basis or "interval")
    assert gate.label == "max_fail_rate negation mft (capability x type)"
    assert gate.to_dict()["capability"] == "negation" and gate.to_dict()["type"] == "mft"
    assert gate.reason.startswith("negation mft: ")


def test_a_cell_gate_on_nothing_fails_naming_the_close_capability_or_the_missing_type():
    found = [outcome("a", "negation", "inv", "passed", gates={"capabilities": {
        "negaton": {"inv": {"max_fail_rate": 0.2}}, "negation": {"mft": {"max_fail_rate": 0.2}}}})]
    by_cell = {g.cell: g for g in decided(found)}
    assert by_cell["negaton inv"].verdict == "fail" and "did you mean 'negation'?" in by_cell["negaton inv"].reason
    assert by_cell["negation mft"].verdict == "fail" and "it has inv (1 cases)" in by_cell["negation mft"].reason


def test_two_suites_gating_one_cell_are_two_gates_and_a_repeated_declaration_one():
    first = [outcome(f"a{i}", "negation", "mft", "passed", gates=gated(0.5)) for i in range(3)]
    other = [replace(outcome("b", "negation", "mft", "passed", gates=gated(0.3)), test="t.yaml::x")]
    gates = decided(first + other)
    assert sorted((g.test, g.threshold) for g in gates) == [("s.yaml::gates.capabilities", 0.5),
                                                            ("t.yaml::gates.capabilities", 0.3)]


def test_several_checkpoints_gate_on_the_mean_or_the_worst():
    def cases(model: str, failed: int) -> list[CaseOutcome]:
        return [outcome(f"{model}{i:02d}", "negation", "mft", "failed" if i < failed else "passed", model=model,
                        gates=gated(0.3, "point")) for i in range(20)]

    per_model = {"a": matrix.build(cases("a", 2)), "b": matrix.build(cases("b", 10))}  # 10% and 50%
    gates = matrix.declared(cases("a", 0))
    (mean,) = matrix.evaluate_checkpoints(per_model, gates, "interval", "mean")
    assert mean.verdict == "pass" and mean.rate.value == pytest.approx(0.3) and mean.checkpoint == "mean of 2"
    (worst,) = matrix.evaluate_checkpoints(per_model, gates, "interval", "worst")
    assert worst.verdict == "fail" and worst.checkpoint == "b"
    both = matrix.mean(per_model)["negation"]["mft"]
    assert (both.n, both.failed) == (20, 12) and [e["model"] for e in both.examples] == ["a", "a", "b"]


# --- a real run: the terminal, the JSON report and Markdown show it ------------------------------------------------------

RUN_SUITE = """\
suite: matrix
gates:
  capabilities:
    binding: {inv: {max_fail_rate: 1.0, basis: point}}
    negaton: {dir: {max_fail_rate: 0.5}}
defaults: {sources: [builtin-restaurant], sample: 25}
tests:
  - {name: flip, strategy: revtgt, capability: Negation}
  - {name: others, strategy: revnon, capability: binding}
  - {name: added, strategy: adddiff}
  - {name: gold, strategy: revtgt, expect: gold, sources: [builtin-laptop]}
"""


def counted_from_cases(report: dict) -> dict:
    """The matrix counted straight from the JSON report's cases."""
    n, failed = Counter(), Counter()
    for case in report["cases"]:
        cell = (case["capability"], case["type"])
        n[cell] += case["status"] in ("passed", "failed")
        failed[cell] += case["status"] == "failed"
    return {cell: (n[cell], failed[cell]) for cell in n}


def test_the_matrix_in_the_terminal_json_and_markdown_of_a_run(tmp_path, run):
    (tmp_path / "matrix.yaml").write_text(RUN_SUITE, encoding="utf-8")
    allure = importlib.util.find_spec("allure_pytest") is not None
    args = ["matrix.yaml", "--model", "lexicon", "--absa-markdown", str(tmp_path / "summary.md"),
            *(["--alluredir", str(tmp_path / "allure")] if allure else [])]
    single = run(args, cwd=tmp_path)
    report = single.report
    assert report is not None, single.out[-3000:]
    cells = report["capabilities"]
    assert {(c, k) for c, kinds in cells.items() for k in kinds} == {
        ("negation", "dir"), ("binding", "inv"), ("aspect robustness", "inv"), ("aspect robustness", "mft")}
    assert {(c, k): (cell["n"], cell["failed"]) for c, kinds in cells.items() for k, cell in kinds.items()} \
        == counted_from_cases(report)
    for capability, kinds in cells.items():
        for kind, cell in kinds.items():
            rate = wilson(cell["failed"], cell["n"])
            assert cell["fail_rate"]["ci95"] == [rate.low, rate.high] and cell["fail_rate"]["k"] == cell["failed"]
            failing = sorted(c["case_id"] for c in report["cases"] if c["status"] == "failed"
                             and (c["capability"], c["type"]) == (capability, kind))
            assert [e["case"] for e in cell["examples"]] == failing[:matrix.EXAMPLES]
    # the gates: one passes, the misspelt one fails with its fix, and the run fails
    by_cell = {(g["capability"], g["type"]): g for g in report["gates"] if "capability" in g}
    assert by_cell[("binding", "inv")]["verdict"] == "pass"
    assert by_cell[("negaton", "dir")]["verdict"] == "fail" and "did you mean 'negation'?" in \
        by_cell[("negaton", "dir")]["reason"]
    assert single.code == 1 and "max_fail_rate negaton dir (capability x type)" in single.out
    # the terminal: one small table, a row per capability
    assert "capability x test type: fail rate % [95% CI]" in single.out
    rows = {line.split("  ")[0]: line for line in single.out.splitlines()
            if line.startswith(("negation ", "negaton ", "binding ", "aspect robustness "))}
    assert set(rows) == {"negation", "negaton", "binding", "aspect robustness"}
    assert rows["negaton"].split() == ["negaton", "-", "-", "-", "FAIL", "(1/1)"] and rows["binding"].endswith(" pass")
    # Markdown: the table and failing examples per cell
    markdown = (tmp_path / "summary.md").read_text()
    assert "| capability | mft | inv | dir | gate |" in markdown
    example = next(e for kinds in cells.values() for cell in kinds.values() for e in cell["examples"])
    assert f"| {example['case']} |" in markdown and "| negaton dir] |" not in markdown
    assert "[negaton dir]" in markdown
    # what to fix first: the worst cells, each with a failing case's sentence and target (terminal, Markdown, Allure)
    worst = matrix.worst(matrix.build(CaseOutcome.from_dict(c) for c in report["cases"]))
    assert worst and f"| {worst[0][0]} | {worst[0][1]} |" in markdown.split(summary_table.MATRIX_WORST_TITLE[1:])[1]
    assert "| original -> variant | target | why it failed |" in markdown
    first = worst[0][2].examples[0]
    shown = [line for line in single.out.splitlines() if line.startswith(f"worst cell: {worst[0][0]} {worst[0][1]} ")]
    assert len(shown) == 1 and f"[{first['term']}]: {first['reason']}" in shown[0], single.out[-3000:]
    # Allure: each case labelled with its cell, the matrix in the summary, a result per cell gate
    if allure:
        results = [json.loads(p.read_text()) for p in (tmp_path / "allure").glob("*-result.json")]
        labels = Counter((label["value"], next(x["value"] for x in r["labels"] if x["name"] == "test type"))
                         for r in results for label in r["labels"] if label["name"] == "capability"
                         and any(p["name"] == "case" for p in r["parameters"]))  # cases, not skipped items
        assert dict(labels) == {
            cell: n + sum(c["status"] not in ("passed", "failed") for c in report["cases"]
                          if (c["capability"], c["type"]) == cell)
            for cell, (n, _) in counted_from_cases(report).items()}
        summary = next(r for r in results if r["name"] == "absa-checks summary")
        assert "capability x test type" in summary["descriptionHtml"]
        assert "what to fix first" in summary["descriptionHtml"] and first["sentence"] in summary["descriptionHtml"]
        gate = next(r for r in results if r["name"].startswith("gate max_fail_rate 50% on negaton dir"))
        assert gate["status"] == "failed" and "did you mean 'negation'?" in gate["statusDetails"]["message"]
    # -n 2 and merged shards write the same report, matrix included: tests/pytest_plugin/test_xdist.py, tests/run/test_shards.py


def test_the_tables_show_a_gated_capability_without_cases_and_markdown_keeps_a_pipe_in_a_sentence():
    found = [outcome("a|b", "negation", "inv", "failed", gates={"capabilities": {"negaton": {"inv": {"max_fail_rate": 0.2}}}})]
    cells = matrix.build(found)
    tables = summary_table.matrix_tables(cells, {"m": cells}, decided(found))
    assert [row[0] for row in tables[0].rows] == ["negation", "negaton"]
    assert tables[0].rows[1][1:] == ("-", "-", "-", "FAIL (1/1)")
    (examples,) = [t for t in tables if t.header == summary_table.MATRIX_EXAMPLES_HEADER]
    markdown = "\n".join(summary_table.render_markdown(examples))
    assert "| a\\|b | original a\\|b -> variant a\\|b |" in markdown  # one cell each: the table keeps its columns
    assert summary_table.matrix_tables({}, {}, []) == []


def test_the_worst_cells_come_first_with_a_failing_case_each_and_every_example_names_its_target():
    found = [outcome("one", "temporal", "mft", "failed")]  # 1 of 1: 100%, but its interval reaches down to 21%
    found += [outcome(f"n{i}", "negation", "mft", "failed" if i < 8 else "passed") for i in range(10)]  # 80% [49, 94]
    found += [outcome(f"b{i}", "binding", "inv", "failed" if i < 3 else "passed") for i in range(20)]  # 15% [5, 36]
    found += [outcome(f"f{i}", "fairness", "inv", "passed") for i in range(5)]
    found += [replace(outcome("s0", "comparatives", "mft", "failed"), variant={"sentence": "original s0",
                                                                               "term": "food"})]
    cells = matrix.build(found)
    assert [(c, k) for c, k, _ in matrix.worst(cells)] == [("negation", "mft"), ("comparatives", "mft"),
                                                            ("temporal", "mft")]  # a tie: by name
    assert [(c, k) for c, k, _ in matrix.worst(cells, 5)] == [("negation", "mft"), ("comparatives", "mft"),
                                                               ("temporal", "mft"), ("binding", "inv")]
    tables = summary_table.matrix_tables(cells, {"m": cells})
    assert [t.title for t in tables] == [summary_table.MATRIX_TITLE, summary_table.MATRIX_WORST_TITLE,
                                         summary_table.MATRIX_EXAMPLES_TITLE]
    worst = tables[1]
    assert worst.rows[0] == ("negation", "mft", "80.00 [49.0, 94.3]", "n0", "original n0", "variant n0", "food",
                             "why n0")
    assert worst.rows[1][4:7] == ("original s0", "-", "food")  # one sentence: no variant beside it
    assert all(row[4] == "food" for row in tables[2].rows)  # every example names its target
    assert "| capability | type | case | original -> variant | target | why it failed |" in \
        summary_table.render_markdown(tables[2])
    # the terminal: a line a worst cell, the sentence the model got wrong, its target and why, under the matrix
    lines = terminal.summary_lines({"model": {"name": "m", "fingerprint": "f"}, "models": ["m"], "seed": 0}, tables,
                                   [], {}, [], [], Verdict(0, True, "ok"), show_slices=False)
    at = lines.index(next(line for line in lines if line.startswith("worst cell: ")))
    assert lines[at:at + 3] == ['worst cell: negation mft 80.00 [49.0, 94.3]: "variant n0" [food]: why n0',
                                'worst cell: comparatives mft 100.00 [20.7, 100.0]: "original s0" [food]: why s0',
                                "absa-checks PASSED: ok"]  # the terminal's first two (one screen); the reports: three
    assert lines.index(next(line for line in lines if line.startswith("negation "))) < at


def test_conclude_reports_the_matrix_and_gates_without_the_cases_a_checkpoint_runs_report_only():
    from absa_checks.judge import manifest
    from absa_checks.run.conclusion import RunContext, conclude
    from absa_checks.run.run_state import RunOptions

    options = RunOptions(model="m", models_file=None, data_dir=None, sources=None, sample=None, seed=0, report=None,
                         markdown=None, strict=False, gate_basis="point", batch_size=64)
    found = [replace(outcome(f"{source}{i}", "negation", "mft", status, gates=gated(0.2)), source=source)
             for source, status in (("rest", "passed"), ("lap", "failed")) for i in range(10)]
    context = RunContext(models={"m": {"kind": "test", "fingerprint": "f00d"}})
    result = conclude(found, options, None, context)
    assert result.report["capabilities"]["negation"]["mft"]["n"] == 20
    (gate,) = [g for g in result.gates if g.cell]
    assert gate.verdict == "fail" and gate.rate == wilson(10, 20) and not result.verdict.passed
    cross = manifest.Collection(planned=(manifest.Planned("s.yaml::t", "lap", True, manifest.CROSS_DOMAIN, model="m"),))
    result = conclude(found, options, None, replace(context, collection=cross))
    assert result.report["capabilities"]["negation"]["mft"]["n"] == 20  # shown, ...
    (gate,) = [g for g in result.gates if g.cell]
    assert gate.verdict == "pass" and gate.rate == wilson(0, 10)      # ... not counted by the gate


def test_several_checkpoints_each_have_their_matrix_in_the_report_and_the_tables():
    from absa_checks.run.conclusion import RunContext, conclude
    from absa_checks.run.run_state import RunOptions

    options = RunOptions(model="a,b", models_file=None, data_dir=None, sources=None, sample=None, seed=0, report=None,
                         markdown=None, strict=False, gate_basis="point", batch_size=64)
    found = [outcome(f"{model}{i}", "negation", "mft", "failed" if i < failed else "passed", model=model,
                     gates=gated(0.3)) for model, failed in (("a", 2), ("b", 5)) for i in range(10)]
    models = {m: {"kind": "test", "fingerprint": m} for m in ("a", "b")}
    result = conclude(found, options, None, RunContext(models=models))
    report = result.report
    assert report["checkpoints"]["a"]["capabilities"]["negation"]["mft"]["fail_rate"]["value"] == 0.2
    assert report["checkpoints"]["b"]["capabilities"]["negation"]["mft"]["fail_rate"]["value"] == 0.5
    mean = report["capabilities"]["negation"]["mft"]
    assert mean["fail_rate"]["value"] == pytest.approx(0.35) and mean["fail_rate"]["per_checkpoint"] == {"a": 0.2, "b": 0.5}
    (gate,) = [g for g in result.gates if g.cell]
    assert gate.verdict == "fail" and gate.checkpoint == "mean of 2"  # 35% > 30% on the point
    table, each = [t for t in result.tables if t.title in (summary_table.MATRIX_TITLE, summary_table.MATRIX_EACH_TITLE)]
    assert [row[0] for row in table.rows] == ["negation"] and table.rows[0][1].startswith("35.00±21.21 [")
    assert each.rows == (("negation@a", "20.00 [5.7, 51.0] n=10", "-", "-"),
                         ("negation@b", "50.00 [23.7, 76.3] n=10", "-", "-"))
    lines = terminal.summary_lines(result.run, result.tables, [], {}, [], [], result.verdict, show_slices=False)
    assert "capability x test type on each checkpoint: in the reports, or here with -v" in lines
    assert not any(line.startswith("negation@") for line in lines)


def test_the_schema_accepts_what_the_loader_accepts_and_refuses_what_both_refuse(tmp_path):
    pytest.importorskip("jsonschema")
    import yaml
    from suites.test_schema import errors

    good = suite(tmp_path, "- {name: a, strategy: revnon, type: INV, capability: Negation}\n",
                 "gates: {basis: point, capabilities: {Negation: {INV: {max_fail_rate: 0.2}, dir: {max_fail_rate: 0.3, "
                 "basis: interval}}}}\n")
    parse_suite(good, KNOWN)
    assert errors(yaml.safe_load(good.read_text())) == []
    for top in ("gates: {basis: point}\n", "gates: {capabilities: {negation: {mtf: {max_fail_rate: 0.2}}}}\n",
                "gates: {capabilities: {negation: {mft: {}}}}\n"):
        bad = suite(tmp_path, "- {name: a, strategy: revnon}\n", top)
        with pytest.raises(SpecError):
            parse_suite(bad, KNOWN)
        assert errors(yaml.safe_load(bad.read_text())), top
    bad = suite(tmp_path, "- {name: a, strategy: revnon, type: checklist}\n")
    assert errors(yaml.safe_load(bad.read_text()))
