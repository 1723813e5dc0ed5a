"""Generate a unit's variant for a strategy (or a chain such as revnon+adddiff), checked and seeded.

Every attempt ends as exactly one of: a Variant; NotApplicable (nothing to perturb, e.g. REVNON on a
single-aspect sentence); or Quarantined (a variant was attempted and failed a check), which the
reports count per strategy and reason.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace

from absa_checks.common.examples import Example, Unit, Variant
from absa_checks.perturb import context, validity
from absa_checks.perturb.resources import Resources
from absa_checks.perturb.sentence import TaggedSentence
from absa_checks.perturb.strategies import NotApplicable, Rejected, StepContext, apply_step, tagged
from absa_checks.suites import strategies as strategy_names


@dataclass(frozen=True)
class Settings:
    seed: int = 0
    params: tuple[tuple[str, object], ...] = ()  # the strategies' parameters set (k, neutral, ...), sorted

    @classmethod
    def of(cls, seed: int = 0, **params) -> Settings:
        """Settings with the parameters given that are set (None means "the strategy's default")."""
        return cls(seed, tuple(sorted((k, v) for k, v in params.items() if v is not None)))


@dataclass(frozen=True)
class Quarantined:
    source: str
    unit_id: str
    strategy: str
    reason: str    # a fixed category ("verb agreement", "double negation", ...), counted in reports
    detail: str    # the particulars
    sentence: str  # the attempted variant, or the original when nothing was produced

    def to_dict(self) -> dict:
        return dict(self.__dict__)


MAX_TRIES = 3  # REVTGT: another way of reversing is tried when a check rejects the first one's result
DISCOURSE = "a discourse word depends on the old polarity"
UNATTRIBUTED = "a sentiment word outside the annotated opinions"
UNANNOTATED_CONTRAST = "a contrast joins an unannotated clause"
GENERAL_SPECIFIC = "a general and a specific aspect now disagree"
CLAUSE_MATES = "two aspects of one clause change their relation"
UNANNOTATED_CLAUSE = "a clause names no aspect"
# Reasons that depend on the sentence, not on the edit chosen: another way of reversing cannot help
CONTEXT_REASONS = frozenset({DISCOURSE, UNATTRIBUTED, UNANNOTATED_CONTRAST, UNANNOTATED_CLAUSE, GENERAL_SPECIFIC,
                             CLAUSE_MATES})


def generate(unit: Unit, strategy: str, settings: Settings, resources: Resources, domain: str
             ) -> Variant | NotApplicable | Quarantined:
    k = dict(settings.params).get("k")  # the seed string predates the other parameters: kept, so variants stay
    rng = random.Random(f"{settings.seed}:{unit.source}:{unit.unit_id}:{strategy}:{k}")
    example, edits = unit.original, []
    for name in strategy_names.split_chain(strategy):
        declared = strategy_names.get(name)  # an unknown name is an error here, never another strategy
        params = strategy_names.with_defaults(name, settings.params)
        avoid: frozenset[str] = frozenset()
        before = tagged(example, resources)
        for _ in range(MAX_TRIES):
            outcome = declared.generate(example, StepContext(params, resources, domain, rng, avoid))
            if isinstance(outcome, NotApplicable):
                return outcome
            if isinstance(outcome, Rejected) and avoid:
                break  # no other way left: report what was wrong with the last one
            if isinstance(outcome, Rejected):
                return Quarantined(unit.source, unit.unit_id, strategy, outcome.reason, outcome.detail,
                                   example.sentence)
            variant = apply_step(example, outcome)
            found = validity.problems(example, variant, outcome.edits, declared.edits_target, before,
                                      tagged(variant, resources), declared.surface)
            found = found or reversal_problems(before, example, variant, outcome.edits, outcome.polarities, name,
                                               resources)
            if not found:
                break
            if found[0][0] in CONTEXT_REASONS or not outcome.methods or outcome.methods <= avoid:
                break
            avoid |= outcome.methods
        if found:
            reason, detail = found[0]
            return Quarantined(unit.source, unit.unit_id, strategy, reason, detail, variant.sentence)
        edits.extend(outcome.edits)
        example = variant
    record_id = f"{unit.unit_id}:{strategy}"
    return Variant(strategy, _with_record_id(example, record_id), tuple(edits), origin="generated")


def reversal_problems(sentence: TaggedSentence, original: Example, variant: Example, edits, polarities: dict,
                      strategy: str, resources: Resources) -> list[tuple[str, str]]:
    """The reversal strategies' checks that the unchanged context still agrees (perturb.context); also
    for variants made elsewhere (screen.py).

    The checks run in order and the first that finds something names the reason (counted in reports).
    """
    declared = strategy_names.get(strategy)
    if not declared.context_checks:
        return []
    reverses_target = declared.flips_gold
    is_word = lambda w: bool(resources.finder.wordnet.synsets(w))  # noqa: E731
    neutral_target = reverses_target and original.polarity == "neutral"
    checks: tuple[tuple[str, Callable[[], str | None]], ...] = (
        (DISCOURSE, lambda: context.discourse_problem(original, edits)),
        (UNATTRIBUTED, lambda: context.unattributed_sentiment(sentence, original, edits, resources.polarity)),
        (UNANNOTATED_CONTRAST, lambda: context.contrast_without_aspect(sentence, original)),
        (UNANNOTATED_CLAUSE, lambda: context.clause_without_aspect(original)),
        (UNATTRIBUTED, lambda: context.emoticon(original)),
        (GENERAL_SPECIFIC, lambda: context.general_specific_disagree(original, polarities)),
        (CLAUSE_MATES, lambda: context.clause_mates_change_relation(original, polarities, edits)),
        ("a word that needs the removed negation stays", lambda: context.orphaned_polarity_item(original, edits)),
        ("a negation before a frequency adverb", lambda: context.misplaced_not(variant, edits)),
        ("a negation of a negative word does not reverse it",
         lambda: context.negated_negation(variant, edits, is_word)),
        ("a degree word does not fit the new adjective", lambda: context.unidiomatic_degree(variant, edits)),
        ("an antonym under a negation that stays", lambda: context.antonym_under_negation(original, edits)),
        ("a negated intensified complaint is no praise",
         lambda: context.negated_intensified_complaint(variant, edits, original.polarity)
         if reverses_target else None),
        ("two edits collide", lambda: context.colliding_edits(edits)),
        ("a negation inside a noun phrase or before a list", lambda: context.negation_misplaced_in_phrase(original, edits)),
        ("a conjunction between two other aspects changed",
         lambda: context.conjunction_between_others(original, edits) if reverses_target else None),
        ("a neutral target gains sentiment",
         lambda: context.neutral_gains_sentiment(original, edits, resources.polarity) if neutral_target else None),
        ("the lexicon does not read the reversal", lambda: _lexicon_disagreement(original, edits, polarities,
                                                                                 resources)),
    )
    for reason, check in checks:
        detail = check()
        if detail:
            return [(reason, detail)]
    return []


def _lexicon_disagreement(original: Example, edits, polarities: dict, resources: Resources) -> str | None:
    """The first aspect whose new polarity the lexicon reads against (perturb.context.lexicon_disagrees)."""
    aspects = (original.target, *original.others)
    for index, new in polarities.items():
        if new in ("positive", "negative") and aspects[index].polarity in ("positive", "negative"):
            disagreement = context.lexicon_disagrees(original, edits, new, resources.polarity, index)
            if disagreement:
                return disagreement
    return None


def _with_record_id(example: Example, record_id: str) -> Example:
    return replace(example, record_id=record_id)
