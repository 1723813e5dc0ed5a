"""The baseline for benchmarks/performance/inference_overhead.py: the same checkpoint, the same unique queries,
the same batch size and the same input order as the suite (longest first by token count, which the
transformers adapter does before batching), with nothing around it. Prints the number of queries predicted.

    python benchmarks/performance/plain_inference.py CHECKPOINT ARTS_JSON [ARTS_JSON ...] [--batch-size 64]
"""

from __future__ import annotations

import argparse
import json

import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("checkpoint")
    parser.add_argument("files", nargs="+")
    parser.add_argument("--batch-size", type=int, default=64)
    args = parser.parse_args()
    pairs = set()
    for path in args.files:
        for record in json.load(open(path, encoding="utf-8")).values():
            pairs.add((record["term"], record["sentence"]))
    tokenizer = AutoTokenizer.from_pretrained(args.checkpoint)
    pairs = sorted(pairs)  # a fixed order before the stable sort, whatever the set's hashing
    lengths = tokenizer([a for a, _ in pairs], [s for _, s in pairs], truncation=False)["input_ids"]
    queries = [pairs[i] for i in sorted(range(len(pairs)), key=lambda i: -len(lengths[i]))]  # as the adapter
    model = AutoModelForSequenceClassification.from_pretrained(args.checkpoint, dtype=torch.float32).eval()
    predictions = []
    with torch.inference_mode():
        for first in range(0, len(queries), args.batch_size):
            batch = queries[first:first + args.batch_size]
            encoded = tokenizer([a for a, _ in batch], [s for _, s in batch], truncation="only_second",
                                max_length=128, padding=True, return_tensors="pt")
            predictions += model(**encoded).logits.softmax(-1).argmax(-1).tolist()
    print(len(predictions))


if __name__ == "__main__":
    main()
