"""The run manifest (absa_checks.judge.manifest): a run where something requested was not measured is never
PASSED. Requested: sources named by --absa-sources, dataset sources when a data folder is given, gated
tests. Each case runs pytest in a subprocess on a scratch project, as a user would (docs/reliability.md,
rows 68-79)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from _pytest.config.argparsing import Parser

from absa_checks.judge import manifest
from absa_checks.pytest_plugin import options as plugin_options
from absa_checks.suites.suite_files import classify
from conftest import REPO, SHARED_DATA, needs_shared_data, run_pytest

NO_DATA = {"ABSA_DATA_DIR": ""}  # the run's own environment must not bring a data folder

EXAMPLES = """
      - id: a
        sentence: "The food was great."
        aspect: food
        polarity: positive
        variants:
          adddiff: "The food was great, but the service was slow."
      - id: b
        sentence: "The staff was rude."
        aspect: staff
        polarity: negative
        variants:
          adddiff: "The staff was rude, but the pasta was lovely."
"""
THIRD = """      - id: c
        sentence: "The room is quiet."
        aspect: room
        polarity: positive
        variants:
          adddiff: "The room is quiet, but the wine is awful."
"""


def inline_suite(source: str = "tiny", extra: str = "", gates: str = "{max_fail_rate: 1.0}") -> str:
    return (f"suite: tiny\nsources:\n  {source}:\n    examples:{EXAMPLES}{extra}tests:\n  - name: adddiff\n"
            f"    strategy: adddiff\n    sources: [{source}]\n    gates: {gates}\n")


def data_suite(sources: str, gates: bool = True) -> str:
    return ("suite: data\ntests:\n  - name: revtgt\n    strategy: revtgt\n    expect: flip\n"
            f"    sources: [{sources}]\n    sample: 5\n" + ("    gates: {max_fail_rate: 1.0}\n" if gates else ""))


def write(root: Path, files: dict[str, str | bytes]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return root


def run_in(root: Path, *args: str, env: dict | None = None):
    return run_pytest([*args], cwd=root, report=root / "r.json", env={**NO_DATA, **(env or {})})


# -- empty option values ---------------------------------------------------------------------------


def _string_options() -> list[str]:
    """Every absa-checks option that takes a text (read from the plugin itself, so a new one is covered)."""
    parser = Parser(_ispytest=True)
    plugin_options.add_options(parser)
    plugin_options.add_model_alias(parser)
    group = parser.getgroup(*plugin_options.GROUP)
    found = [next(n for n in o.names() if n.startswith("--")) for o in group.options
             if o.attrs().get("type") in (None, str) and o.attrs().get("nargs") != 0 and not o.attrs().get("choices")]
    return sorted(found)


@pytest.mark.slow
@pytest.mark.parametrize("option", _string_options())
def test_an_empty_value_of_any_absa_option_is_a_usage_error_naming_it(tmp_path: Path, option: str):
    write(tmp_path, {"s.yaml": inline_suite()})
    for given in ([f"{option}="], [option, " , "]):
        result = run_pytest(["s.yaml", *given], cwd=tmp_path, env=NO_DATA)
        assert result.code == 4, result.out[-2000:]
        assert f"{option} was given an empty value" in result.out
        assert "Traceback" not in result.out


def test_the_generic_check_covers_the_options_of_the_issue():
    assert {"--model", "--absa-model", "--absa-sources", "--absa-data", "--absa-report", "--absa-markdown",
            "--absa-baseline", "--absa-models", "--absa-cache", "--absa-device"} <= set(_string_options())


# -- suite files: read whatever their spelling, never skipped silently ------------------------------

SUITE_BODY = inline_suite().split("\n", 1)[1]  # everything after the `suite:` line


@pytest.mark.parametrize("raw", [
    b"\xef\xbb\xbfsuite: tiny\n" + SUITE_BODY.encode(),
    ("# our suite\n\n# more words\nsuite: tiny\n" + SUITE_BODY).encode(),
    ("suite : tiny\n" + SUITE_BODY).replace("\n", "\r\n").encode(),
    ('"suite": tiny\n' + SUITE_BODY).encode(),
    (SUITE_BODY + "suite: tiny\n").encode(),  # the key last
    ("---\nsuite: tiny\n" + SUITE_BODY).encode(),
    ("suite: tiny\n" + SUITE_BODY).encode("utf-16"),  # with its byte-order mark
], ids=["utf8-bom", "comments-first", "crlf-and-spacing", "quoted-key", "key-last", "document-start", "utf16-bom"])
@pytest.mark.slow
def test_a_suite_is_collected_whatever_its_bom_line_ends_comments_or_spacing(tmp_path: Path, raw: bytes):
    write(tmp_path, {"s.yaml": raw})
    result = run_in(tmp_path)
    assert result.code == 0, result.out[-3000:]
    assert "absa-checks PASSED" in result.out
    assert len(result.report["cases"]) == 2


@pytest.mark.parametrize("name, text, why", [
    ("suites/typo.yaml", "Suite: tiny\n" + SUITE_BODY, "its first key is 'Suite'; did you mean 'suite'?"),
    ("suites/missing.yaml", SUITE_BODY, "it is in a 'suites' folder"),
    ("checks.yaml", "  suite: tiny\n  tests: []\n", "its 'suite:' key is indented"),
    ("suit.yaml", "suit: tiny\n" + SUITE_BODY, "its first key is 'suit'"),
], ids=["capital-key", "no-key-in-suites-folder", "indented", "near-miss"])
def test_a_suite_like_yaml_that_is_no_suite_is_an_error_never_skipped(tmp_path: Path, name: str, text: str,
                                                                     why: str):
    write(tmp_path, {name: text, "docker-compose.yml": "services:\n  web: {image: nginx}\n",
                     "config/settings.yaml": "tests:\n  - name: smoke\nsources: [db]\n",
                     "suites/restaurant.examples.yaml": "examples:" + EXAMPLES,
                     "suites/models.yaml": "models:\n  mine: {kind: lexicon}\n"})
    result = run_in(tmp_path)
    assert result.code == 2, result.out[-3000:]
    assert f"{name}: not an absa-checks suite ({why}" in result.out
    assert "docker-compose" not in result.out and "settings.yaml" not in result.out
    assert "restaurant.examples.yaml" not in result.out and "models.yaml" not in result.out
    assert "absa-checks PASSED" not in result.out


@pytest.mark.slow
def test_a_refused_suite_fails_the_run_even_when_collection_errors_are_let_through(tmp_path: Path):
    write(tmp_path, {"good.yaml": inline_suite(), "suites/typo.yaml": "Suite: x\n" + SUITE_BODY})
    result = run_in(tmp_path, "--continue-on-collection-errors")
    assert result.code == 1, result.out[-3000:]
    assert "absa-checks FAILED: suite file suites/typo.yaml was refused" in result.out
    assert result.report["manifest"]["refused_suites"][0]["path"] == "suites/typo.yaml"


@pytest.mark.parametrize("text, kind", [
    ("suite: x\n", "suite"), ("\ufeffsuite: x\n", "suite"), ("# c\r\nsuite :x y\r\n", "suite-like"),
    ("'suite': x\n", "suite"), ("{suite: x, tests: []}\n", "suite"), ("--- {suite: x}\n", "suite"),
    ("tests:\n  - name: t\n", "other"), ("services: {}\n", "other"), ("suites: [a]\n", "suite-like"),
    ("SUITE: x\n", "suite-like"), ("name: x\n  suite: y\n", "other"), ("site: {title: Docs}\n", "other"),
    ("models:\n  mine: {kind: lexicon}\n", "other"),
])
def test_classify_reads_the_top_level_keys(tmp_path: Path, text: str, kind: str):
    path = tmp_path / "x.yaml"
    path.write_text(text, encoding="utf-8")
    assert classify(path, tmp_path).kind == kind


def test_classify_reads_utf16_without_a_byte_order_mark(tmp_path: Path):
    for encoding in ("utf-16-le", "utf-16-be"):
        path = tmp_path / f"{encoding}.yaml"
        path.write_bytes("# a suite\nsuite: x\ntests: []\n".encode(encoding))
        assert classify(path, tmp_path).kind == "suite"


# -- data that was asked for ------------------------------------------------------------------------


@pytest.mark.parametrize("contents", [{}, {"notes.txt": "unrelated", "arts/readme.md": "nothing here"}],
                         ids=["empty-folder", "unrelated-files"])
@pytest.mark.slow
def test_a_data_folder_holding_none_of_the_sources_is_not_a_pass(tmp_path: Path, contents: dict):
    project = write(tmp_path / "p", {"s.yaml": data_suite("builtin-restaurant, arts-laptop, mams-restaurant")})
    data = write(tmp_path / "data", contents)
    data.mkdir(exist_ok=True)
    result = run_in(project, "--absa-data", str(data))
    assert result.code == 1, result.out[-3000:]
    assert "absa-checks FAILED: 2 requested source(s) not measured (asked for by --absa-data " in result.out
    assert f"arts-laptop, mams-restaurant; source 'arts-laptop': {data}/arts/arts_testset/" in result.out
    manifest_ = result.report["manifest"]
    assert manifest_["measured"]["sources"] == ["builtin-restaurant"]
    assert {p["source"] for p in manifest_["tests"] if p["requested"] and not p["measured"]} == {
        "arts-laptop", "mams-restaurant"}


@pytest.mark.slow
@needs_shared_data
def test_a_data_folder_holding_some_sources_names_the_ones_not_measured(tmp_path: Path):
    data = tmp_path / "data"
    (data / "arts" / "arts_testset").mkdir(parents=True)
    shutil.copy(SHARED_DATA / "arts" / "arts_testset" / "laptop_test_enriched.json", data / "arts" / "arts_testset")
    project = write(tmp_path / "p", {"s.yaml": data_suite("arts-laptop, arts-restaurant")})
    result = run_in(project, "--absa-data", str(data))
    assert result.code == 1, result.out[-3000:]
    assert "1 requested source(s) not measured (asked for by --absa-data" in result.out
    assert "): arts-restaurant; source 'arts-restaurant'" in result.out
    assert result.report["manifest"]["measured"]["sources"] == ["arts-laptop"]
    # with the present source named, the run measures everything it was asked for
    chosen = run_in(project, "--absa-data", str(data), "--absa-sources", "arts-laptop")
    assert chosen.code == 0 and "absa-checks PASSED" in chosen.out, chosen.out[-3000:]


def test_a_gated_suite_on_a_data_source_without_data_fails_and_writes_its_report(tmp_path: Path):
    write(tmp_path, {"s.yaml": data_suite("arts-laptop")})
    result = run_in(tmp_path, "--absa-markdown", "r.md")
    assert result.code == 1, result.out[-3000:]
    assert "absa-checks FAILED: 1 gated test/source pair(s) not measured" in result.out
    assert "revtgt on arts-laptop: source 'arts-laptop' needs a data directory" in result.out
    assert result.report is not None and result.report["verdict"]["passed"] is False
    assert result.report["manifest"]["not_measured"] and (tmp_path / "r.md").is_file()


def test_a_source_named_explicitly_without_its_data_is_not_a_pass(tmp_path: Path):
    write(tmp_path, {"s.yaml": data_suite("builtin-restaurant, arts-laptop", gates=False)})
    result = run_in(tmp_path, "--absa-sources", "arts-laptop")
    assert result.code == 1, result.out[-3000:]
    assert "absa-checks FAILED: 1 requested source(s) not measured (asked for by --absa-sources): arts-laptop" \
        in result.out


@pytest.mark.slow
def test_optional_data_sources_without_data_are_counted_not_failed(tmp_path: Path):
    write(tmp_path, {"s.yaml": data_suite("builtin-restaurant, arts-laptop, mams-restaurant")})
    result = run_in(tmp_path)
    assert result.code == 0, result.out[-3000:]
    assert "2 data sources not measured, their data is absent (not asked for: optional here): arts-laptop, " \
           "mams-restaurant; --absa-data DIR runs them" in result.out
    assert "absa-checks PASSED" in result.out
    assert result.report["manifest"]["skipped"] and not result.report["manifest"]["not_measured"]


@pytest.mark.slow
def test_selecting_only_tests_without_data_is_not_a_pass(tmp_path: Path):
    write(tmp_path, {"s.yaml": data_suite("builtin-restaurant, arts-laptop", gates=False)})
    result = run_in(tmp_path, "-k", "arts")
    assert result.code == 1, result.out[-3000:]
    assert "absa-checks FAILED: nothing was measured: none of the 1 selected suite items gave a result " \
           "(arts-laptop: source 'arts-laptop' needs a data directory" in result.out


def test_the_manifest_travels_from_xdist_workers(tmp_path: Path):
    pytest.importorskip("xdist")
    write(tmp_path, {"s.yaml": data_suite("arts-laptop")})
    result = run_in(tmp_path, "-n", "2")
    assert result.code == 1, result.out[-3000:]
    assert "absa-checks FAILED: 1 gated test/source pair(s) not measured" in result.out
    assert result.report["manifest"]["requested"]["suites"] == ["s.yaml"]


# -- nothing selected, nothing collected ------------------------------------------------------------


@pytest.mark.slow
def test_deselecting_every_case_never_says_passed(tmp_path: Path):
    write(tmp_path, {"s.yaml": inline_suite(), "test_app.py": "def test_adds():\n    assert 1 + 1 == 2\n"})
    nothing = run_in(tmp_path, "s.yaml", "-k", "no_such_case")
    assert nothing.code == 5, nothing.out[-3000:]
    assert "absa-checks NOT RUN: all 2 suite items were deselected" in nothing.out
    assert "PASSED" not in nothing.out
    # a run of the project's own tests beside the suites is not failed by absa-checks
    own = run_in(tmp_path, "-k", "test_adds")
    assert own.code == 0, own.out[-3000:]
    assert "absa-checks NOT RUN" in own.out and "absa-checks PASSED" not in own.out


@pytest.mark.slow
def test_a_named_source_that_gave_no_case_is_not_a_pass_beside_one_that_did(tmp_path: Path):
    suite = ("suite: s\nsources:\n  lonely:\n    examples:\n      - {id: a, sentence: \"The soup was lovely.\", "
             "aspect: soup, polarity: positive}\ntests:\n  - name: revnon\n    strategy: revnon\n"
             "    sources: [lonely, builtin-restaurant]\n    sample: 5\n")
    write(tmp_path, {"s.yaml": suite})
    result = run_in(tmp_path, "--absa-sources", "lonely,builtin-restaurant")
    assert result.code == 1, result.out[-3000:]
    assert "absa-checks FAILED: 1 requested source(s) not measured (asked for by --absa-sources): lonely; " \
           "example 'a' gave no revnon variant" in result.out
    assert run_in(tmp_path, "--absa-sources", "builtin-restaurant").code == 0


def test_collect_only_is_not_a_run_that_measured_nothing(tmp_path: Path):
    write(tmp_path, {"s.yaml": inline_suite()})
    result = run_in(tmp_path, "--collect-only", "-q")
    assert result.code == 0 and "absa-checks" not in result.out, result.out[-3000:]


@pytest.mark.slow
def test_a_suite_whose_examples_give_no_case_is_not_a_pass(tmp_path: Path):
    """REVNON on sentences with one aspect has nothing to perturb; without gates no item stands for that."""
    suite = ("suite: s\nsources:\n  mine:\n    examples:\n      - {id: a, sentence: \"The soup was lovely.\", "
             "aspect: soup, polarity: positive}\n      - {id: b, sentence: \"The staff were rude.\", aspect: staff, "
             "polarity: negative}\ntests:\n  - name: revnon\n    strategy: revnon\n    sources: [mine]\n")
    write(tmp_path, {"s.yaml": suite})
    result = run_in(tmp_path)
    assert result.code == 1, result.out[-3000:]
    assert "absa-checks FAILED: nothing was measured" in result.out


# -- baselines --------------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_baseline_sharing_no_unit_fails_its_gate_and_a_partial_one_says_how_many(tmp_path: Path):
    write(tmp_path, {"s.yaml": inline_suite()})
    first = run_pytest(["s.yaml"], cwd=tmp_path, report=tmp_path / "baseline.json", env=NO_DATA)
    assert first.code == 0, first.out[-3000:]
    write(tmp_path, {"s.yaml": inline_suite(source="other")})
    none = run_in(tmp_path, "--absa-baseline", "baseline.json")
    assert none.code == 1, none.out[-3000:]
    assert "the baseline shares no unit or case with this run (2 units now, 2 in the baseline)" in none.out
    assert "absa-checks FAILED" in none.out
    write(tmp_path, {"s.yaml": inline_suite(extra=THIRD)})
    some = run_in(tmp_path, "--absa-baseline", "baseline.json")
    assert some.code == 0, some.out[-3000:]
    assert "vs baseline: 2 of this run's 3 units are in the baseline (2 units there); the other 1 are not " \
           "compared" in some.out
    assert some.report["manifest"]["baseline"] == {"run_units": 3, "baseline_units": 2, "shared": 2}


# -- the manifest as plain data ---------------------------------------------------------------------


def test_build_asks_gated_tests_and_named_sources_only():
    planned = (manifest.Planned("s::g", "builtin", True, manifest.CASES),
               manifest.Planned("s::g", "arts", True, manifest.NO_DATA, "no arts"),
               manifest.Planned("s::u", "mams", False, manifest.NO_DATA, "no mams"))
    collection = manifest.Collection(("s.yaml",), planned, 3, 0)
    quiet = manifest.build(collection, [], {("s::g", "builtin")}, ["m"], ["m"], manifest.Request())
    assert quiet.problems == [] and "arts, mams" in quiet.skipped[0]
    named = manifest.build(collection, [], {("s::g", "builtin")}, ["m"], ["m"], manifest.Request(("mams",)))
    assert named.problems == ["1 requested source(s) not measured (asked for by --absa-sources): mams; no mams"]
    nothing = manifest.build(collection, [], set(), ["m"], [], manifest.Request())
    assert "gated test/source pair(s) not measured" in nothing.problems[0]
    roundtrip = manifest.Collection.from_dict(json.loads(json.dumps(collection.to_dict())))
    assert set(manifest.merged([roundtrip, collection]).planned) == set(collection.planned)


@pytest.mark.slow
def test_shards_of_a_gated_suite_without_data_merge_into_a_failed_run(tmp_path: Path):
    write(tmp_path, {"s.yaml": data_suite("builtin-restaurant, arts-laptop").replace(
        "    gates: {max_fail_rate: 1.0}\n", "") + "  - name: gated\n    strategy: adddiff\n    sources: [arts-laptop]\n"
        "    gates: {max_fail_rate: 1.0}\n"})
    for k in (1, 2):
        shard = run_pytest(["s.yaml", "--absa-shard", f"{k}/2"], cwd=tmp_path, report=tmp_path / f"shard-{k}.json",
                           env=NO_DATA)
        assert shard.code == 0 and f"absa-checks SHARD {k}/2" in shard.out, shard.out[-3000:]
    single = run_in(tmp_path)
    merged = subprocess.run([sys.executable, "-m", "absa_checks.cli", "merge", "shard-1.json", "shard-2.json", "-o",
                             "merged.json"], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                            env={**os.environ, "PYTHONPATH": str(REPO)})
    assert merged.returncode == single.code == 1, merged.stdout + merged.stderr
    assert "gated test/source pair(s) not measured" in merged.stdout and "gated on arts-laptop" in merged.stdout
    assert json.loads((tmp_path / "merged.json").read_text())["manifest"] == single.report["manifest"]
