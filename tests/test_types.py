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
