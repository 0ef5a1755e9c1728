"""The turn: Ending, Awaken, Beginning, Draw, Main (rules.md section 8, rules 11.9)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import chain, scoring

if TYPE_CHECKING:
    from .core import Table


def ending(table: Table, rule: str) -> None:
    """Stun and "this turn" effects expire; damage heals."""
    s = table.state
    s.priority = None
    table.say(f"{s.turn_player} ends the turn: Ending phase, stuns expire and damage heals", rule)
    for unit in list(s.units.values()):
        if unit.on_board and (unit.stunned or unit.damage):
            table.update_unit(unit.id, stunned=False, damage=0)


def next_turn(table: Table, rule: str) -> None:
    """The next player's turn begins with Awaken: their units ready."""
    s = table.state
    s.turn_player = s.next_player(s.turn_player)
    for bf, f in list(s.fields.items()):
        if f.scored:
            table.update_field(bf, scored=())
    # teams: a battlefield a teammate controls now cannot be scored by you this turn (nor
    # one a teammate comes to control in the Beginning phase: scoring.block_if_teammates)
    s.blocked_scoring = tuple(
        bf for bf, f in s.fields.items() if scoring.teammate_of_turn_player(s, f.controller)
    )
    table.say(f"{s.turn_player}'s turn: Awaken phase, their units ready", rule)
    for unit in list(s.units.values()):
        if unit.controller == s.turn_player and unit.on_board and unit.exhausted:
            table.update_unit(unit.id, exhausted=False)


def beginning_triggers(table: Table, rule: str) -> None:
    """Battlefields' "at the start of the Beginning phase" abilities go on the Chain first."""
    table.say("Beginning phase", rule)
    for bf in table.state.fields:
        chain.fire_battlefield(table, bf, "beginning")


def draw_step(table: Table, rule: str) -> None:
    table.say("Draw phase", rule)
    scoring.draw(table, table.state.turn_player, 1)


def main_phase(table: Table, rule: str) -> None:
    s = table.state
    s.priority = s.turn_player
    table.say(f"Main phase: {s.turn_player} has Priority", rule)
