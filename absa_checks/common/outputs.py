"""One writer for every file absa-checks writes (reports, Markdown and its pictures, Allure summary files,
`generate` / `augment` / `merge` outputs): an output that is an input, another output, a device, a FIFO or
(unless asked) a link refused; written atomically; an OSError one line (`OutputError`), the other outputs still
written.

Before a run, `check` refuses (one line naming both options and the fix):
- an output that is one of the run's inputs (the baseline, suite and examples files, data files, the
  models file, a model's own files, merge's shard reports, `--input`), however it is spelt: `./x` and
  `x`, a symbolic link to it, a hard link to it;
- two outputs that are one file (the JSON report and the Markdown summary, a report and a picture);
- a target that is not a regular file (a device such as /dev/full, a FIFO, a socket): never replaced;
- a symbolic link, unless asked to write through it (`--absa-follow-symlinks`, or `--follow-symlinks`
  for the `absa-checks` commands); then the link's target is written and the link stays a link.

`write_bytes` / `write_text` write atomically: a temporary file beside the target, flushed to disk
(fsync), then renamed over it (`os.replace`), keeping the old file's mode; a failed write removes the
temporary file and leaves the target as it was. An OSError (full disk, quota, read-only file system,
permission denied) becomes an `OutputError` with one line naming the path and the fix, so the caller can
still write its other outputs and end with a non-zero exit status.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from absa_checks.common.errors import AbsaChecksError
from absa_checks.common.inputs import special_kind

FOLLOW_OPTION = "--absa-follow-symlinks"  # the pytest option
CLI_FOLLOW_OPTION = "--follow-symlinks"  # the CLI's (absa-checks generate, audit, review ...)


class OutputError(AbsaChecksError):
    """An output that could not be written (disk full, read-only, permission): one line per output;
    `reason` is the part after the path ("no space left on the device; free space there ...")."""

    def __init__(self, message: str, reason: str = "", option: str = "") -> None:
        super().__init__(message)
        self.reason = reason or message
        self.option = option  # the option that named the output (which output to leave out)


class OutputRefused(OutputError):
    """An output path the run must not write: a usage error before the run (and refused again when written)."""


@dataclass(frozen=True)
class Named:
    """A path as the user named it, with the option (or role) that named it."""

    option: str
    path: Path
    shown: str = ""  # how to name it when the option names it indirectly (a partial report, a picture)

    def __str__(self) -> str:
        return self.shown or (f"{self.option} {self.path}" if self.option else str(self.path))


def given(option: str, path: Path | None) -> list[Named]:
    """An input or input folder an option may leave unset: named when it was given, none when not."""
    return [Named(option, path)] if path is not None else []


def derived(option: str, given: Path, what: str, path: Path) -> Named:
    """A file an option names indirectly: `--absa-report r.json`'s partial-run report r.partial.json."""
    return Named(option, path, f"{option} {given} (its {what} {path})")


def _real(path: Path) -> str:
    return os.path.realpath(os.path.abspath(os.path.expanduser(path)))


def same_file(a: Path, b: Path) -> bool:
    """Whether two spellings name one file: the same real path (symbolic links, `./x`, `..` resolved), or
    the same device and inode where both exist (hard links)."""
    if _real(a) == _real(b):
        return True
    try:
        sa, sb = os.stat(a), os.stat(b)
    except OSError:
        return False
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


def _kind(mode: int) -> str | None:
    """What a non-regular file is, or None for a regular one (the inputs' reader says the same)."""
    return special_kind(mode)


def _refuse_kind(out: Named, path: Path) -> None:
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return  # absent (or a dangling link, followed): it will be created
    kind = _kind(mode)
    if kind is not None:
        what = "" if Path(path) == out.path else f" (the link's target {path})"
        raise OutputRefused(f"{out}: is {kind}{what}, not a regular file; absa-checks writes only regular files "
                            "and never replaces a device, FIFO or socket: name a file")


def target(out: Named, follow_symlinks: bool, follow_option: str = FOLLOW_OPTION) -> Path:
    """The file a write to `out` replaces: `out.path`, or a symbolic link's target when following links.
    OutputRefused for a link not followed and for a target that is not a regular file."""
    path = Path(os.path.expanduser(out.path))
    if path.is_symlink():
        pointed = Path(_real(path))
        if not follow_symlinks:
            raise OutputRefused(f"{out}: is a symbolic link to {pointed}; absa-checks does not write through links "
                                f"unless asked: pass {follow_option} to write to {pointed} (the link stays), "
                                "or name the file itself")
        _refuse_kind(out, pointed)
        return pointed
    _refuse_kind(out, path)
    return path


def check(outputs: Iterable[Named], inputs: Iterable[Named], folders: Iterable[Named] = (),
          follow_symlinks: bool = False, follow_option: str = FOLLOW_OPTION, kinds: bool = True) -> None:
    """Refuse, before anything runs, outputs that would destroy an input (a file, or an existing file in an
    input folder such as the data folder), each other, a device or a link: OutputRefused, one line.
    `kinds=False`: not the device/FIFO/link check (pytest opens its own files and writes into them, so
    `--junitxml /dev/null` replaces nothing)."""
    outputs, inputs = list(outputs), list(inputs)
    for out in outputs:
        for source in inputs:
            if same_file(out.path, source.path):
                raise OutputRefused(f"{out}: is the same file as {source}, an input of this run; writing there "
                                    f"would destroy it: name another file for {out.option or 'the output'}",
                                    option=out.option)
        for folder in folders:
            if inside(out.path, folder.path):
                raise OutputRefused(f"{out}: is a file in the folder {folder}, an input of this run; writing "
                                    f"there would destroy it: name a file outside {folder.path}", option=out.option)
    for i, out in enumerate(outputs):
        for other in outputs[:i]:
            if same_file(out.path, other.path):
                raise OutputRefused(f"{other} and {out} are one file: one output would overwrite the other; "
                                    "give them different paths", option=out.option)
    for out in outputs if kinds else ():
        target(out, follow_symlinks, follow_option)


def inside(path: Path, folder: Path | None) -> bool:
    """Whether an existing file `path` lies under `folder` (a data folder: every file in it is an input)."""
    if folder is None or not os.path.lexists(os.path.expanduser(path)):
        return False
    return Path(_real(path)).is_relative_to(_real(folder))


def existing_files(values: Iterable[object], base: Path) -> list[Path]:
    """The strings among `values` (e.g. a model's settings) that name an existing file, relative to `base`."""
    found = []
    for value in values:
        if isinstance(value, (str, os.PathLike)) and str(value):
            candidate = Path(os.path.expanduser(str(value)))
            candidate = candidate if candidate.is_absolute() else base / candidate
            try:
                if candidate.is_file():
                    found.append(candidate)
            except OSError:  # a name too long to be a path
                continue
    return found


FIXES = {
    errno.ENOSPC: "no space left on the device; free space there or name a path on another disk",
    errno.EDQUOT: "disk quota exceeded; free space under your quota or name a path elsewhere",
    errno.EROFS: "the file system is read-only; name a path on a writable one",
    errno.EACCES: "permission denied; make the folder writable for this user or name another path",
    errno.EPERM: "operation not permitted; make the folder writable for this user or name another path",
}


def describe(err: OSError) -> str:
    return FIXES.get(err.errno or 0) or f"{err.strerror or err}; name another path"


def write_bytes(out: Named, data: bytes, follow_symlinks: bool = False, follow_option: str = FOLLOW_OPTION) -> Path:
    """Write `data` to `out` atomically (see the module's text); the path written. OutputRefused or
    OutputError (one line) when it cannot be."""
    path = target(out, follow_symlinks, follow_option)
    temporary: Path | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp")
        handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # the umask applies
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        _keep_mode(path, temporary)
        os.replace(temporary, path)
        temporary = None
        _sync_folder(path.parent)
    except OSError as err:
        raise OutputError(f"{out}: not written: {describe(err)}", describe(err)) from None
    finally:
        if temporary is not None:
            try:
                os.unlink(temporary)
            except OSError:
                pass
    return path


def write_text(out: Named, text: str, follow_symlinks: bool = False, follow_option: str = FOLLOW_OPTION) -> Path:
    return write_bytes(out, text.encode("utf-8"), follow_symlinks, follow_option)


def _keep_mode(path: Path, temporary: Path) -> None:
    """The replaced file's permission bits (and, where allowed, its owner) carry over."""
    try:
        old = os.stat(path)
    except FileNotFoundError:
        return
    os.chmod(temporary, stat.S_IMODE(old.st_mode))
    try:
        os.chown(temporary, old.st_uid, old.st_gid)
    except OSError:  # not root: the file becomes ours, as any editor's save would make it
        pass


def _sync_folder(folder: Path) -> None:
    """The rename itself reaches the disk (best effort: not every file system allows it)."""
    try:
        handle = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass
    finally:
        os.close(handle)


def remove_stale(path: Path) -> None:
    """Delete an output that no longer applies (an older partial report): only a regular file, never a
    link's target, a device or a FIFO."""
    try:
        if stat.S_ISREG(os.lstat(path).st_mode):
            os.unlink(path)
    except OSError:
        pass
