"""Makes `pytest suites/` work from a checkout, even before `pip install -e .`."""

import sys
from pathlib import Path

ROOT = Path(__file__).parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

try:  # installed: the pytest11 entry point has loaded the plugin already
    from importlib.metadata import entry_points

    _INSTALLED = any(ep.name == "absa_checks" for ep in entry_points(group="pytest11"))
except Exception:  # pragma: no cover - very old importlib.metadata
    _INSTALLED = False

if not _INSTALLED:
    pytest_plugins = ["absa_checks.pytest_plugin.plugin"]

    def pytest_addoption(parser):
        # loaded from here, the plugin misses the hook that adds --model once conftests are in
        from absa_checks.pytest_plugin.options import add_model_alias

        add_model_alias(parser)

collect_ignore = ["models.yaml"]
