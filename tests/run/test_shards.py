"""--absa-shard K/N splits a run by unit on every machine alike; `absa-checks merge` gives the report one
run would have written (all but `timing` equal)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter

import pytest

from absa_checks.run.shards import parse_shard, shard_of
from conftest import REPO, needs_extra

ARGS = ["suites/", "--absa-sources", "builtin-restaurant,builtin-laptop", "--absa-sample", "40", "-q", "--tb=no"]


@pytest.mark.parametrize("value, fragment", [("3", "write K/N"), ("0/4", "K must be from 1 to N"),
                                             ("5/4", "K must be from 1 to N"), ("a/b", "write K/N")])
def test_a_shard_is_k_of_n(value, fragment):
    with pytest.raises(ValueError, match=fragment):
        parse_shard(value)
    assert parse_shard("2/4") == (2, 4)


def test_the_split_is_a_fixed_hash_and_roughly_even():
    counts = Counter(shard_of(f"src\0unit-{i}", 4) for i in range(4000))
    assert set(counts) == {1, 2, 3, 4} and min(counts.values()) > 900
    assert shard_of("builtin-restaurant\0u1", 4) == shard_of("builtin-restaurant\0u1", 4)


def merge(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "absa_checks.cli", "merge", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=300)


@pytest.mark.slow
def test_four_shards_merged_equal_the_single_run(tmp_path, run):
    single = run(ARGS).report
    shards = []
    for k in range(1, 5):
        result = run([*ARGS, "--absa-shard", f"{k}/4"])  # the fixture writes each run's --absa-report
        assert result.code == 0 and f"absa-checks SHARD {k}/4: shard {k}/4 of the run" in result.out
        (tmp_path / f"shard-{k}.json").write_text(json.dumps(result.report))
        shards.append(result.report)
    # a unit's cases are in one shard only, and every case of the single run is in some shard
    owner = {}
    for k, report in enumerate(shards, 1):
        for case in report["cases"]:
            assert owner.setdefault((case["source"], case["unit"]), k) == k
    assert sorted(c["nodeid"] for s in shards for c in s["cases"]) == sorted(c["nodeid"] for c in single["cases"])
    merged = merge(*(str(tmp_path / f"shard-{k}.json") for k in (3, 1, 4, 2)), "-o", str(tmp_path / "merged.json"))
    assert merged.returncode == single["verdict"]["exit_status"], merged.stderr
    result = json.loads((tmp_path / "merged.json").read_text())
    assert set(result) == set(single)
    # byte for byte, apart from timing: the same JSON, in the same order
    def without_timing(report: dict) -> str:
        return json.dumps({k: v for k, v in report.items() if k != "timing"}, indent=1)

    assert without_timing(result) == without_timing(single)
    assert result["capabilities"]["aspect robustness"]["inv"]["n"] > 0  # the matrix too, counted over every shard
    assert f"absa-checks {'PASSED' if single['verdict']['passed'] else 'FAILED'}: " in merged.stdout


def test_a_missing_or_repeated_shard_is_named(tmp_path, run):
    for k in (1, 2):
        (tmp_path / f"s{k}.json").write_text(json.dumps(run([*ARGS, "--absa-shard", f"{k}/3"]).report))
    missing = merge(str(tmp_path / "s1.json"), str(tmp_path / "s2.json"), "-o", str(tmp_path / "m.json"))
    assert missing.returncode == 2 and "shard 3 of 3 is missing" in missing.stderr
    twice = merge(str(tmp_path / "s1.json"), str(tmp_path / "s1.json"), "-o", str(tmp_path / "m.json"))
    assert twice.returncode == 2 and "shard 1/3 is given twice" in twice.stderr
    assert "Traceback" not in missing.stderr + twice.stderr and not (tmp_path / "m.json").exists()


def test_a_bad_shard_option_is_a_usage_error(run):
    result = run(["suites/", "--absa-shard", "5/4"])
    assert result.code == 4 and "--absa-shard 5/4: K must be from 1 to N" in result.out


@needs_extra("allure")
def test_allure_results_of_shards_gathered_in_one_folder_get_one_summary_from_the_merge(tmp_path, run):
    results = tmp_path / "allure-results"
    for k in (1, 2):
        report = run([*ARGS, "--absa-sources", "builtin-restaurant", "--absa-shard", f"{k}/2", "--alluredir",
                      str(results)]).report
        (tmp_path / f"s{k}.json").write_text(json.dumps(report))
    found = [json.loads(p.read_text()) for p in results.glob("*-result.json")]
    assert found and not any(r["name"] == "absa-checks summary" for r in found)  # shards write cases only
    merged = merge(str(tmp_path / "s1.json"), str(tmp_path / "s2.json"), "-o", str(tmp_path / "m.json"),
                   "--alluredir", str(results))
    assert merged.returncode in (0, 1), merged.stderr
    names = [json.loads(p.read_text())["name"] for p in results.glob("*-result.json")]
    assert names.count("absa-checks summary") == 1 and any(n.startswith("gate ") for n in names)


def test_every_checkpoints_units_split_the_same_way(run):
    owner = {}
    for k in (1, 2):
        report = run([*ARGS, "--absa-model", "lexicon,lexicon-sentence", "--absa-shard", f"{k}/2"]).report
        for case in report["cases"]:
            assert owner.setdefault((case["source"], case["unit"]), k) == k  # both checkpoints' cases: one shard
    assert len(set(owner.values())) == 2


@pytest.mark.slow
def test_merged_shards_keep_the_groups_splits_and_claims(tmp_path, run):
    models = tmp_path / "models.yaml"
    # t2 and s2 answer as t1 and s1 do, as other checkpoints (one checkpoint named twice is refused)
    (tmp_path / "copies.py").write_text("from model_adapters.lexicon import LexiconAdapter\n"
                                        "def target(queries):\n    return LexiconAdapter('target').predict(queries)\n"
                                        "def sentence(queries):\n    return LexiconAdapter('sentence').predict(queries)\n")
    models.write_text("models:\n  t1: {kind: lexicon, scope: target}\n  t2: {kind: python, target: 'copies:target'}\n"
                      "  s1: {kind: lexicon, scope: sentence}\n  s2: {kind: python, target: 'copies:sentence'}\n"
                      "groups:\n  grid:\n    splits: {target: [t1, t2], sentence: [s1, s2]}\n"
                      "    claims: {source: builtin-restaurant, accuracy: 0.6}\n")
    args = [*ARGS, "--absa-models", str(models), "--model", "grid"]
    single = run(args).report
    assert single["splits"]["splits"] == {"target": ["t1", "t2"], "sentence": ["s1", "s2"]}
    assert single["claims"][0]["subject"] == "grid"
    for k in (1, 2):
        (tmp_path / f"shard-{k}.json").write_text(json.dumps(run([*args, "--absa-shard", f"{k}/2"]).report))
    merged = merge(str(tmp_path / "shard-1.json"), str(tmp_path / "shard-2.json"), "-o", str(tmp_path / "m.json"))
    assert merged.returncode == single["verdict"]["exit_status"], merged.stderr
    result = json.loads((tmp_path / "m.json").read_text())
    for key in ("splits", "claims", "readiness"):
        assert result[key] == single[key], key
