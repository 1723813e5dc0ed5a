"""Load YAML into plain Python data while remembering the line of every key and item.

Validation errors must name the file and line, and PyYAML's plain loader forgets where things
came from, so we walk the composed node tree ourselves. Duplicate keys are an error here
(PyYAML would silently keep the last one).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

from absa_checks.common.errors import SpecError

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


MAX_VALUES = 200_000  # keys and items after aliases are expanded: a suite has thousands, an alias bomb billions
_BOMS = ((b"\xef\xbb\xbf", "utf-8-sig"), (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"))


MAX_BYTES = 10_000_000  # a suite or examples file; datasets belong in data files (--absa-data, --input)


def decode(raw: bytes, filename: str) -> str:
    """A YAML file's text: UTF-8, or UTF-8/UTF-16 with a byte-order mark. Anything else is an error that
    names the file, the line and the byte, never text read as mojibake."""
    if len(raw) > MAX_BYTES:
        raise SpecError(filename, None, f"the file is {len(raw) / 1e6:.1f} MB; suite and examples files are read "
                                        f"up to {MAX_BYTES / 1e6:.0f} MB: put a large dataset in a data file instead")
    for bom, encoding in _BOMS:
        if raw.startswith(bom):
            try:
                return raw.decode(encoding)
            except UnicodeDecodeError:
                break
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw[:err.start].count(b"\n") + 1
        raise SpecError(filename, line, f"not UTF-8 text (byte 0x{raw[err.start]:02x}; Latin-1 or Windows-1252?); "
                                        "save the file as UTF-8") from None


def load_located(text: str, filename: str) -> LocatedYaml:
    loader = yaml.SafeLoader(text)
    try:
        lines: dict[tuple, int] = {}
        try:
            node = loader.get_single_node()
            data = None if node is None else _build(node, (), loader, lines, filename)
        except yaml.MarkedYAMLError as err:  # syntax, or a value PyYAML cannot build (`!tag`, bad date)
            raise _syntax_error(err, text, filename) from None
        except yaml.YAMLError as err:
            raise SpecError(filename, None, f"invalid YAML: {err}") from None
        return LocatedYaml(data, lines)
    finally:
        loader.dispose()


def _syntax_error(err: yaml.MarkedYAMLError, text: str, filename: str) -> SpecError:
    """Name the line to fix: where the problem is, or where the unfinished thing began.

    An unclosed quote or bracket is only noticed at the end of the file, past the last line;
    the line where it was opened (PyYAML's context mark) is the one to fix.
    """
    problem, context = err.problem_mark, err.context_mark
    at_end = problem is None or problem.index >= len(text.rstrip())
    mark = context if at_end and context is not None else problem or context
    line = mark.line + 1 if mark else None
    message = err.problem or err.context or "not YAML"
    if err.problem and err.context:
        started = f" on line {context.line + 1}" if context is not None and context is not mark else ""
        message += f" ({err.context}{started})"
    return SpecError(filename, line, f"invalid YAML: {message}; fix the syntax there "
                     "(indentation, a missing ':' or an unclosed quote are the usual causes)")


def _build(node: yaml.Node, path: tuple, loader: yaml.SafeLoader, lines: dict, filename: str) -> Any:
    lines[path] = node.start_mark.line + 1
    if len(lines) > MAX_VALUES:
        raise SpecError(filename, node.start_mark.line + 1, f"the YAML expands to more than {MAX_VALUES:,} keys and "
                                                            "items (aliases repeating aliases?); write it out plainly")
    if isinstance(node, yaml.MappingNode):
        result: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = _construct(key_node, loader, filename)
            if not isinstance(key, (str, int, float, bool)):
                raise SpecError(filename, key_node.start_mark.line + 1, "mapping keys must be plain words")
            if key in result:
                raise SpecError(filename, key_node.start_mark.line + 1,
                                f"key '{key}' appears twice in the same mapping (first on line "
                                f"{lines[path + (key,)]}); keep one")
            result[key] = _build(value_node, path + (key,), loader, lines, filename)
            lines[path + (key,)] = key_node.start_mark.line + 1
        return result
    if isinstance(node, yaml.SequenceNode):
        return [_build(item, path + (i,), loader, lines, filename) for i, item in enumerate(node.value)]
    return _construct(node, loader, filename)


def _construct(node: yaml.Node, loader: yaml.SafeLoader, filename: str) -> Any:
    try:
        return loader.construct_object(node, deep=True)
    except (ValueError, TypeError, OverflowError) as err:  # e.g. a date such as 2024-13-45
        raise SpecError(filename, node.start_mark.line + 1,
                        f"cannot read the value {node.value!r} ({err}); put it in quotes") from None
