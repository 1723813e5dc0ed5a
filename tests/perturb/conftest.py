"""What the generator's tests share: the restaurant domain's resources (WordNet, the tagger, the word lists)."""

from __future__ import annotations

import pytest

from absa_checks.perturb.resources import load_resources


@pytest.fixture(scope="module")
def resources():
    return load_resources("restaurant")
