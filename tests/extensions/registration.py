"""Installing the example extensions as a package does (docs/architecture.md, "Seams"): a dist-info folder
whose entry_points.txt registers them. No pip needed: importlib.metadata finds a dist-info folder on sys.path,
so a folder on PYTHONPATH (or sys.path) installs it. In a package's pyproject.toml the same registration reads

    [project.entry-points."absa_checks.strategies"]
    shout = "tests.extensions.example_strategy:STRATEGY"

    [project.entry-points."absa_checks.gates"]
    min_source_accuracy = "tests.extensions.example_gate:GATE"

    [project.entry-points."absa_checks.adapters"]
    constant = "tests.extensions.example_adapter:KIND"

    [project.entry-points."absa_checks.reporters"]
    gates_csv = "tests.extensions.example_reporter:REPORTER"

    [project.entry-points."absa_checks.sources"]
    acme-restaurant = "tests.extensions.example_source:SOURCE"
"""

from __future__ import annotations

from pathlib import Path

from absa_checks import sources
from absa_checks.run import reporters
from absa_checks.suites import gate_registry, strategies

ENTRY_POINTS = {
    "absa_checks.strategies": {"shout": "tests.extensions.example_strategy:STRATEGY"},
    "absa_checks.gates": {"min_source_accuracy": "tests.extensions.example_gate:GATE"},
    "absa_checks.adapters": {"constant": "tests.extensions.example_adapter:KIND"},
    "absa_checks.reporters": {"gates_csv": "tests.extensions.example_reporter:REPORTER"},
    "absa_checks.sources": {"acme-restaurant": "tests.extensions.example_source:SOURCE"},
}


def install(site: Path, entry_points: dict[str, dict[str, str]] = ENTRY_POINTS, name: str = "absa_extensions") -> Path:
    """`site` holding a dist-info folder that registers `entry_points` (group -> name -> "module:attribute")."""
    info = site / f"{name}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("".join(
        f"[{group}]\n" + "".join(f"{key} = {value}\n" for key, value in found.items()) + "\n"
        for group, found in entry_points.items()))
    return site


def forget() -> None:
    """The registries read once per process read the entry points afresh (adapter kinds read them every time)."""
    for registry in (strategies.registry, gate_registry.registry, reporters.registry, sources.registry):
        registry.cache_clear()
