"""absa_checks/common/yaml_lines.py reads YAML through libyaml when PyYAML has it (issue 37: the suites are read on
every run, and PyYAML's pure-Python composer was a tenth of a warm rerun). The two loaders must give the same
data, lines and bare names; a file libyaml refuses is read again by PyYAML's loader, so messages do not change.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from absa_checks.common import yaml_lines
from absa_checks.common.errors import SpecError

REPO = Path(__file__).resolve().parents[2]
SHIPPED = sorted([*REPO.glob("suites/**/*.yaml"), *REPO.glob("examples/**/*.yaml"), REPO / "models.yaml"])

needs_libyaml = pytest.mark.skipif(not hasattr(yaml, "CSafeLoader"), reason="PyYAML built without libyaml")


def _both(text: str) -> tuple[yaml_lines.LocatedYaml, yaml_lines.LocatedYaml]:
    return (yaml_lines._load_located(text, "f.yaml", yaml.CSafeLoader),
            yaml_lines._load_located(text, "f.yaml", yaml.SafeLoader))


@needs_libyaml
def test_every_shipped_yaml_reads_the_same_through_libyaml_and_pyyaml():
    assert len(SHIPPED) > 10
    for path in SHIPPED:
        fast, plain = _both(path.read_text(encoding="utf-8"))
        assert fast == plain, path


@needs_libyaml
def test_bare_names_and_lines_are_the_same_through_libyaml():
    text = "suite: s\nflag: yes\nnothing: null\nquoted: 'yes'\nitems:\n  - 1\n  - on\n  - \"no\"\n"
    fast, plain = _both(text)
    assert fast == plain
    assert plain.written_values == {("flag",): "yes", ("nothing",): "null", ("items", 0): "1", ("items", 1): "on"}
    assert plain.lines[("items", 2)] == 8


@pytest.mark.parametrize("text", ["a: [1, 2\nb: 3\n", "a: 1\na: 2\n", "a: !thing 1\n", "a: 2024-13-45\n",
                                  "a:\n\t- 1\n", "- a\nb: c\n"])
def test_a_refused_file_says_what_pyyaml_s_loader_says(text):
    with pytest.raises(SpecError) as plain:
        yaml_lines._load_located(text, "f.yaml", yaml.SafeLoader)
    with pytest.raises(SpecError) as found:
        yaml_lines.load_located(text, "f.yaml")
    assert str(found.value) == str(plain.value)
