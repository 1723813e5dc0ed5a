"""Sources: named collections of examples, loaded into units (an original + its given variants)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import AbsaChecksError
from ..examples import DataIssue, Unit

DATA_ENV = "ABSA_DATA_DIR"


@dataclass(frozen=True)
class LoadedSource:
    name: str
    units: tuple[Unit, ...]
    issues: tuple[DataIssue, ...] = ()


class DataMissing(AbsaChecksError):
    """A source's data is not on this machine; tests over it are skipped with this message."""


@dataclass(frozen=True)
class DatasetSource:
    """A source read from a file under the data directory (laid out like the project's shared data)."""

    name: str
    relative_path: str
    how_to_get: str


BUILTIN_SOURCES = {
    "arts-laptop": DatasetSource("arts-laptop", "arts/arts_testset/laptop_test_enriched.json",
                                 "the ARTS test set from github.com/zhijing-jin/ARTS_TestSet (data/arts_testset/)"),
    "arts-restaurant": DatasetSource("arts-restaurant", "arts/arts_testset/rest_test_enriched.json",
                                     "the ARTS test set from github.com/zhijing-jin/ARTS_TestSet (data/arts_testset/)"),
}


def resolve_data_dir(option: str | None) -> Path | None:
    """--absa-data wins over the ABSA_DATA_DIR environment variable; None when neither is set."""
    value = option or os.environ.get(DATA_ENV)
    return Path(value).expanduser() if value else None


def dataset_path(source: DatasetSource, data_dir: Path | None) -> Path:
    if data_dir is None:
        raise DataMissing(f"source '{source.name}' needs a data directory: pass --absa-data DIR (or set {DATA_ENV}) "
                          f"where DIR/{source.relative_path} is {source.how_to_get}")
    path = data_dir / source.relative_path
    if not path.is_file():
        raise DataMissing(f"source '{source.name}': {path} not found; put {source.how_to_get} there "
                          f"(DIR/{source.relative_path}) or point --absa-data at a folder that has it")
    return path


def load_dataset(name: str, data_dir: Path | None) -> LoadedSource:
    from .arts import load_arts  # the only dataset format so far

    source = BUILTIN_SOURCES[name]
    return load_arts(dataset_path(source, data_dir), name)
