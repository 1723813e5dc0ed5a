"""A python model (`kind: python`, `python:<module>:<function>`): what its function returns is checked, and a
mistake is one line naming the model and what it returned, never absa-checks' own traceback described as
"the model raised"; a target that is no function names the models.yaml entry that gave it (issue 35,
probes 20 and 22)."""

from __future__ import annotations

from pathlib import Path

import pytest

from absa_checks.common.errors import AbsaChecksError
from absa_checks.models import adapters
from absa_checks.models.predictions import predict_all
from absa_checks.models.protocol import Query, QueryError

MODULE = """
notfunc = 3

def none(queries):
    queries[0]  # the work done, the return forgotten

def short(queries):
    return ["negative"] * (len(queries) - 1)

def extra(queries):
    return ["negative"] * (len(queries) + 2)

def mapping(queries):
    return {"negative": 1.0}

def text(queries):
    return "negative"

def floats(queries):
    return [0.9 for _ in queries]

def nones(queries):
    return ["negative", None] + ["negative"] * (len(queries) - 2)

def fine(queries):
    return ["negative", {"positive": 0.7, "negative": 0.3}] + ["neutral"] * (len(queries) - 2)
"""

QUERIES = [Query(f"The soup {i} was bland.", "soup", 4, 8) for i in range(3)]
FIX = "it must return one answer per query, in order (a label name, or a mapping of labels to probabilities)"
RETURNED = {
    "none": f"returned None for 3 queries (a missing return?); {FIX}",
    "short": f"returned 2 answers for 3 queries; {FIX}",
    "extra": f"returned 5 answers for 3 queries; {FIX}",
    "mapping": f"returned a dict ({{'negative': 1.0}}) for 3 queries, not a list; {FIX}",
    "text": f"returned a str ('negative') for 3 queries, not a list; {FIX}",
    "floats": f"returned a float (0.9) as the answer to query 1 of 3; {FIX}",
    "nones": f"returned None as the answer to query 2 of 3; {FIX}",
}


def models_file(tmp_path: Path, module: str) -> Path:
    """A module of python models (its name unique per test: Python caches modules by name) and a models.yaml
    naming each of its functions (line 2 + its index)."""
    (tmp_path / f"{module}.py").write_text(MODULE)
    names = ["notfunc", *RETURNED, "fine", "missing"]
    path = tmp_path / "models.yaml"
    path.write_text("models:\n" + "".join(f"  {name}: {{kind: python, target: '{module}:{name}'}}\n"
                                          for name in names))
    return path


@pytest.mark.parametrize("function", sorted(RETURNED))
def test_what_a_python_model_returns_is_checked_and_said_in_one_line(tmp_path: Path, function):
    models = models_file(tmp_path, f"h3_returns_{function}")
    adapter = adapters.build(adapters.resolve(function, models))
    found = predict_all(adapter, QUERIES, batch_size=8)  # type: ignore[arg-type]
    reasons = {answer.message for answer in found.values() if isinstance(answer, QueryError)}
    assert reasons == {f"model '{function}' (python:h3_returns_{function}:{function}) {RETURNED[function]}"}
    assert len(found) == len(QUERIES)


def test_a_python_model_returning_one_answer_per_query_is_read():
    from model_adapters.python_callable import what_is_wrong

    assert what_is_wrong(["negative", {"positive": 1.0}, 2], 3) == ""
    assert what_is_wrong((label for label in ["negative"]), 1) == ""  # a generator: read where the batch is
    assert what_is_wrong([], 0) == ""


def test_a_python_model_that_returned_none_is_a_case_error_not_a_traceback(tmp_path: Path, run):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "suite.yaml").write_text("suite: s\ntests:\n  - {name: t, strategy: revtgt, sources: "
                                         "[builtin-restaurant], sample: 3}\n")
    models_file(tmp_path, "h3_run_none")
    result = run(["suite.yaml", "--absa-model", "none"], cwd=tmp_path)
    assert result.code == 1 and result.report["verdict"]["passed"] is False
    errors = [case["reason"] for case in result.report["cases"] if case["status"] == "error"]
    assert errors and len(errors) == len(result.report["cases"])
    assert all(reason.startswith("model 'none' (python:h3_run_none:none) returned None for ") for reason in errors)
    assert "Traceback" not in result.out and "raised TypeError" not in result.out


def test_a_target_that_is_no_function_names_the_models_yaml_entry_and_what_it_is(tmp_path: Path):
    models = models_file(tmp_path, "h3_target")
    with pytest.raises(AbsaChecksError) as err:
        adapters.build(adapters.resolve("notfunc", models))
    assert str(err.value) == (f"model 'notfunc' ({models}:2): 'notfunc' in module h3_target is an int, not a "
                              "function; name the function that takes the queries and returns one answer per query")
    with pytest.raises(AbsaChecksError) as err:
        adapters.build(adapters.resolve("missing", models))
    assert str(err.value) == (f"model 'missing' ({models}:11): module 'h3_target' ({tmp_path / 'h3_target.py'}) has "
                              "no function 'missing'; define it there, or name another in the target")
    with pytest.raises(AbsaChecksError) as err:  # the command-line form names itself
        adapters.build(adapters.resolve("python:h3_target:notfunc", None))
    assert str(err.value).startswith("--absa-model python:h3_target:notfunc: 'notfunc' in module h3_target is an int")
