"""The gold data extraction quality is scored on: SemEval-2014 test sets (aspect terms with spans and
polarities: the aspect and pair levels) and the ASQP quads (rest15, rest16: all four levels)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from absa_checks.common.tuples import AnnotatedSentence
from absa_checks.sources.base import DataMissing
from absa_checks.sources.gold import asqp_sentences, semeval_sentences


@dataclass(frozen=True)
class GoldSource:
    name: str
    relative_path: str
    how_to_get: str
    load: Callable[[Path], list[AnnotatedSentence]]


SEMEVAL = "the SemEval-2014 Task 4 test set (Pontiki et al., 2014; alt.qcri.org/semeval2014/task4)"
ASQP = "the ASQP test set of github.com/IsakZhang/ABSA-QUAD (data/{}/test.txt)"
GOLD_SOURCES = {
    "semeval14-restaurant": GoldSource("semeval14-restaurant", "semeval2014/Restaurants_Test_Gold.xml", SEMEVAL,
                                       semeval_sentences),
    "semeval14-laptop": GoldSource("semeval14-laptop", "semeval2014/Laptops_Test_Gold.xml", SEMEVAL,
                                   semeval_sentences),
    "asqp-rest15": GoldSource("asqp-rest15", "asqp/rest15/test.txt", ASQP.format("rest15"), asqp_sentences),
    "asqp-rest16": GoldSource("asqp-rest16", "asqp/rest16/test.txt", ASQP.format("rest16"), asqp_sentences),
}


def load_gold(name: str, data_dir: Path | None) -> list[AnnotatedSentence]:
    """The source's sentences with their gold tuples; DataMissing says how to get absent data."""
    source = GOLD_SOURCES[name]
    if data_dir is None:
        raise DataMissing(f"source '{name}' needs a data directory: pass --absa-data DIR (or set ABSA_DATA_DIR) where "
                          f"DIR/{source.relative_path} is {source.how_to_get}")
    path = data_dir / source.relative_path
    if not path.is_file():
        raise DataMissing(f"source '{name}': {path} not found; put {source.how_to_get} there")
    return source.load(path)
