"""Benchmark: inferred opinion spans against TOWE's gold spans, and what they do to REVTGT coverage.

    python benchmarks/quality/opinion_inference.py [--data ../shared/data] [--json out.json] [--show-errors N]
                                           [--split train]

For both SemEval-2014 test sets (laptop, restaurant) the same XML is loaded twice:
- "TOWE": the `semeval14-*` source (TOWE's gold opinion spans; aspects TOWE leaves out get inferred ones);
- "inferred": the XML alone, as `absa-checks generate --input <xml>` reads it: every span inferred.

Opinion quality is scored on the targets TOWE annotates (their spans are the answer key), micro-averaged:
- token level: a token is a word (letters/digits run) inside a span; precision = inferred tokens that lie in
  a gold span of the same target / inferred tokens; recall = gold tokens covered / gold tokens;
- exact spans: an inferred span equal (same characters) to a gold span of the same target;
- overlap spans: an inferred span sharing a token with a gold span (so "not good" for "good" counts).
Targets TOWE leaves out are mostly neutral or opinion-less: how many of them get an inferred opinion is
reported too ("spurious").

REVTGT coverage is counted live from the current generator (absa_checks.perturb.engine.generate with
Settings(seed=0)) on the same targets: variants shipped (accepted) with TOWE, with inference only, and
their ratio. Of the inferred-only variants on TOWE-annotated targets, "clean" ones are those whose every
inferred target opinion overlaps a gold span, and "same" ones equal the TOWE variant word for word.
`--split train` measures SemEval's training sets instead (the split the rules were developed on).
Results: docs/opinion_inference.md.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from absa_checks.common.examples import Unit, Variant  # noqa: E402
from absa_checks.perturb.engine import Settings, generate  # noqa: E402
from absa_checks.perturb.resources import Resources, load_resources  # noqa: E402
from absa_checks.sources import load_dataset  # noqa: E402
from absa_checks.sources.semeval import TEST_FILES, build_units, read_semeval_xml  # noqa: E402
from absa_checks.sources.towe import join_opinions, read_towe_json  # noqa: E402

SOURCES = {"semeval14-laptop": "laptop", "semeval14-restaurant": "restaurant"}
# The training split, for developing the rules without looking at the test sets: SemEval's training XML and
# the TOWE spans ARTS joined to it (ARTS split SemEval's training set into its train and dev files).
TRAIN_FILES = {"laptop": ("semeval2014/Laptop_Train_v2.xml", "arts/src_data/laptop"),
               "restaurant": ("semeval2014/Restaurants_Train_v2.xml", "arts/src_data/rest")}
Span = tuple[int, int]
_TOKEN = re.compile(r"\w+")


@dataclass(frozen=True)
class Scores:
    """Opinion spans of the TOWE-annotated targets: inferred against gold (micro counts)."""

    targets: int                 # targets TOWE annotates
    targets_with_inferred: int   # ... of which inference found at least one opinion for
    gold_tokens: int
    inferred_tokens: int
    matched_tokens: int          # inferred tokens inside a gold span of the same target
    covered_gold_tokens: int     # gold tokens inside an inferred span of the same target
    gold_spans: int
    inferred_spans: int
    exact_spans: int             # inferred spans equal to a gold span
    overlap_spans: int           # inferred spans sharing a token with a gold span
    gold_spans_found: int        # gold spans overlapped by some inferred span
    unannotated_targets: int     # targets TOWE leaves out
    spurious: int                # ... of which inference gives an opinion anyway

    @property
    def token_precision(self) -> float:
        return _ratio(self.matched_tokens, self.inferred_tokens)

    @property
    def token_recall(self) -> float:
        return _ratio(self.covered_gold_tokens, self.gold_tokens)

    @property
    def exact_precision(self) -> float:
        return _ratio(self.exact_spans, self.inferred_spans)

    @property
    def exact_recall(self) -> float:
        return _ratio(self.exact_spans, self.gold_spans)  # an exact match pairs one inferred and one gold span

    @property
    def overlap_precision(self) -> float:
        return _ratio(self.overlap_spans, self.inferred_spans)

    @property
    def overlap_recall(self) -> float:
        return _ratio(self.gold_spans_found, self.gold_spans)


@dataclass(frozen=True)
class Coverage:
    """REVTGT variants shipped (accepted by the generator) on the same targets."""

    targets: int
    towe: int                   # with the semeval14-* source (TOWE, inference for what TOWE leaves out)
    towe_gold_only: int         # ... of those, on targets TOWE annotates
    inferred: int               # with inference only
    inferred_on_annotated: int  # ... of those, on targets TOWE annotates
    clean: int                  # ... of those, every inferred target opinion overlaps a gold span
    same_as_towe: int           # ... of those, the very same sentence as the TOWE variant

    @property
    def ratio(self) -> float:
        return _ratio(self.inferred, self.towe)

    @property
    def annotated_ratio(self) -> float:
        """Inferred-only variants on TOWE-annotated targets that reverse a gold opinion, per TOWE variant there."""
        return _ratio(self.clean, self.towe_gold_only)


def _ratio(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


def target_spans(unit: Unit, inferred: bool) -> tuple[Span, ...]:
    return tuple((o.start, o.end) for o in unit.original.opinions if o.aspect == 0 and o.inferred == inferred)


def tokens_in(sentence: str, spans: Iterable[Span]) -> set[Span]:
    """The word tokens (as character spans) lying inside any of `spans`."""
    found = set()
    for start, end in spans:
        found |= {(m.start() + start, m.end() + start) for m in _TOKEN.finditer(sentence[start:end])}
    return found


def score_opinions(towe_units: Sequence[Unit], inferred_units: Mapping[str, Unit]) -> Scores:
    counts = dict.fromkeys(Scores.__dataclass_fields__, 0)
    for unit in towe_units:
        gold = target_spans(unit, inferred=False)
        guess = target_spans(inferred_units[unit.unit_id], inferred=True)
        if not gold:
            counts["unannotated_targets"] += 1
            counts["spurious"] += bool(guess)
            continue
        sentence = unit.original.sentence
        gold_tokens, guess_tokens = tokens_in(sentence, gold), tokens_in(sentence, guess)
        counts["targets"] += 1
        counts["targets_with_inferred"] += bool(guess)
        counts["gold_tokens"] += len(gold_tokens)
        counts["inferred_tokens"] += len(guess_tokens)
        counts["matched_tokens"] += len(guess_tokens & gold_tokens)
        counts["covered_gold_tokens"] += len(gold_tokens & guess_tokens)
        counts["gold_spans"] += len(gold)
        counts["inferred_spans"] += len(guess)
        counts["exact_spans"] += sum(1 for g in guess if g in gold)
        counts["overlap_spans"] += sum(1 for g in guess if tokens_in(sentence, [g]) & gold_tokens)
        counts["gold_spans_found"] += sum(1 for g in gold if tokens_in(sentence, [g]) & guess_tokens)
    return Scores(**counts)


def revtgt_variants(units: Sequence[Unit], resources: Resources, domain: str) -> dict[str, Variant]:
    """unit id -> the REVTGT variant the generator ships (units it quarantines or skips are absent)."""
    shipped = {}
    for unit in units:
        outcome = generate(unit, "revtgt", Settings(seed=0), resources, domain)
        if isinstance(outcome, Variant):
            shipped[unit.unit_id] = outcome
    return shipped


def count_coverage(towe_units: Sequence[Unit], inferred_units: Mapping[str, Unit],
                   towe_variants: Mapping[str, Variant], inferred_variants: Mapping[str, Variant]) -> Coverage:
    annotated = {u.unit_id: u for u in towe_units if target_spans(u, inferred=False)}
    on_annotated = [uid for uid in inferred_variants if uid in annotated]

    def clean(uid: str) -> bool:
        sentence = annotated[uid].original.sentence
        gold = tokens_in(sentence, target_spans(annotated[uid], inferred=False))
        return all(tokens_in(sentence, [span]) & gold for span in target_spans(inferred_units[uid], inferred=True))

    return Coverage(
        targets=len(towe_units), towe=len(towe_variants),
        towe_gold_only=sum(1 for uid in towe_variants if uid in annotated),
        inferred=len(inferred_variants), inferred_on_annotated=len(on_annotated),
        clean=sum(1 for uid in on_annotated if clean(uid)),
        same_as_towe=sum(1 for uid in on_annotated if uid in towe_variants
                         and towe_variants[uid].example.sentence == inferred_variants[uid].example.sentence))


@dataclass(frozen=True)
class Measured:
    source: str
    scores: Scores
    coverage: Coverage
    errors: tuple[str, ...]  # inferred target opinions outside every gold span, for reading

    def to_dict(self) -> dict:
        scores = {**asdict(self.scores), **{name: round(getattr(self.scores, name), 4) for name in (
            "token_precision", "token_recall", "exact_precision", "exact_recall", "overlap_precision",
            "overlap_recall")}}
        coverage = {**asdict(self.coverage), "ratio": round(self.coverage.ratio, 4),
                    "annotated_ratio": round(self.coverage.annotated_ratio, 4)}
        return {"source": self.source, "opinions": scores, "revtgt": coverage}


def inferred_only(data: Path, name: str, domain: str) -> tuple[Unit, ...]:
    """The test set's units as the XML alone gives them (what `generate --input <xml>` loads)."""
    return build_units(name, read_semeval_xml(data / TEST_FILES[domain].xml, name), {})


def wrong_guesses(towe_units: Sequence[Unit], inferred_units: Mapping[str, Unit]) -> tuple[str, ...]:
    lines = []
    for unit in towe_units:
        gold = target_spans(unit, inferred=False)
        sentence = unit.original.sentence
        gold_tokens = tokens_in(sentence, gold)
        for span in target_spans(inferred_units[unit.unit_id], inferred=True):
            if gold and not tokens_in(sentence, [span]) & gold_tokens:
                lines.append(f"{unit.unit_id} [{unit.original.target.term}] inferred {sentence[span[0]:span[1]]!r}, "
                             f"gold {[sentence[s:e] for s, e in gold]}: {sentence}")
    return tuple(lines)


def train_units(data: Path, name: str, domain: str) -> tuple[tuple[Unit, ...], tuple[Unit, ...]]:
    """(with TOWE, inferred only) for the training split, loaded as load_semeval loads the test set."""
    xml, folder = TRAIN_FILES[domain]
    sentences = read_semeval_xml(data / xml, name)
    entries = [e for split in ("train", "dev")
               for e in read_towe_json(data / folder / f"{split}_sent_towe.json", sentences, name, [])]
    return build_units(name, sentences, join_opinions(entries, sentences, name, [])), build_units(name, sentences, {})


def measure(data: Path, sources: Mapping[str, str] = SOURCES, split: str = "test") -> dict[str, Measured]:
    results = {}
    for name, domain in sources.items():
        resources = load_resources(domain)
        if split == "test":
            towe_units, inferred = load_dataset(name, data).units, inferred_only(data, name, domain)
        else:
            towe_units, inferred = train_units(data, name, domain)
        inferred_units = {u.unit_id: u for u in inferred}
        assert set(inferred_units) == {u.unit_id for u in towe_units}, "both loads must give the same targets"
        towe_variants = revtgt_variants(towe_units, resources, domain)
        inferred_variants = revtgt_variants(tuple(inferred_units.values()), resources, domain)
        results[name] = Measured(name, score_opinions(towe_units, inferred_units),
                                 count_coverage(towe_units, inferred_units, towe_variants, inferred_variants),
                                 wrong_guesses(towe_units, inferred_units))
    return results


def table(results: Mapping[str, Measured]) -> str:
    rows = [("", *results)]

    def add(label: str, values: Iterable[str]) -> None:
        rows.append((label, *values))

    ms = list(results.values())
    add("TOWE-annotated targets", (f"{m.scores.targets} of {m.coverage.targets}" for m in ms))
    add("token precision", (f"{m.scores.token_precision:.3f}" for m in ms))
    add("token recall", (f"{m.scores.token_recall:.3f}" for m in ms))
    add("exact-span precision", (f"{m.scores.exact_precision:.3f}" for m in ms))
    add("exact-span recall", (f"{m.scores.exact_recall:.3f}" for m in ms))
    add("overlap-span precision", (f"{m.scores.overlap_precision:.3f}" for m in ms))
    add("overlap-span recall", (f"{m.scores.overlap_recall:.3f}" for m in ms))
    add("unannotated targets given an opinion", (f"{m.scores.spurious} of {m.scores.unannotated_targets}" for m in ms))
    add("REVTGT shipped with TOWE", (f"{m.coverage.towe} ({m.coverage.towe_gold_only} on gold spans)" for m in ms))
    add("REVTGT shipped, inference only", (f"{m.coverage.inferred} ({m.coverage.inferred_on_annotated} on "
                                           "TOWE-annotated targets)" for m in ms))
    add("  of those: clean / same as TOWE's", (f"{m.coverage.clean} / {m.coverage.same_as_towe}" for m in ms))
    add("coverage ratio inferred / TOWE", (f"{m.coverage.ratio:.3f}" for m in ms))
    add("clean on annotated / TOWE gold", (f"{m.coverage.annotated_ratio:.3f}" for m in ms))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[3] / "shared" / "data"))
    parser.add_argument("--json", default=None, help="write the table's numbers to this JSON file")
    parser.add_argument("--show-errors", type=int, default=0, metavar="N",
                        help="print N inferred target opinions that overlap no gold span, per test set")
    parser.add_argument("--split", choices=("test", "train"), default="test",
                        help="train: SemEval's training sets with TOWE's training spans (for developing the rules)")
    args = parser.parse_args()
    results = measure(Path(args.data), split=args.split)
    print(table(results))
    for m in results.values():
        for line in m.errors[:args.show_errors]:
            print(f"{m.source}: {line}")
    if args.json:
        Path(args.json).write_text(json.dumps({name: m.to_dict() for name, m in results.items()}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
