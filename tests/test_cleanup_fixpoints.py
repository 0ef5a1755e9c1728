"""Cleanup skipped at known fixed points gives the same states as Cleanup run in full.

The model checker keeps the inputs (``cleanup.inputs``) of every state where a pass of Cleanup
changed nothing, and skips Cleanup where the same inputs come again. That is only right if
``inputs`` holds everything Cleanup and the guards it asks read. These tests explore every
bundled scenario and model with each skip checked: Cleanup is run in full on a copy of the
state it skipped, and must change nothing there either.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine import cleanup, explore, invariants
from engine.core import Table
from engine.explore import Settings, prepare, state_key

ROOT = Path(__file__).resolve().parent.parent
POSITIONS = sorted((ROOT / "scenarios").glob("*.yaml")) + sorted((ROOT / "models").glob("*.yaml"))


class SkippedCleanupChanged(AssertionError):
    """A Cleanup the model checker skipped would have changed the state."""


def _checking(full_run: Callable[[Table], None], skips: list[int]) -> Callable[[Table], None]:
    """``cleanup.run`` that, where it would skip, first runs Cleanup in full on a copy."""

    def run(table: Table) -> None:
        s = table.state
        known = table.fixpoints
        if known is not None and not s.resolving and cleanup.inputs(s) in known:
            probe = Table(s.copy(), table.runtime)  # traced: a skipped Cleanup says nothing
            full_run(probe)  # no fixpoints on the probe: every step is asked
            if state_key(probe.state) != state_key(s) or probe.lines:
                raise SkippedCleanupChanged(f"Cleanup was skipped where it changes {s}")
            skips[0] += 1
        full_run(table)

    return run


def _explore_checked(path: Path, monkeypatch: Any, max_states: int) -> int:
    skips = [0]
    monkeypatch.setattr(cleanup, "run", _checking(cleanup.run, skips))
    prepared = prepare(str(path))
    explore.explore(prepared.start, Settings(invariants.all_invariants(), max_states=max_states))
    return skips[0]


@pytest.mark.parametrize("path", POSITIONS, ids=lambda p: p.stem)
def test_skipped_cleanups_would_change_nothing(path: Path, monkeypatch: Any) -> None:
    _explore_checked(path, monkeypatch, max_states=300)


def test_the_bundled_model_skips_most_cleanups_correctly(monkeypatch: Any) -> None:
    skips = _explore_checked(ROOT / "models" / "1v1_two_battlefields.yaml", monkeypatch, 4000)
    assert skips > 4000  # more than one skip a state: the check above is not vacuous


def test_inputs_missing_where_units_are_is_caught(monkeypatch: Any) -> None:
    """Leave out where units are, and a skip changes the game: the check fails."""
    monkeypatch.setattr(cleanup, "_unit_inputs", lambda u: (u.id, u.controller, u.damage))
    with pytest.raises(SkippedCleanupChanged):
        _explore_checked(ROOT / "models" / "1v1_two_battlefields.yaml", monkeypatch, 4000)
