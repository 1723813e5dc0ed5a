"""Load YAML into plain Python data while remembering the line of every key and item.

Validation errors must name the file and line, and PyYAML's plain loader forgets where things
came from, so we walk the composed node tree ourselves. Duplicate keys are an error here
(PyYAML would silently keep the last one).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import Any

import yaml

from absa_checks.common.errors import SpecError

Path_ = tuple  # a path into the data: keys and list indices, e.g. ("tests", 0, "expect")


@dataclass(frozen=True)
class LocatedYaml:
    data: Any
    lines: dict[tuple, int]  # path -> 1-based line of that key or item
    # a name written bare that YAML reads as no string (`yes` is true, `null` nothing, `1` a number), as written:
    # keys by the path of their value, values by their path
    written_keys: dict[tuple, str] = field(default_factory=dict)
    written_values: dict[tuple, str] = field(default_factory=dict)

    def name_hint(self, path: tuple, key: bool = False) -> str:
        """For a name at `path` that YAML read as no string: `; the name yes is read by YAML as true; quote it:
        'yes'` (with the colon for a key), or "" when it was a string, or quoted."""
        written = (self.written_keys if key else self.written_values).get(path)
        if written is None:
            return ""
        value = path[-1] if key else self._value(path)
        return "; " + quote_hint(written, value, key)

    def not_a_name(self, path: tuple, what: str = "the name") -> tuple[int | None, str] | None:
        """The first key of the mapping at `path` that YAML read as no string (`yes:`, `1:`), as (line, the
        message: quote it); None when every key is a string."""
        mapping = self._value(path)
        for key in mapping if isinstance(mapping, dict) else ():
            if not isinstance(key, str):
                written = self.written_keys.get(path + (key,), str(key))
                return self.line(path + (key,)), quote_hint(written, key, True, what)
        return None

    def _value(self, path: tuple) -> Any:
        """The data at `path`, or None where there is none (a key the file does not have)."""
        found = self.data
        for step in path:
            try:
                found = found[step]
            except (KeyError, IndexError, TypeError):
                return None
        return found

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


def quote_hint(written: str, value: Any, key: bool = False, what: str = "the name") -> str:
    """`the name yes is read by YAML as true; quote it: 'yes':` for a bare name YAML reads as no string."""
    return f"{what} {written} is read by YAML as {_yaml_kind(value)}; quote it: '{written}'{':' if key else ''}"


def _yaml_kind(value: Any) -> str:
    if value is None:
        return "null (no value)"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, datetime.datetime):
        return "a date and time"
    if isinstance(value, datetime.date):
        return "a date"
    return f"the number {value!r}" if isinstance(value, (int, float)) else f"a {type(value).__name__}"


@dataclass
class _Built:
    """What the walk collects beside the data: lines, and the bare names YAML read as no string."""

    lines: dict[tuple, int] = field(default_factory=dict)
    written_keys: dict[tuple, str] = field(default_factory=dict)
    written_values: dict[tuple, str] = field(default_factory=dict)


def _bare(node: yaml.Node, value: Any) -> bool:
    """A plain (unquoted, untagged) scalar that YAML read as no string: a name the user may have meant."""
    return (isinstance(node, yaml.ScalarNode) and not node.style and node.value != ""  # plain: None, or '' from libyaml
            and not isinstance(value, str) and not node.tag.startswith("!"))


def load_located(text: str, filename: str) -> LocatedYaml:
    """The data with the line of every key and item. Read by libyaml when PyYAML has it (several times faster:
    the suites are read on every run); a file it refuses, or that our checks refuse, is read again by PyYAML's
    own loader, so every message and line is the one that loader gives."""
    fast = getattr(yaml, "CSafeLoader", None)
    if fast is not None:
        try:
            return _load_located(text, filename, fast)
        except (yaml.YAMLError, SpecError):
            pass
    return _load_located(text, filename, yaml.SafeLoader)


def _load_located(text: str, filename: str, loader_class: Any) -> LocatedYaml:
    loader = loader_class(text)
    try:
        built = _Built()
        lines = built.lines
        try:
            node = loader.get_single_node()
            data = None if node is None else _build(node, (), loader, built, filename)
        except yaml.MarkedYAMLError as err:  # syntax, or a value PyYAML cannot build (`!tag`, bad date)
            raise _syntax_error(err, text, filename) from None
        except yaml.YAMLError as err:
            raise SpecError(filename, None, f"invalid YAML: {err}") from None
        return LocatedYaml(data, lines, built.written_keys, built.written_values)
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


def _build(node: yaml.Node, path: tuple, loader: yaml.SafeLoader, built: _Built, filename: str) -> Any:
    lines = built.lines
    lines[path] = node.start_mark.line + 1
    if len(lines) > MAX_VALUES:
        raise SpecError(filename, node.start_mark.line + 1, f"the YAML expands to more than {MAX_VALUES:,} keys and "
                                                            "items (aliases repeating aliases?); write it out plainly")
    if isinstance(node, yaml.MappingNode):
        result: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = _construct(key_node, loader, filename)
            if not isinstance(key, (str, int, float, bool)):
                fix = f"; {quote_hint(key_node.value, key, True)}" if _bare(key_node, key) else ""
                raise SpecError(filename, key_node.start_mark.line + 1, f"mapping keys must be plain words{fix}")
            if key in result:
                raise SpecError(filename, key_node.start_mark.line + 1,
                                f"key '{key}' appears twice in the same mapping (first on line "
                                f"{lines[path + (key,)]}); keep one")
            result[key] = _build(value_node, path + (key,), loader, built, filename)
            lines[path + (key,)] = key_node.start_mark.line + 1
            if _bare(key_node, key):
                built.written_keys[path + (key,)] = key_node.value
        return result
    if isinstance(node, yaml.SequenceNode):
        return [_build(item, path + (i,), loader, built, filename) for i, item in enumerate(node.value)]
    value = _construct(node, loader, filename)
    if _bare(node, value):
        built.written_values[path] = node.value
    return value


def _construct(node: yaml.Node, loader: yaml.SafeLoader, filename: str) -> Any:
    try:
        return loader.construct_object(node, deep=True)
    except (ValueError, TypeError, OverflowError) as err:  # e.g. a date such as 2024-13-45
        raise SpecError(filename, node.start_mark.line + 1,
                        f"cannot read the value {node.value!r} ({err}); put it in quotes") from None
