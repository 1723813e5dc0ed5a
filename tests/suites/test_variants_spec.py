"""Frozen and audited variant files per source in one test (docs/suites.md, "Frozen variants"):
`variants: {frozen: {SOURCE: FILE}, audited: {SOURCE: FILE}, otherwise: auto}`. A frozen source runs its reviewed
file, an audited source its own variants with their validity read from the file, the others the live generator;
validity is printed beside every fail rate per source and strategy, and `--absa-variants live` leaves every file
aside. Real files, the real commands (generate, audit draw, audit score) and a real run throughout.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from candidate_examples import EXAMPLES_ABC

from absa_checks.cli import main
from absa_checks.common.errors import SpecError
from absa_checks.judge import audit
from absa_checks.judge.stats import clopper_pearson
from absa_checks.suites.spec import parse_suite
from conftest import run_pytest

# the audited source: its own (given) REVTGT variants, as ARTS publishes its own
ARTS = """\
examples:
  - id: g1
    sentence: The pizza was tasty.
    aspect: pizza
    polarity: positive
    variants:
      revtgt: The pizza was bland.
  - id: g2
    sentence: The waiter was rude.
    aspect: waiter
    polarity: negative
    variants:
      revtgt: The waiter was polite.
  - id: g3
    sentence: The coffee was hot and the cake was fresh.
    aspect: coffee
    polarity: positive
    aspects:
      - term: cake
        polarity: positive
    variants:
      revtgt: The coffee was cold and the cake was fresh.
"""

SUITE = """\
suite: per-source
sources:
  laptop: {file: mine.yaml}
  arts: {file: arts.yaml}
  other: {file: mine.yaml}
tests:
  - name: revtgt-mixed
    strategy: revtgt
    sources: [laptop, arts, other]
    variants:
      frozen: {laptop: laptop.jsonl}
      audited: {arts: arts.jsonl}
      otherwise: auto
    gates: {min_validity: 0.01}
  - name: revnon-unaudited
    strategy: revnon
    sources: [laptop, other]
    variants:
      frozen: {laptop: unaudited.jsonl}
    gates: {min_validity: 0.5}
"""


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def write_rows(path: Path, records: list[dict]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))


def audited_by_commands(path: Path, pool: str, verdict) -> None:
    """`absa-checks audit draw` every candidate of the pool, answer each item, `absa-checks audit score`."""
    sheet, answered = path.with_suffix(".sheet.jsonl"), path.with_suffix(".answered.jsonl")
    assert main(["audit", "draw", str(path), "--sample", "100", "--seed", "3", "--out", str(sheet),
                 "--pool", pool]) == 0
    items = rows(sheet)
    for item in items:
        item["fluent"], item["sentiment_ok"], item["reason"] = verdict(item)
    write_rows(answered, items)
    assert main(["audit", "score", str(path), str(answered)]) == 0


def accepted(records: list[dict]) -> list[dict]:
    for record in records:
        if record["status"] == "shipped":
            record.update(decision="accepted", reviewer="ann", decided_at="2026-11-26T10:00:00+00:00")
    return records


def counted(path: Path, strategy: str, used_only: bool) -> tuple[int, int]:
    """(audited, both) straight from the file: verdicts on the text each candidate has."""
    audited = both = 0
    for r in rows(path):
        a = r.get("audit")
        if r["strategy"] != strategy or not a or a["sentence"] != r.get("sentence"):
            continue
        if used_only and r.get("decision") not in ("accepted", "edited"):
            continue
        audited, both = audited + 1, both + (a["fluent"] and a["sentiment_ok"])
    return audited, both


def cell(path: Path, strategy: str, used_only: bool) -> str:
    audited, both = counted(path, strategy, used_only)
    rate = clopper_pearson(both, audited)
    return f"{100 * rate.value:.0f}% [{100 * rate.low:.0f}, {100 * rate.high:.0f}] (n {audited})"


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """The examples, a reviewed and audited REVTGT file for `laptop`, an unaudited REVNON one, and ARTS-like
    given variants generated as candidates (mode given) and audited, one verdict a no."""
    found = tmp_path_factory.mktemp("per-source")
    (found / "mine.yaml").write_text(EXAMPLES_ABC)
    (found / "arts.yaml").write_text(ARTS)
    assert main(["generate", "--input", str(found / "mine.yaml"), "--candidates", "--out",
                 str(found / "generated.jsonl")]) == 0
    write_rows(found / "laptop.jsonl", accepted(rows(found / "generated.jsonl")))
    write_rows(found / "unaudited.jsonl", accepted(rows(found / "generated.jsonl")))
    audited_by_commands(found / "laptop.jsonl", "used", lambda item: ("yes", "yes", ""))
    assert main(["generate", "--input", str(found / "arts.yaml"), "--variants", "given", "--strategies", "revtgt",
                 "--candidates", "--out", str(found / "arts.jsonl")]) == 0
    assert all(r["mode"] == "given" for r in rows(found / "arts.jsonl"))
    audited_by_commands(found / "arts.jsonl", "shipped",
                        lambda item: ("yes", "no", "not reversed") if "waiter" in item["variant"] else
                        ("yes", "yes", ""))
    (found / "suite.yaml").write_text(SUITE)
    return found


@pytest.fixture(scope="module")
def run(folder):
    done = run_pytest(["suite.yaml", "--model", "lexicon", "--absa-markdown", str(folder / "summary.md"),
                       "--alluredir", str(folder / "allure")], cwd=folder, report=folder / "report.json")
    assert done.report is not None, done.out[-3000:]
    return done


GIVEN = {"The pizza was bland.", "The waiter was polite.", "The coffee was cold and the cake was fresh."}


def origins(report: dict, test: str) -> dict[str, set[str]]:
    """source -> where its cases' variants came from: a reviewed candidate (frozen), the source's own, generated."""
    found: dict[str, set[str]] = {}
    for case in report["cases"]:
        if case["test"].endswith(f"::{test}"):
            variant = case["variant"]
            origin = "frozen" if (variant.get("provenance") or {}).get("candidate") else \
                "given" if variant["sentence"] in GIVEN else "generated"
            found.setdefault(case["source"], set()).add(origin)
    return found


@pytest.mark.slow
def test_one_test_runs_a_frozen_file_an_audited_source_and_the_live_generator_per_source(run):
    assert origins(run.report, "revtgt-mixed") == {"laptop": {"frozen"}, "arts": {"given"}, "other": {"generated"}}


def test_validity_per_source_from_the_frozen_and_the_audited_file(folder, run):
    validity = run.report["validity"]
    frozen, _ = counted(folder / "laptop.jsonl", "revtgt", used_only=True)
    given, both = counted(folder / "arts.jsonl", "revtgt", used_only=False)
    assert frozen >= 2 and given == 3 and both == 2
    assert validity["laptop"]["revtgt"]["audited"] == frozen
    assert validity["arts"]["revtgt"]["audited"] == given
    assert validity["arts"]["revtgt"]["both"] == clopper_pearson(2, 3).to_dict()
    assert validity["other"]["revtgt"]["audited"] == 0  # the live generator: never audited


def test_validity_beside_each_fail_rate_per_source_in_terminal_markdown_and_allure(folder, run):
    laptop, arts = cell(folder / "laptop.jsonl", "revtgt", True), cell(folder / "arts.jsonl", "revtgt", False)
    lines = run.summary.splitlines()
    head = next(x for x in lines if x.startswith("validity of the variants"))
    assert head == ("validity of the variants (audited: fluent and the intended sentiment, exact 95% CI): "
                    f"arts revtgt {arts}; laptop revtgt {laptop}")
    assert lines[lines.index(head) + 1] == ("  not audited: revnon on laptop, other; revtgt on other (frozen variants "
                                            "are audited with `absa-checks audit draw`)")
    markdown = (folder / "summary.md").read_text()
    for source, shown in (("laptop", f"valid {laptop}"), ("arts", f"valid {arts}"), ("other", "not audited")):
        row = next(x for x in markdown.splitlines() if x.startswith(f"| {source} | revtgt |"))
        fail = run.report["sources"][source]["strategies"]["revtgt"]["fail_rate"]
        assert f"{100 * fail['value']:.2f} [{100 * fail['ci95'][0]:.1f}, {100 * fail['ci95'][1]:.1f}] | {shown} |" in row
    summaries = [json.loads(p.read_text()) for p in (folder / "allure").glob("*-result.json")]
    html = next(s for s in summaries if s["name"] == "absa-checks summary")["descriptionHtml"]
    assert f"valid {laptop}" in html and f"valid {arts}" in html


def test_min_validity_gates_only_the_frozen_and_audited_sources_naming_each_ones_file(run):
    gates = {(g["test"].split("::")[-1], g["source"]): g for g in run.report["gates"] if g["gate"] == "min_validity"}
    assert set(gates) == {("revtgt-mixed", "laptop"), ("revtgt-mixed", "arts"), ("revnon-unaudited", "laptop")}
    assert gates[("revtgt-mixed", "laptop")]["verdict"] == gates[("revtgt-mixed", "arts")]["verdict"] == "pass"
    missing = gates[("revnon-unaudited", "laptop")]
    assert missing["verdict"] == "fail" and "absa-checks audit draw unaudited.jsonl" in missing["reason"]
    assert run.code == 1


@pytest.mark.slow
def test_a_verdict_counts_only_for_a_text_the_test_runs(folder, tmp_path):
    """The source's own variant changed after the audit (its unit did not): that verdict judged another text."""
    for name in ("mine.yaml", "laptop.jsonl", "unaudited.jsonl", "arts.jsonl", "suite.yaml"):
        (tmp_path / name).write_bytes((folder / name).read_bytes())
    (tmp_path / "arts.yaml").write_text(ARTS.replace("The pizza was bland.", "The pizza was awful."))
    again = run_pytest(["suite.yaml", "--model", "lexicon"], cwd=tmp_path, report=tmp_path / "r.json")
    assert again.report is not None, again.out[-2000:]
    assert again.report["validity"]["arts"]["revtgt"]["audited"] == 2
    assert not any(g["gate"] == "frozen_up_to_date" and g["verdict"] == "fail" for g in again.report["gates"])


@pytest.mark.slow
def test_an_audited_file_that_no_longer_fits_its_source_fails_frozen_up_to_date_naming_the_unit(folder, tmp_path):
    for name in ("mine.yaml", "laptop.jsonl", "unaudited.jsonl", "arts.jsonl", "suite.yaml"):
        (tmp_path / name).write_bytes((folder / name).read_bytes())
    (tmp_path / "arts.yaml").write_text(ARTS.replace("The waiter was rude.", "The waiter was very rude."))
    again = run_pytest(["suite.yaml", "--model", "lexicon"], cwd=tmp_path, report=tmp_path / "r.json")
    assert again.report is not None, again.out[-2000:]
    stale = [g for g in again.report["gates"] if g["gate"] == "frozen_up_to_date" and g["source"] == "arts"]
    assert stale and stale[0]["verdict"] == "fail"
    assert "the audited variants arts.jsonl no longer fit source 'arts' (revtgt): 1 unit changed (g2)" in \
        stale[0]["reason"]
    assert again.report["validity"]["arts"]["revtgt"]["audited"] == 2  # g2's verdict no longer counts


@pytest.mark.slow
def test_absa_variants_live_leaves_every_file_aside_and_says_validity_was_not_measured(folder, tmp_path):
    done = run_pytest(["suite.yaml", "--model", "lexicon", "--absa-variants", "live"], cwd=folder,
                      report=tmp_path / "live.json")
    assert done.report is not None, done.out[-2000:]
    assert origins(done.report, "revtgt-mixed") == {"laptop": {"generated"}, "arts": {"given"},
                                                   "other": {"generated"}}
    assert all(one["audited"] == 0 for found in done.report["validity"].values() for one in found.values())
    gates = [g for g in done.report["gates"] if g["gate"] == "min_validity"]
    assert {(g["source"], g["verdict"]) for g in gates} == {("laptop", "fail"), ("arts", "fail")}
    assert all("not measured: --absa-variants live" in g["reason"] for g in gates)
    assert ("validity of the variants: not audited, all 5 source x strategy pairs of the run (frozen variants are "
            "audited with `absa-checks audit draw`)") in done.summary.splitlines()
    assert done.report["run"]["fingerprint"]["parts"]["options"]["variants"] == "live"


# the suite syntax: one line naming the file, the line and the fix


def suite_error(tmp_path: Path, variants: str, sources: str = "[laptop, arts]") -> str:
    (tmp_path / "f.jsonl").write_text("")
    (tmp_path / "s.yaml").write_text("suite: s\nsources:\n  laptop: {examples: [{sentence: a b., aspect: a, polarity: "
                                     "positive}]}\n  arts: {examples: [{sentence: c d., aspect: c, polarity: "
                                     "negative}]}\ntests:\n  - name: t\n    strategy: revtgt\n"
                                     f"    sources: {sources}\n"
                                     f"    variants:\n{variants}")
    with pytest.raises(SpecError) as err:
        parse_suite(tmp_path / "s.yaml", (), "s.yaml")
    assert "\n" not in str(err.value)
    return str(err.value)


def test_a_source_not_among_the_tests_sources_is_refused_with_did_you_mean(tmp_path):
    said = suite_error(tmp_path, "      frozen: {laptp: f.jsonl}\n")
    assert said.startswith("s.yaml:10:") and "'laptp'" in said and "did you mean 'laptop'?" in said


def test_a_source_both_frozen_and_audited_is_refused(tmp_path):
    said = suite_error(tmp_path, "      frozen: {laptop: f.jsonl}\n      audited: {laptop: f.jsonl}\n")
    assert said.startswith("s.yaml:11:") and "both 'frozen' and 'audited'" in said


def test_one_frozen_file_for_every_source_leaves_nothing_to_audit(tmp_path):
    said = suite_error(tmp_path, "      frozen: f.jsonl\n      audited: {arts: f.jsonl}\n")
    assert said.startswith("s.yaml:11:") and "frozen: {SOURCE: FILE}" in said


def test_a_missing_per_source_file_is_refused_naming_its_line(tmp_path):
    said = suite_error(tmp_path, "      frozen: {laptop: f.jsonl}\n      audited: {arts: gone.jsonl}\n")
    assert said.startswith("s.yaml:11:") and "'gone.jsonl' not found" in said


def test_otherwise_alone_names_no_file_and_a_bad_mode_is_refused(tmp_path):
    said = suite_error(tmp_path, "      otherwise: auto\n")
    assert said.startswith("s.yaml:9:") and "{frozen: {SOURCE: FILE}" in said
    said = suite_error(tmp_path, "      frozen: {laptop: f.jsonl}\n      otherwise: generatd\n")
    assert said.startswith("s.yaml:11:") and "did you mean 'generated'?" in said


def test_the_per_source_lookup_and_the_single_file_form(tmp_path):
    (tmp_path / "f.jsonl").write_text("")
    (tmp_path / "g.jsonl").write_text("")
    (tmp_path / "s.yaml").write_text(
        "suite: s\nsources:\n  laptop: {examples: [{sentence: a b., aspect: a, polarity: positive}]}\n"
        "  arts: {examples: [{sentence: c d., aspect: c, polarity: negative}]}\n"
        "  more: {examples: [{sentence: e f., aspect: e, polarity: negative}]}\ntests:\n"
        "  - {name: t, strategy: revtgt, sources: [laptop, arts, more], variants: {frozen: {laptop: f.jsonl}, "
        "audited: {arts: g.jsonl}, otherwise: generated}}\n"
        "  - {name: u, strategy: revnon, sources: [laptop, arts], variants: {frozen: f.jsonl}}\n")
    per, single = parse_suite(tmp_path / "s.yaml", (), "s.yaml").tests
    assert per.frozen_for("laptop") == (str((tmp_path / "f.jsonl").resolve()), "f.jsonl")
    assert per.audited_for("arts") == (str((tmp_path / "g.jsonl").resolve()), "g.jsonl")
    assert per.frozen_for("arts") is None and per.audited_for("laptop") is None and per.frozen_for("more") is None
    assert (per.variants, per.otherwise, per.frozen) == ("generated", "generated", "")
    assert single.variants == "frozen" and single.frozen_for("arts") == single.frozen_for("laptop") == \
        (single.frozen, "f.jsonl")


def test_frozen_files_and_live_pairs_per_source():
    records: list[dict[str, Any]] = [{"source": "laptop", "strategy": "revtgt", "audits": {}, "frozen": "laptop.jsonl"},
               {"source": "arts", "strategy": "revtgt", "audits": {}, "frozen": "arts.jsonl"},
               {"source": "other", "strategy": "revtgt"},
               {"source": "x", "strategy": "revtgt", "ignored": "x.jsonl"}]
    assert audit.frozen_files(records) == {("laptop", "revtgt"): "laptop.jsonl", ("arts", "revtgt"): "arts.jsonl"}
    assert audit.live_pairs(records) == {("other", "revtgt")}
    assert audit.ignored_pairs(records) == {("x", "revtgt")}


def test_the_schema_accepts_the_per_source_form_and_refuses_what_the_loader_refuses():
    import jsonschema  # type: ignore[import-untyped]
    import yaml

    from absa_checks.suites import schema

    validator = jsonschema.Draft202012Validator(schema.suite_schema())
    suite = yaml.safe_load(SUITE)
    assert list(validator.iter_errors(suite)) == []
    wrongs: list[dict[str, Any]] = [{"frozen": {"laptop": "f.jsonl"}, "otherwise": "generatd"}, {"otherwise": "auto"},
                                    {"frozen": {}}, {"frozen": {"laptop": "f.jsonl"}, "audit": {"arts": "g.jsonl"}}]
    for wrong in wrongs:
        suite["tests"][0]["variants"] = wrong
        assert list(validator.iter_errors(suite)), wrong


def test_the_validity_lines_group_what_is_not_audited_and_fold_within_the_limit():
    from absa_checks.reports import summary_table, terminal

    header = summary_table.HEADER[:5] + (summary_table.VALIDITY,) + summary_table.HEADER[5:]
    sources = [f"source-number-{i}" for i in range(8)]
    rows = [(s, strategy, "1", "", "", "valid 95% [91, 97] (n 150)" if (s, strategy) == (sources[0], "revtgt")
             else "not audited", "", "") for s in sources for strategy in ("adddiff", "revnon", "revtgt")]
    table = summary_table.Table("", header, tuple(rows))
    head, rest = terminal.validity_lines(table, 5)
    assert head.endswith("source-number-0 revtgt 95% [91, 97] (n 150)")
    assert rest.startswith(f"  not audited: adddiff, revnon on {', '.join(sources)}; revtgt on "
                           f"{', '.join(sources[1:])} (")
    folded = terminal.fold(rest)
    assert len(folded) > 1 and all(len(line) <= terminal.LINE_LIMIT for line in folded)
    assert " ".join(line.strip() for line in folded) == rest.strip()
    nothing = summary_table.Table("", header, tuple((*row[:5], "not audited", *row[6:]) for row in rows))
    assert terminal.validity_lines(nothing, 5) == [
        "validity of the variants: not audited, all 24 source x strategy pairs of the run (frozen variants are "
        "audited with `absa-checks audit draw`)"]
