"""Where a player's units may go: the destination rules of rules.md section 8, asked by the
legality checks of moves and plays (actions) and by the moves effects make (effects)."""

from __future__ import annotations

from typing import NamedTuple

from .state import GameState


class Refusal(NamedTuple):
    """Why a battlefield is no destination now, and the rule that says so."""

    reason: str
    rule: str


def destination_problem(s: GameState, player: str, bf: str) -> Refusal | None:
    """Why ``player``'s units may not go to ``bf`` now; None if they may."""
    f = s.fields[bf]
    present = s.players_at(bf)
    if any(s.teammates(player, p) for p in present):
        return Refusal("a teammate has units there", "seed 001")
    if f.controller and s.teammates(player, f.controller):
        return Refusal("a teammate controls it", "rules 8")
    combatants = _combatants(s, bf)
    if combatants and player not in combatants:
        return Refusal(f"the Combat there does not involve {player}", "CR 442.2.a")
    # CR 444.2 (never units of three players at one battlefield) needs no check of its own:
    # two other players there are opponents, so a Combat that the player is not in (rules
    # 11.10), or one of them is the player's teammate (the checker's no_three_players
    # invariant watches for it)
    return None


def _combatants(s: GameState, bf: str) -> set[str]:
    """The two players of a staged or ongoing Combat there (rules 11.10: two opposing players
    with units there count as one already). A staged Combat keeps its two players until it
    begins or Cleanup removes it, also when one side has left during the resolution that is
    running (docs/decisions.md D16)."""
    if s.contest_at == bf and s.attacker:
        return set(s.combatants)
    staged = s.fields[bf].staged_combatants
    if staged and s.combat_staged(bf):
        return set(staged)
    return set(s.players_facing_off(bf))
