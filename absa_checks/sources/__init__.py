"""Sources: named collections of examples, loaded into units (an original + any variants it ships).

Dataset sources read files under a data directory laid out like the project's shared data
(`--absa-data DIR` or $ABSA_DATA_DIR); inline sources come from suite YAML (see inline.py).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from absa_checks.sources.arts import load_arts
from absa_checks.sources.base import DataMissing, LoadedSource
from absa_checks.sources.mams import MAMS_TEST, load_mams
from absa_checks.sources.semeval import TEST_FILES, load_semeval

DATA_ENV = "ABSA_DATA_DIR"
ARTS_HOW = "the ARTS test set from github.com/zhijing-jin/ARTS_TestSet (data/arts_testset/)"
SEMEVAL_HOW = ("the SemEval-2014 Task 4 (aspect-based sentiment analysis) gold test data, {file} "
               "(opinion spans are read from arts/src_data/{arts}/test_sent_towe.json of ARTS_TestSet when present, "
               "else from towe/{towe}/test.tsv of github.com/NJUNLP/TOWE, else inferred)")
MAMS_HOW = "the MAMS aspect-term test set from github.com/siat-nlp/MAMS-for-ABSA (data/MAMS-ATSA/raw/test.xml)"


@dataclass(frozen=True)
class DatasetSource:
    """A source read from files under the data directory. `load` gets the data dir and the source name."""

    name: str
    relative_path: str  # the file whose presence means the source is available
    how_to_get: str
    load: Callable[[Path, str], LoadedSource]


def _arts(relative_path: str) -> Callable[[Path, str], LoadedSource]:
    return lambda data_dir, name: load_arts(data_dir / relative_path, name)


def _semeval(name: str, domain: str, file: str, arts: str, towe: str) -> DatasetSource:
    return DatasetSource(name, TEST_FILES[domain].xml, SEMEVAL_HOW.format(file=file, arts=arts, towe=towe),
                         lambda data_dir, source: load_semeval(data_dir, source, domain))


GCAE_HOW = "the GCAE hard subsets from github.com/wxue004cs/GCAE (atsa-*/atsa_hard_test.json)"


def _gcae(relative_path: str, domain: str) -> Callable[[Path, str], LoadedSource]:
    from absa_checks.sources.gcae import load_gcae

    return lambda data_dir, name: load_gcae(data_dir / relative_path, name, domain)


BUILTIN_SOURCES: dict[str, DatasetSource] = {
    "arts-laptop": DatasetSource("arts-laptop", "arts/arts_testset/laptop_test_enriched.json", ARTS_HOW,
                                 _arts("arts/arts_testset/laptop_test_enriched.json")),
    "arts-restaurant": DatasetSource("arts-restaurant", "arts/arts_testset/rest_test_enriched.json", ARTS_HOW,
                                     _arts("arts/arts_testset/rest_test_enriched.json")),
    "semeval14-laptop": _semeval("semeval14-laptop", "laptop", "Laptops_Test_Gold.xml", "laptop", "14lap"),
    "semeval14-restaurant": _semeval("semeval14-restaurant", "restaurant", "Restaurants_Test_Gold.xml", "rest",
                                     "14res"),
    "mams-restaurant": DatasetSource("mams-restaurant", MAMS_TEST, MAMS_HOW, load_mams),
    "gcae-hard-laptop": DatasetSource("gcae-hard-laptop", "gcae_hard/atsa-laptop/atsa_hard_test.json", GCAE_HOW,
                                      _gcae("gcae_hard/atsa-laptop/atsa_hard_test.json", "laptop")),
    "gcae-hard-restaurant": DatasetSource("gcae-hard-restaurant", "gcae_hard/atsa-restaurant/atsa_hard_test.json",
                                          GCAE_HOW, _gcae("gcae_hard/atsa-restaurant/atsa_hard_test.json",
                                                          "restaurant")),
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
    source = BUILTIN_SOURCES[name]
    dataset_path(source, data_dir)
    assert data_dir is not None  # dataset_path raised otherwise
    return source.load(data_dir, name)


__all__ = ["BUILTIN_SOURCES", "DATA_ENV", "DataMissing", "DatasetSource", "LoadedSource", "dataset_path",
           "load_dataset", "resolve_data_dir"]
