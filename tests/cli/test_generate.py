"""`absa-checks generate`: one JSON object per variant, or the ARTS layout; quarantined attempts on request."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from absa_checks.cli import main
from absa_checks.common.examples import Aspect, Example, Unit, Variant
from absa_checks.perturb.engine import Quarantined
from absa_checks.perturb.strategies import NotApplicable
from absa_checks.perturb.variants import VariantSet
from absa_checks.sources.catalog import known_source_names
from absa_checks.workflows.generate import GenerationTally
from conftest import REPO, SHARED_DATA, needs_shared_data

SENTENCES = """\
# two sentences in the project's markup
The [burgers|pos] were {delicious|burgers}, but the [fries|neg] were {soggy|fries}.
The [soup|neg] was {cold|soup} and the [bread|neg] was {stale|bread}.
"""


@pytest.fixture
def marked(tmp_path):
    path = tmp_path / "mine.txt"
    path.write_text(SENTENCES)
    return path


def test_jsonl_has_one_object_per_variant_with_spans_and_edits(marked, tmp_path, capsys):
    out = tmp_path / "variants.jsonl"
    assert main(["generate", "--input", str(marked), "--strategies", "revtgt,revnon,adddiff", "--out", str(out),
                 "--k", "2", "--quarantine", str(tmp_path / "rejected.jsonl")]) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert {r["strategy"] for r in records} == {"revtgt", "revnon", "adddiff"}
    for record in records:
        assert {"strategy", "sentence", "term", "from", "to", "polarity", "unit", "edits", "original"} <= set(record)
        assert record["sentence"][record["from"]:record["to"]] == record["term"]
        assert record["edits"]
    burgers = next(r for r in records if r["strategy"] == "revtgt" and r["term"] == "burgers")
    assert burgers["polarity"] == "negative" and burgers["original"]["polarity"] == "positive"
    adddiff = [r for r in records if r["strategy"] == "adddiff"]
    assert all(len(r["other_aspects"]) >= 2 for r in adddiff)  # k=2 appended aspects (+ the sentence's own)
    assert (tmp_path / "rejected.jsonl").exists()
    assert "wrote" in capsys.readouterr().err


def test_arts_layout_groups_variants_by_unit(marked, tmp_path):
    out, lines = tmp_path / "arts.json", tmp_path / "same.jsonl"
    for path in (out, lines):
        assert main(["generate", "--input", str(marked), "--strategies", "revtgt,adddiff", "--out", str(path)]) == 0
    records = json.loads(out.read_text())
    made = [json.loads(line) for line in lines.read_text().splitlines()]
    # which variants the checks accept is the engine's business; the layout must hold exactly those
    suffix = {"revtgt": "_adv1", "adddiff": "_adv3"}
    assert {r["strategy"] for r in made} == {"revtgt", "adddiff"}
    assert set(records) == {r["unit"] for r in made} | {r["unit"] + suffix[r["strategy"]] for r in made}
    assert all(record["id"] in records and "_adv" not in record["id"] for record in records.values())


def test_the_same_seed_gives_the_same_file(marked, tmp_path):
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for out in (first, second):
        main(["generate", "--input", str(marked), "--out", str(out), "--seed", "3"])
    assert first.read_text() == second.read_text()


def test_bad_arguments_are_one_line(tmp_path, capsys):
    assert main(["generate", "--input", str(tmp_path / "none.xml"), "--out", str(tmp_path / "x.jsonl")]) == 2
    assert "no such file" in capsys.readouterr().err
    (tmp_path / "a.txt").write_text("The [soup|pos] was {hot|soup}.\n")
    assert main(["generate", "--input", str(tmp_path / "a.txt"), "--strategies", "revtgtt",
                 "--out", str(tmp_path / "x.jsonl")]) == 2
    assert "unknown revtgtt" in capsys.readouterr().err


# --source: the units and variants the suites test, through the plugin's own code path

SUITE_FILES = ["suites/directional/revtgt.yaml", "suites/invariance/revnon.yaml", "suites/invariance/adddiff.yaml",
               "suites/invariance/revnon_adddiff.yaml"]
CLI_STRATEGIES = {"semeval14-laptop": "revtgt,revnon,adddiff,revnon+adddiff", "arts-laptop": "revtgt,revnon,adddiff"}


# pytest over the suites, then the CLI, in one fresh interpreter: both run the very same code
BOTH_IN_ONE_PROCESS = """
import json, sys, pytest
from absa_checks.cli import main
runs = json.loads(sys.argv[1])
pytest.main(runs[0])
sys.exit(max(main(args) for args in runs[1:]))
"""


@pytest.fixture(scope="module")
def suites_and_cli(tmp_path_factory):
    """A `pytest suites/... --absa-variants live` run over semeval14-laptop (generated: the frozen set left aside,
    as the live generator is one option away) and arts-laptop (given), and the CLI's output for each."""
    folder = tmp_path_factory.mktemp("suites-and-cli")
    runs = [[*SUITE_FILES, "-q", "-p", "no:cacheprovider", "--absa-data", str(SHARED_DATA), "--absa-no-cache",
             "--absa-sources", ",".join(CLI_STRATEGIES), "--absa-variants", "live",
             "--absa-report", str(folder / "report.json")]]
    runs += [["generate", "--source", source, "--data", str(SHARED_DATA), "--strategies", strategies,
              "--out", str(folder / f"{source}.jsonl"), "--quarantine", str(folder / f"{source}.rejected.jsonl")]
             for source, strategies in CLI_STRATEGIES.items()]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_XDIST_WORKER", "PYTEST_ADDOPTS")}
    done = subprocess.run([sys.executable, "-c", BOTH_IN_ONE_PROCESS, json.dumps(runs)], cwd=REPO,
                          env={**env, "PYTHONPATH": str(REPO)}, capture_output=True, text=True)
    assert done.returncode == 0 and (folder / "report.json").is_file(), done.stdout + done.stderr

    def lines(path):
        return [json.loads(line) for line in path.read_text().splitlines()]

    written = {source: (lines(folder / f"{source}.jsonl"), lines(folder / f"{source}.rejected.jsonl"))
               for source in CLI_STRATEGIES}
    return json.loads((folder / "report.json").read_text()), written


@needs_shared_data
@pytest.mark.slow
@pytest.mark.parametrize("source", list(CLI_STRATEGIES))
def test_source_output_is_what_the_suites_test(suites_and_cli, source):
    report, written = suites_and_cli
    records, rejected = written[source]
    tested = sorted((c["strategy"], c["unit"], c["variant"]["sentence"])
                    for c in report["cases"] if c["source"] == source)
    assert len(tested) > 500
    assert sorted((r["strategy"], r["unit"], r["sentence"]) for r in records) == tested
    skipped = sorted((q["strategy"], q["unit_id"], q["reason"])
                     for q in report["quarantine"]["variants"] if q["source"] == source)
    assert sorted((q["strategy"], q["unit_id"], q["reason"]) for q in rejected) == skipped
    if source == "arts-laptop":  # ARTS ships its variants: none generated, none quarantined
        assert not skipped and all(not r["edits"] for r in records)
    else:
        assert skipped and all(r["edits"] for r in records)


def test_a_builtin_source_needs_no_data_dir(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("ABSA_DATA_DIR", raising=False)
    out = tmp_path / "variants.jsonl"
    assert main(["generate", "--source", "builtin-laptop", "--strategies", "revtgt", "--out", str(out)]) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert records and {r["source"] for r in records} == {"builtin-laptop"}
    assert "units from builtin-laptop (laptop)" in capsys.readouterr().err


@pytest.mark.parametrize("args, message", [
    (["--source", "semeval14-lap"], "--source: unknown source 'semeval14-lap'; use one of builtin-restaurant, "),
    (["--source", "arts-laptop"], "--source arts-laptop reads a data directory: pass --data DIR"),
    (["--source", "arts-laptop", "--data", "{tmp}/nowhere"], "--data: {tmp}/nowhere is not a folder"),
    (["--source", "arts-laptop", "--data", "{tmp}"],
     "--data: {tmp}/arts/arts_testset/laptop_test_enriched.json not found; arts-laptop needs the ARTS test set"),
    ([], "pass exactly one of --input FILE (an annotated file) or --source NAME"),
    (["--source", "builtin-laptop", "--input", "x.txt"], "pass exactly one of --input FILE"),
    (["--input", "x.txt", "--data", "{tmp}"], "--data: only used with --source"),
    (["--source", "builtin-laptop", "--domain", "laptop"], "--domain: only used with --input"),
])
def test_source_errors_are_one_line_naming_the_option(tmp_path, capsys, monkeypatch, args, message):
    monkeypatch.delenv("ABSA_DATA_DIR", raising=False)
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    assert main(["generate", *args, "--out", str(tmp_path / "x.jsonl")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("absa-checks: ") and err.count("\n") == 1
    assert message.replace("{tmp}", str(tmp_path)) in err
    if "unknown source" in message:
        assert all(name in err for name in known_source_names())
    assert not (tmp_path / "x.jsonl").exists()


# the summary: per strategy, shipped, quarantined by reason, not applicable by reason

def test_the_tally_counts_each_reason_under_its_strategy():
    unit = Unit("s", "u1", Example("The soup was hot.", Aspect("soup", 4, 8, "positive")))
    variant = Variant("revtgt", unit.original, origin="generated")
    skip = NotApplicable("the target has no opinion words")
    bad = Quarantined("s", "u2", "revtgt", "verb agreement", "", "")
    tally = GenerationTally()
    tally.add("revtgt", VariantSet("generated", {"u1": (variant,)}, (bad,), (skip, skip)))
    tally.add("revnon", VariantSet("generated", {}, (), (NotApplicable("no other aspect"), skip)))
    tally.add("adddiff", VariantSet("given", {"u1": (variant, variant), "u2": (), "u3": ()}))
    assert tally.lines() == [
        "adddiff: 2 variants (given by the source), 0 quarantined, 2 not applicable",
        "    not applicable: 2 x the source gives no variant",
        "revnon: 0 variants, 0 quarantined, 2 not applicable",
        "    not applicable: 1 x no other aspect",
        "    not applicable: 1 x the target has no opinion words",
        "revtgt: 1 variants, 1 quarantined, 2 not applicable",
        "    quarantined: 1 x verb agreement",
        "    not applicable: 2 x the target has no opinion words",
    ]


def test_every_unit_is_counted_once_per_strategy(tmp_path, capsys):
    """Printed counts add up: each unit is a variant, a quarantined attempt or not applicable, with a reason."""
    assert main(["generate", "--source", "builtin-restaurant", "--strategies", "revtgt,revnon",
                 "--out", str(tmp_path / "variants.jsonl")]) == 0
    err = capsys.readouterr().err.splitlines()
    units = int(err[0].split()[0])
    totals = [line for line in err if not line.startswith("      ")][1:]
    assert [line.split(":")[0].strip() for line in totals] == ["revnon", "revtgt"]
    for line in totals:
        numbers = [int(word) for word in line.split(":")[1].replace(",", " ").split() if word.isdigit()]
        assert sum(numbers) == units
    reasons = [line.strip() for line in err if line.startswith("      not applicable: ")]
    assert reasons and all(" x " in line and line.split(" x ")[1] for line in reasons)


@pytest.mark.parametrize("command", ["generate", "augment"])
def test_a_strategy_named_twice_in_strategies_is_one_line(tmp_path, capsys, monkeypatch, command):
    monkeypatch.delenv("ABSA_DATA_DIR", raising=False)
    source = ["--source", "builtin-laptop"] if command == "generate" else ["--input", str(tmp_path / "in.txt")]
    (tmp_path / "in.txt").write_text(SENTENCES)
    assert main([command, *source, "--strategies", "revtgt,revnon,revtgt", "--out", str(tmp_path / "x.jsonl")]) == 2
    err = capsys.readouterr().err
    assert err == "absa-checks: --strategies revtgt,revnon,revtgt: revtgt named more than once; name each strategy once\n"
    assert not (tmp_path / "x.jsonl").exists()
