"""Every file absa-checks reads is a regular file: a device, FIFO, socket or folder named where a suite, an
examples file, a data file, a replay file, models.yaml, a baseline or a shard report belongs is refused in one
line naming it (absa_checks.common.inputs), never read (/dev/zero until memory runs out, a FIFO forever)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from absa_checks.common.errors import AbsaChecksError
from conftest import REPO

DEVICE = Path("/dev/null")  # a character device that reads as empty: safe to hand to the unfixed readers
REFUSED = "it is a character device, not a regular file: name a file"


def _suite(tmp_path: Path) -> None:
    from absa_checks.suites.spec import parse_suite

    parse_suite(DEVICE, ())


def _examples(tmp_path: Path) -> None:
    from absa_checks.suites.spec import parse_suite

    suite = tmp_path / "s.yaml"
    suite.write_text(f"suite: s\nsources:\n  mine:\n    file: {DEVICE}\ntests:\n  - {{name: t, strategy: revtgt, "
                     "sources: mine}\n")
    parse_suite(suite, ())


def _replay(tmp_path: Path) -> None:
    from model_adapters.replay import ReplayAdapter

    ReplayAdapter(DEVICE, "bert_pt")


def _models_file(tmp_path: Path) -> None:
    from absa_checks.models.adapters import resolve_run

    resolve_run("mine", DEVICE)


def _baseline(tmp_path: Path) -> None:
    from absa_checks.run.conclusion import read_baseline

    raise AbsaChecksError(read_baseline(DEVICE).error)


def _shard(tmp_path: Path) -> None:
    from absa_checks.run.shards import read_shard_reports

    read_shard_reports([DEVICE])


def _data_json(tmp_path: Path) -> None:
    from absa_checks.sources.base import read_json

    read_json(DEVICE, "ARTS", dict, "a mapping")


def _data_xml(tmp_path: Path) -> None:
    from absa_checks.sources.semeval import read_semeval_xml

    read_semeval_xml(DEVICE)


def _generate_input(tmp_path: Path) -> None:
    from absa_checks.suites.files import load_file

    load_file(DEVICE)


def _candidates(tmp_path: Path) -> None:
    from absa_checks.suites.candidates import read_text

    read_text(DEVICE)


READERS = {"suite": _suite, "examples-file": _examples, "replay": _replay, "models-yaml": _models_file,
           "baseline": _baseline, "shard-report": _shard, "data-json": _data_json, "data-xml": _data_xml,
           "generate-input": _generate_input, "candidates": _candidates}


@pytest.mark.skipif(not DEVICE.is_char_device(), reason="this system has no /dev/null character device")
@pytest.mark.parametrize("reader", list(READERS), ids=list(READERS))
def test_a_device_named_as_an_input_is_refused_in_one_line(tmp_path, reader):
    with pytest.raises(AbsaChecksError) as info:
        READERS[reader](tmp_path)
    message = str(info.value)
    assert REFUSED in message and str(DEVICE) in message and "\n" not in message, message


def test_a_fifo_as_an_examples_file_is_refused_not_waited_on(tmp_path):
    """Probe 9 (a source `file: /dev/zero` read until killed), with a FIFO: the unfixed reader waits for a writer
    forever; the child is bounded by the subprocess timeout, never by a clock the test asserts."""
    os.mkfifo(tmp_path / "pipe.yaml")
    (tmp_path / "s.yaml").write_text("suite: s\nsources:\n  mine:\n    file: pipe.yaml\ntests:\n"
                                     "  - {name: t, strategy: revtgt, sources: mine}\n")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    try:
        done = subprocess.run([sys.executable, "-m", "absa_checks.cli", "validate", "s.yaml"], cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("validate waited on the FIFO instead of refusing it")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert ("error s.yaml:4: examples file 'pipe.yaml' cannot be read (" in done.stdout
            and "it is a FIFO (named pipe), not a regular file: name a file" in done.stdout), done.stdout
