"""Aspect extraction with polarity by a token tagger (AutoModelForTokenClassification with unified BIO
tags such as `B-positive`, `I-negative`, `O`): the model is given the sentence alone and answers the
aspects it finds, with their character spans and polarities (absa_checks.models.tagging decodes).

A sentence longer than `max_length` word pieces is not answered: its answer is an error saying where it
was cut and to raise max_length (as the classifier's for an aspect cut off), never a list that silently
misses the aspects the model never read. `truncated` counts those sentences (longer than max_length, not
merely as long).

Nothing is loaded until the first prediction; the fingerprint hashes the config and weight files plus
the settings that change answers, as for the classifier adapter.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from absa_checks.common.errors import AdapterError
from absa_checks.common.tuples import AspectTuple
from absa_checks.models.adapters import AdapterKind
from absa_checks.models.tagging import decode, parse_tag
from model_adapters.protocol import QueryError
from model_adapters.transformers_adapter import (
    _check_device_name,
    _no_progress_bars,
    _resolve_device,
    build_settings,
    check_architecture,
    check_settings,
    checkpoint_fingerprint,
    config_architectures,
    load_failure,
    locate,
)

KIND_NAME = "transformers-tagger"


class TransformersTagger:
    task = "extract"  # answers sentences with tuples, not queries with polarities
    cacheable = True

    def __init__(self, name: str, path: str, device: str = "auto", dtype: str = "float32", max_length: int = 128,
                 revision: str | None = None, base_dir: Path | None = None):
        check_settings(name, dtype, max_length)
        self.name = name
        self.local, self.is_local = locate(name, path, base_dir)
        self.path = str(self.local) if self.is_local and base_dir is not None else path
        if self.is_local:
            check_architecture(name, config_architectures(self.local), KIND_NAME)
        _check_device_name(name, device)
        self.device_option = device
        self.dtype = dtype
        self.max_length = max_length
        self.revision = revision
        self.truncated = 0
        self._model: Any = None  # torch and transformers objects, loaded on first use
        self._tokenizer: Any = None
        self._tags: dict[int, str] = {}
        self._device: Any = None

    def describe(self) -> dict[str, object]:
        return {"kind": "transformers-tagger", "path": self.path, "device": self.device_option, "dtype": self.dtype,
                "max_length": self.max_length, **({"revision": self.revision} if self.revision else {})}

    def fingerprint(self) -> str:
        return checkpoint_fingerprint(f"tagger|{self.max_length}|{self.dtype}",
                                      self.local if self.is_local else None, self.path, self.revision)

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def load(self) -> None:
        if self._model is not None:
            return
        import torch
        from transformers import AutoModelForTokenClassification, AutoTokenizer

        source = str(self.local) if self.is_local else self.path
        kwargs: dict[str, Any] = {"revision": self.revision} if self.revision else {}
        try:
            with _no_progress_bars():
                self._tokenizer = AutoTokenizer.from_pretrained(source, **kwargs)
                model = AutoModelForTokenClassification.from_pretrained(source, dtype=getattr(torch, self.dtype),
                                                                        **kwargs)
        except OSError as err:
            raise load_failure(self.name, source, self.is_local, err) from None
        check_architecture(self.name, model.config.architectures, KIND_NAME)
        if not getattr(self._tokenizer, "is_fast", False):
            raise AdapterError(f"model '{self.name}': its tokenizer gives no character offsets (not a fast "
                               "tokenizer); spans cannot be found without them")
        tags = {int(i): str(tag) for i, tag in model.config.id2label.items()}
        unknown = sorted(tag for tag in tags.values() if parse_tag(tag) is None)
        if unknown:
            raise AdapterError(f"model '{self.name}': its labels {', '.join(unknown)} are not unified BIO tags "
                               "(O, B-<polarity>, I-<polarity>, e.g. B-positive); this adapter reads tags by name")
        self._tags = tags
        self._device = _resolve_device(self.name, self.device_option, torch)
        self._model = model.to(self._device).eval()

    def extract(self, sentences: Sequence[str]) -> list[list[AspectTuple] | QueryError]:
        """The aspects found in each sentence, with spans and polarities; a QueryError for a sentence the
        model could not read whole."""
        self.load()
        import torch

        lengths = [len(ids) for ids in self._tokenizer(list(sentences), truncation=False)["input_ids"]]
        encoded = self._tokenizer(list(sentences), truncation=True, max_length=self.max_length, padding=True,
                                  return_offsets_mapping=True, return_tensors="pt")
        offsets = encoded.pop("offset_mapping").tolist()
        cut = {n for n, length in enumerate(lengths) if length > self.max_length}
        self.truncated += len(cut)
        with torch.inference_mode():
            logits = self._model(**{k: v.to(self._device) for k, v in encoded.items()}).logits
        best = logits.argmax(-1).cpu().tolist()
        masks = encoded["attention_mask"].tolist()
        return [self._cut_off(lengths[n], row_offsets, mask) if n in cut else
                decode(sentence, [tuple(o) for o, m in zip(row_offsets, mask) if m],
                       [self._tags[i] for i, m in zip(row, mask) if m])
                for n, (sentence, row_offsets, row, mask) in enumerate(zip(sentences, offsets, best, masks))]

    def _cut_off(self, length: int, row_offsets: list, mask: list) -> QueryError:
        kept_to = max((end for (_, end), m in zip(row_offsets, mask) if m), default=0)
        return QueryError(f"model '{self.name}': the sentence was cut at max_length {self.max_length} tokens (it has "
                          f"{length}), so the model never read it after character {kept_to}: aspects there would be "
                          "reported as not found; raise max_length for this model in models.yaml")


def _build(spec) -> TransformersTagger:
    path, settings = build_settings(spec)
    return TransformersTagger(spec.name, path, **settings)


# Registered in pyproject.toml under the entry-point group absa_checks.adapters
KIND = AdapterKind(KIND_NAME, keys=("path", "device", "dtype", "max_length", "revision"),
                   required=("path",), build=_build, inline=lambda rest: {"path": rest},
                   needs=("torch", "transformers", "safetensors"), extra="transformers",
                   inline_form="transformers-tagger:<checkpoint folder or hub id>")
