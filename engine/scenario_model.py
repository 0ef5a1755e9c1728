"""The scenario format's vocabulary and limits, and a validated scenario as frozen dataclasses
(``shared/docs/scenario-format.md``, version 1; reading and checking a file:
:mod:`engine.scenario`)."""

from __future__ import annotations

import copy
import dataclasses
import datetime
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.action_types import ACTION_STEPS, from_step, to_step
from engine.state import PROFILES

MAX_FILE_BYTES = 1024 * 1024
MAX_DEPTH = 50
MAX_NODES = 1_000_000
MAX_STEPS = 10_000
MAX_INT = 1_000_000

# words an id cannot be, and why (D39): the places a unit can be, as scenario-format.md
# reserves them (a `:` is refused too: it would make a chain label SOURCE:EVENT read wrong)
RESERVED_IDS = {
    "base": "the name of a place",
    "hand": "the name of a place",
    "trash": "the name of a place",
}
KEYWORDS = ("tank", "backline", "ganking")
EVENTS = ("move", "attack", "defend", "conquer", "hold", "die", "play", "beginning")
# which source each event can happen to (scenario-format.md, Triggers): a unit's ("this unit
# moved", ...) or a battlefield's ("at the start of each Beginning phase"); scoring, both
UNIT_EVENTS = ("move", "attack", "defend", "conquer", "hold", "die", "play")
BATTLEFIELD_EVENTS = ("conquer", "hold", "beginning")
SELECTORS = ("self", "enemies_here")
CARD_TYPES = ("spell", "unit")
TIMINGS = ("none", "action", "reaction")
TARGETED_EFFECTS = ("stun", "kill", "recall", "return_to_hand", "take_control")
AMOUNT_EFFECTS = ("damage", "gain_points", "draw")
EFFECTS = ("move", *TARGETED_EFFECTS, "damage", "play_unit", "gain_points", "draw", "sequence")
STEP_KINDS = (*ACTION_STEPS, "expect", "expect_error")
GAME_STATES = ("neutral-open", "neutral-closed", "showdown-open", "showdown-closed")
SHOWDOWN_KINDS = ("non-combat", "combat")
STAGED_KINDS = ("showdown", "combat")
DESIGNATIONS = ("attacker", "defender")
CHOICE_KINDS = ("battlefield", "damage")
EXPECT_KEYS = (
    "state", "showdown", "focus", "priority", "chain", "control", "contested", "staged",
    "score", "scored_this_turn", "units", "hand", "deck", "pending_choice", "winner", "turn",
)
UNIT_STATE_KEYS = ("at", "controller", "exhausted", "stunned", "damage", "designation", "might")

DEFAULT_VICTORY_SCORE = 8
DEFAULT_TEAM_VICTORY_SCORE = 11
DEFAULT_DECK = 20

DICT_LABEL = "<scenario>"


# --------------------------------------------------------------------------------------------
# The data model


@dataclass(frozen=True)
class TriggerSpec:
    """A triggered ability: ``effect`` is the validated effect as a plain dict tree."""

    when: str
    effect: Mapping[str, Any]
    targets: str | tuple[str, ...] | None


@dataclass(frozen=True)
class UnitSpec:
    """A unit on the board in the setup."""

    id: str
    name: str | None
    controller: str
    might: int
    at: str
    exhausted: bool
    stunned: bool
    damage: int
    keywords: tuple[str, ...]
    triggers: tuple[TriggerSpec, ...]


@dataclass(frozen=True)
class UnitTemplate:
    """What a unit card puts on the board."""

    might: int
    keywords: tuple[str, ...]
    triggers: tuple[TriggerSpec, ...]


@dataclass(frozen=True)
class CardSpec:
    """A card in hand: a spell (with ``effect``) or a unit card (with ``unit``)."""

    id: str
    name: str | None
    type: str
    timing: str
    effect: Mapping[str, Any] | None
    unit: UnitTemplate | None


@dataclass(frozen=True)
class BattlefieldSpec:
    """A battlefield in the setup."""

    id: str
    name: str | None
    controller: str | None
    scored_this_turn: tuple[str, ...]
    abilities: tuple[TriggerSpec, ...]


@dataclass(frozen=True)
class Step:
    """One step of the scenario; ``index`` is its 1-based position in ``steps``.

    ``args`` by kind: move -> ``{"player", "units": tuple, "to"}``; play -> ``{"player", "card",
    "targets": tuple, "to": str | None}``; pass/add/end_turn -> the player id; choose ->
    ``{"player", "battlefield"}``; assign -> ``{"player", "damage": {unit: int}}``; expect -> the
    expected state as plain dicts and lists; expect_error -> the nested :class:`Step` (same index).
    """

    kind: str
    args: Any
    line: int | None
    index: int

    def as_mapping(self) -> dict[str, Any]:
        """The step as a plain ``{kind: payload}`` dict in the file's shape (JSON-friendly):
        an action step as :func:`~engine.action_types.to_step` writes its action."""
        if self.kind == "expect_error":
            return {self.kind: self.args.as_mapping()}
        if self.kind == "expect":
            return {self.kind: copy.deepcopy(self.args)}
        return to_step(from_step(self.kind, self.args))


@dataclass(frozen=True)
class Scenario:
    """A validated scenario with every default filled in.

    ``scores``, ``deck`` and ``hands`` list every player, in turn order.
    """

    path: str
    name: str
    rules: str
    players: tuple[str, ...]
    teams: tuple[tuple[str, ...], ...] | None
    turn_player: str
    victory_score: int
    manual_damage: bool
    scores: dict[str, int]
    deck: dict[str, int]
    battlefields: tuple[BattlefieldSpec, ...]
    units: tuple[UnitSpec, ...]
    hands: dict[str, tuple[CardSpec, ...]]
    steps: tuple[Step, ...]

    def with_rules(self, profile: str) -> Scenario:
        """A copy of this scenario under another rules profile (``seed`` or ``cr-1.4``)."""
        if profile not in PROFILES:
            raise ValueError(f"unknown rules profile {profile!r}; expected one of {PROFILES}")
        return dataclasses.replace(self, rules=profile)


# --------------------------------------------------------------------------------------------
# How errors show values and field paths

def decimal_digits_readable(value: int) -> bool:
    """Whether Python writes ``value`` in decimal: it refuses a number of more digits than
    ``sys.get_int_max_str_digits()`` (4,300 by default) either way, to text or from it."""
    limit = sys.get_int_max_str_digits()
    # fewer than 3 bits a digit: below 8 ** limit, so below 10 ** limit, with no big power
    return not limit or abs(value).bit_length() <= 3 * limit or abs(value) < 10 ** limit


#: Longer names and keys are cut short in messages and fields: a message stays readable.
SHOWN_CHARS = 40


def cut_short(text: str) -> str:
    """A long name or key cut short, as a message shows it."""
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "..."


def quoted(value: Any) -> str:
    """``value`` as a message quotes it: ``repr``, a long string cut short (``'abc...'``);
    YAML's own words for null and the booleans, which a file wrote (as a key, say)."""
    if isinstance(value, str):
        return repr(cut_short(value))
    if value is None or isinstance(value, bool):
        return _YAML_WORDS[value]
    if isinstance(value, datetime.date):  # YAML reads 2020-01-01 as a date
        return value.isoformat()
    return cut_short(repr(value))


_YAML_WORDS = {None: "null", True: "true", False: "false"}


def join_path(path: str, key: Any) -> str:
    """The dotted path of ``key`` under ``path``: ``units[2]`` and ``might`` give
    ``units[2].might``."""
    name = cut_short(key) if isinstance(key, str) else quoted(key)
    return f"{path}.{name}" if path else name
