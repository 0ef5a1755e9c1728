"""Cleanup skipped at known fixed points gives the same states as Cleanup run in full.

The model checker keeps the inputs (``cleanup.inputs``) of every state where a pass of Cleanup
changed nothing, and skips Cleanup where the same inputs come again. That is only right if
``inputs`` holds everything Cleanup and the guards it asks read. Cleanup also stops between
two of its passes when what the last one changed led to known inputs. These tests explore
every bundled scenario and model with two checks:

- each Cleanup is also run in full on a copy of the state, with nothing skipped, and must end
  in the same state (where it is skipped at once, the full run must change nothing there);
- at each fixed point kept, Cleanup is run again on a copy that records every attribute it
  reads of the state, its units and its battlefields: anything ``cleanup`` does not declare
  fails (a new guard that reads, say, a unit's ``stunned`` must be declared there first).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest
import yaml

from engine import cleanup, explore, invariants, scoring
from engine.core import Table
from engine.explore import Settings, prepare, state_key
from engine.state import Field, GameState, Unit

from .helpers import write_yaml

ROOT = Path(__file__).resolve().parent.parent
ONE_V_ONE = ROOT / "models" / "1v1_two_battlefields.yaml"
SCENARIOS = sorted((ROOT / "scenarios").glob("*.yaml"))
POSITIONS = SCENARIOS + sorted((ROOT / "models").glob("*.yaml"))
# a Combat with attack and defend triggers, from its setup: the Cleanup that opens it runs a
# second pass that changes something (the triggers go on the Chain), then a third
TRIGGERED_COMBAT = ROOT / "scenarios" / "041_combat_attack_defend_triggers.yaml"


class SkippedCleanupChanged(AssertionError):
    """A Cleanup the model checker skipped would have changed the state."""


class UndeclaredRead(AssertionError):
    """Cleanup read something that ``cleanup.inputs`` does not hold."""


# --- a copy of a state that notes what is read of it ---------------------------------------

_reads: set[str] = set()


def _recording(cls: type, prefix: str) -> type:
    """A subclass of a dataclass that notes, in ``_reads``, each of its fields read."""
    names = {f.name for f in fields(cls)}

    def __getattribute__(self: Any, name: str) -> Any:
        if name in names:
            _reads.add(prefix + name)
        return cls.__getattribute__(self, name)

    return type(f"Recording{cls.__name__}", (cls,), {"__getattribute__": __getattribute__})


_RecordingState = _recording(GameState, "")
_RecordingUnit = _recording(Unit, "unit.")
_RecordingField = _recording(Field, "field.")


def _as(cls: type, value: Any) -> Any:
    twin = object.__new__(cls)
    twin.__dict__.update(value.__dict__)
    return twin


def _recording_copy(s: GameState) -> GameState:
    probe = s.copy()
    for uid, unit in list(probe.units.items()):
        probe.units[uid] = _as(_RecordingUnit, unit)
    for bf, data in list(probe.fields.items()):
        probe.fields[bf] = _as(_RecordingField, data)
    return _as(_RecordingState, probe)


def _declared() -> set[str]:
    return (
        {*cleanup.STATE_INPUTS, *cleanup.SETUP_INPUTS}
        | {f"unit.{name}" for name in cleanup.UNIT_INPUTS}
        | {f"field.{name}" for name in cleanup.FIELD_INPUTS}
    )


def _check_reads(full_run: Callable[[Table], None], table: Table) -> None:
    """Run Cleanup again on a recording copy of a fixed point: it reads only what ``cleanup``
    declares."""
    probe = Table(_recording_copy(table.state), table.runtime)
    _reads.clear()
    full_run(probe)
    undeclared = _reads - _declared()
    if undeclared:
        raise UndeclaredRead(f"Cleanup read {sorted(undeclared)}, not declared in cleanup")


# --- Cleanup with both checks ----------------------------------------------------------------


def _checking(full_run: Callable[[Table], None], counts: dict[str, int]) -> Callable[[Table], None]:
    """``cleanup.run`` that also runs Cleanup in full on a copy and compares the two ends (a
    Cleanup skipped at once must not even say anything); and that records what Cleanup
    reads at each fixed point it keeps."""
    recorded: set[tuple] = set()

    def run(table: Table) -> None:
        s = table.state
        known = table.fixpoints
        if known is None:
            full_run(table)
            return
        skipped = cleanup.inputs(s) in known
        probe = Table(s.copy(), table.runtime)  # traced, to hear a skipped Cleanup say nothing
        before = counts["passes"]
        full_run(probe)  # no fixpoints on the probe: every step is asked
        passes_in_full = counts["passes"] - before
        full_run(table)
        passes_with_skips = counts["passes"] - before - passes_in_full
        if state_key(probe.state) != state_key(s) or (skipped and probe.lines):
            raise SkippedCleanupChanged(f"Cleanup with its fixed points ends in {s}, in full "
                                        f"in {probe.state}")
        counts["skips"] += skipped
        # fewer passes than in full, not skipped at once: stopped between two passes
        counts["stopped_between"] += not skipped and passes_with_skips < passes_in_full
        fixed = cleanup.inputs(s)
        if fixed in known and fixed not in recorded:
            recorded.add(fixed)
            _check_reads(full_run, table)
            counts["recorded"] += 1

    return run


def _explore_checked(path: Path, monkeypatch: Any, max_states: int) -> dict[str, int]:
    counts = {"skips": 0, "recorded": 0, "passes": 0, "stopped_between": 0}
    monkeypatch.setattr(cleanup, "run", _checking(cleanup.run, counts))
    check_win = scoring.check_win

    def pass_begins(table: Table) -> bool:  # step 1 of each pass of Cleanup
        counts["passes"] += 1
        return check_win(table)

    monkeypatch.setattr(scoring, "check_win", pass_begins)
    prepared = prepare(str(path))
    explore.explore(prepared.start, Settings(invariants.all_invariants(), max_states=max_states))
    return counts


@pytest.mark.parametrize("path", POSITIONS, ids=lambda p: p.stem)
def test_skipped_cleanups_would_change_nothing(path: Path, monkeypatch: Any) -> None:
    _explore_checked(path, monkeypatch, max_states=300)


def _setup_only(scenario: Path, tmp_path: Path) -> Path:
    """``scenario`` without its steps, written to ``tmp_path``: a search from its setup."""
    data = yaml.safe_load(scenario.read_text(encoding="utf-8"))
    return write_yaml(tmp_path, {**data, "steps": []})


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_cleanups_from_a_scenario_setup_end_as_in_full(path: Path, monkeypatch: Any,
                                                         tmp_path: Path) -> None:
    """From a scenario's setup rather than after its steps: the search itself then meets
    what the steps show (a Combat opening with its triggers, a conquest, a win)."""
    _explore_checked(_setup_only(path, tmp_path), monkeypatch, max_states=300)


def test_cleanup_stops_between_passes_only_where_nothing_is_left(monkeypatch: Any,
                                                                 tmp_path: Path) -> None:
    counts = _explore_checked(_setup_only(TRIGGERED_COMBAT, tmp_path), monkeypatch, 300)
    # the search met Cleanups that stopped early (and each ended as in full): not vacuous
    assert counts["stopped_between"] > 0, counts


def test_a_cleanup_stopped_after_its_first_pass_is_caught(monkeypatch: Any,
                                                          tmp_path: Path) -> None:
    """Stop every Cleanup after one pass, as a wrong stop between passes would: the
    attack and defend triggers are left waiting, and the full run tells."""
    real = cleanup.run

    def one_pass(table: Table) -> None:
        if table.fixpoints is None:
            real(table)
            return
        check_win = scoring.check_win
        passes = [0]

        def stop_after_one(t: Table) -> bool:
            passes[0] += 1
            if passes[0] > 1:
                raise _Stop
            return check_win(t)

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(scoring, "check_win", stop_after_one)
            try:
                real(table)
            except _Stop:
                pass

    monkeypatch.setattr(cleanup, "run", one_pass)
    with pytest.raises(SkippedCleanupChanged):
        _explore_checked(_setup_only(TRIGGERED_COMBAT, tmp_path), monkeypatch, 300)


class _Stop(Exception):
    """Ends a Cleanup half-way (see the test above)."""


def test_the_bundled_model_skips_most_cleanups_correctly(monkeypatch: Any) -> None:
    counts = _explore_checked(ONE_V_ONE, monkeypatch, 4000)
    # more than one skip a state, and many fixed points recorded: the checks are not vacuous
    assert counts["skips"] > 4000 and counts["recorded"] > 100, counts


def test_inputs_missing_where_units_are_is_caught(monkeypatch: Any) -> None:
    """Leave out where units are, and a skip changes the game: the first check fails."""
    monkeypatch.setattr(cleanup, "_unit_inputs", lambda u: (u.id, u.controller, u.damage))
    with pytest.raises(SkippedCleanupChanged):
        _explore_checked(ONE_V_ONE, monkeypatch, 4000)


def test_a_read_left_undeclared_is_caught(monkeypatch: Any) -> None:
    """Declare less than Cleanup reads (here: not a unit's damage), and the second fails."""
    monkeypatch.setattr(cleanup, "UNIT_INPUTS",
                        tuple(name for name in cleanup.UNIT_INPUTS if name != "damage"))
    with pytest.raises(UndeclaredRead, match="unit.damage"):
        _explore_checked(ONE_V_ONE, monkeypatch, 300)
