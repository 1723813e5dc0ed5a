"""Suite files: parse and validate YAML into typed specs (pure; no pytest, no I/O but reading files).

Every error names the file, the line and the key, and says how to fix it.
The format is documented with examples in docs/suites.md.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
import unicodedata
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from absa_checks.common import inputs
from absa_checks.common.domains import DOMAINS
from absa_checks.common.errors import SpecError
from absa_checks.common.examples import term_starts
from absa_checks.common.labels import POLARITIES
from absa_checks.common.yaml_lines import LocatedYaml, decode, load_located
from absa_checks.suites import lexicons as lexicons_module
from absa_checks.suites import slices as slices_module
from absa_checks.suites import strategies, template_parse
from absa_checks.suites import templates as templates_module
from absa_checks.suites.expectations import EXPECTATIONS, Expectation

GATE_BASES = ("interval", "point")


@dataclass(frozen=True)
class GateSpec:
    """Release thresholds, as fractions in [0, 1]. `basis` None means the run's default."""

    max_fail_rate: float | None = None
    min_ars: float | None = None
    min_variant_accuracy: float | None = None
    max_not_found_rate: float | None = None  # an extraction model: cases whose target it did not find
    min_validity: float | None = None  # a frozen test: the lower bound of its audited validity (judge.audit)
    basis: str | None = None
    # per-slice gates: (selector, its thresholds) pairs, e.g. ("hard=true", (("min_accuracy", 0.7),))
    slices: tuple[tuple[str, tuple[tuple[str, float], ...]], ...] | None = None
    # the suite's gates on cells of the capability x type matrix (the suite-level `gates: {capabilities: ...}`),
    # carried by each of its tests so they travel with the cases (judge.matrix): ((capability, type, basis or
    # "", ((gate, threshold), ...)), ...)
    capabilities: tuple[tuple[str, str, str, tuple[tuple[str, float], ...]], ...] | None = None

    def is_empty(self) -> bool:
        return all(getattr(self, key) is None for key in GATE_KEYS if key != "basis")

    def to_dict(self) -> dict[str, Any]:
        found = {k: v for k, v in self.__dict__.items() if v is not None and k not in ("slices", "capabilities")}
        if self.slices:
            found["slices"] = {selector: dict(thresholds) for selector, thresholds in self.slices}
        if self.capabilities:  # {capability: {type: {max_fail_rate: 0.2, basis: "point"}}}
            cells: dict[str, dict[str, dict[str, Any]]] = {}
            for capability, kind, basis, thresholds in self.capabilities:
                cells.setdefault(capability, {})[kind] = {**dict(thresholds), **({"basis": basis} if basis else {})}
            found["capabilities"] = cells
        return found

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GateSpec:
        slices = data.get("slices")
        cells = data.get("capabilities")
        return cls(**{**data, "slices": tuple((selector, tuple(thresholds.items()))
                                              for selector, thresholds in slices.items()) if slices else None,
                      "capabilities": tuple(
                          (capability, kind, found.get("basis", ""),
                           tuple((k, v) for k, v in found.items() if k != "basis"))
                          for capability, kinds in cells.items() for kind, found in kinds.items())
                      if cells else None})


@dataclass(frozen=True)
class InlineVariantSpec:
    strategy: str
    sentence: str
    polarity: str | None
    span: tuple[int, int] | None
    line: int


@dataclass(frozen=True)
class InlineExampleSpec:
    example_id: str | None
    sentence: str
    aspect: str
    span: tuple[int, int] | None
    polarity: str
    others: tuple[tuple[str, str | None, tuple[int, int] | None], ...]  # (term, polarity, span)
    variants: tuple[InlineVariantSpec, ...]
    line: int
    # (aspect index: 0 the target, i the i-th of `others`; text; start), or None when the example gives
    # none, and they are inferred
    opinions: tuple[tuple[int, str, int], ...] | None = None


@dataclass(frozen=True)
class InlineSourceSpec:
    name: str
    path: str  # the file the examples were written in
    examples: tuple[InlineExampleSpec, ...]
    # where the suite defines it ("suites/a.yaml:4"), and what it is: the examples' file, resolved. Two
    # definitions of one name in a run are one source only when they read the same file (items.py checks)
    defined_at: str = ""
    identity: str = ""
    file_sha256: str = ""  # an examples file (`file:`): the sha256 of its bytes, as shown (part of the run's fingerprint)
    file_shown: str = ""
    domain: str | None = None  # `domain: restaurant`: checkpoints of other domains leave it out (absa_checks.common.domains)


@dataclass(frozen=True)
class TestSpec:
    suite_path: str
    line: int
    name: str
    description: str
    strategy: str
    expectation: Expectation
    sources: tuple[str, ...]
    sample: int | None
    tags: tuple[str, ...]
    gates: GateSpec
    variants: str = "auto"      # "given" by the source, "generated" by absa-checks, "auto" (given if any), "frozen"
    params: tuple[tuple[str, Any], ...] = ()  # the strategy's parameters the suite sets (strategies.Parameter)
    frozen: str = ""        # variants "frozen": the reviewed candidates file, resolved (absa_checks.suites.candidates)
    frozen_shown: str = ""  # the same as written from the working folder, for messages
    # a template test (`template:` instead of `strategy:`; strategy "template"): absa_checks.suites.templates
    template: templates_module.TemplateSpec | None = None
    capability: str = ""    # the capability x type matrix's row (lower case) and column (mft | inv | dir); the
    type: str = ""          # parser fills both, from the test or its defaults (capability_and_type)
    # `variants: {frozen: {source: FILE}, audited: {source: FILE}, otherwise: MODE}`: per source, a reviewed
    # candidates file (frozen), or a file auditing the source's own variants (audited): (source, path resolved,
    # as shown); `variants` is then `otherwise`, the mode of the sources named in neither
    frozen_sources: tuple[tuple[str, str, str], ...] = ()
    audited_sources: tuple[tuple[str, str, str], ...] = ()
    otherwise: str = "auto"  # also what every source runs with --absa-variants live

    @property
    def key(self) -> str:
        return f"{self.suite_path}::{self.name}"

    def frozen_for(self, source: str) -> tuple[str, str] | None:
        """The reviewed candidates file `source` runs (path, as shown): the single `frozen: FILE` for every
        source, else the source's entry under `frozen:`; None when it runs live or audited variants."""
        if self.frozen:
            return self.frozen, self.frozen_shown
        return next(((path, shown) for name, path, shown in self.frozen_sources if name == source), None)

    def audited_for(self, source: str) -> tuple[str, str] | None:
        """The file auditing `source`'s own variants (path, as shown), or None."""
        return next(((path, shown) for name, path, shown in self.audited_sources if name == source), None)

    def param(self, name: str) -> Any:
        """A parameter's value: as set, else the strategy's default."""
        return strategies.with_defaults(self.strategy, self.params)[name]

    @property
    def k(self) -> int | None:  # ADDDIFF: aspects appended; None draws 1-3 per unit, as ARTS did
        return dict(self.params).get("k")

    @property
    def neutral(self) -> str:  # REVTGT on neutral targets: "skip" (default) or "keep"
        return dict(self.params).get("neutral", strategies.DEFAULT_NEUTRAL)


@dataclass(frozen=True)
class SuiteSpec:
    path: str
    name: str
    description: str
    tests: tuple[TestSpec, ...]
    inline_sources: dict[str, InlineSourceSpec]
    sha256: str
    extraction_tests: tuple[ExtractionTestSpec, ...] = ()


EXTRACTION_LEVELS = ("aspect", "pair", "triplet", "quad")
EXTRACTION_GATES = tuple(f"min_{level}_f1{suffix}" for level in EXTRACTION_LEVELS for suffix in ("", "_flexible"))
EXTRACTION_TEST_KEYS = ("name", "description", "task", "sources", "tags", "gates", "expanded")


@dataclass(frozen=True)
class ExtractionTestSpec:
    """`task: extraction`: how well an extraction model finds the gold tuples of a data set, as F1 per
    level, strict and flexible (docs/extraction.md). Gates `min_<level>_f1` judge strict F1,
    `min_<level>_f1_flexible` flexible F1."""

    suite_path: str
    line: int
    name: str
    description: str
    sources: tuple[str, ...]
    tags: tuple[str, ...]
    gates: dict[str, Any]
    expanded: tuple[tuple[str, str], ...] = ()  # (source, path of its expanded ground truth, from the suite's folder)

    @property
    def key(self) -> str:
        return f"{self.suite_path}::{self.name}"


SUITE_KEYS = ("suite", "description", "domain", "defaults", "sources", "lexicons", "tests", "gates")
COMMON_KEYS = ("expect", "tolerance", "sources", "sample", "tags", "gates", "variants", "capability", "type")
TEST_TYPES = ("mft", "inv", "dir")  # CheckList's test types: minimum functionality, invariance, directional
TYPE_OF_EXPECTATION = {"gold": "mft", "unchanged": "inv", "flip": "dir"}  # a test's type when it names none
# a type that contradicts the expectation: an MFT knows the labels (gold), an invariance does not flip
TYPE_EXPECTATIONS = {"mft": ("gold",), "inv": ("unchanged", "gold"), "dir": ("flip", "unchanged", "gold")}
SUITE_GATE_KEYS = ("capabilities", "basis")  # the suite-level `gates:`
CAPABILITY_GATE_KEYS = ("max_fail_rate", "basis")  # a cell's gates
VARIANT_MODES = ("auto", "given", "generated")
# `variants: {frozen: FILE}`: a reviewed candidates file for every source, or per source `{frozen: {source: FILE},
# audited: {source: FILE}, otherwise: auto}` (docs/suites.md, "Frozen variants")
FROZEN_KEYS = ("frozen", "audited", "otherwise")


def default_keys() -> tuple[str, ...]:
    """What `defaults:` may set: the common keys and every registered strategy's parameters."""
    return COMMON_KEYS + strategies.all_parameter_names()


def allowed_test_keys() -> tuple[str, ...]:
    return ("name", "description", "strategy") + default_keys()


GATE_KEYS = ("max_fail_rate", "min_ars", "min_variant_accuracy", "max_not_found_rate", "min_validity", "basis",
             "slices")
SOURCE_KEYS = ("examples", "file", "domain")
EXAMPLE_KEYS = ("id", "sentence", "aspect", "span", "polarity", "opinions", "aspects", "variants")
OTHER_ASPECT_KEYS = ("term", "polarity", "span", "opinions")
OPINION_KEYS = ("text", "span")
VARIANT_KEYS = ("sentence", "polarity", "span")


class _Checker:
    """Validation helpers bound to one file, so every error can name file and line."""

    def __init__(self, path: str, located: LocatedYaml):
        self.path = path
        self.located = located

    def fail(self, at: tuple, message: str) -> SpecError:
        return SpecError(self.path, self.located.line(at), message)

    def name(self, at: tuple) -> str:
        return ".".join(str(p) for p in at) or "the file"

    def label(self, at: tuple) -> str:
        """`'tests.0.gates'` quoted, or `the file` for the top level."""
        return f"'{self.name(at)}'" if at else "the file"

    def mapping(self, value: Any, at: tuple, allowed: tuple[str, ...]) -> dict:
        if not isinstance(value, dict):
            raise self.fail(at, f"{self.label(at)} must be a mapping (key: value lines), got {_kind(value)}")
        for key in value:
            if key not in allowed:
                hint = difflib.get_close_matches(str(key), allowed, n=1)
                fix = f"did you mean '{hint[0]}'?" if hint else f"allowed keys: {', '.join(allowed)}"
                raise self.fail(at + (key,), f"unknown key '{key}' in {self.label(at)}; {fix}"
                                             f"{self.located.name_hint(at + (key,), key=True)}")
        return value

    def string(self, value: Any, at: tuple) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(at, f"'{self.name(at)}' must be a non-empty string, got {_kind(value)}"
                                f"{self.located.name_hint(at)}")
        return value

    def fraction(self, value: Any, at: tuple) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            raise self.fail(at, f"'{self.name(at)}' must be a fraction between 0 and 1 "
                                f"(e.g. 0.25 for 25%), got {value!r}")
        return float(value)

    def positive_int(self, value: Any, at: tuple) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise self.fail(at, f"'{self.name(at)}' must be a whole number of at least 1, got {value!r}")
        return value

    def choice(self, value: Any, at: tuple, options: tuple[str, ...]) -> str:
        if value not in options:
            hint = difflib.get_close_matches(str(value), options, n=1)
            fix = f"did you mean '{hint[0]}'?" if hint else f"use one of: {', '.join(options)}"
            raise self.fail(at, f"'{self.name(at)}' is {value!r}; {fix}")
        return value

    def string_list(self, value: Any, at: tuple) -> tuple[str, ...]:
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not value:
            raise self.fail(at, f"'{self.name(at)}' must be a list of names, got {_kind(value)}"
                                f"{self.located.name_hint(at)}")
        return tuple(self.string(item, at + (i,)) for i, item in enumerate(value))

    def span(self, value: Any, at: tuple, sentence: str) -> tuple[int, int]:
        ok = (isinstance(value, list) and len(value) == 2
              and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
              and 0 <= value[0] < value[1] <= len(sentence))
        if not ok:
            raise self.fail(at, f"'{self.name(at)}' must be [from, to], character offsets inside the "
                                f"sentence (0 <= from < to <= {len(sentence)}), got {value!r}")
        return (value[0], value[1])


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    kinds: dict[type, str] = {dict: "a mapping", list: "a list", str: f"the string {value!r}"}
    return kinds.get(type(value), repr(value))


def parse_suite(path: str | Path, known_sources: tuple[str, ...], display_path: str | None = None) -> SuiteSpec:
    """Read and validate one suite file. `known_sources` are the source names defined outside it."""
    path = Path(path)
    shown = display_path or str(path)
    try:
        raw = inputs.read_bytes(path)
    except OSError as err:
        raise SpecError(shown, None, f"cannot read the suite file: {err.strerror}") from None
    located = load_located(decode(raw, shown), shown)
    if located.data is None:
        raise SpecError(shown, 1, "the suite file is empty; it needs at least a 'tests:' list (see docs/suites.md)")
    check = _Checker(shown, located)
    top = check.mapping(located.data, (), SUITE_KEYS)
    if "tests" not in top:
        raise check.fail((), "a suite file needs a 'tests:' list (see docs/suites.md)")
    name = check.string(top.get("suite", path.stem), ("suite",))
    description = _text(top.get("description"))

    inline = _parse_inline_sources(check, top.get("sources", {}), path, shown)
    lexicons = _Lexicons(check, top)
    defaults = check.mapping(top.get("defaults", {}), ("defaults",), default_keys())
    all_sources = tuple(known_sources) + tuple(inline)

    tests_raw = top["tests"]
    if not isinstance(tests_raw, list) or not tests_raw:
        raise check.fail(("tests",), "'tests' must be a non-empty list of tests (each starting with '- name:')")
    cell_gates = _parse_suite_gates(check, top.get("gates"))
    tests: list[TestSpec] = []
    seen: set[str] = set()
    extraction_tests: list[ExtractionTestSpec] = []
    for i, raw_test in enumerate(tests_raw):
        if isinstance(raw_test, dict) and raw_test.get("task") == "extraction":
            found = _parse_extraction_test(check, raw_test, ("tests", i), shown)
            if found.name in [*(t.name for t in tests), *(t.name for t in extraction_tests)]:
                raise check.fail(("tests", i, "name"), f"two tests are named '{found.name}'; names must be unique "
                                                       "in a suite")
            extraction_tests.append(found)
            continue
        if isinstance(raw_test, dict) and "template" in raw_test:
            test = _parse_template_test(check, raw_test, ("tests", i), defaults, lexicons, shown)
        else:
            test = _parse_test(check, raw_test, ("tests", i), defaults, all_sources, shown, path.parent)
        if test.name in seen:
            raise check.fail(("tests", i, "name"), f"two tests are named '{test.name}'; names must be unique in a suite")
        seen.add(test.name)
        tests.append(replace(test, gates=replace(test.gates, capabilities=cell_gates)) if cell_gates else test)
    return SuiteSpec(shown, name, description, tuple(tests), inline, hashlib.sha256(raw).hexdigest(),
                     tuple(extraction_tests))


def _test_name(check: _Checker, test: dict, at: tuple) -> str:
    if "name" not in test:
        raise check.fail(at, "every test needs a 'name'")
    name = check.string(test["name"], at + ("name",))
    if not _NAME.fullmatch(name):
        raise check.fail(at + ("name",), f"test name {name!r} may only use letters, digits, '_', '-' and '.'")
    return name


def _parse_extraction_test(check: _Checker, raw: dict, at: tuple, shown: str) -> ExtractionTestSpec:
    from absa_checks.sources.gold_sources import GOLD_SOURCES

    test = check.mapping(raw, at, EXTRACTION_TEST_KEYS)
    name = _test_name(check, test, at)
    if "sources" not in test:
        raise check.fail(at, f"extraction test '{name}' needs 'sources': {', '.join(GOLD_SOURCES)}")
    sources = check.string_list(test["sources"], at + ("sources",))
    _once_each(check, sources, at + ("sources",), "source")
    for i, source in enumerate(sources):
        if source not in GOLD_SOURCES:
            hint = difflib.get_close_matches(source, tuple(GOLD_SOURCES), n=1)
            fix = f"did you mean '{hint[0]}'?" if hint else f"extraction tests score on {', '.join(GOLD_SOURCES)}"
            raise check.fail(at + ("sources", i), f"unknown extraction source '{source}'; {fix}")
    raw_gates = check.mapping(test.get("gates") or {}, at + ("gates",), (*EXTRACTION_GATES, "basis"))
    gates: dict[str, Any] = {key: check.fraction(raw_gates[key], at + ("gates", key)) for key in EXTRACTION_GATES
                             if key in raw_gates}
    if "basis" in raw_gates:
        gates["basis"] = check.choice(raw_gates["basis"], at + ("gates", "basis"), GATE_BASES)
    tags = check.string_list(test["tags"], at + ("tags",)) if "tags" in test else ()
    expanded = check.mapping(test.get("expanded") or {}, at + ("expanded",), sources)
    files = tuple((source, check.string(path, at + ("expanded", source))) for source, path in expanded.items())
    return ExtractionTestSpec(shown, check.located.line(at) or 0, name, _text(test.get("description")), sources,
                              tags, gates, files)


def _parse_test(check: _Checker, raw: Any, at: tuple, defaults: dict, all_sources: tuple[str, ...],
                shown: str, folder: Path = Path()) -> TestSpec:
    test = check.mapping(raw, at, allowed_test_keys())
    merged = {**defaults, **test}

    def where(key: str) -> tuple:
        return at + (key,) if key in test else ("defaults", key)

    name = _test_name(check, test, at)
    if "strategy" not in test:
        raise check.fail(at, f"test '{name}' needs a 'strategy' ({', '.join(strategies.STRATEGIES)}, "
                             "or a chain such as revnon+adddiff)")
    strategy = _strategy(check, check.string(test["strategy"], at + ("strategy",)), at + ("strategy",))

    kind = merged.get("expect", strategies.default_expectation(strategy))
    kind = check.choice(kind, where("expect"), EXPECTATIONS)
    tolerance = 0.0
    if "tolerance" in merged:
        tolerance = check.fraction(merged["tolerance"], where("tolerance"))
        if kind != "unchanged":
            raise check.fail(where("tolerance"), f"'tolerance' only applies to expect: unchanged "
                                                 f"(test '{name}' expects {kind}); remove it or change 'expect'")

    if "sources" not in merged:
        raise check.fail(at, f"test '{name}' needs 'sources' (here or under 'defaults'); "
                             f"known sources: {', '.join(all_sources)}")
    sources = check.string_list(merged["sources"], where("sources"))
    _once_each(check, sources, where("sources"), "source")
    for i, source in enumerate(sources):
        if source not in all_sources:
            hint = difflib.get_close_matches(source, all_sources, n=1)
            fix = f"did you mean '{hint[0]}'?" if hint else f"known sources: {', '.join(all_sources)}"
            raise check.fail(where("sources") + (i,), f"unknown source '{source}'; {fix}")

    sample = None
    if merged.get("sample") is not None:
        sample = check.positive_int(merged["sample"], where("sample"))
    tags = check.string_list(merged["tags"], where("tags")) if "tags" in merged else ()
    default_gates = _parse_gates(check, defaults.get("gates"), ("defaults", "gates"))
    own_gates = _parse_gates(check, test.get("gates"), at + ("gates",))
    gates = GateSpec.from_dict({**default_gates.to_dict(), **own_gates.to_dict()})
    files = VariantFiles()
    if isinstance(merged.get("variants"), dict):
        files = _variant_files(check, merged["variants"], where("variants"), folder, shown, sources)
        variants = "frozen" if files.frozen[0] else files.otherwise
    else:
        variants = check.choice(merged.get("variants", "auto"), where("variants"), VARIANT_MODES)
    if gates.min_validity is not None and not files.any:  # never audited: a gate that could never pass
        own = "min_validity" in (test.get("gates") or {})
        raise check.fail(at + ("gates", "min_validity") if own else ("defaults", "gates", "min_validity"),
                         f"'min_validity' gates the audited validity of a reviewed (frozen) file's variants; test "
                         f"'{name}' runs {variants} variants, which are never audited: give it variants: {{frozen: "
                         "FILE}, or set min_validity on the frozen tests only")
    params = _parameters(check, strategy, name, test, defaults, where)
    line = check.located.line(at) or 0
    capability, test_type = capability_and_type(check, merged, where, name, strategies.capability(strategy), kind)
    return TestSpec(shown, line, name, _text(test.get("description")), strategy,
                    Expectation(kind, tolerance), sources, sample, tags, gates, variants, params, *files.frozen,
                    capability=capability, type=test_type, frozen_sources=files.frozen_sources,
                    audited_sources=files.audited_sources, otherwise=files.otherwise)


def capability_name(text: str) -> str:
    """A capability as the matrix shows it: lower case, single spaces ("Negation  scope" -> "negation scope")."""
    return " ".join(text.split()).lower()


def capability_and_type(check: _Checker, merged: dict, where, name: str, default_capability: str,
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


def _parse_suite_gates(check: _Checker, raw: Any) -> tuple | None:
    """The suite-level `gates: {basis: point, capabilities: {negation: {mft: {max_fail_rate: 0.2}}}}`: gates on
    cells of the run's capability x type matrix (judge.matrix)."""
    at: tuple = ("gates",)
    gates = check.mapping(raw if raw is not None else {}, at, SUITE_GATE_KEYS)
    basis = check.choice(gates["basis"], at + ("basis",), GATE_BASES) if "basis" in gates else ""
    if "capabilities" not in gates:
        if gates:
            raise check.fail(at, "the suite-level 'gates' holds 'capabilities' (e.g. capabilities: {negation: {mft: "
                                 "{max_fail_rate: 0.2}}}); a test's own gates go under the test or 'defaults'")
        return None
    at += ("capabilities",)
    raw_cells = gates["capabilities"]
    capabilities = check.mapping(raw_cells, at, tuple(raw_cells) if isinstance(raw_cells, dict) else ())
    if not capabilities:
        raise check.fail(at, "'gates.capabilities' names no capability; e.g. capabilities: {negation: {mft: "
                             "{max_fail_rate: 0.2}}}")
    found = []
    for capability, kinds in capabilities.items():
        c_at = at + (capability,)
        shown = capability_name(check.string(capability, c_at))
        kinds = check.mapping(kinds, c_at, tuple(kinds) if isinstance(kinds, dict) else ())
        for key in kinds:  # MFT, INV, DIR in any case, as in the test's `type`; a misspelt one named with the fix
            check.choice(str(key).lower(), c_at + (key,), TEST_TYPES)
        if not kinds:
            raise check.fail(c_at, f"capability {capability!r} has no test type; give one of {', '.join(TEST_TYPES)}, "
                                   "e.g. {mft: {max_fail_rate: 0.2}}")
        for written_kind, thresholds in kinds.items():
            kind, t_at = str(written_kind).lower(), c_at + (written_kind,)
            thresholds = check.mapping(thresholds, t_at, CAPABILITY_GATE_KEYS)
            if "max_fail_rate" not in thresholds:
                raise check.fail(t_at, f"'{check.name(t_at)}' has no gate; give max_fail_rate (a fraction, e.g. 0.2)")
            own = check.choice(thresholds["basis"], t_at + ("basis",), GATE_BASES) if "basis" in thresholds else basis
            found.append((shown, kind, own, (("max_fail_rate",
                                              check.fraction(thresholds["max_fail_rate"], t_at + ("max_fail_rate",))),)))
    return tuple(found)


class _Lexicons:
    """The suite's lexicon per domain: the built-in one with the suite's `lexicons:` merged over it (read once)."""

    def __init__(self, check: _Checker, top: dict):
        self.check = check
        self.raw = top.get("lexicons")
        self.found: dict[str, lexicons_module.Lexicon] = {}
        own_domain = None
        if self.raw is not None:  # its shape checked even when no template test uses it
            own_domain = lexicons_module.parse_lexicon(check, self.raw, ("lexicons",),
                                                       lexicons_module.Lexicon(None), whole=False).domain
            if own_domain is not None:
                check.choice(own_domain, ("lexicons", "domain"), DOMAINS)
        self.suite_domain = check.choice(top["domain"], ("domain",), DOMAINS) if "domain" in top else own_domain
        if self.raw is not None and self.suite_domain is not None:  # and whole, over the lexicon it extends
            self.of(own_domain or self.suite_domain)

    def of(self, domain: str) -> lexicons_module.Lexicon:
        if domain not in self.found:
            base = lexicons_module.load_builtin(domain) or lexicons_module.Lexicon(domain)
            own = self.raw if isinstance(self.raw, dict) and self.raw.get("domain", domain) == domain else None
            self.found[domain] = base if own is None else \
                lexicons_module.parse_lexicon(self.check, own, ("lexicons",), base)
        return self.found[domain]


def _parse_template_test(check: _Checker, raw: dict, at: tuple, defaults: dict, lexicons: _Lexicons,
                         shown: str) -> TestSpec:
    """A test with `template:` (docs/suites.md, "Templates"): its cases are filled from lexicons, so it takes no
    `sources:` and no strategy; its source in reports is templates-<domain>."""
    test = check.mapping(raw, at, templates_module.TEMPLATE_KEYS)
    name = _test_name(check, test, at)
    if "strategy" in test or "sources" in test:
        raise check.fail(at, f"test '{name}' has a 'template', which makes its own cases: remove 'strategy'/'sources'")
    if "domain" in test:
        domain = check.choice(test["domain"], at + ("domain",), DOMAINS)
    elif lexicons.suite_domain is not None:
        domain = lexicons.suite_domain
    else:
        raise check.fail(at, f"template test '{name}' needs 'domain:' ({', '.join(DOMAINS)}): the lexicon that fills "
                             "it (or give the suite a top-level 'domain:')")
    written = test.get("type")  # MFT, INV, DIR in any case, as on other tests
    kind = check.choice(written.lower() if isinstance(written, str) else written, at + ("type",), templates_module.TYPES) \
        if "type" in test else \
        ("inv" if "vary" in test or "variant" in test else "mft")
    expect = templates_module.DEFAULT_EXPECTATION[kind]
    if "expect" in test:
        allowed = templates_module.TYPE_EXPECTATIONS[kind]
        if test["expect"] not in allowed:
            raise check.fail(at + ("expect",), f"test '{name}' is type {kind}" + ("" if "type" in test else
                             " (a pair without 'type:')") + f", which expects {' or '.join(allowed)}, not "
                             f"{test['expect']!r}; change 'expect' or set 'type' (mft: gold; inv: unchanged, gold; "
                             "dir: flip, unchanged, gold)")
        expect = test["expect"]
    tolerance = 0.0
    if "tolerance" in test:
        tolerance = check.fraction(test["tolerance"], at + ("tolerance",))
        if expect != "unchanged":
            raise check.fail(at + ("tolerance",), f"'tolerance' only applies to expect: unchanged (test '{name}' "
                                                  f"expects {expect}); remove it or change 'expect'")
    capability = capability_name(check.string(test["capability"], at + ("capability",))) if "capability" in test \
        else capability_name(check.string(defaults["capability"], ("defaults", "capability"))) \
        if "capability" in defaults else "templates"  # the matrix's row for a template test that names none
    spec = template_parse.parse_template(check, test, at, name, domain, lexicons.of(domain), kind, expect)
    merged = {**defaults, **test}
    tags = check.string_list(merged["tags"], at + ("tags",) if "tags" in test else ("defaults", "tags")) \
        if "tags" in merged else ()
    default_gates = _parse_gates(check, defaults.get("gates"), ("defaults", "gates"))
    own_gates = _parse_gates(check, test.get("gates"), at + ("gates",))
    gates = GateSpec.from_dict({**default_gates.to_dict(), **own_gates.to_dict()})
    for key, why in (("min_validity", "the audited validity of a reviewed (frozen) file"),
                     ("min_ars", "the ARS of real sentences under revtgt, revnon and adddiff")):
        if getattr(gates, key) is not None:  # never measured on a template test: a gate that could never pass
            own = key in (test.get("gates") or {})
            raise check.fail(at + ("gates", key) if own else ("defaults", "gates", key),
                             f"'{key}' gates {why}; template test '{name}' has none: gate it with max_fail_rate "
                             f"or min_variant_accuracy" + ("" if own else f", or set {key} on the other tests only"))
    return TestSpec(shown, check.located.line(at) or 0, name, _text(test.get("description")),
                    templates_module.STRATEGY, Expectation(expect, tolerance), (spec.source,), None, tags, gates,
                    template=spec, capability=capability, type=kind)


@dataclass(frozen=True)
class VariantFiles:
    """A test's `variants:` mapping, read: the single frozen file (path, as shown) or none, the per-source
    frozen and audited files ((source, path, as shown), ...), and the mode of the other sources."""

    frozen: tuple[str, str] = ("", "")
    frozen_sources: tuple[tuple[str, str, str], ...] = ()
    audited_sources: tuple[tuple[str, str, str], ...] = ()
    otherwise: str = "auto"

    @property
    def any(self) -> bool:
        return bool(self.frozen[0] or self.frozen_sources or self.audited_sources)


def _variant_files(check: _Checker, raw: dict, at: tuple, folder: Path, shown: str,
                   sources: tuple[str, ...]) -> VariantFiles:
    """`variants: {frozen: FILE}` (every source), or per source `{frozen: {source: FILE}, audited: {source: FILE},
    otherwise: auto|given|generated}`; files relative to the suite file."""
    body = check.mapping(raw, at, FROZEN_KEYS)
    if "frozen" not in body and "audited" not in body:
        raise check.fail(at, "'variants' as a mapping names reviewed files: {frozen: FILE}, or per source "
                             "{frozen: {SOURCE: FILE}, audited: {SOURCE: FILE}, otherwise: auto} (docs/suites.md)")
    otherwise = check.choice(body["otherwise"], at + ("otherwise",), VARIANT_MODES) if "otherwise" in body \
        else "auto"
    if not isinstance(body.get("frozen"), dict) and "frozen" in body:  # the single file: every source
        if "audited" in body:
            raise check.fail(at + ("audited",), f"'{check.name(at + ('frozen',))}' names one file for every source "
                                                "of the test, so no source is left to audit: name the frozen file "
                                                "per source (frozen: {SOURCE: FILE}) to use 'audited' too")
        return VariantFiles(_frozen_file(check, body["frozen"], at + ("frozen",), folder, shown),
                            otherwise=otherwise)
    frozen = _per_source(check, body.get("frozen"), at + ("frozen",), folder, shown, sources)
    audited = _per_source(check, body.get("audited"), at + ("audited",), folder, shown, sources)
    for source, _, _ in audited:
        if any(source == name for name, _, _ in frozen):
            raise check.fail(at + ("audited", source), f"source '{source}' is under both 'frozen' and 'audited'; "
                                                       "a source runs either a reviewed file (frozen) or its own "
                                                       "variants with their audit (audited): keep one")
    return VariantFiles(frozen_sources=frozen, audited_sources=audited, otherwise=otherwise)


def _per_source(check: _Checker, raw: Any, at: tuple, folder: Path, shown: str,
                sources: tuple[str, ...]) -> tuple[tuple[str, str, str], ...]:
    """`{source: FILE, ...}` under `frozen` or `audited`; each source one of the test's."""
    if raw is None:
        return ()
    files = check.mapping(raw, at, tuple(raw) if isinstance(raw, dict) else ())
    if not files:
        raise check.fail(at, f"'{check.name(at)}' names no source; e.g. {{{sources[0]}: FILE}}")
    found = []
    for source, file in files.items():
        if source not in sources:
            hint = difflib.get_close_matches(str(source), sources, n=1)
            fix = f"did you mean '{hint[0]}'?" if hint else f"the test's sources: {', '.join(sources)}"
            raise check.fail(at + (source,), f"'{check.name(at)}' names source '{source}', which is not one of "
                                             f"the test's sources; {fix}")
        found.append((str(source), *_frozen_file(check, file, at + (source,), folder, shown)))
    return tuple(found)


def _frozen_file(check: _Checker, raw: Any, at: tuple, folder: Path, shown: str) -> tuple[str, str]:
    """A reviewed candidates file, relative to the suite file; (path, as shown)."""
    file = check.string(raw, at)
    path = folder / file
    if not path.is_file():
        raise check.fail(at, f"candidates file '{file}' not found (the path is relative to the suite "
                             "file); write it with `absa-checks generate --candidates --out FILE`")
    return str(path.resolve()), os.path.normpath(os.path.join(os.path.dirname(shown), file))


def _parameters(check: _Checker, strategy: str, name: str, test: dict, defaults: dict, where) -> tuple:
    """The strategy parameters a test sets, each checked by its declaration (strategies.Parameter).
    A default that applies to other strategies of the file is ignored here; one written on the test is
    an error when its strategy has no such parameter."""
    accepted = strategies.parameters(strategy)
    values = []
    for key in strategies.all_parameter_names():
        if key in test and key not in accepted:
            owners = [s.name for s in strategies.REGISTRY.values() if any(p.name == key for p in s.parameters)]
            raise check.fail(where(key), f"'{key}' only applies to {', '.join(owners)}; test '{name}' is {strategy}")
        value = test.get(key, defaults.get(key)) if key in accepted else None
        if value is None:
            continue
        try:
            values.append((key, accepted[key].parse(value)))
        except ValueError as err:
            raise check.fail(where(key), str(err)) from None
    return tuple(sorted(values))


_NAME = re.compile(r"[\w.-]+")


def _text(value: Any) -> str:
    """A free-text field; an empty `description:` is no description, not the word 'None'."""
    return "" if value is None else str(value)


def _strategy(check: _Checker, value: str, at: tuple) -> str:
    """A strategy or chain, written without spaces around '+' (`revnon + adddiff` -> `revnon+adddiff`)."""
    parts = strategies.split_chain(value)
    for part in parts:
        if part not in strategies.REGISTRY:
            hint = difflib.get_close_matches(part, tuple(strategies.STRATEGIES), n=1)
            fix = (f"did you mean '{hint[0]}'?" if hint else
                   f"use one of: {', '.join(strategies.STRATEGIES)}, or a chain such as revnon+adddiff")
            step = f", whose step {part!r} is not a strategy" if len(parts) > 1 else ""
            raise check.fail(at, f"'{check.name(at)}' is {value.strip()!r}{step}; {fix}")
    repeated = [part for i, part in enumerate(parts) if part in parts[:i]]
    if repeated:  # revtgt+revtgt reverses the target back; any repeated step tests nothing its one step does not
        raise check.fail(at, f"'{check.name(at)}' is {value.strip()!r}, which names '{repeated[0]}' twice; a chain "
                             "takes each strategy once (a step repeated undoes or redoes itself, e.g. revtgt+revtgt "
                             "gives back the original): write it once, or use a parameter such as k")
    return "+".join(parts)


def _once_each(check: _Checker, names: tuple[str, ...], at: tuple, what: str) -> None:
    """A list whose items name distinct things (a test's sources): one given twice would count its cases twice."""
    for i, name in enumerate(names):
        if name in names[:i]:
            raise check.fail(at + (i,), f"'{check.name(at)}' names the {what} '{name}' twice; its cases would be "
                                        f"collected and counted twice: name each {what} once")


def _parse_gates(check: _Checker, raw: Any, at: tuple) -> GateSpec:
    if isinstance(raw, dict) and "capabilities" in raw:
        raise check.fail(at + ("capabilities",), "gates on the capability x type matrix span the run's tests: put "
                                                 "'capabilities' under the suite's top-level 'gates:' (docs/suites.md)")
    gates = check.mapping(raw if raw is not None else {}, at, GATE_KEYS)
    values: dict[str, Any] = {key: check.fraction(gates[key], at + (key,)) for key in GATE_KEYS
                              if key not in ("basis", "slices") and key in gates}
    basis = check.choice(gates["basis"], at + ("basis",), GATE_BASES) if "basis" in gates else None
    sliced = _parse_slice_gates(check, gates["slices"], at + ("slices",)) if "slices" in gates else None
    return GateSpec(basis=basis, slices=sliced, **values)


def _parse_slice_gates(check: _Checker, raw: Any, at: tuple) -> tuple:
    """`slices: {hard=true: {min_accuracy: 0.7}, opposite_others>=1: {max_fail_rate: 0.3}}`."""
    selectors = check.mapping(raw, at, tuple(raw) if isinstance(raw, dict) else ())
    if not selectors:
        raise check.fail(at, "'slices' names no slice; e.g. slices: {hard=true: {min_accuracy: 0.7}}")
    found = []
    for selector, thresholds in selectors.items():
        try:
            key = slices_module.canonical(str(selector))
        except ValueError as err:
            raise check.fail(at + (selector,), str(err)) from None
        given = check.mapping(thresholds, at + (selector,), slices_module.SLICE_GATE_KEYS)
        if not given:
            raise check.fail(at + (selector,), f"slice {selector!r} has no gate; give one of "
                                               f"{', '.join(slices_module.SLICE_GATE_KEYS)}")
        found.append((key, tuple((name, check.fraction(value, at + (selector, name)))
                                 for name, value in given.items())))
    return tuple(found)


def _parse_inline_sources(check: _Checker, raw: Any, suite: Path, shown: str) -> dict[str, InlineSourceSpec]:
    base_dir = suite.parent
    if isinstance(raw, list):
        raise check.fail(("sources",), "the top-level 'sources' names this file's own example sources "
                                       "(name: {examples: [...]} or name: {file: ...}); to run every test "
                                       "over the same sources, put the list under 'defaults:' instead")
    sources = check.mapping(raw, ("sources",), tuple(raw) if isinstance(raw, dict) else ())
    bare = check.located.not_a_name(("sources",), "the source name")  # `yes:` is YAML's true, `null:` nothing
    if bare is not None:
        raise SpecError(shown, bare[0], bare[1])
    result = {}
    for name, body in sources.items():
        at = ("sources", name)
        body = check.mapping(body, at, SOURCE_KEYS)
        if ("examples" in body) == ("file" in body):
            raise check.fail(at, f"source '{name}' needs exactly one of 'examples' (a list written here) "
                                 "or 'file' (a path to an examples file)")
        defined_at = f"{shown}:{check.located.line(at)}"
        domain = check.choice(body["domain"], at + ("domain",), DOMAINS) if "domain" in body else None
        if "file" in body:
            file = check.string(body["file"], at + ("file",))
            found = parse_examples_file(base_dir / file, name, shown, check.located.line(at + ("file",)),
                                        display_path=os.path.normpath(os.path.join(os.path.dirname(shown), file)))
            result[name] = replace(found, defined_at=defined_at, domain=domain)
        else:
            result[name] = InlineSourceSpec(name, shown, _parse_examples(check, body["examples"], at + ("examples",)),
                                            defined_at, str(suite.resolve()), domain=domain)
    return result


def source_defined_twice(name: str, here: str, first: str) -> str:
    """The message for one source name defined with other examples in two places of one run."""
    return (f"{here}: the source '{name}' is also defined in {first}, with other examples; a source name means "
            "one set of examples in a run (their units would be pooled and units with the same id mixed in one "
            "ARS unit): rename one of them, or put the examples in one file and name it from both suites with "
            "'file:'")


def parse_examples_file(path: Path, source_name: str, referenced_from: str = "", line: int | None = None,
                        display_path: str | None = None) -> InlineSourceSpec:
    """An examples file holds `examples: [...]` in the same form as inline examples.

    Errors name the file as `display_path` (default: `path`); `referenced_from` and `line` are the
    suite file and line that name it, blamed when the file cannot be read.
    """
    path = Path(path)
    shown = display_path or str(path)
    try:
        data = inputs.read_bytes(path)
    except OSError as err:
        problem = "not found" if isinstance(err, FileNotFoundError) else f"cannot be read ({err.strerror})"
        raise SpecError(referenced_from or shown, line if referenced_from else None,
                        f"examples file '{shown}' {problem}; the path in 'file:' is relative to the "
                        "suite file") from None
    located = load_located(decode(data, shown), shown)
    if located.data is None:
        raise SpecError(shown, 1, "the examples file is empty; it needs an 'examples:' list")
    check = _Checker(shown, located)
    top = check.mapping(located.data, (), ("examples",))
    if "examples" not in top:
        raise check.fail((), "an examples file needs an 'examples:' list")
    return InlineSourceSpec(source_name, str(path), _parse_examples(check, top["examples"], ("examples",)),
                            shown, str(path.resolve()), hashlib.sha256(data).hexdigest(), shown)


def _parse_examples(check: _Checker, raw: Any, at: tuple) -> tuple[InlineExampleSpec, ...]:
    if not isinstance(raw, list) or not raw:
        raise check.fail(at, f"'{check.name(at)}' must be a non-empty list of examples (each starting with "
                             f"'- sentence:'), got {_kind(raw)}")
    examples = []
    ids: dict[str, int] = {}
    unnamed: dict[tuple[str, str], int] = {}  # an example without an id is its unit by sentence and aspect
    for i, item in enumerate(raw):
        example = _parse_example(check, item, at + (i,))
        if example.example_id is not None:
            if example.example_id in ids:
                raise check.fail(at + (i, "id"), f"example id '{example.example_id}' is used twice (first on line "
                                                 f"{ids[example.example_id]}); give each example its own id")
            ids[example.example_id] = check.located.line(at + (i, "id")) or example.line
        else:
            key = (example.sentence, example.aspect)
            if key in unnamed:
                raise check.fail(at + (i,), f"this example has the sentence and aspect of the one on line "
                                            f"{unnamed[key]} and neither has an id, so they would be one unit (its "
                                            "cases mixed): give each an 'id', or keep one")
            unnamed[key] = example.line
        examples.append(example)
    return tuple(examples)


def _parse_example(check: _Checker, raw: Any, at: tuple) -> InlineExampleSpec:
    item = check.mapping(raw, at, EXAMPLE_KEYS)
    for key in ("sentence", "aspect", "polarity"):
        if key not in item:
            raise check.fail(at, f"an example needs '{key}'")
    sentence = check.string(item["sentence"], at + ("sentence",))
    aspect = check.string(item["aspect"], at + ("aspect",))
    polarity = check.choice(item["polarity"], at + ("polarity",), POLARITIES)
    span = check.span(item["span"], at + ("span",), sentence) if "span" in item else None
    _check_term(check, sentence, aspect, span, at, at + ("aspect",))
    opinions = _parse_opinions(check, item, at, sentence, 0)
    others = []
    raw_others = item.get("aspects") or []
    if not isinstance(raw_others, list):
        raise check.fail(at + ("aspects",), f"'{check.name(at + ('aspects',))}' must be a list of the other "
                                            "aspects, e.g. [{term: fries, polarity: negative}], "
                                            f"got {_kind(raw_others)}")
    for j, other in enumerate(raw_others):
        o_at = at + ("aspects", j)
        other = check.mapping(other, o_at, OTHER_ASPECT_KEYS)
        if "term" not in other:
            raise check.fail(o_at, "an aspect needs 'term'")
        term = check.string(other["term"], o_at + ("term",))
        o_pol = check.choice(other["polarity"], o_at + ("polarity",), POLARITIES) if "polarity" in other else None
        o_span = check.span(other["span"], o_at + ("span",), sentence) if "span" in other else None
        _check_term(check, sentence, term, o_span, o_at, o_at + ("term",))
        others.append((term, o_pol, o_span))
        opinions += _parse_opinions(check, other, o_at, sentence, j + 1)
    variants = []
    raw_variants = check.mapping(item.get("variants") or {}, at + ("variants",),
                                 tuple(item["variants"]) if isinstance(item.get("variants"), dict) else ())
    for strategy, body in raw_variants.items():
        v_at = at + ("variants", strategy)
        if not strategies.is_known(str(strategy)):
            hint = difflib.get_close_matches(str(strategy), tuple(strategies.STRATEGIES), n=1)
            fix = f"did you mean '{hint[0]}'?" if hint else f"use one of: {', '.join(strategies.STRATEGIES)}"
            raise check.fail(v_at, f"unknown strategy '{strategy}' under 'variants'; {fix}")
        for k, one in enumerate(body if isinstance(body, list) else [body]):
            one_at = v_at + (k,) if isinstance(body, list) else v_at
            raw_one = one
            if isinstance(one, str):
                one = {"sentence": one}
            one = check.mapping(one, one_at, VARIANT_KEYS)
            if "sentence" not in one:
                raise check.fail(one_at, "a variant needs 'sentence'")
            v_sentence = check.string(one["sentence"], one_at + ("sentence",))
            v_span = check.span(one["span"], one_at + ("span",), v_sentence) if "span" in one else None
            if " ".join(v_sentence.split()) == " ".join(sentence.split()):  # nothing to flip or to keep
                raise check.fail(one_at + ("sentence",) if isinstance(raw_one, dict) else one_at,
                                 f"'{check.name(v_at)}': this {strategy} variant is the example's sentence "
                                 "unchanged, so it tests nothing (a model would be blamed, or pass, for a sentence "
                                 "that did not change): write the changed sentence, or remove the variant")
            _check_term(check, v_sentence, aspect, v_span, one_at, one_at, variant=True)
            v_pol = check.choice(one["polarity"], one_at + ("polarity",), POLARITIES) if "polarity" in one else None
            variants.append(InlineVariantSpec(_strategy(check, str(strategy), v_at), v_sentence, v_pol, v_span,
                                              check.located.line(one_at) or 0))
    example_id = None
    if "id" in item:
        if isinstance(item["id"], bool) or not isinstance(item["id"], (str, int)) or not str(item["id"]).strip():
            raise check.fail(at + ("id",), f"'{check.name(at + ('id',))}' must be a non-empty name or number, "
                                           f"got {_kind(item['id'])}")
        example_id = str(item["id"])
    given_opinions = "opinions" in item or any(isinstance(o, dict) and "opinions" in o for o in raw_others)
    return InlineExampleSpec(example_id, sentence, aspect, span, polarity, tuple(others), tuple(variants),
                             check.located.line(at) or 0, tuple(opinions) if given_opinions else None)


def _parse_opinions(check: _Checker, item: dict, at: tuple, sentence: str, aspect: int) -> list[tuple[int, str, int]]:
    """An aspect's `opinions`: its opinion words, each a string that occurs once in the sentence as whole
    words, or {text, span}; [] (no opinion words: REVTGT/REVNON leave it alone) is allowed."""
    if "opinions" not in item:
        return []
    raw, list_at = item["opinions"], at + ("opinions",)
    if not isinstance(raw, list):
        raise check.fail(list_at, f"'{check.name(list_at)}' must be a list of the aspect's opinion words as they "
                                  f"appear in the sentence, e.g. [delicious] or [\"not worth\"], got {_kind(raw)}")
    found = []
    for k, one in enumerate(raw):
        one_at = list_at + (k,)
        one = {"text": one} if isinstance(one, str) else check.mapping(one, one_at, OPINION_KEYS)
        if "text" not in one:
            raise check.fail(one_at, "an opinion needs 'text'")
        text = check.string(one["text"], one_at + ("text",))
        span = check.span(one["span"], one_at + ("span",), sentence) if "span" in one else None
        if span is not None:
            if sentence[span[0]:span[1]] != text:
                raise check.fail(one_at + ("span",), f"'{check.name(one_at + ('span',))}' {list(span)} covers "
                                                     f"{sentence[span[0]:span[1]]!r}, not {text!r}")
            found.append((aspect, text, span[0]))
            continue
        starts = term_starts(sentence, text)
        if len(starts) != 1:
            problem = "does not occur as whole words" if not starts else f"occurs {len(starts)} times"
            fix = (unicode_forms(sentence, text, "opinion") if not starts else "") or (
                "write it exactly as in the sentence" + (", with 'span: [from, to]' to say which" if starts else ""))
            raise check.fail(one_at, f"'{check.name(one_at)}': the opinion {text!r} {problem} in {sentence!r}; {fix}")
        found.append((aspect, text, starts[0]))
    return found


def unicode_forms(sentence: str, term: str, what: str) -> str:
    """When `term` is in `sentence` only once both are in one Unicode form (NFC): which of the two writes an
    accented letter as two characters, and the fix; else "". The text is never normalised here: a sentence is
    given to the model as written, and its offsets count its characters."""
    if unicodedata.normalize("NFC", term) not in unicodedata.normalize("NFC", sentence):
        return ""
    decomposed, composed = ("sentence", what) if sentence != unicodedata.normalize("NFC", sentence) \
        else (what, "sentence")
    text = sentence if decomposed == "sentence" else term
    pair = next((text[i - 1:i + 1] for i in range(1, len(text)) if unicodedata.combining(text[i])), "")
    how = (f"writes {unicodedata.normalize('NFC', pair)!r} as {pair[0]!r} + the combining U+{ord(pair[1]):04X} "
           f"(decomposed, NFD), the {composed} as one character (NFC)") if pair else \
        f"is in another Unicode form than the {composed}"
    return (f"they differ only in Unicode normalisation: the {decomposed} {how}, so they print alike but do not "
            "match; write both in one form: save the file as NFC (composed), the usual")


def _check_term(check: _Checker, sentence: str, term: str, span: tuple[int, int] | None, at: tuple,
                term_at: tuple, variant: bool = False) -> None:
    """`term` must be at `span` (under `at`), or occur exactly once in `sentence` as a word (blamed on `term_at`)."""
    anywhere = [i for i in range(len(sentence)) if sentence.startswith(term, i)]
    starts = term_starts(sentence, term) if span is None else anywhere
    found = " and ".join(f"[{i}, {i + len(term)}]" for i in starts)
    if span is not None:
        if sentence[span[0]:span[1]] != term:
            where = f"{term!r} is at {found}" if starts else f"{term!r} does not occur in the sentence"
            raise check.fail(at + ("span",), f"'{check.name(at + ('span',))}' {list(span)} covers "
                                             f"{sentence[span[0]:span[1]]!r}, not {term!r}; {where} "
                                             "(offsets count characters from 0, end excluded)")
        return
    if not starts and anywhere:
        word = re.search(rf"\w*{re.escape(term)}\w*", sentence)
        assert word is not None  # the term occurs (anywhere)
        inside = word.group()
        raise check.fail(term_at, f"'{check.name(term_at)}': {term!r} occurs only inside a longer word ({inside!r}) "
                                  f"in {sentence!r}; add 'span: [from, to]' if that is really the aspect")
    if not starts:
        fix = unicode_forms(sentence, term, "aspect") or (
            f"a variant must keep the aspect {term!r} verbatim" if variant
            else "the aspect must appear verbatim (same spelling and case)")
        raise check.fail(term_at, f"'{check.name(term_at)}': {term!r} does not occur in {sentence!r}; {fix}")
    if len(starts) > 1:
        how = ("write the variant as a mapping with 'sentence:' and 'span: [from, to]'" if variant
               else "add 'span: [from, to]'")
        raise check.fail(term_at, f"'{check.name(term_at)}': {term!r} occurs {len(starts)} times in {sentence!r} "
                                  f"(at {found}); {how} to say which")
