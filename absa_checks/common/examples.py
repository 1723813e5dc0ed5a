"""Plain data: examples (one sentence + one target aspect), their variants, and units."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Aspect:
    """An aspect term at sentence[start:end] with its gold polarity (None when unknown)."""

    term: str
    start: int
    end: int
    polarity: str | None = None


@dataclass(frozen=True)
class Opinion:
    """An opinion expression at sentence[start:end]; `aspect` indexes Example.aspects (0 = target)."""

    text: str
    start: int
    end: int
    aspect: int = 0
    inferred: bool = False


@dataclass(frozen=True)
class Example:
    """One annotated sentence with one target aspect; `others` are the sentence's other aspects."""

    sentence: str
    target: Aspect
    others: tuple[Aspect, ...] = ()
    opinions: tuple[Opinion, ...] = ()
    record_id: str | None = None  # the id in the source's own file (replay matches on it)

    @property
    def polarity(self) -> str:
        assert self.target.polarity is not None, "a target always has a gold polarity"
        return self.target.polarity


@dataclass(frozen=True)
class Edit:
    """One change made by a perturbation: sentence[start:end] of the original became `new`."""

    start: int
    end: int
    old: str
    new: str
    why: str


@dataclass(frozen=True)
class Variant:
    """An example after a strategy: a new sentence, remapped spans, the new gold polarity."""

    strategy: str
    example: Example
    edits: tuple[Edit, ...] = ()
    origin: str = "given"  # "given" by the source's own file, "generated" by absa-checks, or "frozen" (reviewed)
    # a frozen variant's candidate: its id, decision, reviewer, time, generator (absa_checks.suites.candidates)
    provenance: dict | None = field(default=None, compare=False, hash=False)


@dataclass(frozen=True)
class Unit:
    """An original example and the variants its source provides, keyed by strategy name."""

    source: str
    unit_id: str
    original: Example
    given: dict[str, tuple[Variant, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class DataIssue:
    """A defect found while loading a source: what it was and what we did about it."""

    source: str
    record_id: str
    kind: str
    message: str
    action: str  # "repaired", "reported" or "dropped"


def term_starts(sentence: str, term: str) -> list[int]:
    """Where `term` occurs in `sentence` as a whole word (or words): not `soup` inside `soupy`."""
    def bounded(i: int) -> bool:
        before = sentence[i - 1] if i > 0 else " "
        after = sentence[i + len(term)] if i + len(term) < len(sentence) else " "
        return not (term[:1].isalnum() and before.isalnum()) and not (term[-1:].isalnum() and after.isalnum())
    return [i for i in range(len(sentence)) if sentence.startswith(term, i) and bounded(i)]
