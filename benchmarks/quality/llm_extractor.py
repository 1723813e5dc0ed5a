"""Issue 38: an LLM extractor (the openai adapter in mode extract, answered by a recorded stand-in) scored strict,
expanded and flexible on ASQP rest16, beside the shared end-to-end tagger (docs/extraction.md, "Expanded
ground truth: measured").

    python benchmarks/quality/llm_extractor.py export --out DIR     # the 544 requests, and the stand-ins' shares
    python benchmarks/quality/llm_extractor.py run --out DIR --answers benchmarks/recorded/llm-extractor/answers.jsonl

`export` builds each request exactly as the adapter sends it (OpenAIAdapter's body for the sentence, with the
PROMPT below, model "extractor", temperature 0, seed 0): one per test sentence of asqp-rest16, in shares of 50.
`run` serves ANSWERS with `absa-checks serve-replay` and runs `pytest suites/extraction` on asqp-rest15 and
asqp-rest16 with the stand-in (rest16 only: the requests cover it) and with the tagger (bert-e2e:
$ABSA_BERT_E2E_PATH or ../shared/models/minilm-absa-e2e-rest), each with --absa-report; then prints F1 per level
and matching with the JSON reports' intervals (DIR/extraction-f1.json).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from absa_checks.common.llm_requests import request_key, requests_lines  # noqa: E402
from absa_checks.sources.gold_sources import load_gold  # noqa: E402
from benchmarks.quality.expanded_gold import serve  # noqa: E402

SHARED = Path(os.environ.get("ABSA_SHARED_DIR", ROOT.parent / "shared"))
SOURCE = "asqp-rest16"
SHARE = 50
PORT = 18734
CATEGORIES = ("ambience general, drinks prices, drinks quality, drinks style_options, food prices, food quality, "
              "food style_options, location general, restaurant general, restaurant miscellaneous, restaurant prices, "
              "service general")
PROMPT = ("Extract every aspect-sentiment quad of this restaurant review sentence: the aspect term (the words of the "
          "sentence that name what is judged, or \"NULL\" when the sentence does not name it), its category (one of: "
          f"{CATEGORIES}), the sentiment (positive, negative or neutral) and the opinion term (the words of the "
          "sentence that express the sentiment, or \"NULL\"). Copy the terms exactly as the sentence writes them. "
          "Answer with a JSON list of objects with \"aspect\", \"category\", \"polarity\" and \"opinion\"; [] when "
          "there is none.\nSentence: {sentence}")
MODELS = """models:
  llm-extractor:
    kind: openai
    base_url: http://127.0.0.1:{port}/v1
    model: extractor
    mode: extract
    max_concurrency: 4
    retries: 0
    max_consecutive_failures: 100000
    prompt: {prompt}
  bert-e2e:
    kind: transformers-tagger
    path: {tagger}
"""


def adapter():
    from model_adapters.openai_adapter import OpenAIAdapter

    return OpenAIAdapter("llm-extractor", f"http://127.0.0.1:{PORT}/v1", "extractor", mode="extract", prompt=PROMPT,
                         max_concurrency=4, retries=0, max_consecutive_failures=100000)


def export(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    llm = adapter()
    # the body the adapter sends for a sentence (OpenAIAdapter.extract builds it so); checked against what a live
    # run through serve-replay asks in `run` (an unknown key is a 404 there, counted)
    bodies = [llm._body(llm.prompt.replace("{sentence}", s.sentence)) for s in load_gold(SOURCE, SHARED / "data")]
    (out / "requests.jsonl").write_text(requests_lines(bodies), encoding="utf-8")
    unique = list({request_key(b): b for b in bodies}.items())
    shares = out / "shares"
    shares.mkdir(exist_ok=True)
    for n, start in enumerate(range(0, len(unique), SHARE), 1):
        part = unique[start:start + SHARE]
        text = [f"# Share {n:03d}: {len(part)} requests (each one user message, nothing before it)\n"]
        text += [f"## key: {key}\n\n### user\n\n{body['messages'][-1]['content']}\n" for key, body in part]
        (shares / f"share-{n:03d}.md").write_text("\n".join(text), encoding="utf-8")
    print(f"{len(unique)} requests in {n} shares of {SHARE}: {shares}")


def _pytest(out: Path, model: str, sources: str) -> dict:
    report = out / f"report-{model}.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "pytest", "suites/extraction", "-q", "-p", "no:cacheprovider",
                           "--model", model, "--absa-models", str(out / "models.yaml"), "--absa-data",
                           str(SHARED / "data"), "--absa-sources", sources, "--absa-report", str(report),
                           "--absa-cache", str(out / "cache")], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=3600)
    print(done.stdout[-1500:], file=sys.stderr)
    if not report.is_file():
        raise SystemExit(done.stderr[-3000:])
    return json.loads(report.read_text(encoding="utf-8"))["extraction"]


def run(out: Path, answers: Path) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    tagger = os.environ.get("ABSA_BERT_E2E_PATH", str(SHARED / "models" / "minilm-absa-e2e-rest"))
    (out / "models.yaml").write_text(MODELS.format(port=PORT, prompt=json.dumps(PROMPT), tagger=tagger),
                                     encoding="utf-8")
    server = serve(answers, out / "serve-replay.log", PORT)
    try:
        found = {"llm-extractor": _pytest(out, "llm-extractor", SOURCE)}
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(10)
    found["bert-e2e"] = _pytest(out, "bert-e2e", "asqp-rest15,asqp-rest16")
    table: dict = {}
    for model, by_source in found.items():
        for source, levels in by_source.items():
            for level, modes in levels.items():
                if level not in ("aspect", "pair", "triplet", "quad"):
                    continue  # test, model, sentences, errors
                table[f"{model} {source} {level}"] = {
                    mode: {"f1": round(100 * r["f1"]["value"], 2), "ci95": [round(100 * x, 1) for x in r["f1"]["ci95"]],
                           "k": r["f1"]["k"], "n": r["f1"]["n"]} for mode, r in modes.items()}
    table["gain"] = gains(out, answers, table)
    (out / "extraction-f1.json").write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(table, indent=1))
    return table


def gains(out: Path, answers: Path, table: dict, resamples: int = 1000, seed: int = 38) -> dict:
    """What expansion adds to F1 (expanded minus strict, points) for each model on SOURCE, and the LLM's gain minus
    the tagger's, at the aspect and pair levels (both models give them), with paired percentile bootstrap intervals
    over sentences (the same resamples for both models). The per-sentence counts are made here, in process, from
    the replayed answers (text_output.parse, as the adapter reads them) and the tagger's own predictions; their
    totals must equal the pytest run's reports (checked)."""
    import numpy as np

    from absa_checks.common.llm_requests import read_answers
    from absa_checks.judge.scoring import sentence_counts
    from absa_checks.models import adapters as registry
    from absa_checks.models.text_output import parse

    sentences = _expanded(SOURCE)
    llm, replies = adapter(), read_answers(answers)
    predicted = {"llm-extractor": [parse(replies[request_key(llm._body(llm.prompt.replace("{sentence}", s.sentence)))]
                                         .content or "") for s in sentences]}
    tagger = registry.build(registry.resolve("bert-e2e", out / "models.yaml"))
    predicted["bert-e2e"] = tagger.extract([s.sentence for s in sentences])
    table["disagreements"] = {f"{model} {SOURCE}": disagreements(sentences, found)
                              for model, found in predicted.items()}
    other = "asqp-rest15"
    rest15 = _expanded(other)
    table["disagreements"][f"bert-e2e {other}"] = disagreements(rest15, tagger.extract([s.sentence for s in rest15]))
    picks = np.random.default_rng(seed).integers(0, len(sentences), size=(resamples, len(sentences)))
    result: dict = {"resamples": resamples, "seed": seed, "source": SOURCE}
    for level in ("aspect", "pair"):
        deltas = {}
        for model, found in predicted.items():
            counts = {mode: np.array([[c.tp, c.predicted, c.gold] for c in
                                      (sentence_counts(s, p, level, mode) for s, p in zip(sentences, found))])
                      for mode in ("strict", "expanded")}
            for mode, c in counts.items():  # the same totals as the pytest run's report
                reported = table[f"{model} {SOURCE} {level}"][mode]
                counted = (2 * c[:, 0].sum(), c[:, 1].sum() + c[:, 2].sum())
                assert counted == (reported["k"], reported["n"]), (model, mode)
            f1 = {mode: 200 * c[picks, 0].sum(1) / (c[picks, 1].sum(1) + c[picks, 2].sum(1))
                  for mode, c in counts.items()}
            point = {mode: 200 * c[:, 0].sum() / (c[:, 1].sum() + c[:, 2].sum()) for mode, c in counts.items()}
            deltas[model] = (point["expanded"] - point["strict"], f1["expanded"] - f1["strict"])
            result[f"{model} {level}"] = _interval(*deltas[model])
        result[f"llm minus tagger {level}"] = _interval(deltas["llm-extractor"][0] - deltas["bert-e2e"][0],
                                                        deltas["llm-extractor"][1] - deltas["bert-e2e"][1])
    return result


def _expanded(source: str):
    from absa_checks.sources.expanded_gold import read

    return read(load_gold(source, SHARED / "data"), ROOT / "suites/extraction/expanded" / f"{source}.expanded.jsonl")


def disagreements(sentences, predictions, examples: int = 8) -> dict:
    """Where expanded and flexible matching disagree at the aspect level: the (gold term, predicted term) pairs one
    assignment matches and the other does not (strict matches aside: both keep them), counted, with the first
    `examples` of each in file order."""
    from absa_checks.judge.matching import matched, strict_match

    only: dict[str, list[tuple[str, str]]] = {"expanded": [], "flexible": []}
    for s, found in zip(sentences, predictions):
        pairs = {mode: {(g, p) for g, p in matched(found, s, "aspect", mode).items()
                        if not strict_match(found[p], s.gold[g])} for mode in only}
        for mode, other in (("expanded", "flexible"), ("flexible", "expanded")):
            only[mode] += [(s.gold[g].aspect, found[p].aspect) for g, p in sorted(pairs[mode] - pairs[other])]
    both = sum(1 for s, found in zip(sentences, predictions)
               for g, p in matched(found, s, "aspect", "expanded").items()
               if not strict_match(found[p], s.gold[g]) and matched(found, s, "aspect", "flexible").get(g) == p)
    return {"both_beyond_strict": both, **{f"only_{mode}": len(pairs) for mode, pairs in only.items()},
            **{f"examples_only_{mode}": [f"{g} -> {p}" for g, p in pairs[:examples]] for mode, pairs in only.items()}}


def _interval(point: float, samples) -> dict:
    import numpy as np

    low, high = np.percentile(samples, [2.5, 97.5])
    return {"points": round(float(point), 2), "ci95": [round(float(low), 2), round(float(high), 2)]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("step", choices=("export", "run"))
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--answers", type=Path, default=None)
    args = parser.parse_args()
    if args.step == "export":
        export(args.out)
    elif args.answers is None:
        raise SystemExit("run: give --answers FILE")
    else:
        run(args.out, args.answers)


if __name__ == "__main__":
    main()
