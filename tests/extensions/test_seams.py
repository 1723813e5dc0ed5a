"""One seam per kind of extension: a strategy is one module plus one registration line."""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType

import pytest

from absa_checks.common.errors import AbsaChecksError
from absa_checks.common.examples import Aspect, Example, Unit
from absa_checks.perturb.engine import Settings, generate
from absa_checks.reports import allure_support
from absa_checks.suites import strategies
from absa_checks.suites.spec import parse_suite
from absa_checks.suites.strategies import Parameter, Strategy


def _min_length(value):
    if not isinstance(value, int) or value < 2:
        raise ValueError(f"'min_length' must be a whole number of at least 2, got {value!r}")
    return value


SHOUT = Strategy("shout", "unchanged", False, "upper-case a word; the prediction must not change",
                 "shouting changed the prediction", "tests.extensions.example_strategy:shout_step", edits_target=False,
                 context_checks=False, parameters=(Parameter("min_length", 4, _min_length, "shortest word"),))


@pytest.fixture
def with_shout(monkeypatch):
    """The registration line: REGISTRY gains one entry (the test restores it)."""
    monkeypatch.setattr(strategies, "registry", lambda: MappingProxyType({**strategies.BUILTIN_STRATEGIES, "shout": SHOUT}))


@pytest.fixture(scope="module")
def resources():
    from absa_checks.perturb.resources import load_resources

    return load_resources("restaurant")


def unit() -> Unit:
    sentence = "The soup was lovely."
    return Unit("u1", "toy", Example(sentence, Aspect("soup", 4, 8, "positive")))


def test_a_registered_strategy_is_parsed_generated_checked_and_categorised(with_shout, resources, tmp_path: Path):
    suite = tmp_path / "s.yaml"
    suite.write_text("suite: s\ntests:\n  - {name: t, strategy: shout, min_length: 5, sources: [builtin-laptop]}\n"
                     "  - {name: c, strategy: shout+adddiff, k: 2, sources: [builtin-laptop]}\n")
    first, chain = parse_suite(suite, ("builtin-laptop",)).tests
    assert first.expectation.kind == "unchanged" and first.param("min_length") == 5
    assert chain.params == (("k", 2),) and chain.param("min_length") == 4
    variant = generate(unit(), "shout", Settings.of(0, min_length=5), resources, "restaurant")
    assert variant.example.sentence == "The soup was LOVELY."
    assert generate(unit(), "shout", Settings.of(0, min_length=9), resources, "restaurant").reason == "no word to shout"
    assert {"name": "shouting changed the prediction", "matchedStatuses": ["failed"],
            "messageRegex": "(?s).*shout.*expected the prediction to stay.*"} in allure_support.categories()


def test_a_parameter_is_checked_by_its_declaration(with_shout, tmp_path: Path):
    suite = tmp_path / "s.yaml"
    suite.write_text("suite: s\ntests:\n  - {name: t, strategy: shout, min_length: 1, sources: [builtin-laptop]}\n")
    with pytest.raises(AbsaChecksError, match="s.yaml:3: 'min_length' must be a whole number of at least 2"):
        parse_suite(suite, ("builtin-laptop",))
    suite.write_text("suite: s\ntests:\n  - {name: t, strategy: revtgt, min_length: 3, sources: [builtin-laptop]}\n")
    with pytest.raises(AbsaChecksError, match="'min_length' only applies to shout; test 't' is revtgt"):
        parse_suite(suite, ("builtin-laptop",))


@pytest.mark.parametrize("line, message", [
    ("{name: t, strategy: revtgt, k: 2, sources: [builtin-laptop]}", "'k' only applies to adddiff, typos; test 't' is revtgt"),
    ("{name: t, strategy: adddiff, k: 11, sources: [builtin-laptop]}", "'k' is 11; at most 10 aspects can be appended"),
    ("{name: t, strategy: adddiff, k: 0, sources: [builtin-laptop]}", "'k' must be a whole number of at least 1"),
    ("{name: t, strategy: revtgt, neutral: kep, sources: [builtin-laptop]}", "'neutral' is 'kep'; did you mean 'keep'?"),
    ("{name: t, strategy: adddiff, neutral: keep, sources: [builtin-laptop]}", "'neutral' only applies to revtgt"),
])
def test_builtin_parameters_are_checked_where_they_are_written(tmp_path: Path, line: str, message: str):
    suite = tmp_path / "s.yaml"
    suite.write_text(f"suite: s\ntests:\n  - {line}\n")
    with pytest.raises(AbsaChecksError, match=f"s.yaml:3: .*{message}"):
        parse_suite(suite, ("builtin-laptop",))


def test_an_unknown_strategy_is_an_error_never_another_strategy():
    with pytest.raises(AbsaChecksError, match="unknown strategy 'adddif'; did you mean 'adddiff'?"):
        generate(unit(), "adddif", Settings(), None, "restaurant")
    with pytest.raises(AbsaChecksError, match="unknown strategy 'shout'"):
        strategies.default_expectation("revtgt+shout")


def test_reports_name_a_strategy_by_its_labelled_parameters():
    assert strategies.label("adddiff", (("k", 3),)) == "adddiff(k=3)"
    assert strategies.label("revtgt", (("neutral", "keep"),)) == "revtgt"
    assert strategies.label("revnon+adddiff", ()) == "revnon+adddiff"


def test_the_cli_takes_a_registered_strategys_parameters(with_shout):
    from absa_checks.cli import arguments

    assert arguments.strategy_params(["min_length=5"], ["shout"]) == (("min_length", 5),)
    assert arguments.strategy_params([], ["adddiff"], k=3, neutral=None) == (("k", 3),)
    with pytest.raises(AbsaChecksError, match="--param min_length: 'min_length' must be a whole number of at least 2"):
        arguments.strategy_params(["min_length=1"], ["shout"])
    with pytest.raises(AbsaChecksError, match="--param 'k=3': write NAME=VALUE with a parameter of shout"):
        arguments.strategy_params(["k=3"], ["shout"])
