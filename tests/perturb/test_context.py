"""The context checks found in blind round 2 (docs/perturbations.md), as pure functions."""

from __future__ import annotations

from absa_checks.common.examples import Aspect, Edit, Example, Opinion
from absa_checks.perturb import context
from absa_checks.perturb.aspect_groups import covered_groups, groups_of


def test_a_removed_negation_must_not_orphan_a_word_that_needs_it():
    original = Example("The Acme engineers have not yet discovered the delete key.", Aspect("delete key", 47, 57))
    removal = (Edit(24, 28, "not ", "", "remove negation"),)
    assert context.orphaned_polarity_item(original, removal) == "yet"
    clean = Example("The keyboard is not good.", Aspect("keyboard", 4, 12))
    assert context.orphaned_polarity_item(clean, (Edit(16, 20, "not ", "", "remove negation"),)) is None


def test_frame_nouns_are_discourse_unless_they_are_the_opinion():
    framed = Example("A pro was the fast bar service.", Aspect("bar service", 19, 30))
    assert context.discourse_problem(framed, ()) == "pro"
    opinion = Example("I had no problems with the battery.", Aspect("battery", 27, 34),
                      opinions=(Opinion("no problems", 6, 17, 0),))
    assert context.discourse_problem(opinion, ()) is None


def test_an_appended_clause_avoids_every_aspect_and_word_of_the_sentence():
    taken = covered_groups(["adjustments", "brightness"], "I really like the brightness and the adjustments.")
    assert groups_of("backlight") <= taken  # "the backlight is too dim" would contradict "the brightness"
    taken = covered_groups(["runs"], "This notebook is quick, strong, and runs very quiet and cool.")
    assert groups_of("speed") <= taken
    assert not groups_of("warranty") & taken


def test_the_whole_machine_leaves_only_what_is_outside_it():
    taken = covered_groups(["hardware"], "the hardware problems have been so bad")
    assert groups_of("cooling system") <= taken and groups_of("memory") <= taken
    assert not groups_of("tech support") & taken and not groups_of("operating system") & taken
