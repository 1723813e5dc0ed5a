"""A test's `variants:` in a suite file, read and validated: a mode (auto, given, generated), or reviewed
candidates files, `{frozen: FILE}` for every source or per source `{frozen: {SOURCE: FILE}, audited: {SOURCE: FILE},
otherwise: MODE}`, each relative to the suite file and checked to exist (docs/suites.md, "Frozen variants").
Every error names the file, the line and the key.
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from absa_checks.suites.yaml_checks import Checker

VARIANT_MODES = ("auto", "given", "generated")
# `variants: {frozen: FILE}`: a reviewed candidates file for every source, or per source `{frozen: {source: FILE},
# audited: {source: FILE}, otherwise: auto}` (docs/suites.md, "Frozen variants")
FROZEN_KEYS = ("frozen", "audited", "otherwise")


@dataclass(frozen=True)
class VariantFiles:
    """A test's `variants:` mapping, read: the single frozen file (path, as shown) or none, the per-source
    frozen and audited files ((source, path, as shown), ...), and the mode of the other sources."""

    frozen: tuple[str, str] = ("", "")
    frozen_sources: tuple[tuple[str, str, str], ...] = ()
    audited_sources: tuple[tuple[str, str, str], ...] = ()
    otherwise: str = "auto"

    @property
    def any(self) -> bool:
        return bool(self.frozen[0] or self.frozen_sources or self.audited_sources)


def parse_variants(check: Checker, raw: Any, at: tuple, folder: Path, shown: str,
                   sources: tuple[str, ...]) -> tuple[str, VariantFiles]:
    """A test's `variants:` as written (on the test or under `defaults:`; "auto" when neither sets it): the mode
    it runs ("frozen" for one reviewed file for every source, else the mode written, or `otherwise`) and its
    reviewed files."""
    if not isinstance(raw, dict):
        return check.choice(raw, at, VARIANT_MODES), VariantFiles()
    files = _variant_files(check, raw, at, folder, shown, sources)
    return ("frozen" if files.frozen[0] else files.otherwise), files


def _variant_files(check: Checker, raw: dict, at: tuple, folder: Path, shown: str,
                   sources: tuple[str, ...]) -> VariantFiles:
    """`variants: {frozen: FILE}` (every source), or per source `{frozen: {source: FILE}, audited: {source: FILE},
    otherwise: auto|given|generated}`; files relative to the suite file."""
    body = check.mapping(raw, at, FROZEN_KEYS)
    if "frozen" not in body and "audited" not in body:
        raise check.fail(at, "'variants' as a mapping names reviewed files: {frozen: FILE}, or per source "
                             "{frozen: {SOURCE: FILE}, audited: {SOURCE: FILE}, otherwise: auto} (docs/suites.md)")
    otherwise = check.choice(body["otherwise"], at + ("otherwise",), VARIANT_MODES) if "otherwise" in body \
        else "auto"
    if not isinstance(body.get("frozen"), dict) and "frozen" in body:  # the single file: every source
        if "audited" in body:
            raise check.fail(at + ("audited",), f"'{check.name(at + ('frozen',))}' names one file for every source "
                                                "of the test, so no source is left to audit: name the frozen file "
                                                "per source (frozen: {SOURCE: FILE}) to use 'audited' too")
        return VariantFiles(_frozen_file(check, body["frozen"], at + ("frozen",), folder, shown),
                            otherwise=otherwise)
    frozen = _per_source(check, body.get("frozen"), at + ("frozen",), folder, shown, sources)
    audited = _per_source(check, body.get("audited"), at + ("audited",), folder, shown, sources)
    for source, _, _ in audited:
        if any(source == name for name, _, _ in frozen):
            raise check.fail(at + ("audited", source), f"source '{source}' is under both 'frozen' and 'audited'; "
                                                       "a source runs either a reviewed file (frozen) or its own "
                                                       "variants with their audit (audited): keep one")
    return VariantFiles(frozen_sources=frozen, audited_sources=audited, otherwise=otherwise)


def _per_source(check: Checker, raw: Any, at: tuple, folder: Path, shown: str,
                sources: tuple[str, ...]) -> tuple[tuple[str, str, str], ...]:
    """`{source: FILE, ...}` under `frozen` or `audited`; each source one of the test's."""
    if raw is None:
        return ()
    files = check.mapping(raw, at, tuple(raw) if isinstance(raw, dict) else ())
    if not files:
        raise check.fail(at, f"'{check.name(at)}' names no source; e.g. {{{sources[0]}: FILE}}")
    found = []
    for source, file in files.items():
        if source not in sources:
            hint = difflib.get_close_matches(str(source), sources, n=1)
            fix = f"did you mean '{hint[0]}'?" if hint else f"the test's sources: {', '.join(sources)}"
            raise check.fail(at + (source,), f"'{check.name(at)}' names source '{source}', which is not one of "
                                             f"the test's sources; {fix}")
        found.append((str(source), *_frozen_file(check, file, at + (source,), folder, shown)))
    return tuple(found)


def _frozen_file(check: Checker, raw: Any, at: tuple, folder: Path, shown: str) -> tuple[str, str]:
    """A reviewed candidates file, relative to the suite file; (path, as shown)."""
    file = check.string(raw, at)
    path = folder / file
    if not path.is_file():
        raise check.fail(at, f"candidates file '{file}' not found (the path is relative to the suite "
                             "file); write it with `absa-checks generate --candidates --out FILE`")
    return str(path.resolve()), os.path.normpath(os.path.join(os.path.dirname(shown), file))
