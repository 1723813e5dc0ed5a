"""What the commands share to read their arguments: a command's registration (`Command`: its name, its parser,
its body), the refusal of an empty value, `--strategies` and `--param` read, the data folder as given."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from absa_checks.common import outputs
from absa_checks.common.errors import AbsaChecksError
from absa_checks.common.outputs import Named

Subcommands = argparse._SubParsersAction  # what `add_subparsers` gives: a command adds its parser to it


@dataclass(frozen=True)
class Command:
    """One `absa-checks` command: `add_parser` adds its parser (with its options and help) to the commands,
    `run` is its body (the parsed arguments in, the exit status out; an AbsaChecksError is one line, exit 2).
    `steps`: the dest of its own subcommands (`audit draw|score`) whose options are refused empty too."""

    name: str
    add_parser: Callable[[Subcommands], object]
    run: Callable[[argparse.Namespace], int]
    steps: str | None = None


def step_parser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    """A command's subcommand parser by name (`audit` -> `draw`)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices[name]
    raise AssertionError(f"no subcommand {name}")


def refuse_empty_values(command: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """`-o ' '`, `--out ''`, `--strategies ,`: an empty value would write a file named ' ' or quietly mean
    nothing, so any option (or file argument) given an empty text is an error naming it, as pytest's are."""
    for action in command._actions:
        if action.dest in ("help", "pytest_args"):  # `run` hands its arguments to pytest, which checks them
            continue
        value = getattr(args, action.dest, None)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str) and not item.replace(",", " ").strip():
                name = max(action.option_strings, key=len) if action.option_strings else action.dest
                raise AbsaChecksError(f"{name} was given an empty value ({item!r}); give it a value"
                                      + (", or leave the option out for its default" if action.option_strings
                                         and not action.required else ""))


def data_named(given: str | None, data_dir: Path | None) -> list[Named]:
    """The data folder as the user gave it: --data DIR, or $ABSA_DATA_DIR when it came from the environment
    (none when there is no data folder)."""
    from absa_checks.sources import DATA_ENV

    return outputs.given("--data" if given else f"${DATA_ENV}", data_dir)


def strategy_list(option: str) -> list[str]:
    """`--strategies a,b`: each named once (one named twice would make, write and count its variants twice); a
    chain is compared step by step, so `revnon+adddiff` and `revnon + adddiff` are one strategy."""
    from absa_checks.suites import strategies as names

    strategies = [s.strip() for s in option.split(",") if s.strip()]
    keys = ["+".join(names.split_chain(s)) if names.is_known(s) else s for s in strategies]
    repeated = list(dict.fromkeys(s for s, key in zip(strategies, keys) if keys.count(key) > 1))
    if repeated:
        raise AbsaChecksError(f"--strategies {option}: {', '.join(repeated)} named more than once; name each "
                              "strategy once")
    return strategies


def strategy_params(written: list[str], chosen: list[str], **shortcuts) -> tuple:
    """--param NAME=VALUE (and the --k / --neutral shortcuts), checked by the strategies' declarations."""
    import yaml

    from absa_checks.suites import strategies as names

    accepted = {name: p for s in chosen for name, p in names.parameters(s).items()}
    values = {key: value for key, value in shortcuts.items() if value is not None}
    for item in written:
        key, sep, text = item.partition("=")
        if not sep or key.strip() not in accepted:
            known = ", ".join(accepted) or "none for these strategies"
            raise AbsaChecksError(f"--param {item!r}: write NAME=VALUE with a parameter of "
                                  f"{', '.join(chosen)} ({known})")
        values[key.strip()] = yaml.safe_load(text)  # as a suite file would read the value
    for key, value in values.items():
        try:
            values[key] = accepted[key].parse(value) if key in accepted else value
        except ValueError as err:
            raise AbsaChecksError(f"--param {key}: {err}") from None
    return tuple(sorted(values.items()))
