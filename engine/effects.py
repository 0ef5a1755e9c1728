"""What cards and abilities do: effects, arrivals, deaths and triggers (scenario-format.md).

Moves made by effects are not Standard Moves (rules 11.8): they do not exhaust and ignore
phase, Ganking and exhaustion, but not the destination rules of rules.md section 8.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import chain, destinations, scoring
from .effect_needs import names_its_units
from .state import Card, ChainItem, GameState, Unit, battlefield_key, by_board_order, trigger_from
from .wording import counted, place_name

if TYPE_CHECKING:
    from .core import Table


@dataclass(frozen=True)
class Context:
    """Who "you" is and what the effect aims at."""

    you: str | None
    targets: tuple[str, ...]
    to: str | None


RECALLED_INSTEAD = "CR 442.2.c"  # a unit required to go where it may not is recalled instead


# --- units arriving, leaving, dying ---------------------------------------------------------


def arrive(table: Table, uid: str, bf: str) -> None:
    """A unit becomes present at a battlefield: Contested as S 184.3.a says."""
    table.send(battlefield_key(bf), "unit_arrives", player=table.unit(uid).controller)


def move(table: Table, uid: str, to: str, rule: str) -> None:
    unit = table.unit(uid)
    if to == unit.at:
        return
    table.update_unit(uid, at=to)
    table.say(f"{table.name(uid)} moves to {place_name(unit.controller, to)}", rule)
    if to != "base":
        arrive(table, uid, to)
    chain.fire_unit(table, table.unit(uid), "move")


def recall(table: Table, uid: str, rule: str) -> None:
    """To its controller's base; a Recall is not a Move (no Contested, no move trigger)."""
    unit = table.unit(uid)
    if unit.at == "base":
        return
    table.update_unit(uid, at="base", designation=None)
    table.say(f"{table.name(uid)} is recalled to {unit.controller}'s base", rule)


def die(table: Table, uid: str, rule: str) -> None:
    unit = table.unit(uid)
    # off the board a unit has no statuses, as one returned to hand has none
    table.update_unit(uid, at="trash", designation=None, damage=0, stunned=False, exhausted=False)
    table.say(f"{table.name(uid)} dies", rule)
    chain.fire_unit(table, unit, "die")


def kill_lethally_damaged(table: Table, rule: str) -> bool:
    """Units with lethal damage (damage > 0 and at least their Might) die, in board order;
    whether any did."""
    dying = sorted((u for u in table.state.units.values() if u.on_board and u.has_lethal_damage()),
                   key=by_board_order)
    for unit in dying:
        die(table, unit.id, rule)
    return bool(dying)


def enter_board(
    table: Table, uid: str, player: str, template: Card, to: str, rule: str, played: bool
) -> None:
    s = table.state
    old = s.units.get(uid)
    s.units[uid] = Unit(
        id=uid,
        name=template.name,
        owner=old.owner if old else player,
        controller=player,
        might=template.might,
        at=to,
        order=s.next_order,
        keywords=template.keywords,
        triggers=template.triggers,
        timing=template.timing,
    )
    s.next_order += 1
    table.say(f"{table.name(uid)} enters the board at {place_name(player, to)}", rule)
    if to != "base":
        arrive(table, uid, to)
    if played:
        chain.fire_unit(table, table.unit(uid), "play")


# --- resolving a chain item ----------------------------------------------------------------


def resolve_item(table: Table, item: ChainItem) -> None:
    s = table.state
    if item.kind == "add":
        return  # "add:P1 resolves at once" said it all
    if item.card is not None and item.card.type == "unit":
        player = item.controller
        assert player is not None, "a card is always played by a player"
        to = "base" if item.to is None else item.to
        # checked when played, and a unit resolves at once (nothing moves in between); said,
        # as a play_unit effect says it, should that ever change
        problem = destinations.destination_problem(s, player, to) if to != "base" else None
        if problem:
            table.say(f"{item.card.id} cannot enter the board at {to} ({problem.reason})",
                      problem.rule)
            to = "base"
        enter_board(table, item.card.id, player, item.card, to, "CR 359.2", played=True)
        return
    assert item.effect is not None, "every item but an Add's and a unit's has an effect"
    if item.targets == "enemies_here" and item.controller is None:
        table.say(f'{item.label}: "you" is no one here, so no unit is an enemy', "S 184.6.c")
    # a chosen destination was checked when the card was played; by now it may have become
    # invalid, which makes the move required (recalled instead), like a destination the effect
    # names (rules.md 8): both are checked again as the effect resolves
    run(table, item.effect, Context(you=item.controller, targets=_select(s, item), to=item.to))


def _select(s: GameState, item: ChainItem) -> tuple[str, ...]:
    selector = item.targets
    if selector is None:
        return ()
    if selector == "self":
        return (item.source,) if item.source is not None and item.source in s.units else ()
    if selector == "enemies_here":
        you, where = item.controller, item.where
        if you is None or where not in s.fields:
            return ()  # "enemies" of no one, or of a source that was not at a battlefield
        return tuple(u.id for u in s.units_at(where) if s.opponents(you, u.controller))
    return tuple(selector)


def run(table: Table, effect: Mapping[str, Any], ctx: Context) -> None:
    ((kind, arg),) = effect.items()
    if kind == "sequence":
        for part in arg:
            run(table, part, ctx)
        return
    if kind in ("gain_points", "draw"):
        _you_effect(table, kind, arg, ctx)
        return
    if kind == "play_unit":
        _play_unit(table, arg, ctx)
        return
    named = names_its_units(arg)
    units = [uid for uid in (arg["units"] if named else ctx.targets) if _on_board(table, uid)]
    if kind == "move":
        _move_effect(table, units, arg, ctx)
        return
    for uid in units:
        _PER_UNIT[kind](table, uid, arg, ctx)


def _stun(table: Table, uid: str, arg: Any, ctx: Context) -> None:
    table.update_unit(uid, stunned=True)
    table.say(f"{table.name(uid)} is stunned", "CR 423")


def _kill(table: Table, uid: str, arg: Any, ctx: Context) -> None:
    die(table, uid, "CR 428")


def _damage(table: Table, uid: str, amount: int, ctx: Context) -> None:
    table.update_unit(uid, damage=table.unit(uid).damage + amount)
    table.say(f"{table.name(uid)} is dealt {amount} damage", "CR 417")


def _recall(table: Table, uid: str, arg: Any, ctx: Context) -> None:
    recall(table, uid, "CR 450")


def _on_board(table: Table, uid: str) -> bool:
    unit = table.state.units.get(uid)
    return unit is not None and unit.on_board


def _move_effect(table: Table, units: list[str], arg: Any, ctx: Context) -> None:
    s = table.state
    to = (arg.get("to") if isinstance(arg, Mapping) else None) or ctx.to
    if to is None:
        return
    for uid in units:
        if to != "base":
            unit = table.unit(uid)
            problem = destinations.destination_problem(s, unit.controller, to)
            if problem:
                # a required move recalls instead (rules.md 8, CR 442.2.c); from the base
                # that is staying there, said all the same: the rule decided it
                table.say(f"{table.name(uid)} cannot go to {to} ({problem.reason})",
                          problem.rule)
                if unit.at == "base":
                    table.say(f"{table.name(uid)} is recalled instead: it stays in "
                              f"{unit.controller}'s base", RECALLED_INSTEAD)
                else:
                    recall(table, uid, RECALLED_INSTEAD)
                continue
        move(table, uid, to, "rules 11.8")  # a move by an effect, not a Standard Move


def _play_unit(table: Table, arg: Mapping[str, Any], ctx: Context) -> None:
    s = table.state
    uid = arg["id"]
    if ctx.you is None:
        _does_nothing_for_no_one(table, f"playing {uid}")
        return
    there = _where_it_is(s, uid)
    if there:
        table.say(f"{uid} is already {there}; no second one is made", "CR 419.3")
        return
    to = arg.get("to") or ctx.to or "base"
    if to != "base":
        problem = destinations.destination_problem(s, ctx.you, to)
        if problem:
            table.say(f"{uid} cannot be played to {to} ({problem.reason})", problem.rule)
            to = "base"
    template = Card(
        id=uid,
        name=arg.get("name"),
        type="unit",
        timing="none",
        might=arg["might"],
        keywords=tuple(arg.get("keywords", ())),
        triggers=tuple(trigger_from(t) for t in arg.get("triggers", ())),
    )
    enter_board(table, uid, ctx.you, template, to, "CR 419.3", played=False)


def _where_it_is(s: GameState, uid: str) -> str | None:
    """Where an object of this id is now, if anywhere but the trash: a unit on the board, or
    its card in a hand (returned there) or on the Chain (played again). Ids are unique, so a
    play_unit makes nothing while one is somewhere (D8); a token that died may be made again."""
    if uid in s.units and s.units[uid].on_board:
        return "on the board"
    for player, hand in s.hands.items():
        if any(card is not None and card.id == uid for card in hand):
            return f"a card in {player}'s hand"
    if any(item.card is not None and item.card.id == uid for item in s.chain):
        return "on the Chain"
    return None


def _does_nothing_for_no_one(table: Table, words: str) -> None:
    """Say that an effect of an uncontrolled battlefield's ability which acts for "you"
    (``words``: "gaining 1 point", "playing T1") does nothing."""
    table.say(f'{words} does nothing: the battlefield has no controller, so "you" is no one',
              "S 184.6.c")


def _you_effect(table: Table, kind: str, amount: int, ctx: Context) -> None:
    if ctx.you is None:
        _does_nothing_for_no_one(table, {"gain_points": f"gaining {counted(amount, 'point')}",
                                         "draw": f"drawing {counted(amount, 'card')}"}[kind])
        return
    if kind == "draw":
        scoring.draw(table, ctx.you, amount)
    else:
        scoring.add_points(table, ctx.you, amount)
        table.say(f"{ctx.you} gains {counted(amount, 'point')}", "CR 466.1.a.1")


def _return_to_hand(table: Table, uid: str, arg: Any, ctx: Context) -> None:
    unit = table.unit(uid)
    card = Card(
        id=uid,
        name=unit.name,
        type="unit",
        timing=unit.timing,
        might=unit.might,
        keywords=unit.keywords,
        triggers=unit.triggers,
    )
    table.update_unit(
        uid,
        at="hand",
        designation=None,
        damage=0,
        stunned=False,
        exhausted=False,
        controller=unit.owner,
    )
    table.state.hands[unit.owner].append(card)
    table.say(f"{table.name(uid)} returns to {unit.owner}'s hand", "CR 110")


def _take_control(table: Table, uid: str, arg: Any, ctx: Context) -> None:
    unit = table.unit(uid)
    if ctx.you is None:
        _does_nothing_for_no_one(table, f"taking control of {table.name(uid)}")
        return
    if unit.controller == ctx.you:
        return
    if table.state.teammates(ctx.you, unit.controller):
        table.say(f"{ctx.you} cannot control a teammate's unit ({uid})", "seed 001")
        return
    at = unit.at
    # rules 11.8: a change of controller at a battlefield is becoming present there, so the
    # destination rules of section 8 apply; where the new controller's units may not be, the
    # unit is recalled, as a required move would be
    s = table.state
    problem = destinations.destination_problem(s, ctx.you, at) if at in s.fields else None
    table.update_unit(uid, controller=ctx.you)
    table.say(f"{ctx.you} gains control of {table.name(uid)}", "S 185")
    if problem:
        table.say(f"{table.name(uid)} cannot stay at {at} ({problem.reason})", problem.rule)
        recall(table, uid, RECALLED_INSTEAD)
    elif at in table.state.fields:
        arrive(table, uid, at)


# the effects that act on each unit they aim at, one by one
_PER_UNIT = {
    "stun": _stun,
    "kill": _kill,
    "damage": _damage,
    "recall": _recall,
    "return_to_hand": _return_to_hand,
    "take_control": _take_control,
}
