"""The built-in example sentences the project writes itself (absa_checks/fixtures/*.sentences.txt)."""

from __future__ import annotations

import re
from dataclasses import replace
from functools import cache
from pathlib import Path

from absa_checks.common.examples import Unit
from absa_checks.sources.base import LoadedSource
from absa_checks.sources.markup import MarkedSentence, examples_of, read_marked_file

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
BUILTIN_DOMAINS = {"builtin-restaurant": "restaurant", "builtin-laptop": "laptop"}


@cache
def fixture_sentences(domain: str) -> tuple[MarkedSentence, ...]:
    return tuple(read_marked_file(FIXTURES / f"{domain}.sentences.txt"))


def load_builtin(name: str) -> LoadedSource:
    """One unit per aspect of every sentence; unit ids are readable and do not move when lines are added."""
    domain = BUILTIN_DOMAINS[name]
    units, seen = [], set()
    for marked in fixture_sentences(domain):
        slug = "-".join(re.findall(r"[a-z0-9]+", marked.sentence.lower())[:5])
        for example in examples_of(marked):
            unit_id = f"{slug}:{example.target.term.lower().replace(' ', '-')}"
            while unit_id in seen:  # the same opening words and term: number the repeats
                unit_id += "+"
            seen.add(unit_id)
            units.append(Unit(name, unit_id, replace(example, record_id=unit_id)))
    return LoadedSource(name, tuple(units), (), domain, files=(FIXTURES / f"{domain}.sentences.txt",))
