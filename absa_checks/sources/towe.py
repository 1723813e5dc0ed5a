"""TOWE's opinion words (Fan et al., 2019) for the SemEval-2014 sentences: read from the ARTS generator's JSON
(character offsets into a re-tokenized copy, mapped back) or from TOWE's own TSV (tokens with BIO tags, aligned
to the SemEval text), and joined to the sentences' aspects (absa_checks.sources.semeval says which file wins).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from absa_checks.common import inputs
from absa_checks.common.errors import DataError
from absa_checks.common.examples import DataIssue
from absa_checks.common.labels import canonical_label
from absa_checks.sources.base import read_json, repeated_keys

if TYPE_CHECKING:  # only named in annotations: semeval.py imports this module
    from absa_checks.sources.semeval import SemevalSentence

Span = tuple[int, int]

# ---------------------------------------------------------------------------------------------- joining


@dataclass(frozen=True)
class OpinionEntry:
    """One annotated aspect from an opinion file, already in the SemEval sentence's offsets."""

    where: str  # the file and record it came from, for messages
    sentence_id: str
    term: str
    start: int
    end: int
    opinions: tuple[Span, ...]
    polarity: str | None = None  # when the file gives one


def _squash(text: str) -> str:
    return "".join(text.split()).lower()


def join_opinions(entries: Iterable[OpinionEntry], sentences: Sequence[SemevalSentence], source: str,
                  issues: list[DataIssue]) -> dict[tuple[str, int], tuple[Span, ...]]:
    """Attach each entry to the aspect with the same span. A second entry for an already claimed span
    (the ARTS/TOWE files repeat the first occurrence of a repeated term) goes to the next unclaimed
    occurrence of the same term, as the ARTS generator used it; reported as repaired."""
    by_id = {s.sentence_id: s for s in sentences}
    gold: dict[tuple[str, int], tuple[Span, ...]] = {}
    for entry in entries:
        sentence = by_id.get(entry.sentence_id)
        if sentence is None:
            issues.append(DataIssue(source, entry.sentence_id, "unknown_sentence",
                                    f"{entry.where}: opinion annotation for a sentence the SemEval file does not have",
                                    "dropped"))
            continue
        index = _claim(sentence, entry, gold, source, issues)
        if index is None:
            continue
        aspect = sentence.aspects[index]
        if entry.polarity is not None and entry.polarity != aspect.polarity:
            issues.append(DataIssue(source, entry.sentence_id, "polarity_mismatch",
                                    f"{entry.where}: the opinion file labels {aspect.term!r} {entry.polarity}, SemEval "
                                    f"{aspect.polarity or 'conflict'}; SemEval's label kept", "reported"))
        for s, e in entry.opinions:
            if any(s < a.end and e > a.start for a in sentence.aspects):
                issues.append(DataIssue(source, entry.sentence_id, "opinion_overlaps_aspect",
                                        f"{entry.where}: opinion {sentence.text[s:e]!r} [{s}:{e}] overlaps an "
                                        "aspect term; kept", "reported"))
        gold[(sentence.sentence_id, index)] = tuple(dict.fromkeys(entry.opinions))
    return gold


def _claim(sentence: SemevalSentence, entry: OpinionEntry, gold: Mapping[tuple[str, int], object], source: str,
           issues: list[DataIssue]) -> int | None:
    aspects, sid = sentence.aspects, sentence.sentence_id
    same_term = [i for i, a in enumerate(aspects) if _squash(a.term) == _squash(entry.term)]
    if not same_term:  # a shorter or longer span for the same aspect ("installation disk" of "... (DVD)")
        same_term = [i for i, a in enumerate(aspects) if a.start < entry.end and a.end > entry.start]
    exact = [i for i in same_term if (aspects[i].start, aspects[i].end) == (entry.start, entry.end)]
    free = [i for i in same_term if (sid, i) not in gold]
    if exact and (sid, exact[0]) not in gold:
        return exact[0]
    where = f"{entry.where}: {entry.term!r} [{entry.start}:{entry.end}]"
    if not free:
        issues.append(DataIssue(source, sid, "opinion_target_not_found",
                                f"{where} is not an unannotated aspect of sentence {sid}", "dropped"))
        return None
    if exact:
        later = [i for i in free if i > exact[0]] or free
        index = later[0]
        why = "repeats an annotated span"
    else:
        index = min(free, key=lambda i: abs(aspects[i].start - entry.start))
        why = "matches no aspect span"
    issues.append(DataIssue(source, sid, "opinion_target_moved",
                            f"{where} {why}; attached to the aspect {aspects[index].term!r} at "
                            f"[{aspects[index].start}:{aspects[index].end}]",
                            "repaired"))
    return index


# ---------------------------------------------------------------------------------------------- TOWE JSON


def read_towe_json(path: Path, sentences: Sequence[SemevalSentence], source: str,
                   issues: list[DataIssue]) -> list[OpinionEntry]:
    """ARTS's sentence-grouped TOWE file, with offsets mapped onto the SemEval sentences."""
    records = read_json(path, "TOWE JSON", dict, "a JSON object of sentences keyed by id")
    texts = {s.sentence_id: s.text for s in sentences}
    entries = []
    for sentence_id in repeated_keys(records):
        issues.append(DataIssue(source, sentence_id, "duplicate_id",
                                f"{path.name}: sentence id {sentence_id!r} is used twice; the first entry is read "
                                "and the second dropped: give each sentence its own id", "dropped"))
    for sentence_id, record in records.items():
        try:
            their_text, terms = str(record["sentence"]), dict(record["term_list"])
        except (TypeError, KeyError, ValueError) as err:
            issues.append(DataIssue(source, sentence_id, "malformed_record", f"missing or bad field: {err}", "dropped"))
            continue
        text = texts.get(sentence_id)
        if text is None:
            issues.append(DataIssue(source, sentence_id, "unknown_sentence",
                                    "opinion annotation for a sentence the SemEval file does not have", "dropped"))
            continue
        to_ours = offset_mapper(their_text, text)
        if to_ours is None:
            issues.append(DataIssue(source, sentence_id, "unaligned_sentence",
                                    f"cannot align {their_text!r} with the SemEval text {text!r}", "dropped"))
            continue
        for term_id, term in terms.items():
            entry = _json_entry(f"{path.name} {term_id}", sentence_id, term, their_text, text, to_ours, source, issues)
            if entry is not None:
                entries.append(entry)
    return entries


def _json_entry(where: str, sentence_id: str, term: dict, their_text: str, text: str,
                to_ours: Callable[[int, int], Span | None], source: str,
                issues: list[DataIssue]) -> OpinionEntry | None:
    try:
        span = to_ours(int(term["from"]), int(term["to"]))
        pairs = [(str(word), int(start), int(end))
                 for word, (start, end) in zip(term["opinion_words"], term["opinion_position"], strict=True)]
        name = str(term["term"])
    except (TypeError, KeyError, ValueError) as err:
        issues.append(DataIssue(source, sentence_id, "malformed_record", f"{where}: missing or bad field: {err}",
                                "dropped"))
        return None
    if span is None:
        issues.append(DataIssue(source, sentence_id, "unaligned_span",
                                f"{where}: term {name!r} has no place in the SemEval text", "dropped"))
        return None
    opinions = []
    for word, start, end in pairs:
        if their_text[start:end] != word:
            issues.append(DataIssue(source, sentence_id, "span_mismatch",
                                    f"{where}: opinion {word!r} is not at [{start}:{end}] of the file's sentence",
                                    "dropped"))
            continue
        ours = to_ours(start, end)
        if ours is None:
            issues.append(DataIssue(source, sentence_id, "unaligned_span",
                                    f"{where}: opinion {word!r} has no place in the SemEval text", "dropped"))
            continue
        if text[ours[0]:ours[1]] != word:
            issues.append(DataIssue(source, sentence_id, "opinion_text_changed",
                                    f"{where}: the file's opinion {word!r} is {text[ours[0]:ours[1]]!r} in the "
                                    "SemEval text; kept as SemEval writes it", "repaired"))
        opinions.append(ours)
    return OpinionEntry(where, sentence_id, name, span[0], span[1], tuple(opinions),
                        canonical_label(term.get("polarity")))


_PIECE = re.compile(r"\w+|[^\w\s]+")


def offset_mapper(theirs: str, ours: str) -> Callable[[int, int], Span | None] | None:
    """A function mapping a [start, end) span of `theirs` onto `ours` (the same sentence, tokenized or
    spelled a little differently); None when the two cannot be aligned."""
    pieces = list(_PIECE.finditer(theirs))
    places = align_tokens(ours, [p.group() for p in pieces])
    if places is None:
        return None

    def inside(i: int, offset: int) -> int | None:
        # within a piece copied verbatim, characters map one to one
        piece, (s, e) = pieces[i], places[i]
        return s + offset - piece.start() if e - s == piece.end() - piece.start() else None

    def to_ours(start: int, end: int) -> Span | None:
        covered = [i for i, p in enumerate(pieces) if p.start() < end and p.end() > start]
        if not covered:
            return None
        first, last = covered[0], covered[-1]
        lo = inside(first, max(start, pieces[first].start()))
        hi = inside(last, min(end, pieces[last].end()))
        lo = places[first][0] if lo is None else lo
        hi = places[last][1] if hi is None else hi
        return (lo, hi) if lo < hi else None

    return to_ours


# ---------------------------------------------------------------------------------------------- TOWE TSV


def read_towe_tsv(path: Path, sentences: Sequence[SemevalSentence], source: str,
                  issues: list[DataIssue]) -> list[OpinionEntry]:
    """TOWE's tab-separated file (s_id, tokens, target BIO tags, opinion BIO tags)."""
    try:
        lines = inputs.read_text(path).splitlines()
    except (OSError, UnicodeDecodeError) as err:
        raise DataError(f"{path}: not a readable TOWE file ({err}); re-download it") from None
    texts = {s.sentence_id: s.text for s in sentences}
    entries = []
    for number, line in enumerate(lines, 1):
        if not line.strip() or (number == 1 and line.startswith("s_id")):
            continue
        entry = _tsv_entry(line, f"{path.name}:{number}", texts, source, issues)
        if entry is not None:
            entries.append(entry)
    return entries


def _tsv_entry(line: str, where: str, texts: Mapping[str, str], source: str,
               issues: list[DataIssue]) -> OpinionEntry | None:
    fields = line.split("\t")
    record_id = fields[0] if fields else where

    def drop(kind: str, message: str) -> None:
        issues.append(DataIssue(source, record_id, kind, f"{where}: {message}", "dropped"))

    if len(fields) != 4:
        drop("malformed_record", f"expected 4 tab-separated fields, found {len(fields)}")
        return None
    sentence_id, tokens = fields[0], fields[1].split()
    target_tags, opinion_tags = _tags(fields[2]), _tags(fields[3])
    if [t for t, _ in target_tags] != tokens or [t for t, _ in opinion_tags] != tokens:
        drop("malformed_record", "the tag columns do not repeat the sentence's tokens")
        return None
    targets, opinions = _bio_runs([g for _, g in target_tags]), _bio_runs([g for _, g in opinion_tags])
    if len(targets) != 1:
        drop("malformed_record", f"{len(targets)} target spans tagged, expected exactly one")
        return None
    text = texts.get(sentence_id)
    if text is None:
        drop("unknown_sentence", f"sentence {sentence_id!r} is not in the SemEval file")
        return None
    places = align_tokens(text, tokens)
    if places is None:
        drop("unaligned_tokens", f"cannot align the tokens {fields[1]!r} with the SemEval text {text!r}")
        return None

    def chars(run: tuple[int, int]) -> Span:
        return places[run[0]][0], places[run[1]][1]

    (start, end), spans = chars(targets[0]), tuple(chars(run) for run in opinions)
    return OpinionEntry(where, sentence_id, text[start:end], start, end, spans)


def _tags(column: str) -> list[tuple[str, str]]:
    pairs = []
    for item in column.split():
        token, _, tag = item.rpartition("\\")
        pairs.append((token, tag) if token else (item, ""))
    return pairs


def _bio_runs(tags: Sequence[str]) -> list[tuple[int, int]]:
    """Inclusive (first, last) token indices of each B I* run (an I without a B starts a run)."""
    runs: list[tuple[int, int]] = []
    for i, tag in enumerate(tags):
        if tag == "B" or (tag == "I" and (not runs or runs[-1][1] != i - 1)):
            runs.append((i, i))
        elif tag == "I":
            runs[-1] = (runs[-1][0], i)
    return runs


# ---------------------------------------------------------------------------------------------- alignment

# How PTB-style tokenizers rewrite characters: the token, and what the original text may have had.
_TOKEN_FORMS = {
    "``": ('"', "''", "``", "'", "\u201c"), "''": ('"', "''", "``", "'", "\u201d"),
    "--": ("--", "-", "\u2014", "\u2013"), "-LRB-": ("(",), "-RRB-": (")",), "-LSB-": ("[",), "-RSB-": ("]",),
    "...": ("...", "\u2026"),
}
_SKIPPABLE = 3  # characters a tokenizer may drop between two tokens ("hot- ready" -> "hot ready")
_ALPHA = re.compile(r"[A-Za-z]+")


def align_tokens(text: str, tokens: Sequence[str]) -> list[Span] | None:
    """The [start, end) of each token in `text`, in order; None when the tokens do not fit the text.

    Tokens must appear in order. Allowed differences: spaces added or removed, quote and dash
    rewrites (`` '' -- -LRB-), case, up to three punctuation characters dropped between tokens,
    and a misspelling fixed (a word with similarity >= 0.8 to the token).
    """
    spans: list[Span] = []
    at = 0
    for token in tokens:
        found = None
        for start in _starts(text, at):
            end = _match(text, start, token)
            if end is not None:
                found = (start, end)
                break
        if found is None:
            return None
        spans.append(found)
        at = found[1]
    rest = text[at:]
    return spans if not any(c.isalnum() for c in rest) else None


def _starts(text: str, at: int) -> Iterator[int]:
    """Where the next token may start: after spaces, then after each droppable punctuation mark."""
    for _ in range(_SKIPPABLE + 1):
        while at < len(text) and text[at].isspace():
            at += 1
        yield at
        if at >= len(text) or text[at].isalnum():
            return
        at += 1


def _match(text: str, at: int, token: str) -> int | None:
    for form in (token, *_TOKEN_FORMS.get(token, ())):
        if text.startswith(form, at):
            return at + len(form)
    if text[at:at + len(token)].lower() == token.lower():
        return at + len(token)
    word = _ALPHA.match(text, at)
    if (word and token.isalpha() and len(token) >= 4
            and difflib.SequenceMatcher(None, word.group().lower(), token.lower()).ratio() >= 0.8):
        return word.end()
    return None
