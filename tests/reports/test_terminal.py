"""One screen (issue 25): without -v a failed case shows once, the summary's lines are short, repeated lines
fold, skips point at the suite, and the full-data run with the default model fits the line budgets."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import pytest
from e2e.test_exit_status import MODEL, SUITE

from absa_checks.common.errors import AbsaChecksError
from absa_checks.judge.gates import GateResult
from absa_checks.judge.outcomes import CaseOutcome
from absa_checks.judge.verdict import Verdict
from absa_checks.models.adapters import ModelSpec, resolve
from absa_checks.reports import terminal
from conftest import REPO, SHARED_DATA, needs_shared_data, run_pytest

ARTS_TEST = """
  - name: revtgt_arts
    strategy: revtgt
    sources: [arts-laptop]
"""


def test_long_summary_lines_are_cut_and_repeated_ones_folded():
    assert terminal.cut("x" * 200) == "x" * 156 + " ..." and len(terminal.cut("x" * 200)) == terminal.LINE_LIMIT
    assert terminal.cut("short") == "short"
    lines = ["vs baseline: no units shared"] * 9 + ["", "", "other"]
    assert terminal.fold_repeated(lines) == ["vs baseline: no units shared (9 times)", "", "", "other"]


def test_the_verdict_line_keeps_its_counts_within_the_limit():
    metrics = SimpleNamespace(failed=991, cases=21122)
    failed = Verdict(1, False, "2 of 54 gates failed: min_accuracy mams-restaurant (revtgt): slice hard=true: "
                               + "accuracy on the originals 51.80% [95% CI 49.12%, 54.47%] is below the limit; " * 4)
    line = terminal.verdict_line(failed, 2, metrics)
    assert line == ("absa-checks FAILED: 2 of 54 gates failed (listed above); 991 of 21122 cases failed their "
                    "expectation")
    passed = Verdict(0, True, "all 54 gates passed, 6 of them inconclusive, counted as passed (991 of 21122 cases "
                              "failed their expectation; cases are not counted without --absa-strict)")
    line = terminal.verdict_line(passed, 0, metrics)
    assert len(line) <= terminal.LINE_LIMIT and line.startswith("absa-checks PASSED: all 54 gates passed")
    assert "991 of 21122 cases failed their expectation" in line
    short = Verdict(1, False, "1 of 1 gates failed: max_fail_rate tiny (adddiff): 50% > 5%")
    assert terminal.verdict_line(short, 1, metrics) == f"absa-checks FAILED: {short.reason}"


def test_an_environment_path_shows_as_its_variable_without_the_checkout_before_it(tmp_path):
    spec = ModelSpec("bert-pt", "transformers", base_dir=tmp_path, from_env=(("ABSA_BERT_PT_PATH", "../m/ckpt"),))
    joined = tmp_path / "../m/ckpt"
    for shown in (str(joined), str(joined.resolve()), "../m/ckpt"):
        assert spec.redact(f"transformers, {shown}") == "transformers, ${ABSA_BERT_PT_PATH}"
    assert spec.redact(f"{joined.resolve()}/config.json") == "${ABSA_BERT_PT_PATH}/config.json"


def test_an_unknown_model_lists_the_kind_spec_forms():
    try:
        resolve("bert-xx", REPO / "models.yaml")
    except AbsaChecksError as err:
        message = str(err)
    else:
        raise AssertionError("an unknown model was accepted")
    for form in ("lexicon:<target|sentence>", "replay:<path>#<column>", "transformers:<checkpoint folder or hub id>",
                 "python:<module>:<function>", "extraction-replay:<outputs.jsonl>"):
        assert form in message, message
    assert "kind openai only as a models.yaml entry" in message and "did you mean 'bert-pt'?" in message


@pytest.mark.slow
def test_a_failed_case_shows_once_and_skips_point_at_the_suite(tmp_path):
    (tmp_path / "suite.yaml").write_text(SUITE.format(gates="    gates: {max_fail_rate: 0.5}") + ARTS_TEST)
    (tmp_path / "mymodel.py").write_text(MODEL)
    args = ["suite.yaml", "--model", "python:mymodel:by_first_clause"]
    default = run_pytest(args, cwd=tmp_path)
    quiet = run_pytest([*args, "-q", "--tb=no"], cwd=tmp_path)
    for out in (default.out, quiet.out):
        failed = [line for line in out.splitlines() if "suite.yaml::" in line]
        assert failed and "FAILED suite.yaml" not in out and "= FAILURES =" not in out, out
        assert len(failed) == len(set(failed))  # each case once: our one line
    skips = run_pytest([*args, "-rs"], cwd=tmp_path).out
    skipped = [line for line in skips.splitlines() if line.startswith("SKIPPED")]
    assert skipped and all("items.py" not in line and "suite.yaml:" in line for line in skipped), skips
    short = run_pytest([*args, "--tb=short"], cwd=tmp_path).out  # asked for: the section, one line a case
    assert "= FAILURES =" in short and "original: " not in short and "adddiff: " in short, short
    full = run_pytest([*args, "-v"], cwd=tmp_path).out
    assert "= FAILURES =" in full and "original: " in full


@needs_shared_data
@pytest.mark.slow
def test_the_full_data_run_fits_one_screen():
    """The default model on every source of the shared data (about 2,000 failed cases over 25,000, 1,900
    quarantined variants): absa-checks' summary in at most 150 lines under `-q --tb=no` (pytest's own progress
    lines, one per 72 cases, come on top: 29 of them since the frozen sets of issue 36 measure nearly every
    target), the whole default output in at most 250; no summary line over 160 characters."""
    args = ["suites/", "--absa-data", str(SHARED_DATA)]
    for extra, budget in ((["-q", "--tb=no"], 150), ([], 250)):
        done = run_pytest([*args, *extra], timeout=1200)
        lines = done.out.splitlines()
        assert lines[-2].startswith(("absa-checks FAILED: ", "absa-checks PASSED: ")), done.out[-3000:]
        counted = lines if extra == [] else done.out[done.out.index("= absa-checks ="):].splitlines()
        assert len(counted) <= budget, (extra, len(counted), done.out[-3000:])
        failed = int(lines[-1].split(" failed")[0].split()[-1])
        assert failed > 100  # the real problem: hundreds of failed cases, none of them sampled away
        assert not any(line.startswith("FAILED suites/") for line in lines)
        section = done.summary.splitlines()[1:]
        assert all(len(line) <= 160 for line in section), [line for line in section if len(line) > 160]
        assert f"{failed} failed cases" in done.summary and f"{failed} of " in lines[-2]


def test_sources_the_baseline_does_not_share_are_one_line():
    sources = [f"source-{i}" for i in range(9)]
    gates = [GateResult("no_significant_regression", "ars", s, 0.0, None, "mcnemar", "no-data",
                        "no units shared with the baseline") for s in sources]
    gates.append(GateResult("no_significant_regression", "ars", "arts-laptop", 0.0, None, "mcnemar", "pass",
                            "ARS 50.0 -> 51.0"))
    lines = terminal.baseline_lines(gates, {})
    assert lines == ["vs baseline, 9 sources (source-0, source-1, source-2, ...): no-data: no units shared with the "
                     "baseline", "vs baseline, arts-laptop: pass: ARS 50.0 -> 51.0"]


# --- the failed cases' lines and the failed gates (issue 35) -------------------------------------------------------

def failed_case(nodeid: str, expect: str, original: tuple[str, str, str], variant: tuple[str, str, str],
                predicted: tuple[str, str]) -> CaseOutcome:
    """A failed case: (sentence, target, gold) of its original and variant, and the labels predicted for each."""
    def record(sentence: str, term: str, gold: str) -> dict:
        start = sentence.index(term)
        return {"sentence": sentence, "term": term, "from": start, "to": start + len(term), "gold": gold}

    return CaseOutcome("id", nodeid, "name", nodeid.split("[")[0], "name", "src", "unit", "s", expect, 0.0,
                       record(*original), record(*variant), "failed", "why",
                       original_prediction={"label": predicted[0]}, variant_prediction={"label": predicted[1]})


TEMPLATE_NODE = "suites/capabilities/laptop.yaml::comparative-better[templates-laptop:44cac5047f:a2]"
COMPARATIVE = ("The screen is better than the keyboard.", "keyboard", "negative")


def test_a_failed_cases_line_names_its_target_and_a_template_case_its_sentence_expected_and_predicted():
    short = failed_case("s.yaml::better[t:1:a2]", "gold", COMPARATIVE, COMPARATIVE, ("positive", "positive"))
    assert terminal.failure_line(short) == ('  s.yaml::better[t:1:a2]: "The screen is better than the keyboard." '
                                            '[keyboard] expected negative, predicted positive',)
    # the README's case: its node id leaves too little room for the whole sentence: cut around the target
    (line,) = terminal.failure_line(replace(short, nodeid=TEMPLATE_NODE))
    assert len(line) <= terminal.LINE_LIMIT and "same words" not in line, line
    assert line.startswith(f'  {TEMPLATE_NODE}: "...') and line.endswith(
        'than the keyboard." [keyboard] expected negative, predicted positive'), line
    # the other kinds: the target, what changed, gold and predicted, the labels never cut
    long_clause = "The pasta was cold, but " + "the waiter, who had clearly had a long and tiring day, was " * 3 + "kind."
    kinds = {
        "revtgt": failed_case("suites/directional/revtgt.yaml::revtgt[builtin-laptop:battery-life-is-longer:battery]",
                              "flip", ("The battery lasts long.", "battery", "positive"),
                              ("The battery does not last long.", "battery", "negative"), ("positive", "positive")),
        "typos": failed_case("suites/invariance/robustness.yaml::typos[builtin-restaurant:somehow-our-reservation-"
                             "got-lost:reservation]", "unchanged", ("Our reservation got lost.", "reservation",
                                                                    "negative"),
                             ("Our reservation got losst.", "reservation", "negative"), ("negative", "neutral")),
        "intensity": failed_case("suites/capabilities/laptop.yaml::intensity-intensifier[templates-laptop:1:a1]",
                                 "unchanged", ("The fan is loud.", "fan", "negative"),
                                 ("The fan is very loud.", "fan", "negative"), ("negative", "positive")),
        "adddiff": failed_case("s.yaml::adddiff[src:u:pasta]", "unchanged", ("The pasta was cold.", "pasta", "negative"),
                               (long_clause, "pasta", "negative"), ("negative", "positive")),
    }
    wanted = {"revtgt": ("[battery] 'lasts' -> 'does not last'", "gold positive->negative, predicted positive->positive"),
              "typos": ("[reservation] 'lost.' -> 'losst.'", "gold negative->negative, predicted negative->neutral"),
              "intensity": ("[fan] + 'very'", "gold negative->negative, predicted negative->positive"),
              "adddiff": ("[pasta] 'cold.' -> 'cold, but the waiter,", "gold negative->negative, predicted "
                                                                       "negative->positive")}
    for kind, outcome in kinds.items():
        lines = terminal.failure_line(outcome)
        assert all(len(line) <= terminal.LINE_LIMIT for line in lines), lines
        described = lines[-1]
        assert lines[0].startswith(f"  {outcome.nodeid}:") and described.endswith(wanted[kind][1]), (kind, lines)
        assert wanted[kind][0] in described, (kind, lines)
        if len(lines) == 2:  # a node id too long for the case beside it: the case on an indented line
            assert lines[0] == f"  {outcome.nodeid}:" and described.startswith(terminal.FOLDED + "["), lines
    assert len(terminal.failure_line(kinds["typos"])) == 2 and len(terminal.failure_line(kinds["intensity"])) == 1
    listed = terminal.failure_lines([short, *kinds.values()], shown=3)
    assert listed[0] == "5 failed cases, the first 3, one line each (-v explains every case in full):"
    assert listed[1:-2] == [*terminal.failure_line(short), *terminal.failure_line(kinds["revtgt"]),
                            *terminal.failure_line(kinds["typos"])]


TEMPLATE_SUITE = """\
suite: comparatives
tests:
  - name: better
    capability: comparatives
    type: mft
    domain: laptop
    template: "The {a1} {a1.is} {c} than the {a2}."
    slots: {a1: {aspect: screen}, a2: {aspect: keyboard}, c: {word: comparative_positive}}
    gold: {a1: positive, a2: negative}
    n: 3
"""


def test_verbose_explains_a_one_sentence_case_once_and_the_default_names_its_sentence(tmp_path):
    (tmp_path / "suite.yaml").write_text(TEMPLATE_SUITE)
    verbose = run_pytest(["suite.yaml", "--model", "lexicon", "-v"], cwd=tmp_path).out
    failures = verbose.split("= FAILURES =")[1].split("= absa-checks =")[0]
    blocks = [block for block in failures.split("\n_") if "template:mft (gold)" in block]
    assert blocks and "original: " not in failures and "variant : " not in failures, verbose[-3000:]
    for block in blocks:  # the case's sentence once, with its target, gold and prediction
        (sentence,) = [line for line in block.splitlines() if line.startswith("  sentence: ")]
        assert sentence.split(": ", 1)[1] + "\n    target " in block and block.count(sentence.split(": ", 1)[1]) == 1
    default = run_pytest(["suite.yaml", "--model", "lexicon"], cwd=tmp_path).out
    listed = [line for line in default.splitlines() if line.startswith("  suite.yaml::better[")]
    assert listed and all(' than the ' in line and line.endswith(" expected negative, predicted positive")
                          and "same words" not in line for line in listed), default[-3000:]


def test_a_failed_gates_reason_is_folded_on_to_a_second_line_not_cut(tmp_path, run):
    (tmp_path / "suite.yaml").write_text(SUITE.format(gates="    gates: {min_ars: 0.5}"))
    (tmp_path / "mymodel.py").write_text(MODEL)
    done = run(["suite.yaml", "--model", "python:mymodel:by_first_clause"], cwd=tmp_path)
    (gate,) = [g for g in done.report["gates"] if g["verdict"] == "fail"]
    lines = done.out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("gate failed: min_ars"))
    folded = [lines[start]] + [line for line in lines[start + 1:start + 4] if line.startswith("      ")]
    assert len(folded) >= 2 and all(len(line) <= terminal.LINE_LIMIT for line in folded), folded
    assert gate["reason"] in " ".join(line.strip() for line in folded) and " ..." not in folded[-1], folded


def test_a_folded_lines_continuation_is_never_merged_with_another_lines():
    """Two long lines folded over several whose last parts are alike ("      every unit") keep them: only a whole
    repeated line (with its continuations) is counted (issue 36: coverage lines of two sources lost their ends)."""
    lines = ["  arts-laptop: revnon 120/237 ...; adddiff: every", f"{terminal.FOLDED}unit",
             "  arts-restaurant: revnon 410/641 ...; adddiff: every", f"{terminal.FOLDED}unit",
             "same", f"{terminal.FOLDED}tail", "same", f"{terminal.FOLDED}tail"]
    assert terminal.fold_repeated(lines) == lines[:4] + ["same", f"{terminal.FOLDED}tail (2 times)"]
