"""Drive a riftchart game from Python, start to finish, through the public API only.

Run it from the checkout with ``.venv/bin/python examples/embed.py``. It:

1. loads a scenario from a plain dict (no file needed);
2. registers an observer that counts every chart transition the engine takes;
3. plays the game to its end with a small deterministic policy that looks one action ahead
   on a *restored snapshot* (so the real game is never touched by the look-ahead);
4. prints each action with the trace lines it produced, the winner, and what the observer
   saw;
5. shows that a JSON snapshot taken mid-game continues exactly like the original.

Everything it uses is importable from ``engine``: ``Game``, ``IllegalAction`` and the typed
actions.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from engine import Action, Add, EndTurn, Game, IllegalAction, Move, Pass

# A small 1v1 position with two battlefields. The victory score is low so that the greedy
# policy below wins within a handful of turns: a game that never ends would make a poor demo.
SCENARIO: dict[str, Any] = {
    "name": "Embedding demo",
    "players": ["P1", "P2"],
    "victory_score": 4,
    "battlefields": [{"id": "A"}, {"id": "B", "controller": "P2"}],
    "units": [
        {"id": "U1", "name": "Vi", "controller": "P1", "might": 3, "at": "base"},
        {"id": "U2", "name": "Jinx", "controller": "P1", "might": 2, "at": "base"},
        {"id": "E1", "name": "Garen", "controller": "P2", "might": 2, "at": "base"},
        {"id": "E2", "name": "Lux", "controller": "P2", "might": 1, "at": "B"},
    ],
    "hands": {
        "P2": [
            {"id": "S1", "name": "Rune Prison", "type": "spell", "timing": "reaction",
             "effect": {"stun": {}}},
        ],
    },
}

# Enough for this position several times over; a bound keeps a policy bug from hanging a
# test run instead of failing it.
MAX_ACTIONS = 500
# Where the demo takes a JSON snapshot (after P1's first turn) to show that it resumes exactly.
SNAPSHOT_AT = 4


@dataclass
class Outcome:
    """What :func:`main` returns, so tests can check the run without parsing its output."""

    winner: str | None
    actions: int
    trace: list[str]
    transitions: Counter[str] = field(default_factory=Counter)
    resumed_identically: bool = False


def score_after(game: Game, action: Action) -> int:
    """The acting player's score if ``action`` were taken now.

    The look-ahead runs on a copy restored from a snapshot: ``apply`` on the copy cannot
    change ``game``.
    """
    copy = Game.restore(game.snapshot())
    copy.apply(action)
    score: int = copy.view()["score"][action.player]  # view() is JSON data: typed Any
    return score


def choose(game: Game) -> Action:
    """A deterministic policy: score if you can, else attack, else let the game move on.

    ``legal_actions()`` lists every player's options (both may hold a Reaction), in a fixed
    order, so "the first one that fits" is deterministic.
    """
    options = game.legal_actions()
    scores = game.view()["score"]
    scoring = [a for a in options if score_after(game, a) > scores[a.player]]
    if scoring:
        return scoring[0]
    # Moving ready units to a battlefield is how points are won: the biggest group first.
    moves = [a for a in options if isinstance(a, Move) and a.to != "base"]
    if moves:
        return max(moves, key=lambda move: len(move.units))  # max() keeps the first of a tie
    # Otherwise let the game move on. Add abilities are skipped: they never change the
    # position, so a policy that kept taking them would never end the game.
    for kind in (Pass, EndTurn):
        for action in options:
            if isinstance(action, kind):
                return action
    # A pending choice (Choose / Assign) is all that is left: take the first answer.
    return next(a for a in options if not isinstance(a, Add))


def main(verbose: bool = True) -> Outcome:
    game = Game.from_scenario(SCENARIO)

    # The observer hook: called with an engine.core.TransitionTaken for every chart
    # transition, e.g. chart="battlefield:A", source="neutral", target="showdown".
    transitions: Counter[str] = Counter()
    game.observe(lambda step: transitions.update([step.chart]))

    # An illegal action is refused with the rule it breaks, and changes nothing.
    before = game.snapshot()
    try:
        game.apply(Pass("P2"))
    except IllegalAction as refused:
        if verbose:
            print(f"refused: {refused.message} [{refused.rule}]")
    assert game.snapshot() == before

    halfway: str | None = None
    while not game.is_over and len(game.log) < MAX_ACTIONS:
        if len(game.log) == SNAPSHOT_AT:
            halfway = game.to_json()
        action = choose(game)
        lines = game.apply(action)  # the trace lines this one action produced
        if verbose:
            print(f"> {action}")
            for line in lines:
                print(f"    {line}")

    # Restore the mid-game snapshot and replay the rest of the log: same end, same view.
    resumed_identically = False
    if halfway is not None:
        resumed = Game.from_json(halfway)
        resumed.replay(game.log[SNAPSHOT_AT:])
        resumed_identically = resumed.view() == game.view() and resumed.winner == game.winner

    if verbose:
        print(f"winner: {game.winner} after {len(game.log)} actions")
        print(f"final score: {game.view()['score']}")
        print(f"transitions observed per chart: {dict(sorted(transitions.items()))}")
        print(f"restored mid-game snapshot ends the same way: {resumed_identically}")
    return Outcome(game.winner, len(game.log), game.trace, transitions, resumed_identically)


if __name__ == "__main__":
    main()
