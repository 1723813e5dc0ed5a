"""Domains (models.yaml `domains:`): sources of other domains left out, or run report-only; slice gates
labelled by what they measure; a slice of the same sentences in several sources decided once."""

from __future__ import annotations

import importlib.util
import json
import textwrap
from pathlib import Path

import pytest

from absa_checks.common import domains
from absa_checks.common.errors import AbsaChecksError, SpecError
from absa_checks.judge.gates import GateResult, mark_duplicates
from absa_checks.judge.stats import wilson
from absa_checks.models import adapters
from absa_checks.sources.catalog import source_domain
from absa_checks.suites.spec import parse_suite
from conftest import SHARED_DATA, needs_shared_data

LAPTOP_DATA = ("arts-laptop", "gcae-hard-laptop", "semeval14-laptop")


def models_file(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "models.yaml"
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


def test_an_entry_declares_domains_and_a_typo_names_the_entry_and_the_fix(tmp_path):
    path = models_file(tmp_path, """\
        models:
          rest: {kind: lexicon, scope: target, domains: [restaurant]}
          typo: {kind: lexicon, scope: target, domains: [restuarant]}
          key: {kind: lexicon, scope: target, domain: [laptop]}
          empty: {kind: lexicon, scope: target, domains: []}
        """)
    assert adapters.resolve("rest", path).domains == ("restaurant",)
    assert "domains" not in adapters.resolve("rest", path).settings  # not an adapter setting
    with pytest.raises(AbsaChecksError, match=r"model 'typo': unknown domain 'restuarant'; did you mean 'restaurant'"):
        adapters.resolve("typo", path)
    with pytest.raises(AbsaChecksError, match=r"model 'key': unknown setting\(s\) domain; .*did you mean 'domains'"):
        adapters.resolve("key", path)
    with pytest.raises(AbsaChecksError, match=r"model 'empty': 'domains' must be a non-empty list"):
        adapters.resolve("empty", path)


def test_a_domain_typo_is_a_usage_error_exit_4(run, tmp_path):
    path = models_file(tmp_path, "models:\n  typo: {kind: lexicon, scope: target, domains: [laptops]}\n")
    result = run(["suites/directional/revtgt.yaml", "--model", "typo", "--absa-models", str(path)])
    assert result.code == 4, result.out[-2000:]
    assert "model 'typo': unknown domain 'laptops'; did you mean 'laptop'?" in result.out
    assert "Traceback" not in result.out


def test_a_group_member_inherits_the_groups_domains_and_may_not_contradict_them(tmp_path):
    path = models_file(tmp_path, """\
        models:
          a: {kind: lexicon, scope: target}
          b: {kind: lexicon, scope: sentence, domains: [restaurant]}
          c: {kind: lexicon, scope: sentence, domains: [laptop]}
        groups:
          rest: {members: [a, b], domains: [restaurant]}
          wrong: {members: [c], domains: [restaurant]}
        """)
    assert [s.domains for s in adapters.resolve_run("rest", path).specs] == [("restaurant",), ("restaurant",)]
    assert adapters.resolve_run("a", path).specs[0].domains == ("restaurant",)  # a member, named alone
    with pytest.raises(AbsaChecksError, match=r"model 'c' declares domains \[laptop\] but its group 'wrong' "
                                              r"declares \[restaurant\]; a member may not contradict"):
        adapters.resolve_run("c", path)
    bad = models_file(tmp_path, "models:\n  a: {kind: lexicon}\ngroups:\n  g: {members: [a], domians: [laptop]}\n")
    with pytest.raises(AbsaChecksError, match=r"group 'g': unknown key\(s\) domians \(did you mean 'domains'\?\)"):
        adapters.resolve_run("g", bad)


def test_sources_know_their_domain_and_a_suites_own_source_says_it(tmp_path):
    assert {name: source_domain(name) for name in (*LAPTOP_DATA, "builtin-laptop")} == \
        dict.fromkeys((*LAPTOP_DATA, "builtin-laptop"), "laptop")
    assert {source_domain(n) for n in ("arts-restaurant", "semeval14-restaurant", "mams-restaurant",
                                               "gcae-hard-restaurant", "builtin-restaurant")} == {"restaurant"}
    assert source_domain("my-own") is None and domains.in_domain(("restaurant",), None)
    suite = tmp_path / "s.yaml"
    body = """\
        suite: s
        sources:
          mine:
            domain: {domain}
            examples: [{{sentence: The screen is great., aspect: screen, polarity: positive}}]
        tests:
          - {{name: t, strategy: revtgt, expect: flip, sources: [mine]}}
        """
    suite.write_text(textwrap.dedent(body.format(domain="laptop")), encoding="utf-8")
    assert parse_suite(suite, ()).inline_sources["mine"].domain == "laptop"
    suite.write_text(textwrap.dedent(body.format(domain="laptp")), encoding="utf-8")
    with pytest.raises(SpecError, match=r"s.yaml:4: .*'laptp'; did you mean 'laptop'"):
        parse_suite(suite, ())


MIXED_SUITE = """\
    suite: mixed
    sources:
      own-laptop:
        domain: laptop
        examples: [{sentence: The keyboard is great., aspect: keyboard, polarity: positive}]
      own-any:
        examples: [{sentence: The staff was friendly., aspect: staff, polarity: positive}]
    tests:
      - name: revtgt
        strategy: revtgt
        expect: flip
        sources: [builtin-restaurant, builtin-laptop, own-laptop, own-any]
        gates: {max_fail_rate: 0.99}
    """


@pytest.mark.slow
def test_several_checkpoints_are_each_tested_on_their_own_domains(run, tmp_path):
    # lap answers as rest does, as another checkpoint (one checkpoint named twice is refused)
    (tmp_path / "copies.py").write_text("from model_adapters.lexicon import LexiconAdapter\n"
                                        "def target(queries):\n    return LexiconAdapter('target').predict(queries)\n")
    path = models_file(tmp_path, """\
        models:
          rest: {kind: lexicon, scope: target, domains: [restaurant]}
          lap: {kind: python, target: 'copies:target', domains: [laptop]}
          any: {kind: lexicon, scope: sentence}
        """)
    suite = tmp_path / "mixed.yaml"
    suite.write_text(textwrap.dedent(MIXED_SUITE), encoding="utf-8")
    result = run([str(suite), "-q", "--model", "rest,lap,any", "--absa-models", str(path)])
    assert result.report is not None, result.out[-3000:]
    ran = {(c["model"], c["source"]) for c in result.report["cases"]}
    assert ("rest", "builtin-restaurant") in ran and ("lap", "builtin-laptop") in ran
    assert not {("rest", "builtin-laptop"), ("rest", "own-laptop"), ("lap", "builtin-restaurant")} & ran
    assert {("rest", "own-any"), ("lap", "own-any"), ("any", "builtin-laptop"), ("any", "builtin-restaurant")} <= ran
    decided = result.report["manifest"]["domains"]
    assert decided == {"rest": {"domains": ["restaurant"], "left_out": ["builtin-laptop", "own-laptop"],
                                "report_only": []},
                       "lap": {"domains": ["laptop"], "left_out": ["builtin-restaurant"], "report_only": []}}
    line = [x for x in result.out.splitlines() if x.startswith("domains: ")]
    assert line == [("domains: left out, sources of another domain than the checkpoint's (models.yaml 'domains'): "
                     "rest (restaurant): builtin-laptop, own-laptop; lap (laptop): builtin-restaurant; "
                     "--absa-cross-domain runs them report-only")]
    assert result.report["manifest"]["not_measured"] == []

    cross = run([str(suite), "-q", "--model", "rest,lap", "--absa-models", str(path), "--absa-cross-domain"])
    report = cross.report
    assert report is not None, cross.out[-3000:]
    assert {("rest", "builtin-laptop"), ("lap", "builtin-restaurant")} <= {(c["model"], c["source"])
                                                                           for c in report["cases"]}
    gates = {g["source"]: g for g in report["gates"]}
    assert not any(g["verdict"] == "report-only" for g in gates.values()), gates  # each source has its checkpoint
    for model, source in (("lap", "builtin-laptop"), ("rest", "builtin-restaurant")):  # decided on it alone
        mine = [c for c in report["cases"] if (c["model"], c["source"]) == (model, source)]
        assert gates[source]["metric"]["value"] == pytest.approx(sum(c["status"] == "failed" for c in mine) / len(mine))


@needs_shared_data
@pytest.mark.slow
def test_a_restaurant_model_leaves_laptop_sources_out_and_cross_domain_reports_them(run, tmp_path):
    path = models_file(tmp_path, "models:\n  lex-rest: {kind: lexicon, scope: target, domains: [restaurant]}\n")
    common = ["suites/", "-q", "--tb=no", "--model", "lex-rest", "--absa-models", str(path),
              "--absa-data", str(SHARED_DATA), "--absa-sample", "12"]
    result = run(common)
    report = result.report
    assert report is not None, result.out[-3000:]
    sources = {c["source"] for c in report["cases"]}
    assert "arts-restaurant" in sources and not any("laptop" in s for s in sources)
    assert not any("laptop" in g["source"] for g in report["gates"])
    manifest = report["manifest"]
    left_out = manifest["domains"]["lex-rest"]["left_out"]
    assert set(LAPTOP_DATA) | {"builtin-laptop"} <= set(left_out)
    pairs = [p for p in manifest["tests"] if p["source"] == "arts-laptop"]
    assert pairs and all(p["status"] == "other-domain" and not p["requested"] and not p["measured"] for p in pairs)
    assert manifest["not_measured"] == []  # left out for domain is not "requested but not measured"
    assert "requested source" not in report["verdict"]["reason"]
    lines = [x for x in result.out.splitlines() if x.startswith("domains: ")]
    assert len(lines) == 1 and "arts-laptop" in lines[0] and "--absa-cross-domain runs them report-only" in lines[0]

    cross = run(common + ["--absa-cross-domain"])
    report = cross.report
    assert report is not None, cross.out[-3000:]
    assert set(LAPTOP_DATA) <= {c["source"] for c in report["cases"]}
    laptop_gates = [g for g in report["gates"] if "laptop" in g["source"]]
    assert laptop_gates and all(g["verdict"] in ("report-only", "no-data") for g in laptop_gates)
    assert all(g["measured_verdict"] in ("pass", "fail", "inconclusive")
               for g in laptop_gates if g["verdict"] == "report-only")
    assert not any("laptop" in g["source"] for g in report["gates"] if g["verdict"] == "fail")
    assert set(LAPTOP_DATA) <= set(report["manifest"]["domains"]["lex-rest"]["report_only"])
    assert [x for x in cross.out.splitlines() if x.startswith("domains: run report-only")]

    named = run(common + ["--absa-sources", "arts-laptop,arts-restaurant"])  # asked for by name: not left quietly
    assert named.code == 1, named.out[-2000:]
    reason = named.report["verdict"]["reason"]
    assert "requested source(s) not measured (asked for by --absa-sources): arts-laptop" in reason
    assert "--absa-cross-domain" in reason


def _gate(source: str, slice_: str = "hard=true", name: str = "min_accuracy", verdict: str = "fail") -> GateResult:
    return GateResult(name, "suites/directional/revtgt.yaml::revtgt", source, 0.6, wilson(5, 10), "interval",
                      verdict, "slice hard=true: accuracy on the originals ...", slice=slice_)


def test_slice_gates_are_labelled_by_what_they_measure():
    assert _gate("arts-laptop").label == "arts-laptop hard=true accuracy (originals)"
    assert _gate("arts-laptop", name="max_fail_rate").label == "arts-laptop hard=true fail rate (revtgt)"
    assert _gate("arts-laptop", slice_="").label == "min_accuracy arts-laptop (revtgt)"
    assert _gate("arts-laptop").to_dict()["label"] == "arts-laptop hard=true accuracy (originals)"


def test_a_slice_of_the_same_sentences_is_decided_once_on_the_first_source():
    same = frozenset({("thescreenisgreat", "screen"), ("thekeysarebad", "keys")})
    contents = {("semeval14-laptop", "hard=true", ""): same, ("arts-laptop", "hard=true", ""): same,
                ("gcae-hard-laptop", "hard=true", ""): same,
                ("other", "hard=true", ""): frozenset({("anothersentence", "screen")})}
    gates = [_gate("semeval14-laptop"), _gate("gcae-hard-laptop"), _gate("other"), _gate("arts-laptop"),
             _gate("arts-laptop", slice_="")]
    found = {(g.source, g.slice): g for g in mark_duplicates(gates, contents)}
    assert found[("arts-laptop", "hard=true")].verdict == "fail"
    for source in ("semeval14-laptop", "gcae-hard-laptop"):
        gate = found[(source, "hard=true")]
        assert (gate.verdict, gate.measured, gate.duplicate_of) == ("duplicate", "fail", "arts-laptop hard=true")
        assert gate.to_dict()["duplicate_of"] == "arts-laptop hard=true"
    assert found[("other", "hard=true")].verdict == "fail" and found[("arts-laptop", "")].verdict == "fail"
    # a subset is not the same sentences: decided on its own
    contents[("gcae-hard-laptop", "hard=true", "")] = frozenset({("thescreenisgreat", "screen")})
    assert {g.source: g.verdict for g in mark_duplicates(gates, contents)}["gcae-hard-laptop"] == "fail"


DUPLICATE_SUITE = """\
    suite: dup
    sources:
      first:
        examples:
          - {sentence: "The food was great.", aspect: food, polarity: negative, variants: {revtgt: "The food was bad."}}
          - {sentence: "The room is dirty.", aspect: room, polarity: positive, variants: {revtgt: "The room is clean."}}
      second:  # the same sentences, tokenised as ARTS writes them (the golds are wrong: the gate fails)
        examples:
          - {sentence: "the food was great .", aspect: food, polarity: negative, variants: {revtgt: "the food was bad ."}}
          - {sentence: "The room is dirty!", aspect: room, polarity: positive, variants: {revtgt: "The room is clean!"}}
      third:
        examples:
          - {sentence: "The fries were great.", aspect: fries, polarity: positive, variants: {revtgt: "The fries were bad."}}
    tests:
      - name: revtgt
        strategy: revtgt
        expect: flip
        sources: [second, first, third]
        gates:
          slices:
            aspects=single: {min_accuracy: 0.9}
"""


def test_sources_built_from_the_same_sentences_fail_one_gate_labelled_as_originals(run, tmp_path):
    suite = tmp_path / "dup.yaml"
    suite.write_text(textwrap.dedent(DUPLICATE_SUITE), encoding="utf-8")
    markdown = tmp_path / "dup.md"
    allure = ["--alluredir", str(tmp_path / "allure")] if importlib.util.find_spec("allure_pytest") else []
    result = run([str(suite), "-q", "--tb=no", "--absa-markdown", str(markdown), *allure])
    report = result.report
    assert report is not None, result.out[-3000:]
    sliced = {g["source"]: g for g in report["gates"] if g.get("slice")}
    assert set(sliced) == {"first", "second", "third"}, sliced
    assert sliced["second"]["verdict"] == "duplicate" and sliced["second"]["duplicate_of"] == "first aspects=single"
    assert sliced["first"]["verdict"] != "duplicate" and sliced["third"]["verdict"] != "duplicate"
    assert sliced["first"]["label"] == "first aspects=single accuracy (originals)"
    verdict = [x for x in result.out.splitlines() if x.startswith("absa-checks ")][-1]
    failed = [x for x in result.out.splitlines() if x.startswith("gate failed: ")]  # one line a failed gate
    assert sliced["first"]["verdict"] == sliced["second"]["measured_verdict"] == "fail"
    assert "absa-checks FAILED: 1 of " in verdict
    assert len(failed) == 1 and "first aspects=single accuracy (originals)" in failed[0], failed
    assert not any("second aspects=single" in x or "(revtgt)" in x for x in [verdict, *failed])
    text = markdown.read_text()
    assert "| duplicate | min_accuracy 90.00% | second [aspects=single] | accuracy (originals) |" in text
    if allure:  # the gate results are named by what they measure; a duplicate decides nothing (skipped)
        found = [json.loads(p.read_text()) for p in (tmp_path / "allure").glob("*-result.json")]
        gates = {r["name"]: r["status"] for r in found if r["name"].startswith("gate min_accuracy")}
        assert gates == {"gate min_accuracy 90% on first aspects=single accuracy (originals)": "failed",
                         "gate min_accuracy 90% on second aspects=single accuracy (originals) "
                         "(duplicate of first aspects=single)": "skipped",
                         "gate min_accuracy 90% on third aspects=single accuracy (originals) (inconclusive, counted "
                         "as passed)": "passed"}, gates


REPORT_ONLY_SUITE = """\
    suite: lap
    sources:
      own-laptop:
        domain: laptop
        examples:  # a variant that does not reverse anything: the case fails
          - {sentence: "The screen is great.", aspect: screen, polarity: positive, variants: {revtgt: "The screen is great!"}}
    tests:
      - {name: revtgt, strategy: revtgt, expect: flip, sources: [own-laptop]}
    """


def test_report_only_cases_fail_neither_a_run_without_gates_nor_a_strict_one(run, tmp_path):
    path = models_file(tmp_path, "models:\n  rest: {kind: lexicon, scope: target, domains: [restaurant]}\n")
    suite = tmp_path / "lap.yaml"
    suite.write_text(textwrap.dedent(REPORT_ONLY_SUITE), encoding="utf-8")
    common = [str(suite), "-q", "--tb=no", "--model", "rest", "--absa-models", str(path), "--absa-cross-domain"]
    for extra in ([], ["--absa-strict"]):
        result = run(common + extra)
        assert result.report is not None, result.out[-3000:]
        assert [c["status"] for c in result.report["cases"]] == ["failed"]  # measured and reported
        assert result.code == 0 and result.report["verdict"]["passed"], result.out[-2000:]
    unknown = models_file(tmp_path, "models:\n  any: {kind: lexicon, scope: target}\n")  # no domains: as before
    result = run([str(suite), "-q", "--tb=no", "--model", "any", "--absa-models", str(unknown), "--absa-strict"])
    assert result.code == 1 and "--absa-strict counts every case" in result.report["verdict"]["reason"]
