"""Resolve `--model NAME` to an adapter: a name from the models file, or a `kind:spec` form.

Models file (models.yaml at the repository root by default, `--absa-models PATH` to override):

    models:
      lexicon-sentence: {kind: lexicon, scope: sentence}
      mine: {kind: replay, path: preds.csv, column: my_model}

`kind:spec` forms: `replay:<path>#<column>`, `python:<module>:<function>`, `lexicon:<scope>`,
`transformers:<path or hub id>` (aspect first).
`lexicon` and `lexicon-sentence` are always known, even without a models file.

Several checkpoints in one run: `--model a,b,c`, or a group from the models file's `groups:` section
(`groups: {bert-pt-seeds: [bert-pt-s1, bert-pt-s2, bert-pt-s3]}`), or both mixed.
"""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import yaml

from absa_checks.errors import AbsaChecksError

from .protocol import Adapter

BUILTIN_MODELS: dict[str, dict[str, Any]] = {
    "lexicon": {"kind": "lexicon", "scope": "target"},
    "lexicon-sentence": {"kind": "lexicon", "scope": "sentence"},
}
DEFAULT_MODEL = "lexicon"
KIND_KEYS: dict[str, tuple[str, ...]] = {
    "lexicon": ("scope",),
    "replay": ("path", "column"),
    "python": ("target",),
    "transformers": ("path", "input", "labels", "device", "dtype", "max_length", "revision"),
}


@dataclass(frozen=True)
class ModelSpec:
    name: str
    kind: str
    settings: dict[str, Any] = field(default_factory=dict)
    base_dir: Path = Path(".")  # relative paths in the settings are relative to this
    origin: str = "built-in"


def resolve(name: str, models_file: Path | None) -> ModelSpec:
    """The spec for `name`; raises AbsaChecksError with the fix when it is unknown."""
    kind, _, rest = name.partition(":")
    if rest and kind in KIND_KEYS:
        return _inline_spec(name, kind, rest)
    entries, origin = read_models_file(models_file)
    if name in entries:
        return _entry_spec(name, entries[name], models_file.parent if models_file else Path("."), origin)
    if name in BUILTIN_MODELS:
        return ModelSpec(name, BUILTIN_MODELS[name]["kind"], dict(BUILTIN_MODELS[name]))
    known = sorted(set(entries) | set(BUILTIN_MODELS))
    hint = difflib.get_close_matches(name, known, n=1)
    suggestion = f"did you mean '{hint[0]}'? " if hint else ""
    where = f"in {models_file}" if models_file and models_file.is_file() else "(no models file found)"
    raise AbsaChecksError(f"--model: unknown model '{name}' {where}. {suggestion}Known models: {', '.join(known)}; "
                          "or give one as replay:<path>#<column>, python:<module>:<function>, or add it to models.yaml")


def resolve_all(option: str, models_file: Path | None) -> list[ModelSpec]:
    """The checkpoints `--model` names: comma-separated names, each a model or a group of models."""
    names = [part.strip() for part in option.split(",")]
    if any(not name for name in names):
        raise AbsaChecksError(f"--model {option!r}: an empty name between commas; write --model a,b,c")
    groups = read_groups(models_file)
    expanded: list[str] = []
    for name in names:
        expanded.extend(groups.get(name, [name]))
    repeated = sorted({name for name in expanded if expanded.count(name) > 1})
    if repeated:
        raise AbsaChecksError(f"--model {option!r}: {', '.join(repeated)} named more than once; "
                              "name each checkpoint once")
    return [resolve(name, models_file) for name in expanded]


def read_groups(models_file: Path | None) -> dict[str, list[str]]:
    """The models file's `groups:` (name -> list of model names); checked, never nested."""
    data = _read_yaml(models_file)
    groups = data.get("groups") or {}
    if not isinstance(groups, dict):
        raise AbsaChecksError(f"{models_file}: 'groups:' must map group names to lists of model names")
    models = data.get("models") or {}
    for name, members in groups.items():
        if not isinstance(members, list) or not members or not all(isinstance(m, str) for m in members):
            raise AbsaChecksError(f"{models_file}: group '{name}' must be a non-empty list of model names, "
                                  "e.g. [bert-pt-s1, bert-pt-s2]")
        if name in models or name in BUILTIN_MODELS:
            raise AbsaChecksError(f"{models_file}: '{name}' is both a model and a group; rename one")
        nested = [m for m in members if m in groups]
        if nested:
            raise AbsaChecksError(f"{models_file}: group '{name}' names the group(s) {', '.join(nested)}; "
                                  "list their models instead (groups do not nest)")
    return {str(name): list(members) for name, members in groups.items()}


def _inline_spec(name: str, kind: str, rest: str) -> ModelSpec:
    if kind == "replay":
        path, sep, column = rest.rpartition("#")
        if not sep or not path or not column:
            raise AbsaChecksError(f"--model {name}: write replay:<path>#<column>, e.g. "
                                  "replay:output/laptop_results.csv#bert_pt")
        return ModelSpec(name, kind, {"path": path, "column": column}, Path.cwd(), "command line")
    if kind == "python":
        return ModelSpec(name, kind, {"target": rest}, Path.cwd(), "command line")
    if kind == "transformers":
        return ModelSpec(name, kind, {"path": rest}, Path.cwd(), "command line")
    return ModelSpec(name, kind, {"scope": rest}, Path.cwd(), "command line")


def _read_yaml(models_file: Path | None) -> dict[str, Any]:
    if models_file is None or not models_file.is_file():
        return {}
    try:
        data = yaml.safe_load(models_file.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        line = f":{mark.line + 1}" if mark else ""
        raise AbsaChecksError(f"{models_file}{line}: invalid YAML ({getattr(err, 'problem', err)}); fix the syntax") from None
    return data if isinstance(data, dict) else {"models": None}


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
        raise AbsaChecksError(f"{origin}: model '{name}' needs a mapping with 'kind' ({', '.join(KIND_KEYS)})")
    kind = entry["kind"]
    if kind not in KIND_KEYS:
        raise AbsaChecksError(f"{origin}: model '{name}' has unknown kind '{kind}'; use one of {', '.join(KIND_KEYS)}")
    settings = {key: _expand_env(value, name, key, origin) for key, value in entry.items()}
    return ModelSpec(name, kind, settings, base_dir, origin)


_ENV = re.compile(r"\$\{(\w+)\}")


def _expand_env(value: Any, model: str, key: str, origin: str) -> Any:
    """`${VAR}` in a string setting comes from the environment; an unset variable is a clear error."""
    if not isinstance(value, str):
        return value

    def substitute(match: re.Match) -> str:
        variable = match.group(1)
        if variable not in os.environ:
            raise AbsaChecksError(f"model '{model}' ({origin}) takes its {key} from the environment variable "
                                  f"{variable}, which is not set; export {variable}=... before running")
        return os.environ[variable]

    return _ENV.sub(substitute, value)


def build(spec: ModelSpec) -> Adapter:
    """Construct the adapter (cheap: heavy models load lazily on first prediction)."""
    factory = _FACTORIES[spec.kind]
    return factory(spec)


def _lexicon(spec: ModelSpec) -> Adapter:
    from .lexicon import LexiconAdapter

    try:
        return LexiconAdapter(scope=spec.settings.get("scope", "target"))
    except ValueError as err:
        raise AbsaChecksError(f"model '{spec.name}': {err}") from None


def _replay(spec: ModelSpec) -> Adapter:
    from .replay import ReplayAdapter

    for key in ("path", "column"):
        if key not in spec.settings:
            raise AbsaChecksError(f"model '{spec.name}' ({spec.origin}) needs '{key}'")
    return ReplayAdapter(spec.base_dir / str(spec.settings["path"]), str(spec.settings["column"]))


def _python(spec: ModelSpec) -> Adapter:
    from .python_callable import PythonCallableAdapter

    return PythonCallableAdapter(str(spec.settings.get("target", "")))


def _transformers(spec: ModelSpec) -> Adapter:
    from .transformers_adapter import TransformersAdapter

    settings = dict(spec.settings)
    unknown = sorted(set(settings) - set(KIND_KEYS["transformers"]) - {"kind"})
    if unknown:
        raise AbsaChecksError(f"model '{spec.name}' ({spec.origin}): unknown setting(s) {', '.join(unknown)}; "
                              f"transformers models take {', '.join(KIND_KEYS['transformers'])}")
    if "path" not in settings:
        raise AbsaChecksError(f"model '{spec.name}' ({spec.origin}) needs 'path': a checkpoint folder or a hub id")
    path = str(settings.pop("path"))
    local = spec.base_dir / path
    if not path.startswith(("/", "~")) and local.exists():
        path = str(local)
    settings.pop("kind", None)
    return TransformersAdapter(spec.name, path, **settings)


_FACTORIES: dict[str, Callable[[ModelSpec], Adapter]] = {"lexicon": _lexicon, "replay": _replay, "python": _python,
                                                         "transformers": _transformers}
