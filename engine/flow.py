"""After every action the game runs on by itself until a player must act (rules 11.9).

Cleanup runs; a Combat past its Showdown steps through damage and resolution; a turn that was
ended runs through its phases to the next Main phase. Whatever needs a player stops it: a
chain waiting for passes, a Showdown waiting for its Focus holder, a pending choice, a winner.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import cleanup
from .state import battlefield_key

if TYPE_CHECKING:
    from .core import Table


def settle(table: Table) -> None:
    _run_on(table)
    s = table.state
    if s.winner:
        # the game is over: nobody may act, whatever the charts were doing when it was won
        s.focus = s.priority = None
    if not s.chain:
        # who held Focus when a chain began matters only to the Cleanup after it ends (a
        # conversion gives it back, rules 11.1 d); kept after, it would tell apart states that
        # are one, to the model checker and to anyone comparing snapshots
        s.focus_at_chain_start = None


def _run_on(table: Table) -> None:
    """Each step is an event the charts take only where it applies: ``deal_damage`` only in
    a Combat's damage step, ``resolve_task`` only in its resolution, ``advance`` only outside
    the Main phase. What stops the run is whatever needs a player."""
    s = table.state
    for _ in range(10_000):
        if s.winner or s.pending:
            return
        if s.contest_at and table.try_send(battlefield_key(s.contest_at), "deal_damage"):
            # no priority window in the damage step, and no Cleanup before task 1 (11.5)
            table.send(battlefield_key(s.contest_at), "resolve_task")
            continue
        cleanup.run(table)
        if s.winner or s.pending or not s.chain_open:
            return
        if s.contest_at:
            if table.try_send(battlefield_key(s.contest_at), "resolve_task"):
                continue
            return  # the Focus holder acts
        if table.try_send("turn", "advance"):
            continue
        if s.priority != s.turn_player:
            s.priority = s.turn_player
            table.say(f"{s.turn_player}, the turn player, has Priority in Neutral Open",
                      "CR 312.2.a")
        return
    raise RuntimeError("the game did not settle")
