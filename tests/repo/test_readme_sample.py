"""The README's sample output is what the command above it prints (scripts/readme_sample.py)."""

from __future__ import annotations

import difflib
import importlib.util
import re

import pytest

from conftest import REPO


def _script():
    spec = importlib.util.spec_from_file_location("readme_sample", REPO / "scripts" / "readme_sample.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_the_readme_sample_is_the_output_of_its_command():
    script = _script()
    text = script.README.read_text()
    start, end = script.readme_block(text)
    shown = text[start:end]
    assert shown.startswith("=") and shown.splitlines()[-1].startswith(("absa-checks PASSED", "absa-checks FAILED"))
    # the lexicon model's fingerprint hashes the installed VADER and TextBlob versions: a newer release of
    # either changes it and nothing else, so it is the one value not compared
    fresh = script.section(script.run_command())
    shown, fresh = (re.sub(r"fingerprint [0-9a-f]{16}", "fingerprint <hex>", text) for text in (shown, fresh))
    assert shown == fresh, "the README's sample is stale: run python scripts/readme_sample.py\n" + "".join(
        difflib.unified_diff(shown.splitlines(True), fresh.splitlines(True), "README.md", "pytest suites/"))


def test_the_section_is_cut_from_heading_to_verdict_and_paths_normalised():
    script = _script()
    output = (f"collected 3 items\n\nsuite.yaml F..\n{'=' * 33} absa-checks {'=' * 34}\nmodel x at {REPO}/m\n"
              "absa-checks PASSED: the gate passed\n===== 1 failed, 2 passed in 0.52s =====\n")
    assert script.section(output) == f"{'=' * 33} absa-checks {'=' * 34}\nmodel x at ./m\nabsa-checks PASSED: the gate passed\n"
