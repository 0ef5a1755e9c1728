"""The compiled build (setup.py with ``RIFTCHART_COMPILE=1``) behaves exactly as the sources:
the same reports, state graphs and traces, byte for byte, and the test suite passes on it.
Building it takes about half a minute, once for the module."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import compiled_build
from tests.conftest import ROOT, SCENARIOS

ONE_V_ONE = str(ROOT / "models" / "1v1_two_battlefields.yaml")
FFA = str(ROOT / "models" / "ffa_three_players.yaml")
#: the tests that also run on the compiled build: all but those that patch the engine from
#: outside (compiled callers do not see a patch), the benchmark's (it subclasses the fast
#: runtime, which a compiled class does not allow), those that read the sources themselves
#: (test_chart_names, test_types: the build's copy has none), the browser's, the slow
#: property runs, and those of the command line's own work (test_cli: streams, exit codes,
#: arguments; test_determinism's `riftchart run` bytes), which is never compiled and whose
#: output on the build the tests below compare with the sources' byte for byte
ON_THE_BUILD = ("test_api_contract.py", "test_diagrams_drift.py", "test_embedding.py",
                "test_explore.py", "test_exports.py", "test_profiles_and_multiplayer.py",
                "test_runtime_semantics.py", "test_scenario_loader.py", "test_scenarios.py",
                "test_trace_wording.py",
                "test_determinism.py::test_replaying_the_log_gives_the_same_game",
                "test_determinism.py::"
                "test_a_mid_game_snapshot_plus_the_rest_of_the_log_gives_the_same_end",
                "test_determinism.py::test_api_game_is_the_same_under_other_hash_seeds")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compiled_build.build(tmp_path_factory.mktemp("compiled"))


def _both(site: Path, cwd: Path, *args: str) -> tuple[subprocess.CompletedProcess, ...]:
    return tuple(compiled_build.riftchart(where, *args, cwd=cwd) for where in (None, site))


def test_the_search_modules_are_compiled_and_the_rest_is_not(site: Path, tmp_path: Path) -> None:
    names = [*compiled_build.compiled_modules(), "engine.cli", "engine.units", "statecharts.focus"]
    show = "import importlib, sys\nfor name in sys.argv[1:]:\n"
    show += "    print(importlib.import_module(name).__file__)"
    done = subprocess.run([sys.executable, "-c", show, *names], cwd=tmp_path, text=True,
                          capture_output=True, env={"PYTHONPATH": str(site)}, check=True)
    files = done.stdout.split()
    assert all(f.startswith(str(site)) for f in files)
    assert [f.endswith(".so") for f in files] == [True] * (len(names) - 3) + [False] * 3


@pytest.mark.parametrize("args", [
    [ONE_V_ONE, "--max-states", "25000"],
    [ONE_V_ONE, "--rules", "cr-1.4", "--max-states", "15000", "--workers", "2"],
    [FFA, "--symmetry", "--max-states", "8000", "--workers", "2"],
    [FFA, "--max-turns", "2", "--max-states", "8000"],
], ids=["1v1", "1v1-cr14-workers", "ffa-symmetry-workers", "ffa-two-turns"])
def test_checks_report_the_same(site: Path, tmp_path: Path, args: list[str]) -> None:
    pure, fast = _both(site, tmp_path, "check", "--json", *args)
    assert (pure.returncode, fast.returncode) == (0, 0), pure.stderr + fast.stderr
    reports = [json.loads(done.stdout) for done in (pure, fast)]
    assert all("seconds" in report and "states_per_second" in report for report in reports)
    kept = [compiled_build.without_timings(report) for report in reports]
    assert kept[0] == kept[1]
    assert kept[0]["states"] > 1000


def test_the_invariants_are_listed_the_same(site: Path, tmp_path: Path) -> None:
    pure, fast = _both(site, tmp_path, "check", "--list")
    assert pure.returncode == fast.returncode == 0
    assert pure.stdout == fast.stdout and "CR 345" in pure.stdout
    descriptions = pure.stdout.splitlines()[1::2]
    assert all(len(line.split()) > 5 for line in descriptions), "an invariant lost its words"


def test_state_graphs_are_the_same(site: Path, tmp_path: Path) -> None:
    graphs = []
    for name, where in (("pure", None), ("compiled", site)):
        graph = tmp_path / f"{name}.dot"
        done = compiled_build.riftchart(where, "check", FFA, "--max-states", "1500", "--graph",
                                  str(graph), cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        graphs.append(graph.read_bytes())
    assert graphs[0] == graphs[1] and graphs[0].count(b"->") > 1500


@pytest.mark.parametrize("flag", ["--json", "--states"])  # --states: the text trace too
def test_every_scenario_plays_the_same(site: Path, tmp_path: Path, flag: str) -> None:
    files = [str(path) for path in SCENARIOS]
    pure, fast = _both(site, tmp_path, "run", flag, *files)
    assert pure.returncode == fast.returncode == 0, fast.stderr
    assert pure.stdout == fast.stdout and pure.stderr == fast.stderr
    assert len(pure.stdout.splitlines()) >= len(files)


def test_the_test_suite_passes_on_the_build(site: Path, tmp_path: Path) -> None:
    """The tests above compare the command line's output; the suite also drives the Python API
    (actions given lists, the checked runtime, snapshots, invariants' descriptions...). It runs
    on a copy of the project without the sources, so that ``engine`` is the build's."""
    copy = tmp_path / "project"
    shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(
        "engine", "statecharts", ".*", "__pycache__", "build", "*.egg-info"))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
         *[f"tests/{name}" for name in ON_THE_BUILD]],
        cwd=copy, env={**os.environ, "PYTHONPATH": str(site)}, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " passed" in done.stdout.splitlines()[-1]

