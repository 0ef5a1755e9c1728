"""The game state as a value: everything that is not a finite state of a chart.

Chart configurations live here too (``configs``), so a state can be copied, compared, hashed
and serialised as one value; the runtimes read and write them through ``configs``.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, TypeVar

from .runtime import Configuration, compiled

OFF_BOARD = ("hand", "trash")
#: The rules profiles a game can be played under: the seed rules and Comprehensive Rules 1.4
PROFILES = ("seed", "cr-1.4")
#: The turn's phases: the turn chart's top-level states, in the chart's order (CR 314-319)
PHASES: tuple[str, ...] = compiled("turn").root_ids
T = TypeVar("T")


@dataclass(frozen=True)
class Trigger:
    """A triggered ability: when EVENT happens, EFFECT, aimed by a target selector."""

    when: str
    effect: Mapping[str, Any]
    targets: str | tuple[str, ...] | None = None


def trigger_from(data: Any) -> Trigger:
    """A Trigger from a loaded trigger (any object or mapping with when, effect, targets)."""
    if isinstance(data, Trigger):
        return data
    get = data.get if isinstance(data, Mapping) else lambda k, d=None: getattr(data, k, d)
    targets = get("targets", None)
    if isinstance(targets, (list, tuple)):
        targets = tuple(targets)
    return Trigger(get("when"), get("effect"), targets)


@dataclass(frozen=True)
class Card:
    id: str
    name: str | None
    type: str  # "spell" or "unit"
    timing: str  # "none", "action" or "reaction"
    effect: Mapping[str, Any] | None = None
    might: int = 0
    keywords: tuple[str, ...] = ()
    triggers: tuple[Trigger, ...] = ()


@dataclass(frozen=True)
class Unit:
    id: str
    name: str | None
    owner: str
    controller: str
    might: int
    at: str  # "base" (its controller's), a battlefield id, "hand" or "trash"
    order: int  # board order: setup order, then order of entering the board
    exhausted: bool = False
    stunned: bool = False
    damage: int = 0
    keywords: tuple[str, ...] = ()
    triggers: tuple[Trigger, ...] = ()
    designation: str | None = None
    # the timing keyword of the card it was played from, which it keeps if it returns to
    # hand ("none" for a unit the setup put on the board)
    timing: str = "none"

    @property
    def on_board(self) -> bool:
        return self.at not in OFF_BOARD

    def has_lethal_damage(self) -> bool:
        """Whether the damage on it kills it: some damage, and at least its Might (a unit with
        0 Might and no damage lives)."""
        return self.damage > 0 and self.damage >= self.might

    def lethal(self) -> int:
        """Damage that kills it now: max(1, Might - damage already on it) (rules 11.5)."""
        return max(1, self.might - self.damage)


#: Sort key that puts units in board order (an attrgetter: state keys sort with it often)
by_board_order: Callable[[Unit], int] = attrgetter("order")


@dataclass(frozen=True)
class Field:
    """A battlefield's data; whether it is controlled, contested, staged is in its chart."""

    id: str
    name: str | None
    index: int
    controller: str | None = None
    applier: str | None = None  # who applied Contested
    scored: tuple[str, ...] = ()  # players who scored it this turn
    abilities: tuple[Trigger, ...] = ()


@dataclass(frozen=True)
class ChainItem:
    kind: str  # "card", "trigger" or "add"
    label: str  # as the state view shows it: card id, SOURCE:EVENT, add:PLAYER
    controller: str | None  # None: an uncontrolled battlefield's ability ("you" is no one)
    effect: Mapping[str, Any] | None = None
    targets: tuple[str, ...] | str | None = None
    to: str | None = None
    source: str | None = None
    where: str | None = None  # where the source was when it triggered
    card: Card | None = None


class Units(dict):
    """The units by id: a dict that also keeps answers worked out from its entries.

    Cleanup's guards and the legality checks ask "who is at this battlefield?" many times
    between two changes to the units, and the model checker asks for the units' part of a
    state's key; the answers are kept here and dropped by every method that changes an entry
    (a dict has no other way to change), so they are never stale.
    """

    __slots__ = ("_answers",)

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._answers: dict[Hashable, Any] = {}

    def players_at(self, where: str, players: tuple[str, ...]) -> tuple[str, ...]:
        """Players (of ``players``, in that order) who control units at ``where``."""
        asked = (where, players)
        found = self._answers.get(asked)
        if found is None:
            present = {u.controller for u in self.values() if u.at == where}
            found = self._answers[asked] = tuple(p for p in players if p in present)
        return found

    def derived(self, compute: Callable[[Units], T]) -> T:
        """``compute(self)``, kept until an entry changes: ``compute`` must read the units
        only, and be a module-level function (it names its answer)."""
        found = self._answers.get(compute)
        if found is None:
            found = self._answers[compute] = compute(self)
        return found

    def copy(self) -> Units:
        """A copy with the same answers (its entries are the same until one changes)."""
        new = Units(self)
        new._answers = dict(self._answers)
        return new

    def __reduce__(self) -> tuple:
        return Units, (dict(self),)

    # --- every way to change an entry drops the answers ------------------------------------

    def __setitem__(self, uid: str, unit: Unit) -> None:
        self._answers.clear()
        super().__setitem__(uid, unit)

    def __delitem__(self, uid: str) -> None:
        self._answers.clear()
        super().__delitem__(uid)

    def __ior__(self, other: Any) -> Units:
        self._answers.clear()
        return super().__ior__(other)

    def clear(self) -> None:
        self._answers.clear()
        super().clear()

    def pop(self, *args: Any) -> Any:
        self._answers.clear()
        return super().pop(*args)

    def popitem(self) -> tuple[str, Unit]:
        self._answers.clear()
        return super().popitem()

    def setdefault(self, *args: Any) -> Any:
        self._answers.clear()
        return super().setdefault(*args)

    def update(self, *args: Any, **kwargs: Any) -> None:
        self._answers.clear()
        super().update(*args, **kwargs)


@dataclass
class GameState:
    players: tuple[str, ...]
    teams: tuple[tuple[str, ...], ...] | None
    profile: str
    victory_score: int
    manual_damage: bool
    turn_player: str
    scores: dict[str, int]
    deck: dict[str, int]
    hands: dict[str, list[Card | None]]  # None: a drawn card nobody has seen
    units: dict[str, Unit]
    fields: dict[str, Field]
    configs: dict[str, Configuration]
    chain: list[ChainItem] = field(default_factory=list)
    chain_begun_by: str | None = None
    focus: str | None = None
    priority: str | None = None
    focus_at_chain_start: str | None = None
    passes: int = 0
    contest_at: str | None = None
    attacker: str | None = None
    defender: str | None = None
    pending: dict[str, Any] | None = None
    damage_plan: dict[str, dict[str, int]] = field(default_factory=dict)
    attackers_recalled: bool = False
    queued_triggers: list[tuple[tuple, ChainItem]] = field(default_factory=list)
    resolving: bool = False
    winner: str | None = None
    next_order: int = 0
    blocked_scoring: tuple[str, ...] = ()  # teams: battlefields a teammate controlled

    def __post_init__(self) -> None:
        if not isinstance(self.units, Units):
            self.units = Units(self.units)

    def copy(self) -> GameState:
        """A copy that shares only immutable parts.

        Every field is taken over as it is, then each mutable container is copied (this is
        several times cheaper than ``dataclasses.replace``, which runs ``__init__`` again).
        """
        new = object.__new__(GameState)
        new.__dict__.update(self.__dict__)
        new.scores = dict(self.scores)
        new.deck = dict(self.deck)
        new.hands = {p: list(cards) for p, cards in self.hands.items()}
        new.units = self.units.copy()
        new.fields = dict(self.fields)
        new.configs = dict(self.configs)
        new.chain = list(self.chain)
        new.pending = dict(self.pending) if self.pending else None
        new.damage_plan = {p: dict(a) for p, a in self.damage_plan.items()}
        new.queued_triggers = list(self.queued_triggers)
        return new

    # --- reading the charts' configurations -----------------------------------------

    def bf_config(self, bf: str) -> Configuration:
        return self.configs[battlefield_key(bf)]

    @property
    def phase(self) -> str:
        config = self.configs["turn"]
        for phase in PHASES:
            if phase in config:
                return phase
        raise AssertionError(f"turn chart in no phase: {sorted(config)}")

    @property
    def chain_open(self) -> bool:
        return "open" in self.configs["priority"]

    @property
    def neutral_open(self) -> bool:
        """Neutral Open (CR 309): no Chain exists and no contest is active."""
        return self.chain_open and self.contest_at is None

    def team_of(self, player: str) -> tuple[str, ...]:
        if self.teams:
            for team in self.teams:
                if player in team:
                    return team
        return (player,)

    def opponents(self, a: str, b: str) -> bool:
        return b not in self.team_of(a)

    def next_player(self, player: str) -> str:
        i = self.players.index(player)
        return self.players[(i + 1) % len(self.players)]

    def units_at(self, where: str) -> list[Unit]:
        """Units at a battlefield (or a player's base, as ``base:P``), in board order."""
        if where.startswith("base:"):
            owner = where[5:]
            found = [u for u in self.units.values() if u.at == "base" and u.controller == owner]
        else:
            found = [u for u in self.units.values() if u.at == where]
        return sorted(found, key=by_board_order)

    def units_in_board_order(self) -> list[Unit]:
        """Every unit, on the board or not, in board order."""
        return sorted(self.units.values(), key=by_board_order)

    def players_at(self, bf: str) -> tuple[str, ...]:
        """Players with units at a battlefield, in turn order."""
        return self.units.players_at(bf, self.players)


def battlefield_key(bf: str) -> str:
    return f"battlefield:{bf}"


def chart_of(key: str) -> str:
    """The chart a chart key runs: ``battlefield:A`` -> ``battlefield``; the game-wide charts
    are keyed by their name."""
    return key.split(":", 1)[0]


def initial_configs(battlefields: list[str]) -> dict[str, Configuration]:
    configs = {battlefield_key(bf): compiled("battlefield").initial for bf in battlefields}
    for chart in ("focus", "priority", "scheduler", "turn"):
        configs[chart] = compiled(chart).initial
    return configs
