"""The perturbation strategies by name, and what each promises about the gold label.

A strategy name is one of STRATEGIES or a chain of them joined by '+' (e.g. `revnon+adddiff`).
Variants come either from the source itself (ARTS ships them; inline examples write them) or,
for sources without them, from the generators in `absa_checks.perturb`.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType


@dataclass(frozen=True)
class StrategyInfo:
    name: str
    default_expectation: str  # "flip" or "unchanged"
    flips_gold: bool          # whether the target's gold polarity is reversed
    summary: str


# REVTGT on a neutral target: "skip" it (default) or "keep" ARTS's behaviour (its words are reversed,
# the gold stays neutral). Blind readers found almost every kept one gains a polarity ("is OK" -> "is not OK").
NEUTRAL_MODES = ("skip", "keep")
DEFAULT_NEUTRAL = "skip"

STRATEGIES = MappingProxyType({
    "revtgt": StrategyInfo("revtgt", "flip", True,
                           "reverse the target's sentiment; the prediction must flip"),
    "revnon": StrategyInfo("revnon", "unchanged", False,
                           "reverse or exaggerate the non-target aspects; the prediction must not change"),
    "adddiff": StrategyInfo("adddiff", "unchanged", False,
                            "append aspects of the opposite sentiment; the prediction must not change"),
})


def split_chain(name: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in name.split("+"))


def is_known(name: str) -> bool:
    return all(part in STRATEGIES for part in split_chain(name))


def default_expectation(name: str) -> str:
    """A chain flips the prediction iff an odd number of its steps flip the gold."""
    flips = sum(STRATEGIES[part].flips_gold for part in split_chain(name))
    return "flip" if flips % 2 else "unchanged"


def marker_name(name: str) -> str:
    """A pytest marker for the strategy: `revnon+adddiff` -> `revnon_adddiff`."""
    return name.replace("+", "_")
