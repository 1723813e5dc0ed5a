"""WordNet offline: Debian's copy is installed into nltk's data folder; without any, one clear message."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

DEBIAN = Path("/usr/share/wordnet")


def run_generate(tmp_path: Path, env: dict) -> subprocess.CompletedProcess:
    (tmp_path / "one.txt").write_text("The [staff|pos] was {friendly|staff}.\n")
    command = [sys.executable, "-m", "absa_checks.cli", "generate", "--input", str(tmp_path / "one.txt"),
               "--strategies", "revtgt", "--out", str(tmp_path / "out.jsonl")]
    full = {**os.environ, "PYTHONPATH": str(REPO), "HOME": str(tmp_path / "home"),
            "NLTK_DATA": str(tmp_path / "nltk_data"), **env}
    return subprocess.run(command, cwd=tmp_path, env=full, capture_output=True, text=True, timeout=120)


def test_no_wordnet_anywhere_is_one_clear_message(tmp_path):
    done = run_generate(tmp_path, {"ABSA_WORDNET_DIR": str(tmp_path / "nowhere")})
    assert done.returncode == 2
    assert "WordNet not found" in done.stderr and "apt-get install wordnet-base" in done.stderr
    assert "nltk.downloader wordnet" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.skipif(not (DEBIAN / "data.adj").is_file(),
                    reason="Debian's wordnet-base is not installed (apt-get install wordnet-base wordnet-sense-index)")
def test_debian_wordnet_is_copied_into_nltk_data(tmp_path):
    done = run_generate(tmp_path, {})
    assert done.returncode == 0, done.stderr
    installed = tmp_path / "nltk_data" / "corpora" / "wordnet"
    assert (installed / "lexnames").is_file() and (installed / "data.adj").is_file()
    assert not (installed / "data.adj").is_symlink()  # nltk refuses links
    assert '"sentence": "The staff was unfriendly."' in (tmp_path / "out.jsonl").read_text()  # WordNet's antonym
