"""Extraction quality: precision, recall and F1 per level (aspect, pair, triplet, quad), strict, expanded (when
an expanded ground truth is given) and flexible, with 95% bootstrap intervals over sentences.

F1 = 2·TP / (predicted + gold), summed over sentences (micro), so it is a Rate with k = 2·TP and
n = predicted + gold; precision k = TP of n = predicted; recall k = TP of n = gold. Within a sentence,
gold and predicted tuples are first deduplicated at the level's granularity (ASQP lists "eggplant,
negative" twice when two categories share it; the pair counts once). Where the gold has character
spans (SemEval-2014) a tuple is told apart by its span, so a term the sentence names twice is two
terms; where it has none (ASQP) the gold cannot say which place it means, so predictions of the same
normalised term (and polarity, ...) count once, unless each of them is matched to a gold tuple of its
own: a tagger that finds "waitress" at two places of an ASQP sentence whose gold has one made one
prediction, not a hit and a false positive; "roll" found in "special roll" and in "regular roll" is two
hits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from absa_checks.common.tuples import LEVELS, AnnotatedSentence, AspectTuple
from absa_checks.judge.matching import MATCH_MODES, level_available, matched, surface
from absa_checks.judge.stats import Rate

RESAMPLES = 1000


@dataclass(frozen=True)
class Counts:
    tp: int
    predicted: int
    gold: int


def _key(t: AspectTuple, level: str, spans: bool = True) -> tuple:
    depth = LEVELS.index(level)
    where = (t.start, t.end) if spans and t.has_span else surface(t.aspect)
    return (where, *((t.polarity,) if depth >= 1 else ()), *((surface(t.opinion or ""),) if depth >= 2 else ()),
            *((" ".join((t.category or "").lower().split()),) if depth >= 3 else ()))


def _unique(tuples: Sequence[AspectTuple], level: str) -> list[AspectTuple]:
    seen, kept = set(), []
    for t in tuples:
        if _key(t, level) not in seen:
            seen.add(_key(t, level))
            kept.append(t)
    return kept


def sentence_counts(annotated: AnnotatedSentence, predicted: Sequence[AspectTuple], level: str, mode: str) -> Counts:
    gold_indices = {_key(g, level): i for i, g in reversed(list(enumerate(annotated.gold)))}
    unique_gold = sorted(gold_indices.values())
    # the alternatives of a tuple counted once are those of every gold tuple it stands for (ASQP lists a pair
    # once per category; each line may have been expanded on its own)
    merged = lambda i, field: tuple(dict.fromkeys(  # noqa: E731
        a for j, g in enumerate(annotated.gold) if _key(g, level) == _key(annotated.gold[i], level)
        for a in annotated.alternatives(j, field)))
    view = AnnotatedSentence(annotated.sentence_id, annotated.sentence, tuple(annotated.gold[i] for i in unique_gold),
                             tuple(merged(i, "aspect") for i in unique_gold),
                             tuple(merged(i, "opinion") for i in unique_gold), annotated.spans)
    kept = _unique(predicted, level)
    assignment = matched(kept, view, level, mode)
    if annotated.has_spans:
        return Counts(len(assignment), len(kept), len(view.gold))
    hits = set(assignment.values())
    hit_terms = {_key(kept[p], level, spans=False) for p in hits}
    misses = {_key(t, level, spans=False) for p, t in enumerate(kept) if p not in hits} - hit_terms
    return Counts(len(assignment), len(hits) + len(misses), len(view.gold))


def levels_for(sentences: Sequence[AnnotatedSentence]) -> tuple[str, ...]:
    """The levels the gold annotates (SemEval-2014: aspect and pair; ASQP: all four)."""
    gold = [g for s in sentences for g in s.gold]
    return tuple(level for level in LEVELS if level_available(level, gold))


def rates(counts: Sequence[Counts], seed: int = 0, resamples: int = RESAMPLES) -> dict[str, Rate]:
    """f1, precision and recall over the sentences, each with a percentile bootstrap interval."""
    import numpy as np  # here, not at import: a project without extraction tests never loads it
    tp = np.array([c.tp for c in counts], dtype=np.int64)
    predicted = np.array([c.predicted for c in counts], dtype=np.int64)
    gold = np.array([c.gold for c in counts], dtype=np.int64)
    method = f"bootstrap over sentences ({resamples:,} resamples, seed {seed})"
    picks = np.random.default_rng(seed).integers(0, len(counts), size=(resamples, len(counts))) if counts else None

    def rate(k, n) -> Rate:
        total_k, total_n = int(k.sum()), int(n.sum())
        if total_n == 0 or picks is None:
            return Rate(total_k, total_n, float("nan"), float("nan"), method)
        ks, ns = k[picks].sum(1), n[picks].sum(1)
        values = np.divide(ks, ns, out=np.zeros(len(ks)), where=ns > 0)
        low, high = np.percentile(values, [2.5, 97.5])
        return Rate(total_k, total_n, float(low), float(high), method)

    return {"f1": rate(2 * tp, predicted + gold), "precision": rate(tp, predicted), "recall": rate(tp, gold)}


def modes_for(sentences: Sequence[AnnotatedSentence]) -> tuple[str, ...]:
    """strict and flexible; expanded too when an expanded ground truth was read for these sentences."""
    expanded = any(s.aspect_alternatives or s.opinion_alternatives for s in sentences)
    return tuple(m for m in MATCH_MODES if m != "expanded" or expanded)


def score(sentences: Sequence[AnnotatedSentence], predictions: Sequence[Sequence[AspectTuple]], seed: int = 0
          ) -> dict[str, dict[str, dict[str, Rate]]]:
    """level -> mode -> {f1, precision, recall}, for every level the gold annotates."""
    return {level: {mode: rates([sentence_counts(s, p, level, mode) for s, p in zip(sentences, predictions)], seed)
                    for mode in modes_for(sentences)}
            for level in levels_for(sentences)}


def predicted_levels(predictions: Sequence[Sequence[AspectTuple]]) -> tuple[str, ...]:
    """The levels a model's answers can be scored at: polarity for pairs, opinions for triplets, categories too
    for quads (a tagger gives no opinion: its triplet F1 would be a meaningless 0)."""
    found = [t for p in predictions for t in p]
    return ("aspect", *(("pair",) if any(t.polarity for t in found) else ()),
            *(("triplet",) if any(t.opinion for t in found) else ()),
            *(("quad",) if any(t.opinion and t.category for t in found) else ()))


def extraction_counts(sentences: Sequence[AnnotatedSentence], predictions: Sequence[Sequence[AspectTuple]]
                      ) -> dict[str, dict[str, list[list[int]]]]:
    """level -> mode -> [[tp, predicted, gold] per sentence], for the levels both the gold and the model have."""
    levels = [level for level in levels_for(sentences) if level in predicted_levels(predictions)]
    return {level: {mode: [[c.tp, c.predicted, c.gold] for c in (sentence_counts(s, p, level, mode)
                                                                 for s, p in zip(sentences, predictions))]
                    for mode in modes_for(sentences)} for level in levels}


@dataclass(frozen=True)
class ExtractionResult:
    """One extraction test on one source and checkpoint: level -> mode -> {f1, precision, recall}."""

    test: str
    test_name: str
    source: str
    model: str
    sentences: int
    errors: int
    first_error: str
    gates: dict
    levels: dict[str, dict[str, dict[str, Rate]]]

    def to_dict(self) -> dict:
        return {"test": self.test, "model": self.model, "sentences": self.sentences, "errors": self.errors,
                **({"first_error": self.first_error} if self.first_error else {}),
                **{level: {mode: {name: rate.to_dict() for name, rate in found.items()} for mode, found in modes.items()}
                   for level, modes in self.levels.items()}}


def results(records: Sequence[dict], seed: int) -> list[ExtractionResult]:
    """The extraction tests' per-sentence counts (items.ExtractionItem), with their bootstrap intervals."""
    return [ExtractionResult(r["test"], r["test_name"], r["source"], r["model"], r["sentences"], r["errors"],
                             r["first_error"], r["gates"],
                             {level: {mode: rates([Counts(*c) for c in counts], seed) for mode, counts in modes.items()}
                              for level, modes in r["counts"].items()})
            for r in records]
