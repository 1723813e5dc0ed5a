"""Fingerprints of the public ABSA test sets, so the `augment` leakage guard needs no data directory.

The package ships `fixtures/public_test_sets.sha256.txt`: for every public test set the suites measure
(SemEval-2014 restaurant and laptop test, the ARTS test sets with their variants, MAMS test, the GCAE hard
subsets), the fingerprints of its normalised sentences, never the sentences themselves; and as sets
`NAME:generated`, the variants absa-checks' own generator makes of each (seed 0, default parameters: the
cases the suites test). The file is built
by `scripts/build_leakage_fingerprints.py` from the project's shared data, and a test checks that it still
equals what the script builds.

A fingerprint is the first 16 hex digits (64 bits) of the SHA-256 of `normalise(sentence)`. With F
fingerprints (about 12,100), a sentence that is in no test set matches one by chance with probability
F / 2**64, about 7e-16: a training file of a million sentences is refused by mistake with probability
about 7e-10.
"""

from __future__ import annotations

import hashlib
import html
import re
import unicodedata
from dataclasses import dataclass
from importlib import resources

from absa_checks.common.errors import AbsaChecksError

FINGERPRINTS_FILE = "public_test_sets.sha256.txt"
DIGITS = 16  # hex digits kept of the SHA-256: 64 bits


def normalise(sentence: str) -> str:
    """What the guard compares: HTML entities read, Unicode NFKC, accents dropped, case folded, and only the
    word characters kept.

    Case, accents, punctuation and spacing are ignored, so "Didn't" matches "did n't" (a tokenised copy),
    "$ 150" matches "$150", "Ｇｒｅａｔ" matches "great", "crème brûlée" matches "creme brulee", "&amp;"
    matches "&", and a sentence differing only in quotes or dashes matches.
    """
    decomposed = unicodedata.normalize("NFKD", html.unescape(sentence))
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", plain).casefold())
    return "".join(re.findall(r"\w+", folded))


def fingerprint(sentence: str) -> str:
    return hashlib.sha256(normalise(sentence).encode("utf-8")).hexdigest()[:DIGITS]


@dataclass(frozen=True)
class PublicSet:
    """One public test set: its name (a source name the suites use) and its sentences' fingerprints."""

    name: str
    description: str
    fingerprints: frozenset[str]


def format_fingerprints(sets: list[PublicSet]) -> str:
    """The fixture's text: a header, then per set a `[name] description` line and its sorted fingerprints."""
    lines = ["# Fingerprints of the public ABSA test sets' sentences, for the `absa-checks augment` leakage guard.",
             "# Built by scripts/build_leakage_fingerprints.py from the project's shared data; do not edit.",
             f"# A fingerprint: the first {DIGITS} hex digits of SHA-256(normalise(sentence)), "
             "absa_checks/workflows/leakage.py.",
             "# Per set: a line [name] description, then one fingerprint a line."]
    for public_set in sets:
        lines.append(f"[{public_set.name}] {public_set.description}")
        lines += sorted(public_set.fingerprints)
    return "\n".join(lines) + "\n"


def parse_fingerprints(text: str) -> list[PublicSet]:
    sets: list[PublicSet] = []
    name: str | None = None
    description = ""
    prints: set[str] = set()
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            if name is not None:
                sets.append(PublicSet(name, description, frozenset(prints)))
            name, _, description = line[1:].partition("] ")
            prints = set()
        else:
            prints.add(line.strip())
    if name is not None:
        sets.append(PublicSet(name, description, frozenset(prints)))
    return sets


def shipped_test_sets() -> list[PublicSet]:
    """The test sets the package knows, from the fixture shipped with it."""
    shipped = resources.files("absa_checks") / "fixtures" / FINGERPRINTS_FILE
    try:
        sets = parse_fingerprints(shipped.read_text(encoding="utf-8"))
    except OSError as err:
        raise AbsaChecksError(f"the leakage guard's fingerprints {shipped} cannot be read ({err.strerror}); "
                              "reinstall absa-checks") from None
    if not sets or not all(s.fingerprints for s in sets):
        raise AbsaChecksError(f"the leakage guard's fingerprints {shipped} name no test set or an empty one; "
                              "rebuild them with scripts/build_leakage_fingerprints.py or reinstall absa-checks")
    return sets


def sets_by_fingerprint(sets: list[PublicSet]) -> dict[str, tuple[str, ...]]:
    """fingerprint -> the names of the test sets holding a sentence with it (in the file's order)."""
    found: dict[str, tuple[str, ...]] = {}
    for public_set in sets:
        for value in public_set.fingerprints:
            found[value] = (*found.get(value, ()), public_set.name)
    return found
