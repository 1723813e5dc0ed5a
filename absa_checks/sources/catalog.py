"""Every source a suite can name without defining it: the built-in fixtures and the datasets (`registry()`,
absa_checks.sources), and the domain each is of."""

from __future__ import annotations

from pathlib import Path

from absa_checks.sources import load_dataset, registry
from absa_checks.sources.base import LoadedSource
from absa_checks.sources.builtin import BUILTIN_DOMAINS, load_builtin


def known_source_names() -> tuple[str, ...]:
    return tuple(BUILTIN_DOMAINS) + tuple(registry())


def load_named(name: str, data_dir: Path | None) -> LoadedSource:
    """A built-in fixture source (always here) or a dataset under `data_dir` (DataMissing if absent)."""
    if name in BUILTIN_DOMAINS:
        return load_builtin(name)
    return load_dataset(name, data_dir)


def source_domain(source: str, own: dict[str, str | None] | None = None) -> str | None:
    """The domain of a source (absa_checks.common.domains): a suite's own source says it (`domain:`), a built-in
    fixture or a dataset source declares it; any other is of no known domain."""
    if own and source in own:
        return own[source]
    if source in BUILTIN_DOMAINS:
        return BUILTIN_DOMAINS[source]
    dataset = registry().get(source)
    return dataset.domain if dataset is not None else None
