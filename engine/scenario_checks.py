"""Checking a scenario field by field and building its :class:`Scenario` (every error a
:class:`~engine.errors.ScenarioError` naming the field as a dotted path and its line): the
setup here, the steps in :mod:`engine.scenario_steps`, the checks both use in
:mod:`engine.scenario_fields`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.effect_needs import Destination, needs
from engine.scenario_fields import At, listed, plain
from engine.scenario_model import (
    AMOUNT_EFFECTS,
    BATTLEFIELD_EVENTS,
    CARD_TYPES,
    DEFAULT_DECK,
    DEFAULT_TEAM_VICTORY_SCORE,
    DEFAULT_VICTORY_SCORE,
    EFFECTS,
    EVENTS,
    KEYWORDS,
    SELECTORS,
    TARGETED_EFFECTS,
    TIMINGS,
    UNIT_EVENTS,
    BattlefieldSpec,
    CardSpec,
    Scenario,
    TriggerSpec,
    UnitSpec,
    UnitTemplate,
    quoted,
)
from engine.scenario_steps import StepChecks
from engine.state import PROFILES


def alternating_teams(players: tuple[str, ...] | list[str]) -> set[frozenset[str]]:
    """The only teams the rules of teams assume: two, alternating in turn order."""
    return {frozenset(players[0::2]), frozenset(players[1::2])}


class Checker(StepChecks):
    """Validates one scenario and builds its :class:`Scenario`.

    The setup is read in a fixed order (players, battlefields, units, hands); checks that a name
    refers to a known unit or battlefield are deferred to the end of the setup, since effects may
    name units that a later card or ``play_unit`` creates. Steps are checked against all ids.
    """

    def scenario(self, data: Any) -> Scenario:
        """Validate the whole scenario ``data`` and build it."""
        root = At("", getattr(data, "line", None))
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

    def read_players(self, value: Any, at: At) -> tuple[str, ...]:
        items = self.sequence(value, at)
        if not 2 <= len(items) <= 4:
            self.fail(at, f"expected 2 to 4 players, got {len(items)}")
        return tuple(self.new_id(item, at.item(items, index)) for index, item in enumerate(items))

    def read_teams(self, value: Any, at: At) -> tuple[tuple[str, ...], ...]:
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
            for place, player in enumerate(result[-1]):
                if any(player in team for team in result[:-1]):
                    self.fail(where.item(members, place), f"{quoted(player)} is in two teams")
        if {frozenset(team) for team in result} != alternating_teams(self.players):
            first, second = self.players[0::2], self.players[1::2]
            self.fail(at, "teams must alternate in turn order: "
                          f"[[{listed(first)}], [{listed(second)}]]")
        return tuple(result)

    def per_player(self, mapping: Mapping, key: str, at: At, default: int) -> dict[str, int]:
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

    def read_battlefields(self, value: Any, at: At) -> tuple[BattlefieldSpec, ...]:
        items = self.sequence(value, at)
        if not 1 <= len(items) <= 4:
            self.fail(at, f"expected 1 to 4 battlefields, got {len(items)}")
        for index, item in enumerate(items):  # register every id first: abilities may name them
            where = at.item(items, index)
            entry = self.mapping(item, where)
            self.keys(entry, where, required=("id",),
                      optional=("name", "controller", "scored_this_turn", "abilities"))
            self.battlefields[self.new_id(*self.field(entry, "id", where))] = None
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

    def read_units(self, value: Any, at: At) -> tuple[UnitSpec, ...]:
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

    def check_occupancy(self, top: Mapping, root: At, units: tuple[UnitSpec, ...]) -> None:
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
                              f"{listed(map(quoted, controllers[:3]))}")
            if self.teams and any(set(controllers) <= set(team) for team in self.teams):
                self.fail(at, f"teammates' units at {quoted(battlefield)}: "
                              f"{quoted(controllers[0])} and {quoted(controllers[1])}")
            self.fail(at, f"units of two opposing players at {quoted(battlefield)}: "
                          f"{quoted(controllers[0])} and {quoted(controllers[1])}")

    def check_teammate_battlefields(self, top: Mapping, root: At, units: tuple[UnitSpec, ...],
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

    def read_keywords(self, value: Any, at: At) -> tuple[str, ...]:
        return self.distinct(self.sequence(value, at), at,
                             lambda item, where: self.choice(item, where, KEYWORDS))

    def read_hands(self, value: Any, at: At) -> dict[str, tuple[CardSpec, ...]]:
        hands = self.mapping(value, at)
        result = {}
        for player, cards in hands.items():
            where = at.key(hands, player)
            self.player(player, where)
            items = () if cards is None else self.sequence(cards, where)  # null: no cards (D33)
            result[player] = tuple(self.read_card(card, where.item(items, index))
                                   for index, card in enumerate(items))
        return result

    def read_card(self, value: Any, at: At) -> CardSpec:
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

    def read_template(self, value: Any, at: At) -> UnitTemplate:
        entry = self.mapping(value, at)
        self.keys(entry, at, required=("might",), optional=("keywords", "triggers"))
        return UnitTemplate(
            might=self.integer(*self.field(entry, "might", at)),
            keywords=self.optional(entry, "keywords", at, (), self.read_keywords),
            triggers=self.optional(entry, "triggers", at, (), self.read_triggers))

    # ---- triggers and effects ------------------------------------------------------------

    def read_triggers(self, value: Any, at: At) -> tuple[TriggerSpec, ...]:
        """A unit's (or a unit card's) triggered abilities."""
        return self.each(value, at, lambda item, where: self.read_trigger(item, where, "unit"))

    def read_abilities(self, value: Any, at: At) -> tuple[TriggerSpec, ...]:
        """A battlefield's triggered abilities."""
        return self.each(value, at,
                         lambda item, where: self.read_trigger(item, where, "battlefield"))

    def read_trigger(self, value: Any, at: At, source: str) -> TriggerSpec:
        """One triggered ability of a ``source`` ("unit" or "battlefield"): an event that
        happens to such a source, so that it can fire."""
        entry = self.mapping(value, at)
        self.keys(entry, at, required=("when", "effect"), optional=("targets",))
        when = self.choice(*self.field(entry, "when", at), EVENTS)
        events = UNIT_EVENTS if source == "unit" else BATTLEFIELD_EVENTS
        if when not in events:
            self.fail(at.key(entry, "when"), f"{quoted(when)} never happens to a {source}, so "
                      f"this would never fire; a {source}'s events: {listed(events)}")
        effect = self.effect(*self.field(entry, "effect", at))
        targets, where = self.field(entry, "targets", at)
        if targets is not None and not isinstance(targets, (list, tuple)):
            if not isinstance(targets, str) or targets not in SELECTORS:
                self.fail(where, f"expected {listed(SELECTORS)} or a list of unit ids")
            if targets == "self" and source == "battlefield":
                self.fail(where, "'self' is the unit that has the ability: a battlefield's "
                                 "ability names its units, or enemies_here")
        elif targets is not None:
            targets = self.units_list(targets, where, allow_empty=True)
        self.check_trigger_needs(effect, targets, at.key(entry, "effect"), where)
        return TriggerSpec(when=when, effect=effect, targets=targets)

    def check_trigger_needs(self, effect: dict[str, Any], targets: Any, at: At,
                            targets_at: At) -> None:
        """A trigger has no play step to give its effect units or a destination: an effect
        that takes its units from the play needs the trigger's ``targets``, naming a unit or a
        selector, and a move needs its own ``to`` (else it could never do anything)."""
        wants_targets, wants_to = needs(effect)
        if wants_targets and targets is None:
            self.fail(at, "this effect takes its units from the play, which a trigger does not "
                          "have: give the trigger 'targets' or the effect 'units'")
        if wants_targets and targets == ():
            self.fail(targets_at, "names no unit, so the trigger's effect could never act: "
                                  "name one, or a selector")
        if wants_to == Destination.MUST:
            self.fail(at, "a trigger's move needs its own 'to': no play step chooses it")

    def effect(self, value: Any, at: At) -> dict[str, Any]:
        """Validate an effect; return it as a plain dict tree."""
        entry, kind, argument, where = self.one_key(value, at, "an effect", EFFECTS)
        if kind not in EFFECTS:
            self.fail(where, f"unknown effect {quoted(kind)}; expected one of: {listed(EFFECTS)}")
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
            # a `play` trigger may fire: the unit can return to a hand and be played
            self.optional(argument, "triggers", where, (), self.read_triggers)
            self.optional(argument, "to", where, None, self.destination)
        else:  # sequence
            items = self.sequence(argument, where)
            entry = {kind: [self.effect(item, where.item(items, index))
                            for index, item in enumerate(items)]}
        # what reads an effect (the rules, the search) takes a key that is there as given
        return plain(entry, drop_nulls=True)
