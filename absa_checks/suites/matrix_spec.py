"""A test's cell of the capability x type matrix, as its suite file writes it: `capability` (free text, shown in
lower case) and `type` (CheckList's mft | inv | dir) on the test or under `defaults:`, else what its strategy and
expectation imply (docs/suites.md, "The capability matrix"). The suite's gates on cells are read by
absa_checks.suites.gates_spec; the matrix itself is absa_checks.judge.matrix.
"""

from __future__ import annotations

from absa_checks.suites.yaml_checks import Checker

TEST_TYPES = ("mft", "inv", "dir")  # CheckList's test types: minimum functionality, invariance, directional
TYPE_OF_EXPECTATION = {"gold": "mft", "unchanged": "inv", "flip": "dir"}  # a test's type when it names none
# a type that contradicts the expectation: an MFT knows the labels (gold), an invariance does not flip
TYPE_EXPECTATIONS = {"mft": ("gold",), "inv": ("unchanged", "gold"), "dir": ("flip", "unchanged", "gold")}


def capability_name(text: str) -> str:
    """A capability as the matrix shows it: lower case, single spaces ("Negation  scope" -> "negation scope")."""
    return " ".join(text.split()).lower()


def capability_and_type(check: Checker, merged: dict, where, name: str, default_capability: str,
                        expectation: str) -> tuple[str, str]:
    """A test's row and column of the capability x type matrix: `capability` (free text) and `type` (mft | inv |
    dir) as written on the test or under `defaults:`, else the defaults: the strategy's capability (ARTS's:
    "aspect robustness"), the type its expectation implies (gold -> mft, unchanged -> inv, flip -> dir). A
    type that contradicts the expectation is refused (an MFT checks gold labels; an INV never expects a flip)."""
    capability = capability_name(check.string(merged["capability"], where("capability"))) \
        if "capability" in merged else default_capability
    if "type" not in merged:
        return capability, TYPE_OF_EXPECTATION.get(expectation, "dir")
    written = merged["type"]  # CheckList writes MFT, INV, DIR: any case is the type
    test_type = check.choice(written.lower() if isinstance(written, str) else written, where("type"), TEST_TYPES)
    if expectation not in TYPE_EXPECTATIONS[test_type]:
        raise check.fail(where("type"), f"test '{name}' is type {test_type} but expects {expectation}; a {test_type} "
                                        f"test expects {' or '.join(TYPE_EXPECTATIONS[test_type])}: change 'type' "
                                        f"(expect {expectation} is type {TYPE_OF_EXPECTATION[expectation]}) or "
                                        "'expect'")
    return capability, test_type
