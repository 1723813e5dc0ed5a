"""Replay predictions stored in a file (ARTS output layout: id,sentence,term,gold_label,<model columns>).

Matched by record id when the query has one that the file knows (ARTS's old `_adv4` suffix means
`_adv3`), else by sentence and aspect term. A query with no stored prediction gets a QueryError:
an error for that case, never a silent pass.
"""

from __future__ import annotations

import csv
import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

from absa_checks.common import inputs
from absa_checks.common.errors import AdapterError
from absa_checks.common.labels import polarity_word
from absa_checks.models.adapters import AdapterKind
from model_adapters.protocol import Answer, Query, QueryError

ID_ALIASES = (("_adv4", "_adv3"),)
MIN_ROWS_FOR_COPY = 20  # a column equal to the gold on every one of at least this many rows is a copy of it
_CONFLICT = object()  # marks a (sentence, term) whose rows disagree


def normalise_id(record_id: str) -> str:
    for old, new in ID_ALIASES:
        if record_id.endswith(old):
            return record_id[: -len(old)] + new
    return record_id


def _checked(value: object, where: str, column: str) -> object:
    """A label cell that names no polarity answers its own queries with an error, not the whole file's."""
    if isinstance(value, str) and polarity_word(value) is None:
        return QueryError(f"{where}: {value!r} in column '{column}' is not a polarity label "
                          "(negative, neutral, positive; numbers are not read as polarities)")
    return value


class ReplayAdapter:
    def __init__(self, path: str | Path, column: str):
        self.path = Path(path)
        self.column = column
        self.name = f"replay:{self.path.name}#{column}"
        try:
            self._bytes = inputs.read_bytes(self.path)
        except OSError as err:
            raise AdapterError(f"replay file '{path}' cannot be read ({err.strerror}); check the path in "
                               f"--model replay:<path>#<column> (relative to the directory you run pytest in)") from None
        self._by_id: dict[str, object] = {}
        self._by_text: dict[tuple[str, str], object] = {}
        first_line: dict[str, int] = {}
        rows = self._rows()
        gold = gold_column(self.column, [row for _, row in rows])
        if gold:
            raise AdapterError(f"{self.name}: {gold}, so every original would be right by construction and "
                               "the run would pass whatever the model; name the column of a model's predictions "
                               f"(the columns: {', '.join(sorted({key for _, row in rows for key in row}))})")
        for line, row in rows:
            value = _checked(row[column], f"{self.path.name}:{line}", column)
            if row.get("id") not in (None, ""):
                record = normalise_id(str(row["id"]))
                if record in self._by_id and self._by_id[record] != value:
                    raise AdapterError(f"{self.path}:{line}: the id {row['id']!r} appears again (first on line "
                                       f"{first_line[record]}) with another '{column}' prediction; keep one row per id")
                first_line.setdefault(record, line)
                self._by_id[record] = value
            key = (str(row.get("sentence", "")), str(row.get("term", "")))
            previous = self._by_text.get(key)
            self._by_text[key] = value if previous is None or previous == value else _CONFLICT

    def _rows(self) -> list[tuple[int, dict]]:
        """(line, row) for every row of the file."""
        try:
            text = self._bytes.decode("utf-8-sig")
        except UnicodeDecodeError as err:
            line = self._bytes[:err.start].count(b"\n") + 1
            raise AdapterError(f"{self.path}:{line}: not UTF-8 text (byte 0x{self._bytes[err.start]:02x}); save the "
                               "replay file as UTF-8") from None
        if self.path.suffix.lower() in (".jsonl", ".ndjson"):
            rows = []
            for number, row_text in enumerate(text.splitlines(), 1):
                if row_text.strip():
                    try:
                        rows.append((number, json.loads(row_text)))
                    except json.JSONDecodeError as err:
                        raise AdapterError(f"{self.path}:{number}: not a JSON object ({err.msg})") from None
        else:
            reader = csv.DictReader(text.splitlines())
            rows = [(reader.line_num, row) for row in reader]
        columns = sorted({key for _, row in rows for key in row})
        if not rows or self.column not in columns:
            raise AdapterError(f"replay file '{self.path}' has no column '{self.column}'; "
                               f"its columns are: {', '.join(columns) or 'none'}")
        return rows

    def describe(self) -> dict[str, object]:
        return {"kind": "replay", "path": str(self.path), "column": self.column}

    def fingerprint(self) -> str:
        return hashlib.sha256(self._bytes + b"\0" + self.column.encode()).hexdigest()[:16]

    def predict(self, queries: Sequence[Query]) -> list[Answer]:
        return [self._answer(query) for query in queries]

    def _answer(self, query: Query) -> Answer:
        if query.record_id is not None:
            found = self._by_id.get(normalise_id(query.record_id))
            if found is not None:
                return found  # type: ignore[return-value]
        found = self._by_text.get((query.sentence, query.aspect))
        if found is _CONFLICT:
            return QueryError(f"{self.path.name} holds different '{self.column}' predictions for the same sentence "
                              f"and term {query.aspect!r}, and no row has the id {query.record_id!r}")
        if found is None:
            return QueryError(f"no '{self.column}' prediction in {self.path.name} for record {query.record_id!r} "
                              f"(term {query.aspect!r} in {query.sentence!r})")
        return found  # type: ignore[return-value]


def gold_column(column: str, rows: list[dict]) -> str:
    """Why `column` holds the data's gold labels rather than a model's answers ("the column 'gold_label' is the
    data's gold labels"), or "" when it does not: it is named gold (`gold_label`, ARTS's; `gold`, ...), or it
    equals such a column on every row of a file of at least MIN_ROWS_FOR_COPY rows. (`label` alone may well be a
    model's answer in its own outputs file.)"""
    if _is_gold(column):
        return f"the column '{column}' is the data's gold labels"
    golds = [key for key in (rows[0] if rows else {}) if _is_gold(str(key)) and key != column]
    for name in golds:
        if len(rows) >= MIN_ROWS_FOR_COPY and all(_same(row.get(column), row.get(name)) for row in rows):
            return f"the column '{column}' equals the gold column '{name}' on all {len(rows)} rows: a copy of it"
    return ""


def _is_gold(column: str) -> bool:
    return column.strip().lower().startswith("gold")


def _same(answer: object, gold: object) -> bool:
    return isinstance(answer, str) and isinstance(gold, str) and polarity_word(answer) is not None \
        and polarity_word(answer) == polarity_word(gold)


def _inline(rest: str) -> dict:
    path, sep, column = rest.rpartition("#")
    if not sep or not path or not column:
        raise ValueError("no '#<column>' after the path")
    return {"path": path, "column": column}


def _build(spec) -> ReplayAdapter:
    return ReplayAdapter(spec.base_dir / str(spec.settings["path"]), str(spec.settings["column"]))


# Registered in pyproject.toml under the entry-point group absa_checks.adapters
KIND = AdapterKind("replay", keys=("path", "column"), required=("path", "column"), build=_build, inline=_inline,
                   inline_form="replay:<path>#<column>, e.g. replay:output/laptop_results.csv#bert_pt")
