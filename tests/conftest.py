"""Shared helpers: where the public data lives, and running pytest as a user would (a subprocess)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("ABSA_SHARED_DIR", REPO.parent / "shared"))
SHARED_DATA = SHARED / "data"
ARTS_OUTPUT = SHARED_DATA / "arts" / "output"

# The optional extras of pyproject.toml a test may need, and the modules that show one is installed.
# `pip install -e ".[test]"` (the README's install) has no torch: those tests are skipped, naming the extra.
# CI installs every extra and sets ABSA_REQUIRE_EXTRAS=1, which makes a missing extra a failure instead.
EXTRAS = {
    "transformers": ("torch", "transformers", "safetensors"),
    "report": ("matplotlib",),
    "allure": ("allure_pytest",),
    "openai": ("openai",),
}
REQUIRE_EXTRAS = "ABSA_REQUIRE_EXTRAS"


def needs_extra(extra: str) -> pytest.MarkDecorator:
    """Mark a test (or a module, as pytestmark) that needs the optional extra `extra`, also when it only runs
    pytest in a subprocess with a model of that extra. `-m needs_extra` selects them all,
    `-m "needs_extra(extra='transformers')"` those of one extra."""
    if extra not in EXTRAS:
        raise ValueError(f"unknown extra {extra!r}; known: {', '.join(EXTRAS)}")
    return pytest.mark.needs_extra(extra=extra)


def missing_extra(extra: str) -> str:
    """Why a test of `extra` cannot run here ('' when it can): the missing modules and the install command."""
    from absa_checks.models.adapters import missing_modules

    missing = missing_modules(EXTRAS[extra])
    if not missing:
        return ""
    return f"needs the {extra} extra ({', '.join(missing)} not installed): pip install -e '.[{extra}]'"


def pytest_configure(config):
    config.addinivalue_line("markers", "needs_extra(extra): needs that optional extra of pyproject.toml "
                                       "(skipped without it, naming it; a failure when ABSA_REQUIRE_EXTRAS=1)")


@pytest.hookimpl(tryfirst=True)  # before skipif: a missing extra is said even where data is missing too
def pytest_runtest_setup(item):
    for mark in item.iter_markers("needs_extra"):
        for extra in (*mark.args, *mark.kwargs.values()):
            reason = missing_extra(extra)
            if reason and os.environ.get(REQUIRE_EXTRAS) == "1":
                pytest.fail(f"{reason} ({REQUIRE_EXTRAS}=1: every extra must be installed here)", pytrace=False)
            if reason:
                pytest.skip(reason)


# Suite files the tests run in a subprocess (tests/data/templates/suite.yaml): never cases of the project's own run
collect_ignore_glob = ["data/*/*.yaml"]

# The longest tests (`pytest --durations`, docs/performance.md "The project's own tests"), started first: with
# `-n 2` a worker that meets one of them last would otherwise run alone for minutes while the other idles. The
# slow ones (marked `slow`, run by `-m slow` and in CI) first, then the longest of the README's test command. Each
# is named by its node id under tests/ (an unknown one is a failure: tests/repo/test_slow_marker.py).
LONGEST_FIRST = (
    "reports/test_terminal.py::test_the_full_data_run_fits_one_screen",
    "models/test_tagging.py::test_behavioural_suites_on_an_extraction_model_and_its_replay_agree",
    "judge/test_matching.py::test_the_drawn_pairs_are_the_ones_the_recorded_seed_draws_from_the_taggers_real_outputs",
    "workflows/test_augment.py::test_the_training_recipe_is_wired_end_to_end",
    "models/test_tagging.py::test_the_extraction_suite_reports_the_strict_pair_f1_an_independent_computation_gives",
    "e2e/test_real_models.py::test_bert_pt_reproduces_the_checkpoint_readme",
    "workflows/test_leakage.py::test_augment_checks_the_projects_own_suite_examples_and_says_which_it_read",
    "judge/test_manifest.py::test_shards_of_a_gated_suite_without_data_merge_into_a_failed_run",
    "api/test_api.py::test_evaluate_equals_pytest_on_the_default_suites",
    "models/test_tagging.py::test_an_extraction_models_answers_are_cached_per_sentence",
    "workflows/test_leakage.py::test_drop_leaks_drops_and_counts_test_sentences_and_keeps_the_training_ones",
    "pytest_plugin/test_xdist.py::test_two_workers_offline_default",
    "judge/test_coverage.py::test_builtin_sources_counts_equal_the_cases",
    "e2e/test_offline_default.py::test_offline_default_run_prints_the_summary",
    "cli/test_freeze.py::test_swapping_the_generator_under_a_frozen_file_leaves_its_cases_identical",
    "cli/test_freeze.py::test_accepting_every_shipped_candidate_gives_exactly_the_generated_cases",
    "run/test_shards.py::test_merged_shards_keep_the_groups_splits_and_claims",
    "workflows/test_augment.py::test_variants_of_a_training_file_as_jsonl_and_semeval_xml",
    "workflows/test_leakage.py::test_the_shipped_file_equals_what_the_script_builds_from_the_shared_data",
    "models/test_progress.py::test_quiet_runs_and_logs_get_no_live_line",
    "adapters/test_transformers_tagger.py::test_a_run_with_a_short_max_length_errors_the_cut_sentences_and_counts_them",
    "workflows/test_augment.py::test_the_leakage_guard_refuses_test_sentences_and_their_variants",
    # not slow: the longest of the default command (4 to 6 s each on 2 busy cores)
    "common/test_domains.py::test_report_only_cases_fail_neither_a_run_without_gates_nor_a_strict_one",
    "run/test_shards.py::test_every_checkpoints_units_split_the_same_way",
    "review/test_page.py::test_the_page_opens_on_the_first_candidate_that_needs_a_decision_and_says_how_many",
    "models/test_progress.py::test_a_terminal_shows_one_live_line_outside_the_captured_output",
    "run/test_shards.py::test_allure_results_of_shards_gathered_in_one_folder_get_one_summary_from_the_merge",
    "e2e/test_exit_status.py::test_the_verdict_comes_after_the_list_of_failed_cases",
    "judge/test_checkpoints.py::test_mean_and_std_across_three_checkpoints_equal_hand_computed_values",
    "e2e/test_reliability.py::test_a_worker_killed_mid_run_makes_the_run_partial_not_one_other_failure",
)


def pytest_collection_modifyitems(config, items):
    """The slow tests left out unless asked for (`left_out_slow`); the longest tests first, the rest in their
    order (a stable sort: no test depends on another's order)."""
    slow = left_out_slow(config, items)
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if item not in slow]
    rank = {name: index for index, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("[")[0].removeprefix("tests/"), len(rank)))


def left_out_slow(config, items) -> list:
    """The tests marked `slow` that the README's test command leaves out (docs/performance.md "The project's own
    tests"): none when the command line gives a marker expression (`-m slow` runs them alone, `-m "slow or not
    slow"` everything, as CI does) or names the test itself (`tests/test_x.py::test_y`). Not an `addopts` in
    pyproject.toml: that would also filter every `pytest suites/` a user or a test runs from the repo's root."""
    if config.option.markexpr:
        return []
    named = ["/" + Path(arg.split("::", 1)[0]).name + "::" + arg.split("::", 1)[1].split("[")[0]
             for arg in config.args if "::" in arg]
    return [item for item in items if item.get_closest_marker("slow") is not None
            and not any(("/" + item.nodeid.split("[")[0]).endswith(name) for name in named)]


needs_shared_data = pytest.mark.skipif(
    not (SHARED_DATA / "arts" / "arts_testset" / "laptop_test_enriched.json").is_file(),
    reason=f"the public ABSA data is not at {SHARED_DATA}; put the project's shared/ folder beside the "
           "checkout or set ABSA_SHARED_DIR")


@dataclass
class Run:
    code: int
    out: str
    report: dict | None

    @property
    def summary(self) -> str:
        """The absa-checks section of the terminal output."""
        marker = "absa-checks ="
        return self.out[self.out.find(marker):] if marker in self.out else ""


def _plugin_args() -> list[str]:
    installed = any(ep.name == "absa_checks" for ep in entry_points(group="pytest11"))
    return [] if installed else ["-p", "absa_checks.pytest_plugin.plugin"]


def run_pytest(args: list[str], cwd: Path = REPO, report: Path | None = None, env: dict | None = None,
               timeout: int = 600) -> Run:
    """`python -m pytest ARGS` in a subprocess; reads the JSON report when `report` is given."""
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *_plugin_args(), *args]
    if report is not None:
        command += ["--absa-report", str(report)]
    full_env = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    # the same output locally and in CI (pytest prints untruncated summaries when CI is set)
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_ADDOPTS", "CI", "BUILD_NUMBER"):
        full_env.pop(name, None)
    done = subprocess.run(command, cwd=cwd, env=full_env, capture_output=True, text=True, timeout=timeout)
    data = json.loads(report.read_text()) if report is not None and report.is_file() else None
    return Run(done.returncode, done.stdout + done.stderr, data)


def start_server(args: list[str], start_line: re.Pattern, cwd: Path, env: dict | None = None
                 ) -> tuple[subprocess.Popen, re.Match, str]:
    """`absa-checks ARGS` (a command that serves until stopped: review, serve-replay) as a real process; it and
    the match of the one line it prints before serving (an AssertionError with its stderr when there is none)."""
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
                   **(env or {})}
    proc = subprocess.Popen([sys.executable, "-m", "absa_checks.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=environment, cwd=cwd)
    line = proc.stdout.readline() if proc.stdout else ""
    found = start_line.match(line.rstrip("\n"))
    if not found:
        proc.kill()
        _, err = proc.communicate(timeout=30)
        raise AssertionError(f"no start line: {line!r}; stderr: {err!r}")
    return proc, found, line


@pytest.fixture
def run(tmp_path):
    """run(args, cwd=...) -> Run, with the JSON report written into tmp_path."""
    counter = iter(range(1000))

    def _run(args: list[str], cwd: Path = REPO, env: dict | None = None) -> Run:
        return run_pytest(args, cwd=cwd, report=tmp_path / f"report-{next(counter)}.json", env=env)

    return _run

MODELS = SHARED / "models"
PAIR_MODEL = MODELS / "minilm-absa-pair-rest"
SENTENCE_MODEL = MODELS / "minilm-absa-sent-rest"

needs_shared_models = pytest.mark.skipif(
    not (PAIR_MODEL / "config.json").is_file() or not (SENTENCE_MODEL / "config.json").is_file(),
    reason=f"the small reference checkpoints are not at {MODELS}; put the project's shared/ folder beside the "
           "checkout or set ABSA_SHARED_DIR")


def install_adapter_package(site: Path, package: str, source: str, kind: str) -> Path:
    """A third-party package on disk that registers the adapter kind `kind` (its module's KIND) under the
    entry-point group absa_checks.adapters: a module and its dist-info folder. No pip needed:
    importlib.metadata finds a dist-info folder on sys.path, so PYTHONPATH=site installs it."""
    (site / package).mkdir(parents=True)
    (site / package / "__init__.py").write_text(source)
    info = site / f"{package}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[absa_checks.adapters]\n{kind} = {package}:KIND\n")
    return site
