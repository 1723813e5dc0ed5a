"""`absa_checks.evaluate`: the suites run from Python drive the same run core as `pytest suites/`, so the JSON
reports are equal apart from `timing` (when the run started, how long it took and what the model was asked:
the second run reads the first one's cache, and no two runs start at the same second). A mistake is the one
line pytest shows for it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from absa_checks import evaluate
from absa_checks.common.errors import AbsaChecksError
from absa_checks.run import options as run_options
from conftest import ARTS_OUTPUT, REPO, SHARED_DATA, needs_shared_data, run_pytest

NO_DATA = {"ABSA_DATA_DIR": ""}
PER_FRONT_DOOR = ("timing",)  # the only part of the report that may differ (see the module docstring)


def without_timing(report: dict) -> dict:
    return {key: value for key, value in report.items() if key not in PER_FRONT_DOOR}


def both(tmp_path: Path, monkeypatch, cwd: Path, pytest_args: list[str], env: dict | None = None, **options):
    """The JSON report of `pytest ARGS` (a subprocess) and of evaluate(**options) in this process."""
    for key, value in (env or {}).items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(cwd)
    ran = run_pytest(pytest_args, cwd=cwd, report=tmp_path / "pytest.json", env=env)
    assert ran.report is not None, ran.out[-3000:]
    result = evaluate(report=str(tmp_path / "api.json"), rootdir=cwd, **options)
    written = json.loads((tmp_path / "api.json").read_text())
    assert written == json.loads(json.dumps(result.report))  # .report is what was written
    return ran, result, written


@pytest.mark.slow
def test_evaluate_equals_pytest_on_the_default_suites(tmp_path, monkeypatch):
    ran, result, report = both(tmp_path, monkeypatch, REPO, ["suites/", "-q", "--tb=no", "--absa-no-cache"],
                               NO_DATA, suites="suites", no_cache=True)
    assert report["cases"], "the default suites have built-in cases"
    assert without_timing(report) == without_timing(ran.report)
    assert ran.code == result.verdict.exit_status
    assert result.summary[-1] in ran.out  # the verdict line, as pytest prints it


@needs_shared_data
@pytest.mark.parametrize("extra", [{}, {"shard": "2/3"}, {"sample": 50, "seed": 7, "strict": True}])
def test_evaluate_equals_pytest_on_the_arts_laptop_replay(tmp_path, monkeypatch, extra):
    model = f"replay:{ARTS_OUTPUT / 'laptop_results.csv'}#bert_pt"
    args = ["suites/", "-q", "--tb=no", "--absa-no-cache", "--absa-data", str(SHARED_DATA), "--absa-sources",
            "arts-laptop", "--model", model]
    args += [arg for key, value in extra.items() for arg in (f"--absa-{key}", *([] if value is True else [str(value)]))]
    ran, result, report = both(tmp_path, monkeypatch, REPO, args, NO_DATA, model=model, suites=["suites"],
                               data=SHARED_DATA, sources=["arts-laptop"], no_cache=True, **extra)
    assert report["sources"]["arts-laptop"]["strategies"], "the replay was measured"
    assert without_timing(report) == without_timing(ran.report)
    assert ran.code == result.verdict.exit_status


@needs_shared_data
def test_evaluate_equals_pytest_with_the_checkpoints_of_a_group(tmp_path, monkeypatch):
    csv = ARTS_OUTPUT / "laptop_results.csv"
    models = tmp_path / "models.yaml"
    models.write_text("models:\n" + "".join(f"  {name}: {{kind: replay, path: '{csv}', column: {column}}}\n"
                                            for name, column in (("pt", "bert_pt"), ("sent", "bert_sent")))
                      + "groups:\n  published: [pt, sent]\n")
    args = ["suites/", "-q", "--tb=no", "--absa-no-cache", "--absa-data", str(SHARED_DATA), "--absa-sources",
            "arts-laptop", "--absa-models", str(models), "--model", "published", "--absa-sample", "40"]
    ran, result, report = both(tmp_path, monkeypatch, REPO, args, NO_DATA, model="published", models=models,
                               data=str(SHARED_DATA), sources="arts-laptop", no_cache=True, sample=40)
    assert {c["model"] for c in report["cases"]} == {"pt", "sent"}
    assert without_timing(report) == without_timing(ran.report)


SUITE = ("suite: tiny\nsources:\n  tiny:\n    examples:\n      - id: a\n        sentence: \"The food was great.\"\n"
         "        aspect: food\n        polarity: positive\ntests:\n  - name: adddiff\n    strategy: adddiff\n"
         "    sources: [tiny]\n")


def pytest_error(project: Path, *args: str) -> str:
    """The one line pytest shows for a mistake (without its "ERROR: " prefix), and that it showed no traceback."""
    ran = run_pytest(list(args), cwd=project, env=NO_DATA)
    assert ran.code in (2, 4) and "Traceback" not in ran.out, ran.out[-2000:]
    return ran.out


@pytest.mark.parametrize("files, args, options, spelled", [
    ({"suite.yaml": SUITE}, ["--absa-model", "bert-nope"], {"model": "bert-nope"}, "model=...: unknown model"),
    ({"suite.yaml": SUITE.replace("strategy: adddiff", "strategy: adddif")}, [], {}, ""),
    ({"suite.yaml": SUITE.replace("    sources: [tiny]", "    sources: [tiny]\n    smaple: 3")}, [], {}, ""),
    ({"suite.yaml": SUITE}, ["--absa-sample", "0"], {"sample": 0}, "sample=0 must be at least 1"),
    ({"suite.yaml": SUITE}, ["--absa-sources", "tinny"], {"sources": "tinny"}, "sources=...: no collected test uses"),
    ({"suite.yaml": SUITE}, ["--absa-gate-basis", "mean"], {"gate_basis": "mean"}, "gate_basis='mean': choose one"),
    ({"suite.yaml": SUITE}, ["--absa-model="], {"model": ""}, "model= was given an empty value"),
    ({"suite.yaml": SUITE, "notes.yaml": "tests:\n  - name: x\n"}, ["suite.yaml", "notes.yaml"], {}, ""),
])
def test_a_mistake_is_the_one_line_pytest_shows(tmp_path, monkeypatch, files, args, options, spelled):
    """The same line, with an option named as evaluate()'s keyword (`sample=0`) where pytest names its flag."""
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    shown = pytest_error(tmp_path, *(args if any(a.endswith(".yaml") for a in args) else ["suite.yaml", *args]))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ABSA_DATA_DIR", "")
    with pytest.raises(AbsaChecksError) as caught:
        evaluate(suites=[name for name in files], rootdir=tmp_path, no_cache=True, **options)
    message = str(caught.value)
    assert "\n" not in message
    if spelled:  # the option named as the keyword, the rest as pytest says it (argparse words a bad choice its way)
        assert message.startswith(spelled) and "--absa-" not in message, message
        assert args[0].split("=")[0] in shown
        rest = message[len(spelled.split(" ", 1)[0]):]  # after the option: pytest's words
        assert options.get("gate_basis") or rest in shown, (rest, shown[-2000:])
    else:
        assert message in shown, (message, shown[-2000:])


def test_an_unknown_keyword_names_it_and_the_close_match():
    with pytest.raises(AbsaChecksError, match=r"unknown option smaple=3 \(did you mean sample=\?\)"):
        evaluate(smaple=3)


def test_a_missing_suite_path_is_one_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(AbsaChecksError, match=r"^nope: no such file or folder"):
        evaluate(suites="nope", rootdir=tmp_path)
    (tmp_path / "empty").mkdir()
    with pytest.raises(AbsaChecksError, match=r"no suite file found"):
        evaluate(suites="empty", rootdir=tmp_path)


def test_importing_the_package_stays_cheap():
    """The pytest11 entry point imports absa_checks in every pytest run: evaluate loads on first use."""
    code = ("import sys, absa_checks; print(sorted(m for m in sys.modules if m.startswith('absa_checks.'))); "
            "absa_checks.evaluate; print('absa_checks.api' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert done.stdout.splitlines() == ["[]", "True"], done.stdout + done.stderr


@pytest.mark.parametrize("options, message", [
    ({"sample": "many"}, r"sample='many': give a whole number$"),
    ({"sample": 2.5}, r"sample=2\.5: give a whole number"),
    ({"strict": "yes"}, r"strict='yes': give True or False"),
    ({"sources": 3}, r"sources=3: give a text"),
    ({"suites": 123}, r"^evaluate\(\): suites=123: give a path \(a text or a pathlib.Path\) or a list of them$"),
    ({"suites": [Path("suites"), 7]}, r"suites=\[PosixPath\('suites'\), 7\]: give a path"),
    ({"suites": None}, r"suites=None: give a path"),
    ({"rootdir": 5}, r"rootdir=5: give a path \(a text or a pathlib.Path\)$"),
    ({"model": 3}, r"model=3: give a text"),
    ({"data": 3.5}, r"data=3\.5: give a text or a path"),
    ({"report": ["a.json", "b.json"]}, r"report=\['a.json', 'b.json'\]: give a text or a path"),
    ({"sources": ["tiny", 1]}, r"sources=\['tiny', 1\]: give a text \(a name; several as a list of texts\)"),
    ({"gate_basis": 1}, r"gate_basis=1: give one of interval, point"),
])
def test_a_value_of_the_wrong_type_is_one_error_naming_the_keyword(options, message):
    with pytest.raises(AbsaChecksError, match=message):
        evaluate(**options)


def test_every_keyword_of_evaluate_refuses_a_value_of_the_wrong_type_by_name(tmp_path):
    """evaluate(suites=123) used to raise a TypeError: every keyword, its own and the options', is checked."""
    for keyword in ["suites", "rootdir", *run_options.BY_KEYWORD]:
        with pytest.raises(AbsaChecksError) as caught:
            evaluate(**{keyword: object()})
        message = str(caught.value)
        assert message.startswith(f"evaluate(): {keyword}=<object object at ") and ": give " in message, message
        assert "--absa-" not in message and "\n" not in message


@pytest.mark.parametrize("options, spelled", [
    ({"data": "nowhere"}, "data='nowhere': no such folder"),
    ({"models": "nowhere.yaml"}, "models='nowhere.yaml': nowhere.yaml not found"),
    ({"models": "."}, "models='.': is a folder, not a file"),
    ({"report": "."}, "report='.': is a folder; name a file in it"),
    ({"markdown": "."}, "markdown='.': is a folder; name a file in it"),
    ({"cache": "suite.yaml"}, "cache='suite.yaml': is a file, not a folder"),
    ({"batch_size": 0}, "batch_size=0 must be at least 1"),
    ({"regression_alpha": 5}, "regression_alpha=5.0: a significance level is between 0 and 1"),
    ({"simple_alpha": 0}, "simple_alpha=0.0: a significance level is between 0 and 1"),
    ({"regression_min_effect": 1.5}, "regression_min_effect=1.5: an ARS drop as a fraction"),
    ({"gate_on": "best"}, "gate_on='best': choose one of mean, worst"),
    ({"inconclusive": "maybe"}, "inconclusive='maybe': choose one of pass, fail"),
    ({"shard": "2of3"}, "shard='2of3': write K/N"),
    ({"shard": "5/3"}, "shard='5/3': K must be from 1 to N"),
    ({"simple_baseline": "lexicon", "shard": "1/2"}, "simple_baseline='lexicon' with shard='1/2': the simple"),
    ({"simple_baseline": "lexicon"}, "simple_baseline='lexicon': is the model under test"),
    ({"simple_baseline": "lexicn"}, "simple_baseline=...: unknown model 'lexicn'"),
    ({"model": "replay:x"}, "model='replay:x': no '#<column>' after the path"),
    ({"sources": " , "}, "sources= was given an empty value"),
    ({"report": "suite.yaml"}, "report='suite.yaml': is an existing YAML file"),
    ({"baseline": "suite.yaml", "report": "suite.yaml"},
     "report='suite.yaml': is the same file as baseline='suite.yaml', an input of this run"),
])
def test_every_error_through_the_api_names_the_keyword_not_the_pytest_option(tmp_path, monkeypatch, options,
                                                                            spelled):
    (tmp_path / "suite.yaml").write_text(SUITE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ABSA_DATA_DIR", "")
    with pytest.raises(AbsaChecksError) as caught:
        evaluate(suites="suite.yaml", rootdir=tmp_path, no_cache=True, **options)
    message = str(caught.value)
    assert message.startswith(spelled) and "--absa-" not in message and "\n" not in message, message


def test_the_error_evaluate_raises_is_importable_from_the_package():
    import absa_checks
    from absa_checks import AbsaChecksError as exported

    assert exported is AbsaChecksError and "AbsaChecksError" in absa_checks.__all__
    with pytest.raises(exported):
        evaluate(sample=0)
    code = "import sys, absa_checks; print(sorted(m for m in sys.modules if m.startswith('absa_checks.')))"
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert done.stdout.splitlines() == ["[]"], done.stdout + done.stderr  # still imported on first use
