"""A model behind `--absa-model python:my_model:predict`: a plain function, no adapter class needed.

absa-checks calls `predict` with a list of queries (absa_checks.models.protocol.Query), in batches:
    query.sentence   the sentence (original or variant)
    query.aspect     the target aspect term
    query.start, query.end   its character span in the sentence
    query.record_id  the id in the source's own file, when it has one
and wants one answer per query, in order: probabilities by label name ({"positive": 0.7, ...}), or one
label name ("negative"). Names are matched by name (pos/neg/neu and the like work), never by position.

Run it from this folder, or name it in a models.yaml beside it:
    pytest ../../suites --absa-model python:my_model:predict
"""

from __future__ import annotations

POSITIVE = {"good", "great", "tasty", "friendly", "fast", "lovely"}
NEGATIVE = {"bad", "slow", "rude", "soggy", "cold", "awful"}


def predict(queries):
    answers = []
    for query in queries:
        # a toy rule: the words right after the aspect decide (replace this with your model)
        after = query.sentence[query.end:query.end + 40].lower().split()
        if any(word.strip(".,!") in NEGATIVE for word in after):
            answers.append({"negative": 0.8, "neutral": 0.1, "positive": 0.1})
        elif any(word.strip(".,!") in POSITIVE for word in after):
            answers.append({"negative": 0.1, "neutral": 0.1, "positive": 0.8})
        else:
            answers.append("neutral")
    return answers
