"""The players' actions as values (the public API's ``Move``, ``Play``...) and their scenario
step form. Their legality and what taking one does are in ``actions``.

This module is not compiled in the compiled build (setup.py): a caller may hand an action a
list where a tuple belongs (``as_action`` makes it one), which a compiled class would refuse.
``as_action`` is also where the public API checks the type of every field of an action.
"""

from __future__ import annotations

import reprlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

# Move, Play and Assign write their own __init__ (init=False) so that their hints take the list
# (and for Assign the dict) that their fields also take, while the fields stay tuples

@dataclass(frozen=True, init=False)
class Move:
    """A Standard Move (CR 144)."""

    player: str
    units: tuple[str, ...]
    to: str

    def __init__(self, player: str, units: tuple[str, ...] | list[str], to: str) -> None:
        _set(self, player=player, units=_as_tuple(units), to=to)


@dataclass(frozen=True, init=False)
class Play:
    """Play a card from hand; ``targets`` and ``to`` as its effect needs."""

    player: str
    card: str
    targets: tuple[str, ...] = ()
    to: str | None = None

    def __init__(self, player: str, card: str, targets: tuple[str, ...] | list[str] = (),
                 to: str | None = None) -> None:
        _set(self, player=player, card=card, targets=_as_tuple(targets), to=to)


@dataclass(frozen=True)
class Pass:
    """Pass Priority while a Chain exists, or Focus in Showdown Open."""

    player: str


@dataclass(frozen=True)
class Add:
    """Activate an Add ability: it resolves at once and is acting."""

    player: str


@dataclass(frozen=True)
class Choose:
    """Answer the pending choice of which staged contest opens."""

    player: str
    battlefield: str


DamageGiven = Mapping[str, int] | Sequence[tuple[str, int] | list[Any]]


@dataclass(frozen=True, init=False)
class Assign:
    """Answer the pending damage choice: unit id and amount pairs."""

    player: str
    damage: tuple[tuple[str, int], ...]

    def __init__(self, player: str, damage: DamageGiven) -> None:
        given: Any = damage
        if isinstance(given, Mapping):
            # a wrong key or amount stays in the dict, for as_action to name in its terms; an
            # IntEnum amount is an int (as_action makes it the plain int it holds), a bool not
            if all(isinstance(uid, str) and isinstance(n, int) and not isinstance(n, bool)
                   for uid, n in given.items()):
                given = tuple(given.items())
        elif isinstance(given, tuple | list):
            given = tuple(tuple(p) if isinstance(p, list) else p for p in given)
        _set(self, player=player, damage=given)


@dataclass(frozen=True)
class EndTurn:
    """End the turn (CR 316.6): only the turn player, from the Main phase in Neutral Open."""

    player: str


def _as_tuple(value: Any) -> Any:
    """A list given for a tuple field made a tuple, so that an action built from JSON data
    equals, and hashes like, the same action built with tuples (the field's type is checked
    by :func:`as_action`)."""
    return tuple(value) if isinstance(value, list) else value


def _set(action: Any, **values: Any) -> None:
    for name, value in values.items():
        object.__setattr__(action, name, value)


Action = Move | Play | Pass | Add | Choose | Assign | EndTurn
ACTION_TYPES = (Move, Play, Pass, Add, Choose, Assign, EndTurn)


def as_action(value: Any) -> Action:
    """``value``, checked to be an action whose every field has the right type, with any list
    it holds made a tuple and a dict of damage made pairs (an action is a value: hashable, as
    the game's log and the explorer need).

    Anything else is a programming error, so a ``TypeError`` naming the field, not an
    ``IllegalAction``: it is raised before any rule is asked, so the same wrong value gets the
    same error in every game state. A field of the right type naming an unknown id is left to
    the rules, which refuse it with an ``IllegalAction``.
    """
    if type(value) not in ACTION_TYPES:
        kinds = ", ".join(t.__name__ for t in ACTION_TYPES)
        raise TypeError(f"not a riftchart action (one of {kinds}): {_shown(value)}")
    kind = type(value).__name__
    changes = {}
    for name, check in _FIELD_CHECKS[type(value)].items():
        given = getattr(value, name)
        checked = check(given, f"{kind}.{name}")
        if checked is not given:  # a list for a tuple, a dict for pairs, a str subclass's str
            changes[name] = checked
    return replace(value, **changes) if changes else value


# --- the field checks: each returns the field's value in its canonical (hashable) form -----


def _player(value: Any, field: str) -> str:
    return _text(value, field, "a player id (a string)")


def _card(value: Any, field: str) -> str:
    return _text(value, field, "a card id (a string)")


def _battlefield(value: Any, field: str) -> str:
    return _text(value, field, "a battlefield id (a string)")


def _place(value: Any, field: str) -> str:
    return _text(value, field, 'a battlefield id or "base" (a string)')


def _place_or_none(value: Any, field: str) -> str | None:
    # None is a play without a destination (a unit card's is its base)
    if value is None:
        return None
    return _text(value, field, 'a battlefield id, "base" or None')


def _text(value: Any, field: str, what: str) -> str:
    """An id; one given as a subclass of str (a ``class Id(str, Enum)`` member) is the str it
    holds, since riftchart makes names of ids and such a value formats as itself (``Id.A``)."""
    if type(value) is str:
        return value
    if not isinstance(value, str):
        raise TypeError(f"{field} is {what}, not {_shown(value)}")
    return str.__str__(value)


def _unit_ids(value: Any, field: str) -> tuple[str, ...]:
    """A tuple (or list) of unit ids; a bare string is refused rather than read as the tuple
    of its letters. The same tuple when it needs no change."""
    if not isinstance(value, tuple | list):
        raise TypeError(f"{field} is a tuple of unit ids, not {_shown(value)}")
    ids = tuple(_text(item, f"{field}[{index}]", "a unit id (a string)")
                for index, item in enumerate(value))
    return _the_given_if_unchanged(ids, value)


def _damage(value: Any, field: str) -> tuple[tuple[str, int], ...]:
    """(unit id, amount) pairs, as a tuple or list of pairs or as a dict; a negative amount
    is of the right type, so the rules refuse it, not this check."""
    if isinstance(value, Mapping):
        return tuple(
            (_text(uid, f"{field} key", "a unit id (a string)"),
             _amount(amount, f"{field}[{uid!r}]"))
            for uid, amount in value.items()
        )
    if not isinstance(value, tuple | list):
        raise TypeError(
            f"{field} is (unit id, amount) pairs or a dict of them, not {_shown(value)}"
        )
    pairs = tuple(_pair(item, f"{field}[{index}]") for index, item in enumerate(value))
    return _the_given_if_unchanged(pairs, value)


def _pair(value: Any, field: str) -> tuple[str, int]:
    """The pair, or the same tuple when it needs no change."""
    if not isinstance(value, tuple | list) or len(value) != 2:
        raise TypeError(f"{field} is a (unit id, amount) pair, not {_shown(value)}")
    uid, amount = value
    pair = _text(uid, f"{field}[0]", "a unit id (a string)"), _amount(amount, f"{field}[1]")
    return _the_given_if_unchanged(pair, value)


def _the_given_if_unchanged(checked: tuple, given: Any) -> Any:
    """``given`` itself when it is a tuple of the very items ``checked`` holds (so that
    :func:`as_action` sees nothing to change), else ``checked``."""
    same = isinstance(given, tuple) and all(
        a is b for a, b in zip(checked, given, strict=True))
    return given if same else checked


def _amount(value: Any, field: str) -> int:
    # bool is a subclass of int, but True damage is a mistake, not 1; an IntEnum member is
    # the int it holds (it would format as itself in the log)
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{field} is an amount of damage (an int), not {_shown(value)}")
    return value if type(value) is int else int.__int__(value)


_FIELD_CHECKS: dict[type, dict[str, Callable[[Any, str], Any]]] = {
    Move: {"player": _player, "units": _unit_ids, "to": _place},
    Play: {"player": _player, "card": _card, "targets": _unit_ids, "to": _place_or_none},
    Pass: {"player": _player},
    Add: {"player": _player},
    Choose: {"player": _player, "battlefield": _battlefield},
    Assign: {"player": _player, "damage": _damage},
    EndTurn: {"player": _player},
}


def _short_repr() -> reprlib.Repr:
    """Short reprs for error messages: a caller's huge list should not make a huge message
    (set one by one: Python 3.11's ``Repr`` takes no arguments)."""
    short = reprlib.Repr()
    short.maxstring = short.maxother = 60
    short.maxlist = short.maxtuple = short.maxdict = 6
    return short


_REPR = _short_repr()


def _shown(value: Any) -> str:
    """``value`` in an error message: ``None``, or its type's name and a short repr (``the
    string 'U1'``, ``the list ['A']``)."""
    if value is None:
        return "None"
    kind = "string" if isinstance(value, str) else type(value).__name__
    return f"the {kind} {_REPR.repr(value)}"


#: The fields each step whose payload is a mapping needs (the others take a player id), and
#: those it may have besides
STEP_FIELDS = {"move": ("player", "units", "to"), "play": ("player", "card"),
                "choose": ("player", "battlefield"), "assign": ("player", "damage")}
STEP_OPTIONAL = {"play": ("targets", "to")}
_PLAYER_STEPS = {"pass": Pass, "add": Add, "end_turn": EndTurn}
#: the steps that take an action, in the order the scenario format lists them, and those of
#: them whose payload is a player id
ACTION_STEPS = ("move", "play", "pass", "add", "choose", "assign", "end_turn")
PLAYER_STEPS = tuple(_PLAYER_STEPS)


def from_step(kind: str, args: Any) -> Action:
    """The action a scenario step names: ``from_step("move", {"player": "P1", "units":
    ["U1"], "to": "A"})``. A kind that is no action step, or a payload without a field it
    needs or with one it does not have (a misspelt ``To`` would otherwise be another play),
    is a ValueError; a field of the wrong type a TypeError naming it (as :func:`as_action`
    says)."""
    if kind in _PLAYER_STEPS:
        return as_action(_PLAYER_STEPS[kind](args))
    if kind not in STEP_FIELDS:
        raise ValueError(f"not an action step: {kind!r} (one of "
                         f"{', '.join(sorted(ACTION_STEPS))})")
    needed = STEP_FIELDS[kind]
    if not isinstance(args, Mapping):
        raise TypeError(f"a {kind} step's payload is a mapping of {', '.join(needed)}, "
                        f"not {_shown(args)}")
    missing = [name for name in needed if name not in args]
    if missing:
        raise ValueError(f"a {kind} step needs {', '.join(missing)}")
    fields = (*needed, *STEP_OPTIONAL.get(kind, ()))
    unknown = [name for name in args if name not in fields]
    if unknown:
        raise ValueError(f"a {kind} step has no field {unknown[0]!r} (its fields: "
                         f"{', '.join(fields)})")
    if kind == "move":
        action: Action = Move(args["player"], args["units"], args["to"])
    elif kind == "play":
        # null targets are none given, as in a scenario file (D33); any other value is the
        # targets, checked by as_action (0 or "" is a TypeError, not "no targets")
        targets = args.get("targets")
        action = Play(args["player"], args["card"], () if targets is None else targets,
                      args.get("to"))
    elif kind == "choose":
        action = Choose(args["player"], args["battlefield"])
    else:
        action = Assign(args["player"], args["damage"])
    return as_action(action)


def to_step(action: Action) -> dict[str, Any]:
    """The scenario step that takes ``action``: the inverse of :func:`from_step`. An action
    with a field of the wrong type is a TypeError naming it (:func:`as_action`)."""
    action = as_action(action)
    if isinstance(action, Move):
        return {"move": {"player": action.player, "units": list(action.units), "to": action.to}}
    if isinstance(action, Play):
        body: dict[str, Any] = {"player": action.player, "card": action.card}
        if action.targets:
            body["targets"] = list(action.targets)
        if action.to is not None:
            body["to"] = action.to
        return {"play": body}
    if isinstance(action, Choose):
        return {"choose": {"player": action.player, "battlefield": action.battlefield}}
    if isinstance(action, Assign):
        return {"assign": {"player": action.player, "damage": dict(action.damage)}}
    for kind, step_type in _PLAYER_STEPS.items():
        if type(action) is step_type:
            return {kind: action.player}
    raise TypeError(f"not a riftchart action: {_shown(action)}")
