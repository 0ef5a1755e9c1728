"""Game states as JSON-ready data, and back: exact round trips (State is a value)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, fields, replace
from typing import Any

from .scenario_fields import plain
from .snapshot_checks import NestedTooDeeply, check_shape, not_json
from .state import (
    Card,
    ChainItem,
    Field,
    GameState,
    Unit,
    battlefield_key,
    trigger_from,
)
from .units import Units

FORMAT = "riftchart-snapshot/1"


def _card(data: Mapping[str, Any] | None) -> Card | None:
    return None if data is None else Card(**_with_tuples(data))


def _unit(data: Mapping[str, Any]) -> Unit:
    return Unit(**_with_tuples(data))


def _with_tuples(data: Mapping[str, Any]) -> dict[str, Any]:
    """A card's or unit's fields, with the lists JSON made of its keywords and triggers
    made tuples again."""
    return {**data, "keywords": tuple(data["keywords"]),
            "triggers": tuple(map(trigger_from, data["triggers"]))}


def _field(data: Mapping[str, Any]) -> Field:
    return Field(
        **{
            **data,
            "scored": tuple(data["scored"]),
            "abilities": tuple(map(trigger_from, data["abilities"])),
            "staged_combatants": tuple(data.get("staged_combatants", ())),
        }
    )


def _item(data: Mapping[str, Any]) -> ChainItem:
    targets = data["targets"]
    known = {k: v for k, v in data.items() if k not in _KEPT_FOR_OLD_READERS}
    return ChainItem(
        **{
            **known,
            "targets": tuple(targets) if isinstance(targets, list) else targets,
            "card": _card(data["card"]),
        }
    )


# keys of format /1 that riftchart no longer reads but still writes, as the format promises
_KEPT_FOR_OLD_READERS = ("chosen_to",)


def _item_data(item: ChainItem) -> dict[str, Any]:
    # chosen_to: whether a card's destination was chosen as it was played, which `to` says
    return {**asdict(item), "chosen_to": item.kind == "card" and item.to is not None}


def card_data(card: Card | None) -> dict[str, Any] | None:
    """A card as JSON-ready data (None stays None: a drawn card nobody has seen)."""
    return plain(asdict(card)) if card else None


def dump(s: GameState) -> dict[str, Any]:
    data = {f.name: getattr(s, f.name) for f in fields(s)}
    data.update(
        format=FORMAT,
        hands={p: [card_data(c) for c in cards] for p, cards in s.hands.items()},
        units=[asdict(u) for u in s.units.values()],
        fields=[asdict(f) for f in s.fields.values()],
        configs={k: sorted(v) for k, v in s.configs.items()},
        chain=[_item_data(i) for i in s.chain],
        queued_triggers=[[list(key), _item_data(item)] for key, item in s.queued_triggers],
    )
    return plain(data)


def load(data: Mapping[str, Any]) -> GameState:
    """The state a :func:`dump` wrote. A field missing from it, or of the wrong shape (see
    :mod:`engine.snapshot_checks`), is a ValueError naming the field; beyond each field's
    shape the data is trusted to be a dump's (a game writes it). A field it does not know is
    left aside (``resolving``, which earlier dumps wrote); all of it, that field and the
    insides of a card's effect too, must be JSON data."""
    if not isinstance(data, Mapping) or data.get("format") != FORMAT:
        raise ValueError(f"not a {FORMAT} snapshot")
    data = dict(data)  # a read-only mapping given for the whole is read as a dict
    try:
        problem = not_json(data)
        if problem:
            raise ValueError(f"a {FORMAT} snapshot with a value that is not JSON data: {problem}")
        # the game must not share the caller's mutable effects: a copy, of JSON data alone now
        data = plain(data)
    except NestedTooDeeply as deep:
        raise ValueError(f"a {FORMAT} snapshot nested too deeply to be one: {deep}") from None
    except RecursionError:  # the caller's own stack was nearly used up
        raise ValueError(f"a {FORMAT} snapshot nested too deeply to be one") from None
    try:
        _with_split_choosing(data)
        check_shape(data)
        return _state(data)
    except KeyError as missing:
        raise ValueError(f"a {FORMAT} snapshot without {missing.args[0]!r}") from None
    except (TypeError, AttributeError, ValueError) as wrong:
        # a card's or unit's fields: the constructor names the one
        raise ValueError(f"a {FORMAT} snapshot with a malformed entry: {wrong}") from None


def _state(data: Mapping[str, Any]) -> GameState:
    return _with_staged_combatants(GameState(
        players=tuple(data["players"]),
        teams=tuple(tuple(t) for t in data["teams"]) if data["teams"] else None,
        profile=data["profile"],
        victory_score=data["victory_score"],
        manual_damage=data["manual_damage"],
        turn_player=data["turn_player"],
        scores=dict(data["scores"]),
        deck=dict(data["deck"]),
        hands={p: [_card(c) for c in cards] for p, cards in data["hands"].items()},
        units=Units((u["id"], _unit(u)) for u in data["units"]),
        fields={f["id"]: _field(f) for f in data["fields"]},
        configs={k: frozenset(v) for k, v in data["configs"].items()},
        chain=[_item(i) for i in data["chain"]],
        chain_begun_by=data["chain_begun_by"],
        focus=data["focus"],
        priority=data["priority"],
        focus_at_chain_start=data["focus_at_chain_start"],
        passes=data["passes"],
        contest_at=data["contest_at"],
        attacker=data["attacker"],
        defender=data["defender"],
        pending=dict(data["pending"]) if data["pending"] else None,
        damage_plan={p: dict(a) for p, a in data["damage_plan"].items()},
        attackers_recalled=data["attackers_recalled"],
        queued_triggers=[(tuple(k), _item(i)) for k, i in data["queued_triggers"]],
        winner=data["winner"],
        next_order=data["next_order"],
        blocked_scoring=tuple(data["blocked_scoring"]),
    ), data["fields"])


#: the scheduler state that format /1 named before the split (no chart has it now)
_CHOOSING_BEFORE_THE_SPLIT = "choosing"


def _with_split_choosing(data: Mapping[str, Any]) -> None:
    """The scheduler's ``choosing`` was split within format /1 into ``choosing_showdown`` and
    ``choosing_combat``. A snapshot from before names the one state; the choice's options tell
    which it was: staged Combats, or staged Showdowns (offered only without a staged Combat)."""
    configs, pending = data.get("configs"), data.get("pending")
    if not isinstance(configs, dict):
        return  # a shape check_shape refuses with its own message
    scheduler = configs.get("scheduler")
    if not isinstance(scheduler, list) or _CHOOSING_BEFORE_THE_SPLIT not in scheduler:
        return  # a snapshot of now, or a shape check_shape refuses with its own message
    options = pending.get("options") if isinstance(pending, Mapping) else None
    if not isinstance(options, list):
        return  # no choice to tell which it was: check_shape refuses the unknown state
    of_combats = any(isinstance(bf, str) and _lists(configs.get(battlefield_key(bf)),
                                                    "combat_staged")
                     for bf in options)
    split = "choosing_combat" if of_combats else "choosing_showdown"
    configs["scheduler"] = [split if s == _CHOOSING_BEFORE_THE_SPLIT else s for s in scheduler]


def _lists(config: Any, state: str) -> bool:
    """Whether a chart configuration, as a snapshot holds it (a list), lists the state."""
    return isinstance(config, list) and state in config


def _with_staged_combatants(s: GameState, fields: list[Mapping[str, Any]]) -> GameState:
    """``staged_combatants`` was added within format /1: a snapshot from before has none. A
    Combat staged then was staged between the players facing off there (between actions they
    are always the same), so they are its players."""
    for f in fields:
        bf = f["id"]
        if "staged_combatants" not in f and s.combat_staged(bf):
            s.fields[bf] = replace(s.fields[bf], staged_combatants=s.players_facing_off(bf))
    return s
