"""Any Python function as a model: `python:<module>:<function>`, called with a list of Query objects.

Its labels are read by name (`positive`, `NEG`, ...); numeric labels (`0`, `1`, `2`, as strings or ints)
only through the entry's `labels:` ({0: negative, 1: neutral, 2: positive}): a number is never guessed."""

from __future__ import annotations

import hashlib
import importlib
import inspect
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from absa_checks.common.errors import AdapterError
from absa_checks.common.labels import label_map
from absa_checks.models.adapters import AdapterKind
from model_adapters.protocol import Answer, Query


class PythonCallableAdapter:
    def __init__(self, target: str, base_dir: Path | None = None, labels: object = None, name: str | None = None):
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
                raise AdapterError(f"module '{module_name}' for --absa-model python:{target} was found but "
                                   f"could not import {err.name!r} ({err})") from None
            raise AdapterError(f"cannot import module '{module_name}' for --absa-model python:{target}: no "
                               f"{module_name.replace('.', '/')}.py in {' or '.join(folders)} nor on sys.path; put "
                               "it there, or add its folder to PYTHONPATH") from None
        except ImportError as err:
            raise AdapterError(f"cannot import module '{module_name}' for --absa-model python:{target} ({err})") from None
        function = getattr(module, function_name, None)
        if not callable(function):
            raise AdapterError(f"module '{module_name}' has no function '{function_name}' for --model python:{target}")
        self.target = target
        self.name = name or f"python:{target}"
        self._function: Callable[[list[Query]], list[Answer]] = function
        self._source = _source_bytes(module)

    def describe(self) -> dict[str, object]:
        return {"kind": "python", "target": self.target, **({"labels": self.label_map} if self.label_map else {})}

    def fingerprint(self) -> str:
        mapping = repr(sorted(self.label_map.items())).encode() if self.label_map else b""
        return hashlib.sha256(self._source + b"\0" + self.target.encode() + mapping).hexdigest()[:16]

    def predict(self, queries: Sequence[Query]) -> list[Answer]:
        return list(self._function(list(queries)))


def _source_bytes(module: object) -> bytes:
    try:
        return inspect.getsource(module).encode()  # type: ignore[arg-type]
    except (OSError, TypeError):
        return repr(module).encode()


# Registered in pyproject.toml under the entry-point group absa_checks.adapters
KIND = AdapterKind("python", keys=("target", "labels"), required=("target",),
                   build=lambda spec: PythonCallableAdapter(str(spec.settings.get("target", "")), spec.base_dir,
                                                            spec.settings.get("labels"), spec.name),
                   inline=lambda rest: {"target": rest}, inline_form="python:<module>:<function>")
