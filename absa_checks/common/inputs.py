"""One reader for the files absa-checks reads (suite, examples, data, replay, models, baseline, shard files).

`read_bytes` / `read_text` refuse what is not a regular file before opening it: a device (/dev/zero would
be read until memory runs out, /dev/stdin or a FIFO would wait forever), a FIFO, a socket or a folder. The
refusal is an OSError (`NotARegularFile`), so every caller's existing `except OSError` names its file, its
option or suite line, in one line; its `strerror` says what the path is and the fix.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path


def special_kind(mode: int) -> str | None:
    """What a file that is not a regular one is ("a character device", "a FIFO (named pipe)", ...), or None."""
    for test, name in ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISDIR, "a folder")):
        if test(mode):
            return name
    return None


class NotARegularFile(OSError):
    """An input path that is a device, FIFO, socket or folder: never read."""

    def __init__(self, path: str | os.PathLike, kind: str) -> None:
        super().__init__(errno.EINVAL, f"it is {kind}, not a regular file: name a file", str(path))
        self.kind = kind

    def __str__(self) -> str:
        return self.strerror or ""


def check_regular(path: str | os.PathLike) -> None:
    """NotARegularFile when `path` (its link's target) exists and is no regular file; an absent path is left to
    the reader (its FileNotFoundError is the caller's "not found")."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return
    kind = special_kind(mode)
    if kind is not None:
        raise NotARegularFile(path, kind)


def read_bytes(path: str | os.PathLike) -> bytes:
    check_regular(path)
    return Path(path).read_bytes()


def read_text(path: str | os.PathLike, encoding: str = "utf-8") -> str:
    check_regular(path)
    return Path(path).read_text(encoding=encoding)
