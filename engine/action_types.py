"""The players' actions as values (the public API's ``Move``, ``Play``...) and their scenario
step form. Their legality and what taking one does are in ``actions``.

This module is not compiled in the compiled build (setup.py): a caller may hand an action a
list where a tuple belongs (``as_action`` makes it one), which a compiled class would refuse.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any


@dataclass(frozen=True)
class Move:
    """A Standard Move (CR 144)."""

    player: str
    units: tuple[str, ...]
    to: str


@dataclass(frozen=True)
class Play:
    """Play a card from hand; ``targets`` and ``to`` as its effect needs."""

    player: str
    card: str
    targets: tuple[str, ...] = ()
    to: str | None = None


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


@dataclass(frozen=True)
class Assign:
    """Answer the pending damage choice: unit id and amount pairs."""

    player: str
    damage: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class EndTurn:
    player: str


Action = Move | Play | Pass | Add | Choose | Assign | EndTurn
ACTION_TYPES = (Move, Play, Pass, Add, Choose, Assign, EndTurn)


def as_action(value: Any) -> Action:
    """``value``, checked to be an action, with any list it holds made a tuple (an action is a
    value: hashable, as the game's log and the explorer need). Anything else is a programming
    error, so a ``TypeError``, not an ``IllegalAction``: the rules were never asked."""
    if type(value) not in ACTION_TYPES:
        kinds = ", ".join(t.__name__ for t in ACTION_TYPES)
        raise TypeError(f"not a riftchart action (one of {kinds}): {value!r}")
    if isinstance(value, Move) and not isinstance(value.units, tuple):
        return replace(value, units=_ids(value.units, "Move.units"))
    if isinstance(value, Play) and not isinstance(value.targets, tuple):
        return replace(value, targets=_ids(value.targets, "Play.targets"))
    if isinstance(value, Assign) and not (
        isinstance(value.damage, tuple) and all(isinstance(p, tuple) for p in value.damage)
    ):
        damage = value.damage.items() if isinstance(value.damage, Mapping) else value.damage
        return replace(value, damage=tuple(tuple(pair) for pair in damage))
    return value


def _ids(value: Any, what: str) -> tuple[str, ...]:
    if isinstance(value, str):
        raise TypeError(f"{what} is a tuple of unit ids, not the string {value!r}")
    return tuple(value)


def from_step(kind: str, args: Any) -> Action:
    """The action a scenario step names (its payload already validated by the loader)."""
    if kind == "move":
        return Move(args["player"], tuple(args["units"]), args["to"])
    if kind == "play":
        return Play(args["player"], args["card"], tuple(args.get("targets") or ()), args.get("to"))
    if kind == "pass":
        return Pass(args)
    if kind == "add":
        return Add(args)
    if kind == "choose":
        return Choose(args["player"], args["battlefield"])
    if kind == "assign":
        return Assign(args["player"], tuple(args["damage"].items()))
    if kind == "end_turn":
        return EndTurn(args)
    raise ValueError(f"not an action step: {kind}")


def to_step(action: Action) -> dict[str, Any]:
    """The scenario step that takes ``action``: the inverse of :func:`from_step`."""
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
    kind = {Pass: "pass", Add: "add", EndTurn: "end_turn"}[type(action)]
    return {kind: action.player}


# --- legality ----------------------------------------------------------------------------
