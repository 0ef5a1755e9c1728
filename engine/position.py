"""The position a scenario sets up, as a game state: the turn player's Main phase in Neutral
Open, with the battlefields the setup gives a controller controlled through their charts."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .core import Table
from .runtime import Runtime
from .scenario import BattlefieldSpec, CardSpec, Scenario, UnitSpec
from .state import Card, Field, GameState, Unit, battlefield_key, initial_configs, trigger_from
from .units import Units


def setup_state(scenario: Scenario, runtime: Runtime) -> GameState:
    """The position a scenario sets up: the turn player's Main phase, Neutral Open (taken as
    given: nothing triggers and no Cleanup runs)."""
    fields = _fields(scenario.battlefields)
    units = _units(scenario.units)
    state = GameState(
        players=tuple(scenario.players),
        teams=tuple(tuple(t) for t in scenario.teams) if scenario.teams else None,
        profile=scenario.rules,
        victory_score=scenario.victory_score,
        manual_damage=scenario.manual_damage,
        turn_player=scenario.turn_player,
        scores=_shared_scores(scenario),
        deck=dict(scenario.deck),
        hands=_hands(scenario.hands),
        units=Units(units),
        fields=fields,
        configs=initial_configs(list(fields)),
        priority=scenario.turn_player,
        next_order=len(units),
    )
    _give_setup_control(state, scenario.battlefields, runtime)
    return state


def _shared_scores(scenario: Scenario) -> dict[str, int]:
    """With teams every player shows the team's points; a setup naming different points for
    teammates is read as the higher (docs/decisions.md)."""
    scores = dict(scenario.scores)
    for team in scenario.teams or ():
        best = max(scores[p] for p in team)
        for p in team:
            scores[p] = best
    return scores


def _fields(battlefields: Iterable[BattlefieldSpec]) -> dict[str, Field]:
    """The battlefields, uncontrolled: :func:`_give_setup_control` gives them their setup
    controllers through their charts."""
    return {
        b.id: Field(
            id=b.id,
            name=b.name,
            index=index,
            controller=None,
            scored=tuple(b.scored_this_turn),
            abilities=tuple(map(trigger_from, b.abilities)),
        )
        for index, b in enumerate(battlefields)
    }


def _units(specs: Iterable[UnitSpec]) -> dict[str, Unit]:
    """The setup's units, each owned by its controller, numbered in setup (board) order."""
    return {
        u.id: Unit(
            id=u.id,
            name=u.name,
            owner=u.controller,
            controller=u.controller,
            might=u.might,
            at=u.at,
            order=order,
            exhausted=u.exhausted,
            stunned=u.stunned,
            damage=u.damage,
            keywords=tuple(u.keywords),
            triggers=tuple(map(trigger_from, u.triggers)),
        )
        for order, u in enumerate(specs)
    }


def _hands(hands: Mapping[str, Iterable[CardSpec]]) -> dict[str, list[Card | None]]:
    return {player: [_card(c) for c in cards] for player, cards in hands.items()}


def _card(c: CardSpec) -> Card:
    """A card in hand; a unit card carries what its unit will be on the board."""
    return Card(
        id=c.id,
        name=c.name,
        type=c.type,
        timing=c.timing,
        effect=c.effect,
        might=c.unit.might if c.unit else 0,
        keywords=tuple(c.unit.keywords) if c.unit else (),
        triggers=tuple(map(trigger_from, c.unit.triggers)) if c.unit else (),
    )


def _give_setup_control(
    state: GameState, battlefields: Iterable[BattlefieldSpec], runtime: Runtime
) -> None:
    """Each battlefield the setup gives a controller is controlled in its chart as well as in
    its data: the chart's own transition sets both (untraced, like the rest of the setup)."""
    table = Table(state, runtime)
    table.tracing = False
    for b in battlefields:
        if b.controller:
            table.send(battlefield_key(b.id), "set_up_control", player=b.controller)
