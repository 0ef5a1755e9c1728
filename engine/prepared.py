"""A scenario file made ready for the model checker: loaded, its size checked, its action
steps played. The search (:mod:`engine.explore`, which offers :func:`prepare` too) starts from
the state this makes.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from . import actions
from .errors import IllegalAction, ScenarioError
from .game import Game
from .scenario import Scenario, load_scenario_document
from .scenario_fields import plain
from .state import GameState

#: the most units a position to explore may hold, in play or yet to be played: a Standard
#: Move takes any group of a player's ready units, so n of them make 2 ** n - 1 moves to each
#: destination in one state (30 units: a billion), which no search could list
MAX_UNITS = 12


def _most_units_of_one_player(scenario: Scenario) -> tuple[str, int]:
    """The player who could have the most units at once, and how many: their setup units,
    the unit cards in their hand and the units their cards and units make (``play_unit``,
    however deep, each id once), with those a battlefield's abilities make (it may become
    anyone's). Where a ``take_control`` could move units between players, every unit counts
    for each, and the player said is "a player"."""
    abilities = [t.effect for bf in scenario.battlefields for t in bf.abilities]
    counts: dict[str, int] = {}
    every: list[Any] = list(abilities)
    for player in scenario.players:
        cards = scenario.hands.get(player, ())
        units = [u for u in scenario.units if u.controller == player]
        theirs = [card.effect for card in cards] + [t.effect for u in units for t in u.triggers]
        theirs += [t.effect for card in cards if card.unit for t in card.unit.triggers]
        every += theirs
        counts[player] = (len(units) + sum(card.type == "unit" for card in cards)
                          + len(_made(theirs + abilities)))
    if any("take_control" in effect for effect in _mappings(every)):
        unit_cards = sum(card.type == "unit" for hand in scenario.hands.values() for card in hand)
        return "a player", len(scenario.units) + unit_cards + len(_made(every))
    player = max(counts, key=lambda p: counts[p])
    return player, counts[player]


def _made(effects: list[Any]) -> set[str]:
    """The ids of the units ``play_unit`` effects among ``effects`` make."""
    return {m["play_unit"]["id"] for m in _mappings(effects)
            if isinstance(m.get("play_unit"), Mapping)}


def _mappings(value: Any) -> Iterator[Mapping]:
    """Every mapping in ``value``, however deep: an effect and the effects it holds."""
    stack = [value]
    while stack:
        found = stack.pop()
        if isinstance(found, Mapping):
            yield found
            stack += found.values()
        elif isinstance(found, (list, tuple)):
            stack += found


@dataclass
class Prepared:
    """A scenario set up and its action steps played: the state the search starts from."""

    scenario: Scenario
    start: GameState
    prefix: list[dict[str, Any]]  # the action steps, as written in the file
    #: the file as it was read (parsed), which a counterexample copies its setup from: not
    #: the file as it may be after the search, nor a standard input read already
    document: Mapping[str, Any] | None = None


def prepare(path: str | os.PathLike[str], rules: str | None = None) -> Prepared:
    """Load ``path`` (``-``: standard input), set it up and play its action steps (``expect``
    steps are skipped).

    Raises :class:`ScenarioError` for a bad file or a refused step.
    """
    scenario, document = load_scenario_document(os.fsdecode(path))
    if rules is not None:
        scenario = scenario.with_rules(rules)
    who, units = _most_units_of_one_player(scenario)
    if units > MAX_UNITS:
        raise ScenarioError(scenario.path, "units", f"{who} could have {units} units at once "
                            "(set up, in hand, or made by play_unit): too large a position to "
                            f"explore (at most {MAX_UNITS}; n units make 2^n - 1 Standard Moves "
                            "to each destination in one state)")
    game = Game.from_scenario(scenario)
    prefix = []
    for step in scenario.steps:
        if step.kind in ("expect", "expect_error"):
            continue
        try:
            game.apply(actions.from_step(step.kind, step.args))
        except IllegalAction as refused:
            field_path = f"steps[{step.index - 1}].{step.kind}"
            raise ScenarioError(scenario.path, field_path, f"refused: {refused}",
                                step.line) from None
        prefix.append(step.as_mapping())
    return Prepared(scenario, game.state, prefix, plain(document))
