"""The absa-checks options in pytest: `--absa-NAME` for each option of absa_checks.run.options, the
`--model` alias, and reading them once into RunOptions (a bad value is a usage error naming the option)."""

from __future__ import annotations

from pathlib import Path

import pytest

from absa_checks.common.errors import AbsaChecksError
from absa_checks.run import options as run_options
from absa_checks.run.run_state import RunOptions

GROUP = ("absa-checks", "behavioural tests for aspect-based sentiment models")
# Whether `--model` is ours: set while pytest loads the initial conftests, which may own it themselves.
MODEL_ALIAS_KEY: pytest.StashKey[bool] = pytest.StashKey()


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup(*GROUP)
    for option in run_options.OPTIONS:
        extra = {"dest": "absa_model"} if option.name == "model" else {}
        if option.flag:
            group.addoption(option.flag_name, action="store_true", help=option.help, **extra)
        else:
            group.addoption(option.flag_name, default=option.default, type=option.type, choices=option.choices,
                            metavar=option.metavar, help=option.help, **extra)


def _owned_elsewhere(parser: pytest.Parser, name: str) -> bool:
    """Whether another plugin or conftest has added the option `name` (pytest keeps no public list)."""
    groups = [parser._anonymous, *parser._groups]
    return any(name in option.names() for group in groups for option in group.options)


def add_model_alias(parser: pytest.Parser) -> bool:
    """`--model` as an alias of `--absa-model` when nobody else owns it; whether it was added."""
    if _owned_elsewhere(parser, "--model"):
        return False
    parser.getgroup(*GROUP).addoption("--model", dest="absa_model_alias", default=None, metavar="NAME",
                                      help="alias of --absa-model")
    return True


def _values(config: pytest.Config) -> dict:
    """The options' values by keyword (absa_checks.run.options)."""
    return {option.keyword: config.getoption(option.flag_name) for option in run_options.OPTIONS}


def read_options(config: pytest.Config, allure_dir: Path | None) -> RunOptions:
    """The options, read and checked once; a bad value is a usage error naming the option."""
    values = _values(config)
    alias = config.getoption("absa_model_alias", None)
    try:
        run_options.refuse_empty(values)
        if isinstance(alias, str) and not alias.replace(",", " ").strip():
            raise AbsaChecksError(f"--model was given an empty value ({alias!r}); give it a value, or leave the "
                                  "option out for its default")
        return run_options.read(values, config.rootpath, model_alias=alias, verbose=config.option.verbose > 0,
                                model_option_is_ours=config.stash.get(MODEL_ALIAS_KEY, True), allure_dir=allure_dir)
    except AbsaChecksError as err:
        raise pytest.UsageError(str(err)) from None


def asked_for(config: pytest.Config) -> bool:
    """Whether any absa-checks option was given (then its mistakes are usage errors before collection)."""
    return any(config.getoption(option.dest) not in (getattr(option, "default", None), None, False)
               for option in config._parser.getgroup(*GROUP).options)


def selection(config: pytest.Config) -> dict:
    """What chose the items besides --absa-shard: -k, -m, --deselect and node ids named on the command line."""
    option = config.option
    return {"-k": getattr(option, "keyword", "") or "", "-m": getattr(option, "markexpr", "") or "",
            "--deselect": sorted(getattr(option, "deselect", None) or []),
            "node ids": sorted(arg for arg in config.args if "::" in arg)}
