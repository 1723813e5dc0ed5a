"""Suite files: parse and validate YAML into typed specs (pure; no pytest, no I/O but reading files).

Every error names the file, the line and the key, and says how to fix it.
The format is documented with examples in docs/suites.md.

The suite file's grammar, read top-down: `parse_suite`, then each test kind (strategy, template, extraction)
with the defaults merged in. Its parts live beside it: the checks every reader shares in
absa_checks.suites.yaml_checks, a test's gates in gates_spec, its `variants:` in variants_spec, its cell of the
capability x type matrix in matrix_spec, hand-written examples in examples_spec, template keys in template_parse.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from absa_checks.common import inputs
from absa_checks.common.domains import DOMAINS
from absa_checks.common.errors import SpecError
from absa_checks.common.yaml_lines import decode, load_located
from absa_checks.suites import lexicons as lexicons_module
from absa_checks.suites import strategies, template_parse
from absa_checks.suites import templates as templates_module
from absa_checks.suites.examples_spec import InlineSourceSpec, parse_inline_sources
from absa_checks.suites.expectations import EXPECTATIONS, Expectation
from absa_checks.suites.gates_spec import GATE_BASES, GateSpec, merged_gates, parse_suite_gates
from absa_checks.suites.matrix_spec import TYPE_EXPECTATIONS, capability_and_type, capability_name
from absa_checks.suites.variants_spec import parse_variants
from absa_checks.suites.yaml_checks import Checker, strategy_name


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
EXTRACTION_GATES = tuple(f"min_{level}_f1{suffix}" for level in EXTRACTION_LEVELS
                         for suffix in ("", "_expanded", "_flexible"))
EXTRACTION_TEST_KEYS = ("name", "description", "task", "sources", "tags", "gates", "gold", "expanded")


@dataclass(frozen=True)
class ExtractionTestSpec:
    """`task: extraction`: how well an extraction model finds the gold tuples of a data set, as F1 per
    level, strict, expanded (with `gold: {expanded: FILE}`) and flexible (docs/extraction.md). Gates
    `min_<level>_f1` judge strict F1, `min_<level>_f1_expanded` and `min_<level>_f1_flexible` the others."""

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


def default_keys() -> tuple[str, ...]:
    """What `defaults:` may set: the common keys and every registered strategy's parameters."""
    return COMMON_KEYS + strategies.all_parameter_names()


def allowed_test_keys() -> tuple[str, ...]:
    return ("name", "description", "strategy") + default_keys()


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
    check = Checker(shown, located)
    top = check.mapping(located.data, (), SUITE_KEYS)
    if "tests" not in top:
        raise check.fail((), "a suite file needs a 'tests:' list (see docs/suites.md)")
    name = check.string(top.get("suite", path.stem), ("suite",))
    description = _text(top.get("description"))

    inline = parse_inline_sources(check, top.get("sources", {}), path, shown)
    lexicons = _Lexicons(check, top)
    defaults = check.mapping(top.get("defaults", {}), ("defaults",), default_keys())
    all_sources = tuple(known_sources) + tuple(inline)

    tests_raw = top["tests"]
    if not isinstance(tests_raw, list) or not tests_raw:
        raise check.fail(("tests",), "'tests' must be a non-empty list of tests (each starting with '- name:')")
    cell_gates = parse_suite_gates(check, top.get("gates"))
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


def _test_name(check: Checker, test: dict, at: tuple) -> str:
    if "name" not in test:
        raise check.fail(at, "every test needs a 'name'")
    name = check.string(test["name"], at + ("name",))
    if not _NAME.fullmatch(name):
        raise check.fail(at + ("name",), f"test name {name!r} may only use letters, digits, '_', '-' and '.'")
    return name


def _parse_extraction_test(check: Checker, raw: dict, at: tuple, shown: str) -> ExtractionTestSpec:
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
    files = _expanded_files(check, test, at, sources)
    return ExtractionTestSpec(shown, check.located.line(at) or 0, name, _text(test.get("description")), sources,
                              tags, gates, files)


def _expanded_files(check: Checker, test: dict, at: tuple, sources: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """(source, file) of the expanded gold: `gold: {expanded: FILE}` (one source) or `{expanded: {SOURCE: FILE}}`,
    or the older `expanded: {SOURCE: FILE}`."""
    if "gold" in test and "expanded" in test:
        raise check.fail(at + ("expanded",), "give the expanded gold once: gold: {expanded: ...} (leave 'expanded' out)")
    if "gold" not in test:
        expanded = check.mapping(test.get("expanded") or {}, at + ("expanded",), sources)
        return tuple((source, check.string(path, at + ("expanded", source))) for source, path in expanded.items())
    gold = check.mapping(test["gold"], at + ("gold",), ("expanded",))
    if "expanded" not in gold:
        raise check.fail(at + ("gold",), "gold: give expanded: FILE (the file `absa-checks expand` wrote)")
    where = at + ("gold", "expanded")
    if isinstance(gold["expanded"], str):
        if len(sources) != 1:
            raise check.fail(where, f"one file for {len(sources)} sources: give one per source, "
                                    f"expanded: {{{sources[0]}: FILE, ...}}")
        return ((sources[0], check.string(gold["expanded"], where)),)
    expanded = check.mapping(gold["expanded"], where, sources)
    return tuple((source, check.string(path, where + (source,))) for source, path in expanded.items())


def _parse_test(check: Checker, raw: Any, at: tuple, defaults: dict, all_sources: tuple[str, ...],
                shown: str, folder: Path = Path()) -> TestSpec:
    test = check.mapping(raw, at, allowed_test_keys())
    merged = {**defaults, **test}

    def where(key: str) -> tuple:
        return at + (key,) if key in test else ("defaults", key)

    name = _test_name(check, test, at)
    if "strategy" not in test:
        raise check.fail(at, f"test '{name}' needs a 'strategy' ({', '.join(strategies.registry())}, "
                             "or a chain such as revnon+adddiff)")
    strategy = strategy_name(check, check.string(test["strategy"], at + ("strategy",)), at + ("strategy",))

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
    gates = merged_gates(check, defaults, test, at)
    variants, files = parse_variants(check, merged.get("variants", "auto"), where("variants"), folder, shown, sources)
    if gates.threshold("min_validity") is not None and not files.any:  # never audited: a gate that could never pass
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


class _Lexicons:
    """The suite's lexicon per domain: the built-in one with the suite's `lexicons:` merged over it (read once)."""

    def __init__(self, check: Checker, top: dict):
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


def _parse_template_test(check: Checker, raw: dict, at: tuple, defaults: dict, lexicons: _Lexicons,
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
        allowed = TYPE_EXPECTATIONS[kind]
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
    gates = merged_gates(check, defaults, test, at)
    for key, why in (("min_validity", "the audited validity of a reviewed (frozen) file"),
                     ("min_ars", "the ARS of real sentences under revtgt, revnon and adddiff")):
        if gates.threshold(key) is not None:  # never measured on a template test: a gate that could never pass
            own = key in (test.get("gates") or {})
            raise check.fail(at + ("gates", key) if own else ("defaults", "gates", key),
                             f"'{key}' gates {why}; template test '{name}' has none: gate it with max_fail_rate "
                             f"or min_variant_accuracy" + ("" if own else f", or set {key} on the other tests only"))
    return TestSpec(shown, check.located.line(at) or 0, name, _text(test.get("description")),
                    templates_module.STRATEGY, Expectation(expect, tolerance), (spec.source,), None, tags, gates,
                    template=spec, capability=capability, type=kind)


def _parameters(check: Checker, strategy: str, name: str, test: dict, defaults: dict, where) -> tuple:
    """The strategy parameters a test sets, each checked by its declaration (strategies.Parameter).
    A default that applies to other strategies of the file is ignored here; one written on the test is
    an error when its strategy has no such parameter."""
    accepted = strategies.parameters(strategy)
    values = []
    for key in strategies.all_parameter_names():
        if key in test and key not in accepted:
            owners = [s.name for s in strategies.registry().values() if any(p.name == key for p in s.parameters)]
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


def _once_each(check: Checker, names: tuple[str, ...], at: tuple, what: str) -> None:
    """A list whose items name distinct things (a test's sources): one given twice would count its cases twice."""
    for i, name in enumerate(names):
        if name in names[:i]:
            raise check.fail(at + (i,), f"'{check.name(at)}' names the {what} '{name}' twice; its cases would be "
                                        f"collected and counted twice: name each {what} once")


def source_defined_twice(name: str, here: str, first: str) -> str:
    """The message for one source name defined with other examples in two places of one run."""
    return (f"{here}: the source '{name}' is also defined in {first}, with other examples; a source name means "
            "one set of examples in a run (their units would be pooled and units with the same id mixed in one "
            "ARS unit): rename one of them, or put the examples in one file and name it from both suites with "
            "'file:'")
