"""Aspect-sentiment classifiers from transformers (AutoTokenizer + AutoModelForSequenceClassification).

Input order (`input`): `aspect-first` as in BERT-PT ([CLS] aspect [SEP] sentence [SEP]), `sentence-first`
as in BERT-SPC / PyABSA / the DeBERTa ABSA models on the hub ([CLS] sentence [SEP] aspect [SEP]), or
`sentence-only` (an aspect-blind baseline). Truncation only ever shortens the sentence, never the
aspect; truncated queries are counted.

Nothing is loaded until the first prediction: a warm run whose answers are all cached never imports
torch. The fingerprint hashes the config and weight files plus the settings that change answers.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from absa_checks.common.errors import AdapterError
from absa_checks.common.labels import POLARITIES, label_key, label_map, polarity_word
from absa_checks.models.adapters import AdapterKind
from model_adapters.protocol import Answer, Query, QueryError

INPUT_ORDERS = ("aspect-first", "sentence-first", "sentence-only")
DTYPES = ("float32", "float16", "bfloat16")
HEAD_PREFIXES = ("classifier", "score", "pre_classifier", "logits_proj", "out_proj")
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin", "model.safetensors.index.json", "pytorch_model.bin.index.json")


class TransformersAdapter:
    cacheable = True

    def __init__(self, name: str, path: str, input: str = "aspect-first", labels: Mapping | None = None,
                 device: str = "auto", dtype: str = "float32", max_length: int = 128, revision: str | None = None,
                 base_dir: Path | None = None):
        if input not in INPUT_ORDERS:
            raise AdapterError(f"model '{name}': input '{input}' is not one of {', '.join(INPUT_ORDERS)}")
        check_settings(name, dtype, max_length)
        self.name = name
        self.local, self.is_local = locate(name, path, base_dir)
        self.path = str(self.local) if self.is_local and base_dir is not None else path
        if self.is_local:
            check_architecture(name, config_architectures(self.local), KIND.name)
        self.input = input
        try:  # checked when the entry is read: one key kind, no key twice, no polarity left out while two share one
            self.label_overrides = label_map(labels, f"model '{name}'")
        except ValueError as err:
            raise AdapterError(str(err)) from None
        if self.is_local:  # before the run: the checkpoint's config says which outputs it has
            check_label_keys(name, self.label_overrides, config_labels(name, self.local), self.local / "config.json")
        self.device_option = device
        _check_device_name(name, device)
        self.dtype = dtype
        self.max_length = int(max_length)
        self.revision = revision
        self.truncated = 0
        self._model: Any = None  # torch and transformers objects, loaded on first use
        self._tokenizer: Any = None
        self._index_to_label: dict[int, str] = {}
        self._device: Any = None

    def describe(self) -> dict[str, object]:
        return {"kind": "transformers", "path": self.path, "input": self.input, "device": self.device_option,
                "dtype": self.dtype, "max_length": self.max_length, "labels": self.label_overrides or "from config",
                **({"revision": self.revision} if self.revision else {})}

    def fingerprint(self) -> str:
        settings = f"{self.input}|{self.max_length}|{self.dtype}|{sorted(self.label_overrides.items())}"
        return checkpoint_fingerprint(settings, self.local if self.is_local else None, self.path, self.revision)

    # ------------------------------------------------------------------ loading (first prediction)

    def load(self) -> None:
        if self._model is not None:
            return
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        source = str(self.local) if self.is_local else self.path
        kwargs: dict[str, Any] = {"revision": self.revision} if self.revision else {}
        try:
            with _no_progress_bars():  # absa-checks announces the loading; a bar would land in a test's output
                self._tokenizer = AutoTokenizer.from_pretrained(source, **kwargs)
                model, info = AutoModelForSequenceClassification.from_pretrained(
                    source, dtype=getattr(torch, self.dtype), output_loading_info=True, **kwargs)
        except OSError as err:
            raise load_failure(self.name, source, self.is_local, err) from None
        check_architecture(self.name, model.config.architectures, KIND.name)
        new_head = sorted(k for k in info.get("missing_keys", ()) if k.split(".")[0] in HEAD_PREFIXES)
        if new_head:
            raise AdapterError(f"model '{self.name}': '{source}' has no trained classification head "
                               f"({', '.join(new_head)} would be newly initialised, i.e. random). A post-trained "
                               "encoder such as BERT-PT's is not a classifier: fine-tune it for aspect sentiment first")
        self._index_to_label = self._labels(model.config.id2label)
        self._device = _resolve_device(self.name, self.device_option, torch)
        self._model = model.to(self._device).eval()

    def _labels(self, id2label: Mapping) -> dict[int, str]:
        check_label_keys(self.name, self.label_overrides, {int(i): str(n) for i, n in id2label.items()},
                         self.path)  # a hub checkpoint's config is known only now
        mapping = {}
        for index, raw in sorted((int(i), str(name)) for i, name in id2label.items()):
            by_index, by_name = self.label_overrides.get(label_key(index)), self.label_overrides.get(label_key(raw))
            if by_index and by_name and by_index != by_name:
                raise AdapterError(f"model '{self.name}': labels maps output {index} to {by_index} and its name "
                                   f"'{raw}' to {by_name}; keep one of the two keys")
            override = by_index or by_name
            named = polarity_word(raw)  # a name, never a position: '1' is the entry's labels: to say
            if override is not None:
                polarity = polarity_word(override)
                if polarity is None:
                    raise AdapterError(f"model '{self.name}': labels maps {index} to '{override}', not a polarity")
                if named is not None and named != polarity:
                    raise AdapterError(f"model '{self.name}': models.yaml maps label {index} to {polarity} but the "
                                       f"checkpoint calls it '{raw}'; fix the mapping (labels are matched by name)")
                mapping[index] = polarity
            elif named is not None:
                mapping[index] = named
            else:
                raise AdapterError(f"model '{self.name}': the checkpoint's label {index} is '{raw}', not a polarity "
                                   f"word; say what it means in models.yaml, e.g. labels: {{{index}: negative, ...}}")
        if sorted(mapping.values()) != sorted(POLARITIES):
            raise AdapterError(f"model '{self.name}': its labels {mapping} must be negative, neutral and positive, "
                               "one each")
        return mapping

    def cache_key(self, query: Query) -> tuple:
        """What the model sees: never the span; not even the aspect for a sentence-only model."""
        return (query.sentence,) if self.input == "sentence-only" else (query.sentence, query.aspect)

    @property
    def loaded(self) -> bool:
        return self._model is not None

    # ------------------------------------------------------------------ prediction

    def predict(self, queries: Sequence[Query]) -> list[Answer]:
        self.load()
        import torch

        encoded = self.encode(queries)
        cut = self._aspect_cut_off(queries, encoded)
        with torch.inference_mode():
            logits = self._model(**{k: v.to(self._device) for k, v in encoded.items()}).logits
        probs = logits.float().softmax(-1).cpu().tolist()
        return [QueryError(f"the sentence was cut at max_length {self.max_length} tokens before the aspect "
                           f"{queries[n].aspect!r} (character {queries[n].start}), so the model never saw it; raise "
                           "max_length for this model in models.yaml") if n in cut
                else {self._index_to_label[i]: p for i, p in enumerate(row)} for n, row in enumerate(probs)]

    def _aspect_cut_off(self, queries: Sequence[Query], encoded) -> set[int]:
        """The inputs whose truncation removed the aspect's mention from the sentence: an answer about
        them would be about text the model did not read. Needs a fast tokenizer (character offsets)."""
        if not getattr(self._tokenizer, "is_fast", False):
            return set()
        cut = set()
        for n in (encoded["attention_mask"].sum(1) >= self.max_length).nonzero().flatten().tolist():
            query = queries[n]
            first, second, _ = self._pairs([query])
            whole = len(self._tokenizer(first[0], second[0] if second else None)["input_ids"])
            if whole <= self.max_length:
                continue
            sentence = self._tokenizer(query.sentence, add_special_tokens=False, return_offsets_mapping=True)
            kept = len(sentence["input_ids"]) - (whole - self.max_length)
            if kept <= 0 or sentence["offset_mapping"][kept - 1][1] < query.end:
                cut.add(n)
        return cut

    def arrange(self, queries: Sequence[Query]) -> list[Query]:
        """Longest input first by token count, so every batch pads to nearly its own length
        (20% faster than ordering by characters on ARTS; see docs/performance.md)."""
        self.load()
        first, second, _ = self._pairs(queries)
        lengths = self._tokenizer(first, second, truncation=False)["input_ids"]
        order = sorted(range(len(queries)), key=lambda i: -len(lengths[i]))
        return [queries[i] for i in order]

    def _pairs(self, queries: Sequence[Query]) -> tuple[list[str], list[str] | None, object]:
        """(first segment, second segment, truncation rule) for this input order."""
        texts = [q.sentence for q in queries]
        aspects = [q.aspect for q in queries]
        if self.input == "aspect-first":
            return aspects, texts, "only_second"
        if self.input == "sentence-first":
            return texts, aspects, "only_first"
        return texts, None, True

    def encode(self, queries: Sequence[Query]):
        """The model's input for a batch; truncation shortens only the sentence, and is counted."""
        self.load()
        first, second, truncation = self._pairs(queries)
        encoded = self._tokenizer(first, second, truncation=truncation, max_length=self.max_length,
                                  padding=True, return_tensors="pt")
        # only an input that reached max_length can have been cut: re-measure just those
        full_length = encoded["attention_mask"].sum(1) >= self.max_length
        for i in full_length.nonzero().flatten().tolist():
            untruncated = self._tokenizer(first[i], second[i] if second else None)["input_ids"]
            self.truncated += len(untruncated) > self.max_length
        return encoded


@contextmanager
def _no_progress_bars() -> Iterator[None]:
    """transformers' progress bars off while loading, as they were before afterwards."""
    from transformers.utils import logging as transformers_logging

    was_enabled = transformers_logging.is_progress_bar_enabled()
    transformers_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_enabled:
            transformers_logging.enable_progress_bar()


def check_settings(name: str, dtype: str, max_length: object) -> None:
    """The settings every checkpoint adapter shares (the classifier here, the tagger)."""
    if dtype not in DTYPES:
        raise AdapterError(f"model '{name}': dtype '{dtype}' is not one of {', '.join(DTYPES)}")
    if isinstance(max_length, bool) or not isinstance(max_length, int) or not 8 <= max_length <= 65536:
        raise AdapterError(f"model '{name}': max_length {max_length!r} is not a whole number of tokens from 8 "
                           "to 65536 (the default, 128, fits SemEval sentences)")


def config_labels(name: str, folder: Path) -> dict[int, str]:
    """The checkpoint's outputs as its config.json names them (index -> name): `id2label`, else `num_labels`
    outputs named LABEL_i, else transformers' default of two."""
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        id2label = config.get("id2label")
        if isinstance(id2label, dict) and id2label:
            return {int(i): str(n) for i, n in id2label.items()}
        count = config.get("num_labels", 2)
        return {i: f"LABEL_{i}" for i in range(int(count))}
    except (OSError, ValueError, TypeError, AttributeError) as err:
        raise AdapterError(f"model '{name}': {folder / 'config.json'} cannot be read as a checkpoint's config "
                           f"({err}); point the model's path at a folder saved with save_pretrained()") from None


def check_label_keys(name: str, overrides: Mapping[str, str], outputs: Mapping[int, str], where: object) -> None:
    """Every key of the entry's `labels:` names an output of the checkpoint, by index or by name: a mapping for
    another head (ids 0-4 for a 3-label checkpoint, `LABEL_3`) is refused naming the keys and the range, never
    left unused while the checkpoint's own names decide."""
    known = {label_key(i) for i in outputs} | {label_key(n) for n in outputs.values()}
    stray = [key for key in overrides if key not in known]
    if not stray:
        return
    ids = sorted(outputs)
    span = f"ids {ids[0]}-{ids[-1]}" if ids == list(range(ids[0], ids[-1] + 1)) and len(ids) > 1 else \
        f"ids {', '.join(map(str, ids))}"
    names = ", ".join(outputs[i] for i in ids)
    raise AdapterError(f"model '{name}': labels names {', '.join(stray)}, which the checkpoint does not have: "
                       f"{where} gives {len(ids)} labels, {span} ({names}); map those ids or names, or point the "
                       "model at the checkpoint the mapping is for")


def locate(name: str, path: str, base_dir: Path | None = None) -> tuple[Path, bool]:
    """(the local folder, whether `path` is local rather than a hub id); a local one must exist and hold a
    checkpoint, checked at once (never sent to the hub: a folder that is not there is said to be not there).
    A relative path is relative to `base_dir` (the models file's folder; the current folder by default)."""
    base = base_dir if base_dir is not None else Path.cwd()
    if not reads_as_local(path, base):
        return Path(path), False
    local = base / Path(path).expanduser()  # an absolute path stays itself
    if not local.is_dir():
        relative = "" if Path(path).expanduser().is_absolute() else f" (relative to {base.resolve()})"
        raise AdapterError(f"model '{name}': no such folder: {path}{relative}; point the model's path at a folder "
                           "saved with save_pretrained() (a hub id is written org/name)")
    if not (local / "config.json").is_file():
        raise AdapterError(f"model '{name}': no checkpoint at {local} (config.json not found); "
                           "point the model's path at a folder saved with save_pretrained()")
    return local, True


def reads_as_local(path: str, base_dir: Path) -> bool:
    """Whether `path` names a local folder rather than a Hugging Face hub id. A hub id is written `org/name`
    (exactly one '/', letters, digits, '-', '_', '.'); anything else is a path: one that starts with '/', './',
    '../' or '~', has no '/' or more than one, exists itself, or whose first segment is an existing folder
    in `base_dir` (`runs/seed1` when `runs/` exists)."""
    if path.startswith(("/", "./", "../", "~")) or not _HUB_ID.fullmatch(path):
        return True
    return (base_dir / path).exists() or (base_dir / path.split("/")[0]).is_dir()


_HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*")


def load_failure(name: str, source: str, is_local: bool, err: BaseException) -> AdapterError:
    """The one-line error for a checkpoint transformers could not load: a hub id that the hub could not give
    (offline, or no network) says it was read as a hub id, and how to write a folder instead."""
    first = " ".join(str(err).split())
    if is_local:
        return AdapterError(f"model '{name}': cannot load the checkpoint in {source} ({first}); the folder must "
                            "hold a checkpoint saved with save_pretrained()")
    if _hub_unreachable(err):
        why = "HF_HUB_OFFLINE is set" if _hub_offline() else "no network, or the hub did not answer"
        return AdapterError(f"model '{name}': '{source}' was read as a hub id (org/name) and the Hugging Face hub "
                            f"could not be reached ({why}), nor is it in the local cache: download it once with a "
                            f"network, or if it is a folder, write its path as ./{source}")
    return AdapterError(f"model '{name}': cannot load '{source}', read as a hub id (org/name), from the Hugging Face "
                        f"hub ({first}); check the id, or if it is a folder, write its path as ./{source}")


def _hub_unreachable(err: BaseException) -> bool:
    """The hub was not asked or did not answer (huggingface_hub's LocalEntryNotFoundError somewhere in the chain)."""
    seen: BaseException | None = err
    while seen is not None:
        if type(seen).__name__ == "LocalEntryNotFoundError" or "couldn't connect" in str(seen):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _hub_offline() -> bool:
    try:
        from huggingface_hub import constants
    except ImportError:
        return False
    return bool(constants.HF_HUB_OFFLINE)


# What each kind reads, and the kind a checkpoint of the other class needs (config.json's `architectures`)
CLASSES = {"transformers": ("ForSequenceClassification", "a sequence classifier (one polarity per aspect)"),
           "transformers-tagger": ("ForTokenClassification", "a token tagger (aspects found with their polarities)")}


def config_architectures(local: Path) -> list[str]:
    """config.json's `architectures` (e.g. ["BertForTokenClassification"]); [] when it names none or cannot be
    read (transformers then says what is wrong with the file)."""
    try:
        found = json.loads((local / "config.json").read_text(encoding="utf-8")).get("architectures")
    except (OSError, ValueError, AttributeError):
        return []
    return [str(name) for name in found] if isinstance(found, list) else []


def check_architecture(name: str, architectures: Sequence[str] | None, kind: str) -> None:
    """Refuse a checkpoint of the other kind's class, naming the kind that reads it: a token tagger under
    `kind: transformers` would be read as a classifier of its tags, a classifier under the tagger as tags."""
    for other, (suffix, what) in CLASSES.items():
        found = [arch for arch in architectures or () if str(arch).endswith(suffix)]
        if other != kind and found:
            raise AdapterError(f"model '{name}': the checkpoint is {found[0]}, {what}, which kind {kind} does not "
                               f"read; write kind: {other} in its models.yaml entry (or --model {other}:PATH)")


def checkpoint_fingerprint(settings: str, local: Path | None, path: str, revision: str | None) -> str:
    """A hash of the settings that change answers and of the checkpoint's config, weight and tokenizer files."""
    digest = hashlib.sha256(settings.encode())
    folder = local if local is not None else _hub_snapshot(path, revision)
    if folder is None:  # a hub id not downloaded yet: its id and revision stand for it
        digest.update(f"hub:{path}@{revision or 'main'}".encode())
        return digest.hexdigest()[:16]
    for name in ("config.json", *WEIGHT_FILES, "tokenizer.json", "tokenizer_config.json", "vocab.txt"):
        file = folder / name
        if file.is_file():
            digest.update(name.encode())
            with file.open("rb") as stream:
                for block in iter(lambda: stream.read(1 << 20), b""):
                    digest.update(block)
    return digest.hexdigest()[:16]


def build_settings(spec) -> tuple[str, dict]:
    """A models.yaml entry's path (as written) and its other settings, with the folder its relative paths start
    from (`base_dir`: the models file's folder, or the current folder for `kind:path`)."""
    settings = {key: value for key, value in spec.settings.items() if key != "kind"}
    path = str(settings.pop("path"))
    return path, {**settings, "base_dir": spec.base_dir}


def _hub_snapshot(repo_id: str, revision: str | None) -> Path | None:
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return None
    found = try_to_load_from_cache(repo_id, "config.json", revision=revision)
    return Path(found).parent if isinstance(found, str) else None


def _check_device_name(name: str, device: str) -> None:
    base = device.split(":")[0]
    if base not in ("auto", "cpu", "cuda", "mps") or (":" in device and not device.split(":")[1].isdigit()):
        raise AdapterError(f"model '{name}': device '{device}' is not known; use auto, cpu, cuda, cuda:N or mps")


def _resolve_device(name: str, device: str, torch: Any) -> Any:
    if device == "auto":
        if torch.cuda.is_available():
            return torch.device("cuda")
        mps = getattr(torch.backends, "mps", None)
        return torch.device("mps" if mps is not None and mps.is_available() else "cpu")
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise AdapterError(f"model '{name}': device '{device}' asked for, but torch sees no CUDA GPU here; "
                           "use device: auto or cpu")
    if device == "mps" and not (getattr(torch.backends, "mps", None) and torch.backends.mps.is_available()):
        raise AdapterError(f"model '{name}': device 'mps' asked for, but it is not available here")
    return torch.device(device)


def _build(spec) -> TransformersAdapter:
    path, settings = build_settings(spec)
    return TransformersAdapter(spec.name, path, **settings)


# Registered in pyproject.toml under the entry-point group absa_checks.adapters
KIND = AdapterKind("transformers", keys=("path", "input", "labels", "device", "dtype", "max_length", "revision"),
                   required=("path",), build=_build, inline=lambda rest: {"path": rest},
                   needs=("torch", "transformers", "safetensors"), extra="transformers",
                   inline_form="transformers:<checkpoint folder or hub id>")
