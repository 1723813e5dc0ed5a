"""benchmarks/README.md is the index of the benchmarks: every script in it once, none it names missing, each
section it says a figure is quoted in present and naming the script, and every `benchmarks/...` path the docs and
the code's docstrings name present (issue 37: benchmarks grouped by what they measure)."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BENCHMARKS = REPO / "benchmarks"
INDEX = BENCHMARKS / "README.md"
# Listed before it exists: issue 37's i37-fast workstream adds it. Once it is on disk the test says so: drop it here
# and name, in its row of the index, the section of docs/performance.md that quotes its figures.
AWAITED: set[str] = set()
HEADING = re.compile(r"^(#+) (.+?)\s*$")
QUOTED = re.compile(r"`([\w./-]+\.md)` § ([^;|]+)")
PATH = re.compile(r"benchmarks/[\w.*/-]*")
# Old paths left where editing them would change behaviour: sources/infer.py is generator code, hashed into the
# generator fingerprint (common/fingerprint.py GENERATOR_FILES) that cache keys, reports and the frozen sets carry;
# its docstring is updated the next time its code changes (then drop the entry: the test says when).
LEFT: set[tuple[str, str]] = set()


def rows() -> list[list[str]]:
    """The index's table rows whose first cell is a path in backticks: [path, ..., quoted in]."""
    lines = INDEX.read_text(encoding="utf-8").splitlines()
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines if line.startswith("| `")]


def listed_scripts() -> dict[str, str]:
    """script path under benchmarks/ -> its 'quoted in' cell."""
    listed: dict[str, str] = {}
    for cells in rows():
        path = cells[0].strip("`")
        if path.endswith(".py"):
            assert path not in listed, f"benchmarks/README.md lists {path} twice"
            listed[path] = cells[-1]
    return listed


def sections(path: Path) -> dict[str, str]:
    """heading text -> the text under it, down to the next heading of the same or a higher level."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found: dict[str, str] = {}
    for start, line in enumerate(lines):
        heading = HEADING.match(line)
        if not heading:
            continue
        level, end = len(heading.group(1)), len(lines)
        for later in range(start + 1, len(lines)):
            other = HEADING.match(lines[later])
            if other and len(other.group(1)) <= level:
                end = later
                break
        found[heading.group(2)] = "\n".join(lines[start + 1:end])
    return found


def documents() -> list[Path]:
    """The prose and the code whose text may name a benchmarks/ path (node_modules and .venv never read; this file
    names LEFT's old path itself)."""
    markdown = [REPO / "README.md", *REPO.joinpath("docs").rglob("*.md"), *BENCHMARKS.rglob("*.md"),
                *REPO.joinpath("tests").rglob("*.md")]
    code = [path for folder in ("absa_checks", "model_adapters", "scripts", "tests", "benchmarks", ".ci")
            for path in REPO.joinpath(folder).rglob("*")
            if path.is_file() and path.suffix in (".py", "") and path != Path(__file__).resolve()]
    return [*markdown, *code, REPO / ".gitignore"]


def test_every_benchmark_script_is_listed_in_the_index() -> None:
    on_disk = {path.relative_to(BENCHMARKS).as_posix() for path in BENCHMARKS.rglob("*.py")}
    missing = sorted(on_disk - set(listed_scripts()))
    assert not missing, f"benchmarks/README.md does not list: {', '.join(missing)}"


def test_every_script_the_index_lists_exists() -> None:
    absent = sorted(path for path in set(listed_scripts()) - AWAITED if not (BENCHMARKS / path).is_file())
    assert not absent, f"benchmarks/README.md lists scripts that do not exist: {', '.join(absent)}"
    arrived = sorted(path for path in AWAITED if (BENCHMARKS / path).is_file())
    assert not arrived, f"on disk now, drop from AWAITED and quote its section in the index: {', '.join(arrived)}"


def test_every_path_the_index_names_exists() -> None:
    named = {name.split()[0].rstrip("/") for cells in rows() for cell in cells
             for name in re.findall(r"`((?:performance|quality|recorded)/[^`]*)`", cell)}
    absent = sorted(name for name in named - AWAITED if not (BENCHMARKS / name).exists())
    assert not absent, f"benchmarks/README.md names paths that do not exist: {', '.join(absent)}"


def test_each_script_is_quoted_in_sections_that_exist_and_name_it() -> None:
    wrong = []
    for script, quoted in listed_scripts().items():
        if script in AWAITED:
            continue
        places = QUOTED.findall(quoted)
        if not places:
            wrong.append(f"{script}: no `file` § section in its 'quoted in'")
        for file, heading in places:
            path = REPO / file
            text = sections(path).get(heading.strip()) if path.is_file() else None
            if text is None:
                wrong.append(f"{script}: {file} has no section {heading.strip()!r}")
            elif Path(script).name not in text:
                wrong.append(f"{script}: {file} § {heading.strip()} does not name it")
    assert not wrong, "benchmarks/README.md:\n" + "\n".join(wrong)


def test_every_benchmarks_path_the_docs_name_exists() -> None:
    absent, left = set(), set()
    for document in documents():
        where = document.relative_to(REPO).as_posix()
        for name in PATH.findall(document.read_text(encoding="utf-8", errors="replace")):
            name = name.rstrip(".")
            exists = any(REPO.glob(name)) if "*" in name else (REPO / name).exists()
            if (where, name) in LEFT:
                left.add((where, name))
            elif not exists and Path(name).relative_to("benchmarks").as_posix() not in AWAITED:
                absent.add(f"{where}: {name}")
    assert not absent, "paths under benchmarks/ that do not exist:\n" + "\n".join(sorted(absent))
    assert left == LEFT, f"no longer there, drop from LEFT: {sorted(LEFT - left)}"
