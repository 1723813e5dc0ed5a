"""Add an adapter kind (docs/architecture.md, "Seams"): the adapter and its declaration in one module.

`constant` answers every query with one label. The registration is one line in your package's
pyproject.toml, under `[project.entry-points."absa_checks.adapters"]`: `constant = "my_package.constant:KIND"`;
tests/extensions/test_docs_examples.py installs this module as such a package and runs a suite with it."""

from __future__ import annotations

from collections.abc import Sequence

from absa_checks.models.adapters import AdapterKind, ModelSpec
from absa_checks.models.protocol import Answer, Query


class Constant:
    """The adapter (absa_checks/models/protocol.py): describe, fingerprint, predict."""

    cacheable = False  # optional: True lets absa-checks keep its answers on disk (the protocol says when)

    def __init__(self, name: str, label: str):
        self.name, self.label = name, label

    def describe(self) -> dict[str, object]:
        return {"kind": "constant", "label": self.label}

    def fingerprint(self) -> str:
        return "constant-" + self.label

    def predict(self, queries: Sequence[Query]) -> list[Answer]:
        return [self.label for _ in queries]


def build(spec: ModelSpec) -> Constant:
    return Constant(spec.name, str(spec.settings["label"]))


KIND = AdapterKind("constant", keys=("label",), required=("label",), build=build,
                   inline=lambda rest: {"label": rest}, inline_form="constant:<label>")
