"""Template expansion: 10,000 template cases filled, best of 5 (issue 28: budget 1 s).

    python benchmarks/performance/template_expansion.py [--cases 10000] [--repeat 5]

A suite of three template tests over its own lexicon (so the numbers do not move with the built-in words):
a two-aspect contrast (mft, two cases per instance), a taxonomy pair (inv, `vary:`) and an intensifier pair
(dir, `variant:`), their `n` set so that the cases add up to --cases. Timed, each best of --repeat:

- parse: `parse_suite` (the lexicon merged and every seed-free check, including that `n` fillings exist);
- expand: `templates.expand` (seeded draws, agreement, spans, gold, pairs) and `cases.expand` (the Case
  objects with their content-derived ids), what planning does per test;
- baseline: the fairest plain-Python fill of the same instances: the drawn words handed over ready, each
  sentence made with `str.format`, each aspect's span found with `str.find`, and the same Example / Case
  objects built with the same ids (so only the template machinery differs); and `str.format` alone.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from absa_checks.common.examples import Aspect, Example, Variant  # noqa: E402
from absa_checks.suites import cases as cases_module  # noqa: E402
from absa_checks.suites import templates  # noqa: E402
from absa_checks.suites.spec import parse_suite  # noqa: E402

CATEGORIES = ("battery", "screen", "keyboard", "performance", "price", "design", "speakers", "support")
SUITE = """\
suite: bench
domain: laptop
lexicons:
  domain: laptop
  aspects:
{aspects}
  opinions:
    positive:
      all: [great, excellent, superb, fine]
{positive}
    negative:
      all: [terrible, awful, poor, bad]
{negative}
  words:
    bench_intensifier: [very, really, extremely, truly, remarkably]
    bench_name: [Maria, John, Wei, Aisha, Ola, Priya, Tom, Lena, Omar, Yuki]
tests:
  - name: contrast
    type: mft
    template: "The {{a1}} {{a1.was}} {{o1}}, but the {{a2}} {{a2.was}} {{o2}}."
    slots:
      a1: {{aspect: any}}
      o1: {{opinion: positive, for: a1}}
      a2: {{aspect: any, other_than: a1}}
      o2: {{opinion: negative, for: a2}}
    gold: {{a1: o1, a2: o2}}
    n: {half}
  - name: taxonomy
    type: inv
    template: "{{p}} thinks the {{a1}} {{a1.is}} {{o1}}."
    slots: {{a1: {{aspect: any}}, o1: {{opinion: any, for: a1}}, p: {{word: bench_name}}}}
    gold: {{a1: o1}}
    vary: a1
    n: {quarter}
  - name: intensity
    type: dir
    template: "The {{a1}} {{a1.was}} {{o1}}."
    variant: "The {{a1}} {{a1.was}} {{i}} {{o1}}."
    slots: {{a1: {{aspect: any}}, o1: {{opinion: any, for: a1}}, i: {{word: bench_intensifier}}}}
    gold: {{a1: o1}}
    expect: unchanged
    n: {quarter}
"""


def suite_text(cases: int) -> str:
    aspects = "\n".join(f"    {c}: [{', '.join(f'{c}{k}' for k in range(1, 8))}, {{term: {c}s, plural: true}}]"
                        for c in CATEGORIES)
    positive = "\n".join(f"      {c}: [{', '.join(f'good{c}{k}' for k in range(4))}]" for c in CATEGORIES)
    negative = "\n".join(f"      {c}: [{', '.join(f'bad{c}{k}' for k in range(4))}]" for c in CATEGORIES)
    return SUITE.format(aspects=aspects, positive=positive, negative=negative, half=cases // 4,
                        quarter=cases // 4)


def best(function, repeat: int) -> tuple[float, float, Any]:
    times, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - started)
    return min(times), statistics.median(times), result


def ours(suite) -> list:
    found = []
    for test in suite.tests:
        expansion = templates.expand(test.template, test.name, 0)
        found += cases_module.expand(test, test.template.source, expansion.units, expansion.by_unit)
    return found


def baseline_inputs(suite) -> list:
    """Per test, the instances as plain data: (format string(s), words, which names are aspects, labels)."""
    prepared = []
    for test in suite.tests:
        spec = test.template
        fmt = _format(spec.parts)
        v_fmt = _format(spec.variant_parts) if spec.variant else fmt
        rows = []
        variant_rng = __import__("random").Random(f"0:{test.name}:variants")
        pools = templates._Pools(spec)
        for filled in templates.draw(spec, 0, test.name):
            changed = {**filled, spec.vary: variant_rng.choice(pools.variations(filled))} if spec.vary else filled
            rows.append((_words(filled), _words(changed), {key: filled[value[1]].polarity if value[0] == "slot"
                                                          else value[1] for key, value in spec.gold}))
        prepared.append((test, fmt, v_fmt, [k for k, _ in spec.gold], rows))
    return prepared


def _format(parts) -> str:
    return "".join(literal.replace("{", "{{").replace("}", "}}") if not slot else
                   "{" + slot + ("_" + attribute if attribute else "") + "}" for literal, slot, attribute in parts)


def _words(filled) -> dict[str, str]:
    words = {}
    for name, fill in filled.items():
        words[name] = fill.word
        for attribute, forms in templates.AGREEMENT.items():
            words[f"{name}_{attribute}"] = forms[fill.plural]
        words[f"{name}_a"] = templates.a_or_an(fill.word)
    return words


def baseline(prepared) -> list:
    found = []
    for test, fmt, v_fmt, keys, rows in prepared:
        source = test.template.source
        for words, v_words, labels in rows:
            sentence = fmt.format(**words)
            sentence = sentence[0].upper() + sentence[1:]
            v_sentence = v_fmt.format(**v_words)
            v_sentence = v_sentence[0].upper() + v_sentence[1:]
            for key in keys:
                start = sentence.find(words[key])
                v_start = v_sentence.find(v_words[key])
                target = Aspect(words[key], start, start + len(words[key]), labels[key])
                others = tuple(Aspect(words[k], sentence.find(words[k]), sentence.find(words[k]) + len(words[k]),
                                      labels[k]) for k in keys if k != key)
                original = Example(sentence, target, others)
                variant = Variant("template", Example(v_sentence, Aspect(v_words[key], v_start,
                                                                         v_start + len(v_words[key]), labels[key]),
                                                      others))
                found.append(cases_module.Case(cases_module.case_id(source, test, original, variant), key, test, source,
                                               key, original, variant))
    return found


def format_only(prepared) -> int:
    count = 0
    for _, fmt, v_fmt, keys, rows in prepared:
        for words, v_words, _ in rows:
            fmt.format(**words)
            v_fmt.format(**v_words)
            count += len(keys)
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.yaml"
        path.write_text(suite_text(args.cases))
        parse_best, parse_median, suite = best(lambda: parse_suite(path, ()), args.repeat)
    expand_best, expand_median, cases = best(lambda: ours(suite), args.repeat)
    prepared = baseline_inputs(suite)
    base_best, base_median, base_cases = best(lambda: baseline(prepared), args.repeat)
    fmt_best, fmt_median, _ = best(lambda: format_only(prepared), args.repeat)
    assert len(cases) == len(base_cases) == args.cases, (len(cases), len(base_cases))
    same = sum(a.original.sentence == b.original.sentence and a.variant.example.sentence == b.variant.example.sentence
               for a, b in zip(cases, base_cases))
    print(f"{len(cases):,} cases from {len(suite.tests)} template tests; best / median of {args.repeat}")
    print(f"parse the suite (lexicon merged, checks, count of fillings): {parse_best * 1e3:.0f} / {parse_median * 1e3:.0f} ms")
    print(f"expand (draws, agreement, spans, gold, pairs, Case objects):  {expand_best * 1e3:.0f} / {expand_median * 1e3:.0f} ms"
          f"  [{expand_best / len(cases) * 1e6:.1f} us a case]")
    print(f"baseline: str.format + str.find + the same objects and ids:   {base_best * 1e3:.0f} / {base_median * 1e3:.0f} ms"
          f"  ({same:,} of {len(cases):,} sentences equal to ours)")
    print(f"baseline: str.format alone:                                  {fmt_best * 1e3:.0f} / {fmt_median * 1e3:.0f} ms")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"budget 1 s: {'met' if parse_best + expand_best <= 1 else 'MISSED'} (parse + expand "
          f"{parse_best + expand_best:.2f} s; load average {load:.1f} on {os.cpu_count()} CPUs)")


if __name__ == "__main__":
    main()
