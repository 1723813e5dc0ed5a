"""Replay what an extraction model (a tagger, a generative model, an LLM) answered, stored as JSONL, so
any system's outputs collected elsewhere can be tested offline.

One JSON object a line: `sentence` (the text the model read), optionally `id`, and its answer as either
`aspects` (a list of {aspect, polarity, start, end, opinion, category}) or `text` (the model's raw text,
read as docs/extraction.md says). A sentence is found by its exact text. A sentence with no stored
answer gets a QueryError: an error for its cases, never a silent pass; so does a line whose aspects have a
malformed offset (`start`/`end` not a whole number, negative, beyond the sentence, start after end), naming
file:line and the field, for that line's sentence only.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

from absa_checks.common.errors import AdapterError
from absa_checks.models.adapters import AdapterKind
from model_adapters.protocol import QueryError


class ExtractionReplay:
    task = "extract"
    cacheable = False  # reading the file is as fast as the cache

    def __init__(self, name: str, path: Path):
        self.name = name
        self.path = Path(path)
        try:
            data = self.path.read_bytes()
        except OSError as err:
            raise AdapterError(f"model '{name}': cannot read the stored outputs {self.path} ({err.strerror})") from None
        self._digest = hashlib.sha256(data).hexdigest()[:16]
        self._answers: dict[str, object] = {}
        self._broken: dict[str, str] = {}  # sentence -> why its line cannot be used (file:line, the field)
        first_line: dict[str, int] = {}
        for n, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
            if not line.strip():
                continue
            where = f"model '{name}': {self.path}:{n}"
            array = (f"{where}: a JSON array, not one object per line (JSON Lines); write each object on its own "
                     'line, e.g. {"sentence": "...", "aspects": [{"aspect": "fries", "polarity": "negative"}]}')
            try:
                record = json.loads(line)
            except json.JSONDecodeError as err:
                if line.lstrip().startswith("["):  # an array written over several lines
                    raise AdapterError(array) from None
                raise AdapterError(f"{where}: not JSON ({err.msg}); one object a line, e.g. "
                                   '{"sentence": "...", "aspects": [{"aspect": "fries", "polarity": "negative"}]}') from None
            if isinstance(record, list):
                raise AdapterError(array)
            if not isinstance(record, dict) or not isinstance(record.get("sentence"), str):
                raise AdapterError(f"{where}: each line needs 'sentence' (the text the model read)")
            if ("aspects" in record) == ("text" in record):
                raise AdapterError(f"{where}: give the answer as exactly one of 'aspects' (a list) and 'text' "
                                   "(the model's raw output)")
            answer = record["aspects"] if "aspects" in record else record["text"]
            sentence = record["sentence"]
            if sentence in self._answers and self._answers[sentence] != answer:  # an identical repeat is harmless
                raise AdapterError(f"{where}: the sentence {_short(sentence)} appears again (first on line "
                                   f"{first_line[sentence]}) with another answer; keep one line per sentence")
            first_line.setdefault(sentence, n)
            self._answers[sentence] = answer
            problem = bad_offset(answer, sentence) if "aspects" in record else ""
            if problem:
                self._broken[sentence] = f"{where}: {problem}; fix the line (offsets are optional: leave them out)"

    def describe(self) -> dict[str, object]:
        return {"kind": "extraction-replay", "path": str(self.path), "sentences": len(self._answers)}

    def fingerprint(self) -> str:
        return self._digest

    def extract(self, sentences: Sequence[str]) -> list[object]:
        return [QueryError(self._broken[s]) if s in self._broken else self._answers[s] if s in self._answers else
                QueryError(f"no stored output for {s!r} in {self.path}") for s in sentences]


def bad_offset(aspects: object, sentence: str) -> str:
    """Why an `aspects` list's character offsets cannot be used ("" when they can, or are left out): each
    `start`/`end` a whole number from 0 to the sentence's length, start not after end."""
    if not isinstance(aspects, list):
        return ""  # not a list: the answer's own error (answers.normalise_answer)
    for i, item in enumerate(aspects, 1):
        if not isinstance(item, dict):
            continue
        which = f"aspect {i} ({item.get('aspect')!r})"
        for field in ("start", "end"):
            value = item.get(field)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int):
                return (f"{which}: '{field}' is {value!r}, not a character offset (a whole number from 0 to "
                        f"{len(sentence)}, the sentence's length)")
            if not 0 <= value <= len(sentence):
                return f"{which}: '{field}' is {value}, outside the sentence (0 to {len(sentence)}, its length)"
        start, end = item.get("start"), item.get("end")
        if start is not None and end is not None and start > end:
            return f"{which}: 'start' {start} is after 'end' {end}"
    return ""


def _short(sentence: str) -> str:
    return repr(sentence if len(sentence) <= 60 else sentence[:57] + "...")


def _build(spec) -> ExtractionReplay:
    return ExtractionReplay(spec.name, spec.base_dir / str(spec.settings["path"]))


# Registered in pyproject.toml under the entry-point group absa_checks.adapters
KIND = AdapterKind("extraction-replay", keys=("path",), required=("path",), build=_build,
                   inline=lambda rest: {"path": rest}, inline_form="extraction-replay:<outputs.jsonl>")
