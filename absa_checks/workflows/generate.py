"""`absa-checks generate`: write generated variants of any annotated ABSA file (JSONL or ARTS JSON).

Also builds adversarial training data, as in the ARTS paper's section 5.4.
"""

from __future__ import annotations

import io
import json
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field, replace
from importlib import metadata
from typing import TextIO

from absa_checks.common.errors import AbsaChecksError
from absa_checks.common.examples import DataIssue, Example, Unit, Variant
from absa_checks.common.fingerprint import generator_sha256
from absa_checks.common.llm_requests import requests_lines
from absa_checks.perturb import rewrite_check, rewrite_prompt
from absa_checks.perturb.engine import Quarantined, Settings
from absa_checks.perturb.variants import VariantRequest, VariantSet
from absa_checks.run.run_state import VariantCache
from absa_checks.sources.base import LoadedSource
from absa_checks.suites import strategies as strategy_names
from absa_checks.suites.candidates import Candidate, candidate_id, same_occurrence, unit_hash
from absa_checks.workflows import rewrite

ARTS_SUFFIX = {"revtgt": "_adv1", "revnon": "_adv2", "adddiff": "_adv3"}
NO_GIVEN = "the source gives no variant"  # the not-applicable reason of a unit without a given variant


@dataclass
class GenerationTally:
    """Per strategy: variants written, and why the other units have none (quarantined or not applicable)."""

    made: Counter = field(default_factory=Counter)            # strategy
    not_applicable: Counter = field(default_factory=Counter)  # (strategy, reason)
    quarantined: Counter = field(default_factory=Counter)     # (strategy, reason)
    given: set[str] = field(default_factory=set)              # strategies whose variants the source gives
    rewriter: list[str] = field(default_factory=list)         # the rewriter's own lines (rewrite.Rewritten.lines)
    incomplete: str | None = None                             # rewrite.Rewritten.incomplete: requests that failed

    def add(self, strategy: str, found: VariantSet) -> None:
        self.made[strategy] += sum(len(v) for v in found.by_unit.values())
        if found.mode == "given":
            self.given.add(strategy)
            self.not_applicable[(strategy, NO_GIVEN)] += sum(not v for v in found.by_unit.values())
        for q in found.quarantined:
            self.quarantined[(strategy, q.reason)] += 1
        for n in found.not_applicable:
            self.not_applicable[(strategy, n.reason)] += 1

    def lines(self) -> list[str]:
        out = []
        pairs = set(self.quarantined) | set(self.not_applicable)
        for strategy in sorted(set(self.made) | {s for s, _ in pairs}):
            rejected = _reasons(self.quarantined, strategy)
            skipped = _reasons(self.not_applicable, strategy)
            given = " (given by the source)" if strategy in self.given else ""
            out.append(f"{strategy}: {self.made[strategy]} variants{given}, {sum(n for _, n in rejected)} "
                       f"quarantined, {sum(n for _, n in skipped)} not applicable")
            out += [f"    quarantined: {n} x {reason}" for reason, n in rejected]
            out += [f"    not applicable: {n} x {reason}" for reason, n in skipped]
        return out + self.rewriter


ISSUE_KINDS_SHOWN = 5  # the data issues' kinds generate names, each with its first message (the rest: counted)


def issue_lines(issues: Iterable[DataIssue]) -> list[str]:
    """The data issues of the input, as the run's report counts them: how many, by kind and what was done, and
    the first message of each kind (so a dropped sentence or an unknown label is never passed over in silence)."""
    found = list(issues)
    if not found:
        return []
    kinds = Counter((i.kind, i.action) for i in found)
    first: dict[tuple[str, str], DataIssue] = {}
    for issue in found:
        first.setdefault((issue.kind, issue.action), issue)
    ordered = sorted(kinds, key=lambda k: (k[1] != "dropped", -kinds[k], k))
    lines = [f"{len(found)} data issue{'' if len(found) == 1 else 's'} while loading: "
             + ", ".join(f"{kinds[k]} {k[0]} ({k[1]})" for k in ordered)]
    for key in ordered[:ISSUE_KINDS_SHOWN]:
        issue = first[key]
        lines.append(f"    {key[0]}: {issue.record_id}: {issue.message}"
                     + (f" (and {kinds[key] - 1} more)" if kinds[key] > 1 else ""))
    if len(ordered) > ISSUE_KINDS_SHOWN:
        lines.append(f"    ... and {len(ordered) - ISSUE_KINDS_SHOWN} more kinds")
    return lines


def _reasons(counts: Counter, strategy: str) -> list[tuple[str, int]]:
    """(reason, count) for one strategy, the most frequent first (ties by name, for stable output)."""
    found = [(reason, n) for (s, reason), n in counts.items() if s == strategy and n]
    return sorted(found, key=lambda x: (-x[1], x[0]))


def distinct_units(loaded: LoadedSource) -> None:
    """Variants are found by unit id: two units sharing one would each get the other's variants and be written
    twice, while the tally counts them once. The loaders drop a repeated id as a data issue; anything else
    that slips through is one error naming it, never a wrong file."""
    seen: set[str] = set()
    for unit in loaded.units:
        if unit.unit_id in seen:
            raise AbsaChecksError(f"{loaded.name}: two units share the id {unit.unit_id!r}; give each record its "
                                  "own id")
        seen.add(unit.unit_id)


def rule_sets(loaded: LoadedSource, strategies: list[str], settings: Settings, mode: str,
              cache: VariantCache | None = None) -> dict[str, VariantSet]:
    """Each strategy's variants, chosen as a suite test with `variants: mode` chooses them: through the plugin's
    own VariantCache, so the two cannot drift."""
    distinct_units(loaded)
    cache = cache or VariantCache(settings.seed)
    found = {}
    for s in strategies:  # each strategy gets the parameters it declares
        params = tuple((key, value) for key, value in settings.params if key in strategy_names.parameters(s))
        found[s] = cache.variants(VariantRequest(s, mode, params), loaded, loaded.units)
    return found


def export_requests(loaded: LoadedSource, strategies: list[str], settings: Settings, mode: str,
                    body: rewrite_prompt.BodySettings, everything: bool) -> tuple[str, int]:
    """`generate --export-requests FILE`: the requests the rewriter would be sent (nothing is asked), as the
    requests file's text, and how many units and strategies they are for."""
    asks = rewrite.plan(loaded, rule_sets(loaded, strategies, settings, mode), body, everything)
    return rewrite.export_text(asks), len(asks)


def export_pending(loaded: LoadedSource, strategies: list[str], settings: Settings, mode: str,
                   asking: rewrite.Asking) -> tuple[str, int]:
    """`generate --rewriter NAME --export-requests FILE`: the requests a run would send next that the cache holds
    no answer for (first turns; the repair turns of kept answers the checks refuse), asking nothing."""
    cache = VariantCache(settings.seed)
    found = rule_sets(loaded, strategies, settings, mode, cache)
    asks = rewrite.plan(loaded, found, asking.rewriter.settings, asking.everything)
    bodies = rewrite.pending(loaded, asks, asking, cache.resources(loaded.domain or "restaurant"))
    return requests_lines(bodies), len(asks)


def with_rewriter(loaded: LoadedSource, strategies: list[str], settings: Settings, mode: str,
                  rewriter: rewrite.Asking | None, skip: Callable[[str, str, str], bool] | None = None
                  ) -> tuple[dict[str, VariantSet], dict[str, VariantSet], rewrite.Rewritten | None]:
    """The rules' sets, and the sets with the rewriter's verified variants and quarantined answers added (the
    same when no rewriter is named), and what the rewriter gave; `skip(source, unit, strategy)`: not asked."""
    cache = VariantCache(settings.seed)
    found = rule_sets(loaded, strategies, settings, mode, cache)
    if rewriter is None:
        return found, found, None
    asks = rewrite.plan(loaded, found, rewriter.rewriter.settings, rewriter.everything)
    if skip is not None:
        asks = [a for a in asks if not skip(a.unit.source, a.unit.unit_id, a.request.strategy)]
    resources = cache.resources(loaded.domain or "restaurant")
    rewritten = rewrite.rewrite(loaded, asks, rewriter.rewriter, resources, rewriter.cache, rewriter.verifier,
                                rewriter.repairs)
    merged = {}
    for strategy, variants in found.items():
        by_unit = dict(variants.by_unit)
        for (s, unit_id), variant in rewritten.variants.items():
            if s == strategy:
                by_unit[unit_id] = by_unit.get(unit_id, ()) + (variant,)
        extra = tuple(q for q in rewritten.quarantined if q.strategy == strategy)
        merged[strategy] = replace(variants, by_unit=by_unit, quarantined=variants.quarantined + extra)
    return found, merged, rewritten


def run(loaded: LoadedSource, strategies: list[str], settings: Settings, mode: str = "generated",
        rewriter: rewrite.Asking | None = None) -> tuple[list[tuple[Unit, Variant]], list[Quarantined], GenerationTally]:
    """Each unit's variants for each strategy, chosen as a suite test with `variants: mode` chooses them; with a
    rewriter, its verified variants after the rules' (the tally counts the rules' and the rewriter's apart)."""
    rules, found, rewritten = with_rewriter(loaded, strategies, settings, mode, rewriter)
    tally = GenerationTally()
    for strategy, variants in rules.items():
        tally.add(strategy, variants)
    if rewritten is not None and rewriter is not None:
        tally.rewriter = rewritten.lines(rewriter.rewriter.name)
        tally.incomplete = incomplete(rewriter, rewritten)
    rejected_of: dict[tuple[str, str], list[Quarantined]] = {}
    for s, v in found.items():
        for q in v.quarantined:
            rejected_of.setdefault((s, q.unit_id), []).append(q)
    made, rejected = [], []
    for unit in loaded.units:  # unit by unit, strategies in the order asked (as the output always was)
        for strategy in strategies:
            made += [(unit, variant) for variant in found[strategy].by_unit.get(unit.unit_id, ())]
            rejected += rejected_of.get((strategy, unit.unit_id), [])
    return made, rejected, tally


def incomplete(asking: rewrite.Asking | None, rewritten: rewrite.Rewritten | None) -> str | None:
    """The one line saying the rewriter's work is incomplete (rewrite.Rewritten.incomplete), or None."""
    if asking is None or rewritten is None:
        return None
    return rewritten.incomplete(asking.rewriter.name, asking.rewriter.endpoint)


def _aspects(example: Example) -> list[dict]:
    return [{"term": a.term, "from": a.start, "to": a.end, "polarity": a.polarity} for a in example.others]


def jsonl_record(unit: Unit, variant: Variant) -> dict:
    v, o = variant.example, unit.original
    return {"strategy": variant.strategy, "unit": unit.unit_id, "source": unit.source,
            "sentence": v.sentence, "term": v.target.term, "from": v.target.start, "to": v.target.end,
            "polarity": v.polarity, "other_aspects": _aspects(v),
            "original": {"sentence": o.sentence, "term": o.target.term, "from": o.target.start,
                         "to": o.target.end, "polarity": o.polarity},
            "edits": [asdict(e) for e in variant.edits],
            **({"origin": "rewriter", "provenance": variant.provenance} if variant.origin == "rewriter" else {})}


def write_jsonl(made: Iterable[tuple[Unit, Variant]], out: TextIO) -> None:
    for unit, variant in made:
        out.write(json.dumps(jsonl_record(unit, variant), ensure_ascii=False) + "\n")


def write_arts(made: list[tuple[Unit, Variant]], out: TextIO) -> None:
    """The ARTS test-set layout: `<unit>` originals and `<unit>_adv1/2/3` variants, grouped by `id`."""
    records: dict[str, dict] = {}

    def record(example: Example, unit_id: str) -> dict:
        t = example.target
        return {"sentence": example.sentence, "term": t.term, "polarity": t.polarity, "id": unit_id,
                "from": t.start, "to": t.end}

    for unit, variant in made:
        records.setdefault(unit.unit_id, record(unit.original, unit.unit_id))
        suffix = ARTS_SUFFIX.get(variant.strategy, "_" + variant.strategy.replace("+", "_"))
        records[unit.unit_id + suffix] = record(variant.example, unit.unit_id)
    json.dump(records, out, ensure_ascii=False, indent=1)
    out.write("\n")


def quarantine_jsonl(rejected: list[Quarantined]) -> str:
    """The rejected attempts, one JSON line each (`generate --quarantine`)."""
    return "".join(json.dumps(q.to_dict(), ensure_ascii=False) + "\n" for q in rejected)


# The candidates file (absa_checks.suites.candidates; docs/suites.md, "Frozen variants"): every unit's
# proposal for every strategy, shipped, quarantined or none, each waiting for a reviewer's decision.

def generator_info() -> dict:
    """Which generator proposed a candidate: name, version, and the fingerprint of its code and word lists."""
    try:
        version = metadata.version("absa-checks")
    except metadata.PackageNotFoundError:
        version = "unknown"
    return {"name": "absa-checks", "version": version, "fingerprint": generator_sha256()[:16]}


def candidates(loaded: LoadedSource, strategies: list[str], settings: Settings, mode: str = "generated",
               skip: Callable[[str, str, str], bool] = lambda source, unit, strategy: False,
               rewriter: rewrite.Asking | None = None,
               skip_rewritten: Callable[[str, str, str], bool] | None = None) -> list[dict]:
    """The candidates of `proposals`, without the line saying the rewriter's work is incomplete."""
    return proposals(loaded, strategies, settings, mode, skip, rewriter, skip_rewritten)[0]


def proposals(loaded: LoadedSource, strategies: list[str], settings: Settings, mode: str = "generated",
              skip: Callable[[str, str, str], bool] = lambda source, unit, strategy: False,
              rewriter: rewrite.Asking | None = None,
              skip_rewritten: Callable[[str, str, str], bool] | None = None) -> tuple[list[dict], str | None]:
    """One candidate per unit and strategy (several when the source gives several), in the order `run` writes;
    `skip(source, unit, strategy)` leaves out those already in a file (`generate --update`). The rewriter's
    candidates (verified, or quarantined with the check's reason) follow the rules', with `origin: rewriter`
    and their own `generator` (rewriter, model, prompt_sha256, request_key); `skip_rewritten` (default `skip`)
    leaves out theirs, and the rewriter is not asked about those. A request that failed is no candidate (there
    is nothing to review, and a later `--update` asks it again): it is counted in the line saying the
    rewriter's work is incomplete (rewrite.Rewritten.incomplete), returned beside the candidates (None: complete)."""
    generator = generator_info()
    skip_llm = skip_rewritten or skip
    rules, found, rewritten = with_rewriter(loaded, strategies, settings, mode, rewriter, skip_llm)
    ruled_out = {(s, q.unit_id) for s, variants in rules.items() for q in variants.quarantined}
    rejected_of: dict[tuple[str, str], list[Quarantined]] = {}
    why_none: dict[tuple[str, str], str] = {}
    for s, variants in found.items():
        for q in variants.quarantined:
            rejected_of.setdefault((s, q.unit_id), []).append(q)
        for unit_id, why in variants.without_variant:
            why_none.setdefault((s, unit_id), why)
    out = []
    for unit in loaded.units:
        digest = unit_hash(unit.original)
        for asked in strategies:
            strategy = "+".join(strategy_names.split_chain(asked))  # as a suite names it: no spaces around '+'
            skip_rules, skip_theirs = skip(unit.source, unit.unit_id, strategy), skip_llm(unit.source, unit.unit_id,
                                                                                           strategy)
            variants = found[asked]
            rejected = rejected_of.get((asked, unit.unit_id), [])
            base = {"generator": generator, "seed": settings.seed, "params": dict(settings.params), "mode": variants.mode,
                    "unit_hash": digest, "decision": None, "reviewer": None, "decided_at": None}
            for variant in variants.by_unit.get(unit.unit_id, ()):
                if (skip_theirs if variant.origin == "rewriter" else skip_rules):
                    continue
                record, own = {**jsonl_record(unit, variant), "strategy": strategy}, base
                if record.pop("provenance", None) is not None:  # the rewriter's: its own generator
                    own = {**base, "generator": {**(variant.provenance or {}), "version": generator["version"]}}
                out.append(_candidate(record, "shipped", None, own))
            for q in rejected:
                if (skip_theirs if q.reason.startswith(rewrite_check.P) else skip_rules) or \
                        q.reason == rewrite_check.NO_ANSWER:
                    continue
                record, own = _attempt(unit, strategy, q), base
                key = rewritten.keys.get((asked, unit.unit_id)) if rewritten is not None else None
                if q.reason.startswith(rewrite_check.P) and key is not None and rewriter is not None:
                    record["origin"] = "rewriter"
                    own = {**base, "generator": {**rewrite.provenance(rewriter.rewriter, key),
                                                 "version": generator["version"]}}
                out.append(_candidate(record, "quarantined", f"{q.reason}: {q.detail}", own))
            # the rules' own "none" stays, whatever the rewriter made of the unit
            if not skip_rules and not rules[asked].by_unit.get(unit.unit_id) and (asked, unit.unit_id) not in ruled_out:
                why = why_none.get((asked, unit.unit_id), "no variant")
                record = {"strategy": strategy, "unit": unit.unit_id, "source": unit.source, "sentence": None,
                          "original": jsonl_record_original(unit)}
                out.append(_candidate(record, "not_applicable", why, base))
    return out, incomplete(rewriter, rewritten)


def _candidate(record: dict, status: str, reason: str | None, base: dict) -> dict:
    found = {**record, "status": status, "reason": reason, **base}
    return {"id": candidate_id(found), **found}


def jsonl_record_original(unit: Unit) -> dict:
    o = unit.original
    return {"sentence": o.sentence, "term": o.target.term, "from": o.target.start, "to": o.target.end,
            "polarity": o.polarity}


def _attempt(unit: Unit, strategy: str, q: Quarantined) -> dict:
    """A quarantined attempt: its sentence, the target where it is found (once, or at its rank in the original:
    candidates.same_occurrence), the polarity it meant."""
    o = unit.original
    term = o.target.term
    start = same_occurrence(q.sentence, term, o.sentence, o.target.start)
    # the other aspects where the attempt has them (the same rule); null where it lost or repeated one
    others = []
    for a in o.others:
        found = same_occurrence(q.sentence, a.term, o.sentence, a.start)
        others.append({"term": a.term, "from": found, "to": None if found is None else found + len(a.term),
                       "polarity": a.polarity})
    flips = sum(strategy_names.get(part).flips_gold for part in strategy_names.split_chain(strategy)) % 2
    polarity = {"positive": "negative", "negative": "positive"}.get(unit.original.polarity) if flips else \
        unit.original.polarity
    return {"strategy": strategy, "unit": unit.unit_id, "source": unit.source, "sentence": q.sentence, "term": term,
            "from": start, "to": None if start is None else start + len(term),
            "polarity": polarity, "other_aspects": others,
            "original": jsonl_record_original(unit), "edits": []}


def write_candidates(records: Iterable[dict], out: TextIO) -> None:
    for record in records:
        out.write(json.dumps(record, ensure_ascii=False) + "\n")


def update(existing_text: str, existing: tuple[Candidate, ...], loaded: LoadedSource, strategies: list[str],
           settings: Settings, mode: str, rewriter: rewrite.Asking | None = None) -> tuple[str, int, str | None]:
    """`generate --update FILE`: FILE's lines kept byte for byte, then candidates for each (unit, strategy)
    with no candidate at the unit's present content: new units, and units whose content changed (and, with the
    rewriter, those whose only rewriter candidate is a failed request's "no answer", which files written before
    failed requests were left out still hold). Returns the new text, how many candidates it added, and the line
    saying the rewriter's work is incomplete (None: complete)."""
    hashes = {unit.unit_id: unit_hash(unit.original) for unit in loaded.units}
    current = {(c.source, c.unit, c.strategy) for c in existing if c.unit_hash == hashes.get(c.unit)
               and c.record.get("origin") != "rewriter"}
    # the rewriter's candidates apart: a file made without it gets them when it is named
    theirs = {(c.source, c.unit, c.strategy) for c in existing if c.unit_hash == hashes.get(c.unit)
              and c.record.get("origin") == "rewriter" and not _no_answer(c)}
    named = {c.source for c in existing}
    # a file of one source is that source whatever it was called (as a frozen test reads it)
    alias = next(iter(named)) if len(named) == 1 and loaded.name not in named else None

    def skip(source: str, unit: str, strategy: str) -> bool:
        return (alias or source, unit, strategy) in current

    def skip_rewritten(source: str, unit: str, strategy: str) -> bool:
        return (alias or source, unit, strategy) in theirs

    added, unfinished = proposals(loaded, strategies, settings, mode, skip, rewriter, skip_rewritten)
    if alias is not None:
        for record in added:
            record["source"] = alias
            record["id"] = candidate_id(record)
    known = {c.candidate_id for c in existing}
    added = [record for record in added if record["id"] not in known]
    stream = io.StringIO()
    write_candidates(added, stream)
    head = existing_text if not existing_text or existing_text.endswith("\n") else existing_text + "\n"
    return head + stream.getvalue(), len(added), unfinished


def _no_answer(candidate: Candidate) -> bool:
    """An undecided rewriter candidate that is only a failed request ("rewriter: no answer: ...")."""
    reason = candidate.record.get("reason")
    return candidate.decision is None and isinstance(reason, str) and reason.startswith(rewrite_check.NO_ANSWER + ":")

