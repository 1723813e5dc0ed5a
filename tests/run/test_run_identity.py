"""What a run was asked is part of its identity, and a requested gate is never decided on nothing:
shards compared with other baselines or selected with other -k / -m are not merged (and the message names
what differs: the baseline, the selection, a moved pytest rootdir); a shard that gets no unit is a valid
shard; a partial baseline, --absa-require-claims without claims, one checkpoint named twice and a simple
baseline that is the model under test are refused (docs/reliability.md, rows 170-189). Real pytest and
absa-checks processes on scratch projects."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from absa_checks.run.shards import shard_of
from conftest import REPO, run_pytest

NO_DATA = {"ABSA_DATA_DIR": ""}
SUITE = """suite: tiny
sources:
  tiny:
    examples:
{examples}
tests:
  - name: adddiff
    strategy: adddiff
    sources: [tiny]
    gates: {{max_fail_rate: 1.0}}
  - name: revnon
    strategy: revnon
    sources: [tiny]
    gates: {{max_fail_rate: 1.0}}
"""
EXAMPLE = """      - id: {id}
        sentence: "The {thing} was great, but the staff was rude."
        aspect: {thing}
        polarity: positive
        aspects: [{{term: staff, polarity: negative}}]
        variants:
          adddiff: "The {thing} was great, but the staff was rude, and the music is awful."
          revnon: "The {thing} was great, but the staff was extremely rude."
"""
THINGS = ["food", "pasta", "wine", "soup", "bread", "salad"]


def project(root: Path, ids: list[str] | None = None) -> Path:
    ids = ids or ["u0", "u1", "u2", "u3", "u4", "u5"]
    examples = "".join(EXAMPLE.format(id=i, thing=THINGS[n % len(THINGS)]) for n, i in enumerate(ids))
    (root / "suites").mkdir(parents=True, exist_ok=True)
    (root / "suites" / "s.yaml").write_text(SUITE.format(examples=examples.rstrip("\n")), encoding="utf-8")
    return root


def pt(root: Path, *args: str, report: str | None = None):
    return run_pytest(["suites", "-q", "--tb=no", *args], cwd=root, report=root / report if report else None,
                      env=NO_DATA)


def merge(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "absa_checks.cli", "merge", *args], cwd=root, capture_output=True,
                          text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(REPO)})


def shards(root: Path, n: int, *args: str, per_shard: dict[int, list[str]] | None = None) -> list[str]:
    """Run shard 1..n (extra args for some shards); the report names."""
    names = []
    for k in range(1, n + 1):
        name = f"sh{k}.json"
        result = pt(root, "--absa-shard", f"{k}/{n}", *args, *(per_shard or {}).get(k, []), report=name)
        assert result.report is not None, result.out[-2000:]
        names.append(name)
    return names


# -- shards -------------------------------------------------------------------------------------------------

@pytest.mark.slow
def test_a_shard_that_gets_no_unit_exits_0_and_the_merge_equals_the_single_run(tmp_path: Path):
    ids = ["u0", "u1"]
    # a split of the run where one shard gets neither unit
    n = next(n for n in range(2, 50) if shard_of("tiny\0u0", n) == shard_of("tiny\0u1", n))
    empty = next(k for k in range(1, n + 1) if k != shard_of("tiny\0u0", n))
    root = project(tmp_path, ids)
    single = pt(root, report="single.json")
    assert single.code == 0, single.out[-2000:]
    for k in range(1, n + 1):
        result = pt(root, "--absa-shard", f"{k}/{n}", report=f"sh{k}.json")
        assert result.code == 0, (k, result.out[-2000:])  # a CI matrix job of an empty shard does not fail
        if k == empty:
            assert result.report["cases"] == [] and f"shard {k}/{n} of the run, 0 cases" in result.out
    merged = merge(root, *(f"sh{k}.json" for k in range(1, n + 1)), "-o", "m.json")
    assert merged.returncode == 0, merged.stderr
    report = json.loads((root / "m.json").read_text())
    assert sorted(c["nodeid"] for c in report["cases"]) == sorted(c["nodeid"] for c in single.report["cases"])
    assert report["run"]["suites"] == single.report["run"]["suites"]


@pytest.mark.slow
def test_shards_compared_with_other_baselines_are_not_merged_and_the_baseline_is_named(tmp_path: Path):
    root = project(tmp_path)
    pt(root, report="base.json")
    released = json.loads((root / "base.json").read_text())
    released["timing"]["wall_seconds"] += 1  # another report (another run of the released model)
    (root / "other.json").write_text(json.dumps(released))
    names = shards(root, 2, "--absa-baseline", "base.json")
    other = pt(root, "--absa-shard", "2/2", "--absa-baseline", "other.json", report="sh2-other.json")
    refused = merge(root, names[0], "sh2-other.json", "-o", "m.json")
    assert refused.returncode == 2 and "another --absa-baseline (its content differs)" in refused.stderr, \
        refused.stderr + other.out[-1000:]
    assert not (root / "m.json").exists() and "Traceback" not in refused.stderr
    none = pt(root, "--absa-shard", "2/2", report="sh2-none.json")
    refused = merge(root, names[0], "sh2-none.json", "-o", "m.json")
    assert refused.returncode == 2 and "--absa-baseline given to one shard and not to the other" in refused.stderr
    # the same baseline, the same bytes: merged
    assert merge(root, *names, "-o", "m.json").returncode in (0, 1) and (root / "m.json").exists()
    assert none.code == 0


@pytest.mark.slow
def test_shards_selected_with_other_k_or_m_are_not_merged_and_the_selection_is_named(tmp_path: Path):
    root = project(tmp_path)
    names = shards(root, 2)
    for option, value in (("-k", "not adddiff"), ("-m", "not slow")):
        pt(root, "--absa-shard", "2/2", option, value, report="sh2-sel.json")
        refused = merge(root, names[0], "sh2-sel.json", "-o", "m.json")
        assert refused.returncode == 2, refused.stderr
        assert f"another selection: {option} '{value}', not (none)" in refused.stderr
        assert "suite" not in refused.stderr  # the selection differs, not the suites
        assert not (root / "m.json").exists()


@pytest.mark.slow
def test_a_moved_rootdir_is_named_not_blamed_on_byte_identical_suites(tmp_path: Path):
    root = project(tmp_path / "project")
    pt(root, report="base.json")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.copy(root / "base.json", elsewhere / "base.json")  # the same bytes, outside the project
    pt(root, "--absa-shard", "1/2", "--absa-baseline", "base.json", report="sh1.json")
    pt(root, "--absa-shard", "2/2", "--absa-baseline", str(elsewhere / "base.json"), report="sh2.json")
    refused = merge(root, "sh1.json", "sh2.json", "-o", "m.json")
    assert refused.returncode == 2, refused.stderr
    assert "the same suite and examples files (byte-identical) named from another pytest rootdir" in refused.stderr
    assert "--rootdir" in refused.stderr and "another --absa-baseline" not in refused.stderr
    # with the rootdir set, the same shards merge
    pt(root, "--absa-shard", "2/2", "--absa-baseline", str(elsewhere / "base.json"), f"--rootdir={root}",
       report="sh2.json")
    assert merge(root, "sh1.json", "sh2.json", "-o", "m.json").returncode in (0, 1) and (root / "m.json").exists()


# -- requested gates decided on something ------------------------------------------------------------------

@pytest.mark.slow
def test_a_partial_or_shard_baseline_fails_the_no_regression_gate_in_one_line(tmp_path: Path):
    root = project(tmp_path)
    pt(root, report="base.json")
    released = json.loads((root / "base.json").read_text())
    (root / "partial.json").write_text(json.dumps({**released, "complete": False, "stopped": "interrupted"}))
    result = pt(root, "--absa-baseline", "partial.json")
    assert result.code == 1, result.out[-2000:]
    assert "baseline report partial.json is partial (complete: false, stopped: interrupted)" in result.summary
    assert "absa-checks FAILED" in result.summary and "Traceback" not in result.out
    pt(root, "--absa-shard", "1/2", report="sh1.json")
    result = pt(root, "--absa-baseline", "sh1.json")
    assert result.code == 1 and "is the report of shard 1/2" in result.summary
    assert pt(root, "--absa-baseline", "base.json").code == 0  # the complete report is a release


def test_require_claims_without_any_claim_fails_naming_the_option_and_the_fix(tmp_path: Path):
    root = project(tmp_path)
    result = pt(root, "--absa-require-claims", report="r.json")
    assert result.code == 1, result.out[-2000:]
    assert "absa-checks FAILED" in result.summary and "PASSED" not in result.summary
    assert "--absa-require-claims" in result.summary and "no claim to check" in result.summary
    assert "claims:" in result.summary  # how to add one
    gate = next(g for g in result.report["gates"] if g["gate"] == "claim_reproduced")
    assert gate["verdict"] == "fail"


def test_one_checkpoint_named_twice_is_a_usage_error(tmp_path: Path):
    root = project(tmp_path)
    (root / "my_model.py").write_text("def predict(queries):\n    return ['positive' for _ in queries]\n")
    (root / "models.yaml").write_text(
        "models:\n  s1: {kind: python, target: 'my_model:predict'}\n  s2: {kind: python, target: 'my_model:predict'}\n"
        "  lex: {kind: lexicon}\n  lex2: {kind: lexicon, scope: target}\n"
        "groups:\n  seeds: [s1, s2]\n")
    for option in ("s1,s2", "seeds", "lexicon,lex", "lex,lex2"):
        result = pt(root, "--model", option)
        assert result.code == 4, (option, result.out[-2000:])
        assert "are one checkpoint" in result.out and "std" in result.out and "Traceback" not in result.out
    assert pt(root, "--model", "lexicon,lexicon-sentence").code in (0, 1)  # two checkpoints


def test_a_simple_baseline_that_is_the_model_under_test_is_a_usage_error(tmp_path: Path):
    root = project(tmp_path)
    (root / "models.yaml").write_text("models:\n  mylex: {kind: lexicon}\n")
    for args in (["--absa-simple-baseline", "lexicon"], ["--absa-simple-baseline", "mylex"],
                 ["--model", "lexicon-sentence,lexicon", "--absa-simple-baseline", "mylex"]):
        result = pt(root, *args)
        assert result.code == 4, (args, result.out[-2000:])
        assert "is the model under test" in result.out and "Traceback" not in result.out
    assert pt(root, "--absa-simple-baseline", "lexicon-sentence").code in (0, 1)
