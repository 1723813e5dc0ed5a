"""The expanded-gold file: for each gold quad of a source, the other forms of its aspect and opinion terms that
were accepted (Zoom In-N-Out, `absa-checks expand`; docs/extraction.md "Expanded ground truth").

JSON Lines, UTF-8. The first line describes the file: {"expanded_gold": 1, "source": ..., "made_by": ...,
"model": ..., "prompt_sha256": ..., ...}. Then one line per gold quad, in the source's order:

    {"id": "rest15-12", "sha256": <sha256 of the sentence's text>, "quad": 0,
     "aspect": [{"term": "the pizza", "step": "zoom-out"}], "opinion": [],
     "provenance": {"status": "expanded", "zoom-in": <request key>, "zoom-out": ..., "judge": ...}}

No sentence text: the hash ties each line to the user's copy of the data, and a line whose sentence differs is
refused by name. The older form written by hand, one line per sentence ({"id": ..., "tuples": [{"aspect": [...],
"opinion": [...]}, ...]}), is read too.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from pathlib import Path

from absa_checks.common import inputs
from absa_checks.common.errors import DataError
from absa_checks.common.tuples import AnnotatedSentence

FORMAT = 1
HEADER_KEY = "expanded_gold"


def sentence_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def line(row: dict) -> str:
    """One line of the file (keys sorted, non-ASCII kept): the same rows give the same bytes."""
    return json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n"


def header(source: str, **facts: object) -> dict:
    return {HEADER_KEY: FORMAT, "source": source, **facts}


def _terms(value: object, where: str) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise DataError(f"{where}: not a list of accepted forms")
    found = []
    for item in value:
        term = item.get("term") if isinstance(item, dict) else item
        if not isinstance(term, str) or not term.strip():
            raise DataError(f"{where}: each accepted form is text, or {{\"term\": TEXT, ...}}")
        found.append(term)
    return tuple(found)


def read(sentences: list[AnnotatedSentence], path: Path) -> list[AnnotatedSentence]:
    """The sentences with their gold tuples' accepted alternatives from `path`; DataError naming the file and
    line for anything malformed, an unknown sentence, a quad the sentence does not have, or a sentence whose
    text is not the one expanded."""
    try:
        text = inputs.read_text(path)
    except OSError as err:
        raise DataError(f"{path}: cannot be read ({err.strerror})") from None
    by_id = {s.sentence_id: s for s in sentences}
    aspects: dict[str, list[tuple[str, ...]]] = {}
    opinions: dict[str, list[tuple[str, ...]]] = {}
    for n, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        where = f"{path}:{n}"
        try:
            record = json.loads(raw)
        except (ValueError, RecursionError) as err:
            raise DataError(f"{where}: not JSON ({err}); each line is one object (docs/extraction.md)") from None
        if not isinstance(record, dict):
            raise DataError(f"{where}: not a JSON object; each line is one object (docs/extraction.md)")
        if HEADER_KEY in record:
            if record[HEADER_KEY] != FORMAT:
                raise DataError(f"{where}: expanded_gold format {record[HEADER_KEY]!r} is not {FORMAT}; "
                                "rebuild the file with this version's `absa-checks expand`")
            continue
        sentence_id = str(record.get("id"))
        if "id" not in record or sentence_id not in by_id:
            raise DataError(f"{where}: no sentence with id {record.get('id')!r} in the gold data; the file was made "
                            "for another source or another copy of the data")
        sentence = by_id[sentence_id]
        n_gold = len(sentence.gold)
        table_a = aspects.setdefault(sentence_id, [()] * n_gold)
        table_o = opinions.setdefault(sentence_id, [()] * n_gold)
        if "tuples" in record:  # the older form: one line per sentence
            tuples = record["tuples"]
            if not isinstance(tuples, list) or len(tuples) != n_gold:
                given = len(tuples) if isinstance(tuples, list) else 0
                raise DataError(f"{where}: sentence {sentence_id} has {n_gold} gold tuples, the line gives "
                                f"alternatives for {given}; give one entry per tuple, in order")
            for i, t in enumerate(tuples):
                if not isinstance(t, dict):
                    raise DataError(f"{where}: not {{\"id\": ..., \"tuples\": [{{\"aspect\": [...], \"opinion\": "
                                    "[...]}, ...]}")
                table_a[i] = _terms(t.get("aspect", []), where)
                table_o[i] = _terms(t.get("opinion", []), where)
            continue
        expected = record.get("sha256")
        if expected is not None and expected != sentence_sha256(sentence.sentence):
            raise DataError(f"{where}: sentence {sentence_id} is not the sentence this file was made from (its sha256 "
                            "differs); the data was changed or is another version: rebuild the file with "
                            "`absa-checks expand`, or use the data it was made from")
        quad = record.get("quad")
        if not isinstance(quad, int) or isinstance(quad, bool) or not 0 <= quad < n_gold:
            raise DataError(f"{where}: quad {quad!r}: sentence {sentence_id} has gold quads 0-{n_gold - 1}")
        table_a[quad] = _terms(record.get("aspect", []), f"{where}: aspect")
        table_o[quad] = _terms(record.get("opinion", []), f"{where}: opinion")
    out = []
    for s in sentences:
        if s.sentence_id in aspects:
            s = replace(s, aspect_alternatives=tuple(aspects[s.sentence_id]),
                        opinion_alternatives=tuple(opinions[s.sentence_id]))
        out.append(s)
    return out
