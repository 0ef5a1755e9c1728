"""Control, Conquer, Hold, the final point and the win (S 184.4, CR 462-467, rules.md 7)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import chain
from .state import GameState
from .wording import counted

if TYPE_CHECKING:
    from .core import Table


def conquer(table: Table, bf: str, player: str) -> None:
    """``player`` has just established control at the end of a contest (the battlefield
    chart's ``claim_after_showdown`` and ``claim_after_combat``): a Conquer if not scored yet.

    Not blocked by the freeze of S 184.3.c: control and Contested change together (11.6).
    """
    s = table.state
    if blocked(s, bf, player):
        table.say(
            f"{player} cannot score {bf} this turn: a teammate controlled it at the Beginning",
            "CR 464.1.a",
        )
        return
    if not may_score(s, bf, player):
        table.say(f"{player} already scored {bf} this turn: no point, no Conquer", "CR 465")
        return
    score(table, bf, player, "conquer")


def blocked(s: GameState, bf: str, player: str) -> bool:
    """Teams: a battlefield a teammate controlled at your Beginning phase is not yours to
    score that turn (rules.md 8); "your" turn: it binds the turn player."""
    return player == s.turn_player and bf in s.blocked_scoring


def teammate_of_turn_player(s: GameState, player: str | None) -> bool:
    return player is not None and s.teammates(s.turn_player, player)


def block_if_teammates(table: Table, bf: str) -> None:
    """A battlefield a teammate of the turn player comes to control during the Beginning phase
    is blocked as one they controlled when it began is (D10: "at your Beginning phase" is the
    whole phase, whose triggers can move a teammate's unit there to conquer it)."""
    s = table.state
    if (s.phase == "beginning" and teammate_of_turn_player(s, s.fields[bf].controller)
            and bf not in s.blocked_scoring):
        s.blocked_scoring += (bf,)


def may_score(s: GameState, bf: str, player: str) -> bool:
    """A player scores a battlefield at most once a turn, by either method (CR 465); a
    teammate's score does not use up theirs (rules.md 7 speaks of a player)."""
    return player not in s.fields[bf].scored and not blocked(s, bf, player)


def score(table: Table, bf: str, player: str, method: str) -> None:
    s = table.state
    f = table.update_field(bf, scored=s.fields[bf].scored + (player,))
    if method == "conquer" and s.scores[player] >= s.victory_score - 1:
        # every battlefield scored by the player this turn, a teammate's score of it aside,
        # and excepting those a teammate held at the Beginning phase (CR 484.8.f.1)
        scorable = [b for b in s.fields if not blocked(s, b, player)]
        if not all(player in s.fields[b].scored for b in scorable):
            table.say(
                f"{player} conquers {bf} but has not scored every battlefield this turn: "
                "draws a card instead of the final point",
                "CR 466.1.b.2",
            )
            draw(table, player, 1)
            _fire_score_triggers(table, bf, player, method)
            return
    add_points(table, player, 1)
    verb = "conquers" if method == "conquer" else "holds"
    rule = "CR 464.1" if method == "conquer" else "CR 464.2"
    table.say(f"{player} {verb} {f.id} and scores 1 point ({s.scores[player]} in all)", rule)
    _fire_score_triggers(table, bf, player, method)


def _fire_score_triggers(table: Table, bf: str, player: str, method: str) -> None:
    """The battlefield's conquer or hold ability, and the scorer's units' there."""
    chain.fire_battlefield(table, bf, method)
    for unit in table.state.units_at(bf):
        if unit.controller == player:
            chain.fire_unit(table, unit, method)


def score_holds(table: Table) -> None:
    """Beginning phase: the turn player scores every battlefield they control (CR 464.2)."""
    s = table.state
    for bf, f in list(s.fields.items()):
        if f.controller == s.turn_player and may_score(s, bf, s.turn_player):
            score(table, bf, s.turn_player, "hold")


def add_points(table: Table, player: str, amount: int) -> None:
    """Points are shared by a team (rules.md 8)."""
    for p in table.state.team_of(player):
        table.state.scores[p] += amount


def draw(table: Table, player: str, count: int) -> None:
    """Draw up to ``count`` cards (an empty deck draws nothing). Here because scoring draws:
    a final point by Conquer without every battlefield scored this turn is a card drawn
    instead (rules.md 7); the draw step and the draw effect call it too."""
    s = table.state
    drawn = min(count, s.deck[player])
    s.deck[player] -= drawn
    s.hands[player].extend([None] * drawn)  # drawn cards are unknown: they count, not play
    if drawn == count:
        table.say(f"{player} draws {counted(drawn, 'card')}", "CR 413")
    elif drawn:
        table.say(f"{player} draws {counted(drawn, 'card')} of {count}: the deck is now empty",
                  "rules 11.9")
    else:
        table.say(f"{player} draws nothing: the deck is empty", "rules 11.9")


def check_win(table: Table) -> bool:
    """Cleanup step 1: points >= the victory score and strictly more than every opponent."""
    s = table.state
    if s.winner:
        return True
    for player in s.players:
        mine = s.scores[player]
        if mine < s.victory_score:
            continue  # asked in every pass of Cleanup: skip the rivals when it cannot be a win
        rivals = [s.scores[p] for p in s.players if s.opponents(player, p)]
        if all(mine > r for r in rivals):
            s.winner = next(p for p in s.players if p in s.team_of(player))
            team = s.team_of(player)
            who = f"{s.winner}" if len(team) == 1 else f"Team {' and '.join(team)}"
            table.say(f"Cleanup: {who} {'wins' if len(team) == 1 else 'win'} with "
                      f"{counted(mine, 'point')}, more than any opponent; the "
                      "game is over", "CR 467")
            return True
    return False
