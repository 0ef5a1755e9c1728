"""Checking a scenario field by field and building its :class:`Scenario` (every error a
:class:`~engine.errors.ScenarioError` naming the field as a dotted path and its line)."""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, NoReturn, TypeVar

from engine.effect_needs import Destination, needs
from engine.errors import ScenarioError
from engine.scenario_model import (
    AMOUNT_EFFECTS,
    BATTLEFIELD_EVENTS,
    CARD_TYPES,
    CHOICE_KINDS,
    DEFAULT_DECK,
    DEFAULT_TEAM_VICTORY_SCORE,
    DEFAULT_VICTORY_SCORE,
    DESIGNATIONS,
    EFFECTS,
    EVENTS,
    EXPECT_KEYS,
    GAME_STATES,
    KEYWORDS,
    MAX_INT,
    MAX_STEPS,
    PLAYER_STEPS,
    RESERVED_IDS,
    SELECTORS,
    SHOWDOWN_KINDS,
    STAGED_KINDS,
    STEP_KINDS,
    TARGETED_EFFECTS,
    TIMINGS,
    UNIT_EVENTS,
    UNIT_STATE_KEYS,
    BattlefieldSpec,
    CardSpec,
    Scenario,
    Step,
    TriggerSpec,
    UnitSpec,
    UnitTemplate,
    cut_short,
    join_path,
    quoted,
)
from engine.state import PHASES, PROFILES

T = TypeVar("T")


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        # shown: YAML reads some numbers as strings ('1e0', '0x1g'), which "a string" hides
        return f"a string, {quoted(value)}"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, (list, tuple)):
        return "a list"
    return f"a {type(value).__name__}"


def _plain(value: Any, drop_nulls: bool = False) -> Any:
    """A deep copy of a validated value with plain dicts and lists; ``drop_nulls`` leaves out
    the keys given as null, which are keys not given (D33)."""
    if isinstance(value, Mapping):
        return {key: _plain(item, drop_nulls) for key, item in value.items()
                if not (drop_nulls and item is None)}
    if isinstance(value, (list, tuple)):
        return [_plain(item, drop_nulls) for item in value]
    return value


def _options(options: Iterable[str]) -> str:
    return ", ".join(cut_short(option) for option in options)


@dataclass(frozen=True, slots=True)
class _At:
    """Where a value is: its dotted path and its line (the nearest known)."""

    path: str
    line: int | None

    def key(self, parent: Any, key: Any) -> _At:
        lines = getattr(parent, "key_lines", None)
        line = lines.get(key, self.line) if lines else self.line
        return _At(join_path(self.path, key), line)

    def item(self, parent: Any, index: int) -> _At:
        lines = getattr(parent, "item_lines", None)
        line = lines[index] if lines is not None and index < len(lines) else self.line
        return _At(f"{self.path}[{index}]", line)


class Checker:
    """Validates one scenario and builds its :class:`Scenario`.

    The setup is read in a fixed order (players, battlefields, units, hands); checks that a name
    refers to a known unit or battlefield are deferred to the end of the setup, since effects may
    name units that a later card or ``play_unit`` creates. Steps are checked against all ids.
    """

    def __init__(self, label: str) -> None:
        self.label = label
        self.ids: dict[str, str] = {}  # every id -> the field that defined it
        self.players: tuple[str, ...] = ()
        self.teams: tuple[tuple[str, ...], ...] | None = None
        self.battlefields: set[str] = set()
        self.units: set[str] = set()  # ids that can be a unit: setup units, unit cards, play_unit
        self.cards: set[str] = set()
        self.deferred: list[Callable[[], None]] | None = []

    # ---- basics --------------------------------------------------------------------------

    def fail(self, at: _At, message: str) -> NoReturn:
        raise ScenarioError(self.label, at.path or "<root>", message, at.line)

    def mapping(self, value: Any, at: _At) -> Mapping:
        if not isinstance(value, Mapping):
            self.fail(at, f"expected a mapping, got {_kind(value)}")
        return value

    def sequence(self, value: Any, at: _At) -> list | tuple:
        if not isinstance(value, (list, tuple)):
            self.fail(at, f"expected a list, got {_kind(value)}")
        return value

    def keys(self, mapping: Mapping, at: _At, required: Iterable[str] = (),
             optional: Iterable[str] = ()) -> None:
        """Refuse unknown keys, then missing required keys."""
        required = tuple(required)
        allowed = (*required, *optional)
        for key in mapping:
            if key not in allowed:
                self.fail(at.key(mapping, key),
                          f"unknown key {quoted(key)}; expected one of: {_options(allowed)}")
        for key in required:
            if key not in mapping:
                self.fail(at.key(mapping, key), "required key missing")

    def one_key(self, value: Any, at: _At, what: str, options: tuple[str, ...]
                ) -> tuple[Mapping, Any, Any, _At]:
        """A mapping with exactly one key, as an effect and a step are: the mapping, its key,
        that key's value and where it is. ``what`` and ``options`` only word the error; the
        caller checks the key."""
        entry = self.mapping(value, at)
        if len(entry) != 1:
            self.fail(at, f"{what} has exactly one key (one of: {_options(options)}), "
                          f"got {len(entry)}")
        ((key, item),) = entry.items()
        return entry, key, item, at.key(entry, key)

    def field(self, mapping: Mapping, key: str, at: _At) -> tuple[Any, _At]:
        return mapping.get(key), at.key(mapping, key)

    def string(self, value: Any, at: _At) -> str:
        if not isinstance(value, str):
            self.fail(at, f"expected a string, got {_kind(value)}")
        return value

    def optional_name(self, mapping: Mapping, at: _At) -> str | None:
        """A display name: absent or null for none, else a string with more than spaces (D15:
        an empty name is refused, as the scenario's is)."""
        value, where = self.field(mapping, "name", at)
        return None if value is None else self.name(value, where)

    def name(self, value: Any, at: _At) -> str:
        text = self.string(value, at)
        if not text.strip():
            self.fail(at, "the name must not be empty")
        return text

    def boolean(self, value: Any, at: _At) -> bool:
        if not isinstance(value, bool):
            self.fail(at, f"expected true or false, got {_kind(value)}")
        return value

    def integer(self, value: Any, at: _At, low: int = 0, high: int = MAX_INT) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(at, f"expected an integer, got {_kind(value)}")
        if not low <= value <= high:
            self.fail(at, f"must be from {low} to {high}")
        return value

    def expected_count(self, value: Any, at: _At) -> int:
        """A count in an ``expect``: any integer from 0, as the game's counts can grow past the
        setup's limit (points gained, cards drawn, damage dealt as it runs)."""
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(at, f"expected an integer, got {_kind(value)}")
        if value < 0:
            self.fail(at, "must be 0 or more")
        return value

    def choice(self, value: Any, at: _At, options: tuple[str, ...]) -> str:
        if not isinstance(value, str) or value not in options:
            shown = quoted(value) if isinstance(value, str) else _kind(value)
            self.fail(at, f"expected one of: {_options(options)}; got {shown}")
        return value

    def each(self, value: Any, at: _At, check: Callable[[Any, _At], T]) -> tuple[T, ...]:
        """A list whose every item passes ``check`` (at its own place in the file)."""
        items = self.sequence(value, at)
        return tuple(check(item, at.item(items, index)) for index, item in enumerate(items))

    def distinct(self, items: list | tuple, at: _At, check: Callable[[Any, _At], str]
                 ) -> tuple[str, ...]:
        """A list of values passing ``check``, each at most once."""
        result: list[str] = []
        for index, item in enumerate(items):
            where = at.item(items, index)
            value = check(item, where)
            if value in result:
                self.fail(where, f"{quoted(value)} is listed twice")
            result.append(value)
        return tuple(result)

    # ---- ids -----------------------------------------------------------------------------

    def id_text(self, value: Any, at: _At) -> str:
        if not isinstance(value, str):
            # YAML reads an unquoted 12, yes or 2024-01-01 as a number, boolean or date
            hint = " (quote it)" if isinstance(value, int | float | datetime.date) else ""
            self.fail(at, f"an id must be a string, got {_kind(value)}{hint}")
        if not value.strip():
            self.fail(at, "an id must not be empty or only spaces" if value else
                      "an id must not be empty")
        if value in RESERVED_IDS:
            self.fail(at, f"{quoted(value)} is reserved and cannot be an id")
        if ":" in value:
            self.fail(at, f"an id must not contain ':' ({quoted(value)})")
        return value

    def new_id(self, value: Any, at: _At) -> str:
        ident = self.id_text(value, at)
        if ident in self.ids:
            self.fail(at, f"duplicate id {quoted(ident)} (already used at {self.ids[ident]})")
        self.ids[ident] = at.path
        return ident

    def check_ref(self, ident: str, at: _At, known: Callable[[str], bool], what: str) -> None:
        def check() -> None:
            if not known(ident):
                self.fail(at, f"unknown {what} {quoted(ident)}")

        if self.deferred is None:
            check()
        else:
            self.deferred.append(check)

    def player(self, value: Any, at: _At) -> str:
        ident = self.id_text(value, at)
        if ident not in self.players:
            self.fail(at, f"unknown player {quoted(ident)}; players are: {_options(self.players)}")
        return ident

    def player_or_null(self, value: Any, at: _At) -> str | None:
        return None if value is None else self.player(value, at)

    def battlefield(self, value: Any, at: _At) -> str:
        ident = self.id_text(value, at)
        self.check_ref(ident, at, self.battlefields.__contains__, "battlefield")
        return ident

    def destination(self, value: Any, at: _At) -> str:
        """A battlefield id or ``base``."""
        if value == "base":
            return "base"
        return self.battlefield(value, at)

    def unit(self, value: Any, at: _At) -> str:
        ident = self.id_text(value, at)
        self.check_ref(ident, at, self.units.__contains__, "unit")
        return ident

    def unit_refs(self, value: Any, at: _At) -> tuple[str, ...]:
        """Units a step names: each a known unit; whether the list is empty or names one twice
        is for the rules to judge (the step is refused), not a fault of the file."""
        return self.each(value, at, self.unit)

    def units_list(self, value: Any, at: _At, *, allow_empty: bool = False) -> tuple[str, ...]:
        items = self.sequence(value, at)
        if not items and not allow_empty:
            self.fail(at, "expected at least one unit")
        return self.distinct(items, at, self.unit)

    # ---- setup ---------------------------------------------------------------------------

    def scenario(self, data: Any) -> Scenario:
        """Validate the whole scenario ``data`` and build it."""
        root = _At("", getattr(data, "line", None))
        top = self.mapping(data, root)
        self.keys(top, root, required=("name", "players", "battlefields"), optional=(
            "rules", "teams", "turn_player", "victory_score", "manual_damage", "scores", "deck",
            "units", "hands", "steps"))
        name = self.name(*self.field(top, "name", root))
        rules = self.optional(top, "rules", root, "seed",
                              lambda value, at: self.choice(value, at, PROFILES))
        self.players = self.read_players(*self.field(top, "players", root))
        self.teams = self.optional(top, "teams", root, None, self.read_teams)
        turn_player = self.optional(top, "turn_player", root, self.players[0], self.player)
        default_victory = DEFAULT_TEAM_VICTORY_SCORE if self.teams else DEFAULT_VICTORY_SCORE
        victory_score = self.optional(top, "victory_score", root, default_victory,
                                      lambda value, at: self.integer(value, at, low=1))
        manual_damage = self.optional(top, "manual_damage", root, False, self.boolean)
        scores = self.per_player(top, "scores", root, 0)
        deck = self.per_player(top, "deck", root, DEFAULT_DECK)
        battlefields = self.read_battlefields(*self.field(top, "battlefields", root))
        units = self.optional(top, "units", root, (), self.read_units)
        hands = self.optional(top, "hands", root, {}, self.read_hands)

        deferred, self.deferred = self.deferred or [], None
        for check in deferred:
            check()
        if units:
            self.check_occupancy(top, root, units)
            self.check_teammate_battlefields(top, root, units, battlefields)

        steps = self.optional(top, "steps", root, (), self.read_steps)
        return Scenario(
            path=self.label, name=name, rules=rules, players=self.players, teams=self.teams,
            turn_player=turn_player, victory_score=victory_score, manual_damage=manual_damage,
            scores=scores, deck=deck, battlefields=battlefields, units=units,
            hands={player: hands.get(player, ()) for player in self.players}, steps=steps)

    def optional(self, mapping: Mapping, key: str, at: _At, default: Any,
                 read: Callable[[Any, _At], Any]) -> Any:
        """``read`` the value of an optional key, or ``default`` when absent or null."""
        value, where = self.field(mapping, key, at)
        return default if value is None else read(value, where)

    def read_players(self, value: Any, at: _At) -> tuple[str, ...]:
        items = self.sequence(value, at)
        if not 2 <= len(items) <= 4:
            self.fail(at, f"expected 2 to 4 players, got {len(items)}")
        return tuple(self.new_id(item, at.item(items, index)) for index, item in enumerate(items))

    def read_teams(self, value: Any, at: _At) -> tuple[tuple[str, ...], ...]:
        teams = self.sequence(value, at)
        if len(self.players) != 4:
            self.fail(at, "teams need exactly four players")
        if len(teams) != 2:
            self.fail(at, f"expected two teams, got {len(teams)}")
        result = []
        for index, team in enumerate(teams):
            where = at.item(teams, index)
            members = self.sequence(team, where)
            if len(members) != 2:
                self.fail(where, f"a team has two players, got {len(members)}")
            result.append(self.distinct(members, where, self.player))
        wanted = {frozenset(self.players[0::2]), frozenset(self.players[1::2])}
        if {frozenset(team) for team in result} != wanted:
            first, second = self.players[0::2], self.players[1::2]
            self.fail(at, "teams must alternate in turn order: "
                          f"[[{_options(first)}], [{_options(second)}]]")
        return tuple(result)

    def per_player(self, mapping: Mapping, key: str, at: _At, default: int) -> dict[str, int]:
        value, where = self.field(mapping, key, at)
        result = dict.fromkeys(self.players, default)
        if value is None:
            return result
        given = self.mapping(value, where)
        for player, amount in given.items():
            self.player(player, where.key(given, player))
            if amount is not None:  # null: the default, as for any optional key (D33)
                result[player] = self.integer(amount, where.key(given, player))
        return result

    def read_battlefields(self, value: Any, at: _At) -> tuple[BattlefieldSpec, ...]:
        items = self.sequence(value, at)
        if not 1 <= len(items) <= 4:
            self.fail(at, f"expected 1 to 4 battlefields, got {len(items)}")
        for index, item in enumerate(items):  # register every id first: abilities may name them
            where = at.item(items, index)
            entry = self.mapping(item, where)
            self.keys(entry, where, required=("id",),
                      optional=("name", "controller", "scored_this_turn", "abilities"))
            self.battlefields.add(self.new_id(*self.field(entry, "id", where)))
        result = []
        for index, entry in enumerate(items):
            where = at.item(items, index)
            scored = self.optional(entry, "scored_this_turn", where, (), self.player_list)
            result.append(BattlefieldSpec(
                id=entry["id"], name=self.optional_name(entry, where),
                controller=self.player_or_null(*self.field(entry, "controller", where)),
                scored_this_turn=scored,
                abilities=self.optional(entry, "abilities", where, (), self.read_abilities)))
        return tuple(result)

    def read_units(self, value: Any, at: _At) -> tuple[UnitSpec, ...]:
        items = self.sequence(value, at)
        result = []
        for index, item in enumerate(items):
            where = at.item(items, index)
            entry = self.mapping(item, where)
            self.keys(entry, where, required=("id", "controller", "might", "at"), optional=(
                "name", "exhausted", "stunned", "damage", "keywords", "triggers"))
            ident = self.new_id(*self.field(entry, "id", where))
            self.units.add(ident)
            result.append(UnitSpec(
                id=ident, name=self.optional_name(entry, where),
                controller=self.player(*self.field(entry, "controller", where)),
                might=self.integer(*self.field(entry, "might", where)),
                at=self.destination(*self.field(entry, "at", where)),
                exhausted=self.optional(entry, "exhausted", where, False, self.boolean),
                stunned=self.optional(entry, "stunned", where, False, self.boolean),
                damage=self.optional(entry, "damage", where, 0, self.integer),
                keywords=self.optional(entry, "keywords", where, (), self.read_keywords),
                triggers=self.optional(entry, "triggers", where, (), self.read_triggers)))
        return tuple(result)

    def check_occupancy(self, top: Mapping, root: _At, units: tuple[UnitSpec, ...]) -> None:
        """Refuse units of two players (opponents or teammates) at one battlefield."""
        items = top["units"]
        where = root.key(top, "units")
        present: dict[str, list[str]] = {}
        conflict: dict[str, int] = {}  # the unit that brought the second player, or the third
        for index, unit in enumerate(units):
            if unit.at == "base":
                continue
            controllers = present.setdefault(unit.at, [])
            if unit.controller not in controllers:
                controllers.append(unit.controller)
                if len(controllers) in (2, 3):
                    conflict[unit.at] = index
        for battlefield, index in conflict.items():
            at = where.item(items, index).key(items[index], "at")
            controllers = present[battlefield]
            if len(controllers) >= 3:
                self.fail(at, f"units of three players at {quoted(battlefield)}: "
                              f"{_options(map(quoted, controllers[:3]))}")
            if self.teams and any(set(controllers) <= set(team) for team in self.teams):
                self.fail(at, f"teammates' units at {quoted(battlefield)}: "
                              f"{quoted(controllers[0])} and {quoted(controllers[1])}")
            self.fail(at, f"units of two opposing players at {quoted(battlefield)}: "
                          f"{quoted(controllers[0])} and {quoted(controllers[1])}")

    def check_teammate_battlefields(self, top: Mapping, root: _At, units: tuple[UnitSpec, ...],
                                    battlefields: tuple[BattlefieldSpec, ...]) -> None:
        """Refuse a unit at a battlefield its controller's teammate controls: no game reaches
        it, as a teammate's battlefield is never a destination (rules.md 8, D36)."""
        if not self.teams:
            return
        holder = {b.id: b.controller for b in battlefields}
        items = top["units"]
        where = root.key(top, "units")
        for index, unit in enumerate(units):
            owner = holder.get(unit.at)
            if owner is None or owner == unit.controller:
                continue
            if any({owner, unit.controller} <= set(team) for team in self.teams):
                at = where.item(items, index).key(items[index], "at")
                self.fail(at, f"{quoted(unit.id)} of {quoted(unit.controller)} at "
                              f"{quoted(unit.at)}, which teammate {quoted(owner)} controls")

    def read_keywords(self, value: Any, at: _At) -> tuple[str, ...]:
        return self.distinct(self.sequence(value, at), at,
                             lambda item, where: self.choice(item, where, KEYWORDS))

    def read_hands(self, value: Any, at: _At) -> dict[str, tuple[CardSpec, ...]]:
        hands = self.mapping(value, at)
        result = {}
        for player, cards in hands.items():
            where = at.key(hands, player)
            self.player(player, where)
            items = () if cards is None else self.sequence(cards, where)  # null: no cards (D33)
            result[player] = tuple(self.read_card(card, where.item(items, index))
                                   for index, card in enumerate(items))
        return result

    def read_card(self, value: Any, at: _At) -> CardSpec:
        entry = self.mapping(value, at)
        self.keys(entry, at, required=("id", "type"), optional=("name", "timing", "effect", "unit"))
        ident = self.new_id(*self.field(entry, "id", at))
        self.cards.add(ident)
        card_type = self.choice(*self.field(entry, "type", at), CARD_TYPES)
        timing = self.optional(entry, "timing", at, "none",
                               lambda value, where: self.choice(value, where, TIMINGS))
        effect = template = None
        # a key the card's type does not use may be given as null, as any optional key (D33)
        if card_type == "spell":
            if entry.get("unit") is not None:
                self.fail(at.key(entry, "unit"), "only a unit card has 'unit'")
            if entry.get("effect") is None:
                self.fail(at.key(entry, "effect"), "a spell needs an effect")
            effect = self.effect(*self.field(entry, "effect", at))
        else:
            if entry.get("effect") is not None:
                self.fail(at.key(entry, "effect"), "only a spell has 'effect' (use unit.triggers)")
            if entry.get("unit") is None:
                self.fail(at.key(entry, "unit"), "a unit card needs 'unit: {might: N}'")
            self.units.add(ident)
            template = self.read_template(*self.field(entry, "unit", at))
        return CardSpec(id=ident, name=self.optional_name(entry, at), type=card_type,
                        timing=timing, effect=effect, unit=template)

    def read_template(self, value: Any, at: _At) -> UnitTemplate:
        entry = self.mapping(value, at)
        self.keys(entry, at, required=("might",), optional=("keywords", "triggers"))
        return UnitTemplate(
            might=self.integer(*self.field(entry, "might", at)),
            keywords=self.optional(entry, "keywords", at, (), self.read_keywords),
            triggers=self.optional(entry, "triggers", at, (), self.read_triggers))

    # ---- triggers and effects ------------------------------------------------------------

    def read_triggers(self, value: Any, at: _At) -> tuple[TriggerSpec, ...]:
        """A unit's (or a unit card's) triggered abilities."""
        return self.each(value, at, lambda item, where: self.read_trigger(item, where, "unit"))

    def read_abilities(self, value: Any, at: _At) -> tuple[TriggerSpec, ...]:
        """A battlefield's triggered abilities."""
        return self.each(value, at,
                         lambda item, where: self.read_trigger(item, where, "battlefield"))

    def read_trigger(self, value: Any, at: _At, source: str) -> TriggerSpec:
        """One triggered ability of a ``source`` ("unit" or "battlefield"): an event that
        happens to such a source, so that it can fire."""
        entry = self.mapping(value, at)
        self.keys(entry, at, required=("when", "effect"), optional=("targets",))
        when = self.choice(*self.field(entry, "when", at), EVENTS)
        events = UNIT_EVENTS if source == "unit" else BATTLEFIELD_EVENTS
        if when not in events:
            self.fail(at.key(entry, "when"), f"{quoted(when)} never happens to a {source}, so "
                      f"this would never fire; a {source}'s events: {_options(events)}")
        effect = self.effect(*self.field(entry, "effect", at))
        targets, where = self.field(entry, "targets", at)
        if targets is not None and not isinstance(targets, (list, tuple)):
            if not isinstance(targets, str) or targets not in SELECTORS:
                self.fail(where, f"expected {_options(SELECTORS)} or a list of unit ids")
            if targets == "self" and source == "battlefield":
                self.fail(where, "'self' is the unit that has the ability: a battlefield's "
                                 "ability names its units, or enemies_here")
        elif targets is not None:
            targets = self.units_list(targets, where, allow_empty=True)
        self.check_trigger_needs(effect, targets, at.key(entry, "effect"))
        return TriggerSpec(when=when, effect=effect, targets=targets)

    def check_trigger_needs(self, effect: dict[str, Any], targets: Any, at: _At) -> None:
        """A trigger has no play step to give its effect units or a destination: an effect
        that takes its units from the play needs the trigger's ``targets``, and a move needs
        its own ``to`` (else it could never do anything)."""
        wants_targets, wants_to = needs(effect)
        if wants_targets and targets is None:
            self.fail(at, "this effect takes its units from the play, which a trigger does not "
                          "have: give the trigger 'targets' or the effect 'units'")
        if wants_to == Destination.MUST:
            self.fail(at, "a trigger's move needs its own 'to': no play step chooses it")

    def effect(self, value: Any, at: _At) -> dict[str, Any]:
        """Validate an effect; return it as a plain dict tree."""
        entry, kind, argument, where = self.one_key(value, at, "an effect", EFFECTS)
        if kind not in EFFECTS:
            self.fail(where, f"unknown effect {quoted(kind)}; expected one of: {_options(EFFECTS)}")
        if argument is None and (kind == "move" or kind in TARGETED_EFFECTS):
            # `stun:` with nothing after it: the effect with no keys given (D33)
            entry, argument = {kind: {}}, {}
        if kind == "move":
            argument = self.mapping(argument, where)
            self.keys(argument, where, optional=("units", "to"))
            self.optional(argument, "units", where, (), self.units_list)
            self.optional(argument, "to", where, None, self.destination)
        elif kind in TARGETED_EFFECTS:
            argument = self.mapping(argument, where)
            self.keys(argument, where, optional=("units",))
            self.optional(argument, "units", where, (), self.units_list)
        elif kind in AMOUNT_EFFECTS:
            self.integer(argument, where)
        elif kind == "play_unit":
            argument = self.mapping(argument, where)
            self.keys(argument, where, required=("id", "might"),
                      optional=("name", "keywords", "triggers", "to"))
            self.units.add(self.new_id(*self.field(argument, "id", where)))
            self.optional_name(argument, where)
            self.integer(*self.field(argument, "might", where))
            self.optional(argument, "keywords", where, (), self.read_keywords)
            self.optional(argument, "triggers", where, (), self.read_triggers)
            self.optional(argument, "to", where, None, self.destination)
        else:  # sequence
            items = self.sequence(argument, where)
            entry = {kind: [self.effect(item, where.item(items, index))
                            for index, item in enumerate(items)]}
        # what reads an effect (the rules, the search) takes a key that is there as given
        return _plain(entry, drop_nulls=True)

    # ---- steps ---------------------------------------------------------------------------

    def read_steps(self, value: Any, at: _At) -> tuple[Step, ...]:
        items = self.sequence(value, at)
        if len(items) > MAX_STEPS:
            self.fail(at, f"more than {MAX_STEPS} steps ({len(items)})")
        return tuple(self.step(item, at.item(items, index), index + 1)
                     for index, item in enumerate(items))

    def step(self, value: Any, at: _At, index: int, nested: bool = False) -> Step:
        kinds = tuple(kind for kind in STEP_KINDS
                      if not nested or kind not in ("expect", "expect_error"))
        _, kind, payload, where = self.one_key(value, at, "a step", kinds)
        if kind not in kinds:
            problem = ("expect_error holds one action step" if kind in STEP_KINDS
                       else f"unknown step {quoted(kind)}")
            self.fail(where, f"{problem}; expected one of: {_options(kinds)}")
        args: Any
        if kind in PLAYER_STEPS:
            args = self.player(payload, where)
        elif kind == "move":
            move = self.mapping(payload, where)
            self.keys(move, where, required=("player", "units", "to"))
            args = {"player": self.player(*self.field(move, "player", where)),
                    "units": self.unit_refs(*self.field(move, "units", where)),
                    "to": self.destination(*self.field(move, "to", where))}
        elif kind == "play":
            play = self.mapping(payload, where)
            self.keys(play, where, required=("player", "card"), optional=("targets", "to"))
            card, card_at = self.field(play, "card", where)
            args = {"player": self.player(*self.field(play, "player", where)),
                    "card": self.card_ref(card, card_at),
                    "targets": self.optional(play, "targets", where, (), self.unit_refs),
                    "to": self.optional(play, "to", where, None, self.destination)}
        elif kind == "choose":
            choose = self.mapping(payload, where)
            self.keys(choose, where, required=("player", "battlefield"))
            args = {"player": self.player(*self.field(choose, "player", where)),
                    "battlefield": self.battlefield(*self.field(choose, "battlefield", where))}
        elif kind == "assign":
            assign = self.mapping(payload, where)
            self.keys(assign, where, required=("player", "damage"))
            args = {"player": self.player(*self.field(assign, "player", where)),
                    "damage": self.unit_amounts(*self.field(assign, "damage", where))}
        elif kind == "expect":
            args = self.expect(payload, where)
        else:  # expect_error
            args = self.step(payload, where, index, nested=True)
        return Step(kind=kind, args=args, line=at.line, index=index)

    def card_ref(self, value: Any, at: _At) -> str:
        """A card to play: a card in a hand, or a unit (units return to hands)."""
        ident = self.id_text(value, at)
        if ident not in self.cards and ident not in self.units:
            self.fail(at, f"unknown card {quoted(ident)}")
        return ident

    def unit_amounts(self, value: Any, at: _At) -> dict[str, int]:
        amounts = self.mapping(value, at)
        result = {}
        for unit, amount in amounts.items():
            where = at.key(amounts, unit)
            result[self.unit(unit, where)] = self.integer(amount, where)
        return result

    # ---- expect --------------------------------------------------------------------------

    def expect(self, value: Any, at: _At) -> dict[str, Any]:
        """Validate an expected (partial) state view; return it as plain dicts and lists."""
        entry = self.mapping(value, at)
        self.keys(entry, at, optional=EXPECT_KEYS)
        for key, item in entry.items():
            where = at.key(entry, key)
            if key == "state":
                self.choice(item, where, GAME_STATES)
            elif key == "showdown":
                if item is not None:
                    self.expect_showdown(item, where)
            elif key in ("focus", "priority", "winner"):
                self.player_or_null(item, where)
            elif key == "chain":
                chain = self.sequence(item, where)
                for index, link in enumerate(chain):
                    self.chain_item(link, where.item(chain, index))
            elif key in ("control", "contested"):
                self.keyed(item, where, self.battlefield, self.player_or_null)
            elif key == "staged":
                self.keyed(item, where, self.battlefield, self.expected_staged)
            elif key in ("score", "hand"):
                self.keyed(item, where, self.player, self.expected_count)
            elif key == "scored_this_turn":
                self.keyed(item, where, self.battlefield, self.expected_players)
            elif key == "units":
                self.keyed(item, where, self.unit, self.expect_unit)
            elif key == "pending_choice":
                if item is not None:
                    self.expect_choice(item, where)
            else:  # turn
                turn = self.mapping(item, where)
                self.keys(turn, where, optional=("player", "phase"))
                if "player" in turn:
                    self.player(*self.field(turn, "player", where))
                if "phase" in turn:
                    self.choice(*self.field(turn, "phase", where), PHASES)
        expected = _plain(entry)
        for key in ("staged", "scored_this_turn"):
            if isinstance(expected.get(key), dict):
                expected[key] = {bf: [] if v is None else v for bf, v in expected[key].items()}
        return expected

    def keyed(self, value: Any, at: _At, check_key: Callable[[Any, _At], Any],
              check_value: Callable[[Any, _At], Any]) -> None:
        """A mapping whose keys pass ``check_key`` and values pass ``check_value``."""
        entry = self.mapping(value, at)
        for key, item in entry.items():
            where = at.key(entry, key)
            check_key(key, where)
            check_value(item, where)

    def player_list(self, value: Any, at: _At) -> tuple[str, ...]:
        return self.distinct(self.sequence(value, at), at, self.player)

    # An expected list may name a value twice: it is compared whole with the view, which never
    # repeats one, so such an expect fails (exit 1) rather than making the file invalid.
    # A battlefield's entry in `staged` or `scored_this_turn` is a list; null is read as the
    # empty list (scenario-format.md: these mappings show "[] or null when empty"; D38)
    def expected_players(self, value: Any, at: _At) -> tuple[str, ...]:
        return () if value is None else self.each(value, at, self.player)

    def expected_staged(self, value: Any, at: _At) -> tuple[str, ...]:
        if value is None:
            return ()
        return self.each(value, at, lambda item, where: self.choice(item, where, STAGED_KINDS))

    def expect_showdown(self, value: Any, at: _At) -> None:
        showdown = self.mapping(value, at)
        self.keys(showdown, at, optional=("at", "kind", "attacker", "defender"))
        if "at" in showdown:
            self.battlefield(*self.field(showdown, "at", at))
        if "kind" in showdown:
            self.choice(*self.field(showdown, "kind", at), SHOWDOWN_KINDS)
        for side in ("attacker", "defender"):
            if side in showdown:
                self.player_or_null(*self.field(showdown, side, at))

    def chain_item(self, value: Any, at: _At) -> None:
        """A card or unit id, ``SOURCE:EVENT`` or ``add:PLAYER``."""
        item = self.string(value, at)
        source, colon, rest = item.partition(":")
        if not colon:
            if item not in self.cards and item not in self.units:
                self.fail(at, f"unknown card {quoted(item)} on the chain")
        elif source == "add" and rest in self.players:
            pass
        elif source in self.units or source in self.battlefields or source in self.cards:
            if rest not in EVENTS:
                self.fail(at, f"unknown event {quoted(rest)}; expected one of: {_options(EVENTS)}")
        else:
            self.fail(at, f"expected CARD, SOURCE:EVENT or add:PLAYER with known ids, "
                          f"got {quoted(item)}")

    def expect_unit(self, value: Any, at: _At) -> None:
        unit = self.mapping(value, at)
        self.keys(unit, at, optional=UNIT_STATE_KEYS)
        for key, item in unit.items():
            where = at.key(unit, key)
            if key == "at":
                if item not in ("base", "hand", "trash"):
                    self.battlefield(item, where)
            elif key == "controller":
                self.player_or_null(item, where)
            elif key in ("exhausted", "stunned"):
                self.boolean(item, where)
            elif key in ("damage", "might"):
                self.expected_count(item, where)
            else:  # designation
                if item is not None:
                    self.choice(item, where, DESIGNATIONS)

    def expect_choice(self, value: Any, at: _At) -> None:
        choice = self.mapping(value, at)
        # total: the damage to assign, which the view shows beside the contract's keys
        self.keys(choice, at, optional=("player", "kind", "options", "total"))
        if "total" in choice:
            self.expected_count(*self.field(choice, "total", at))
        if "player" in choice:
            self.player(*self.field(choice, "player", at))
        kind = None
        if "kind" in choice:
            kind = self.choice(*self.field(choice, "kind", at), CHOICE_KINDS)
        if "options" in choice:
            options, where = self.field(choice, "options", at)

            def option(item: Any, at: _At) -> str:
                ident = self.id_text(item, at)
                fits_battlefield = kind != "damage" and ident in self.battlefields
                fits_unit = kind != "battlefield" and ident in self.units
                if not (fits_battlefield or fits_unit):
                    what = {"battlefield": "battlefield", "damage": "unit"}.get(
                        kind or "", "battlefield or unit")
                    self.fail(at, f"unknown {what} {quoted(ident)}")
                return ident

            self.each(options, where, option)  # a repeated option fails, as a list does
