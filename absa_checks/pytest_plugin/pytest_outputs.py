"""pytest's own outputs are outputs too: the files pytest and its plugins write (`--junitxml`, `--report-log`,
`--resultlog`) and the folders they empty (`--alluredir` with `--clean-alluredir`, `--basetemp`).

`files(config)` and `wiped(config)` name them; `check_files` refuses a written file that is an input of the
run or another output (absa_checks.common.outputs.check, one line), and `check_wiped` refuses a folder that is
emptied when it is, holds or lies in an input of the run (the project root, a suite folder, the data or cache
folder, the baseline, the models file, any suite-looking YAML file). Both run before the run: a folder is
emptied when pytest configures, a file is written when the session ends.
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Iterable
from pathlib import Path

from absa_checks.common import outputs

# (option dest, option as the user types it): files pytest or a plugin writes at the end of the session
FILE_OPTIONS = (("xmlpath", "--junitxml"), ("report_log", "--report-log"), ("resultlog", "--resultlog"))
YAML = (".yaml", ".yml")
# what allure-pytest writes (and Allure's history/ folder, copied in by CI): --clean-alluredir deletes only these
ALLURE_FILE = re.compile(r".+-(result|container)\.json|.+-attachment(\.\w+)?|environment\.properties|"
                         r"categories\.json|executor\.json|.+\.tmp")
WALK_LIMIT = 20000  # files looked at under a folder to be emptied (a larger folder is refused as too large)


def files(config) -> list[outputs.Named]:
    """The files pytest's options will write (only those given)."""
    found = []
    for dest, option in FILE_OPTIONS:
        value = getattr(config.option, dest, None)
        if isinstance(value, str) and value:
            found.append(outputs.Named(option, Path(os.path.expanduser(value))))
    return found


def wiped(config) -> list[outputs.Named]:
    """The folders pytest or a plugin deletes before writing into them."""
    found = []
    allure = getattr(config.option, "allure_report_dir", None)
    if allure and getattr(config.option, "clean_alluredir", False) and not config.option.collectonly:
        found.append(outputs.Named("--alluredir", Path(allure), f"--alluredir {allure} (with --clean-alluredir)"))
    basetemp = getattr(config.option, "basetemp", None)
    if basetemp:
        found.append(outputs.Named("--basetemp", Path(basetemp)))
    return found


def _real(path: Path) -> Path:
    return Path(os.path.realpath(os.path.abspath(os.path.expanduser(path))))


def _within(path: Path, folder: Path) -> bool:
    return _real(path).is_relative_to(_real(folder))


def check_files(config, wanted: Iterable[outputs.Named], inputs: Iterable[outputs.Named],
                folders: Iterable[outputs.Named], follow_symlinks: bool) -> None:
    """pytest's output files against the run's inputs, the absa-checks outputs and each other; an existing
    YAML file (suites, examples and models files are YAML) is never one: OutputRefused, one line."""
    written = files(config)
    if not written:
        return
    outputs.check([*wanted, *written], inputs, folders, follow_symlinks, kinds=False)  # ours: checked already
    for out in written:
        if out.path.suffix.lower() in YAML and out.path.is_file():
            raise outputs.OutputRefused(f"{out}: is an existing YAML file, and suite, examples and models files are "
                                        f"YAML; pytest would replace it: name an .xml or other new file for "
                                        f"{out.option}", option=out.option)


def check_wiped(config, inputs: Iterable[outputs.Named], folders: Iterable[outputs.Named]) -> None:
    """A folder emptied before the run must not be, hold or lie in an input: OutputRefused, one line."""
    inputs, folders = list(inputs), list(folders)
    here = Path(str(config.invocation_params.dir))
    places = [outputs.Named("", Path(str(config.rootpath)), f"the project root {config.rootpath}"),
              outputs.Named("", here, f"the current folder {here}"),
              *(outputs.Named("", here / arg.split("::")[0], f"the test path {arg}") for arg in config.args)]
    for folder in wiped(config):
        if not os.path.lexists(os.path.expanduser(folder.path)):
            continue  # nothing there to delete

        def refuse(why: str, folder: outputs.Named = folder) -> None:
            raise outputs.OutputRefused(f"{folder}: {why}; emptying it would delete an input of this run: name a "
                                        f"new folder of its own for {folder.option}", option=folder.option)

        for place in [*places, *folders, *inputs]:
            if _within(place.path, folder.path):
                refuse(f"holds {place}" if _real(place.path) != _real(folder.path) else f"is {place}")
        for place in folders:
            if _within(folder.path, place.path):
                refuse(f"lies in the folder {place}, an input of this run")
        seen = 0
        allure = folder.option == "--alluredir"
        for root, _dirs, names in os.walk(os.path.expanduser(folder.path)):
            for name in names:
                seen += 1
                if name.lower().endswith(YAML):
                    refuse(f"holds the YAML file {Path(root) / name} (suite, examples and models files are YAML)")
                if allure and not ALLURE_FILE.fullmatch(name) and "history" not in Path(root).parts:
                    raise outputs.OutputRefused(
                        f"{folder}: holds {Path(root) / name}, which is not an Allure result; --clean-alluredir "
                        "would delete it: name a folder that holds only Allure results", option=folder.option)
            if seen > WALK_LIMIT:
                refuse(f"holds more than {WALK_LIMIT} files, which is no folder of Allure results or pytest "
                       "temporaries")


def check_writable_folder(option: str, folder: Path) -> None:
    """A folder a plugin will write into (and make if missing): a folder, writable by this user; else
    OutputRefused naming the option, before the run (allure-pytest would end in an INTERNALERROR)."""
    path = Path(os.path.expanduser(folder))
    if path.exists() and not path.is_dir():
        raise outputs.OutputRefused(f"{option} {folder}: is a file, not a folder; name a folder (it is made if "
                                    "missing)", option=option)
    existing = next((p for p in (path, *path.absolute().parents) if p.exists()), None)
    if existing is None or not existing.is_dir():
        raise outputs.OutputRefused(f"{option} {folder}: {existing} is a file, so the folder cannot be made there; "
                                    "name another folder", option=option)
    if not os.access(existing, os.W_OK | os.X_OK):
        read_only = bool(os.statvfs(existing).f_flag & os.ST_RDONLY)
        why = outputs.FIXES[errno.EROFS if read_only else errno.EACCES]
        raise outputs.OutputRefused(f"{option} {folder}: cannot be written ({existing}): {why}", option=option)
