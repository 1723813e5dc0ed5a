"""One YAML file's checks, each failure a SpecError naming the file, the line and the key (with the fix): the
helpers every reader of suite and examples files shares (absa_checks.suites.spec, examples_spec, template_parse).
"""

from __future__ import annotations

import difflib
from typing import Any

from absa_checks.common.errors import SpecError
from absa_checks.common.yaml_lines import LocatedYaml
from absa_checks.suites import strategies


class Checker:
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
            raise self.fail(at, f"{self.label(at)} must be a mapping (key: value lines), got {kind_of(value)}")
        for key in value:
            if key not in allowed:
                hint = difflib.get_close_matches(str(key), allowed, n=1)
                fix = f"did you mean '{hint[0]}'?" if hint else f"allowed keys: {', '.join(allowed)}"
                raise self.fail(at + (key,), f"unknown key '{key}' in {self.label(at)}; {fix}"
                                             f"{self.located.name_hint(at + (key,), key=True)}")
        return value

    def string(self, value: Any, at: tuple) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(at, f"'{self.name(at)}' must be a non-empty string, got {kind_of(value)}"
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
            raise self.fail(at, f"'{self.name(at)}' must be a list of names, got {kind_of(value)}"
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


def kind_of(value: Any) -> str:
    if value is None:
        return "nothing"
    kinds: dict[type, str] = {dict: "a mapping", list: "a list", str: f"the string {value!r}"}
    return kinds.get(type(value), repr(value))


def strategy_name(check: Checker, value: str, at: tuple) -> str:
    """A strategy or chain, written without spaces around '+' (`revnon + adddiff` -> `revnon+adddiff`)."""
    parts = strategies.split_chain(value)
    for part in parts:
        if part not in strategies.registry():
            hint = difflib.get_close_matches(part, tuple(strategies.registry()), n=1)
            fix = (f"did you mean '{hint[0]}'?" if hint else
                   f"use one of: {', '.join(strategies.registry())}, or a chain such as revnon+adddiff")
            step = f", whose step {part!r} is not a strategy" if len(parts) > 1 else ""
            raise check.fail(at, f"'{check.name(at)}' is {value.strip()!r}{step}; {fix}")
    repeated = [part for i, part in enumerate(parts) if part in parts[:i]]
    if repeated:  # revtgt+revtgt reverses the target back; any repeated step tests nothing its one step does not
        raise check.fail(at, f"'{check.name(at)}' is {value.strip()!r}, which names '{repeated[0]}' twice; a chain "
                             "takes each strategy once (a step repeated undoes or redoes itself, e.g. revtgt+revtgt "
                             "gives back the original): write it once, or use a parameter such as k")
    return "+".join(parts)
