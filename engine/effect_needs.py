"""What a card's effect takes from the step that plays it: its units (the play's targets) and
its destination (the play's ``to``). One reading of scenario-format.md's Effects, for the rules
(what a play must give, what the search tries) and for the loader (what a trigger, which has
no play step, can never be given)."""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum
from typing import Any


class Destination(IntEnum):
    """Whether a play step gives a destination; ordered, so that a sequence of effects needs
    the most any of its parts needs."""

    NO = 0
    MAY = 1
    MUST = 2


def effect_parts(effect: Mapping[str, Any] | None) -> list[tuple[str, Any]]:
    """The effect's parts, a ``sequence`` flattened, in order."""
    if not effect:
        return []
    ((kind, arg),) = effect.items()
    if kind == "sequence":
        return [part for inner in arg for part in effect_parts(inner)]
    return [(kind, arg)]


def names_its_units(arg: Any) -> bool:
    """Whether an effect part names its units (``move: {units: [U1]}``) rather than taking
    the play's targets."""
    return isinstance(arg, Mapping) and "units" in arg


def needs(effect: Mapping[str, Any] | None) -> tuple[bool, Destination]:
    """Whether an effect takes its targets from the play step, and whether its destination
    (a move's must come from somewhere; a play_unit's defaults to the base); a sequence needs
    what any of its parts needs."""
    parts = [_part_needs(kind, arg) for kind, arg in effect_parts(effect)]
    return any(t for t, _ in parts), max((d for _, d in parts), default=Destination.NO)


def order_matters(effect: Mapping[str, Any] | None) -> bool:
    """Whether the order of a play's targets can change what its effect does: units that one
    effect moves, or takes control of, arrive in the order listed, and the first to arrive at a
    battlefield applies Contested (rules 11.8). Other effects act on each unit alike (their
    die triggers go in board order), so another order of the same targets is the same play."""
    return any(kind in ("move", "take_control") and not names_its_units(arg)
               for kind, arg in effect_parts(effect))


def _part_needs(kind: str, arg: Any) -> tuple[bool, Destination]:
    if kind in ("gain_points", "draw"):
        return False, Destination.NO
    if kind == "play_unit":
        return False, Destination.NO if "to" in arg else Destination.MAY
    must = kind == "move" and "to" not in arg
    return (not names_its_units(arg)), (Destination.MUST if must else Destination.NO)
