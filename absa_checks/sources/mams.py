"""MAMS, aspect-term version (Jiang et al., 2019): restaurant sentences with several aspects that
disagree in polarity. The XML is SemEval-2014-style without sentence ids; sentence n (0-based, the
index ARTS uses too) is `mams-test-<n>`, and unit ids are `mams-test-<n>_<k>` (k = the aspect's index
in XML order). MAMS has no opinion annotation, so every opinion span is inferred (infer.py).
"""

from __future__ import annotations

from pathlib import Path

from absa_checks.common.examples import DataIssue
from absa_checks.sources.base import LoadedSource
from absa_checks.sources.semeval import build_units, read_semeval_xml

MAMS_TEST = "mams/MAMS-ATSA/raw/test.xml"


def load_mams(data_dir: Path, name: str, relative_path: str = MAMS_TEST) -> LoadedSource:
    issues: list[DataIssue] = []
    sentences = read_semeval_xml(data_dir / relative_path, name, issues, id_format="mams-test-{n}")
    return LoadedSource(name, build_units(name, sentences, {}), tuple(issues), domain="restaurant",
                        files=(data_dir / relative_path,))
