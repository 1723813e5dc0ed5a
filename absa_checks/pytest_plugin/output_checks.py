"""pytest's own outputs (--junitxml, --alluredir) checked against the run's inputs and outputs, and dropped
when refused."""

from __future__ import annotations

import os

from absa_checks.common import outputs
from absa_checks.pytest_plugin import pytest_outputs
from absa_checks.run.reporters import planned, run_inputs
from absa_checks.run.run_state import RunOptions


def check_pytest_outputs(config, options: RunOptions, specs=(), read: tuple[outputs.Named, ...] = ()) -> None:
    """pytest's own outputs (absa_checks.pytest_plugin.pytest_outputs) against the run's inputs and outputs, and the
    Allure folder writable: OutputRefused, one line, before the run."""
    inputs = run_inputs(options, specs, read)
    folders = [*outputs.given("--absa-data", options.data_dir), *outputs.given("--absa-cache", options.cache_dir)]
    follow = getattr(options, "follow_symlinks", False)
    pytest_outputs.check_wiped(config, inputs, folders)
    pytest_outputs.check_files(config, planned(options), inputs, folders, follow)
    if options.allure_dir is not None:
        pytest_outputs.check_writable_folder("--alluredir", options.allure_dir)


def drop_pytest_files(config) -> None:
    """A run refused after pytest configured: its --junitxml is not written (it would replace an input)."""
    from _pytest.junitxml import xml_key  # pytest keeps its JUnit writer in the stash under this key
    xml = config.stash.get(xml_key, None)
    if xml is not None:  # a hook being called keeps its plugins: the writer also points at nothing
        xml.logfile = os.devnull
        config.pluginmanager.unregister(xml)
        del config.stash[xml_key]


def pytest_files_still_safe(config, options: RunOptions, read: tuple[outputs.Named, ...]) -> list[str]:
    """At the end of an xdist run (the controller learns the suites read only from the results): pytest's own
    files checked again; a refused one is not written (its line, for the summary)."""
    if not read:
        return []
    try:
        pytest_outputs.check_files(config, [], run_inputs(options, (), read), [], False)
    except outputs.OutputRefused as err:
        drop_pytest_files(config)
        return [f"{err} (not written)"]
    return []
