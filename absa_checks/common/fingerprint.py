"""The run's fingerprint: content hashes of every input that decides a case, by name, so `absa-checks
merge` can refuse shards made from different inputs and say which input differs.

Parts (the JSON report's `run.fingerprint.parts`):

- `suites`: suite file (as shown) -> sha256 of its bytes, every collected suite;
- `examples`: examples file named with `file:` (as shown) -> sha256 of its bytes;
- `data`: source -> {file read, relative to the data folder -> sha256}: the files each loaded source
  (and each extraction source's gold) read, so another copy of a data set is seen, wherever it lies;
- `model`: checkpoint -> sha256 of its kind, its settings after `${VAR}` substitution and the adapter's
  own fingerprint (the checkpoint's weights); only the hash is written, never a setting's value;
- `generator`: sha256 of the code and word lists that make variants, and the versions of the libraries
  behind them;
- `options`: the options that choose cases (seed, sample, sources), as plain values.

`run` is the sha256 of all parts. Everything here is pure but for reading files.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

PACKAGE = Path(__file__).resolve().parent.parent
# What makes generated variants: the generator, the strategies' declarations, the word lists and lexicon,
# the clause finder, case expansion, the template engine, and the package's own data (fixtures).
GENERATOR_FILES = ("perturb/*.py", "common/text.py", "suites/strategies.py", "sources/clauses.py", "suites/cases.py",
                   "suites/inline.py", "sources/infer.py", "fixtures/*", "suites/templates.py",
                   "suites/template_parse.py", "suites/lexicons.py",
                   "fixtures/lexicons/*")  # the template engine and its built-in lexicons too
# The LLM rewriter's modules make no rule-made variant (its own carry the prompt's sha256): a run without it is
# the same run, with the same generator hash, as before it existed
NOT_GENERATOR = frozenset({"perturb/rewrite_prompt.py", "perturb/rewrite_check.py"})
GENERATOR_LIBRARIES = ("absa-checks", "nltk", "vaderSentiment", "textblob")
PARTS = ("suites", "examples", "data", "model", "generator", "options")


def sha256_of_file(path: Path) -> str:
    digest = hashlib.sha256()
    with Path(path).open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def sha256_of(value: Any) -> str:
    """A canonical JSON hash (keys sorted; non-JSON values by their text)."""
    return hashlib.sha256(json.dumps(value, sort_keys=True, ensure_ascii=False, default=str).encode()).hexdigest()


def generator_sha256() -> str:
    """The generator's code and data, and its libraries' versions: another generator, another hash."""
    digest = hashlib.sha256()
    for pattern in GENERATOR_FILES:
        for path in sorted(PACKAGE.glob(pattern)):
            if path.is_file() and path.relative_to(PACKAGE).as_posix() not in NOT_GENERATOR:
                digest.update(path.relative_to(PACKAGE).as_posix().encode() + b"\0")
                digest.update(path.read_bytes() + b"\0")
    for library in GENERATOR_LIBRARIES:
        try:
            digest.update(f"{library}={metadata.version(library)}\0".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{library}=absent\0".encode())
    return digest.hexdigest()


def model_sha256(kind: str, settings: dict[str, Any], adapter_fingerprint: str) -> str:
    """A checkpoint's part: its kind, its settings as resolved (`${VAR}` substituted: only hashed, never
    shown) and its adapter's fingerprint. `claims` are published numbers, not inputs: left out."""
    return sha256_of({"kind": kind, "settings": {k: v for k, v in settings.items() if k != "claims"},
                      "adapter": adapter_fingerprint})


def shown_data_path(path: Path, data_dir: Path | None) -> str:
    """A data file as the fingerprint names it: relative to the data folder (machines keep it in different
    places), or to the package for its own files."""
    path = Path(path)
    for base in (data_dir, PACKAGE):
        if base is not None:
            try:
                return path.resolve().relative_to(Path(base).resolve()).as_posix()
            except ValueError:
                continue
    return path.name


@dataclass
class RunInputs:
    """What this process read that decides cases; filled while collecting and loading (one per run)."""

    suites: dict[str, str] = field(default_factory=dict)
    examples: dict[str, str] = field(default_factory=dict)
    data: dict[str, dict[str, str]] = field(default_factory=dict)

    def add_data(self, source: str, files: tuple[Path, ...], data_dir: Path | None) -> None:
        found = self.data.setdefault(source, {})
        for path in files:
            try:
                found[shown_data_path(path, data_dir)] = sha256_of_file(path)
            except OSError as err:  # gone or unreadable since it was read: its hash is unknown, never equal
                found[shown_data_path(path, data_dir)] = f"unreadable after loading ({err.strerror})"

    def to_dict(self) -> dict[str, Any]:
        return {"suites": dict(sorted(self.suites.items())), "examples": dict(sorted(self.examples.items())),
                "data": {source: dict(sorted(files.items())) for source, files in sorted(self.data.items())}}

    def update(self, other: dict[str, Any]) -> None:
        """Add what an xdist worker read (each worker collects every suite: the same files)."""
        self.suites.update(other.get("suites", {}))
        self.examples.update(other.get("examples", {}))
        for source, files in other.get("data", {}).items():
            self.data.setdefault(source, {}).update(files)


def fingerprint(inputs: RunInputs, models: dict[str, str], options: dict[str, Any]) -> dict[str, Any]:
    """The report's `run.fingerprint`: {run: hash of all parts, parts: {...}}."""
    parts = {**inputs.to_dict(), "model": dict(models), "generator": generator_sha256(), "options": options}
    return {"run": sha256_of(parts), "parts": parts}


def differences(mine: dict[str, Any], first: dict[str, Any]) -> list[str]:
    """What differs between two runs' fingerprint parts, each as "made from another X" phrases."""
    found: list[str] = []
    renamed: list[tuple[str, str]] = []
    for part in PARTS:
        a, b = mine.get(part, {}), first.get(part, {})
        if a == b:
            continue
        if part == "generator":
            found.append("another version of absa-checks' generator (its code, word lists or libraries differ)")
        elif part == "options":
            changed = [f"--absa-{key} {a.get(key)!r}, not {b.get(key)!r}" for key in sorted(set(a) | set(b))
                       if a.get(key) != b.get(key)]
            found.append(f"other options ({'; '.join(changed)})")
        elif part == "model":
            names = [name for name in sorted(set(a) | set(b)) if a.get(name) != b.get(name)]
            found.append(f"another model entry for {', '.join(names)} (its kind, resolved settings or checkpoint "
                         "files differ)")
        elif part == "data":
            for source in sorted(set(a) | set(b)):
                if source not in a or source not in b:
                    found.append(f"{'the' if source in a else 'no'} data of source '{source}', "
                                 f"{'which the other was made without' if source in a else 'which the other read'}")
                    continue
                files = [f for f in sorted(set(a[source]) | set(b[source])) if a[source].get(f) != b[source].get(f)]
                if files:
                    found.append(f"other data for source '{source}' ({', '.join(files)})")
        else:  # suites, examples: file -> hash
            what = {"suites": "suite file", "examples": "examples file"}[part]
            moved = _renamed(a, b)
            if moved:  # the same bytes under other names: the paths are shown from another pytest rootdir
                renamed += moved
                a = {file: sha for file, sha in a.items() if file not in {x for x, _ in moved}}
                b = {file: sha for file, sha in b.items() if file not in {y for _, y in moved}}
            for file in sorted(set(a) | set(b)):
                if file not in a or file not in b:
                    found.append(f"{'an extra' if file in a else 'no'} {what} {file}"
                                 f"{'' if file in a else ', which the other was made from'}")
                elif a[file] != b[file]:
                    found.append(f"another {what} ({file})")
    if renamed:
        found.insert(0, "the same suite and examples files (byte-identical) named from another pytest rootdir ("
                     + "; ".join(f"{x} here, {y} there" for x, y in renamed[:2])
                     + (f"; and {len(renamed) - 2} more" if len(renamed) > 2 else "")
                     + "): pytest puts its rootdir above every path on the command line, so a path outside the "
                     "project (e.g. --absa-baseline /elsewhere/base.json) moves it; run every shard with "
                     "--rootdir set to the project (or keep such files inside it)")
    return found


def _renamed(a: dict[str, str], b: dict[str, str]) -> list[tuple[str, str]]:
    """Files named only in `a` paired with files named only in `b` that have the same hash and end alike
    (`probe/suites/s.yaml` and `suites/s.yaml`): one file seen from two rootdirs."""
    only_b = {sha: file for file, sha in b.items() if file not in a}
    pairs = []
    for file, sha in sorted(a.items()):
        other = only_b.get(sha)
        if file not in b and other is not None and (file.endswith("/" + other) or other.endswith("/" + file)
                                                     or Path(file).name == Path(other).name):
            pairs.append((file, other))
    return pairs
