"""The game state as a value: everything that is not a finite state of a chart.

Chart configurations live here too (``configs``), so a state can be copied, compared, hashed
and serialised as one value; the runtimes read and write them through ``configs``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from operator import attrgetter
from typing import Any

from statecharts import GAME_WIDE_CHARTS

from .runtime import Configuration, compiled
from .units import Units

OFF_BOARD = ("hand", "trash")
#: The rules profiles a game can be played under: the seed rules and Core Rules 1.4
PROFILES = ("seed", "cr-1.4")
#: The turn's phases: the turn chart's top-level states, in the chart's order (CR 314-317)
PHASES: tuple[str, ...] = compiled("turn").root_ids


class Frozen:
    """Base of the frozen values a search sends between processes (``--workers``): they are
    pickled as their class and fields, and unpickled through the constructor. A compiled build
    (mypyc) would otherwise set the fields one by one, which a frozen dataclass refuses."""

    __slots__ = ()

    def __reduce__(self) -> tuple:
        # every subclass is a dataclass
        names = [f.name for f in fields(self)]  # type: ignore[arg-type]
        return type(self), tuple(getattr(self, name) for name in names)


@dataclass(frozen=True)
class Trigger(Frozen):
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
    return Trigger(get("when", ""), get("effect", {}), targets)


@dataclass(frozen=True)
class Card(Frozen):
    """A card in a hand or on the Chain, as the scenario set it up."""

    id: str
    name: str | None
    type: str  # "spell" or "unit"
    timing: str  # "none", "action" or "reaction"
    effect: Mapping[str, Any] | None = None
    might: int = 0
    keywords: tuple[str, ...] = ()
    triggers: tuple[Trigger, ...] = ()


@dataclass(frozen=True)
class Unit(Frozen):
    """A unit: its static card data (Might, keywords, triggers) and where it is and how it is
    now (exhausted, stunned, damage, Combat designation). Immutable: a change is a new Unit."""

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
class Field(Frozen):
    """A battlefield's data; whether it is controlled, contested, staged is in its chart."""

    id: str
    name: str | None
    index: int
    controller: str | None = None
    applier: str | None = None  # who applied Contested
    scored: tuple[str, ...] = ()  # players who scored it this turn
    abilities: tuple[Trigger, ...] = ()
    # the two players of a Combat staged here, in turn order, from its staging until it begins
    # or Cleanup removes it: one side may leave before then (decisions D16)
    staged_combatants: tuple[str, ...] = ()


@dataclass(frozen=True)
class ChainItem(Frozen):
    """One item on the Chain: a card, a triggered ability or an Add (CR 328)."""

    kind: str  # "card", "trigger" or "add"
    label: str  # as the state view shows it: card id, SOURCE:EVENT, add:PLAYER
    controller: str | None  # None: an uncontrolled battlefield's ability ("you" is no one)
    effect: Mapping[str, Any] | None = None
    targets: tuple[str, ...] | str | None = None
    to: str | None = None
    source: str | None = None
    where: str | None = None  # where the source was when it triggered
    card: Card | None = None


@dataclass
class GameState:
    """Everything about a game in play, as one value: the players and scores, the units and
    battlefields, hands, the Chain, who holds Focus and Priority, the contest under way, and
    every chart's configuration (``configs``). The rules procedures change it through a
    ``Table``; the model checker copies it (:meth:`copy`) and keys it (``statekeys``)."""

    players: tuple[str, ...]
    teams: tuple[tuple[str, ...], ...] | None
    profile: str
    victory_score: int
    manual_damage: bool
    turn_player: str
    scores: dict[str, int]
    deck: dict[str, int]
    hands: dict[str, list[Card | None]]  # None: a drawn card nobody has seen
    units: Units
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
    # a choice the rules wait for: {"player": who makes it, "kind": "battlefield" (which
    # staged contest opens, contest.py) or "damage" (a Combat's assignment, combat.py),
    # "options": what they choose among, and for damage "total": the damage to assign}
    pending: dict[str, Any] | None = None
    damage_plan: dict[str, dict[str, int]] = field(default_factory=dict)
    attackers_recalled: bool = False
    queued_triggers: list[tuple[tuple, ChainItem]] = field(default_factory=list)
    winner: str | None = None
    next_order: int = 0
    blocked_scoring: tuple[str, ...] = ()  # teams: battlefields a teammate controlled

    def copy(self) -> GameState:
        """A copy that shares only immutable parts: each mutable container is copied, every
        other field taken over as it is (``tests/test_explore.py`` checks that every field
        is named here)."""
        return GameState(
            players=self.players,
            teams=self.teams,
            profile=self.profile,
            victory_score=self.victory_score,
            manual_damage=self.manual_damage,
            turn_player=self.turn_player,
            scores=dict(self.scores),
            deck=dict(self.deck),
            hands={p: list(cards) for p, cards in self.hands.items()},
            units=self.units.copy(),
            fields=dict(self.fields),
            configs=dict(self.configs),
            chain=list(self.chain),
            chain_begun_by=self.chain_begun_by,
            focus=self.focus,
            priority=self.priority,
            focus_at_chain_start=self.focus_at_chain_start,
            passes=self.passes,
            contest_at=self.contest_at,
            attacker=self.attacker,
            defender=self.defender,
            pending=dict(self.pending) if self.pending else None,
            damage_plan={p: dict(a) for p, a in self.damage_plan.items()} if self.damage_plan
            else {},
            attackers_recalled=self.attackers_recalled,
            queued_triggers=list(self.queued_triggers),
            winner=self.winner,
            next_order=self.next_order,
            blocked_scoring=self.blocked_scoring,
        )

    # --- reading the charts' configurations -----------------------------------------

    def bf_config(self, bf: str) -> Configuration:
        return self.configs[battlefield_key(bf)]

    # The battlefield chart's states that the rules procedures and the charts' guards ask
    # about, by name (its Contested, Neutral/Showdown and staging regions;
    # statecharts/battlefield.py)

    def is_contested(self, bf: str) -> bool:
        return "contested" in self.bf_config(bf)

    def in_showdown(self, bf: str) -> bool:
        """A contest is active there: a non-combat Showdown or a Combat (in the chart a Combat
        is a kind of Showdown, whether it opened as one or a Showdown converted)."""
        return "showdown" in self.bf_config(bf)

    def in_combat(self, bf: str) -> bool:
        return "combat" in self.bf_config(bf)

    def showdown_staged(self, bf: str) -> bool:
        return "showdown_staged" in self.bf_config(bf)

    def combat_staged(self, bf: str) -> bool:
        return "combat_staged" in self.bf_config(bf)

    @property
    def phase(self) -> str:
        config = self.configs["turn"]
        for phase in PHASES:
            if phase in config:
                return phase
        raise AssertionError(f"turn chart in no phase: {sorted(config)}")

    @property
    def chain_open(self) -> bool:
        """Whether the state is Open (CR 309): no Chain exists. Not "a Chain is open"."""
        return "open" in self.configs["priority"]

    @property
    def neutral_open(self) -> bool:
        """Neutral Open (CR 310.1): no Chain exists and no contest is active."""
        return self.chain_open and self.contest_at is None

    @property
    def contest_battlefield(self) -> str:
        """The battlefield of the active contest (asked only while one runs)."""
        assert self.contest_at is not None, "no contest is active"
        return self.contest_at

    @property
    def combatants(self) -> tuple[str, str]:
        """The Attacker and the Defender of the Combat under way (a staged Combat's players are
        its battlefield's ``staged_combatants``)."""
        assert self.attacker is not None and self.defender is not None, "no Combat"
        return self.attacker, self.defender

    def team_of(self, player: str) -> tuple[str, ...]:
        if self.teams:
            for team in self.teams:
                if player in team:
                    return team
        return (player,)

    def opponents(self, a: str, b: str) -> bool:
        return b not in self.team_of(a)

    def teammates(self, a: str, b: str) -> bool:
        """Two players of one team (a player is not their own teammate)."""
        return a != b and b in self.team_of(a)

    def next_player(self, player: str | None) -> str:
        """The player after ``player`` in turn order (asked of whoever holds Focus or
        Priority, so never of no one)."""
        assert player is not None, "nobody to pass from"
        i = self.players.index(player)
        return self.players[(i + 1) % len(self.players)]

    def turn_rank(self, player: str | None) -> int:
        """Where ``player`` comes in turn order starting with the turn player (0 for the turn
        player, and for no one: an uncontrolled battlefield's ability is the turn player's to
        put on the Chain): how the rules order what several players do at once (rules 11.4)."""
        start = self.players.index(self.turn_player)
        return (self.players.index(player or self.turn_player) - start) % len(self.players)

    def first_rival(self, bf: str) -> str:
        """Of the players with units at ``bf`` who do not control it, the first in turn order
        from the turn player: who applies Contested again (Cleanup step 7) or attacks when the
        applier has gone (D17, D18)."""
        controller = self.fields[bf].controller
        return min((p for p in self.players_at(bf) if p != controller), key=self.turn_rank)

    def units_at(self, bf: str) -> list[Unit]:
        """Units at a battlefield, in board order."""
        return sorted((u for u in self.units.values() if u.at == bf), key=by_board_order)

    def units_in_board_order(self) -> list[Unit]:
        """Every unit, on the board or not, in board order."""
        return sorted(self.units.values(), key=by_board_order)

    def players_at(self, bf: str) -> tuple[str, ...]:
        """Players with units at a battlefield, in turn order (the ``players`` list)."""
        return self.units.players_at(bf, self.players)

    def players_facing_off(self, bf: str) -> tuple[str, ...]:
        """The players at a battlefield who have an opponent there, in turn order: the two
        players of a Combat there (no more can be: rules.md 8)."""
        present = self.players_at(bf)
        return tuple(p for p in present if any(self.opponents(p, q) for q in present))


def battlefield_key(bf: str) -> str:
    return f"battlefield:{bf}"


def battlefield_of(key: str) -> str:
    """The battlefield a battlefield chart's key names: ``battlefield:A`` -> ``A``."""
    return key.split(":", 1)[1]


def chart_of(key: str) -> str:
    """The chart a chart key runs: ``battlefield:A`` -> ``battlefield``; the game-wide charts
    are keyed by their name."""
    return key.split(":", 1)[0]


def initial_configs(battlefields: list[str]) -> dict[str, Configuration]:
    configs = {battlefield_key(bf): compiled("battlefield").initial for bf in battlefields}
    for chart in GAME_WIDE_CHARTS:
        configs[chart] = compiled(chart).initial
    return configs
