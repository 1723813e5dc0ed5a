"""Allure: results per case and for the run, a single-file HTML report, rendered in headless Chromium.

The browser test keeps its screenshots in test-artifacts/ (allure-summary.png, allure-failed-case.png).
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from e2e.test_exit_status import setup_project
from offline_browser import require

from absa_checks.reports.allure_support import diff_html
from conftest import REPO, needs_extra

pytestmark = needs_extra("allure")

ALLURE = REPO / "node_modules" / ".bin" / "allure"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
ARTIFACTS = REPO / "test-artifacts"
CHROME_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", "--virtual-time-budget=30000",
                "--window-size=1280,1000"]


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
    food = next(r for name, r in found.items() if "'food'" in name)
    # what broke carries its table; a passing case carries only its stable parameters (a small report)
    assert food["status"] == "passed" and not food.get("attachments") and not food.get("descriptionHtml")
    assert "wine is awful" in room["descriptionHtml"]
    assert {(label["name"], label["value"]) for label in room["labels"]} >= {("epic", "tiny"), ("feature", "adddiff"),
                                                                               ("story", "adddiff"),
                                                                               ("capability", "aspect robustness"),
                                                                               ("test type", "inv")}
    assert [p["name"] for p in room["parameters"]] == ["case", "unit", "model"]
    assert [p.get("excluded", False) for p in room["parameters"]] == [False, False, True]  # history survives a new model
    assert room["attachments"][0]["name"] == "original vs variant"
    summary = found["absa-checks summary"]
    assert summary["status"] == "passed" and "the gate passed" in summary["statusDetails"]["message"]
    assert {a["name"] for a in summary["attachments"]} >= {"summary tables", "accuracy", "fail-rates"}
    assert "slices: multi-aspect" in summary["descriptionHtml"] and "aspects=single" in summary["descriptionHtml"]
    assert "production readiness" in summary["descriptionHtml"] and "a simpler model is not better" in \
        summary["descriptionHtml"]
    assert "capability x test type" in summary["descriptionHtml"] and ">aspect robustness</td>" in \
        summary["descriptionHtml"]
    gate = next(r for name, r in found.items() if name.startswith("gate max_fail_rate 50% on tiny"))
    # 1 of 3 failed: the interval [6%, 79%] straddles 50%: inconclusive, which the run counts as passed
    # (--absa-inconclusive pass, the default), in Allure as in the terminal
    assert gate["status"] == "passed" and gate["name"].endswith("(inconclusive, counted as passed)")
    assert gate["statusDetails"]["message"].startswith("gate inconclusive, counted as passed (--absa-inconclusive pass)")
    # the run's results start when the run started, so Allure's default order lists them first
    assert summary["start"] < min(r["start"] for r in found.values() if r["name"].startswith("adddiff"))
    assert "model=python:mymodel:by_first_clause" in (results / "environment.properties").read_text()
    categories = json.loads((results / "categories.json").read_text())
    assert {"target reversal not followed", "adapter error"} <= {c["name"] for c in categories}
    # attachments stay small: a case's; the summary's tables (the matrix's worst cells and examples with their
    # sentences among them) apart
    tables = {a["source"] for a in summary["attachments"] if a["name"] == "summary tables"}
    sizes = {p.name: p.stat().st_size for p in results.glob("*-attachment.html")}
    assert max(size for name, size in sizes.items() if name not in tables) < 4000
    assert len(tables) == 1 and sizes[next(iter(tables))] < 8000


def test_an_inconclusive_gate_counted_as_failed_is_failed_in_allure(tmp_path, run):
    setup_project(tmp_path, "gates: {max_fail_rate: 0.5}")
    results = tmp_path / "allure-results"
    outcome = run(["suite.yaml", "--model", "python:mymodel:by_first_clause", "--alluredir", str(results),
                   "--absa-inconclusive", "fail"], cwd=tmp_path)
    assert outcome.code == 1
    gate = next(r for r in read_results(results) if r["name"].startswith("gate max_fail_rate"))
    assert gate["status"] == "failed" and gate["name"].endswith("(inconclusive, counted as failed)")


def test_items_that_are_not_cases_have_their_own_history_ids(tmp_path, run):
    """Quarantined variants (skipped) used to share one history id per test, so Allure showed hundreds
    of them as a few results with retries; each pytest item is one Allure result now."""
    results = tmp_path / "allure-results"
    outcome = run(["suites/directional/revtgt.yaml", "--absa-sources", "builtin-restaurant", "--alluredir",
                   str(results)])
    skipped = [r for r in read_results(results) if r["status"] == "skipped"]
    assert len(skipped) == len(outcome.report["quarantine"]["variants"]) > 50
    assert len({r["historyId"] for r in skipped}) == len(skipped)
    assert all(r["name"].startswith("quarantined revtgt variant: ") for r in skipped)
    assert {(label["name"], label["value"]) for label in skipped[0]["labels"]} >= {("epic", "builtin-restaurant"),
                                                                                   ("feature", "revtgt")}


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


def needs_allure() -> None:
    """Skip naming the install, unless ABSA_REQUIRE_EXTRAS=1 (CI installs Allure: there it must run)."""
    require(ALLURE.exists(), "Allure 3 is not installed: run `npm ci` in the repository (Node >= 20.19); see the README")


def needs_chromium() -> None:
    require(CHROMIUM is not None, "no Chromium for the browser check: apt-get install chromium")

# Opens a report in a 1,280 px frame, as a reader's window, and says where it landed and whether the summary
# table fits its pane (no horizontal scrolling); --allow-file-access-from-files lets it look inside.
LANDING_PROBE = """<!doctype html><html><body style="margin:0">
<iframe id="report" src="REPORT" style="width:1280px;height:900px;border:0"></iframe><pre id="probe">pending</pre>
<script>
function probe() {
  const frame = document.getElementById("report");
  const inner = [...frame.contentDocument.querySelectorAll("iframe")].map(f => f.contentDocument)
    .find(d => d && d.querySelector("table"));
  if (!inner) { setTimeout(probe, 500); return; }
  const table = inner.querySelector("table");
  document.getElementById("probe").textContent = JSON.stringify({hash: frame.contentWindow.location.hash,
    tableWidth: table.scrollWidth, shownWidth: table.clientWidth, paneWidth: inner.documentElement.clientWidth,
    text: inner.body.innerText.slice(0, 300)});
}
setTimeout(probe, 1000);
</script></body></html>"""


def generate(results: Path, output: Path, *config: str) -> str:
    built = subprocess.run([str(ALLURE), "generate", str(results), "--output", str(output), *config], cwd=REPO,
                           capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr[-2000:]
    return built.stdout


def landing(tmp_path: Path, report: Path) -> dict:
    harness = tmp_path / "landing.html"
    harness.write_text(LANDING_PROBE.replace("REPORT", report.as_uri()))
    command = [CHROMIUM, *CHROME_FLAGS, "--allow-file-access-from-files", f"--user-data-dir={tmp_path / 'probe'}",
               "--dump-dom", harness.as_uri()]
    for _ in range(3):  # a loaded machine can need more than one go to finish rendering the page
        dom = subprocess.run(command, capture_output=True, text=True, timeout=180).stdout
        found = dom.split('<pre id="probe">')[-1].split("</pre>")[0]
        if found.startswith("{"):
            return json.loads(html.unescape(found))
    raise AssertionError(f"the report did not render its summary: {dom[-2000:]}")


@pytest.mark.slow
def test_single_file_html_report_opens_on_the_summary_in_chromium(tmp_path, run):
    needs_allure()
    needs_chromium()
    results = allure_run(tmp_path, run)
    html_dir = tmp_path / "allure-report"
    printed = generate(results, html_dir)
    index = html_dir / "index.html"
    assert index.is_file() and [p.name for p in html_dir.glob("*.html")] == ["index.html"]  # one file
    by_id = json.loads((html_dir / "test-results.json").read_text())["byId"]
    summary_id = next(i for i, r in by_id.items() if r["name"] == "absa-checks summary")
    failed_id = next(i for i, r in by_id.items() if r["status"] == "failed" and "'room'" in r["name"])
    # the command says where the report is, and that it opens on the summary
    assert f"absa-checks: report at {index}; it opens on the absa-checks summary ({index.as_uri()}#/{summary_id})" \
        in printed
    # opened without a link to a result, the report lands on the summary: verdict first, table within the pane
    landed = landing(tmp_path, index)
    assert landed["hash"] == f"#/{summary_id}"
    assert landed["text"].startswith("PASSED: the gate passed")
    assert landed["tableWidth"] <= landed["shownWidth"] <= landed["paneWidth"], landed
    ARTIFACTS.mkdir(exist_ok=True)

    def page(result_id: str, profile: str, screenshot: str, rendered: str) -> str:
        url = f"{index.as_uri()}#/{result_id}"
        common = [CHROMIUM, *CHROME_FLAGS, f"--user-data-dir={tmp_path / profile}"]
        for _ in range(3):
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


@pytest.mark.slow
def test_allure_counts_what_pytest_counts(tmp_path, run):
    needs_allure()
    """Every pytest item is one Allure result (quarantined variants included), plus the run's own results:
    the summary and one per gate."""
    results = tmp_path / "allure-results"
    outcome = run(["suites/", "--absa-sources", "builtin-restaurant", "--absa-sample", "60", "-q", "--tb=no",
                   "--alluredir", str(results)])
    counted = {word: int(n) for n, word in re.findall(r"(\d+) (passed|failed|skipped)", outcome.out.splitlines()[-1])}
    assert counted["skipped"] > 0
    generate(results, tmp_path / "allure-report")
    stats = json.loads((tmp_path / "allure-report" / "summary.json").read_text())["stats"]
    run_results = [r for r in read_results(results) if r["fullName"].startswith("absa-checks::")]
    own = {status: sum(r["status"] == status for r in run_results) for status in ("passed", "failed", "skipped")}
    assert len(run_results) == 1 + len([g for g in outcome.report["gates"] if g["verdict"] != "no-data"])
    for status in ("passed", "failed", "skipped"):
        assert stats.get(status, 0) == counted.get(status, 0) + own[status], (stats, counted, own)
    assert "retries" not in stats


def test_the_multi_file_report_for_large_runs(tmp_path, run):
    needs_allure()
    """allure/multi-file.mjs: the same report as a folder (the page loads only what it shows); it also
    opens on the summary, and says where it is."""
    results = allure_run(tmp_path, run)
    html_dir = tmp_path / "allure-report"
    printed = generate(results, html_dir, "--config", str(REPO / "allure" / "multi-file.mjs"))
    index = html_dir / "index.html"
    assert f"absa-checks: report at {index}; serve it to read it (it opens on the absa-checks summary): " \
           f"npx allure open {html_dir}" in printed
    assert "file://" not in printed  # a folder report read from file:// only says "Failed to fetch"
    assert index.stat().st_size < 100_000 and (html_dir / "data" / "test-results").is_dir()
    assert "location.replace(" in index.read_text()


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
