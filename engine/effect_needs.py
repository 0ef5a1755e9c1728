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


def _part_needs(kind: str, arg: Any) -> tuple[bool, Destination]:
    if kind in ("gain_points", "draw"):
        return False, Destination.NO
    if kind == "play_unit":
        return False, Destination.NO if "to" in arg else Destination.MAY
    must = kind == "move" and "to" not in arg
    return (not names_its_units(arg)), (Destination.MUST if must else Destination.NO)
