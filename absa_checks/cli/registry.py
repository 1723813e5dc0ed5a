"""The `absa-checks` commands, in the order `absa-checks --help` lists them: one module each in this package,
each giving its `COMMAND` (its name, its parser, its body: arguments.Command). A new command is a module and
one line here."""

from __future__ import annotations

from absa_checks.cli import (
    audit,
    augment,
    decide,
    expand,
    freeze,
    generate,
    labelstudio,
    merge,
    models,
    rebuild,
    review,
    run,
    serve_replay,
    validate,
)
from absa_checks.cli.arguments import Command

COMMANDS: tuple[Command, ...] = (
    validate.COMMAND,
    models.COMMAND,
    generate.COMMAND,
    augment.COMMAND,
    expand.COMMAND,
    merge.COMMAND,
    decide.COMMAND,
    labelstudio.COMMAND,
    review.COMMAND,
    audit.COMMAND,
    freeze.COMMAND,
    rebuild.COMMAND,
    serve_replay.COMMAND,
    run.COMMAND,
)
