"""The JSON Schemas of suite and examples files (absa_checks/suites/schema.py, shipped in absa_checks/schemas/):
every stock file validates and names its schema, the shipped files are what the registries make now, a new
strategy appears in them, and the schema and our loader agree: what the loader accepts validates, and a
misspelt key is refused by both, the schema's error naming the key."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from types import MappingProxyType

import jsonschema
import pytest
import yaml

from absa_checks.common.errors import SpecError
from absa_checks.sources.catalog import known_source_names
from absa_checks.suites import schema, strategies
from absa_checks.suites.examples_spec import parse_examples_file
from absa_checks.suites.spec import parse_suite
from absa_checks.suites.suite_files import classify

REPO = Path(__file__).resolve().parents[2]
MODELINE = re.compile(r"^# yaml-language-server: \$schema=(\S+)$")


def stock_files(kind: str) -> list[Path]:
    """The suites ("suite") or examples files ("examples") the project ships, under suites/ and examples/."""
    found = []
    for path in sorted([*REPO.glob("suites/**/*.y*ml"), *REPO.glob("examples/**/*.y*ml")]):
        text = path.read_text(encoding="utf-8")
        is_examples = re.search(r"^examples:", text, re.MULTILINE) is not None
        is_suite = classify(path, REPO).kind != "other"
        if (kind == "examples" and is_examples) or (kind == "suite" and is_suite and not is_examples):
            found.append(path)
    return found


SUITES = stock_files("suite")
EXAMPLES = stock_files("examples")


def errors(document, which: str = "suite") -> list[str]:
    """The schema's errors, each as 'path.to.key: message' (the path as the loader writes it)."""
    chosen = schema.suite_schema() if which == "suite" else schema.examples_schema()
    validator = jsonschema.Draft202012Validator(chosen)
    return [".".join(str(p) for p in error.absolute_path) + ": " + error.message
            for error in validator.iter_errors(document)]


def names(key: str, error: str) -> bool:
    """Whether a schema error names `key`: the key is the last part of its path, or quoted in its message."""
    path = error.split(": ", 1)[0]
    return path.split(".")[-1] == key or f"'{key}'" in error


def loader_error(tmp_path: Path, text: str, which: str = "suite") -> str:
    """The loader's message for `text`, '' when it accepts it."""
    path = tmp_path / ("s.yaml" if which == "suite" else "e.examples.yaml")
    path.write_text(text, encoding="utf-8")
    try:
        if which == "suite":
            parse_suite(path, known_source_names())
        else:
            parse_examples_file(path, "mine")
    except SpecError as err:
        return str(err)
    return ""


def test_the_stock_files_are_found():
    names = {p.relative_to(REPO).as_posix() for p in SUITES + EXAMPLES}
    assert {"suites/directional/revtgt.yaml", "suites/invariance/revnon.yaml", "suites/invariance/adddiff.yaml",
            "suites/invariance/revnon_adddiff.yaml", "suites/extraction/quality.yaml",
            "suites/examples/restaurant.examples.yaml"} <= names


@pytest.mark.parametrize("path", SUITES + EXAMPLES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_every_stock_file_validates_against_the_schema_it_names_on_its_first_line(path: Path):
    first = path.read_text(encoding="utf-8").splitlines()[0]
    match = MODELINE.match(first)
    assert match, f"{path}: the first line must be '# yaml-language-server: $schema=...', got {first!r}"
    named = (path.parent / match.group(1)).resolve()
    which = "examples" if path in EXAMPLES else "suite"
    expected = schema.SCHEMAS_DIR / (schema.EXAMPLES_FILE if which == "examples" else schema.SUITE_FILE)
    assert named == expected.resolve() and named.is_file()
    assert not Path(match.group(1)).is_absolute()  # works in any checkout
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert errors(document, which) == []
    # the comment line changes nothing for the loader or the collector
    if which == "suite":
        parsed = parse_suite(path, known_source_names())
        assert parsed.tests or parsed.extraction_tests
        assert classify(path, REPO).kind == "suite"
    else:
        assert parse_examples_file(path, "mine").examples


def test_the_shipped_schemas_are_what_the_registries_make_now():
    for name, text in schema.shipped().items():
        shipped = (schema.SCHEMAS_DIR / name).read_text(encoding="utf-8")
        assert shipped == text, f"absa_checks/schemas/{name} is stale: run scripts/build_schemas.py and commit it"


def test_the_build_script_writes_exactly_the_shipped_files(tmp_path: Path):
    done = subprocess.run([sys.executable, str(REPO / "scripts" / "build_schemas.py"), "--out-dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([schema.SUITE_FILE, schema.EXAMPLES_FILE])
    for path in tmp_path.iterdir():
        assert path.read_bytes() == (schema.SCHEMAS_DIR / path.name).read_bytes()
    missing = subprocess.run([sys.executable, str(REPO / "scripts" / "build_schemas.py"), "--out-dir",
                              str(tmp_path / "nowhere")], capture_output=True, text=True, timeout=120, check=False)
    assert missing.returncode == 2 and "nowhere: not a folder" in missing.stderr and "Traceback" not in missing.stderr


def patterns(node) -> list[str]:
    if isinstance(node, dict):
        return [v for k, v in node.items() if k == "pattern" and isinstance(v, str)] + \
            [p for v in node.values() for p in patterns(v)]
    if isinstance(node, list):
        return [p for v in node for p in patterns(v)]
    return []


def test_the_schemas_are_valid_and_their_patterns_read_the_same_in_javascript():
    for made in (schema.suite_schema(), schema.examples_schema()):
        jsonschema.Draft202012Validator.check_schema(made)
        text = schema.render(made)
        # editors validate with draft 7: nothing only 2019-09 / 2020-12 have
        for keyword in ("prefixItems", "unevaluatedProperties", "unevaluatedItems", "$dynamicRef", "dependentRequired"):
            assert f'"{keyword}"' not in text
        found = patterns(made)
        assert len(found) > 5
        for value in found:
            re.compile(value)
            assert "(?" not in value.replace("(?:", ""), value  # no inline flags or named groups
            assert not re.search(r"\\[-AZz]", value), value      # escapes JavaScript's unicode mode refuses


def test_the_shipped_package_data_includes_the_schemas():
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert '"schemas/*.json"' in pyproject


# --- the schema and the loader agree --------------------------------------------------------------------------

VALID_SUITES = {
    "every key": """
suite: everything
description: 3
defaults:
  expect: unchanged
  sources: builtin-laptop
  sample: 5
  tags: [nightly]
  variants: generated
  k: 2
  neutral: keep
  gates: {max_fail_rate: 0.4, basis: point}
sources:
  mine:
    domain: restaurant
    examples:
      - id: 7
        sentence: "The soup was bland but the bread was warm."
        aspect: soup
        span: [4, 8]
        polarity: negative
        opinions: [bland, {text: bland, span: [13, 18]}]
        aspects: [{term: bread, polarity: positive, opinions: [warm]}]
        variants:
          revtgt: "The soup was tasty but the bread was warm."
          revnon: {sentence: "The soup was bland and the bread was cold.", polarity: negative}
          revnon + adddiff:
            - "The soup was bland and the bread was cold, but the staff is kind."
            - {sentence: "The soup was bland and the soup was old.", span: [4, 8]}
      - sentence: "The staff was kind."
        aspect: staff
        polarity: positive
        aspects:
        variants:
tests:
  - name: flip-it.1
    strategy: revtgt
    expect: flip
    sources: [mine, builtin-restaurant]
    sample: null
    gates:
      min_ars: 0.3
      min_variant_accuracy: 0.5
      max_not_found_rate: 0.2
      slices:
        hard = True: {min_accuracy: 0.7}
        opposite_others>=1: {max_fail_rate: 0.4}
        aspects=multi, gold=negative: {min_ars: 0.3, min_variant_accuracy: 0.2}
  - {name: keep, strategy: revnon + adddiff, k: 3, tolerance: 0.1, gates: null}
  - {name: chain-flip, strategy: revtgt+revnon, expect: gold, neutral: skip}
  - name: extraction
    task: extraction
    sources: semeval14-laptop
    tags: extraction
    gates: {min_pair_f1: 0.6, min_quad_f1_flexible: 0.3, basis: interval}
""",
    "the smallest": "tests:\n  - {name: t, strategy: adddiff, sources: builtin-laptop}\n",
    "templates": """
suite: templates
domain: laptop
lexicons:
  domain: laptop
  aspects: {keys: [keyboard, {term: keys, plural: true}], screen: [screen, display]}
  opinions:
    positive: {all: [great], keys: [responsive], screen: [sharp]}
    negative: {all: [awful], keys: [mushy], screen: [dim]}
    neutral: {all: [average]}
  words: {intensifier: [very, really]}
tests:
  - name: contrast
    capability: binding
    type: mft
    domain: laptop
    template: "The {a1} {a1.was} {o1}, but {a2.a} {a2} like this {a2.is} {o2}."
    slots:
      a1: {aspect: keys}
      o1: {opinion: positive, for: a1}
      a2: {aspect: any, other_than: a1, same: [o1]}
      o2: {opinion: any, for: a2}
    gold: {a1: o1, a2: {opposite: o2}}
    n: all
    expect: gold
    tags: [templates]
    gates: {max_fail_rate: 0.5}
  - name: more
    type: dir
    template: "The {a1} {a1.was} {o1}."
    variant: "The {a1} {a1.was} {i} {o1}."
    slots: {a1: {aspect: any}, o1: {opinion: negative, for: a1}, i: {word: intensifier}}
    gold: {a1: o1}
    variant_gold: {a1: negative}
    expect: unchanged
    tolerance: 0.1
    n: 3
  - {name: tax, type: inv, template: "The {a1} works.", slots: {a1: {aspect: screen}}, gold: {a1: neutral}, vary: a1,
     n: 1}
""",
}


@pytest.mark.parametrize("name", VALID_SUITES)
def test_a_suite_the_loader_accepts_validates(tmp_path: Path, name: str):
    text = VALID_SUITES[name]
    assert loader_error(tmp_path, text) == ""
    assert errors(yaml.safe_load(text)) == []


SUITE_HEAD = "suite: s\ntests:\n"
TEST = "  - name: t\n    strategy: {strategy}\n    sources: [builtin-laptop]\n"

# (what is wrong, the suite, the key both must name)
REFUSED = [
    ("a test without sources, none under defaults", SUITE_HEAD + "  - {name: t, strategy: revtgt}\n", "sources"),
    ("a misspelt test key", SUITE_HEAD + "  - name: t\n    stratgy: revtgt\n    sources: [builtin-laptop]\n",
     "stratgy"),
    ("a misspelt top-level key", "suite: s\ntest:\n  - {name: t, strategy: revtgt, sources: builtin-laptop}\n",
     "test"),
    ("a misspelt gate", SUITE_HEAD + TEST.format(strategy="revtgt") + "    gates: {max_fail_rat: 0.3}\n",
     "max_fail_rat"),
    ("a misspelt slice gate", SUITE_HEAD + TEST.format(strategy="revtgt")
     + "    gates:\n      slices:\n        hard=true: {min_acuracy: 0.7}\n", "min_acuracy"),
    ("a misspelt defaults key", "suite: s\ndefaults: {sampel: 3}\n" + "tests:\n" + TEST.format(strategy="revtgt"),
     "sampel"),
    ("a gate in defaults misspelt", "suite: s\ndefaults: {gates: {min_arss: 0.3}}\ntests:\n"
     + TEST.format(strategy="revtgt"), "min_arss"),
    ("k on revtgt", SUITE_HEAD + TEST.format(strategy="revtgt") + "    k: 2\n", "k"),
    ("neutral on adddiff", SUITE_HEAD + TEST.format(strategy="adddiff") + "    neutral: keep\n", "neutral"),
    ("neutral on a chain without revtgt", SUITE_HEAD + TEST.format(strategy="revnon+adddiff") + "    neutral: keep\n",
     "neutral"),
    ("k out of range", SUITE_HEAD + TEST.format(strategy="adddiff") + "    k: 11\n", "k"),
    ("neutral misspelt", SUITE_HEAD + TEST.format(strategy="revtgt") + "    neutral: kep\n", "neutral"),
    ("an unknown strategy", SUITE_HEAD + TEST.format(strategy="revtgtt"), "strategy"),
    ("a chain with an unknown step", SUITE_HEAD + TEST.format(strategy="revnon+addiff"), "strategy"),
    ("an unknown expectation", SUITE_HEAD + TEST.format(strategy="revtgt") + "    expect: flips\n", "expect"),
    ("tolerance with flip", SUITE_HEAD + TEST.format(strategy="revtgt") + "    expect: flip\n    tolerance: 0.1\n",
     "tolerance"),
    ("a gate above 1", SUITE_HEAD + TEST.format(strategy="revtgt") + "    gates: {max_fail_rate: 30}\n",
     "max_fail_rate"),
    ("an unknown gate basis", SUITE_HEAD + TEST.format(strategy="revtgt") + "    gates: {basis: points}\n", "basis"),
    ("a slice of no kind", SUITE_HEAD + TEST.format(strategy="revtgt")
     + "    gates:\n      slices:\n        hard=maybe: {min_accuracy: 0.7}\n", "hard=maybe"),
    ("a misspelt source key", "suite: s\nsources:\n  mine: {fiel: x.examples.yaml}\ntests:\n"
     + TEST.format(strategy="revtgt"), "fiel"),
    ("an unknown domain", "suite: s\nsources:\n  mine: {file: x.yaml, domain: laptops}\ntests:\n"
     + TEST.format(strategy="revtgt"), "domain"),
    ("a misspelt example key", "suite: s\nsources:\n  mine:\n    examples:\n      - sentence: The soup was bland.\n"
     "        aspect: soup\n        polarty: negative\ntests:\n" + TEST.format(strategy="revtgt"), "polarty"),
    ("a misspelt extraction gate", SUITE_HEAD + "  - {name: x, task: extraction, sources: [asqp-rest15], "
     "gates: {min_pair_f: 0.5}}\n", "min_pair_f"),
    ("a strategy key on an extraction test", SUITE_HEAD + "  - {name: x, task: extraction, sources: [asqp-rest15], "
     "strategy: revtgt}\n", "strategy"),
    ("an unknown extraction source", SUITE_HEAD + "  - {name: x, task: extraction, sources: [asqp-rest17]}\n",
     "sources"),
    ("a misspelt template test key", SUITE_HEAD + "  - {name: t, domain: laptop, template: 'The {a1} works.', "
     "slots: {a1: {aspect: any}}, gold: {a1: neutral}, nn: 3}\n", "nn"),
    ("a misspelt slot key", SUITE_HEAD + "  - {name: t, domain: laptop, template: 'The {a1} works.', "
     "slots: {a1: {aspcet: any}}, gold: {a1: neutral}}\n", "aspcet"),
    ("a misspelt lexicon key", "suite: s\nlexicons: {aspect: {keys: [keys]}}\ntests:\n" + TEST.format(strategy="revtgt"),
     "aspect"),
    ("an unknown template type", SUITE_HEAD + "  - {name: t, domain: laptop, template: 'The {a1} works.', "
     "slots: {a1: {aspect: any}}, gold: {a1: neutral}, type: mtf}\n", "type"),
    ("a misspelt variant key", "suite: s\nsources:\n  mine:\n    examples:\n      - sentence: The soup was bland.\n"
     "        aspect: soup\n        polarity: negative\n        variants:\n          revtgt: {sentense: x soup}\n"
     "tests:\n" + TEST.format(strategy="revtgt"), "sentense"),
    ("an unknown strategy under variants", "suite: s\nsources:\n  mine:\n    examples:\n"
     "      - sentence: The soup was bland.\n        aspect: soup\n        polarity: negative\n        variants:\n"
     "          revtg: The soup was good.\ntests:\n" + TEST.format(strategy="revtgt"), "revtg"),
]


@pytest.mark.parametrize("case", REFUSED, ids=[c[0] for c in REFUSED])
def test_a_mistake_is_refused_by_the_loader_and_by_the_schema_naming_the_key(tmp_path: Path, case):
    _, text, key = case
    message = loader_error(tmp_path, text)
    assert message and re.match(r".*s\.yaml:\d+: ", message), message  # the loader names file and line
    found = errors(yaml.safe_load(text))
    assert found, f"the schema accepts what the loader refuses: {message}"
    assert any(names(key, error) for error in found), found


EXAMPLE = "examples:\n  - sentence: The soup was bland.\n    aspect: soup\n    polarity: negative\n"
REFUSED_EXAMPLES = [
    ("a misspelt top-level key", EXAMPLE.replace("examples:", "example:"), "example"),
    ("a misspelt example key", EXAMPLE + "    opinons: [bland]\n", "opinons"),
    ("a misspelt other aspect key", EXAMPLE + "    aspects: [{trem: bread}]\n", "trem"),
    ("an unknown polarity", EXAMPLE.replace("negative", "negativ"), "polarity"),
    ("a misspelt opinion key", EXAMPLE + "    opinions: [{txt: bland}]\n", "txt"),
]


@pytest.mark.parametrize("case", REFUSED_EXAMPLES, ids=[c[0] for c in REFUSED_EXAMPLES])
def test_a_mistake_in_an_examples_file_is_refused_by_both(tmp_path: Path, case):
    _, text, key = case
    assert loader_error(tmp_path, EXAMPLE, "examples") == ""
    assert errors(yaml.safe_load(EXAMPLE), "examples") == []
    message = loader_error(tmp_path, text, "examples")
    assert message and "e.examples.yaml:" in message, message
    found = errors(yaml.safe_load(text), "examples")
    assert any(names(key, error) for error in found), found


def test_a_parameter_in_defaults_applies_only_where_its_strategy_takes_it(tmp_path: Path):
    """`k:` under defaults is not an error for a revtgt test of the file (the loader ignores it there)."""
    text = "suite: s\ndefaults: {k: 2, neutral: keep, sources: builtin-laptop}\ntests:\n" \
           "  - {name: a, strategy: revtgt}\n  - {name: b, strategy: adddiff}\n"
    assert loader_error(tmp_path, text) == ""
    assert errors(yaml.safe_load(text)) == []


# --- a new strategy appears ---------------------------------------------------------------------------------

@pytest.fixture
def with_shout(monkeypatch):
    from extensions.test_seams import SHOUT

    monkeypatch.setattr(strategies, "registry", lambda: MappingProxyType({**strategies.BUILTIN_STRATEGIES, "shout": SHOUT}))
    return SHOUT


def test_a_registered_strategy_and_its_parameter_appear_in_the_schema(tmp_path: Path, monkeypatch):
    before_suite, before_examples = schema.render(schema.suite_schema()), schema.render(schema.examples_schema())
    accepted = "suite: s\ntests:\n  - {name: t, strategy: shout, min_length: 5, sources: [builtin-laptop]}\n" \
               "  - {name: c, strategy: shout+adddiff, k: 2, min_length: 3, sources: [builtin-laptop]}\n"
    assert any("shout" in e for e in errors(yaml.safe_load(accepted)))  # not yet registered

    from extensions.test_seams import SHOUT
    monkeypatch.setattr(strategies, "registry", lambda: MappingProxyType({**strategies.BUILTIN_STRATEGIES, "shout": SHOUT}))

    made = schema.suite_schema()
    assert schema.render(made) != before_suite and schema.render(schema.examples_schema()) != before_examples
    assert "shout" in made["$defs"]["strategy_test"]["properties"]["strategy"]["anyOf"][0]["enum"]
    assert "min_length" in made["$defs"]["strategy_test"]["properties"]
    assert "min_length" in made["$defs"]["defaults"]["properties"]
    assert made["$defs"]["defaults"]["properties"]["min_length"]["default"] == 4
    assert loader_error(tmp_path, accepted) == ""
    assert errors(yaml.safe_load(accepted)) == []
    refused = "suite: s\ntests:\n  - {name: t, strategy: revtgt, min_length: 3, sources: [builtin-laptop]}\n"
    assert "'min_length' only applies to shout" in loader_error(tmp_path, refused)
    assert any(e.startswith("tests.0.min_length:") for e in errors(yaml.safe_load(refused)))
    examples = EXAMPLE + "    variants: {shout: The SOUP was bland.}\n"
    assert errors(yaml.safe_load(examples), "examples") == []
    # the shipped files do not know it: the sync test would fail until scripts/build_schemas.py is run
    assert schema.shipped()[schema.SUITE_FILE] != (schema.SCHEMAS_DIR / schema.SUITE_FILE).read_text(encoding="utf-8")


def test_a_parameter_without_a_declared_schema_accepts_any_value_and_its_own_check_decides(with_shout,
                                                                                          tmp_path: Path):
    text = "suite: s\ntests:\n  - {name: t, strategy: shout, min_length: one, sources: [builtin-laptop]}\n"
    assert errors(yaml.safe_load(text)) == []  # the schema cannot know
    assert "'min_length' must be a whole number of at least 2" in loader_error(tmp_path, text)


def test_the_shipped_schema_is_loaded_by_path_as_editors_do():
    """The file an editor opens is the generated one: a misspelt key fails against it too."""
    import json

    shipped = json.loads((schema.SCHEMAS_DIR / schema.SUITE_FILE).read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(shipped)
    bad = yaml.safe_load(SUITE_HEAD + "  - name: t\n    stratgy: revtgt\n    sources: [builtin-laptop]\n")
    assert any("stratgy" in e.message for e in validator.iter_errors(bad))
    assert not list(validator.iter_errors(yaml.safe_load(VALID_SUITES["every key"])))


def undescribed(node, defs: dict, where: str = "schema") -> list[str]:
    """The keys under `node` an editor would show without a description (conditions are not keys)."""
    found = []
    if isinstance(node, dict):
        for key, value in node.get("properties", {}).items():
            target = defs[value["$ref"].split("/")[-1]] if "$ref" in value else value
            if "description" not in value and "description" not in target:
                found.append(f"{where}.{key}")
        for key, value in node.items():
            if key not in ("if", "then", "else"):  # conditions restate keys described elsewhere
                found += undescribed(value, defs, f"{where}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += undescribed(value, defs, f"{where}.{i}")
    return found


def test_every_key_has_a_description_for_editors_to_show():
    for made in (schema.suite_schema(), schema.examples_schema()):
        assert undescribed(made, made["$defs"]) == []


def _named(at: tuple) -> bool:
    """Keys that are names the user chooses (any name is one): sources, a template test's slots and gold
    keys, a lexicon's categories and word lists, the sources of a test's per-source `variants` files (a source
    name the suite defines may be any name; the loader refuses one the test does not run, with did-you-mean)."""
    return at == ("sources",) or at in (("lexicons", "aspects"), ("lexicons", "words")) or at[:2] == (
        "lexicons", "opinions") and len(at) == 3 or (len(at) == 3 and at[0] == "tests"
                                                   and at[2] in ("slots", "gold", "variant_gold")) or (
        len(at) == 4 and at[0] == "tests" and at[2] == "variants" and at[3] in ("frozen", "audited"))


def key_paths(node, at=()) -> list[tuple]:
    """The path of every key a user writes in `node`, but a name the user chooses (`_named`)."""
    found = []
    if isinstance(node, dict):
        for key, value in node.items():
            if not _named(at):
                found.append(at + (key,))
            found += key_paths(value, at + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += key_paths(value, at + (i,))
    return found


def _kind(at: tuple) -> tuple:
    """A key's place with list indices and a template test's slot names left out: `tests.#.slots.*.for`."""
    return tuple("#" if isinstance(part, int) else "*" if i == 3 and _named(at[:3]) else part
                 for i, part in enumerate(at))


def renamed(node, path: tuple, new: str):
    """A copy of `node` with the key at `path` renamed to `new` (its place kept)."""
    if len(path) == 1:
        return {(new if k == path[0] else k): v for k, v in node.items()}
    head, rest = path[0], path[1:]
    if isinstance(node, list):
        return [renamed(v, rest, new) if i == head else v for i, v in enumerate(node)]
    return {k: (renamed(v, rest, new) if k == head else v) for k, v in node.items()}


@pytest.mark.parametrize("path", SUITES + EXAMPLES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_every_key_of_a_stock_file_misspelt_is_refused_by_both(tmp_path: Path, path: Path):
    """Each key of the stock file in turn, with an 'x' appended (`strategyx`, `max_fail_ratex`, `hard=truex`,
    a variant's `revtgtx`): the loader refuses it naming the line, and the schema with an error naming it. A key
    at the same place in another list item or slot (the `template` of every test, the `for` of every slot) is
    tried once: the capability suites hold hundreds of keys of a few dozen kinds, and each try parses the file
    again."""
    which = "examples" if path in EXAMPLES else "suite"
    relative = path.relative_to(REPO)
    copy = tmp_path / relative
    copy.parent.mkdir(parents=True, exist_ok=True)
    for examples_file in EXAMPLES:  # the suites' `file:` paths stay right
        target = tmp_path / examples_file.relative_to(REPO)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(examples_file.read_bytes())
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    paths = key_paths(document)
    assert len(paths) >= 5
    kinds = {_kind(at): at for at in reversed(paths)}
    for at in sorted(kinds.values(), key=paths.index):
        wrong = f"{at[-1]}x"
        changed = renamed(document, at, wrong)
        copy.write_text(yaml.safe_dump(changed, sort_keys=False, allow_unicode=True), encoding="utf-8")
        try:
            parse_suite(copy, known_source_names()) if which == "suite" else parse_examples_file(copy, "mine")
        except SpecError as err:
            assert re.match(rf".*{re.escape(relative.name)}:\d+: ", str(err)), str(err)
        else:
            pytest.fail(f"the loader accepts {'.'.join(map(str, at))} written as {wrong!r}")
        found = errors(changed, which)
        assert any(names(wrong, error) for error in found), (at, found)


def test_the_documented_suites_and_examples_are_accepted_by_both(tmp_path: Path):
    """Every YAML block of the docs that is a whole suite (it has `tests:`) or examples file validates, and
    the loader accepts it (beside a copy of the stock examples file its `file:` names)."""
    stock = tmp_path / "suites" / "examples" / "restaurant.examples.yaml"
    stock.parent.mkdir(parents=True)
    stock.write_bytes((REPO / "suites" / "examples" / "restaurant.examples.yaml").read_bytes())
    here = tmp_path / "suites" / "directional"
    here.mkdir()
    checked = 0
    for doc in [*sorted((REPO / "docs").glob("*.md")), REPO / "README.md"]:
        for block in re.findall(r"```yaml\n(.*?)```", doc.read_text(encoding="utf-8"), re.DOTALL):
            try:
                document = yaml.safe_load(block)
            except yaml.YAMLError:  # a fragment with placeholders (docs/shards.md's CI job)
                continue
            if not isinstance(document, dict) or not ("tests" in document or set(document) == {"examples"}):
                continue
            which = "suite" if "tests" in document else "examples"
            assert errors(document, which) == [], (doc.name, block[:200])
            (here / "s.yaml").write_text(block, encoding="utf-8")
            if which == "suite":
                parse_suite(here / "s.yaml", known_source_names())
            else:
                parse_examples_file(here / "s.yaml", "mine")
            checked += 1
    assert checked >= 4
