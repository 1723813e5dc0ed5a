"""The SemEval-2014 Task 4 test sets (Pontiki et al., 2014), with opinion spans from TOWE.

One unit per aspect term whose label is positive, negative or neutral; `conflict` aspects stay in
their sentence as other aspects (polarity None) and are never targets. The unit id is
`<sentence id>_<k>`, k the aspect's index among the sentence's aspects in XML order.

Opinion spans, in order of preference:
1. `arts/src_data/{laptop,rest}/test_sent_towe.json`, the ARTS generator's input: TOWE's opinion
   words (Fan et al., 2019) with character offsets into a lightly re-tokenized copy of the sentence
   ("$ 150" for "$150", some spelling fixed); offsets are mapped back onto the SemEval text.
2. when that file is absent, TOWE's own `towe/{14lap,14res}/test.tsv`: space-tokenized sentences with
   BIO tags and no offsets; the tokens are aligned to the SemEval text (n't, $ 150, quotes, --,
   spaces the tokenizer added or dropped, misspellings it fixed). A row that cannot be aligned is
   dropped and reported.
3. aspects that neither annotates get inferred opinions (infer.py: from how sentiment words attach
   to the aspect; measured against TOWE in docs/opinion_inference.md).
Reading and aligning TOWE's files is absa_checks.sources.towe's job.

Opinions are joined for every aspect of a sentence (target and others), so a perturbation can
reverse the other aspects' opinions too.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from absa_checks.common import inputs
from absa_checks.common.errors import DataError
from absa_checks.common.examples import Aspect, DataIssue, Example, Opinion, Unit
from absa_checks.common.labels import canonical_label, polarity_hint
from absa_checks.sources.base import LoadedSource
from absa_checks.sources.infer import infer_opinions
from absa_checks.sources.spans import repair_span
from absa_checks.sources.towe import Span, join_opinions, read_towe_json, read_towe_tsv


@dataclass(frozen=True)
class DomainFiles:
    xml: str
    towe_json: str
    towe_tsv: str


TEST_FILES = {
    "laptop": DomainFiles("semeval2014/Laptops_Test_Gold.xml", "arts/src_data/laptop/test_sent_towe.json",
                          "towe/14lap/test.tsv"),
    "restaurant": DomainFiles("semeval2014/Restaurants_Test_Gold.xml", "arts/src_data/rest/test_sent_towe.json",
                              "towe/14res/test.tsv"),
}
# The training splits, for judging variants on units the test sets have not used up (benchmarks/quality/variant_quality.py).
TRAIN_FILES = {
    "laptop": DomainFiles("semeval2014/Laptop_Train_v2.xml", "arts/src_data/laptop/train_sent_towe.json",
                          "towe/14lap/train.tsv"),
    "restaurant": DomainFiles("semeval2014/Restaurants_Train_v2.xml", "arts/src_data/rest/train_sent_towe.json",
                              "towe/14res/train.tsv"),
}


@dataclass(frozen=True)
class SemevalSentence:
    """A sentence and its aspect terms in XML order; a `conflict` (or unknown) label is polarity None."""

    sentence_id: str
    text: str
    aspects: tuple[Aspect, ...]


GoldOpinions = Mapping[tuple[str, int], tuple[Span, ...]]  # (sentence id, aspect index) -> opinion spans


# ---------------------------------------------------------------------------------------------- XML


def read_semeval_xml(path: Path, source: str = "", issues: list[DataIssue] | None = None,
                     id_format: str = "{n}") -> list[SemevalSentence]:
    """Sentences of a SemEval-2014-style XML file. A sentence without an `id` attribute gets
    id_format.format(n=<0-based sentence index>). Aspects whose span cannot be repaired, and sentences whose
    text is empty (with their aspects), are dropped (and reported in `issues` when given)."""
    found = issues if issues is not None else []
    try:
        inputs.check_regular(path)
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as err:
        raise DataError(f"{path}: not a readable SemEval XML file ({err}); re-download it") from None
    sentences = []
    first_of: dict[str, tuple[int, str]] = {}  # sentence id -> (its 1-based <sentence>, its text)
    for n, node in enumerate(root.iter("sentence")):
        sentence_id = node.get("id") or id_format.format(n=n)
        text = node.findtext("text") or ""
        if sentence_id in first_of:  # its units would take the other sentence's opinions and variants
            found.append(_repeated_id(path, source, sentence_id, first_of[sentence_id], (n + 1, text),
                                      len(list(node.iter("aspectTerm")))))
            continue
        first_of[sentence_id] = (n + 1, text)
        if not text.strip():  # nothing to test, and no span can point into it: counted, never lost silently
            terms = len(list(node.iter("aspectTerm")))
            found.append(DataIssue(source, sentence_id, "empty_text",
                                   f"{path.name}: sentence {sentence_id!r} has an empty <text> "
                                   f"({terms} aspect term{'' if terms == 1 else 's'}); fill in its text or delete it",
                                   "dropped"))
            continue
        aspects = []
        for k, term_node in enumerate(node.iter("aspectTerm")):
            aspect = _read_aspect(text, term_node, f"{sentence_id}_{k}", source, found, path.name)
            if aspect is not None:
                aspects.append(aspect)
        sentences.append(SemevalSentence(sentence_id, text, tuple(aspects)))
    return sentences


def _repeated_id(path: Path, source: str, sentence_id: str, first: tuple[int, str], again: tuple[int, str],
                 terms: int) -> DataIssue:
    """The data issue of a second <sentence> with an id already used: named both, the second dropped."""
    def said(at: tuple[int, str]) -> str:
        text = " ".join(at[1].split())
        short = text if len(text) <= 40 else text[:40].rstrip() + "..."
        return f"<sentence> {at[0]} ({short!r})" if text else f"<sentence> {at[0]}"

    return DataIssue(source, sentence_id, "duplicate_id",
                     f"{path.name}: sentence id {sentence_id!r} is used twice, by {said(first)} and {said(again)}; "
                     f"the second is dropped with its {terms} aspect term{'' if terms == 1 else 's'}: give each "
                     "sentence its own id", "dropped")


def _read_aspect(text: str, node: ET.Element, record_id: str, source: str,
                 issues: list[DataIssue], file_name: str = "") -> Aspect | None:
    term, label = node.get("term", ""), node.get("polarity", "")
    try:
        start, end = int(node.get("from", "")), int(node.get("to", ""))
    except ValueError:
        issues.append(DataIssue(source, record_id, "malformed_record", "aspect term without integer from/to",
                                "dropped"))
        return None
    polarity = canonical_label(label)
    if polarity is None and label.strip().lower() == "conflict":  # counted, so none vanishes silently
        issues.append(DataIssue(source, record_id, "conflict_polarity",
                                f"aspect {term!r} is labelled conflict: kept as another aspect, never a target",
                                "reported"))
    elif polarity is None:
        sentence_id = record_id.rsplit("_", 1)[0]
        issues.append(DataIssue(source, record_id, "unknown_polarity",
                                f"{file_name}: sentence {sentence_id!r}, aspect {term!r}: polarity {label!r} is not a "
                                f"polarity ({polarity_hint(label)}); kept as another aspect, never a target",
                                "reported"))
    fix = repair_span(text, term, start, end)
    if fix is None:
        issues.append(DataIssue(source, record_id, "span_mismatch",
                                f"sentence[{start}:{end}] is {text[start:end]!r}, term {term!r} not found", "dropped"))
        return None
    if fix.note:
        issues.append(DataIssue(source, record_id, "span_mismatch",
                                f"sentence[{start}:{end}] is {text[start:end]!r}, not {term!r}: {fix.note} "
                                f"-> [{fix.start}:{fix.end}] {fix.term!r}", "repaired"))
    return Aspect(fix.term, fix.start, fix.end, polarity)


# ---------------------------------------------------------------------------------------------- units


def build_units(source: str, sentences: Iterable[SemevalSentence], gold: GoldOpinions) -> tuple[Unit, ...]:
    """One unit per aspect with a polarity. Each aspect of the sentence gets its gold opinions, or
    inferred ones when it has none (an inferred span never overlaps a gold one)."""
    units = []
    for sentence in sentences:
        text, aspects = sentence.text, sentence.aspects
        for k, target in enumerate(aspects):
            if target.polarity is None:
                continue
            order = [k] + [i for i in range(len(aspects)) if i != k]
            opinions: list[Opinion] = []
            for rank, index in enumerate(order):
                spans = gold.get((sentence.sentence_id, index), ())
                opinions += [Opinion(text[s:e], s, e, aspect=rank) for s, e in spans]
            missing = {rank for rank, index in enumerate(order) if not gold.get((sentence.sentence_id, index))}
            if missing:
                taken = [(o.start, o.end) for o in opinions]
                opinions += [o for o in infer_opinions(text, [aspects[i] for i in order])
                             if o.aspect in missing and all(o.end <= s or o.start >= e for s, e in taken)]
            opinions.sort(key=lambda o: o.aspect)  # stable: each aspect's own order is kept
            unit_id = f"{sentence.sentence_id}_{k}"
            example = Example(text, target, tuple(aspects[i] for i in order[1:]), tuple(opinions), record_id=unit_id)
            units.append(Unit(source, unit_id, example))
    return tuple(units)


def load_semeval(data_dir: Path, name: str, domain: str, split: str = "test") -> LoadedSource:
    """The SemEval-2014 `domain` ("laptop" or "restaurant") test (or train) set under data_dir."""
    files = (TRAIN_FILES if split == "train" else TEST_FILES)[domain]
    issues: list[DataIssue] = []
    sentences = read_semeval_xml(data_dir / files.xml, name, issues)
    towe_json, towe_tsv = data_dir / files.towe_json, data_dir / files.towe_tsv
    read = [data_dir / files.xml]
    if towe_json.is_file():
        entries = read_towe_json(towe_json, sentences, name, issues)
        read.append(towe_json)
    elif towe_tsv.is_file():
        entries = read_towe_tsv(towe_tsv, sentences, name, issues)
        read.append(towe_tsv)
    else:
        entries = []
    gold = join_opinions(entries, sentences, name, issues)
    return LoadedSource(name, build_units(name, sentences, gold), tuple(issues), domain=domain, files=tuple(read))
