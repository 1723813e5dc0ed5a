"""The transformers adapter: refusals, label mapping by name, input orders, truncation that spares the aspect.

Uses a tiny randomly initialised BERT written into tmp_path, so no network and no shared data are needed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from absa_checks.common.errors import AbsaChecksError, AdapterError
from absa_checks.models import adapters as registry
from conftest import REPO, needs_extra
from model_adapters.protocol import Query, QueryError
from model_adapters.transformers_adapter import TransformersAdapter, reads_as_local

pytestmark = needs_extra("transformers")

WORDS = "the food was great but service slow screen battery life is good bad".split()


def tiny_checkpoint(folder: Path, id2label: dict[int, str] | None, with_head: bool = True) -> Path:
    from transformers import BertConfig, BertForSequenceClassification, BertModel, BertTokenizerFast

    folder.mkdir(parents=True, exist_ok=True)
    tokens = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]
    BertTokenizerFast(vocab={token: i for i, token in enumerate(tokens)}).save_pretrained(folder)
    config = BertConfig(vocab_size=len(WORDS) + 5, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=32, num_labels=3,
                        **({"id2label": id2label, "label2id": {v: k for k, v in id2label.items()}} if id2label else {}))
    (BertForSequenceClassification if with_head else BertModel)(config).save_pretrained(folder)
    return folder


def q(sentence: str, aspect: str) -> Query:
    start = sentence.index(aspect)
    return Query(sentence, aspect, start, start + len(aspect))


@pytest.fixture
def named(tmp_path):
    return tiny_checkpoint(tmp_path / "named", {0: "Positive", 1: "negative", 2: "NEU"})


@pytest.mark.slow
def test_labels_are_mapped_by_name_not_position(named):
    adapter = TransformersAdapter("tiny", str(named))
    [answer] = adapter.predict([q("the food was great", "food")])
    assert set(answer) == {"positive", "negative", "neutral"}
    assert adapter._index_to_label == {0: "positive", 1: "negative", 2: "neutral"}
    assert abs(sum(answer.values()) - 1) < 1e-5


def test_generic_label_names_are_refused_without_a_mapping(tmp_path):
    folder = tiny_checkpoint(tmp_path / "generic", None)  # LABEL_0, LABEL_1, LABEL_2
    with pytest.raises(AdapterError, match=r"label 0 is 'LABEL_0', not a polarity word; say what it means in models.yaml"):
        TransformersAdapter("tiny", str(folder)).predict([q("the food was great", "food")])
    mapped = TransformersAdapter("tiny", str(folder), labels={"LABEL_0": "negative", 1: "neutral", 2: "positive"})
    mapped.predict([q("the food was great", "food")])
    assert mapped._index_to_label == {0: "negative", 1: "neutral", 2: "positive"}


def test_a_mapping_that_contradicts_the_checkpoint_names_is_refused(named):
    with pytest.raises(AdapterError, match="maps label 0 to negative but the checkpoint calls it 'Positive'"):
        TransformersAdapter("tiny", str(named), labels={0: "negative"}).predict([q("the food was great", "food")])


def test_an_encoder_without_a_trained_head_is_refused(tmp_path):
    folder = tiny_checkpoint(tmp_path / "encoder", {0: "positive", 1: "negative", 2: "neutral"}, with_head=False)
    with pytest.raises(AdapterError, match=r"no trained classification head \(classifier.bias, classifier.weight"):
        TransformersAdapter("tiny", str(folder)).predict([q("the food was great", "food")])


def test_missing_checkpoint_path_is_refused_at_once(tmp_path):
    with pytest.raises(AdapterError, match=r"no such folder: .*nowhere; point the model's path at a folder"):
        TransformersAdapter("tiny", str(tmp_path / "nowhere"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(AdapterError, match=r"no checkpoint at .*empty \(config.json not found\)"):
        TransformersAdapter("tiny", str(tmp_path / "empty"))


def test_a_relative_path_that_is_not_there_is_no_such_folder_never_a_hub_id(tmp_path, monkeypatch):
    """`./x`, `runs/seed1` beside an existing `runs/`, a path from the environment and `a/b/c` are folders:
    one that is not there is refused at once (before transformers, never a minute of hub retries), relative to
    the models file's folder; only `org/name` goes to the hub."""
    conf = tmp_path / "conf"
    (conf / "runs").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)  # relative to the models file, not to where pytest runs
    monkeypatch.setenv("ABSA_BERT_PT_PATH", "runs/seed2")
    models = conf / "models.yaml"
    models.write_text("models:\n  dot: {kind: transformers, path: ./no-such-dir}\n"
                      "  runs: {kind: transformers-tagger, path: runs/seed1}\n"
                      "  env: {kind: transformers, path: '${ABSA_BERT_PT_PATH}'}\n")
    for name, shown in (("dot", "./no-such-dir"), ("runs", "runs/seed1"), ("env", "${ABSA_BERT_PT_PATH}")):
        with pytest.raises(AbsaChecksError) as refused:
            registry.build(registry.resolve(name, models))
        assert str(refused.value) == (f"model '{name}': no such folder: {shown} (relative to {conf}); point the "
                                      "model's path at a folder saved with save_pretrained() (a hub id is written "
                                      "org/name)")
    with pytest.raises(AbsaChecksError, match=rf"no such folder: ckpts/a/b \(relative to {tmp_path}\)"):
        registry.build(registry.resolve("transformers:ckpts/a/b", None))
    hub = registry.build(registry.resolve("transformers:some-org/some-model", models))
    assert not hub.is_local and hub.path == "some-org/some-model" and not hub.loaded
    assert [reads_as_local(path, conf) for path in ("org/name", "runs/x", "./org/name", "../a/b", "/a/b", "~/a/b",
                                                    "name", "a/b/c", "org/na me")] == [False, *[True] * 8]


def test_a_hub_id_the_hub_cannot_give_says_it_was_read_as_a_hub_id(tmp_path):
    """Offline (HF_HUB_OFFLINE=1; no network is needed), an `org/name` the cache lacks is one line saying the
    name was read as a hub id, that the hub could not be reached, and how to write a folder instead."""
    code = ("from absa_checks.models import adapters\n"
            "from absa_checks.common.errors import AbsaChecksError\n"
            "try:\n"
            "    adapters.build(adapters.resolve('transformers:absa-checks-tests/no-such-model', None)).load()\n"
            "except AbsaChecksError as err:\n"
            "    print(err)\n")
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf")}
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ("model 'transformers:absa-checks-tests/no-such-model': 'absa-checks-tests/no-such-model' "
                           "was read as a hub id (org/name) and the Hugging Face hub could not be reached "
                           "(HF_HUB_OFFLINE is set), nor is it in the local cache: download it once with a network, "
                           "or if it is a folder, write its path as ./absa-checks-tests/no-such-model\n")


def test_unset_environment_variable_names_it(tmp_path, monkeypatch):
    monkeypatch.delenv("ABSA_BERT_PT_PATH", raising=False)
    with pytest.raises(AbsaChecksError, match="takes its path from the environment variable ABSA_BERT_PT_PATH, "
                                              "which is not set; export ABSA_BERT_PT_PATH="):
        registry.resolve("bert-pt", Path(__file__).resolve().parents[2] / "models.yaml")


def test_unknown_and_unavailable_devices_are_refused(named):
    with pytest.raises(AdapterError, match="device 'tpu' is not known; use auto, cpu, cuda, cuda:N or mps"):
        TransformersAdapter("tiny", str(named), device="tpu")
    import torch

    if not torch.cuda.is_available():
        with pytest.raises(AdapterError, match="torch sees no CUDA GPU here"):
            TransformersAdapter("tiny", str(named), device="cuda").predict([q("the food was great", "food")])
    assert TransformersAdapter("tiny", str(named), device="cpu").predict([q("the food was great", "food")])


def test_input_orders(named):
    sentence = "the food was great but service slow"
    a = TransformersAdapter("tiny", str(named), input="aspect-first")
    pair = a.encode([q(sentence, "service")])
    first = TransformersAdapter("tiny", str(named), input="sentence-first").encode([q(sentence, "service")])
    only = TransformersAdapter("tiny", str(named), input="sentence-only")
    def tokens(enc) -> list[str]:
        return a._tokenizer.convert_ids_to_tokens(enc["input_ids"][0])

    assert tokens(pair)[:3] == ["[CLS]", "service", "[SEP]"]
    assert tokens(first)[-3:] == ["[SEP]", "service", "[SEP]"]
    # the sentence-only baseline answers every aspect of a sentence the same
    food, service = only.predict([q(sentence, "food"), q(sentence, "service")])
    assert food == pytest.approx(service)


def test_truncation_cuts_the_sentence_never_the_aspect_and_is_counted(named):
    adapter = TransformersAdapter("tiny", str(named), input="aspect-first", max_length=8)
    long = "the food was great but service slow the screen is good the battery life is bad"
    encoded = adapter.encode([q(long, "battery life"), q("the food was great", "food")])
    ids = adapter._tokenizer.convert_ids_to_tokens(encoded["input_ids"][0])
    assert ids[:4] == ["[CLS]", "battery", "life", "[SEP]"] and len(ids) == 8
    assert adapter.truncated == 1
    first = TransformersAdapter("tiny", str(named), input="sentence-first", max_length=8)
    encoded = first.encode([q(long, "battery life")])
    ids = first._tokenizer.convert_ids_to_tokens(encoded["input_ids"][0])
    assert ids[-4:] == ["[SEP]", "battery", "life", "[SEP]"]


def test_fingerprint_follows_weights_and_settings(named, tmp_path):
    a = TransformersAdapter("tiny", str(named))
    assert a.fingerprint() == TransformersAdapter("other-name", str(named)).fingerprint()
    assert a.fingerprint() != TransformersAdapter("tiny", str(named), input="sentence-first").fingerprint()
    other = tiny_checkpoint(tmp_path / "other", {0: "positive", 1: "negative", 2: "neutral"})
    assert a.fingerprint() != TransformersAdapter("tiny", str(other)).fingerprint()
    assert not a.loaded  # fingerprinting never loads the model


def test_registry_builds_from_models_yaml(named, tmp_path):
    models = tmp_path / "models.yaml"
    models.write_text(f"models:\n  mine:\n    kind: transformers\n    path: {named}\n    input: sentence-first\n"
                      "    device: cpu\n    max_length: 64\n")
    adapter = registry.build(registry.resolve("mine", models))
    assert adapter.describe()["input"] == "sentence-first" and adapter.max_length == 64
    models.write_text(f"models:\n  mine:\n    kind: transformers\n    path: {named}\n    inptu: x\n")
    with pytest.raises(AbsaChecksError, match="unknown setting\\(s\\) inptu"):
        registry.build(registry.resolve("mine", models))


def test_queries_are_arranged_longest_first_by_tokens(named):
    adapter = TransformersAdapter("tiny", str(named))
    # "battery life" is two tokens and "food" one, so equal character counts can still differ in tokens
    short = q("the food was great", "food")
    long = q("the screen is good but the battery life is bad", "battery life")
    middle = q("the food was great but service slow", "service")
    assert adapter.arrange([short, long, middle]) == [long, middle, short]


def test_an_aspect_cut_off_by_truncation_is_an_error_not_a_model_failure(named):
    """The model cannot be wrong about words it never read: such a query is an error that says to raise
    max_length; an aspect inside the kept words is still answered."""
    adapter = TransformersAdapter("tiny", str(named), input="aspect-first", max_length=8)
    long = "the food was great but service slow the screen is good the battery life is bad"
    cut, kept = adapter.predict([q(long, "battery life"), q(long, "food")])
    assert isinstance(cut, QueryError)
    assert cut.message.startswith("the sentence was cut at max_length 8 tokens before the aspect 'battery life' "
                                  f"(character {long.index('battery life')})")
    assert isinstance(kept, dict) and sum(kept.values()) == pytest.approx(1.0)


def test_a_mapping_naming_one_output_by_index_and_by_name_two_ways_is_refused(tmp_path):
    folder = tiny_checkpoint(tmp_path / "generic", None)  # LABEL_0, LABEL_1, LABEL_2
    with pytest.raises(AdapterError, match="labels maps output 0 to negative and its name 'LABEL_0' to positive"):
        TransformersAdapter("tiny", str(folder), labels={0: "negative", "LABEL_0": "positive", 1: "neutral",
                                                         2: "positive"}).predict([q("the food was great", "food")])
    with pytest.raises(AdapterError, match="labels gives the label 0 twice"):
        TransformersAdapter("tiny", str(folder), labels={0: "negative", "0": "positive"})


def test_a_checkpoint_of_the_other_kinds_class_is_pointed_at_that_kind(named, tmp_path):
    """A token tagger (config.json: *ForTokenClassification) under `kind: transformers` would be read as a
    classifier of its BIO tags; a sequence classifier under `kind: transformers-tagger` as tags. Each is refused
    when the model is named, naming the kind that reads it."""
    from transformers import BertConfig, BertForTokenClassification

    tagger = tmp_path / "tagger"
    tags = {0: "O", 1: "B-positive", 2: "I-positive", 3: "B-negative", 4: "I-negative", 5: "B-neutral", 6: "I-neutral"}
    BertForTokenClassification(BertConfig(vocab_size=len(WORDS) + 5, hidden_size=16, num_hidden_layers=1,
                                          num_attention_heads=2, intermediate_size=32, id2label=tags,
                                          label2id={v: k for k, v in tags.items()})).save_pretrained(tagger)
    models = tmp_path / "models.yaml"
    models.write_text(f"models:\n  e2e: {{kind: transformers, path: {tagger}}}\n"
                      f"  pair: {{kind: transformers-tagger, path: {named}}}\n")
    with pytest.raises(AbsaChecksError) as refused:
        registry.build(registry.resolve("e2e", models))
    assert str(refused.value) == ("model 'e2e': the checkpoint is BertForTokenClassification, a token tagger (aspects "
                                  "found with their polarities), which kind transformers does not read; write kind: "
                                  "transformers-tagger in its models.yaml entry (or --model transformers-tagger:PATH)")
    with pytest.raises(AbsaChecksError, match=r"^model 'pair': the checkpoint is BertForSequenceClassification, a "
                                              r"sequence classifier \(one polarity per aspect\), which kind "
                                              r"transformers-tagger does not read; write kind: transformers in its"):
        registry.build(registry.resolve("pair", models))
    assert registry.build(registry.resolve(f"transformers-tagger:{tagger}", None)).is_local


@pytest.mark.parametrize("labels, stray", [
    ({0: "negative", 1: "neutral", 2: "positive", 3: "positive"}, "3"),  # a 4-label head's mapping
    ({1: "negative", 2: "neutral", 3: "positive"}, "3"),                  # counted from 1
    ({"LABEL_0": "negative", "LABEL_1": "neutral", "LABEL_5": "positive"}, "label_5"),
])
def test_labels_naming_ids_the_checkpoint_does_not_have_are_refused_before_loading(tmp_path, labels, stray):
    folder = tmp_path / "three"
    folder.mkdir()  # a config alone: refused before any weight is read
    (folder / "config.json").write_text(json.dumps({"id2label": {"0": "LABEL_0", "1": "LABEL_1", "2": "LABEL_2"}}))
    with pytest.raises(AdapterError) as err:
        TransformersAdapter("tiny", str(folder), labels=labels)
    assert str(err.value) == (f"model 'tiny': labels names {stray}, which the checkpoint does not have: "
                              f"{folder / 'config.json'} gives 3 labels, ids 0-2 (LABEL_0, LABEL_1, LABEL_2); map "
                              "those ids or names, or point the model at the checkpoint the mapping is for")


def test_a_mapping_for_another_head_is_exit_4_before_the_run(tmp_path, run):
    """A checkpoint whose own names are polarities used to ignore the stray key and run (it said nothing)."""
    folder = tmp_path / "ckpt"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"num_labels": 3, "id2label": {"0": "negative", "1": "neutral",
                                                                                  "2": "positive"}}))
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "s.yaml").write_text("suite: s\ntests:\n  - {name: t, strategy: adddiff, sources: [builtin-laptop], "
                                     "sample: 2}\n")
    (tmp_path / "models.yaml").write_text("models:\n  five: {kind: transformers, path: ckpt, "
                                          "labels: {0: negative, 1: negative, 2: neutral, 3: positive, 4: positive}}\n")
    result = run(["s.yaml", "--absa-model", "five"], cwd=tmp_path)
    assert result.code == 4, result.out[-2000:]
    assert "model 'five': labels names 3, 4, which the checkpoint does not have: " in result.out
    assert "gives 3 labels, ids 0-2 (negative, neutral, positive)" in result.out
    assert "Traceback" not in result.out and "passed" not in result.out


def test_a_full_mapping_of_the_checkpoints_ids_or_names_is_kept(tmp_path):
    folder = tmp_path / "two"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"num_labels": 3}))  # LABEL_0..LABEL_2
    adapter = TransformersAdapter("tiny", str(folder), labels={"label_0": "negative", 1: "neutral", "2": "positive"})
    assert adapter.label_overrides == {"label_0": "negative", "1": "neutral", "2": "positive"}
