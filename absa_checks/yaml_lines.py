"""Load YAML into plain Python data while remembering the line of every key and item.

Validation errors must name the file and line, and PyYAML's plain loader forgets where things
came from, so we walk the composed node tree ourselves. Duplicate keys are an error here
(PyYAML would silently keep the last one).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

from .errors import SpecError

Path_ = tuple  # a path into the data: keys and list indices, e.g. ("tests", 0, "expect")


@dataclass(frozen=True)
class LocatedYaml:
    data: Any
    lines: dict[tuple, int]  # path -> 1-based line of that key or item

    def line(self, path: tuple) -> int | None:
        """The line of `path`, or of its nearest ancestor that has one."""
        while path:
            if path in self.lines:
                return self.lines[path]
            path = path[:-1]
        return self.lines.get((), None)


def load_located(text: str, filename: str) -> LocatedYaml:
    loader = yaml.SafeLoader(text)
    try:
        try:
            node = loader.get_single_node()
        except yaml.MarkedYAMLError as err:
            mark = err.problem_mark or err.context_mark
            line = mark.line + 1 if mark else None
            problem = err.problem or err.context or "invalid YAML"
            raise SpecError(filename, line, f"invalid YAML: {problem}; fix the syntax there "
                            "(indentation, a missing ':' or an unclosed quote are the usual causes)") from None
        except yaml.YAMLError as err:
            raise SpecError(filename, None, f"invalid YAML: {err}") from None
        lines: dict[tuple, int] = {}
        data = None if node is None else _build(node, (), loader, lines, filename)
        return LocatedYaml(data, lines)
    finally:
        loader.dispose()


def _build(node: yaml.Node, path: tuple, loader: yaml.SafeLoader, lines: dict, filename: str) -> Any:
    lines[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        result: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            if not isinstance(key, (str, int, float, bool)):
                raise SpecError(filename, key_node.start_mark.line + 1, "mapping keys must be plain words")
            if key in result:
                raise SpecError(filename, key_node.start_mark.line + 1,
                                f"key '{key}' appears twice in the same mapping; keep one")
            result[key] = _build(value_node, path + (key,), loader, lines, filename)
            lines[path + (key,)] = key_node.start_mark.line + 1
        return result
    if isinstance(node, yaml.SequenceNode):
        return [_build(item, path + (i,), loader, lines, filename) for i, item in enumerate(node.value)]
    return loader.construct_object(node, deep=True)
