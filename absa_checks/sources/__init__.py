"""Sources: named collections of examples, loaded into units (an original + any variants it ships).

Dataset sources read files under a data directory laid out like the project's shared data
(`--absa-data DIR` or $ABSA_DATA_DIR); inline sources come from suite YAML (see inline.py).

Adding a dataset source: a module with its loader and its `DatasetSource(...)`, and one registration: an entry in
BUILTIN_SOURCES, or, from your own package, an entry point under the group `absa_checks.sources` named as the
source (docs/architecture.md, "Seams"). Every reader asks `registry()`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import MappingProxyType

from absa_checks.common.domains import DOMAINS
from absa_checks.common.extensions import merged
from absa_checks.sources.arts import load_arts
from absa_checks.sources.base import DataMissing, LoadedSource
from absa_checks.sources.mams import MAMS_TEST, load_mams
from absa_checks.sources.semeval import TEST_FILES, load_semeval

DATA_ENV = "ABSA_DATA_DIR"
ENTRY_POINT_GROUP = "absa_checks.sources"
ARTS_HOW = "the ARTS test set from github.com/zhijing-jin/ARTS_TestSet (data/arts_testset/)"
SEMEVAL_HOW = ("the SemEval-2014 Task 4 (aspect-based sentiment analysis) gold test data, {file} "
               "(opinion spans are read from arts/src_data/{arts}/test_sent_towe.json of ARTS_TestSet when present, "
               "else from towe/{towe}/test.tsv of github.com/NJUNLP/TOWE, else inferred)")
MAMS_HOW = "the MAMS aspect-term test set from github.com/siat-nlp/MAMS-for-ABSA (data/MAMS-ATSA/raw/test.xml)"


@dataclass(frozen=True)
class DatasetSource:
    """A source read from files under the data directory: everything a caller may use of one."""

    name: str           # what a suite's `sources:` names it by (an entry point's name)
    relative_path: str  # the file under the data directory whose presence means the source is available
    how_to_get: str     # where to get that file, in every message saying it is missing
    load: Callable[[Path, str], LoadedSource]  # (the data directory, the name) -> the units and data issues
    domain: str | None = None  # its domain (absa_checks.common.domains), known before it is loaded; None: none


def _arts(relative_path: str) -> Callable[[Path, str], LoadedSource]:
    return lambda data_dir, name: load_arts(data_dir / relative_path, name)


def _semeval(name: str, domain: str, file: str, arts: str, towe: str) -> DatasetSource:
    return DatasetSource(name, TEST_FILES[domain].xml, SEMEVAL_HOW.format(file=file, arts=arts, towe=towe),
                         lambda data_dir, source: load_semeval(data_dir, source, domain), domain)


GCAE_HOW = "the GCAE hard subsets from github.com/wxue004cs/GCAE (atsa-*/atsa_hard_test.json)"


def _gcae(relative_path: str, domain: str) -> Callable[[Path, str], LoadedSource]:
    from absa_checks.sources.gcae import load_gcae

    return lambda data_dir, name: load_gcae(data_dir / relative_path, name, domain)


BUILTIN_SOURCES: MappingProxyType[str, DatasetSource] = MappingProxyType({s.name: s for s in (
    DatasetSource("arts-laptop", "arts/arts_testset/laptop_test_enriched.json", ARTS_HOW,
                  _arts("arts/arts_testset/laptop_test_enriched.json"), "laptop"),
    DatasetSource("arts-restaurant", "arts/arts_testset/rest_test_enriched.json", ARTS_HOW,
                  _arts("arts/arts_testset/rest_test_enriched.json"), "restaurant"),
    _semeval("semeval14-laptop", "laptop", "Laptops_Test_Gold.xml", "laptop", "14lap"),
    _semeval("semeval14-restaurant", "restaurant", "Restaurants_Test_Gold.xml", "rest", "14res"),
    DatasetSource("mams-restaurant", MAMS_TEST, MAMS_HOW, load_mams, "restaurant"),
    DatasetSource("gcae-hard-laptop", "gcae_hard/atsa-laptop/atsa_hard_test.json", GCAE_HOW,
                  _gcae("gcae_hard/atsa-laptop/atsa_hard_test.json", "laptop"), "laptop"),
    DatasetSource("gcae-hard-restaurant", "gcae_hard/atsa-restaurant/atsa_hard_test.json", GCAE_HOW,
                  _gcae("gcae_hard/atsa-restaurant/atsa_hard_test.json", "restaurant"), "restaurant"),
)})


def _wrong(source: DatasetSource) -> str:
    if source.domain is not None and source.domain not in DOMAINS:
        return f"its domain is {source.domain!r}; use one of: {', '.join(DOMAINS)} (or None)"
    if not callable(source.load):
        return "its load must be a function (data directory, name) -> LoadedSource"
    return ""


@cache
def registry() -> MappingProxyType[str, DatasetSource]:
    """Every dataset source by name: the built-in ones, then those registered under ENTRY_POINT_GROUP (read
    once per process)."""
    return merged(ENTRY_POINT_GROUP, DatasetSource, BUILTIN_SOURCES, lambda s: s.name, _wrong)


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
    source = registry()[name]
    dataset_path(source, data_dir)
    assert data_dir is not None  # dataset_path raised otherwise
    return source.load(data_dir, name)


__all__ = ["BUILTIN_SOURCES", "DATA_ENV", "ENTRY_POINT_GROUP", "DataMissing", "DatasetSource", "LoadedSource",
           "dataset_path", "load_dataset", "registry", "resolve_data_dir"]
