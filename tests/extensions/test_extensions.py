"""Extensions from outside the package, registered as an installed package registers them (entry points, no
edit of absa_checks/): the example strategy, gate, adapter kind, reporter and source of tests/extensions/, run
together by a suite through the API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from absa_checks import evaluate, sources
from absa_checks.common.errors import AbsaChecksError
from absa_checks.run import reporters
from absa_checks.sources import catalog
from absa_checks.suites import gate_registry
from tests.extensions import registration
from tests.extensions.test_docs_examples import ACME

SUITE = """suite: extended
tests:
  - name: shouting
    strategy: shout
    min_length: 5
    sources: [builtin-laptop]
    sample: 6
    gates: {max_fail_rate: 0.9, min_source_accuracy: 0.1, basis: point}
  - name: chained
    strategy: shout+adddiff
    sources: [builtin-laptop]
    sample: 4
"""
ACME_TEST = """  - name: acme
    strategy: adddiff
    sources: [acme-restaurant]
    gates: {min_source_accuracy: 0.4, basis: point}
"""


@pytest.fixture
def installed(tmp_path: Path, monkeypatch):
    """The extensions' package on sys.path, as PYTHONPATH=site would put it (the registries read it afresh)."""
    monkeypatch.syspath_prepend(str(registration.install(tmp_path / "site")))
    registration.forget()
    yield
    registration.forget()


def test_one_of_each_seam_installed_runs_in_one_suite(installed, tmp_path: Path):
    """A strategy, a gate, an adapter kind, a reporter and a dataset source, all registered from outside."""
    data = tmp_path / "data"
    (data / "acme").mkdir(parents=True)
    (data / "acme" / "test.json").write_text(json.dumps(ACME))
    suite = tmp_path / "extended.yaml"
    suite.write_text(SUITE + ACME_TEST)
    assert catalog.source_domain("acme-restaurant") == "restaurant"  # declared with the source: no second entry
    result = evaluate(model="constant:positive", suites=suite, data=data, rootdir=tmp_path, no_cache=True,
                      report=tmp_path / "r.json")
    assert result.report["run"]["model"]["kind"] == "constant"
    assert {case["variant_prediction"]["label"] for case in result.report["cases"]} == {"positive"}
    shouted = [o for o in result.outcomes if o.strategy == "shout"]
    assert shouted and all(o.variant["sentence"] != o.original["sentence"] for o in shouted)
    assert any(o.strategy == "shout+adddiff" for o in result.outcomes)
    assert {o.source for o in result.outcomes if o.strategy == "adddiff"} == {"acme-restaurant"}
    gates = {(g.name, g.source): g for g in result.gates}
    assert set(gates) == {("max_fail_rate", "builtin-laptop"), ("min_source_accuracy", "builtin-laptop"),
                          ("min_source_accuracy", "acme-restaurant")}
    added = gates["min_source_accuracy", "builtin-laptop"]
    assert added.verdict == "pass" and added.reason.startswith("accuracy on the source's originals ")
    assert added.rate is not None and added.rate.value == result.metrics.sources["builtin-laptop"].original_accuracy.value
    acme = gates["min_source_accuracy", "acme-restaurant"]  # a1 positive, a2 negative: constant:positive has 1 of 2
    assert acme.rate is not None and acme.rate.value == 0.5 and acme.verdict == "pass"
    assert [line for line in result.summary if line.startswith("gates CSV: ")] == [f"gates CSV: {tmp_path / 'r.gates.csv'}"]
    rows = (tmp_path / "r.gates.csv").read_text().splitlines()
    assert rows[0] == "gate,test,source,verdict" and "min_source_accuracy,extended.yaml::acme,acme-restaurant,pass" in rows[1:]


def test_the_schema_offers_the_installed_gate_and_strategy(installed):
    from absa_checks.suites.schema import suite_schema

    text = str(suite_schema())
    assert "min_source_accuracy" in text and "shout" in text


def test_without_the_package_they_are_unknown(tmp_path: Path):
    registration.forget()
    suite = tmp_path / "extended.yaml"
    suite.write_text(SUITE)
    with pytest.raises(AbsaChecksError, match="extended.yaml:5: unknown key 'min_length'"):
        evaluate(model="lexicon", suites=suite, rootdir=tmp_path, no_cache=True)
    suite.write_text(SUITE.replace("    min_length: 5\n", ""))
    with pytest.raises(AbsaChecksError, match="extended.yaml:4: 'tests.0.strategy' is 'shout'; use one of: revtgt"):
        evaluate(model="lexicon", suites=suite, rootdir=tmp_path, no_cache=True)


BROKEN = [
    ("absa_checks.gates", "max_typo", "tests.extensions.example_strategy:STRATEGY", "is not a Gate named 'max_typo'",
     gate_registry.registry),
    ("absa_checks.reporters", "csv", "tests.extensions.example_reporter:REPORTER", "is not a Reporter named 'csv'",
     reporters.registry),
    ("absa_checks.reporters", "gates_csv", "tests.extensions.example_source:SOURCE",
     "is not a Reporter named 'gates_csv'", reporters.registry),
    ("absa_checks.reporters", "json", "absa_checks.reports.report_json:REPORTER",
     ": 'json' is already declared (built in); give it another name", reporters.registry),
    ("absa_checks.sources", "acme-restaurant", "tests.extensions.example_reporter:REPORTER",
     "is not a DatasetSource named 'acme-restaurant'", sources.registry),
    ("absa_checks.sources", "acme-restaurant", "tests.extensions.no_such_module:SOURCE",
     "cannot be loaded: ModuleNotFoundError: No module named 'tests.extensions.no_such_module'", sources.registry),
    ("absa_checks.sources", "acme-restaurant", "tests.extensions.test_extensions:WRONG_DOMAIN",
     ": its domain is 'kitchen'; use one of: restaurant, laptop (or None)", sources.registry),
]
WRONG_DOMAIN = sources.DatasetSource("acme-restaurant", "acme/test.json", "the ACME test set",
                                     lambda data_dir, name: None, "kitchen")


@pytest.mark.parametrize(("group", "name", "value", "wrong", "registry"), BROKEN,
                         ids=["gate-not-a-gate", "reporter-misnamed", "reporter-not-a-reporter", "reporter-built-in-name",
                              "source-not-a-source", "source-not-importable", "source-unknown-domain"])
def test_a_broken_registration_is_one_line(tmp_path: Path, monkeypatch, group, name, value, wrong, registry):
    site = registration.install(tmp_path / "site", {group: {name: value}})
    monkeypatch.syspath_prepend(str(site))
    registration.forget()
    try:
        with pytest.raises(AbsaChecksError) as raised:
            registry()
        assert str(raised.value) == f"the entry point '{name}' ({value}) of '{group}' {wrong}".replace(" :", ":")
    finally:
        registration.forget()
