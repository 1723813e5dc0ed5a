"""A persistent prediction cache: SQLite in the cache folder, keyed by (model fingerprint, query); and the
generated variants (its `variants` table, JSON by absa_checks.perturb.outcome_json).

Safe with concurrent pytest-xdist workers: predictions are made while holding an exclusive file
lock, so the first worker predicts the run's missing queries and the others then read them; each
unique query is predicted once per run, not once per worker.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import sqlite3
import time
import warnings
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from absa_checks.common.errors import AbsaChecksError
from absa_checks.common.outputs import describe
from absa_checks.models.protocol import Query


class CacheWarning(UserWarning):
    """The prediction cache could not be used; the run went on without it."""

TABLES_SQL = """CREATE TABLE IF NOT EXISTS predictions (
    fingerprint TEXT NOT NULL, query TEXT NOT NULL,
    negative REAL NOT NULL, neutral REAL NOT NULL, positive REAL NOT NULL,
    PRIMARY KEY (fingerprint, query))"""
# what an extraction model found in a sentence: its tuples as JSON (absa_checks.models.answers)
EXTRACTION_SCHEMA = """CREATE TABLE IF NOT EXISTS extractions (
    fingerprint TEXT NOT NULL, sentence TEXT NOT NULL, tuples TEXT NOT NULL,
    PRIMARY KEY (fingerprint, sentence))"""
# generated outcomes (absa_checks.perturb.outcome_json) by a key of the generator, the unit and the strategy
# (absa_checks.run.run_state.VariantCache): a later run, or another xdist worker, reads instead of generating
VARIANTS_SCHEMA = "CREATE TABLE IF NOT EXISTS variants (key TEXT PRIMARY KEY, outcome TEXT NOT NULL)"


def sentence_key(sentence: str) -> str:
    return hashlib.sha1(sentence.encode()).hexdigest()


def query_key(query: Query, adapter: object = None) -> str:
    """A hash of what the model sees: the adapter's `cache_key(query)`, by default (sentence, aspect, span).

    The record id never counts: it does not change a real model's answer.
    """
    fields = adapter.cache_key(query) if hasattr(adapter, "cache_key") else query.text_key()
    return hashlib.sha1(json.dumps(list(fields), ensure_ascii=False).encode()).hexdigest()


class CacheUnusable(Exception):
    """The cache folder cannot be read or written (full disk, read-only, permission): the run goes on without."""


def _why(err: BaseException) -> str:
    """One line for a failing cache: the disk's reason and its fix."""
    if isinstance(err, OSError):
        return describe(err)
    text = str(err)
    if "full" in text:
        return describe(OSError(errno.ENOSPC, text))
    if "readonly" in text or "read-only" in text:
        return describe(OSError(errno.EROFS, text))
    return f"{text}; name another folder with --absa-cache"


class PredictionCache:
    """The cache is an optimisation: when its folder cannot be used (a full or read-only disk, no permission)
    the run predicts without it, with one warning (`failure`), and never blames the model."""

    def __init__(self, directory: Path):
        self.directory = directory
        self.path = directory / "predictions.sqlite"
        self._ready = False  # the folder and table are made on first use: a run with no suite makes none
        self.failure: str | None = None

    def _give_up(self, err: BaseException) -> None:
        if self.failure is None:
            self.failure = (f"absa-checks: the prediction cache --absa-cache {self.directory} is not used: {_why(err)}; "
                            "this run predicts without it")
            warnings.warn(self.failure, CacheWarning, stacklevel=3)

    def _connect(self) -> sqlite3.Connection:
        try:
            return self._connect_or_fail()
        except (sqlite3.OperationalError, OSError) as err:
            raise CacheUnusable(str(err)) from err

    def _connect_or_fail(self) -> sqlite3.Connection:
        if not self._ready:
            self.directory.mkdir(parents=True, exist_ok=True)
            try:
                self._open_checked().close()
            except sqlite3.OperationalError:  # full, read-only, locked: not a corrupt file
                raise
            except sqlite3.DatabaseError as err:  # truncated or not SQLite: keep it for a post-mortem, rebuild
                aside = self.path.with_name(f"{self.path.name}.corrupt-{int(time.time())}")
                self.path.replace(aside)
                for suffix in ("-wal", "-shm"):
                    self.path.with_name(self.path.name + suffix).unlink(missing_ok=True)
                warnings.warn(f"absa-checks: the prediction cache {self.path} was unreadable ({err}); moved to "
                              f"{aside.name} and started empty, so this run predicts again", stacklevel=2)
                self._open_checked().close()
            self._ready = True
        db = sqlite3.connect(self.path, timeout=120)
        db.execute("PRAGMA journal_mode=WAL")
        return db

    def _open_checked(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=120)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(TABLES_SQL)
        db.execute(EXTRACTION_SCHEMA)
        db.execute(VARIANTS_SCHEMA)
        if db.execute("PRAGMA quick_check").fetchone()[0] != "ok":
            db.close()
            raise sqlite3.DatabaseError("quick_check failed")
        return db

    def _guarded(self, default, call, *args):
        """`call(*args)`, or `default` once the cache is unusable: a full, read-only or broken cache folder
        makes the run go on without it (one warning, absa_checks.models.cache._give_up), never a model error."""
        if self.failure is not None:
            return default
        try:
            return call(*args)
        except (CacheUnusable, sqlite3.OperationalError, OSError) as err:
            self._give_up(err.__cause__ or err)
            return default

    def get_many(self, fingerprint: str, keys: Iterable[str]) -> dict[str, tuple[float, float, float]]:
        return self._guarded({}, self._get_many, fingerprint, keys)

    def _get_many(self, fingerprint: str, keys: Iterable[str]) -> dict[str, tuple[float, float, float]]:
        wanted = list(dict.fromkeys(keys))
        found: dict[str, tuple[float, float, float]] = {}
        with self._connect() as db:
            for first in range(0, len(wanted), 500):  # SQLite's parameter limit
                chunk = wanted[first:first + 500]
                rows = db.execute(f"SELECT query, negative, neutral, positive FROM predictions WHERE fingerprint = ? "
                                  f"AND query IN ({','.join('?' * len(chunk))})", [fingerprint, *chunk])
                found.update((key, (n, u, p)) for key, n, u, p in rows)
        return found

    def get_extractions(self, fingerprint: str, keys: Iterable[str]) -> dict[str, str]:
        return self._guarded({}, self._get_extractions, fingerprint, keys)

    def _get_extractions(self, fingerprint: str, keys: Iterable[str]) -> dict[str, str]:
        wanted = list(dict.fromkeys(keys))
        found: dict[str, str] = {}
        with self._connect() as db:
            for first in range(0, len(wanted), 500):
                chunk = wanted[first:first + 500]
                rows = db.execute(f"SELECT sentence, tuples FROM extractions WHERE fingerprint = ? "
                                  f"AND sentence IN ({','.join('?' * len(chunk))})", [fingerprint, *chunk])
                found.update(rows)
        return found

    def put_extractions(self, fingerprint: str, items: Mapping[str, str]) -> None:
        return self._guarded(None, self._put_extractions, fingerprint, items)

    def _put_extractions(self, fingerprint: str, items: Mapping[str, str]) -> None:
        with self._connect() as db:
            db.executemany("INSERT OR REPLACE INTO extractions VALUES (?, ?, ?)",
                           [(fingerprint, key, tuples) for key, tuples in items.items()])

    def put_many(self, fingerprint: str, items: Mapping[str, tuple[float, float, float]]) -> None:
        return self._guarded(None, self._put_many, fingerprint, items)

    def _put_many(self, fingerprint: str, items: Mapping[str, tuple[float, float, float]]) -> None:
        with self._connect() as db:
            db.executemany("INSERT OR REPLACE INTO predictions VALUES (?, ?, ?, ?, ?)",
                           [(fingerprint, key, *probs) for key, probs in items.items()])

    def get_variants(self, keys: Iterable[str]) -> dict[str, str]:
        return self._guarded({}, self._get_variants, keys)

    def _get_variants(self, keys: Iterable[str]) -> dict[str, str]:
        wanted = list(dict.fromkeys(keys))
        found: dict[str, str] = {}
        with self._connect() as db:
            for first in range(0, len(wanted), 500):
                chunk = wanted[first:first + 500]
                found.update(db.execute(f"SELECT key, outcome FROM variants WHERE key IN ({','.join('?' * len(chunk))})",
                                        chunk))
        return found

    def put_variants(self, items: Mapping[str, str]) -> None:
        return self._guarded(None, self._put_variants, items)

    def _put_variants(self, items: Mapping[str, str]) -> None:
        with self._connect() as db:
            db.executemany("INSERT OR REPLACE INTO variants VALUES (?, ?)", list(items.items()))

    def count(self, fingerprint: str | None = None) -> int:
        return self._guarded(0, self._count, fingerprint)

    def _count(self, fingerprint: str | None = None) -> int:
        with self._connect() as db:
            if fingerprint is None:
                return db.execute("SELECT COUNT(*) FROM predictions").fetchone()[0]
            return db.execute("SELECT COUNT(*) FROM predictions WHERE fingerprint = ?", [fingerprint]).fetchone()[0]

    @contextmanager
    def lock(self) -> Iterator[None]:
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            handle = (self.directory / "predict.lock").open("a")  # never truncates what is there
        except OSError as err:  # no lock without a usable folder: predict without the cache
            self._give_up(err)
            yield
            return
        with handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)


def clear(directory: Path) -> None:
    """--absa-clear-cache: a cache that cannot be emptied would answer from old predictions, so it is an error."""
    for name in ("predictions.sqlite", "predictions.sqlite-wal", "predictions.sqlite-shm"):
        try:
            (directory / name).unlink(missing_ok=True)
        except OSError as err:
            raise AbsaChecksError(f"--absa-clear-cache: {directory / name} cannot be deleted: {describe(err)}") from None
