"""Cleanup: the rules' state-triggered transitions, run to a fixed point (rules.md section 4).

Each step either changes something or it does not; the whole list repeats until a pass
changes nothing. Steps 4 to 10 are events sent to the charts, which decide by their guards.
"""

from __future__ import annotations

from operator import attrgetter
from typing import TYPE_CHECKING

from . import chain, contest, effects, scoring
from .state import GameState, Unit, battlefield_key

if TYPE_CHECKING:
    from .core import Table

# Cleanup steps 4 to 7, each an event every battlefield chart is asked to take
_BATTLEFIELD_STEPS = ("check_control", "stage_showdowns", "stage_combats", "check_stale_contest")


def run(table: Table) -> None:
    s = table.state
    fixpoints = table.fixpoints
    read: tuple = inputs(s) if fixpoints is not None else ()
    if fixpoints is not None and read in fixpoints:
        return  # a state that reads the same was already found to need nothing
    battlefields = [battlefield_key(bf) for bf in s.fields]
    for pass_number in range(1000):
        if pass_number and fixpoints is not None:
            # what the last pass changed may have led to a state already found to need
            # nothing: the pass over it would change nothing, as at the start
            read = inputs(s)
            if read in fixpoints:
                return
        if scoring.check_win(table):  # step 1
            return
        changed = contest.designate(table)  # step 2
        changed |= _lethal_damage(table)  # step 3
        for event in _BATTLEFIELD_STEPS:  # steps 4 to 7
            for key in battlefields:
                changed |= table.try_send(key, event)
        changed |= chain.flush_triggers(table)
        if s.pending:
            return
        changed |= table.try_send("scheduler", "open_contest")  # steps 8 and 9
        if s.contest_at:  # step 10
            changed |= table.try_send(battlefield_key(s.contest_at), "convert_to_combat")
        if not changed:
            if fixpoints is not None:
                # the last pass read this state (at its start) and changed nothing
                fixpoints.add(read)
            return
    raise RuntimeError("Cleanup did not reach a fixed point")


def _lethal_damage(table: Table) -> bool:
    """Step 3: units with lethal damage die, but not while a Combat's damage waits for its
    resolution to kill them (rules 11.5)."""
    if _combat_damage_waits(table.state):
        return False
    return effects.kill_lethally_damaged(table, "CR 323")


def _combat_damage_waits(s: GameState) -> bool:
    """A Combat is in its damage step, or in the resolution task that kills (task 1)."""
    if s.contest_at is None:
        return False
    config = s.bf_config(s.contest_at)
    return "damage_step" in config or "kill_and_recall" in config


# What Cleanup's steps, and the guards of the events it sends, read: of each unit, of each
# battlefield and of the game state. ``inputs`` is made of exactly these, and a test records
# every attribute a Cleanup that changes nothing reads and fails on any other.
UNIT_INPUTS = ("id", "controller", "at", "might", "damage", "order", "designation")
FIELD_INPUTS = ("controller", "applier")
STATE_INPUTS = ("units", "fields", "configs", "scores", "contest_at", "attacker", "defender",
                "winner", "pending", "queued_triggers")
# read too, but the same all game long: a set of fixed points belongs to one game
SETUP_INPUTS = ("players", "teams", "profile", "victory_score")

_unit_inputs = attrgetter(*UNIT_INPUTS)
_field_inputs = attrgetter(*FIELD_INPUTS)


def _units_inputs(units: dict[str, Unit]) -> tuple:
    return tuple(map(_unit_inputs, units.values()))


def inputs(s: GameState) -> tuple:
    """What Cleanup reads of a state (``STATE_INPUTS``), as a hashable value.

    Cleanup is a function of these alone (and of ``SETUP_INPUTS``): when a pass over a state
    changes nothing, a pass over any state of the same game with the same inputs changes
    nothing either. The model checker keeps the inputs of the states found so
    (``Table.fixpoints``) and skips Cleanup where they come again: after most actions (a Pass,
    an Add) nothing Cleanup reads has changed. Priority, Focus, passes, hands and the Chain's
    items are not read (the guards see the Chain only through the priority chart's Open or
    Closed, which is in ``configs``); of ``pending`` and ``queued_triggers`` only whether
    there are any.
    """
    return (
        s.units.derived(_units_inputs),
        tuple(map(_field_inputs, s.fields.values())),
        tuple(s.configs.values()),
        tuple(s.scores.values()),
        s.contest_at, s.attacker, s.defender, s.winner, s.pending is None,
        bool(s.queued_triggers),
    )
