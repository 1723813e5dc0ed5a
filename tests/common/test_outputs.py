"""One writer for every output (absa_checks/common/outputs.py): an output never destroys an input, another output, a
device, a FIFO or a link; a full, read-only or forbidden folder is one line, and the other outputs are still
written. Real pytest and `absa-checks` processes, real files, a real small tmpfs (mounted where we may)."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from absa_checks.common import outputs
from conftest import REPO, _plugin_args, run_pytest

ARGS = ["suites/", "--absa-sources", "restaurant-inline", "-q", "--tb=no"]
MARKUP = """\
The [burgers|pos] were {delicious|burgers}, but the [fries|neg] were {soggy|fries}.
The [soup|neg] was {cold|soup} and the [bread|neg] was {stale|bread}.
"""
SEMEVAL = """<?xml version="1.0" encoding="UTF-8"?>
<sentences>
  <sentence id="1"><text>The burgers were delicious, but the fries were soggy.</text>
    <aspectTerms><aspectTerm term="burgers" polarity="positive" from="4" to="11"/>
      <aspectTerm term="fries" polarity="negative" from="36" to="41"/></aspectTerms></sentence>
  <sentence id="2"><text>The soup was cold and the bread was stale.</text>
    <aspectTerms><aspectTerm term="soup" polarity="negative" from="4" to="8"/>
      <aspectTerm term="bread" polarity="negative" from="26" to="31"/></aspectTerms></sentence>
</sentences>
"""


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def cli(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "absa_checks.cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PYTHONPATH": str(REPO)})


def no_traceback(text: str) -> None:
    assert "Traceback" not in text and "INTERNALERROR" not in text, text


def one_error_line(out: str, *fragments: str) -> str:
    """The single line that names every fragment (pytest prints usage errors as `ERROR: ...`)."""
    lines = [line for line in out.splitlines() if all(f in line for f in fragments)]
    assert len(lines) == 1, out
    return lines[0]


@pytest.fixture(scope="module")
def baseline(tmp_path_factory) -> Path:
    """A released model's report: a real run's JSON report."""
    path = tmp_path_factory.mktemp("released") / "baseline.json"
    done = run_pytest(ARGS, report=path)
    assert path.is_file(), done.out
    return path


def mount_tmpfs(folder: Path, size: str = "64k") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0777", "tmpfs", str(folder)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN): {done.stderr.strip()}")


@pytest.fixture
def tmpfs(tmp_path):
    """A 64 KiB tmpfs at tmp_path/small, unmounted afterwards whatever happens."""
    folder = tmp_path / "small"
    mount_tmpfs(folder)
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def fill(folder: Path) -> None:
    """Write until the file system says it is full (a real ENOSPC)."""
    handle = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(handle, b"x" * 1024)
    except OSError as err:
        assert err.errno == errno.ENOSPC
    finally:
        os.close(handle)
    assert not os.statvfs(folder).f_bavail


def leftovers(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]


# ---- before the run: an output that is an input, another output, a device, a FIFO, a link -------------

@pytest.mark.parametrize("spelling", ["same", "dot", "symlink", "hardlink"])
def test_the_report_is_never_written_over_the_baseline(baseline, tmp_path, spelling):
    before = digest(baseline)
    report = {"same": baseline, "dot": Path(f"{baseline.parent}/./{baseline.name}"),
              "symlink": tmp_path / "link.json", "hardlink": tmp_path / "hard.json"}[spelling]
    if spelling == "symlink":
        report.symlink_to(baseline)
    if spelling == "hardlink":
        os.link(baseline, report)
    done = run_pytest([*ARGS, "--absa-baseline", str(baseline), "--absa-report", str(report)])
    assert done.code == 4, done.out
    line = one_error_line(done.out, "--absa-report", "--absa-baseline", "an input of this run")
    assert "name another file for --absa-report" in line
    assert digest(baseline) == before  # the released baseline is byte-identical
    no_traceback(done.out)


def test_a_partial_report_is_never_written_over_the_baseline(baseline, tmp_path):
    """A partial run writes report.partial.json, and a complete one deletes an old one: never the baseline."""
    before = digest(baseline)
    report = baseline.with_name("baseline-run.json")
    partial = baseline.with_name("baseline-run.partial.json")
    partial.write_bytes(baseline.read_bytes())
    done = run_pytest([*ARGS, "--absa-baseline", str(partial), "--absa-report", str(report)])
    assert done.code == 4, done.out
    one_error_line(done.out, "partial-run report", "--absa-baseline", "an input of this run")
    assert digest(partial) == before and not report.exists()


def test_the_report_and_the_markdown_are_never_one_file(tmp_path):
    done = run_pytest([*ARGS, "--absa-report", str(tmp_path / "out"), "--absa-markdown", f"{tmp_path}/./out"])
    assert done.code == 4, done.out
    one_error_line(done.out, "--absa-report", "--absa-markdown", "are one file")
    assert not (tmp_path / "out").exists()


def test_a_report_is_never_a_picture_of_the_markdown(tmp_path):
    done = run_pytest([*ARGS, "--absa-markdown", str(tmp_path / "summary.md"),
                       "--absa-report", str(tmp_path / "summary-accuracy.png")])
    assert done.code == 4, done.out
    one_error_line(done.out, "--absa-report", "its picture", "are one file")


@pytest.mark.parametrize("which, message", [
    ("suite", "is an existing YAML file"), ("examples", "is an existing YAML file"),
    ("models", "--absa-models"),
    ("examples.data", "the examples file of source 'mine'"),  # not YAML by name: found when the suite is collected
])
@pytest.mark.slow
def test_a_report_is_never_written_over_a_suite_an_examples_file_or_the_models_file(tmp_path, which, message):
    project = tmp_path / "project"
    (project / "suites").mkdir(parents=True)
    examples = "mine.examples.data" if which == "examples.data" else "mine.examples.yaml"
    (project / "suites" / examples).write_text(
        "examples:\n  - sentence: The soup was cold but the bread was warm.\n    aspect: soup\n    polarity: negative\n"
        "    aspects: [{term: bread, polarity: positive}]\n")
    (project / "suites" / "mine.yaml").write_text(
        f"suite: mine\nsources:\n  mine:\n    file: {examples}\ntests:\n  - name: revtgt\n"
        "    strategy: revtgt\n    expect: flip\n    sources: [mine]\n")
    (project / "models.yaml").write_text("models:\n  mine: {kind: lexicon}\n")
    target = {"suite": project / "suites" / "mine.yaml", "examples": project / "suites" / examples,
              "examples.data": project / "suites" / examples, "models": project / "models.yaml"}[which]
    before = digest(target)
    for spread in ([], ["-n", "1"]):  # under pytest-xdist the controller collects nothing
        done = run_pytest(["suites", "-q", *spread, "--absa-model", "mine", "--absa-markdown",
                           os.path.relpath(target, project)], cwd=project, report=tmp_path / "report.json")
        if spread and which == "examples.data":  # known only from the results: refused when written, not before
            assert done.code == 1 and done.report is not None, done.out
            one_error_line(done.out, "--absa-markdown", message, "(not written)")
        else:
            assert done.code == 4, done.out
            one_error_line(done.out, "--absa-markdown", message)
        assert digest(target) == before
        no_traceback(done.out)


def test_a_file_of_the_data_folder_is_never_an_output(tmp_path):
    data = tmp_path / "data"
    (data / "semeval14").mkdir(parents=True)
    kept = data / "semeval14" / "Restaurants_Test_Gold.xml"
    kept.write_text(SEMEVAL)
    done = run_pytest([*ARGS, "--absa-data", str(data), "--absa-report", str(kept)])
    assert done.code == 4, done.out
    one_error_line(done.out, "--absa-report", "--absa-data", "an input of this run")
    assert kept.read_text() == SEMEVAL


def test_a_replay_models_file_is_never_an_output(tmp_path):
    answers = tmp_path / "answers.jsonl"
    answers.write_text('{"sentence": "x", "term": "x", "label": "positive"}\n')
    (tmp_path / "models.yaml").write_text(f"models:\n  replayed: {{kind: replay, path: {answers}, column: label}}\n")
    before = digest(answers)
    done = run_pytest([*ARGS, "--absa-models", str(tmp_path / "models.yaml"), "--absa-model", "replayed",
                       "--absa-report", str(answers)])
    assert done.code == 4, done.out
    one_error_line(done.out, "--absa-report", "model 'replayed'", "'path:'")
    assert digest(answers) == before


def test_a_python_models_module_is_never_an_output(tmp_path):
    module = tmp_path / "mymodel.py"
    module.write_text("def predict(queries):\n    return [{'positive': 1.0} for _ in queries]\n")
    before = digest(module)
    done = run_pytest([str(REPO / "suites"), "--absa-sources", "restaurant-inline", "-q", "--absa-model",
                       "python:mymodel:predict", "--absa-markdown", "mymodel.py"], cwd=tmp_path)
    assert done.code == 4, done.out
    one_error_line(done.out, "--absa-markdown", "module mymodel", "an input of this run")
    assert digest(module) == before


def test_dev_full_is_refused_and_stays_a_device():
    if not Path("/dev/full").is_char_device():
        pytest.skip("this system has no /dev/full character device")
    done = run_pytest([*ARGS, "--absa-report", "/dev/full"])
    assert done.code == 4, done.out
    one_error_line(done.out, "--absa-report /dev/full", "is a character device")
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_a_fifo_is_refused_and_stays_a_fifo(tmp_path):
    fifo = tmp_path / "report.md"
    os.mkfifo(fifo)
    done = run_pytest([*ARGS, "--absa-markdown", str(fifo)])
    assert done.code == 4, done.out
    one_error_line(done.out, "--absa-markdown", "is a FIFO")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_symlink_is_refused_unless_asked_and_then_written_through(tmp_path):
    real = tmp_path / "elsewhere" / "report.json"
    real.parent.mkdir()
    real.write_text("old")
    link = tmp_path / "report.json"
    link.symlink_to(real)
    refused = run_pytest([*ARGS, "--absa-report", str(link)])
    assert refused.code == 4, refused.out
    line = one_error_line(refused.out, "--absa-report", "is a symbolic link")
    assert "--absa-follow-symlinks" in line
    assert link.is_symlink() and real.read_text() == "old"
    followed = run_pytest([*ARGS, "--absa-report", str(link), "--absa-follow-symlinks"])
    assert followed.code == 0, followed.out
    assert link.is_symlink() and os.readlink(link) == str(real)  # the link stays a link
    assert json.loads(real.read_text())["schema"] == "absa-checks/report"


def test_a_symlink_to_a_device_is_refused_even_when_following_links(tmp_path):
    if not Path("/dev/full").is_char_device():
        pytest.skip("this system has no /dev/full character device")
    link = tmp_path / "report.json"
    link.symlink_to("/dev/full")
    done = run_pytest([*ARGS, "--absa-report", str(link), "--absa-follow-symlinks"])
    assert done.code == 4, done.out
    one_error_line(done.out, "is a character device")
    assert link.is_symlink() and stat.S_ISCHR(os.stat("/dev/full").st_mode)


# ---- while writing: a full disk, a read-only file system, no permission ------------------------------

def test_a_full_disk_for_the_report_still_writes_the_markdown_and_the_summary(tmpfs, tmp_path):
    fill(tmpfs)
    markdown = tmp_path / "elsewhere" / "summary.md"
    done = run_pytest([*ARGS, "--absa-report", str(tmpfs / "report.json"), "--absa-markdown", str(markdown)])
    assert done.code == 1, done.out  # a requested output is missing
    line = one_error_line(done.out, "--absa-report", "no space left on the device")
    assert str(tmpfs / "report.json") in line
    assert markdown.is_file() and "## absa-checks" in markdown.read_text()
    assert "absa-checks PASSED" in done.summary and "could not be written" in done.summary  # the summary stays
    assert not (tmpfs / "report.json").exists() and leftovers(tmpfs) == []
    no_traceback(done.out)


def test_a_full_disk_keeps_the_old_report_whole(tmpfs, tmp_path):
    """A write that fails leaves the previous file as it was (atomic: temporary file, then rename)."""
    old = tmpfs / "report.json"
    old.write_text('{"old": true}\n')
    os.chmod(old, 0o640)
    fill(tmpfs)
    done = run_pytest([*ARGS, "--absa-report", str(old)])
    assert done.code == 1, done.out
    one_error_line(done.out, "no space left on the device")
    assert old.read_text() == '{"old": true}\n' and leftovers(tmpfs) == []


def test_a_full_disk_for_the_markdown_still_writes_the_report(tmpfs, tmp_path):
    fill(tmpfs)
    report = tmp_path / "report.json"
    done = run_pytest([*ARGS, "--absa-markdown", str(tmpfs / "summary.md")], report=report)
    assert done.code == 1, done.out
    one_error_line(done.out, "--absa-markdown", str(tmpfs / "summary.md"), "no space left")
    assert done.report is not None and done.report["verdict"]["passed"]
    no_traceback(done.out)


def test_a_read_only_file_system_is_one_line_and_the_other_outputs_are_written(tmpfs, tmp_path):
    subprocess.run(["mount", "-o", "remount,ro", str(tmpfs)], check=True)
    report = tmp_path / "report.json"
    done = run_pytest([*ARGS, "--absa-markdown", str(tmpfs / "out" / "summary.md")], report=report)
    assert done.code == 1, done.out
    one_error_line(done.out, "--absa-markdown", "read-only")
    assert done.report is not None
    no_traceback(done.out)


def test_a_folder_without_write_permission_is_one_line(tmp_path):
    """chmod 555; root passes permission bits by, so as root the run loses CAP_DAC_OVERRIDE (setpriv)."""
    locked, free = tmp_path / "locked", tmp_path / "free"
    locked.mkdir()
    free.mkdir()
    os.chmod(locked, 0o555)
    prefix: list[str] = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("as root permission bits do not apply, and setpriv (util-linux) is not here to drop "
                        "CAP_DAC_OVERRIDE")
        caps = "-dac_override,-dac_read_search"
        prefix = [setpriv, f"--inh-caps={caps}", f"--bounding-set={caps}"]
    command = [*prefix, sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *_plugin_args(), *ARGS,
               "--absa-report", str(locked / "report.json"), "--absa-markdown", str(free / "summary.md")]
    done = subprocess.run(command, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True,
                          text=True, timeout=300)
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    one_error_line(out, "--absa-report", "permission denied")
    assert (free / "summary.md").is_file() and list(locked.iterdir()) == []
    no_traceback(out)


# ---- the absa-checks commands ------------------------------------------------------------------------

@pytest.mark.parametrize("command", ["generate", "augment"])
@pytest.mark.parametrize("spelling", ["same", "dot", "symlink", "hardlink", "absolute"])
def test_generate_and_augment_never_write_over_their_input(tmp_path, command, spelling):
    source = tmp_path / "train.xml"
    source.write_text(SEMEVAL)
    out = {"same": "train.xml", "dot": "./sub/../train.xml", "symlink": "link.xml", "hardlink": "hard.xml",
           "absolute": str(source)}[spelling]
    (tmp_path / "sub").mkdir()
    if spelling == "symlink":
        (tmp_path / "link.xml").symlink_to(source)
    if spelling == "hardlink":
        os.link(source, tmp_path / "hard.xml")
    done = cli(command, "--input", "train.xml", "--out", out, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    one_error_line(done.stderr, "--out", "--input", "an input of this run")
    assert source.read_text() == SEMEVAL
    no_traceback(done.stderr)


def test_generate_writes_through_a_link_only_when_asked(tmp_path):
    (tmp_path / "mine.txt").write_text(MARKUP)
    (tmp_path / "real.jsonl").write_text("old\n")
    (tmp_path / "link.jsonl").symlink_to(tmp_path / "real.jsonl")
    refused = cli("generate", "--input", "mine.txt", "--out", "link.jsonl", cwd=tmp_path)
    assert refused.returncode == 2 and "--follow-symlinks" in one_error_line(refused.stderr, "symbolic link")
    assert (tmp_path / "real.jsonl").read_text() == "old\n"
    done = cli("generate", "--input", "mine.txt", "--out", "link.jsonl", "--follow-symlinks", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "link.jsonl").is_symlink() and json.loads((tmp_path / "real.jsonl").read_text().splitlines()[0])


def test_generate_out_and_quarantine_are_never_one_file(tmp_path):
    (tmp_path / "mine.txt").write_text(MARKUP)
    done = cli("generate", "--input", "mine.txt", "--out", "v.jsonl", "--quarantine", "./v.jsonl", cwd=tmp_path)
    assert done.returncode == 2
    one_error_line(done.stderr, "--out v.jsonl", "--quarantine", "are one file")


def test_generate_on_a_full_disk_is_one_line_and_leaves_nothing_half_written(tmpfs, tmp_path):
    (tmp_path / "mine.txt").write_text(MARKUP * 40)
    fill(tmpfs)
    done = cli("generate", "--input", str(tmp_path / "mine.txt"), "--out", str(tmpfs / "v.jsonl"), "--quarantine",
               str(tmp_path / "rejected.jsonl"))
    assert done.returncode == 2, done.stderr
    one_error_line(done.stderr, "--out", "no space left on the device")
    assert (tmp_path / "rejected.jsonl").is_file()  # the other output is written
    assert not (tmpfs / "v.jsonl").exists() and leftovers(tmpfs) == []
    no_traceback(done.stderr)


@pytest.mark.slow
def test_merge_never_writes_over_one_of_its_shards(tmp_path):
    shards = []
    for k in (1, 2):
        path = tmp_path / f"shard-{k}.json"
        done = run_pytest([*ARGS, "--absa-shard", f"{k}/2"], report=path)
        assert path.is_file(), done.out
        shards.append(path)
    before = [digest(p) for p in shards]
    for out, extra in ((shards[0], ()), (tmp_path / "merged.json", ("--markdown", str(shards[1])))):
        done = cli("merge", *map(str, shards), "-o", str(out), *extra)
        assert done.returncode == 2, done.stdout + done.stderr
        one_error_line(done.stderr, "shard report", "an input of this run")
        assert [digest(p) for p in shards] == before
    merged = cli("merge", *map(str, shards), "-o", str(tmp_path / "merged.json"))
    assert merged.returncode == 0, merged.stderr and (tmp_path / "merged.json").is_file()


def test_merge_on_a_full_disk_still_writes_the_markdown_and_the_summary(tmpfs, tmp_path):
    shards = []
    for k in (1, 2):
        path = tmp_path / f"shard-{k}.json"
        run_pytest([*ARGS, "--absa-shard", f"{k}/2"], report=path)
        shards.append(path)
    fill(tmpfs)
    done = cli("merge", *map(str, shards), "-o", str(tmpfs / "merged.json"), "--markdown", str(tmp_path / "m.md"))
    assert done.returncode == 1, done.stdout + done.stderr
    one_error_line(done.stdout, "-o/--out", "no space left on the device")
    assert (tmp_path / "m.md").is_file() and "absa-checks PASSED" in done.stdout
    no_traceback(done.stdout + done.stderr)


# ---- the writer itself --------------------------------------------------------------------------------

def test_an_atomic_write_keeps_the_mode_and_leaves_no_temporary_file(tmp_path):
    target = tmp_path / "report.json"
    target.write_text("old")
    os.chmod(target, 0o640)
    outputs.write_text(outputs.Named("--absa-report", target), "new")
    assert target.read_text() == "new" and stat.S_IMODE(os.stat(target).st_mode) == 0o640
    assert leftovers(tmp_path) == []


def test_a_stale_partial_report_is_removed_only_when_it_is_a_regular_file(tmp_path):
    fifo, link, real = tmp_path / "a.partial.json", tmp_path / "b.partial.json", tmp_path / "real.json"
    os.mkfifo(fifo)
    real.write_text("keep")
    link.symlink_to(real)
    outputs.remove_stale(fifo)
    outputs.remove_stale(link)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and link.is_symlink() and real.read_text() == "keep"


def test_allure_summary_files_are_never_an_input(baseline, tmp_path):
    """environment.properties and categories.json are written by name into --alluredir."""
    results = tmp_path / "results"
    results.mkdir()
    link = results / "categories.json"
    os.link(baseline, link)
    before = digest(baseline)
    done = run_pytest([*ARGS, "--absa-baseline", str(baseline), "--alluredir", str(results)])
    assert done.code == 4, done.out
    one_error_line(done.out, "--alluredir", "--absa-baseline", "an input of this run")
    assert digest(baseline) == before
