"""Add a dataset source (docs/architecture.md, "Seams"): ACME reviews, a JSON list of
{id, sentence, aspect, from, to, polarity}; opinions inferred.

The registration is one entry in absa_checks/sources/__init__.py's BUILTIN_SOURCES, or, from your own
package, one line under `[project.entry-points."absa_checks.sources"]`:
`acme-restaurant = "my_package.acme:SOURCE"` (the entry point named as the source);
tests/extensions/test_docs_examples.py and tests/extensions/test_extensions.py register it so and run a suite
over it."""

from __future__ import annotations

from pathlib import Path

from absa_checks.common.examples import Aspect, DataIssue, Example, Unit
from absa_checks.common.labels import canonical_label
from absa_checks.sources import DatasetSource
from absa_checks.sources.base import LoadedSource, read_json
from absa_checks.sources.infer import infer_opinions

SHAPE = "a JSON list of {id, sentence, aspect, from, to, polarity}"


def load_acme(path: Path, name: str) -> LoadedSource:
    """The units, and what had to be dropped as DataIssues: never silently."""
    units, issues = [], []
    for item in read_json(path, "ACME JSON", list, SHAPE):
        record = str(item["id"])
        text, polarity = item["sentence"], canonical_label(item["polarity"])
        target = Aspect(item["aspect"], item["from"], item["to"], polarity)
        if text[target.start:target.end] != target.term:
            issues.append(DataIssue(name, record, "span_mismatch", f"{target.term!r} not at its span", "dropped"))
        elif polarity is None:
            issues.append(DataIssue(name, record, "unknown_label", f"polarity {item['polarity']!r}", "dropped"))
        else:
            example = Example(text, target, (), infer_opinions(text, [target]), record_id=record)
            units.append(Unit(name, record, example))
    return LoadedSource(name, tuple(units), tuple(issues), domain="restaurant", files=(path,))


# its name, the file whose presence means the source is here, how to get it, the loader, its domain
SOURCE = DatasetSource("acme-restaurant", "acme/test.json", "the ACME test set (acme/test.json)",
                       lambda data_dir, name: load_acme(data_dir / "acme/test.json", name), "restaurant")
