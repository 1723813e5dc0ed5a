"""The adapter-kind registry (entry-point group `absa_checks.adapters`), and `--model NAME` resolved to an adapter:
a name from the models file (`${VAR}` settings from the environment, a `groups:` entry, several as `a,b,c`), or a
`kind:spec` form.

Models file (models.yaml at the repository root by default, `--absa-models PATH` to override):

    models:
      lexicon-sentence: {kind: lexicon, scope: sentence}
      mine: {kind: replay, path: preds.csv, column: my_model}

`kind:spec` forms: `replay:<path>#<column>`, `python:<module>:<function>`, `lexicon:<scope>`,
`transformers:<path or hub id>` (aspect first).
`lexicon` and `lexicon-sentence` are always known, even without a models file.

Adapter kinds: every kind, built-in or not, is an `AdapterKind` declared in its own module and registered
under the entry-point group `absa_checks.adapters` (the built-in ones in this project's pyproject.toml).
A kind's module is imported only when a model of that kind is used; the core never imports one itself.

Several checkpoints in one run: `--model a,b,c`, or a group from the models file's `groups:` section
(`groups: {bert-pt-seeds: [bert-pt-s1, bert-pt-s2, bert-pt-s3]}`), or both mixed.
"""

from __future__ import annotations

import difflib
import importlib.util
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from importlib.metadata import entry_points
from pathlib import Path
from types import MappingProxyType
from typing import Any

from absa_checks.common import domains as domains_module
from absa_checks.common import inputs
from absa_checks.common.errors import AbsaChecksError
from absa_checks.common.redaction import redact_text
from absa_checks.common.yaml_lines import LocatedYaml, decode, load_located
from absa_checks.models import claims as claims_module
from absa_checks.models.protocol import Adapter, Extractor

ENTRY_POINT_GROUP = "absa_checks.adapters"
BUILTIN_MODELS = MappingProxyType({
    "lexicon": {"kind": "lexicon", "scope": "target"},
    "lexicon-sentence": {"kind": "lexicon", "scope": "sentence"},
})
DEFAULT_MODEL = "lexicon"
TOP_LEVEL_KEYS = ("models", "groups")  # what a models file may say at its top level


@dataclass(frozen=True)
class AdapterKind:
    """One kind of model adapter: what a models.yaml entry of this kind may say, and how to build it."""

    name: str
    keys: tuple[str, ...]                       # the settings an entry may have besides `kind`
    build: Callable[[ModelSpec], Adapter | Extractor]  # cheap: heavy models load on their first prediction
    required: tuple[str, ...] = ()
    inline: Callable[[str], dict[str, Any]] | None = None  # `kind:rest` on the command line -> settings
    inline_form: str = ""                       # how that form is written, for error messages
    needs: tuple[str, ...] = ()                 # modules it imports that an optional extra installs
    extra: str = ""                             # that extra of absa-checks, named in the error when one is missing


@dataclass(frozen=True)
class ModelSpec:
    name: str
    kind: str
    settings: dict[str, Any] = field(default_factory=dict)
    base_dir: Path = Path(".")  # relative paths in the settings are relative to this
    origin: str = "built-in"
    from_env: tuple[tuple[str, str], ...] = ()  # (variable, value) taken from the environment: never shown
    claims: tuple[claims_module.Claim, ...] = ()  # published or promised numbers (absa_checks.judge.claims)
    domains: tuple[str, ...] = ()  # `domains: [restaurant]`: tested and gated only there (absa_checks.common.domains)
    defined_at: str = ""  # `models.yaml:3`, the entry's file and line; "" for a built-in or command-line model

    def redact(self, found: Any) -> Any:
        """`found` (a message, or a report's dict) with every environment value replaced by `${NAME}`, and URL
        credentials, query values and key-shaped tokens hidden (absa_checks.common.redaction.redact_text)."""
        if isinstance(found, dict):
            return {key: self.redact(value) for key, value in found.items()}
        if isinstance(found, (list, tuple)):
            return type(found)(self.redact(value) for value in found)
        if isinstance(found, str):
            for variable, value in sorted(self._env_forms(), key=lambda pair: -len(pair[1])):
                found = found.replace(value, "${" + variable + "}")
            return redact_text(found)
        return found

    def _env_forms(self) -> list[tuple[str, str]]:
        """Each environment value as given and, for a relative path, as joined to the models file's folder
        (so a path shows as `${NAME}`, not as `/the/checkout/${NAME}`)."""
        forms = []
        for variable, value in self.from_env:
            if not value:
                continue
            forms.append((variable, value))
            if not os.path.isabs(value):
                joined = self.base_dir / value
                forms += [(variable, str(joined)), (variable, os.path.normpath(joined)),
                          (variable, str(joined.resolve()))]
        return forms


def kind_names() -> tuple[str, ...]:
    """Every registered adapter kind (nothing is imported to list them)."""
    return tuple(sorted({ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)}))


def get_kind(name: str, origin: str = "--absa-model") -> AdapterKind:
    """The declaration of kind `name`, loaded from its entry point; a clear error when there is none."""
    found = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == name]
    if not found:
        known = kind_names()
        hint = difflib.get_close_matches(name, known, n=1)
        fix = f"did you mean '{hint[0]}'? " if hint else ""
        raise AbsaChecksError(f"{origin}: unknown model kind '{name}'; {fix}known kinds: {', '.join(known) or 'none'} "
                              f"(a package adds one under the entry-point group '{ENTRY_POINT_GROUP}')")
    try:
        declared = found[0].load()
    except Exception as err:  # a broken third-party package: name it, do not crash pytest
        raise AbsaChecksError(f"{origin}: the adapter kind '{name}' ({found[0].value}) cannot be loaded: "
                              f"{type(err).__name__}: {err}") from None
    if not isinstance(declared, AdapterKind) or declared.name != name:
        raise AbsaChecksError(f"{origin}: the entry point '{name}' ({found[0].value}) is not an AdapterKind named "
                              f"'{name}'")
    return declared


def resolve(name: str, models_file: Path | None, option: str = "--absa-model") -> ModelSpec:
    """The spec for `name`; raises AbsaChecksError with the fix when it is unknown, naming `option`, the
    option that gave the name (--absa-model, --absa-simple-baseline, generate's --rewriter, ...)."""
    kind, _, rest = name.partition(":")
    if rest and kind in kind_names():
        return _inline_spec(name, get_kind(kind, f"{option} {name}"), rest, option)
    entries, origin = read_models_file(models_file)
    if name in entries and models_file is not None:
        spec = _entry_spec(name, entries[name], models_file.parent, origin)
        return replace(spec, defined_at=f"{models_file}:{_located(models_file).line(('models', name))}")
    if name in BUILTIN_MODELS:
        return ModelSpec(name, BUILTIN_MODELS[name]["kind"], dict(BUILTIN_MODELS[name]))
    known = sorted(set(entries) | set(BUILTIN_MODELS))
    hint = difflib.get_close_matches(name, known, n=1)
    suggestion = f"did you mean '{hint[0]}'? " if hint else ""
    where = f"in {models_file}" if models_file and models_file.is_file() else "(no models file found)"
    inline, entry_only = inline_forms()
    only = f"; kind {', '.join(entry_only)} only as a models.yaml entry" if entry_only else ""
    raise AbsaChecksError(f"{option}: unknown model '{name}' {where}. {suggestion}Known models: "
                          f"{', '.join(known)}; or give one as kind:spec ({', '.join(inline)}), "
                          f"or add it to models.yaml{only}")


def inline_forms() -> tuple[list[str], list[str]]:
    """How each registered kind is written on the command line (`kind:spec`), and the kinds that have no such
    form (a models.yaml entry only). A kind that cannot be loaded is listed as `name:...`."""
    forms, entry_only = [], []
    for name in kind_names():
        try:
            declared = get_kind(name)
        except AbsaChecksError:
            forms.append(f"{name}:...")
            continue
        if declared.inline is not None:
            forms.append(declared.inline_form.split(",")[0] or f"{name}:...")
        else:
            entry_only.append(name)
    return forms, entry_only


@dataclass(frozen=True)
class Group:
    """A models file's group: its checkpoints, and (nested) which split each belongs to."""

    name: str
    members: tuple[str, ...]
    splits: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (split, its checkpoints); () when not nested
    claims: tuple[claims_module.Claim, ...] = ()          # numbers claimed for the mean of the group
    domains: tuple[str, ...] = ()                          # its members' domains (absa_checks.common.domains)


@dataclass(frozen=True)
class Resolved:
    """What `--model` names: the checkpoints, and the group when it names exactly one."""

    specs: list[ModelSpec]
    group: Group | None = None

    @property
    def claims(self) -> dict[str, tuple[claims_module.Claim, ...]]:
        """subject (a checkpoint, or the group for its mean) -> its claims."""
        found = {spec.name: spec.claims for spec in self.specs if spec.claims}
        if self.group is not None and self.group.claims:
            found[self.group.name] = self.group.claims
        return found


def resolve_all(option: str, models_file: Path | None) -> list[ModelSpec]:
    """The checkpoints `--model` names: comma-separated names, each a model or a group of models."""
    return resolve_run(option, models_file).specs


def resolve_run(option: str, models_file: Path | None) -> Resolved:
    """The checkpoints `--model` names, with the group's splits and claims when it names one group."""
    names = [part.strip() for part in option.split(",")]
    if any(not name for name in names):
        raise AbsaChecksError(f"--model {option!r}: an empty name between commas; write --model a,b,c")
    groups = read_groups(models_file)
    expanded: list[str] = []
    for name in names:
        expanded.extend(groups[name].members if name in groups else [name])
    repeated = sorted({name for name in expanded if expanded.count(name) > 1})
    if repeated:
        raise AbsaChecksError(f"--model {option!r}: {', '.join(repeated)} named more than once; "
                              "name each checkpoint once")
    group = groups[names[0]] if len(names) == 1 and names[0] in groups else None
    return Resolved([_with_group_domains(resolve(name, models_file), groups, models_file) for name in expanded],
                    group)


def _with_group_domains(spec: ModelSpec, groups: dict[str, Group], models_file: Path | None) -> ModelSpec:
    """A member inherits its group's `domains`; a member that declares others contradicts the group."""
    for group in groups.values():
        if not group.domains or spec.name not in group.members:
            continue
        if spec.domains and set(spec.domains) != set(group.domains):
            raise AbsaChecksError(f"{models_file}: model '{spec.name}' declares domains [{', '.join(spec.domains)}] "
                                  f"but its group '{group.name}' declares [{', '.join(group.domains)}]; a member may "
                                  "not contradict its group: give it the group's domains, or drop its own")
        spec = replace(spec, domains=group.domains)
    return spec


def read_groups(models_file: Path | None) -> dict[str, Group]:
    """The models file's `groups:`, checked, never nested in one another. A group is a list of model names,
    or a mapping with `members:` (a list) or `splits:` (split name -> list), and optionally `claims:`."""
    data = _read_yaml(models_file)
    groups = data.get("groups") or {}
    if not isinstance(groups, dict):
        raise AbsaChecksError(f"{models_file}: 'groups:' must map group names to lists of model names")
    models = data.get("models") or {}
    found = {}
    for name, raw in groups.items():
        group = _group(str(name), raw, models_file)
        if name in models or name in BUILTIN_MODELS:
            raise AbsaChecksError(f"{models_file}: '{name}' is both a model and a group; rename one")
        nested = [m for m in group.members if m in groups]
        if nested:
            raise AbsaChecksError(f"{models_file}: group '{name}' names the group(s) {', '.join(nested)}; "
                                  "list their models instead (groups do not nest)")
        found[str(name)] = group
    return found


def _names(raw: Any) -> bool:
    return isinstance(raw, list) and bool(raw) and all(isinstance(m, str) for m in raw)


def _group(name: str, raw: Any, models_file: Path | None) -> Group:
    where = f"{models_file}: group '{name}'"
    if _names(raw):
        return Group(name, tuple(raw))
    if not isinstance(raw, dict) or ("members" in raw) == ("splits" in raw):
        raise AbsaChecksError(f"{where} must be a non-empty list of model names, e.g. [bert-pt-s1, bert-pt-s2], "
                              "or a mapping with members: [...] or splits: {split-1: [...], split-2: [...]}")
    unknown = sorted(set(map(str, raw)) - {"members", "splits", "claims", "domains"})
    if unknown:
        hint = difflib.get_close_matches(unknown[0], ["members", "splits", "claims", "domains"], n=1)
        fix = f" (did you mean '{hint[0]}'?)" if hint else ""
        raise AbsaChecksError(f"{where}: unknown key(s) {', '.join(unknown)}{fix}; a group takes members or splits, "
                              "and claims and domains")
    group_claims = claims_module.parse(raw["claims"], name, str(models_file)) if "claims" in raw else ()
    group_domains = _domains(raw["domains"], where) if "domains" in raw else ()
    if "members" in raw:
        if not _names(raw["members"]):
            raise AbsaChecksError(f"{where}: members must be a non-empty list of model names")
        return Group(name, tuple(raw["members"]), (), group_claims, group_domains)
    splits = raw["splits"]
    if not isinstance(splits, dict) or not splits or not all(_names(m) for m in splits.values()):
        raise AbsaChecksError(f"{where}: splits must map split names to non-empty lists of model names, "
                              "e.g. {split-1: [s1-seed1, s1-seed2], split-2: [s2-seed1, s2-seed2]}")
    layout = tuple((str(split), tuple(members)) for split, members in splits.items())
    return Group(name, tuple(m for _, members in layout for m in members), layout, group_claims, group_domains)


def _domains(raw: Any, where: str) -> tuple[str, ...]:
    try:
        return domains_module.parse(raw, where)
    except ValueError as err:
        raise AbsaChecksError(str(err)) from None


def _inline_spec(name: str, kind: AdapterKind, rest: str, option: str) -> ModelSpec:
    if kind.inline is None:
        raise AbsaChecksError(f"{option} {name}: models of kind '{kind.name}' have no command-line form; "
                              "name one from models.yaml")
    try:
        settings = kind.inline(rest)
    except ValueError as err:
        raise AbsaChecksError(f"{option} {name}: {err}; write {kind.inline_form}") from None
    return ModelSpec(name, kind.name, {"kind": kind.name, **settings}, Path.cwd(), "command line")


def _read_yaml(models_file: Path | None) -> dict[str, Any]:
    if models_file is None or not (models_file.is_file() or models_file.exists()):
        return {}
    located = _located(models_file)
    data = located.data or {}
    return data if isinstance(data, dict) else {"models": None}


def _located(models_file: Path) -> LocatedYaml:
    """The models file read with the line of every key, checked: its top-level keys, and model and group names
    that are strings."""
    # yaml_lines, not yaml.safe_load: a model, group or setting given twice is an error naming both lines
    # (PyYAML would silently keep the last one, so another model than the one written first would run)
    try:
        raw = inputs.read_bytes(models_file)
    except OSError as err:
        raise AbsaChecksError(f"{models_file}: cannot be read ({err.strerror})") from None
    located = load_located(decode(raw, str(models_file)), str(models_file))
    data = located.data or {}
    if not isinstance(data, dict):
        return located
    unknown = [key for key in data if key not in TOP_LEVEL_KEYS]
    if unknown:  # a misspelt `groups:` would otherwise drop every group without a word
        key = unknown[0]
        hint = difflib.get_close_matches(str(key), TOP_LEVEL_KEYS, n=1)
        fix = f"did you mean '{hint[0]}'? " if hint else ""
        raise AbsaChecksError(f"{models_file}:{located.line((key,))}: unknown top-level key '{redact_text(str(key))}'; "
                              f"{fix}a models file has {' and '.join(TOP_LEVEL_KEYS)} (settings go inside a model's "
                              "entry)")
    for section in TOP_LEVEL_KEYS:  # `yes:` is YAML's true, `null:` nothing, `1:` a number: never a name
        found = located.not_a_name((section,), f"the {section[:-1]} name") if isinstance(data.get(section), dict) \
            else None
        if found is not None:
            raise AbsaChecksError(f"{models_file}:{found[0]}: {found[1]}")
    return located


def read_models_file(models_file: Path | None) -> tuple[dict[str, Any], str]:
    if models_file is None or not models_file.is_file():
        return {}, "built-in"
    data = _read_yaml(models_file)
    models = data.get("models")
    if not isinstance(models, dict):
        raise AbsaChecksError(f"{models_file}: expected a top-level 'models:' mapping of model names to settings")
    return models, str(models_file)


def _entry_spec(name: str, entry: Any, base_dir: Path, origin: str) -> ModelSpec:
    if not isinstance(entry, dict) or "kind" not in entry:
        raise AbsaChecksError(f"{origin}: model '{name}' needs a mapping with 'kind' ({', '.join(kind_names())})")
    kind = get_kind(str(entry["kind"]), f"{origin}: model '{name}'")
    entry = dict(entry)
    claimed = claims_module.parse(entry.pop("claims"), name, origin) if "claims" in entry else ()
    declared = _domains(entry.pop("domains"), f"{origin}: model '{name}'") if "domains" in entry else ()
    unknown = sorted(set(entry) - set(kind.keys) - {"kind"})
    if unknown:
        hint = difflib.get_close_matches(str(unknown[0]), [*kind.keys, "claims", "domains"], n=1)
        fix = f" (did you mean '{hint[0]}'?)" if hint else ""
        raise AbsaChecksError(f"{origin}: model '{name}': unknown setting(s) "
                              f"{redact_text(', '.join(map(str, unknown)))}; "
                              f"{kind.name} models take {', '.join(kind.keys)}, claims and domains{fix}")
    missing = [key for key in kind.required if key not in entry]
    if missing:
        raise AbsaChecksError(f"{origin}: model '{name}' needs '{missing[0]}' ({kind.name} models need "
                              f"{', '.join(kind.required)})")
    settings = {key: _expand_env(value, name, key, origin) for key, value in entry.items()}
    used = sorted({(var, os.environ[var]) for value in entry.values() if isinstance(value, str)
                   for var in _ENV.findall(value)})
    return ModelSpec(name, kind.name, settings, base_dir, origin, tuple(used), claimed, declared)


_ENV = re.compile(r"\$\{(\w+)\}")


def _expand_env(value: Any, model: str, key: str, origin: str) -> Any:
    """`${VAR}` in a string setting comes from the environment; an unset variable is a clear error."""
    if not isinstance(value, str):
        return value

    def substitute(match: re.Match) -> str:
        variable = match.group(1)
        if not os.environ.get(variable):  # unset, or empty (which would quietly mean "here")
            state = "empty" if variable in os.environ else "not set"
            raise AbsaChecksError(f"model '{model}' ({origin}) takes its {key} from the environment variable "
                                  f"{variable}, which is {state}; export {variable}=... before running")
        return os.environ[variable]

    return _ENV.sub(substitute, value)


def build(spec: ModelSpec) -> Adapter | Extractor:
    """Construct the adapter (cheap: heavy models load lazily on first prediction)."""
    try:
        kind = get_kind(spec.kind, f"model '{spec.name}'")
        check_installed(spec.name, kind)
        return kind.build(spec)
    except AbsaChecksError as err:
        raise AbsaChecksError(spec.redact(str(err))) from None


def missing_modules(modules: tuple[str, ...]) -> list[str]:
    """Those of `modules` that cannot be imported here (found without importing them: torch takes seconds)."""
    missing = []
    for module in modules:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):  # a broken or half-removed installation
            found = False
        if not found:
            missing.append(module)
    return missing


def check_installed(name: str, kind: AdapterKind) -> None:
    """Before the run, one line naming the extra to install when a module the kind needs is missing
    (not an import error in every case)."""
    missing = missing_modules(kind.needs)
    if missing:
        what = ", ".join(missing)
        where = " (the README's Transformer models)" if kind.extra == "transformers" else ""
        fix = (f"pip install -e '.[{kind.extra}]' in a checkout, or pip install 'absa-checks[{kind.extra}]'"
               f"{where}") if kind.extra else f"install {what}"
        raise AbsaChecksError(f"model '{name}' (kind {kind.name}) needs {what}, not installed here: {fix}")
