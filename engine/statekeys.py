"""State keys: a compact, hashable, canonical value of everything in a game state that
affects the future, and the same with interchangeable units merged (``--symmetry``).

The model checker's visited set holds these keys as bytes (:func:`stored_key`); see
docs/model-checking.md, "The state key".
"""

from __future__ import annotations

import marshal
import zlib
from collections.abc import Callable, Iterable
from operator import attrgetter
from typing import Any

from .runtime import Configuration, compiled
from .state import ChainItem, GameState, by_board_order, chart_of

_config_codes: dict[tuple[str, Configuration], int] = {}
_effect_tags: dict[int, tuple[Any, int]] = {}


def _config_code(chart: str, config: Configuration) -> int:
    """A configuration as a bit set over the chart's states: small, and the same number in
    every process (bit positions follow the chart's document order)."""
    code = _config_codes.get((chart, config))
    if code is None:
        states = compiled(chart).states
        code = sum(1 << states[s].order for s in config)
        _config_codes[(chart, config)] = code
    return code


def _effect_tag(effect: Any) -> int:
    """A stable number for an effect mapping (a trigger's label does not say which of a unit's
    triggers it is). Kept with its object so that its id is never reused."""
    if effect is None:
        return 0
    entry = _effect_tags.get(id(effect))
    if entry is None:
        entry = (effect, zlib.crc32(repr(effect).encode()))
        _effect_tags[id(effect)] = entry
    return entry[1]


def _configs_key(configs: dict[str, Configuration]) -> tuple[int, ...]:
    """Every chart's configuration as its bit set (worked out once per combination of chart
    keys and configurations: all are immutable, and few combinations occur)."""
    combination = tuple(configs.items())
    codes = _key_codes.get(combination)
    if codes is None:
        codes = _key_codes[combination] = tuple(
            _config_code(chart_of(key), config) for key, config in combination
        )
    return codes


_key_codes: dict[tuple[tuple[str, Configuration], ...], tuple[int, ...]] = {}
# what the key holds of a unit and of a battlefield, read in one call each
_unit_fields = attrgetter("id", "owner", "controller", "at", "exhausted", "stunned", "damage",
                          "designation")
_field_fields = attrgetter("controller", "applier", "scored", "staged_combatants")


def state_key(s: GameState) -> tuple:
    """A compact, hashable, canonical value of everything in ``s`` that affects the future.

    Units are listed in board order, so their position stands for their order (only the
    relative order matters: a unit entering the board always goes last). Static data (Might,
    keywords, triggers, card texts, names) is fixed by ids and left out; so is the trace.
    """
    return (
        s.units.derived(_units_key),
        tuple(map(_field_fields, s.fields.values())),
        _configs_key(s.configs),
        _chain_key(s.chain) if s.chain else (),  # (empty in most states: no generator run)
        tuple(tuple(sorted(c.id if c else "" for c in hand)) for hand in s.hands.values()),
        _rest_key(s),
    )


def _units_key(units: dict[str, Any]) -> tuple:
    return tuple(map(_unit_fields, sorted(units.values(), key=by_board_order)))


def stored_key(key: tuple) -> bytes:
    """A state key as the explorer stores it: its tuples, strings, numbers, booleans and
    Nones written out by ``marshal`` (format 2).

    Equal keys give equal bytes whatever the objects' identities (format 2 shares nothing,
    unlike pickle, which writes a string met twice as a reference to the first, and later
    marshal formats), so the bytes made in different processes can be compared. (A key holds
    no sets: the order their items are written in would not be canonical.) A key is about
    440 bytes this way against about 2,400 as tuples in memory, and bytes hash and compare
    fast, which is most of what the parent does with workers.
    """
    return marshal.dumps(key, 2)


def _same(uid: Any) -> Any:
    return uid


def _chain_key(chain: Iterable[Any], rn: Callable[[Any], Any] = _same) -> tuple:
    """The chain's items, with unit ids passed through ``rn`` (a renaming, for symmetry)."""
    return tuple(
        (i.kind, _renamed_label(i, rn), i.controller,
         tuple(map(rn, i.targets)) if isinstance(i.targets, tuple) else i.targets,
         i.to, rn(i.source), i.where,
         _effect_tag(i.effect) if i.kind == "trigger" else 0)
        for i in chain
    )


def _renamed_label(item: ChainItem, rn: Callable[[Any], Any]) -> str:
    """A chain item's label with the unit id in it passed through ``rn``: a card's label is its
    id, a trigger's ``SOURCE:EVENT``; an Add's, ``add:PLAYER``, names no unit (even where a
    unit is called ``add``)."""
    if item.kind == "add":
        return item.label
    source, sep, event = item.label.partition(":")
    return rn(source) + sep + event if sep else rn(item.label)


def _rest_key(s: GameState, rn: Callable[[Any], Any] = _same) -> tuple:
    """The scalars, with unit ids passed through ``rn`` (a renaming, for symmetry)."""
    pending = None
    if s.pending:
        p = s.pending
        pending = (p["player"], p["kind"], tuple(map(rn, p["options"])), p.get("total"))
    return (
        s.turn_player, tuple(s.scores.values()), tuple(s.deck.values()), s.focus, s.priority,
        s.passes, s.chain_begun_by, s.focus_at_chain_start, s.contest_at, s.attacker,
        s.defender, s.winner, s.attackers_recalled, s.blocked_scoring, pending,
        tuple(sorted((p, tuple(sorted((rn(u), n) for u, n in a.items())))
                     for p, a in s.damage_plan.items())) if s.damage_plan else (),
        tuple((k, _chain_key([i])) for k, i in s.queued_triggers) if s.queued_triggers else (),
    )


class Symmetry:
    """Units with equal static attributes and the same owner and controller are interchangeable,
    and so are unit cards with equal texts in one hand; a state's key lists them sorted by what
    they are doing, not by their ids.

    Units and cards that any effect names by id (cards, triggers, battlefield abilities) are
    never interchangeable. Two states share a key only when renaming interchangeable units maps
    one onto the other (board order included), so the reduction loses no violation; and as
    the renaming is worked out from what the key holds (and where the Chain names each twin),
    states that are renamings of one another share one.
    """

    def __init__(self, start: GameState):
        named = _named_ids(start)
        in_hand = {card.id for hand in start.hands.values() for card in hand if card}
        groups: dict[tuple, list[str]] = {}
        for unit in start.units_in_board_order():
            if unit.id in named or unit.id in in_hand:
                continue
            static: tuple = ("unit", unit.owner, unit.controller, unit.might, unit.keywords,
                      _triggers_text(unit.triggers), unit.name, unit.timing)
            groups.setdefault(static, []).append(unit.id)
        # unit cards in one hand with equal texts: played in either order, they make states
        # that are each other's renaming (a real hand often holds two copies of a card)
        for player, hand in start.hands.items():
            for card in hand:
                if not card or card.type != "unit" or card.id in named or card.id in start.units:
                    continue
                static = ("card", player, card.name, card.timing, card.might, card.keywords,
                          _triggers_text(card.triggers), repr(card.effect))
                groups.setdefault(static, []).append(card.id)
        self.classes = tuple(tuple(ids) for ids in groups.values() if len(ids) > 1)

    def key(self, s: GameState) -> tuple:
        if not self.classes:
            return state_key(s)
        return _renamed_key(s, self._renaming(s))

    def _renaming(self, s: GameState) -> dict[str, str]:
        names: dict[str, str] = {}
        for ids in self.classes:
            members = sorted(ids, key=lambda uid: (_dynamic(s, uid), _chain_places(s, uid)))
            for old, new in zip(members, ids, strict=True):
                if old != new:
                    names[old] = new
        return names


def _triggers_text(triggers: Iterable[Any]) -> tuple:
    # a trigger's effect is a mapping: its text stands for it (equal effects, equal text)
    return tuple((t.when, repr(t.effect), t.targets) for t in triggers)


def _dynamic(s: GameState, uid: str) -> tuple:
    """What a unit is doing, as a sort key; a card not yet played comes first. Only what the
    key holds may order twins: board order counts on the board only (off it, a unit's order
    is forgotten when it enters again), or two renamings of one state would sort apart."""
    unit = s.units.get(uid)
    if unit is None:
        return (0,)
    return (1, unit.controller, unit.at, unit.exhausted, unit.stunned, unit.damage,
            unit.designation or "", unit.order if unit.on_board else -1)


def _chain_places(s: GameState, uid: str) -> tuple[int, ...]:
    """Where on the Chain a twin is named (as a card, a trigger's source or a target): twins
    alike in every other way are told apart by it, so that the same renaming is found from
    either of two states that are each other's renaming."""
    return tuple(
        place for place, item in enumerate(s.chain)
        if uid == item.source or (item.kind == "card" and uid == item.label)
        or (isinstance(item.targets, tuple) and uid in item.targets)
    )


def _named_ids(start: GameState) -> set[str]:
    """Every string inside an effect, a trigger, a target list or a chain item: the ids effects
    name (a card in hand is walked for its effect and triggers, not its own id)."""
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, str):
            found.add(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, (list, tuple)):
            for item in value:
                walk(item)
        elif hasattr(value, "__dataclass_fields__"):
            for name in value.__dataclass_fields__:
                walk(getattr(value, name))

    cards = [(card.effect, card.triggers) for hand in start.hands.values() for card in hand if card]
    walk([cards, [u.triggers for u in start.units.values()],
          [f.abilities for f in start.fields.values()], start.chain])
    return found


def _renamed_key(s: GameState, names: dict[str, str]) -> tuple:
    def rn(uid: Any) -> Any:
        return names.get(uid, uid) if isinstance(uid, str) else uid

    # the plain key's fields of a unit, its id renamed: one list of fields for both keys
    units = tuple(sorted((rn(u.id), *_unit_fields(u)[1:]) for u in s.units.values()))
    # the whole board order, renamed: units at base keep theirs when they move together, and
    # it decides the damage assignment wherever they meet (kept per battlefield only, it
    # merged states that the rules tell apart, and a violation could be missed)
    board = tuple(rn(u.id) for u in s.units_in_board_order() if u.on_board)
    return (
        units,
        board,
        tuple(map(_field_fields, s.fields.values())),
        _configs_key(s.configs),
        _chain_key(s.chain, rn),
        tuple(tuple(sorted(rn(c.id) if c else "" for c in hand)) for hand in s.hands.values()),
        _rest_key(s, rn),
    )
