"""The extraction tagger on a sentence longer than its max_length: an error saying where the sentence was
cut and to raise max_length (as the classifier's, reliability row 63), never a list that silently misses
the aspects it never read (reported as "not found"); `truncated` counts exactly the sentences that were cut.
Uses the shared end-to-end checkpoint (/work/shared/models/minilm-absa-e2e-rest)."""

from __future__ import annotations

from pathlib import Path

import pytest

from absa_checks.models.protocol import QueryError
from conftest import MODELS, needs_extra

pytestmark = needs_extra("transformers")

E2E = MODELS / "minilm-absa-e2e-rest"
needs_e2e = pytest.mark.skipif(not (E2E / "config.json").is_file(), reason=f"the end-to-end checkpoint is not at {E2E}")

LONG = "The waiter was friendly and the decor was lovely, but the pizza was cold and the dessert was awful."
SHORT = "The pizza was cold."


@pytest.mark.slow
@needs_e2e
def test_a_sentence_cut_at_max_length_is_an_error_not_a_silent_not_found():
    from transformers import AutoTokenizer

    from model_adapters.transformers_tagger import TransformersTagger

    tagger = TransformersTagger("e2e", str(E2E), max_length=12)
    tokens = AutoTokenizer.from_pretrained(str(E2E))
    exactly = next(s for s in ("The pizza was cold and the wine was warm.", "The pizza was cold and the wine was warm",
                               "Pizza cold, wine warm, staff rude, room loud.")
                   if len(tokens(s)["input_ids"]) == 12)  # exactly max_length: read whole, not truncated
    long, short, whole = tagger.extract([LONG, SHORT, exactly])
    assert isinstance(long, QueryError)
    assert long.message.startswith("model 'e2e': the sentence was cut at max_length 12 tokens (it has "
                                   f"{len(tokens(LONG)['input_ids'])}), so the model never read it after character ")
    assert "raise max_length" in long.message
    assert any(t.aspect == "pizza" for t in short) and isinstance(whole, list)
    assert tagger.truncated == 1
    # with room for the whole sentence the same model answers it, the aspect after the cut included
    roomy = TransformersTagger("e2e", str(E2E), max_length=128)
    found = roomy.extract([LONG])[0]
    assert any(t.aspect == "dessert" for t in found) and roomy.truncated == 0


SUITE = """suite: tagged
tests:
  - name: adddiff
    strategy: adddiff
    sources: [builtin-restaurant]
    sample: 20
"""


@pytest.mark.slow
@needs_e2e
def test_a_run_with_a_short_max_length_errors_the_cut_sentences_and_counts_them(tmp_path: Path, run):
    from transformers import AutoTokenizer

    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "suite.yaml").write_text(SUITE)
    (tmp_path / "models.yaml").write_text(f"models:\n  tagger: {{kind: transformers-tagger, path: '{E2E}', "
                                          "max_length: 16}\n")
    result = run(["suite.yaml", "--absa-model", "tagger", "--absa-no-cache"], cwd=tmp_path)
    report = result.report
    tokens = AutoTokenizer.from_pretrained(str(E2E))
    sentences = {c["original"]["sentence"] for c in report["cases"]} | {c["variant"]["sentence"]
                                                                        for c in report["cases"]}
    too_long = {s for s in sentences if len(tokens(s)["input_ids"]) > 16}
    assert too_long and len(too_long) < len(sentences)  # the sample has both kinds
    assert report["timing"]["predictions"]["truncated"] == len(too_long)
    for case in report["cases"]:
        cut = case["original"]["sentence"] in too_long or case["variant"]["sentence"] in too_long
        assert (case["status"] == "error") == cut, case
        if cut:
            assert "the sentence was cut at max_length 16 tokens" in case["reason"]
    assert report["verdict"]["passed"] is False
