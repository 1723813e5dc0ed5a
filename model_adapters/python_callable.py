"""Any Python function as a model: `python:<module>:<function>`, called with a list of Query objects.

Its labels are read by name (`positive`, `NEG`, ...); numeric labels (`0`, `1`, `2`, as strings or ints)
only through the entry's `labels:` ({0: negative, 1: neutral, 2: positive}): a number is never guessed."""

from __future__ import annotations

import hashlib
import importlib
import inspect
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence, Sized
from pathlib import Path

from absa_checks.common.errors import AdapterError
from absa_checks.common.labels import label_map
from absa_checks.models.adapters import AdapterKind
from model_adapters.protocol import Answer, Query, QueryError


class PythonCallableAdapter:
    def __init__(self, target: str, base_dir: Path | None = None, labels: object = None, name: str | None = None,
                 defined_at: str = ""):
        # who named it: the models.yaml entry (file:line), or the command line's python:<module>:<function>
        where = f"model '{name}' ({defined_at})" if defined_at else f"--absa-model python:{target}"
        try:
            self.label_map = label_map(labels, f"model '{name or 'python:' + target}'")
        except ValueError as err:
            raise AdapterError(str(err)) from None
        module_name, _, function_name = target.partition(":")
        if not module_name or not function_name:
            raise AdapterError(f"python adapter target {target!r} must look like <module>:<function>, "
                               "e.g. --model python:my_models:predict")
        # a module beside the models.yaml that names it, or in the directory pytest runs from
        folders = list(dict.fromkeys(str(folder.resolve()) for folder in (base_dir or Path.cwd(), Path.cwd())))
        for folder in reversed(folders):
            if folder not in sys.path:
                sys.path.insert(0, folder)
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as err:
            if err.name != module_name.split(".")[0]:  # the module was found; something it imports was not
                raise AdapterError(f"module '{module_name}' for {where} was found but "
                                   f"could not import {err.name!r} ({err})") from None
            raise AdapterError(f"cannot import module '{module_name}' for {where}: no "
                               f"{module_name.replace('.', '/')}.py in {' or '.join(folders)} nor on sys.path; put "
                               "it there, or add its folder to PYTHONPATH") from None
        except ImportError as err:
            raise AdapterError(f"cannot import module '{module_name}' for {where} ({err})") from None
        function = getattr(module, function_name, None)
        if not hasattr(module, function_name):
            raise AdapterError(f"{where}: module '{module_name}' ({_file_of(module)}) has no function "
                               f"'{function_name}'; define it there, or name another in the target")
        if not callable(function):
            raise AdapterError(f"{where}: '{function_name}' in module {module_name} is {_a(function)}, not a function; "
                               "name the function that takes the queries and returns one answer per query")
        self.target = target
        self.name = name or f"python:{target}"
        self._shown = f"model '{self.name}'" + (f" (python:{target})" if self.name != f"python:{target}" else "")
        self._function: Callable[[list[Query]], list[Answer]] = function
        self._source = _source_bytes(module)

    def describe(self) -> dict[str, object]:
        return {"kind": "python", "target": self.target, **({"labels": self.label_map} if self.label_map else {})}

    def fingerprint(self) -> str:
        mapping = repr(sorted(self.label_map.items())).encode() if self.label_map else b""
        return hashlib.sha256(self._source + b"\0" + self.target.encode() + mapping).hexdigest()[:16]

    def predict(self, queries: Sequence[Query]) -> list[Answer]:
        returned = self._function(list(queries))
        problem = what_is_wrong(returned, len(queries))
        if problem:
            raise AdapterError(f"{self._shown} {problem}")
        return list(returned)


def what_is_wrong(returned: object, asked: int) -> str:
    """What is wrong with a python model's return value for `asked` queries, as the rest of one line after the
    model's name ("returned None for 12 queries; ..."), or "" when it is one answer per query: a list (or a
    tuple, a generator) of label names or mappings of labels to probabilities (or QueryErrors)."""
    fix = "it must return one answer per query, in order (a label name, or a mapping of labels to probabilities)"
    queries = f"{asked} quer{'y' if asked == 1 else 'ies'}"
    if returned is None:
        return f"returned None for {queries} (a missing return?); {fix}"
    if isinstance(returned, (str, bytes, Mapping)) or not isinstance(returned, Iterable):
        return f"returned {_described(returned)} for {queries}, not a list; {fix}"
    if not isinstance(returned, Sized):
        return ""  # a generator: its length and items are checked where the batch is read (predictions.py)
    if len(returned) != asked:
        return f"returned {len(returned)} answer{'' if len(returned) == 1 else 's'} for {queries}; {fix}"
    for i, answer in enumerate(returned):
        if not isinstance(answer, (str, Mapping, QueryError)) and (not isinstance(answer, int) or isinstance(answer, bool)):
            return f"returned {_described(answer)} as the answer to query {i + 1} of {asked}; {fix}"
    return ""


def _a(value: object) -> str:
    """`an int`, `a list`, `None`: what a value is, for a message."""
    if value is None:
        return "None"
    name = type(value).__name__
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"


def _described(value: object) -> str:
    """`None`, or `a dict ({'negative': 1.0})`: the value's kind and its start."""
    if value is None:
        return "None"
    shown = repr(value)
    return f"{_a(value)} ({shown if len(shown) <= 40 else shown[:37] + '...'})"


def _file_of(module: object) -> str:
    return str(getattr(module, "__file__", None) or getattr(module, "__name__", "?"))


def _source_bytes(module: object) -> bytes:
    try:
        return inspect.getsource(module).encode()  # type: ignore[arg-type]
    except (OSError, TypeError):
        return repr(module).encode()


# Registered in pyproject.toml under the entry-point group absa_checks.adapters
KIND = AdapterKind("python", keys=("target", "labels"), required=("target",),
                   build=lambda spec: PythonCallableAdapter(str(spec.settings.get("target", "")), spec.base_dir,
                                                            spec.settings.get("labels"), spec.name, spec.defined_at),
                   inline=lambda rest: {"target": rest}, inline_form="python:<module>:<function>")
