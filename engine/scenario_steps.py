"""Checking a scenario's steps: the players' actions and the expected state views."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from engine.action_types import ACTION_STEPS, PLAYER_STEPS, STEP_FIELDS, STEP_OPTIONAL
from engine.scenario_fields import At, FieldChecks, listed, plain
from engine.scenario_model import (
    CHOICE_KINDS,
    DESIGNATIONS,
    EVENTS,
    EXPECT_KEYS,
    GAME_STATES,
    MAX_STEPS,
    SHOWDOWN_KINDS,
    STAGED_KINDS,
    STEP_KINDS,
    UNIT_STATE_KEYS,
    Step,
    quoted,
)
from engine.state import OFF_BOARD, PHASES

K = TypeVar("K")
V = TypeVar("V")


class StepChecks(FieldChecks):
    """The checks of ``steps``: each step's kind and arguments, and every key of an ``expect``."""

    def read_steps(self, value: Any, at: At) -> tuple[Step, ...]:
        items = self.sequence(value, at)
        if len(items) > MAX_STEPS:
            self.fail(at, f"more than {MAX_STEPS} steps ({len(items)})")
        return tuple(self.step(item, at.item(items, index), index + 1)
                     for index, item in enumerate(items))

    def step(self, value: Any, at: At, index: int, nested: bool = False) -> Step:
        kinds = ACTION_STEPS if nested else STEP_KINDS
        _, kind, payload, where = self.one_key(value, at, "a step", kinds)
        if kind not in kinds:
            problem = ("expect_error holds one action step" if kind in STEP_KINDS
                       else f"unknown step {quoted(kind)}")
            self.fail(where, f"{problem}; expected one of: {listed(kinds)}")
        args: Any
        if kind in PLAYER_STEPS:
            args = self.player_ref(payload, where)
        elif kind == "move":
            move = self.step_fields(payload, where, "move")
            args = {"player": self.player_ref(*self.field(move, "player", where)),
                    "units": self.unit_refs(*self.field(move, "units", where)),
                    "to": self.place_ref(*self.field(move, "to", where))}
        elif kind == "play":
            play = self.step_fields(payload, where, "play")
            args = {"player": self.player_ref(*self.field(play, "player", where)),
                    "card": self.step_ref(*self.field(play, "card", where), "card"),
                    "targets": self.optional(play, "targets", where, (), self.unit_refs),
                    "to": self.optional(play, "to", where, None, self.place_ref)}
        elif kind == "choose":
            choose = self.step_fields(payload, where, "choose")
            args = {"player": self.player_ref(*self.field(choose, "player", where)),
                    "battlefield": self.step_ref(*self.field(choose, "battlefield", where),
                                                 "battlefield")}
        elif kind == "assign":
            assign = self.step_fields(payload, where, "assign")
            args = {"player": self.player_ref(*self.field(assign, "player", where)),
                    "damage": self.unit_amounts(*self.field(assign, "damage", where))}
        elif kind == "expect":
            args = self.expect(payload, where)
        else:  # expect_error
            args = self.step(payload, where, index, nested=True)
        return Step(kind=kind, args=args, line=at.line, index=index)

    def step_fields(self, payload: Any, at: At, kind: str) -> Mapping:
        """The mapping of a step that has fields (all but pass, add and end_turn): its
        required fields there, and no others."""
        wanted = STEP_FIELDS[kind]
        optional = STEP_OPTIONAL.get(kind, ())
        fields = self.mapping(payload, at, (*wanted, *optional))
        self.keys(fields, at, required=wanted, optional=optional)
        return fields

    # An action step names ids of the file; whether each is the kind of thing the action
    # needs (a target that is a spell in hand, a move to a unit) is the rules' to judge, as
    # the Python API's actions are: the step is refused, citing the rule (D15)

    def step_ref(self, value: Any, at: At, what: str,
                 allowed: Callable[[], Iterable[str]] | None = None) -> str:
        """An id of the file, named where an action wants a ``what`` (an unknown one is said
        with ``allowed()``, where given)."""
        ident = self.id_text(value, at)
        self.check_ref(ident, at, self.ids.__contains__, what, allowed)
        return ident

    def player_ref(self, value: Any, at: At) -> str:
        """The player a step names: a player, or another id of the file (refused when
        played); an id the file lacks is said with the players' names."""
        if isinstance(value, str) and value in self.ids and value not in self.players:
            return value
        return self.player(value, at)

    def place_ref(self, value: Any, at: At) -> str:
        """A step's destination: ``base``, or an id of the file."""
        if value == "base":
            return "base"
        return self.step_ref(value, at, "battlefield", lambda: ("base", *self.battlefields))

    def unit_refs(self, value: Any, at: At) -> tuple[str, ...]:
        """Units a step names; whether the list is empty, names one twice or names something
        else is for the rules to judge (the step is refused), not a fault of the file."""
        return self.each(value, at, lambda item, where: self.step_ref(item, where, "unit"))

    def unit_amounts(self, value: Any, at: At) -> dict[str, int]:
        amounts = self.mapping(value, at)
        result = {}
        for unit, amount in amounts.items():
            where = at.key(amounts, unit)
            result[self.step_ref(unit, where, "unit")] = self.integer(amount, where)
        return result

    # ---- expect --------------------------------------------------------------------------

    def expect(self, value: Any, at: At) -> dict[str, Any]:
        """Validate an expected (partial) state view; return it as plain dicts and lists."""
        entry = self.mapping(value, at)
        self.keys(entry, at, optional=EXPECT_KEYS)
        lists: dict[str, dict[str, tuple[str, ...]]] = {}  # with null read as [] (D38)
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
                lists[key] = self.keyed(item, where, self.battlefield, self.expected_staged)
            elif key in ("score", "hand", "deck"):
                self.keyed(item, where, self.player, self.expected_count)
            elif key == "scored_this_turn":
                lists[key] = self.keyed(item, where, self.battlefield, self.expected_players)
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
        expected = plain(entry)
        expected.update((key, plain(value)) for key, value in lists.items())
        return expected

    def keyed(self, value: Any, at: At, check_key: Callable[[Any, At], K],
              check_value: Callable[[Any, At], V]) -> dict[K, V]:
        """A mapping whose keys pass ``check_key`` and values pass ``check_value``: what the
        checks return, key by key."""
        entry = self.mapping(value, at)
        checked = {}
        for key, item in entry.items():
            where = at.key(entry, key)
            checked[check_key(key, where)] = check_value(item, where)
        return checked

    def player_list(self, value: Any, at: At) -> tuple[str, ...]:
        return self.distinct(self.sequence(value, at), at, self.player)

    # An expected list may name a value twice: it is compared whole with the view, which never
    # repeats one, so such an expect fails (exit 1) rather than making the file invalid.
    # A battlefield's entry in `staged` or `scored_this_turn` is a list; null is read as the
    # empty list (scenario-format.md: these mappings show "[] or null when empty"; D38)
    def expected_players(self, value: Any, at: At) -> tuple[str, ...]:
        return () if value is None else self.each(value, at, self.player)

    def expected_staged(self, value: Any, at: At) -> tuple[str, ...]:
        if value is None:
            return ()
        return self.each(value, at, lambda item, where: self.choice(item, where, STAGED_KINDS))

    def expect_showdown(self, value: Any, at: At) -> None:
        showdown = self.mapping(value, at)
        self.keys(showdown, at, optional=("at", "kind", "attacker", "defender"))
        if "at" in showdown:
            self.battlefield(*self.field(showdown, "at", at))
        if "kind" in showdown:
            self.choice(*self.field(showdown, "kind", at), SHOWDOWN_KINDS)
        for side in ("attacker", "defender"):
            if side in showdown:
                self.player_or_null(*self.field(showdown, side, at))

    def chain_item(self, value: Any, at: At) -> None:
        """A card or unit id, ``SOURCE:EVENT`` or ``add:PLAYER``."""
        item = self.string(value, at)
        source, colon, rest = item.partition(":")
        if not colon:
            if item not in self.cards and item not in self.units:
                why = self.not_a("card", item)
                self.fail(at, why if item in self.ids else f"{why} on the chain")
        elif source == "add" and rest in self.players:
            pass
        elif source in self.units or source in self.battlefields or source in self.cards:
            if rest not in EVENTS:
                self.fail(at, f"unknown event {quoted(rest)}; expected one of: {listed(EVENTS)}")
        else:
            self.fail(at, f"expected CARD, SOURCE:EVENT or add:PLAYER with known ids, "
                          f"got {quoted(item)}")

    def expect_unit(self, value: Any, at: At) -> None:
        unit = self.mapping(value, at)
        self.keys(unit, at, optional=UNIT_STATE_KEYS)
        for key, item in unit.items():
            where = at.key(unit, key)
            if key == "at":
                self.battlefield(item, where, ("base", *OFF_BOARD))
            elif key == "controller":
                self.player_or_null(item, where)
            elif key in ("exhausted", "stunned"):
                self.boolean(item, where)
            elif key in ("damage", "might"):
                self.expected_count(item, where)
            elif item is not None:  # designation: null for none, as the view shows it
                self.choice(item, where, DESIGNATIONS, or_null=True)

    def expect_choice(self, value: Any, at: At) -> None:
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

            def option(item: Any, at: At) -> str:
                ident = self.id_text(item, at)
                fits_battlefield = kind != "damage" and ident in self.battlefields
                fits_unit = kind != "battlefield" and ident in self.units
                if not (fits_battlefield or fits_unit):
                    what = {"battlefield": "battlefield", "damage": "unit"}.get(
                        kind or "", "battlefield or unit")
                    self.fail(at, self.not_a(what, ident))
                return ident

            self.each(options, where, option)  # a repeated option fails, as a list does
