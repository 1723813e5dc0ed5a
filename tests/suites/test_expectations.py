"""Tests for absa_checks/suites/expectations.py: flip (DIR), unchanged (INV, with CheckList's tolerance), gold.

Probabilities are ordered (negative, neutral, positive).
"""

from __future__ import annotations

import pytest

from absa_checks.suites.expectations import Expectation, check, label_of

NEG_P = (0.7, 0.2, 0.1)
NEU_P = (0.2, 0.6, 0.2)
POS_P = (0.1, 0.1, 0.8)
FLIP = Expectation("flip")
SAME = Expectation("unchanged")


# --- label_of -----------------------------------------------------------------------------------

@pytest.mark.parametrize("probs, label", [
    (NEG_P, "negative"), (NEU_P, "neutral"), (POS_P, "positive"),
    ((0.4, 0.4, 0.2), "negative"),      # tie negative/neutral -> negative (first)
    ((0.4, 0.2, 0.4), "negative"),      # tie negative/positive -> negative
    ((0.2, 0.4, 0.4), "neutral"),       # tie neutral/positive -> neutral
    ((1 / 3, 1 / 3, 1 / 3), "negative"),  # three-way tie -> negative
    ((0.0, 0.0, 0.0), "negative"),
    ((0.3, 0.3, 0.4), "positive"),      # no tie at the top
])
def test_label_of(probs, label):
    assert label_of(probs) == label


def test_label_of_is_deterministic_under_repetition():
    assert {label_of((0.25, 0.5, 0.25)) for _ in range(50)} == {"neutral"}
    assert {label_of((0.5, 0.0, 0.5)) for _ in range(50)} == {"negative"}


# --- flip ---------------------------------------------------------------------------------------

def test_flip_positive_to_negative_passes():
    result = check(FLIP, "positive", "negative", POS_P, NEG_P)
    assert result.passed


def test_flip_negative_to_positive_passes():
    assert check(FLIP, "negative", "positive", NEG_P, POS_P).passed


def test_flip_positive_to_neutral_fails():
    result = check(FLIP, "positive", "negative", POS_P, NEU_P)
    assert not result.passed
    assert "'negative'" in result.reason and "'neutral'" in result.reason


def test_flip_positive_stays_positive_fails():
    assert not check(FLIP, "positive", "negative", POS_P, POS_P).passed


@pytest.mark.parametrize("after, passed", [(NEG_P, True), (POS_P, True), (NEU_P, False)])
def test_flip_from_neutral_prediction_needs_any_polar(after, passed):
    # the model said neutral on the original (gold positive): any polar prediction counts as a flip
    assert check(FLIP, "positive", "negative", NEU_P, after).passed is passed


def test_flip_is_label_free():
    # the original was predicted negative although gold is positive; the flip is judged on the model's
    # own prediction: negative -> positive passes even though the variant's gold is negative
    assert check(FLIP, "positive", "negative", NEG_P, POS_P).passed
    assert not check(FLIP, "positive", "negative", NEG_P, NEG_P).passed


@pytest.mark.parametrize("before, after, passed", [
    (NEU_P, NEU_P, True),   # neutral target kept neutral, prediction stayed
    (NEU_P, POS_P, False),  # prediction moved although the gold did not
    (NEU_P, NEG_P, False),
    (POS_P, POS_P, True),   # the prediction must stay, whatever it is
    (POS_P, NEG_P, False),
])
def test_flip_when_gold_is_kept_prediction_must_stay(before, after, passed):
    # ARTS keeps neutral targets neutral under REVTGT: variant gold == original gold
    assert check(FLIP, "neutral", "neutral", before, after).passed is passed


def test_flip_with_kept_gold_ignores_tolerance():
    # p(neutral) moves .6 -> .35 (.25, within a tolerance of .5) but flip has no tolerance rule
    assert not check(Expectation("flip", 0.5), "neutral", "neutral", NEU_P, (0.1, 0.35, 0.55)).passed


# --- unchanged ----------------------------------------------------------------------------------

def test_unchanged_same_label_passes():
    # label the same even though the probabilities moved a lot (.8 -> .4)
    assert check(SAME, "positive", "positive", POS_P, (0.3, 0.3, 0.4)).passed


def test_unchanged_changed_label_fails_without_tolerance():
    result = check(SAME, "positive", "positive", POS_P, NEU_P)
    assert not result.passed
    assert "'positive'" in result.reason and "'neutral'" in result.reason


def test_unchanged_changed_label_fails_with_tiny_move_and_zero_tolerance():
    # neutral .5 -> .375 is a move of .125; tolerance 0 -> fail
    assert not check(SAME, "neutral", "neutral", (0.125, 0.5, 0.375), (0.125, 0.375, 0.5)).passed


@pytest.mark.parametrize("tolerance, passed", [
    (0.25, True),   # moved .125 <= .25
    (0.125, True),  # moved exactly .125 (binary-exact numbers) -> "at most" -> pass
    (0.1, False),   # .125 > .1
])
def test_unchanged_with_tolerance(tolerance, passed):
    # before: neutral (p = .5); after: positive, p(neutral) = .375 -> moved |.375 - .5| = .125
    result = check(Expectation("unchanged", tolerance), "neutral", "neutral",
                   (0.125, 0.5, 0.375), (0.125, 0.375, 0.5))
    assert result.passed is passed


def test_unchanged_tolerance_uses_probability_of_original_label():
    # before: negative (.4, .35, .25); after: positive (.38, .02, .60)
    # p(negative) moved |.38 - .40| = .02 <= .05 -> pass, although p(positive) moved .35
    tolerant = Expectation("unchanged", 0.05)
    assert check(tolerant, "negative", "negative", (0.4, 0.35, 0.25), (0.38, 0.02, 0.6)).passed
    # the mirror: p(negative) moved |.05 - .40| = .35 > .05 -> fail
    assert not check(tolerant, "negative", "negative", (0.4, 0.35, 0.25), (0.05, 0.35, 0.6)).passed


def test_unchanged_tolerance_boundary_in_decimal():
    # p(negative) .40 -> .30 is a move of exactly .10 on paper (0.4 - 0.3 is 0.10000000000000003 in
    # binary floating point); "at most the tolerance" must accept it
    tolerant = Expectation("unchanged", 0.1)
    assert check(tolerant, "negative", "negative", (0.4, 0.35, 0.25), (0.3, 0.3, 0.4)).passed
    # and a move of .11 is still too much
    assert not check(tolerant, "negative", "negative", (0.4, 0.35, 0.25), (0.29, 0.3, 0.41)).passed


def test_unchanged_zero_tolerance_near_tie():
    # a near tie: negative .5 -> .5 - 1e-12 makes neutral the argmax; with no tolerance the changed
    # label fails however small the move
    assert not check(SAME, "negative", "negative", (0.5, 0.5 - 1e-12, 0.0), (0.5 - 1e-12, 0.5, 0.0)).passed


def test_unchanged_is_label_free():
    # gold says positive, the model says negative on both: unchanged passes
    assert check(SAME, "positive", "positive", NEG_P, NEG_P).passed


# --- gold ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("variant_probs, passed", [(NEG_P, True), (NEU_P, False), (POS_P, False)])
def test_gold(variant_probs, passed):
    # variant gold negative; the original prediction does not matter
    assert check(Expectation("gold"), "positive", "negative", POS_P, variant_probs).passed is passed
    assert check(Expectation("gold"), "positive", "negative", NEG_P, variant_probs).passed is passed


def test_gold_reason_names_expected_label():
    result = check(Expectation("gold"), "positive", "negative", POS_P, NEU_P)
    assert not result.passed
    assert "'negative'" in result.reason and "'neutral'" in result.reason


def test_describe():
    assert Expectation("unchanged", 0.1).describe() == "unchanged (tolerance 0.1)"
    assert Expectation("unchanged").describe() == "unchanged"
    assert Expectation("flip").describe() == "flip"
