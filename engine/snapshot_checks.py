"""The shape of a snapshot's fields, checked before a game is made of it (:mod:`engine.snapshot`).

Each wrong field is a ValueError that names it: what restoring would otherwise take in, to fail
later inside the engine (a string for a count is compared at the next action, a player that
is none looked up). The checks are of types and ids, not of positions: a set of chart states
that fits no position is trusted (docs/embedding.md).
"""

from __future__ import annotations

import dataclasses
import math
import sys
from collections.abc import Callable, Mapping
from dataclasses import MISSING
from typing import Any

from statecharts import GAME_WIDE_CHARTS

from .errors import ScenarioError
from .runtime import compiled
from .scenario_checks import Checker, alternating_teams
from .scenario_fields import At
from .scenario_model import (
    CARD_TYPES,
    CHOICE_KINDS,
    DESIGNATIONS,
    EVENTS,
    KEYWORDS as KEYWORD_NAMES,
    SELECTORS,
    TIMINGS,
    cut_short,
    decimal_digits_readable,
)
from .state import (
    OFF_BOARD,
    PROFILES,
    Card,
    ChainItem,
    Field,
    Unit,
    battlefield_key,
    chart_of,
)

#: a unit's designation in a snapshot: none, or one of the scenario format's
DESIGNATIONS_OR_NONE = (None, *DESIGNATIONS)
CHAIN_ITEM_KINDS = ("card", "trigger", "add")

Check = Callable[[Any], bool]


def check_shape(data: Mapping[str, Any]) -> None:
    """Every field of a snapshot (a dict of JSON data, ``format`` checked) of the right
    shape, or a ValueError naming the first that is not."""
    players = data["players"]
    if not isinstance(players, list) or not players or not all(isinstance(p, str) for p in players):
        raise ValueError("players is not a list of player ids")
    if data["profile"] not in PROFILES:
        raise ValueError(f"profile is {data['profile']!r}, not one of {', '.join(PROFILES)}")
    for name in ("scores", "deck", "hands", "damage_plan", "configs"):
        if not isinstance(data[name], Mapping):
            raise ValueError(f"{name} is not a mapping")
    for name in ("scores", "deck", "hands"):
        if sorted(data[name]) != sorted(players):
            raise ValueError(f"{name} is not keyed by the players")
    for name in ("units", "fields", "chain", "queued_triggers", "blocked_scoring"):
        if not isinstance(data[name], list):
            raise ValueError(f"{name} is not a list")
    if not all(isinstance(f, Mapping) and isinstance(f.get("id"), str) for f in data["fields"]):
        raise ValueError("fields holds an entry that is not a battlefield's")
    battlefields = [f["id"] for f in data["fields"]]
    charts = [battlefield_key(bf) for bf in battlefields] + list(GAME_WIDE_CHARTS)
    if sorted(data["configs"]) != sorted(charts):
        raise ValueError(f"configs is not keyed by the charts ({', '.join(charts)})")
    for key, config in data["configs"].items():
        states = compiled(chart_of(key)).states
        if not isinstance(config, list) or not config or not all(
                isinstance(s, str) and s in states for s in config):
            raise ValueError(f"configs[{key!r}] is not a list of the {chart_of(key)} chart's "
                             "states")
    if not all(isinstance(q, list) and len(q) == 2 for q in data["queued_triggers"]):
        raise ValueError("queued_triggers holds an entry that is not an [order, item] pair")
    _check_scalars(data, players, battlefields)
    _check_entries(data, players, battlefields)
    _check_effects(data, players, battlefields)


def _check_scalars(data: Mapping[str, Any], players: list[str], battlefields: list[str]) -> None:
    if not is_count(data["victory_score"]) or data["victory_score"] < 1:
        raise ValueError(f"victory_score is {data['victory_score']!r}, not a whole number from 1")
    for name in ("scores", "deck"):
        for player, count in data[name].items():
            _expect(count, f"{name}[{player!r}]", *COUNT)
    for name in ("passes", "next_order"):
        _expect(data[name], name, *COUNT)
    player, player_or_none = _player_checks(players)
    _expect(data["turn_player"], "turn_player", *player)
    for name in ("winner", "focus", "priority", "focus_at_chain_start", "attacker", "defender"):
        _expect(data[name], name, *player_or_none)
    _expect(data["chain_begun_by"], "chain_begun_by", _or_none(CHAIN_ITEM_KINDS.__contains__),
            f"neither null nor one of {', '.join(CHAIN_ITEM_KINDS)}")
    _expect(data["contest_at"], "contest_at", _or_none(battlefields.__contains__),
            "neither null nor a battlefield")
    for name in ("manual_damage", "attackers_recalled"):
        _expect(data[name], name, *BOOL)
    _expect(data["teams"], "teams", lambda teams: teams is None or _teams_of(teams, players),
            "neither null nor two teams of two players alternating in turn order")
    _expect(data["blocked_scoring"], "blocked_scoring", _list_of(battlefields.__contains__),
            "not a list of battlefields")
    pending = data["pending"]
    if pending is not None and not (
            isinstance(pending, Mapping) and pending.get("player") in players
            and pending.get("kind") in CHOICE_KINDS and isinstance(pending.get("options"), list)
            and (pending["kind"] != "damage" or is_count(pending.get("total")))):
        raise ValueError("pending is neither null nor a choice (player, kind: "
                         f"{' or '.join(CHOICE_KINDS)}, options, and a damage choice's total)")
    if pending is not None and pending["kind"] == "battlefield" and not (
            pending["options"] and all(o in battlefields for o in pending["options"])):
        raise ValueError(f"pending.options is {pending['options']!r}, not a list of "
                         "battlefields to choose from")


def _check_entries(data: Mapping[str, Any], players: list[str], battlefields: list[str]) -> None:
    """The units, battlefields, cards and Chain items, field by field. A field an earlier
    snapshot did not write (one with a default) is checked only where it is given."""
    player, player_or_none = _player_checks(players)
    places = ("base", *OFF_BOARD, *battlefields)
    unit_ids: set[str] = set()
    for i, unit in enumerate(data["units"]):
        _check_fields(unit, f"units[{i}]", {
            "id": (_is_str, "not a unit id"),
            "name": NAME,
            "owner": player,
            "controller": player,
            "might": COUNT,
            "at": _one_of(places),
            "order": COUNT,
            "exhausted": BOOL,
            "stunned": BOOL,
            "damage": COUNT,
            "keywords": KEYWORDS,
            "designation": (DESIGNATIONS_OR_NONE.__contains__,
                            "neither null, attacker nor defender"),
            "timing": _one_of(TIMINGS),
            "triggers": TRIGGERS,
        }, Unit)
        if unit["id"] in unit_ids:  # one of the two would be lost
            raise ValueError(f"units[{i}].id is {unit['id']!r}, the id of an earlier unit")
        unit_ids.add(unit["id"])
    for i, field in enumerate(data["fields"]):
        _check_fields(field, f"fields[{i}]", {
            "name": NAME,
            "index": COUNT,
            "controller": player_or_none,
            "applier": player_or_none,
            "scored": (_list_of(player[0]), "not a list of players"),
            "staged_combatants": (_list_of(player[0]), "not a list of players"),
            "abilities": TRIGGERS,
        }, Field)
    for who, cards in data["hands"].items():
        _expect(cards, f"hands[{who!r}]", _is_list, "not a list of cards")
        for i, card in enumerate(cards):
            if card is not None:  # a drawn card nobody has seen
                _check_card(card, f"hands[{who!r}][{i}]")
    for name, items in (("chain", data["chain"]),
                        ("queued_triggers", [item for _, item in data["queued_triggers"]])):
        for i, item in enumerate(items):
            where = f"{name}[{i}]" + ("[1]" if name == "queued_triggers" else "")
            _check_fields(item, where, {
                "kind": _one_of(CHAIN_ITEM_KINDS),
                "label": (_is_str, "not a label"),
                "controller": player_or_none,
                "effect": EFFECT,
                "targets": TARGETS,
                "to": (_or_none(places.__contains__), "neither null nor a place"),
                "source": (_or_none(_is_str), "neither null nor an id"),
                "where": (_or_none(places.__contains__), "neither null nor a place"),
                "card": (_or_none(_is_mapping), "neither null nor a card"),
            }, ChainItem)
            if item.get("card") is not None:
                _check_card(item["card"], f"{where}.card")
            if item.get("effect") is None and _carries_an_effect(item):
                raise ValueError(f"{where} is a Chain item with no effect (only an Add's and a "
                                 "unit card's have none)")
    for who, plan in data["damage_plan"].items():
        _expect(plan, f"damage_plan[{who!r}]", _is_mapping,
                "not a mapping of units to damage")
        for uid, amount in plan.items():
            _expect(amount, f"damage_plan[{who!r}][{uid!r}]", *COUNT)


def _check_effects(data: Mapping[str, Any], players: list[str], battlefields: list[str]
                   ) -> None:
    """Every effect (of a card, a trigger, a battlefield's ability, a Chain item) as a
    scenario file may give it (:meth:`Checker.effect`): one the rules cannot carry out (an
    amount below 0, an unknown kind, a unit or a place that is none) would otherwise be
    taken in, to fail only when it resolves. A unit a ``play_unit`` names is known to the
    other effects, as in a scenario file."""
    checker = _EffectChecks("snapshot")
    checker.players = tuple(players)
    checker.battlefields = dict.fromkeys(battlefields)
    checker.units = {unit["id"] for unit in data["units"]}
    checker.units |= {card["id"] for cards in data["hands"].values() for card in cards
                      if card is not None and card.get("type") == "unit"}
    effects = [(f"units[{i}]", unit) for i, unit in enumerate(data["units"])]
    effects += [(f"fields[{i}]", field) for i, field in enumerate(data["fields"])]
    effects += [(f"hands[{who!r}][{i}]", card) for who, cards in data["hands"].items()
                for i, card in enumerate(cards) if card is not None]
    effects += [(f"chain[{i}]", item) for i, item in enumerate(data["chain"])]
    effects += [(f"queued_triggers[{i}][1]", item)
                for i, (_, item) in enumerate(data["queued_triggers"])]
    for where, entry in list(effects):  # a Chain item's card, and the triggers of each
        if isinstance(entry.get("card"), Mapping):
            effects.append((f"{where}.card", entry["card"]))
    for where, entry in list(effects):
        for name in ("triggers", "abilities"):
            effects += [(f"{where}.{name}[{i}]", t) for i, t in enumerate(entry.get(name) or ())]
    try:
        for where, entry in effects:
            effect = entry.get("effect")
            # a game writes an effect as the loader made it: `{"move": null}` in a file is read
            # as `{"move": {}}` (D33), and the rules read only that form
            if effect is None:
                continue
            written = checker.effect(effect, At(f"{where}.effect", None))
            if written != effect:
                raise ValueError(f"{where}.effect is {effect!r}, which a game writes as "
                                 f"{written!r}")
        for check in checker.deferred or ():  # the units a play_unit brings, once all are known
            check()
    except ScenarioError as error:
        raise ValueError(f"{error.field}: {error.message}") from None


class _EffectChecks(Checker):
    """The loader's checks of an effect, for a game under way: a ``play_unit``'s id is met
    again on the Chain item its ability put there and as the unit it made, so it names a
    unit rather than a new id."""

    def new_id(self, value: Any, at: At) -> str:
        return self.id_text(value, at)


def _carries_an_effect(item: Mapping[str, Any]) -> bool:
    """A trigger and a spell on the Chain resolve by their effect; an Add and a unit card
    resolve at once without one."""
    card = item.get("card")
    return item["kind"] == "trigger" or (item["kind"] == "card" and not (
        isinstance(card, Mapping) and card.get("type") == "unit"))


def _check_card(card: Any, where: str) -> None:
    _check_fields(card, where, {
        "id": (_is_str, "not a card id"),
        "name": NAME,
        "type": _one_of(CARD_TYPES),
        "timing": _one_of(TIMINGS),
        "effect": EFFECT,
        "might": COUNT,
        "keywords": KEYWORDS,
        "triggers": TRIGGERS,
    }, Card)
    if card["type"] == "spell" and card.get("effect") is None:
        raise ValueError(f"{where} is a spell with no effect")


def _is_trigger(value: Any) -> bool:
    return (isinstance(value, Mapping) and value.get("when") in EVENTS
            and _is_mapping(value.get("effect")) and TARGETS[0](value.get("targets")))


def _teams_of(teams: Any, players: list[str]) -> bool:
    """Teams as a scenario file's must be (four players, two teams alternating in turn
    order): the rules of teams assume no other."""
    return (_list_of(_list_of(_is_str))(teams) and len(players) == 4 and len(teams) == 2
            and all(len(team) == 2 for team in teams)
            and set(map(frozenset, teams)) == alternating_teams(players))


def _player_checks(players: list[str]) -> tuple[tuple[Check, str], tuple[Check, str]]:
    """The checks of a field that names a player, and of one that may name none."""
    return ((players.__contains__, "not one of the players"),
            (_or_none(players.__contains__), "neither null nor one of the players"))


def _check_fields(entry: Any, where: str, checks: Mapping[str, tuple[Check, str]],
                  kind: type) -> None:
    """The fields of an entry that makes a ``kind`` (Unit, Field, Card, ChainItem): each
    one given of the right shape, and none missing that ``kind`` has no default for."""
    if not isinstance(entry, Mapping):
        raise ValueError(f"{where} is {entry!r}, not a mapping")
    for field in dataclasses.fields(kind):
        if field.name not in entry and field.default is field.default_factory is MISSING:
            raise ValueError(f"{where} has no {field.name!r}")
    for name, (check, what) in checks.items():
        if name in entry:  # a missing one has its default
            _expect(entry[name], f"{where}.{name}", check, what)


def _expect(value: Any, where: str, check: Check, what: str) -> None:
    """``what``: what the value is not ("not a whole number from 0", "neither null nor...")."""
    if isinstance(value, int) and not decimal_digits_readable(value):  # repr() would fail
        raise ValueError(f"{where} is a number of more than {sys.get_int_max_str_digits():,} "
                         "digits, which JSON text from Python cannot hold")
    if not check(value):
        raise ValueError(f"{where} is {value!r}, {what}")


#: how deep lists and mappings may nest in a snapshot: what riftchart writes nests less than
#: 60 deep (a scenario file nests at most 50, scenario_model.MAX_DEPTH), and deeper data
#: would be restored only to make ``snapshot()`` run out of stack later
MAX_SNAPSHOT_DEPTH = 100


class NestedTooDeeply(ValueError):
    """Lists and mappings nested more than :data:`MAX_SNAPSHOT_DEPTH` deep."""


def not_json(value: Any, where: str = "", depth: int = 0) -> str | None:
    """Where in ``value`` (named ``where``; the whole snapshot when none) the first value is
    that is not JSON data, said as a check's message says a wrong field, or None when it is
    all JSON data: what a snapshot holds, even in a field riftchart does not read or in a
    card's effect. A tuple is not (it would come back a list), nor a number JSON cannot write
    (NaN, infinity). :class:`NestedTooDeeply` past :data:`MAX_SNAPSHOT_DEPTH`."""
    if value is None or isinstance(value, (str, bool, int)):
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else f"{where} is {value!r}, not JSON data"
    if isinstance(value, (list, dict)) and depth >= MAX_SNAPSHOT_DEPTH:
        raise NestedTooDeeply(f"{cut_short(where)} is nested more than {MAX_SNAPSHOT_DEPTH} deep")
    if isinstance(value, list):
        for i, v in enumerate(value):
            if (found := not_json(v, f"{where}[{i}]", depth + 1)) is not None:
                return found
        return None
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                return f"{where or 'the snapshot'} has the key {k!r}, not a string: not JSON data"
            if (found := not_json(v, f"{where}[{k!r}]" if where else k, depth + 1)) is not None:
                return found
        return None
    return f"{where} is {value!r}, not JSON data"


def is_count(value: Any) -> bool:
    """A whole number from 0 that Python can write in decimal (``to_json`` writes it)."""
    return (isinstance(value, int) and not isinstance(value, bool) and value >= 0
            and decimal_digits_readable(value))


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool)


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


def _is_list(value: Any) -> bool:
    return isinstance(value, list)


def _is_mapping(value: Any) -> bool:
    return isinstance(value, Mapping)


def _one_of(values: tuple[str, ...]) -> tuple[Check, str]:
    return values.__contains__, f"not one of {', '.join(values)}"


def _or_none(check: Check) -> Check:
    return lambda value: value is None or check(value)


def _list_of(check: Check) -> Check:
    return lambda value: isinstance(value, list) and all(check(v) for v in value)


# (check, what a value that fails it is not) of the kinds of field met again and again
COUNT = (is_count, "not a whole number from 0")
BOOL = (_is_bool, "not true or false")
NAME = (_or_none(_is_str), "neither null nor a name")
KEYWORDS = (_list_of(KEYWORD_NAMES.__contains__),
            f"not a list of keywords ({', '.join(KEYWORD_NAMES)})")
EFFECT = (_or_none(_is_mapping), "neither null nor an effect")
#: a trigger's or a Chain item's targets: a selector (``enemies_here``) or unit ids
TARGETS = (_or_none(lambda t: t in SELECTORS if _is_str(t) else _list_of(_is_str)(t)),
           f"neither null nor a selector ({', '.join(SELECTORS)}) or a list of ids")
TRIGGERS = (_list_of(_is_trigger), "not a list of triggers (when, effect, targets)")
