"""The JSON report's contract (schema, run facts, every case) and the Markdown summary."""

from __future__ import annotations


def test_json_report_carries_the_contract(run, tmp_path):
    markdown = tmp_path / "summary.md"
    result = run(["suites/", "--absa-sources", "restaurant-inline", "--absa-markdown", str(markdown)],
                 env={"ABSA_DATA_DIR": ""})
    report = result.report
    assert report["schema"] == "absa-checks/report" and report["schema_version"] == 1
    assert report["rates_are"] == "fractions in [0, 1]"
    run_facts = report["run"]
    assert run_facts["model"]["name"] == "lexicon" and len(run_facts["model"]["fingerprint"]) == 16
    assert run_facts["seed"] == 0 and len(run_facts["suite_sha256"]) == 64
    assert set(run_facts["suites"]) == {"suites/directional/revtgt.yaml", "suites/invariance/revnon.yaml",
                                        "suites/invariance/adddiff.yaml"}
    assert {"python", "absa-checks", "pytest"} <= set(run_facts["versions"])
    source = report["sources"]["restaurant-inline"]
    assert source["units"] == 10
    for rate in (source["ars"], source["original_accuracy"], source["strategies"]["revtgt"]["fail_rate"]):
        assert 0 <= rate["ci95"][0] <= rate["value"] <= rate["ci95"][1] <= 1
        assert rate["value"] == rate["k"] / rate["n"]
    assert report["summary"]["cases"] == len(report["cases"]) == 25
    case = report["cases"][0]
    assert {"sentence", "term", "from", "to", "gold"} <= set(case["original"])
    assert set(case["variant_prediction"]["probs"]) == {"negative", "neutral", "positive"}
    assert case["expect"] in ("flip", "unchanged") and case["status"] in ("passed", "failed")
    assert [g["gate"] for g in report["gates"]].count("max_fail_rate") == 3
    assert report["verdict"]["exit_status"] == result.code == 0

    text = markdown.read_text()
    assert text.startswith("## absa-checks: PASSED")
    assert ("| source | strategy | n | accuracy ori -> new | fail rate [95% CI] | validity (audited) [95% CI] | ARS [95% CI] "
            "| gate |") in text
    assert "| restaurant-inline | all (units) | 10 |" in text
    assert "### Gates" in text
