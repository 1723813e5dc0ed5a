"""Which files pytest collects as suites: `pytest_collect_file` (registered by plugin.py's `pytest_plugins`).

A YAML file whose top level has `suite:` is a SuiteFile; one that only looks like a suite (a near miss of
the key, or a file in a folder named `suites`: absa_checks.suites.suite_files says why), or any YAML file named
on the command line, is a NotASuiteFile: an error saying why, never a file silently left out. Other YAML
files are the project's own.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from absa_checks.pytest_plugin.items import NotASuiteFile, SuiteFile
from absa_checks.suites.suite_files import classify, is_yaml


def pytest_collect_file(file_path: Path, parent: pytest.Collector):
    if not is_yaml(file_path):
        return None
    found = classify(file_path, parent.config.rootpath)
    if found.kind == "suite":
        return SuiteFile.from_parent(parent, path=file_path)
    if found.kind == "suite-like" or _named_on_command_line(parent.config, file_path):
        node = NotASuiteFile.from_parent(parent, path=file_path)  # say why, not pytest's "not found"
        node.why = found.why
        return node
    return None


def _named_on_command_line(config: pytest.Config, path: Path) -> bool:
    here = config.invocation_params.dir
    return any((here / arg.split("::")[0]).resolve() == path.resolve() for arg in config.args)
