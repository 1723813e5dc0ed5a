"""Extensions from outside the package, registered as an installed package registers them (entry points, no
edit of absa_checks/): the example strategy and gate of tests/extensions/, run by a suite through the API."""

from __future__ import annotations

from pathlib import Path

import pytest

from absa_checks import evaluate
from absa_checks.common.errors import AbsaChecksError
from absa_checks.suites import gate_registry, strategies
from tests.extensions import registration

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


def _forget() -> None:
    strategies.registry.cache_clear()
    gate_registry.registry.cache_clear()


@pytest.fixture
def installed(tmp_path: Path, monkeypatch):
    """The extensions' package on sys.path, as PYTHONPATH=site would put it (the registries read it afresh)."""
    monkeypatch.syspath_prepend(str(registration.install(tmp_path / "site")))
    _forget()
    yield
    _forget()


def test_an_installed_strategy_and_gate_run_from_a_suite(installed, tmp_path: Path):
    suite = tmp_path / "extended.yaml"
    suite.write_text(SUITE)
    result = evaluate(model="lexicon", suites=suite, rootdir=tmp_path, no_cache=True)
    shouted = [o for o in result.outcomes if o.strategy == "shout"]
    assert shouted and all(o.variant["sentence"] != o.original["sentence"] for o in shouted)
    assert any(o.strategy == "shout+adddiff" for o in result.outcomes)
    gates = {g.name: g for g in result.gates}
    assert set(gates) == {"max_fail_rate", "min_source_accuracy"}
    added = gates["min_source_accuracy"]
    assert added.verdict == "pass" and added.reason.startswith("accuracy on the source's originals ")
    assert added.rate is not None and added.rate.value == result.metrics.sources["builtin-laptop"].original_accuracy.value


def test_the_schema_offers_the_installed_gate_and_strategy(installed):
    from absa_checks.suites.schema import suite_schema

    text = str(suite_schema())
    assert "min_source_accuracy" in text and "shout" in text


def test_without_the_package_they_are_unknown(tmp_path: Path):
    _forget()
    suite = tmp_path / "extended.yaml"
    suite.write_text(SUITE)
    with pytest.raises(AbsaChecksError, match="extended.yaml:5: unknown key 'min_length'"):
        evaluate(model="lexicon", suites=suite, rootdir=tmp_path, no_cache=True)
    suite.write_text(SUITE.replace("    min_length: 5\n", ""))
    with pytest.raises(AbsaChecksError, match="extended.yaml:4: 'tests.0.strategy' is 'shout'; use one of: revtgt"):
        evaluate(model="lexicon", suites=suite, rootdir=tmp_path, no_cache=True)


def test_a_broken_registration_is_one_line(tmp_path: Path, monkeypatch):
    site = registration.install(tmp_path / "site", {"absa_checks.gates": {"max_typo": "tests.extensions.example_strategy:STRATEGY"}})
    monkeypatch.syspath_prepend(str(site))
    _forget()
    try:
        with pytest.raises(AbsaChecksError, match=r"^the entry point 'max_typo' \(tests.extensions.example_strategy:STRATEGY\) "
                                                  r"of 'absa_checks.gates' is not a Gate named 'max_typo'$"):
            gate_registry.registry()
    finally:
        _forget()
