"""Installing the example extensions as a package does (docs/architecture.md, "Seams"): a dist-info folder
whose entry_points.txt registers them. No pip needed: importlib.metadata finds a dist-info folder on sys.path,
so a folder on PYTHONPATH (or sys.path) installs it. In a package's pyproject.toml the same registration reads

    [project.entry-points."absa_checks.strategies"]
    shout = "tests.extensions.example_strategy:STRATEGY"

    [project.entry-points."absa_checks.gates"]
    min_source_accuracy = "tests.extensions.example_gate:GATE"
"""

from __future__ import annotations

from pathlib import Path

ENTRY_POINTS = {
    "absa_checks.strategies": {"shout": "tests.extensions.example_strategy:STRATEGY"},
    "absa_checks.gates": {"min_source_accuracy": "tests.extensions.example_gate:GATE"},
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
