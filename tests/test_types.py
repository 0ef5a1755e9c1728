"""The sources' type hints hold together. Not run on the compiled build (tests/test_compiled.py),
whose copy of the project has no sources to check."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT


def test_the_package_type_checks(tmp_path: Path) -> None:
    """Its type hints hold together (the compiled build type-checks only the search's
    modules; this checks them all)."""
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--ignore-missing-imports", "--follow-imports=silent",
         "--cache-dir", str(tmp_path / "cache"), "engine", "statecharts"],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_documented_forms_of_an_action_type_check(tmp_path: Path) -> None:
    """docs/embedding.md lets a list stand for a tuple of ids, and a dict or a list of pairs for
    Assign's damage: a typed program that builds actions from JSON data passes strict mypy."""
    program = tmp_path / "actions_from_json.py"
    program.write_text(
        "from engine import Assign, Move, Play\n"
        "move = Move('P1', ['U1', 'U2'], 'A')\n"
        "play = Play('P1', 'S1', ['U1'], 'A')\n"
        "damage = [Assign('P1', {'E1': 2}), Assign('P1', [('E1', 2)]), Assign('P1', [['E1', 2]])]\n"
        "units: tuple[str, ...] = move.units + play.targets\n"
        "pairs: tuple[tuple[str, int], ...] = damage[0].damage\n")
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent",
         "--cache-dir", str(tmp_path / "cache"), str(program)],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
