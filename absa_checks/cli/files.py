"""What the commands share to read their inputs and write their outputs: a source by the name the suites use,
an input that gives no unit refused, a reviewed candidates file never written anew, each output written (every
one tried), a new output that must not exist yet."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from absa_checks.common import outputs
from absa_checks.common.errors import AbsaChecksError
from absa_checks.common.outputs import CLI_FOLLOW_OPTION, Named
from absa_checks.sources.base import LoadedSource
from absa_checks.sources.catalog import known_source_names


def load_source(name: str, data: str | None) -> LoadedSource:
    """A source by the name the suites use, loaded as the plugin loads it; errors name --source/--data."""
    from absa_checks.sources import DATA_ENV, registry, resolve_data_dir
    from absa_checks.sources.catalog import load_named

    if name not in known_source_names():
        raise AbsaChecksError(f"--source: unknown source '{name}'; use one of {', '.join(known_source_names())}")
    data_dir = resolve_data_dir(data)
    dataset = registry().get(name)
    if dataset is not None:  # checked here so the messages name this command's --data, not --absa-data
        if data_dir is None:
            raise AbsaChecksError(f"--source {name} reads a data directory: pass --data DIR (or set {DATA_ENV}), "
                                  "a folder laid out like shared/data")
        option = "--data" if data else f"${DATA_ENV}"
        if not data_dir.is_dir():
            raise AbsaChecksError(f"{option}: {data_dir} is not a folder; pass the data directory, laid out like "
                                  "shared/data")
        if not (data_dir / dataset.relative_path).is_file():
            raise AbsaChecksError(f"{option}: {data_dir / dataset.relative_path} not found; {name} needs "
                                  f"{dataset.how_to_get} there")
    return load_named(name, data_dir)


def nothing_read(loaded: LoadedSource, origin: str) -> None:
    """An input that gives no unit is an error saying why (every record dropped, or none there), never an
    empty output with exit status 0."""
    if loaded.units:
        return
    from collections import Counter

    kinds = Counter((issue.message, issue.action) for issue in loaded.issues)
    why = ("; ".join(f"{count} x {message} ({action})" for (message, action), count in kinds.most_common(3)) if kinds
           else "it holds no sentence with an annotated aspect term")
    raise AbsaChecksError(f"{origin}: nothing was read, no unit to make variants of ({why}); name a file with "
                          "annotated original sentences")


def keep_reviewed(named: list[Named], fix: Callable[[Named], str]) -> None:
    """An output that already holds reviewers' decisions or audit verdicts (a candidates file) is never written
    anew: that would lose them with exit status 0. `fix(output)` says what to do instead."""
    from absa_checks.suites.candidates import reviewed_work_in

    for out in named:
        found = reviewed_work_in(out.path)
        if found:
            raise AbsaChecksError(f"{out}: holds {found.said()}; writing it anew would lose "
                                  f"{'it' if found.decisions + found.audits == 1 else 'them'}: {fix(out)}; "
                                  "nothing written")


def write_each(texts: Iterable[tuple[Named, str]], follow_symlinks: bool) -> list[str]:
    """Write each (Named, text); every one is tried; the one-line messages of those that could not be."""
    failed = []
    for named, text in texts:
        try:
            outputs.write_text(named, text, follow_symlinks, CLI_FOLLOW_OPTION)
        except outputs.OutputError as err:
            failed.append(str(err))
            print(f"absa-checks: {err}", file=sys.stderr)
    return failed


def new_output(command: str, path: Path, given: Path, follow_symlinks: bool, inputs: list[Named]) -> Named:
    """`--out` of a command that never replaces a file (freeze, rebuild): checked against its inputs, and
    refused when it exists."""
    out = Named("--out", path)
    outputs.check([out], [Named("FILE", given), *inputs], [], follow_symlinks, CLI_FOLLOW_OPTION)
    if path.exists() or path.is_symlink():
        raise AbsaChecksError(f"{command}: --out {path} already exists; name a new file, or delete it first "
                              "(nothing written)")
    return out


def llm_cache(given: str | None):
    """The cache an LLM's answers are kept in (--cache, default .absa-cache): a PredictionCache; a file there is
    refused in one line."""
    from absa_checks.models.cache import PredictionCache

    folder = Path(given or ".absa-cache")
    if folder.exists() and not folder.is_dir():
        raise AbsaChecksError(f"--cache {folder}: is a file, not a folder; name a folder (it is created if needed)")
    return PredictionCache(folder)


def models_file(given: str | None, entry: str) -> Path:
    """--models-file (default models.yaml here); one given that is not there is refused naming the entry wanted."""
    path = Path(given or "models.yaml")
    if given is not None and not path.is_file():
        raise AbsaChecksError(f"--models-file {given}: not found; name the models YAML file that has the entry {entry}")
    return path
