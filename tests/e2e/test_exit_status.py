"""The exit-status contract (../shared/DESIGN.md): when the run has gates, the gates decide.

Each test writes a tiny suite and a Python model into tmp_path and runs pytest there as a user would.
"""

from __future__ import annotations

import json
import textwrap

import pytest

from absa_checks.pytest_plugin.stops import Stop, why_stopped

SUITE = """
suite: tiny
sources:
  tiny:
    examples:
      - id: a
        sentence: "The food was great."
        aspect: food
        polarity: positive
        variants:
          adddiff: "The food was great, but the service was slow."
      - id: b
        sentence: "The staff was rude."
        aspect: staff
        polarity: negative
        variants:
          adddiff: "The staff was rude, but the pasta was lovely."
      - id: c
        sentence: "The room is quiet."
        aspect: room
        polarity: positive
        variants:
          adddiff: "The room is quiet, but the wine is awful."
tests:
  - name: adddiff
    strategy: adddiff
    sources: [tiny]
{gates}
"""

MODEL = '''
def by_first_clause(queries):
    """Positive unless the target's sentence mentions rude; flips on the appended clause for 'room'."""
    answers = []
    for q in queries:
        if "rude" in q.sentence and q.aspect == "staff":
            answers.append("negative")
        elif q.aspect == "room" and "awful" in q.sentence:
            answers.append("negative")  # the one case that breaks invariance
        else:
            answers.append({"positive": 0.9, "neutral": 0.05, "negative": 0.05})
    return answers


def boom(queries):
    raise RuntimeError("the model exploded")


def strange_labels(queries):
    return ["LABEL_0" for _ in queries]
'''


def setup_project(tmp_path, gates: str = "") -> None:
    (tmp_path / "suite.yaml").write_text(SUITE.format(gates=textwrap.indent(gates, "    ")))
    (tmp_path / "mymodel.py").write_text(MODEL)


def test_gates_pass_while_a_case_fails_exits_0(tmp_path, run):
    setup_project(tmp_path, "gates: {max_fail_rate: 0.5}")
    result = run(["suite.yaml", "--model", "python:mymodel:by_first_clause"], cwd=tmp_path)
    assert result.code == 0, result.out
    assert "1 failed, 2 passed" in result.out
    assert "absa-checks PASSED: the gate passed" in result.out
    assert result.report["verdict"]["exit_status"] == 0


def test_the_verdict_comes_after_the_list_of_failed_cases(tmp_path, run):
    setup_project(tmp_path, "gates: {max_fail_rate: 0.5}")
    for extra in ([], ["-n", "2"]):
        out = run(["suite.yaml", "--model", "python:mymodel:by_first_clause", "-rf", *extra], cwd=tmp_path).out
        lines = out.splitlines()
        assert "short test summary info" in out and out.index("short test summary info") < out.index("= absa-checks =")
        verdict = next(i for i, line in enumerate(lines) if line.startswith("absa-checks PASSED"))
        assert "1 failed, 2 passed" in lines[verdict + 1]  # then only pytest's final count


def test_failing_gate_exits_1_and_says_why(tmp_path, run):
    setup_project(tmp_path, "gates: {max_fail_rate: 0.05, basis: point}")
    result = run(["suite.yaml", "--model", "python:mymodel:by_first_clause"], cwd=tmp_path)
    assert result.code == 1, result.out
    assert "absa-checks FAILED: 1 of 1 gates failed: max_fail_rate tiny (adddiff)" in result.out
    assert result.report["gates"][0]["verdict"] == "fail"


def test_interval_basis_does_not_fail_on_three_cases(tmp_path, run):
    setup_project(tmp_path, "gates: {max_fail_rate: 0.10}")
    result = run(["suite.yaml", "--model", "python:mymodel:by_first_clause"], cwd=tmp_path)
    # 1 of 3 failed: the Wilson interval [6.1%, 79.2%] straddles 10%, so the interval basis passes ...
    assert result.code == 0, result.out
    # ... while the point estimate, 33.3%, is above it
    point = run(["suite.yaml", "--model", "python:mymodel:by_first_clause", "--absa-gate-basis", "point"],
                cwd=tmp_path)
    assert point.code == 1, point.out


def test_strict_counts_every_case(tmp_path, run):
    setup_project(tmp_path, "gates: {max_fail_rate: 0.5}")
    result = run(["suite.yaml", "--model", "python:mymodel:by_first_clause", "--absa-strict"], cwd=tmp_path)
    assert result.code == 1
    assert "--absa-strict counts every case" in result.out


def test_no_gates_and_a_failed_case_exits_1(tmp_path, run):
    setup_project(tmp_path)
    result = run(["suite.yaml", "--model", "python:mymodel:by_first_clause"], cwd=tmp_path)
    assert result.code == 1
    assert "the run has no gates" in result.out


def test_adapter_that_raises_is_an_error_with_the_error_shown(tmp_path, run):
    setup_project(tmp_path, "gates: {max_fail_rate: 1.0}")
    result = run(["suite.yaml", "--model", "python:mymodel:boom"], cwd=tmp_path)
    assert result.code == 1
    assert "3 errors" in result.out
    assert "raised RuntimeError: the model exploded" in result.out
    assert result.out.count("Traceback") <= 1  # the model's traceback once, not once per case
    assert result.report["summary"]["errors"] == 3
    assert "cases had no prediction" in result.report["verdict"]["reason"]


def test_labels_that_are_not_polarities_are_an_error(tmp_path, run):
    setup_project(tmp_path, "gates: {max_fail_rate: 1.0}")
    result = run(["suite.yaml", "--model", "python:mymodel:strange_labels"], cwd=tmp_path)
    assert result.code == 1
    assert "answered the label 'LABEL_0', which is not a polarity" in result.out


def test_unknown_model_is_one_short_message(tmp_path, run):
    setup_project(tmp_path)
    result = run(["suite.yaml", "--model", "lexicn"], cwd=tmp_path)
    assert result.code == 4
    assert "unknown model 'lexicn'" in result.out and "did you mean 'lexicon'?" in result.out
    assert "Traceback" not in result.out



def test_an_unknown_simple_baseline_names_its_own_option(tmp_path, run):
    """The name came from --absa-simple-baseline, so the message blames it (it used to blame --absa-model)."""
    setup_project(tmp_path)
    for name, expected in (("lexicn", "--absa-simple-baseline: unknown model 'lexicn' (no models file found). "
                                      "did you mean 'lexicon'?"),
                           ("openai:gpt-4o", "--absa-simple-baseline openai:gpt-4o: models of kind 'openai' have no "
                                              "command-line form")):
        result = run(["suite.yaml", "--absa-simple-baseline", name], cwd=tmp_path)
        assert result.code == 4
        assert expected in result.out and "--absa-model" not in result.out and "Traceback" not in result.out

def test_malformed_yaml_is_one_short_message(tmp_path, run):
    (tmp_path / "suite.yaml").write_text("suite: s\ntests:\n  - name: x\n    strategy: [revtgt\n")
    result = run(["suite.yaml"], cwd=tmp_path)
    assert result.code == 2
    assert "suite.yaml:" in result.out and "invalid YAML" in result.out
    assert "Traceback" not in result.out and "yaml/" not in result.out


def test_yaml_named_on_the_command_line_without_suite_key_says_so(tmp_path, run):
    (tmp_path / "suite.yaml").write_text("tests:\n  - name: x\n    strategy: revtgt\n")
    result = run(["suite.yaml"], cwd=tmp_path)
    assert result.code == 2
    assert "suite.yaml: not an absa-checks suite: a suite file has a top-level 'suite: NAME' line" in result.out
    assert "Traceback" not in result.out and "not found" not in result.out


def test_invalid_suite_names_file_line_and_key(tmp_path, run):
    (tmp_path / "suite.yaml").write_text("suite: s\ntests:\n  - name: x\n    strategy: revtgt\n    sorces: [arts-laptop]\n")
    result = run(["suite.yaml"], cwd=tmp_path)
    assert result.code == 2
    assert "suite.yaml:5: unknown key 'sorces'" in result.out and "did you mean 'sources'?" in result.out
    assert "Traceback" not in result.out


def test_unknown_source_option_is_one_short_message(tmp_path, run):
    setup_project(tmp_path)
    result = run(["suite.yaml", "--absa-sources", "tinny"], cwd=tmp_path)
    assert result.code == 4
    assert "--absa-sources: no collected test uses tinny" in result.out
    assert "Traceback" not in result.out


def test_missing_replay_prediction_is_an_error_not_a_pass(tmp_path, run):
    setup_project(tmp_path, "gates: {max_fail_rate: 1.0}")
    (tmp_path / "preds.csv").write_text("id,sentence,term,gold_label,m\n"
                                        "a,The food was great.,food,positive,positive\n")
    result = run(["suite.yaml", "--model", "replay:preds.csv#m"], cwd=tmp_path)
    assert result.code == 1
    assert "no 'm' prediction in preds.csv for record 'a:adddiff:0'" in result.out
    assert result.report["summary"]["errors"] == 3


def test_missing_replay_file_is_one_short_message(tmp_path, run):
    setup_project(tmp_path)
    result = run(["suite.yaml", "--model", "replay:nope.csv#m"], cwd=tmp_path)
    assert result.code == 4
    assert "nope.csv' cannot be read" in result.out and "Traceback" not in result.out


def test_a_run_stopped_early_does_not_pass_its_gates(tmp_path, run):
    setup_project(tmp_path, "gates: {max_fail_rate: 1.0}")
    result = run(["suite.yaml", "--model", "python:mymodel:by_first_clause", "-x"], cwd=tmp_path)
    assert result.code == 1
    assert "the run stopped early" in result.out



@pytest.mark.slow
def test_a_run_stopped_at_a_failure_says_which_option_stopped_it_not_ctrl_c(tmp_path, run):
    """pytest's stepwise (--sw) stops a run at its first failure with an Interrupted, as pytest-xdist does for -x:
    the verdict names the option (it said "interrupted: Ctrl-C or SIGTERM"), and the run exits 1 as with -x."""
    setup_project(tmp_path, "gates: {max_fail_rate: 1.0}")
    model = ["suite.yaml", "--model", "python:mymodel:by_first_clause"]
    for extra, why in ((["-p", "cacheprovider", "-p", "stepwise", "--sw"],
                        "--sw: pytest's stepwise stopped at the first failure; the next --sw run starts there"),
                       (["-x", "-n", "2"], "-x or --maxfail 1: stopped at the first failure"),
                       (["--maxfail", "1"], "-x or --maxfail 1: stopped at the first failure")):
        result = run([*model, *extra], cwd=tmp_path)
        assert result.code == 1, result.out
        assert f"absa-checks FAILED: the run stopped early ({why}); gates are not decided" in result.out, extra
        assert "Ctrl-C" not in result.out
    stopped = {json.loads(path.read_text())["stopped"] for path in tmp_path.glob("report-*.partial.json")}
    assert stopped == {"--sw: pytest's stepwise stopped at the first failure; the next --sw run starts there",
                       "-x or --maxfail 1: stopped at the first failure"}


def test_why_a_run_stopped_is_told_from_what_pytest_left():
    assert why_stopped(None, False, False, False, 0) is None
    assert why_stopped("", False, False, True, 0) == Stop("interrupted: Ctrl-C or SIGTERM", False)  # Ctrl-C in --sw
    assert why_stopped("SIGTERM", False, False, False, 0) == Stop("interrupted: Ctrl-C or SIGTERM", False)
    assert why_stopped("[gw0] node down received keyboard-interrupt", False, False, False, 0).at_failure is False
    assert why_stopped(None, False, "stopping after 3 failures", False, 3) == Stop(
        "--maxfail 3: stopped after 3 failures", True)
    assert why_stopped("the suite said so", False, False, False, 0) == Stop("stopped: the suite said so", False)

def test_deselecting_a_strategy_makes_ars_partial_and_its_gate_says_so(run):
    """-m revtgt leaves ARS over one of ARTS's three strategies: never judged as if it were the ARS."""
    args = ["suites/", "--absa-sources", "builtin-restaurant", "--absa-sample", "40"]
    whole = run(args)
    assert whole.report["sources"]["builtin-restaurant"]["ars_partial"] is False
    assert all("partial" not in g["reason"] for g in whole.report["gates"])
    partial = run(args + ["-m", "revtgt"])
    assert partial.code == 1
    source = partial.report["sources"]["builtin-restaurant"]
    assert source["ars_partial"] is True and source["ars_covers"] == ["revtgt"]
    ars_gates = [g for g in partial.report["gates"] if g["gate"] == "min_ars"]
    assert ars_gates and all(g["verdict"] == "fail" and g["reason"].startswith("not decided: ARS here is partial")
                             for g in ars_gates)
    assert "all (ARS partial: revtgt)" in partial.out


def test_expected_failures_are_one_line_each_on_a_real_terminal(tmp_path):
    """Under a pseudo-terminal (`script`), as a user sees it: no FAILURES sections, one line per failed
    case with what changed and gold vs predicted, and once why they do not fail the run; -v shows all."""
    import shutil
    import subprocess
    import sys

    setup_project(tmp_path, "gates: {max_fail_rate: 0.5}")
    script = shutil.which("script")
    assert script, "util-linux's script is needed to give pytest a real terminal"

    def on_terminal(*args: str) -> str:
        command = " ".join([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "suite.yaml",
                            "--model", "python:mymodel:by_first_clause", *args])
        env = {k: v for k, v in __import__("os").environ.items() if k not in ("CI", "PYTEST_ADDOPTS")}
        env["COLUMNS"] = "120"
        done = subprocess.run([script, "-q", "-e", "-c", command, "/dev/null"], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)
        return done.stdout.replace("\r", "")

    compact = on_terminal()
    assert "= FAILURES =" not in compact and "Traceback" not in compact
    assert "1 failed cases, one line each (-v explains every case in full):" in compact
    line = [x for x in compact.splitlines() if x.strip().startswith("suite.yaml::adddiff[tiny:c]:")]
    assert len(line) == 1 and "wine is awful" in line[0]
    assert line[0].endswith("gold positive->positive, predicted positive->negative")
    assert compact.count("findings about the model, not errors of the run") == 1
    full = on_terminal("-v")
    assert "= FAILURES =" in full and "original: The room is quiet." in full


def test_a_python_model_beside_its_models_file_is_found_from_anywhere(run):
    """examples/python_model: run from the repository root, the module is found beside the models.yaml
    that names it; a missing one says where it looked and what to do."""
    result = run(["suites/invariance/adddiff.yaml", "--absa-sources", "builtin-restaurant", "--absa-sample", "5",
                  "--absa-models", "examples/python_model/models.yaml", "--absa-model", "mine"])
    assert result.report["run"]["model"]["target"] == "my_model:predict", result.out[-2000:]
    assert result.report["summary"]["errors"] == 0
    missing = run(["suites/invariance/adddiff.yaml", "--absa-model", "python:nowhere_mod:predict"])
    assert missing.code == 4
    assert "cannot import module 'nowhere_mod' for --absa-model python:nowhere_mod:predict: no nowhere_mod.py in" \
        in missing.out and "add its folder to PYTHONPATH" in missing.out
