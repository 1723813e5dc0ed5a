"""Only for installs made before the plugin moved: their pytest11 entry point still names `absa_checks.plugin`.
`pip install -e .` points it at absa_checks.pytest_plugin.plugin; then this module is not loaded."""

from .pytest_plugin.plugin import (pytest_addoption, pytest_collect_file, pytest_configure,  # noqa: F401
                                   pytest_load_initial_conftests)
