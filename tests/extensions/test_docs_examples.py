"""The worked examples of docs/architecture.md ("Seams", "Contributing") are files under tests/extensions/
(`example_*.py`): each is registered and run here, and the docs show them as they are
(scripts/docs_examples.py writes them in)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType, ModuleType

import pytest
from judge.test_metrics import OUTCOMES
from run.test_conclusion import CONTEXT, OPTIONS

from absa_checks.common.errors import AbsaChecksError
from absa_checks.common.examples import Aspect, Example, Unit
from absa_checks.perturb.engine import Settings, generate
from absa_checks.reports import allure_support
from absa_checks.run import reporters
from absa_checks.run.conclusion import conclude
from absa_checks.sources.catalog import known_source_names, load_named, source_domain
from absa_checks.suites import gate_registry, strategies
from absa_checks.suites.spec import parse_suite
from conftest import install_adapter_package
from tests.extensions import example_gate, example_reporter, example_strategy, registration

REPO = Path(__file__).resolve().parents[2]
EXTENSIONS = REPO / "tests" / "extensions"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_examples", REPO / "scripts" / "docs_examples.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["docs_examples"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


docs_examples = _script()


def test_the_docs_show_every_example_file_as_it_is():
    """Fails when an example file changed and `python scripts/docs_examples.py` was not run (or a doc was edited
    between the markers by hand), or when an example file is shown nowhere."""
    stale = [doc.name for doc in docs_examples.default_docs() if docs_examples.filled(doc) != doc.read_text()]
    assert not stale, f"run python scripts/docs_examples.py: {', '.join(stale)} differ from their example files"
    shown = {item.path for doc in docs_examples.default_docs() for item in docs_examples.included(doc)}
    files = {path.relative_to(REPO).as_posix() for path in EXTENSIONS.glob("example_*.py")}
    assert files == shown and len(files) == 5


def test_the_script_writes_a_changed_example_and_its_check_fails_until_then(tmp_path: Path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "x.py").write_text("print('new')\n")
    doc = tmp_path / "docs" / "a.md"
    doc.write_text("Before.\n\n<!-- example: x.py -->\n```python\nprint('old')\n```\n<!-- /example -->\n\nAfter.\n")
    assert docs_examples.filled(doc, tmp_path) == doc.read_text().replace("'old'", "'new'")
    script = [sys.executable, str(REPO / "scripts" / "docs_examples.py"), "--root", str(tmp_path)]
    check = subprocess.run([*script, "--check", str(doc)], capture_output=True, text=True, cwd=tmp_path)
    assert check.returncode == 1 and "its examples differ from their files" in check.stderr
    doc.write_text(doc.read_text().replace("x.py", "gone.py"))
    missing = subprocess.run([*script, "--check", str(doc)], capture_output=True, text=True, cwd=tmp_path)
    assert missing.returncode == 2 and f"{doc}:3: gone.py: no such file" in missing.stderr


def test_the_example_strategy_registered_with_one_line_is_parsed_generated_checked_and_categorised(
        monkeypatch, tmp_path: Path):
    monkeypatch.setattr(strategies, "registry", lambda: MappingProxyType({**strategies.BUILTIN_STRATEGIES,
                                                                          "shout": example_strategy.STRATEGY}))
    from absa_checks.perturb.resources import load_resources

    suite = tmp_path / "s.yaml"
    suite.write_text("suite: s\ntests:\n  - {name: t, strategy: shout, min_length: 5, sources: [builtin-laptop]}\n"
                     "  - {name: c, strategy: shout+adddiff, k: 2, sources: [builtin-laptop]}\n")
    first, chain = parse_suite(suite, ("builtin-laptop",)).tests
    assert first.expectation.kind == "unchanged" and first.param("min_length") == 5 and chain.param("min_length") == 4
    unit = Unit("toy", "u1", Example("The soup was lovely.", Aspect("soup", 4, 8, "positive")))
    resources = load_resources("restaurant")
    assert generate(unit, "shout", Settings.of(0, min_length=5), resources, "restaurant").example.sentence == \
        "The soup was LOVELY."
    assert generate(unit, "shout", Settings.of(0, min_length=9), resources, "restaurant").reason == "no word to shout"
    assert "shouting changed the prediction" in {category["name"] for category in allure_support.categories()}
    suite.write_text("suite: s\ntests:\n  - {name: t, strategy: shout, min_length: 1, sources: [builtin-laptop]}\n")
    with pytest.raises(AbsaChecksError, match="s.yaml:3: 'min_length' must be a whole number of at least 2"):
        parse_suite(suite, ("builtin-laptop",))


def test_the_example_adapter_kind_installed_as_a_package_runs_a_suite(tmp_path: Path):
    site = install_adapter_package(tmp_path / "site", "constant_kind", (EXTENSIONS / "example_adapter.py").read_text(),
                                   "constant")
    project = tmp_path / "project"
    project.mkdir()
    (project / "s.yaml").write_text("suite: s\ntests:\n  - {name: t, strategy: adddiff, sources: [builtin-laptop], "
                                    "sample: 3}\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "ABSA_"))}
    env["PYTHONPATH"] = str(site)
    ran = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "s.yaml", "--absa-model",
                          "constant:positive", "--absa-report", "r.json"], cwd=project, env=env, capture_output=True,
                         text=True, timeout=300)
    assert ran.returncode in (0, 1), ran.stdout[-2000:] + ran.stderr
    report = json.loads((project / "r.json").read_text())
    assert report["run"]["model"]["kind"] == "constant" and report["summary"]["cases"] > 0
    assert {case["variant_prediction"]["label"] for case in report["cases"]} == {"positive"}


def test_the_example_reporter_registered_with_one_entry_writes_the_gates_as_csv(monkeypatch, tmp_path: Path):
    monkeypatch.setattr(reporters, "registry", lambda: MappingProxyType({**reporters.BUILTIN_REPORTERS,
                                                                         "gates_csv": example_reporter.REPORTER}))
    options = replace(OPTIONS, report=tmp_path / "r.json")
    assert [out.path for out in reporters.planned(options)][-1] == tmp_path / "r.gates.csv"
    lines = reporters.summary(conclude(list(OUTCOMES), options, None, CONTEXT), options)
    assert lines[-3:-1] == [f"JSON report: {tmp_path / 'r.json'}", f"gates CSV: {tmp_path / 'r.gates.csv'}"]
    rows = (tmp_path / "r.gates.csv").read_text().splitlines()
    expected = [[g["gate"], g["test"], g["source"], g["verdict"]]
                for g in json.loads((tmp_path / "r.json").read_text())["gates"]]
    assert rows[0] == "gate,test,source,verdict" and [row.split(",") for row in rows[1:]] == expected
    assert not example_reporter.REPORTER.wanted(OPTIONS)  # without --absa-report: no CSV either


ACME = [{"id": "a1", "sentence": "The pasta was delicious but the waiter was rude.", "aspect": "pasta", "from": 4,
         "to": 9, "polarity": "positive"},
        {"id": "a2", "sentence": "The pasta was delicious but the waiter was rude.", "aspect": "waiter", "from": 32,
         "to": 38, "polarity": "negative"},
        {"id": "a3", "sentence": "Great wine.", "aspect": "wine", "from": 0, "to": 4, "polarity": "positive"},
        {"id": "a4", "sentence": "Cold soup.", "aspect": "soup", "from": 5, "to": 9, "polarity": "sour"}]


def test_the_example_source_registered_is_loaded_by_name_with_its_issues_and_runs_in_a_suite(monkeypatch, request,
                                                                                           tmp_path: Path):
    assert "acme-restaurant" not in known_source_names()
    site = registration.install(tmp_path / "site", {"absa_checks.sources": {"acme-restaurant":
                                                                            "tests.extensions.example_source:SOURCE"}})
    monkeypatch.syspath_prepend(str(site))
    registration.forget()
    request.addfinalizer(registration.forget)
    data = tmp_path / "data"
    (data / "acme").mkdir(parents=True)
    (data / "acme" / "test.json").write_text(json.dumps(ACME))
    assert "acme-restaurant" in known_source_names() and source_domain("acme-restaurant") == "restaurant"
    loaded = load_named("acme-restaurant", data)
    assert [unit.unit_id for unit in loaded.units] == ["a1", "a2"] and loaded.domain == "restaurant"
    assert [(issue.record_id, issue.kind, issue.action) for issue in loaded.issues] == [
        ("a3", "span_mismatch", "dropped"), ("a4", "unknown_label", "dropped")]
    assert loaded.units[0].original.opinions  # inferred: "delicious"
    from absa_checks import evaluate

    (tmp_path / "s.yaml").write_text("suite: s\ntests:\n  - {name: t, strategy: adddiff, sources: [acme-restaurant]}\n")
    result = evaluate(model="lexicon", suites=tmp_path / "s.yaml", data=data, rootdir=tmp_path)
    assert {case["source"] for case in result.report["cases"]} == {"acme-restaurant"}
    assert len(result.report["cases"]) == 2 and result.report["data_issues"]


GATED = """suite: s
tests:
  - name: t
    strategy: adddiff
    sources: [builtin-laptop]
    sample: 6
    gates: {min_source_accuracy: LIMIT, basis: point}
"""


def test_the_example_gate_registered_with_one_entry_is_decided_in_a_suite_in_its_own_words(monkeypatch,
                                                                                         tmp_path: Path):
    from absa_checks import evaluate

    suite = tmp_path / "s.yaml"
    suite.write_text(GATED.replace("LIMIT", "0.1"))
    with pytest.raises(AbsaChecksError, match="s.yaml:7: unknown key 'min_source_accuracy' in 'tests.0.gates'"):
        evaluate(model="lexicon", suites=suite, rootdir=tmp_path, no_cache=True)
    monkeypatch.setattr(gate_registry, "registry", lambda: MappingProxyType({**gate_registry.BUILTIN_GATES,
                                                                             "min_source_accuracy": example_gate.GATE}))
    verdicts = {}
    for limit in ("0.1", "0.99"):
        suite.write_text(GATED.replace("LIMIT", limit))
        result = evaluate(model="lexicon", suites=suite, rootdir=tmp_path, no_cache=True)
        (gate,) = result.gates
        assert gate.name == "min_source_accuracy" and gate.reason.startswith("accuracy on the source's originals ")
        assert gate.rate.value == result.metrics.sources["builtin-laptop"].original_accuracy.value
        verdicts[limit] = gate.verdict
    assert verdicts == {"0.1": "pass", "0.99": "fail"}
