"""Allure: results per case and for the run, a single-file HTML report, rendered in headless Chromium.

The browser test keeps its screenshots in test-artifacts/ (allure-summary.png, allure-failed-case.png).
"""

from __future__ import annotations

import html
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPO
from test_exit_status import setup_project

pytest.importorskip("allure_pytest", reason="pip install -e '.[test]' (allure-pytest)")
from absa_checks.allure_support import diff_html  # noqa: E402

ALLURE = REPO / "node_modules" / ".bin" / "allure"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
ARTIFACTS = REPO / "test-artifacts"
CHROME_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", "--virtual-time-budget=30000",
                "--window-size=1400,1000"]


def test_word_diff_highlights_only_what_changed():
    left, right = diff_html("The room is quiet.", "The room is quiet, but the wine is awful.")
    # both end with ".": what was appended sits before it, and nothing of the original is removed
    assert left == "The room is quiet."
    assert right == "The room is quiet<mark>, but the wine is awful</mark>."
    left, right = diff_html("The food was great.", "The food was terrible.")
    assert "<del>great</del>" in left and "<mark>terrible</mark>" in right


def allure_run(tmp_path: Path, run, extra: list[str] = ()) -> Path:
    setup_project(tmp_path, "gates: {max_fail_rate: 0.5}")
    results = tmp_path / "allure-results"
    outcome = run(["suite.yaml", "--model", "python:mymodel:by_first_clause", "--alluredir", str(results),
                   *extra], cwd=tmp_path)
    assert outcome.code == 0, outcome.out[-2000:]
    return results


def read_results(results: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in results.glob("*-result.json")]


def test_results_carry_titles_labels_attachments_summary_and_gates(tmp_path, run):
    results = allure_run(tmp_path, run)
    found = {r["name"]: r for r in read_results(results)}
    room = next(r for name, r in found.items() if "'room'" in name)
    assert room["status"] == "failed"
    assert {(l["name"], l["value"]) for l in room["labels"]} >= {("epic", "tiny"), ("feature", "adddiff"),
                                                                   ("story", "adddiff")}
    assert [p["name"] for p in room["parameters"]] == ["case", "unit", "model"]
    assert [p.get("excluded", False) for p in room["parameters"]] == [False, False, True]  # history survives a new model
    assert room["attachments"][0]["name"] == "original vs variant"
    summary = found["absa-checks summary"]
    assert summary["status"] == "passed" and "the gate passed" in summary["statusDetails"]["message"]
    assert {a["name"] for a in summary["attachments"]} >= {"summary tables", "accuracy", "fail-rates"}
    assert "slices: multi-aspect" in summary["descriptionHtml"] and "aspects=single" in summary["descriptionHtml"]
    gate = next(r for name, r in found.items() if name.startswith("gate max_fail_rate 50% on tiny"))
    assert gate["status"] == "unknown"  # 1 of 3 failed: the interval [6%, 79%] straddles 50%: inconclusive
    assert "model=python:mymodel:by_first_clause" in (results / "environment.properties").read_text()
    categories = json.loads((results / "categories.json").read_text())
    assert {"target reversal not followed", "adapter error"} <= {c["name"] for c in categories}
    assert max(p.stat().st_size for p in results.glob("*-attachment.html")) < 4000  # attachments stay small


def test_adapter_errors_are_broken_not_failed(tmp_path, run):
    setup_project(tmp_path, "gates: {max_fail_rate: 0.5}")
    results = tmp_path / "allure-results"
    run(["suite.yaml", "--model", "python:mymodel:boom", "--alluredir", str(results)], cwd=tmp_path)
    cases = [r for r in read_results(results) if r["name"].startswith("adddiff")]
    assert cases and {r["status"] for r in cases} == {"broken"}


def test_results_are_written_safely_under_xdist(tmp_path, run):
    pytest.importorskip("xdist")
    results = allure_run(tmp_path, run, ["-n", "2"])
    names = [r["name"] for r in read_results(results)]
    assert len([n for n in names if n.startswith("adddiff")]) == 3
    assert names.count("absa-checks summary") == 1  # written once, by the controller


@pytest.mark.skipif(not ALLURE.exists(), reason="Allure 3 is not installed: run `npm ci` in the repository "
                                                "(Node >= 20.19); see the README")
@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium for the browser check: apt-get install chromium")
def test_single_file_html_report_renders_in_chromium(tmp_path, run):
    results = allure_run(tmp_path, run)
    html_dir = tmp_path / "allure-report"
    built = subprocess.run([str(ALLURE), "generate", str(results), "--output", str(html_dir)], cwd=REPO,
                           capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr[-2000:]
    index = html_dir / "index.html"
    assert index.is_file() and [p.name for p in html_dir.glob("*.html")] == ["index.html"]  # one file
    by_id = json.loads((html_dir / "test-results.json").read_text())["byId"]
    summary_id = next(i for i, r in by_id.items() if r["name"] == "absa-checks summary")
    failed_id = next(i for i, r in by_id.items() if r["status"] == "failed" and "'room'" in r["name"])
    ARTIFACTS.mkdir(exist_ok=True)

    def page(result_id: str, profile: str, screenshot: str, rendered: str) -> str:
        url = f"{index.as_uri()}#/{result_id}"
        common = [CHROMIUM, *CHROME_FLAGS, f"--user-data-dir={tmp_path / profile}"]
        for _ in range(3):  # a loaded machine can need more than one go to finish rendering the page
            dom = subprocess.run(common + ["--dump-dom", url], capture_output=True, text=True, timeout=180).stdout
            dom = html.unescape(dom)  # descriptions render in an iframe whose srcdoc the dump escapes
            if rendered in dom:
                break
        subprocess.run(common + [f"--screenshot={ARTIFACTS / screenshot}", url], capture_output=True, timeout=180)
        return dom

    summary = page(summary_id, "chrome-a", "allure-summary.png", "fail rate [95% CI]")
    assert "absa-checks summary" in summary and "the gate passed" in summary
    assert "fail rate [95% CI]" in summary  # the summary table, shown in the description
    assert '<img alt="accuracy"' in summary and '<img alt="fail-rates"' in summary  # the pictures, inline
    assert summary.count('src="data:image/png;base64,') >= 2
    failed = page(failed_id, "chrome-b", "allure-failed-case.png", "The room is quiet")
    assert "The room is quiet" in failed and "<mark>, but the wine is awful</mark>" in failed
    assert "original vs variant" in failed  # the attachment is listed with the result
    assert (ARTIFACTS / "allure-summary.png").stat().st_size > 10_000


def test_several_checkpoints_show_their_table_and_name_the_checkpoint(tmp_path, run):
    results = allure_run(tmp_path, run, ["--model", "python:mymodel:by_first_clause,lexicon"])
    found = read_results(results)
    titles = [r["name"] for r in found if r["name"].startswith("adddiff")]
    assert len(titles) == 6 and sum(t.endswith("[lexicon]") for t in titles) == 3
    summary = next(r for r in found if r["name"] == "absa-checks summary")
    assert "each checkpoint (%)" in summary["descriptionHtml"] and "mean±std" in summary["descriptionHtml"]
    gate = next(r for r in found if r["name"].startswith("gate max_fail_rate"))
    assert "mean of 2 checkpoints" in gate["statusDetails"]["message"]
    environment = (results / "environment.properties").read_text()
    assert "checkpoint.lexicon=" in environment and "model=python:mymodel:by_first_clause,lexicon" in environment
