"""Which YAML files are absa-checks suites: decided on the text as a YAML reader sees it, so a suite is
never skipped for its byte-order mark, line ends, comments or spacing, and a file that looks like a suite
but cannot be read as one is an error, never silently left out.

- a suite: a top-level `suite:` key (any line; after a UTF-8 or UTF-16 byte-order mark, comments, a `---`
  document start, CRLF line ends, `suite :` or a quoted `"suite":`, or inside a flow mapping `{suite: x}`);
- suite-like (collected, so that its mistake is shown): the first key is a near miss of `suite`
  (`Suite:`, `suit:`, `suites:`, an indented ` suite:`, `suite:x` without the space), or the file lies in a
  folder named `suites` and is neither an examples file (top-level `examples:`) nor a models file (`models:`);
- anything else (docker-compose.yml, CI files, configs with `tests:` of their own) is not absa-checks'
  business, unless it was named on the command line.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from absa_checks.common import inputs

SUFFIXES = (".yaml", ".yml")
OTHER_OWN_FILES = {"examples", "models", "groups"}  # absa-checks' examples files and models files
HEAD_BYTES = 1_000_000  # enough to find a top-level key; a suite over 10 MB is refused by spec anyway
_KEY = re.compile(r"""^(?:---[ \t]+)?[ \t]*(["']?)([^\s"':{}\[\]#,]+)\1[ \t]*:(?:[ \t]|$)""")
_FLOW_SUITE = re.compile(r"""[{,][ \t]*(["']?)suite\1[ \t]*:(?:[ \t]|$)""", re.MULTILINE)


@dataclass(frozen=True)
class YamlKind:
    kind: str     # "suite", "suite-like" or "other"
    why: str = ""  # for a suite-like file: why it is taken for one


def is_yaml(path: Path) -> bool:
    return path.suffix.lower() in SUFFIXES


def text_of(raw: bytes) -> str:
    """The text, enough to look for keys: a byte-order mark read as one, UTF-16 without one recognised by
    its zero bytes, anything else as UTF-8 with undecodable bytes replaced (spec.decode says which)."""
    if raw.startswith(b"\xef\xbb\xbf"):
        return raw[3:].decode("utf-8", "replace")
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return raw.decode("utf-16", "replace")
    if b"\x00" in raw[:200]:
        even_zeros = raw[0:200:2].count(0) > raw[1:200:2].count(0)
        return raw.decode("utf-16-be" if even_zeros else "utf-16-le", "replace")
    return raw.decode("utf-8", "replace")


def _content_lines(text: str) -> list[str]:
    """Lines that can hold a key: not blank, not a comment, not a directive or document marker."""
    found = []
    for line in text.splitlines():
        bare = line.strip()
        if not bare or bare.startswith(("#", "%")) or bare in ("---", "..."):
            continue
        found.append(line)
    return found


def top_level_keys(text: str) -> list[str]:
    """The keys of the top-level mapping (lines that start in column 0, or the first line's flow mapping)."""
    lines = _content_lines(text)
    keys = []
    for line in lines:
        if line[:1] in (" ", "\t"):
            continue
        match = _KEY.match(line)
        if match:
            keys.append(match.group(2))
    if lines and lines[0].lstrip("- \t").startswith("{") and _FLOW_SUITE.search(text):
        keys.append("suite")
    return keys


def classify(path: Path, rootdir: Path) -> YamlKind:
    """Whether `path` is a suite, looks like one (so it must read as one), or is some other YAML."""
    try:
        inputs.check_regular(path)  # a FIFO named *.yaml would block the collection
        with path.open("rb") as stream:
            text = text_of(stream.read(HEAD_BYTES))
    except inputs.NotARegularFile as err:
        return YamlKind("suite-like", f"{path}: {err}")
    except OSError:
        return YamlKind("other")
    keys = top_level_keys(text)
    if "suite" in keys:
        return YamlKind("suite")
    lines = _content_lines(text)
    first = _KEY.match(lines[0]) if lines else None
    if lines and first is None and lines[0].strip().lower().startswith("suite"):
        return YamlKind("suite-like", "its first line starts with 'suite' but is not a 'suite: NAME' key")
    if first is not None:
        name = first.group(2)
        if lines[0][:1] in (" ", "\t") and name == "suite":
            return YamlKind("suite-like", "its 'suite:' key is indented; a suite's keys start at the beginning "
                                          "of the line")
        low = name.lower()  # `Suite`, `suites`, `suit`, `sutie`; not `site` (an Antora playbook's first key)
        if name != "suite" and low.startswith("su") and difflib.get_close_matches(low, ["suite"], n=1, cutoff=0.75):
            return YamlKind("suite-like", f"its first key is '{name}'; did you mean 'suite'?")
    if _in_suites_folder(path, rootdir) and not set(keys) & OTHER_OWN_FILES:
        return YamlKind("suite-like", "it is in a 'suites' folder and is neither an examples file (top-level "
                                      "'examples:') nor a models file ('models:')")
    return YamlKind("other")


def _in_suites_folder(path: Path, rootdir: Path) -> bool:
    try:
        parts = path.resolve().relative_to(rootdir.resolve()).parts[:-1]
    except ValueError:
        parts = path.parts[:-1]
    return "suites" in parts
