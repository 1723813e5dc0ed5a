"""Expectations: what a case's variant prediction must be, given the original's.

- `flip` (DIR): when the gold polarity is reversed, a polar original prediction must become its
  opposite, and a neutral one must become polar; when the source keeps the gold (ARTS keeps
  neutral targets neutral under REVTGT) the prediction must stay the same.
- `unchanged` (INV): the variant's label equals the original's; with a tolerance t, a changed label
  still passes when the probability of the original label moved by at most t (CheckList's rule).
- `gold`: the variant's label equals the variant's gold label.

`flip` and `unchanged` are label-free: they compare the model with itself, not with the gold.
"""

from __future__ import annotations

from dataclasses import dataclass

from absa_checks.common.labels import POLARITIES, opposite

EXPECTATIONS = ("flip", "unchanged", "gold")
_TOLERANCE_SLACK = 1e-9  # far below any meaningful probability difference


@dataclass(frozen=True)
class Expectation:
    kind: str
    tolerance: float = 0.0

    def describe(self) -> str:
        if self.kind == "unchanged" and self.tolerance:
            return f"unchanged (tolerance {self.tolerance:g})"
        return self.kind


@dataclass(frozen=True)
class Check:
    passed: bool
    reason: str


def label_of(probs: tuple[float, ...]) -> str:
    """Argmax; ties go to the first of negative, neutral, positive (deterministic)."""
    best = max(range(len(POLARITIES)), key=lambda i: (probs[i], -i))
    return POLARITIES[best]


def check(expectation: Expectation, original_gold: str, variant_gold: str,
          original_probs: tuple[float, ...], variant_probs: tuple[float, ...]) -> Check:
    before, after = label_of(original_probs), label_of(variant_probs)
    if expectation.kind == "gold":
        ok = after == variant_gold
        return Check(ok, f"expected the gold label '{variant_gold}', got '{after}'")
    if expectation.kind == "flip" and variant_gold != original_gold:
        wanted = opposite(before) if before != "neutral" else "positive or negative"
        ok = after != before and (before == "neutral" or after == opposite(before))
        return Check(ok, f"expected the prediction to flip from '{before}' to {_quote(wanted)}, got '{after}'")
    # `unchanged`, and `flip` where the source keeps the gold label
    if after == before:
        return Check(True, f"prediction stayed '{before}'")
    index = POLARITIES.index(before)
    moved = abs(variant_probs[index] - original_probs[index])
    # a small slack so that a move of exactly t on paper (0.40 -> 0.30 with t = 0.1) is not lost to rounding
    if expectation.kind == "unchanged" and expectation.tolerance > 0 \
            and moved <= expectation.tolerance + _TOLERANCE_SLACK:
        return Check(True, f"label changed '{before}' -> '{after}' but p('{before}') moved only {moved:.3f}")
    return Check(False, f"expected the prediction to stay '{before}', got '{after}'")


def _quote(label: str) -> str:
    return f"'{label}'" if label in POLARITIES else label
