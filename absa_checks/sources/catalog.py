"""Every source a suite can name without defining it: the built-in fixtures and the datasets."""

from __future__ import annotations

from pathlib import Path

from absa_checks.sources import BUILTIN_SOURCES, load_dataset
from absa_checks.sources.base import LoadedSource
from absa_checks.sources.builtin import BUILTIN_DOMAINS, load_builtin


def known_source_names() -> tuple[str, ...]:
    return tuple(BUILTIN_DOMAINS) + tuple(BUILTIN_SOURCES)


def load_named(name: str, data_dir: Path | None) -> LoadedSource:
    """A built-in fixture source (always here) or a dataset under `data_dir` (DataMissing if absent)."""
    if name in BUILTIN_DOMAINS:
        return load_builtin(name)
    return load_dataset(name, data_dir)
