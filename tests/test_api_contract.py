"""The API holds its promises at the edges: bad values get clear errors, and nothing the
caller gets back, or does wrong, changes or breaks the game (docs/embedding.md)."""

from __future__ import annotations

import copy
import enum
import importlib.resources
import pickle
import re
import types
from collections.abc import Callable
from dataclasses import fields, replace
from typing import Any

import pytest
import yaml

from engine import (
    ActionInProgress,
    Add,
    Assign,
    Choose,
    EndTurn,
    Game,
    IllegalAction,
    Move,
    Pass,
    Play,
    actions,
)
from engine.action_types import ACTION_STEPS, from_step, to_step
from engine.actions import ACTION_TYPES
from engine.runtime import CheckedRuntime
from engine.scenario import load_scenario
from engine.snapshot_checks import MAX_SNAPSHOT_DEPTH
from tests.conftest import ROOT

SCENARIOS = ROOT / "scenarios"
MANUAL_DAMAGE = SCENARIOS / "042_combat_manual_damage.yaml"


def _manual_damage_game(**changes) -> Game:
    """The manual damage scenario's setup (with ``changes`` to its top-level keys), played on
    until P1's damage choice is pending."""
    scenario = yaml.safe_load(MANUAL_DAMAGE.read_text(encoding="utf-8"))
    del scenario["steps"]
    game = Game.from_scenario({**scenario, **changes})
    game.replay([Move("P1", ("U1", "U2"), "A"), Pass("P1"), Pass("P2")])
    assert game.view()["pending_choice"]["kind"] == "damage"
    return game


def _games_in_every_kind_of_state() -> dict[str, Game]:
    """One game in each state an action's check takes a different path in: Neutral Open, a
    Showdown, a pending damage choice and a finished game."""
    showdown = Game.from_scenario(MANUAL_DAMAGE)
    showdown.apply(Move("P1", ("U1", "U2"), "A"))
    over = _manual_damage_game(victory_score=1)
    over.replay([Assign("P1", {"E1": 2, "E2": 2}), Assign("P2", {"U1": 2, "U2": 1})])
    assert over.is_over
    return {
        "neutral open": Game.from_scenario(MANUAL_DAMAGE),
        "showdown": showdown,
        "damage choice": _manual_damage_game(),
        "game over": over,
    }


def test_the_view_shares_nothing_with_the_game() -> None:
    game = _manual_damage_game()
    before = game.legal_actions()
    game.view()["pending_choice"]["options"].append("ZZ")
    assert game.legal_actions() == before


@pytest.mark.parametrize("damage", [
    (("E1", 2), ("E2", 2), ("ZZ", 0)),  # an unknown unit, even with no damage
    (("E1", 2), ("E2", 2), ("U1", 0)),  # a unit that is not one of the choice's options
])
def test_an_assignment_naming_a_unit_outside_the_choice_is_refused(damage) -> None:
    game = _manual_damage_game()
    snapshot = game.snapshot()
    with pytest.raises(IllegalAction) as refused:
        game.apply(Assign("P1", damage))
    assert refused.value.rule == "CR 460.2.c"
    assert "is not among the options: E1, E2" in refused.value.message
    assert game.snapshot() == snapshot and game.legal_actions()


@pytest.mark.parametrize("amount", [5, 10**5000], ids=["5", "10**5000"])
def test_an_amount_above_the_damage_to_assign_is_refused(amount: int) -> None:
    """Even one too long to write in decimal: refused as the rules' IllegalAction, not a
    ValueError from writing the message."""
    game = _manual_damage_game()
    snapshot = game.snapshot()
    with pytest.raises(IllegalAction) as refused:
        game.apply(Assign("P1", (("E1", amount), ("E2", 0))))
    assert refused.value.rule == "CR 460.2.c"
    assert refused.value.message == "an amount is more than the 4 damage to assign"
    assert game.snapshot() == snapshot


def test_a_unit_is_targeted_once_at_most() -> None:
    game = Game.from_scenario({
        "name": "one target twice", "players": ["P1", "P2"], "battlefields": [{"id": "A"}],
        "units": [{"id": "E1", "controller": "P2", "might": 5, "at": "base"}],
        "hands": {"P1": [{"id": "S2", "type": "spell", "effect": {"damage": 2}}]},
    })
    with pytest.raises(IllegalAction) as refused:
        game.apply(Play("P1", "S2", ("E1", "E1")))
    assert refused.value.rule == "CR 355.5"


@pytest.mark.parametrize(("teams", "said", "rule"), [
    (None, "C would hold units of P1, P2, P3", "CR 444.2"),  # three players
    ([["P1", "P3"], ["P2", "P4"]], "C would hold units of teammates P1 and P3", "seed 001"),
])
def test_one_chosen_destination_for_several_players_units_names_the_rule_it_breaks(
        teams: list | None, said: str, rule: str) -> None:
    """A card that takes units of several players to one destination chosen as it is played:
    the choice must leave at most two players there, and no teammates (rules.md 8)."""
    game = Game.from_scenario({
        "name": "one destination", "players": ["P1", "P2", "P3", "P4"], "teams": teams,
        "battlefields": [{"id": "C"}],
        "units": [{"id": "U1", "controller": "P1", "might": 1, "at": "base"},
                  {"id": "F3", "controller": "P3", "might": 1, "at": "base"},
                  *([] if teams else [{"id": "E2", "controller": "P2", "might": 1, "at": "C"}])],
        "hands": {"P1": [{"id": "S1", "type": "spell", "effect": {"move": {}}}]},
    })
    snapshot = game.snapshot()
    with pytest.raises(IllegalAction) as refused:
        game.apply(Play("P1", "S1", ("U1", "F3"), "C"))
    assert (refused.value.rule, refused.value.message) == (rule, said)
    assert game.snapshot() == snapshot


def test_an_observer_that_raises_leaves_the_game_as_it_was() -> None:
    game = Game.from_scenario(SCENARIOS / "001_flow_empty_battlefield_conquer.yaml")
    snapshot, view, trace = game.snapshot(), game.view(), game.trace
    heard = []

    def observer(step) -> None:
        heard.append(step)
        if len(heard) == 2:
            raise RuntimeError("the observer failed")

    game.observe(observer)
    with pytest.raises(RuntimeError, match="the observer failed"):
        game.apply(Move("P1", ("U1",), "A"))
    assert (game.snapshot(), game.view(), game.trace, game.log) == (snapshot, view, trace, [])


@pytest.mark.parametrize(("text", "said"), [
    ("[]", "not a riftchart-snapshot/1 snapshot"), ("null", "not a riftchart-snapshot/1"),
    ("3", "not a riftchart-snapshot/1"), ('"x"', "not a riftchart-snapshot/1"),
    ("not json", "not a snapshot's JSON text: Expecting value"), ("", "not a snapshot's JSON"),
])
def test_restoring_what_is_not_a_snapshot_is_a_value_error(text: str, said: str) -> None:
    with pytest.raises(ValueError, match=said):
        Game.from_json(text)


def test_illegal_action_crosses_process_boundaries() -> None:
    again = pickle.loads(pickle.dumps(IllegalAction("P2 does not have Focus", "CR 313")))
    assert (again.message, again.rule, str(again)) == (
        "P2 does not have Focus", "CR 313", "P2 does not have Focus (CR 313)")


@pytest.mark.parametrize("value", ["pass P1", None, {"pass": "P1"}, Move("P1", "U1", "A")])
def test_what_is_not_an_action_is_a_type_error(value) -> None:
    game = Game.from_scenario(SCENARIOS / "001_flow_empty_battlefield_conquer.yaml")
    snapshot = game.snapshot()
    with pytest.raises(TypeError):
        game.apply(value)
    assert game.snapshot() == snapshot


# Each malformed action and the start of the TypeError it must raise: the field, then what
# belongs there.
MALFORMED = [
    (Assign("P1", "E1"), "Assign.damage is (unit id, amount) pairs"),
    (Assign("P1", None), "Assign.damage is (unit id, amount) pairs"),
    (Assign("P1", (("E1", 2, 1),)), "Assign.damage[0] is a (unit id, amount) pair"),
    (Assign("P1", ("E1", 2)), "Assign.damage[0] is a (unit id, amount) pair, not the string"),
    (Assign("P1", (("E1", "2"),)), "Assign.damage[0][1] is an amount of damage (an int)"),
    (Assign("P1", (("E1", True),)), "Assign.damage[0][1] is an amount of damage (an int)"),
    (Assign("P1", (("E1", 2.0),)), "Assign.damage[0][1] is an amount of damage (an int)"),
    (Assign("P1", ((1, 2),)), "Assign.damage[0][0] is a unit id (a string)"),
    (Assign("P1", {"E1": None}), "Assign.damage['E1'] is an amount of damage (an int)"),
    (Assign("P1", {3: 2}), "Assign.damage key is a unit id (a string)"),
    (Move("P1", None, "A"), "Move.units is a tuple of unit ids, not None"),
    (Move("P1", "U1", "A"), "Move.units is a tuple of unit ids, not the string 'U1'"),
    (Move("P1", {"U1"}, "A"), "Move.units is a tuple of unit ids, not the set"),
    (Move("P1", [["U1"]], "A"), "Move.units[0] is a unit id (a string), not the list ['U1']"),
    (Move("P1", ("U1",), ["A"]), 'Move.to is a battlefield id or "base" (a string)'),
    (Move("P1", ("U1",), None), 'Move.to is a battlefield id or "base" (a string), not None'),
    (Move(("P1",), ("U1",), "A"), "Move.player is a player id (a string)"),
    (Play("P1", None), "Play.card is a card id (a string)"),
    (Play("P1", "S1", "E1"), "Play.targets is a tuple of unit ids, not the string 'E1'"),
    (Play("P1", "S1", (None,)), "Play.targets[0] is a unit id (a string)"),
    (Play("P1", "S1", (), 1), 'Play.to is a battlefield id, "base" or None'),
    (Pass(1), "Pass.player is a player id (a string), not the int 1"),
    (Add(None), "Add.player is a player id (a string), not None"),
    (EndTurn(["P1"]), "EndTurn.player is a player id (a string)"),
    (Choose("P1", ("A",)), "Choose.battlefield is a battlefield id (a string)"),
]


@pytest.mark.parametrize(("action", "message"), MALFORMED, ids=[m for _, m in MALFORMED])
def test_a_malformed_field_is_the_same_type_error_in_every_state(action, message) -> None:
    """The field is checked before any rule is asked: the same TypeError, naming the field and
    what belongs there, whatever the state, and the game does not change."""
    errors = set()
    for state, game in _games_in_every_kind_of_state().items():
        snapshot, heard = game.snapshot(), []
        game.observe(heard.append)
        for attempt in (game.check, game.apply):
            with pytest.raises(TypeError) as refused:
                attempt(action)
            assert str(refused.value).startswith(message), state
            errors.add(str(refused.value))
        assert (game.snapshot(), heard) == (snapshot, []), state
    assert len(errors) == 1


@pytest.mark.parametrize(
    ("kind", "field"),
    [(kind, field.name) for kind in ACTION_TYPES for field in fields(kind)],
    ids=lambda v: v if isinstance(v, str) else v.__name__,
)
def test_every_field_of_every_action_is_type_checked(kind, field) -> None:
    """An int is wrong in every field (ids, tuples of ids, damage pairs): each is refused with
    a TypeError naming it, in every state, so no field reaches the rules unchecked."""
    legal = {Move: Move("P1", ("U1",), "A"), Play: Play("P1", "S1", ("E1",), "A"),
             Choose: Choose("P1", "A"), Assign: Assign("P1", (("E1", 2),))}
    action = replace(legal.get(kind) or kind("P1"), **{field: 7})
    for game in _games_in_every_kind_of_state().values():
        with pytest.raises(TypeError, match=rf"^{kind.__name__}\.{field} is .*, not the int 7$"):
            game.check(action)


@pytest.mark.parametrize("action", [
    Pass("P9"), EndTurn("P9"),  # no such player
    Move("P1", ("ghost",), "A"), Move("P1", ("U1",), "nowhere"), Move("P1", (), "A"),
    Play("P1", "ghost"), Play("P1", "S1", ("ghost",)), Choose("P1", "nowhere"),
    Assign("P1", (("ghost", 1),)), Assign("P1", (("E1", -1), ("E2", 5))),
])
def test_unknown_ids_and_bad_amounts_of_the_right_type_are_for_the_rules(action) -> None:
    """A field of the right type is the rules' to judge: IllegalAction, never a TypeError."""
    for game in _games_in_every_kind_of_state().values():
        with pytest.raises(IllegalAction):
            game.check(action)


def test_damage_given_as_a_dict_or_lists_becomes_pairs_in_the_log() -> None:
    game = _manual_damage_game()
    game.apply(Assign("P1", {"E1": 2, "E2": 2}))
    game.apply(Assign("P2", [["U1", 2], ("U2", 1)]))
    assert game.log[-2:] == [
        Assign("P1", (("E1", 2), ("E2", 2))), Assign("P2", (("U1", 2), ("U2", 1)))
    ]
    assert all(hash(action) for action in game.log)


def test_lists_in_actions_become_tuples_in_the_log() -> None:
    game = Game.from_scenario(SCENARIOS / "001_flow_empty_battlefield_conquer.yaml")
    game.apply(Move("P1", ["U1"], "A"))
    assert game.log == [Move("P1", ("U1",), "A")]
    assert hash(game.log[0])


def test_the_log_and_the_trace_are_the_callers_own_lists() -> None:
    """What ``log`` and ``trace`` give is a copy: changing it changes nothing in the game,
    and the game's next action does not change it."""
    game = Game.from_scenario(SCENARIOS / "001_flow_empty_battlefield_conquer.yaml")
    game.apply(Move("P1", ("U1",), "A"))
    log, trace = game.log, game.trace
    kept = (list(log), list(trace))
    log.append(Pass("P2"))
    trace.clear()
    assert (game.log, game.trace) == kept
    game.apply(Pass("P1"))
    assert len(game.log) == 2 and log == [*kept[0], Pass("P2")] and trace == []
    assert game.clone().log == game.log


def test_an_observer_that_is_not_callable_is_refused_at_once() -> None:
    game = Game.from_scenario(SCENARIOS / "001_flow_empty_battlefield_conquer.yaml")
    with pytest.raises(TypeError):
        game.observe("print")
    game.apply(Move("P1", ("U1",), "A"))  # nothing was registered to spoil the next action


def test_an_unknown_rules_profile_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="bogus"):
        Game.from_scenario(MANUAL_DAMAGE, rules="bogus")
    # an empty name is not "no override"
    with pytest.raises(ValueError, match="unknown rules profile ''"):
        Game.from_scenario(MANUAL_DAMAGE, rules="")


def test_legal_actions_list_one_spelling_and_check_accepts_every_one() -> None:
    """docs/embedding.md: ask ``check`` whether an action is legal; ``legal_actions`` lists a
    Standard Move once, its units in board order."""
    game = Game.from_scenario(MANUAL_DAMAGE)
    listed = game.legal_actions()
    assert len(listed) == len(set(listed))
    assert Move("P1", ("U1", "U2"), "A") in listed
    assert Move("P1", ("U2", "U1"), "A") not in listed
    game.check(Move("P1", ("U2", "U1"), "A"))


def test_the_installed_package_is_marked_typed() -> None:
    """PEP 561: type checkers read the API's hints only when the package says it has them."""
    assert importlib.resources.files("engine").joinpath("py.typed").is_file()


def test_a_runtime_that_is_not_one_is_refused_at_once() -> None:
    with pytest.raises(TypeError, match="not a chart runtime"):
        Game.from_scenario(SCENARIOS / "001_flow_empty_battlefield_conquer.yaml",
                           runtime="checked")
    # the class where an instance is meant: refused here, not at the first event
    with pytest.raises(TypeError, match=r"instance is needed, not the class: CheckedRuntime\(\)"):
        Game.from_scenario(SCENARIOS / "001_flow_empty_battlefield_conquer.yaml",
                           runtime=CheckedRuntime)


def test_an_action_built_with_lists_equals_the_one_built_with_tuples() -> None:
    game = Game.from_scenario(SCENARIOS / "001_flow_empty_battlefield_conquer.yaml")
    move = Move("P1", ["U1"], "A")
    assert move == Move("P1", ("U1",), "A") and hash(move) == hash(Move("P1", ("U1",), "A"))
    assert move in game.legal_actions()
    assert Assign("P1", [["E1", 2]]) == Assign("P1", {"E1": 2}) == Assign("P1", (("E1", 2),))


@pytest.mark.parametrize("every_time", [False, True], ids=["once", "every transition"])
def test_an_observer_may_not_act_in_the_game_that_tells_it(every_time: bool) -> None:
    """An observer's apply is refused with ActionInProgress, and the action under way is
    undone (it once took the inner action first and left the turn chart in Ending with a
    Showdown open; calling it every time ran out of stack)."""
    game = Game.from_scenario(SCENARIOS / "001_flow_empty_battlefield_conquer.yaml")
    before = game.to_json()
    calls: list[int] = []

    def meddle(_step: Any) -> None:
        if every_time or not calls:
            calls.append(1)
            game.apply(EndTurn("P1"))

    game.observe(meddle)
    with pytest.raises(ActionInProgress, match="observer"):
        game.apply(Move("P1", ("U1",), "A"))
    assert game.to_json() == before and game.log == [] and game.trace == []
    assert calls == [1]


@pytest.mark.parametrize(("kind", "args", "error", "message"), [
    ("move", {"player": "P1"}, ValueError, "a move step needs units, to"),
    ("move", "P1", TypeError, "a move step's payload is a mapping of player, units, to"),
    ("fly", "P1", ValueError, "not an action step: 'fly'"),
    ("pass", 3, TypeError, "Pass.player is a player id"),
    ("play", {"player": "P1", "card": 5}, TypeError, "Play.card is a card id"),
    # a misspelt field would otherwise be left out: another action, which may be legal
    ("play", {"player": "P1", "card": "C1", "To": "A"}, ValueError,
     "a play step has no field 'To' (its fields: player, card, targets, to)"),
    ("move", {"player": "P1", "units": ["U1"], "to": "A", "x": 1}, ValueError,
     "a move step has no field 'x'"),
    # targets of the wrong type are not "no targets" (null is: a key not given, D33)
    ("play", {"player": "P1", "card": "S1", "targets": 0}, TypeError,
     "Play.targets is a tuple of unit ids, not the int 0"),
    ("play", {"player": "P1", "card": "S1", "targets": ""}, TypeError,
     "Play.targets is a tuple of unit ids, not the string ''"),
    ("play", {"player": "P1", "card": "S1", "targets": False}, TypeError,
     "Play.targets is a tuple of unit ids, not the bool False"),
])
def test_a_bad_step_is_a_typed_error_naming_what_is_wrong(kind: str, args: Any, error: type,
                                                          message: str) -> None:
    with pytest.raises(error) as raised:
        actions.from_step(kind, args)
    assert str(raised.value).startswith(message)


def test_null_targets_in_a_play_step_are_none_given() -> None:
    assert actions.from_step("play", {"player": "P1", "card": "S1", "targets": None}) == Play(
        "P1", "S1")


@pytest.mark.parametrize("given", [{"name": "x"}, "scenarios/001.yaml", None])
def test_run_scenario_given_what_is_not_a_scenario_says_what_takes_it(given: Any) -> None:
    """A path or a dict is for load_scenario (or run_file): a TypeError before anything runs,
    not an AttributeError from half-way (docs/embedding.md, Running scenario files)."""
    from engine.runner import run_scenario

    with pytest.raises(TypeError, match=r"run_scenario takes a Scenario, not \w+: "
                                        r"engine.scenario.load_scenario makes one"):
        run_scenario(given)


def test_an_assignment_naming_a_unit_twice_is_refused() -> None:
    """Only the API can name a unit twice in an Assign (a scenario's is a mapping)."""
    game = Game.from_scenario({
        "name": "assign twice", "players": ["P1", "P2"], "manual_damage": True,
        "battlefields": [{"id": "A", "controller": "P2"}],
        "units": [{"id": "U1", "controller": "P1", "might": 3, "at": "base"},
                  {"id": "E1", "controller": "P2", "might": 5, "at": "A"}],
    })
    for action in [Move("P1", ("U1",), "A"), Pass("P1"), Pass("P2")]:
        game.apply(action)
    assert game.view()["pending_choice"]["kind"] == "damage"
    before = game.to_json()
    with pytest.raises(IllegalAction, match="a unit is named twice"):
        game.apply(Assign("P1", (("E1", 3), ("E1", 3))))
    assert game.to_json() == before


def test_legal_actions_lists_a_play_with_no_destination_where_one_may_be_chosen() -> None:
    """A play_unit effect may take a chosen destination or none (then the base): both are
    listed, as a unit card to a battlefield its player controls is."""
    game = Game.from_scenario({
        "name": "listing", "players": ["P1", "P2"],
        "battlefields": [{"id": "A", "controller": "P1"}],
        "units": [{"id": "U1", "controller": "P1", "might": 1, "at": "A"}],
        "hands": {"P1": [{"id": "C1", "type": "unit", "unit": {"might": 1}},
                         {"id": "S2", "type": "spell",
                          "effect": {"play_unit": {"id": "T1", "might": 1}}}]},
    })
    listed = game.legal_actions()
    for action in [Play("P1", "C1", (), "A"), Play("P1", "S2", (), None),
                   Play("P1", "S2", (), "A"), Play("P1", "S2", (), "base")]:
        game.check(action)
        assert action in listed, action


def test_every_legal_action_goes_to_a_step_and_back() -> None:
    game = _manual_damage_game()
    for action in game.legal_actions(max_targets=2):
        ((kind, args),) = actions.to_step(action).items()
        assert actions.from_step(kind, args) == action
    with pytest.raises(TypeError, match="not a riftchart action"):
        actions.to_step("end_turn")
    # a field of the wrong type is named, not written as a wrong step (units ['U', '1'])
    with pytest.raises(TypeError, match="Move.units is a tuple of unit ids, not the string"):
        actions.to_step(Move("P1", "U1", "A"))  # type: ignore[arg-type]


def test_replay_returns_its_trace_and_the_profile_is_readable() -> None:
    game = Game.from_scenario(SCENARIOS / "001_flow_empty_battlefield_conquer.yaml")
    lines = game.replay([Move("P1", ("U1",), "A"), Pass("P1")])
    assert lines == game.trace and "A: Contested by P1 (S 184.3.a)" in lines
    assert game.rules == "seed"
    assert Game.from_scenario(MANUAL_DAMAGE, rules="cr-1.4").rules == "cr-1.4"


def test_a_snapshot_missing_a_field_is_a_value_error_naming_it() -> None:
    data = Game.from_scenario(MANUAL_DAMAGE).snapshot()
    del data["players"]
    with pytest.raises(ValueError, match="snapshot without 'players'"):
        Game.restore(data)
    data = Game.from_scenario(MANUAL_DAMAGE).snapshot()
    del data["units"][0]["owner"]
    with pytest.raises(ValueError, match="malformed entry: .*'owner'"):
        Game.restore(data)


def test_an_observer_that_catches_the_refusal_leaves_the_action_whole() -> None:
    """The inner apply takes nothing; caught, the action under way goes on as if it had not
    been tried."""
    game = Game.from_scenario(SCENARIOS / "001_flow_empty_battlefield_conquer.yaml")
    plain = Game.from_scenario(SCENARIOS / "001_flow_empty_battlefield_conquer.yaml")
    refused: list[str] = []

    def meddle(_step: Any) -> None:
        try:
            game.apply(EndTurn("P1"))
        except ActionInProgress as error:
            refused.append(str(error))

    game.observe(meddle)
    assert game.apply(Move("P1", ("U1",), "A")) == plain.apply(Move("P1", ("U1",), "A"))
    assert refused and game.to_json() == plain.to_json()
    assert game.log == [Move("P1", ("U1",), "A")]


def test_a_bool_damage_amount_is_named_as_the_dict_gave_it() -> None:
    with pytest.raises(TypeError, match=r"Assign.damage\['E1'\] is an amount of damage"):
        actions.as_action(Assign("P1", {"E1": True}))


def test_a_clone_goes_its_own_way() -> None:
    game = Game.from_scenario(SCENARIOS / "001_flow_empty_battlefield_conquer.yaml")
    game.apply(Move("P1", ("U1",), "A"))
    twin = game.clone()
    assert (twin.to_json(), twin.log, twin.trace) == (game.to_json(), game.log, game.trace)
    before = game.to_json()
    twin.apply(Pass("P1"))
    twin.apply(Pass("P2"))
    assert twin.view()["score"] == {"P1": 1, "P2": 0}
    assert game.to_json() == before and len(game.log) == 1
    game.observe(lambda _step: game.clone())
    with pytest.raises(ActionInProgress, match="clone"):
        game.apply(Pass("P1"))
    assert game.to_json() == before


@pytest.mark.parametrize("how", [copy.copy, copy.deepcopy, pickle.dumps, Game.snapshot,
                                 Game.to_json])
def test_a_game_is_not_copied_half_way_through_an_action(how: Any) -> None:
    """A copy or snapshot taken by an observer would be stuck half-way, refusing every action
    (or worse, listing actions it cannot take); it is refused as a clone is, and the action
    under way is undone."""
    game = Game.from_scenario(SCENARIOS / "001_flow_empty_battlefield_conquer.yaml")
    game.apply(Move("P1", ("U1",), "A"))
    before = game.to_json()
    game.observe(lambda _step: how(game))
    with pytest.raises(ActionInProgress, match="(a copy|pickling|snapshot[(][)]|to_json[(][)]) "
                                               "while this game is still"):
        game.apply(Pass("P1"))
    assert game.to_json() == before and len(game.log) == 1


def test_an_observer_can_be_removed() -> None:
    """unobserve takes back one registration; an observer added or removed while a transition
    is being told hears from the next transition on (or no more)."""
    game = Game.from_scenario(SCENARIOS / "001_flow_empty_battlefield_conquer.yaml")
    everything: list[Any] = []
    heard: list[Any] = []
    late: list[Any] = []

    def first(step: Any) -> None:
        heard.append(step)
        game.observe(late.append)  # from the next transition on
        game.unobserve(first)      # this transition was the last it hears

    game.observe(everything.append)
    game.observe(first)
    game.apply(Move("P1", ("U1",), "A"))
    assert len(everything) > 1
    assert heard == everything[:1] and late == everything[1:]
    told = len(late)
    game.unobserve(late.append)
    game.apply(Pass("P1"))
    assert len(late) == told and len(heard) == 1
    with pytest.raises(ValueError, match="is not observing this game"):
        game.unobserve(first)


@pytest.mark.parametrize("how", [copy.copy, copy.deepcopy])
def test_a_copy_of_a_game_is_a_clone(how: Any) -> None:
    """Between actions ``copy.copy`` and ``copy.deepcopy`` make a clone: the same position,
    log and trace, no observers, and nothing shared that an action changes."""
    game = Game.from_scenario(SCENARIOS / "001_flow_empty_battlefield_conquer.yaml")
    game.apply(Move("P1", ("U1",), "A"))
    told: list[Any] = []
    game.observe(told.append)
    twin = how(game)
    assert (twin.to_json(), twin.log, twin.trace) == (game.to_json(), game.log, game.trace)
    before = game.to_json()
    twin.apply(Pass("P1"))
    twin.apply(Pass("P2"))
    assert twin.view()["score"] == {"P1": 1, "P2": 0} and told == []
    assert game.to_json() == before and len(game.log) == 1 and len(twin.log) == 3


def test_games_are_equal_when_they_are_in_the_same_position() -> None:
    """``==`` compares positions, not histories: a clone, a snapshot's round trip and a game
    that got there another way are equal; a game one action on is not. A game is unhashable:
    it changes with every action."""
    game = Game.from_scenario(ROOT / "models" / "1v1_two_battlefields.yaml")
    assert game == game.clone() == Game.from_json(game.to_json()) == copy.deepcopy(game)
    vi, jinx = game.clone(), game.clone()
    vi.replay([Play("P1", "S1", ("U1",)), Pass("P1"), Pass("P2")])
    jinx.replay([Play("P1", "S1", ("U2",)), Pass("P1"), Pass("P2")])
    assert vi != jinx and vi != game  # a different unit is stunned
    for stunned in (vi, jinx):
        stunned.apply(EndTurn("P1"))  # the stun ends with the turn
    assert vi == jinx and vi.log != jinx.log and vi.trace != jinx.trace
    assert (game == game.to_json()) is False and game != game.snapshot()
    with pytest.raises(TypeError, match="unhashable"):
        hash(game)


HEARD: list[Any] = []


def _heard(step: Any) -> None:  # a module's function: pickle would take it by name
    HEARD.append(step)


def test_a_pickled_game_is_a_clone_without_observers() -> None:
    """pickle leaves observers behind as clone() does: a lambda (which does not pickle) does
    not stop it, and a function that would pickle is not carried into the copy."""
    game = Game.from_scenario(SCENARIOS / "001_flow_empty_battlefield_conquer.yaml")
    game.apply(Move("P1", ("U1",), "A"))
    game.observe(lambda _step: None)
    game.observe(_heard)
    twin = pickle.loads(pickle.dumps(game))
    assert (twin.to_json(), twin.log, twin.trace) == (game.to_json(), game.log, game.trace)
    HEARD.clear()
    twin.apply(Pass("P1"))
    assert HEARD == []
    game.apply(Pass("P1"))
    assert HEARD and twin.to_json() == game.to_json()


@pytest.mark.parametrize("runtime", [CheckedRuntime, None], ids=["checked", "fast"])
def test_a_pickled_game_leaves_observers_behind_whatever_its_runtime(runtime: Any) -> None:
    """python-statemachine's machines keep no hold on the game between events, so a game on
    CheckedRuntime pickles after an action, with an observer that does not pickle."""
    game = Game.from_scenario(SCENARIOS / "001_flow_empty_battlefield_conquer.yaml",
                              runtime=runtime() if runtime else None)
    game.observe(lambda _step: None)
    game.apply(Move("P1", ("U1",), "A"))
    twin = pickle.loads(pickle.dumps(game))
    twin.apply(Pass("P1"))
    game.apply(Pass("P1"))
    assert twin.to_json() == game.to_json() and twin.trace == game.trace


class _MyGame(Game):
    pass


def test_a_pickled_subclass_of_game_stays_one() -> None:
    game = _MyGame.from_scenario(SCENARIOS / "001_flow_empty_battlefield_conquer.yaml")
    assert type(pickle.loads(pickle.dumps(game))) is _MyGame


def test_hand_lists_the_cards_a_player_holds() -> None:
    game = Game.from_scenario(ROOT / "models" / "1v1_two_battlefields.yaml")
    hand = game.hand("P2")
    assert [card["id"] for card in hand] == ["T1", "T2"]
    assert hand[0] == {"id": "T1", "name": "Rally", "type": "spell", "timing": "reaction",
                       "effect": {"move": {"units": ["E2"], "to": "A"}}, "might": 0,
                       "keywords": [], "triggers": []}
    hand[0]["effect"]["move"]["to"] = "B"  # a fresh copy: the game's card is untouched
    assert game.hand("P2")[0]["effect"]["move"]["to"] == "A"
    game.apply(EndTurn("P1"))  # P2 draws a card nobody has seen
    assert game.hand("P2")[2:] == [None] and len(game.hand("P2")) == game.view()["hand"]["P2"]
    with pytest.raises(ValueError, match="no player 'P9' in this game"):
        game.hand("P9")
    with pytest.raises(TypeError, match="player id"):
        game.hand(2)  # type: ignore[arg-type]


@pytest.mark.parametrize(("field", "value", "said"), [
    ("profile", "bogus", "profile is 'bogus', not one of seed, cr-1.4"),
    ("profile", None, "profile is None"),
    ("hands", [], "hands is not a mapping"),
    ("configs", [], "configs is not a mapping"),
    ("scores", [], "scores is not a mapping"),
    ("scores", {"P1": 0}, "scores is not keyed by the players"),
    ("configs", {}, "configs is not keyed by the charts"),
    ("units", 5, "units is not a list"),
    ("queued_triggers", [[1]], "queued_triggers holds an entry that is not an"),
    ("players", "P1", "players is not a list of player ids"),
    # counts and players, which the rules would trip over at the next action
    ("victory_score", "1", "victory_score is '1', not a whole number from 1"),
    ("victory_score", 2.0, "victory_score is 2.0, not a whole number from 1"),
    ("victory_score", 0, "victory_score is 0"),
    ("scores", {"P1": "x", "P2": 0}, "scores['P1'] is 'x', not a whole number from 0"),
    ("deck", {"P1": -1, "P2": 0}, "deck['P1'] is -1"),
    ("winner", "", "winner is '', neither null nor one of the players"),
    ("priority", "P9", "priority is 'P9', neither null nor one of the players"),
    ("turn_player", None, "turn_player is None, not one of the players"),
    ("pending", {"player": "P1"}, "pending is neither null nor a choice"),
    ("pending", {"player": "P1", "kind": "damage", "options": []}, "pending is neither null"),
])
def test_a_snapshot_of_the_wrong_shape_is_a_value_error_naming_the_field(
        field: str, value: Any, said: str) -> None:
    data = Game.from_scenario(MANUAL_DAMAGE).snapshot()
    with pytest.raises(ValueError, match="malformed entry: " + re.escape(said)):
        Game.restore({**data, field: value})


def _snapshot_with_a_chain() -> dict[str, Any]:
    """A snapshot with a unit, a battlefield, a card in hand and a card on the Chain."""
    game = Game.from_scenario({
        "name": "a spell on the chain", "players": ["P1", "P2"], "battlefields": [{"id": "A"}],
        "units": [{"id": "U1", "controller": "P1", "might": 1, "at": "base"}],
        "hands": {"P1": [{"id": "S1", "type": "spell", "timing": "action",
                          "effect": {"move": {}}},
                         {"id": "S2", "type": "spell", "timing": "action",
                          "effect": {"stun": {}}}]},
    })
    game.apply(Play("P1", "S1", ("U1",), "A"))
    return game.snapshot()


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.yaml")), ids=lambda p: p.name[:3])
def test_every_position_of_a_bundled_scenario_restores_from_its_json(path) -> None:
    """What a game writes, it reads back, at every step of every bundled scenario: the
    checks of a snapshot's fields (its effects with them) refuse nothing riftchart wrote, a
    play_unit's id met on its ability, on the Chain and as the unit it made included."""
    scenario = load_scenario(path)
    game = Game.from_scenario(scenario)
    for step in [None, *scenario.steps]:
        if step is not None:
            if step.kind in ("expect", "expect_error"):
                continue
            try:
                game.apply(from_step(step.kind, step.args))
            except IllegalAction:
                break  # a scenario that shows a refusal: the positions before it are checked
        assert Game.from_json(game.to_json()).snapshot() == game.snapshot(), step


@pytest.mark.parametrize(("change", "said"), [
    (lambda d: d["units"][0].update(damage="x"),
     "units[0].damage is 'x', not a whole number from 0"),
    (lambda d: d["units"][0].update(might=-1), "units[0].might is -1, not a whole number"),
    (lambda d: d["units"][0].update(controller="P9"),
     "units[0].controller is 'P9', not one of the players"),
    (lambda d: d["units"][0].update(designation="x"),
     "units[0].designation is 'x', neither null, attacker nor defender"),
    (lambda d: d["units"][0].update(triggers=[7]),
     "units[0].triggers is [7], not a list of triggers (when, effect, targets)"),
    (lambda d: d["units"][0].update(name=5), "units[0].name is 5, neither null nor a name"),
    (lambda d: d["fields"][0].update(abilities=[{"when": "hold", "effect": "x"}]),
     "fields[0].abilities is [{'when': 'hold', 'effect': 'x'}], not a list of triggers"),
    (lambda d: d["units"][0].update(at="Z"),
     "units[0].at is 'Z', not one of base, hand, trash, A"),
    (lambda d: d["units"][0].update(exhausted=1), "units[0].exhausted is 1, not true or false"),
    (lambda d: d["units"][0].update(keywords="tank"),
     "units[0].keywords is 'tank', not a list of keywords"),
    (lambda d: d["units"].append(5), "units[1] is 5, not a mapping"),
    (lambda d: d["fields"][0].update(scored=["P9"]),
     "fields[0].scored is ['P9'], not a list of players"),
    (lambda d: d["fields"][0].update(controller=3),
     "fields[0].controller is 3, neither null nor one of the players"),
    (lambda d: d["hands"]["P1"][0].update(effect=1),
     "hands['P1'][0].effect is 1, neither null nor an effect"),
    (lambda d: d["hands"].update(P2=None), "hands['P2'] is None, not a list of cards"),
    (lambda d: d["chain"][0].update(targets=5),
     "chain[0].targets is 5, neither null nor a selector (self, enemies_here) or a list of "
     "ids"),
    (lambda d: d["chain"][0].update(targets="everyone"),
     "chain[0].targets is 'everyone', neither null nor a selector"),
    # what a scenario file could not give either: a keyword, an event, a selector unknown
    (lambda d: d["units"][0].update(keywords=["flying"]),
     "units[0].keywords is ['flying'], not a list of keywords (tank, backline, ganking)"),
    (lambda d: d["units"][0].update(triggers=[{"when": "sneeze", "effect": {"draw": 1},
                                               "targets": None}]),
     "units[0].triggers is [{'when': 'sneeze'"),
    (lambda d: d["units"][0].update(triggers=[{"when": "die", "effect": {"kill": {}},
                                               "targets": "everyone"}]),
     "units[0].triggers is [{'when': 'die'"),
    # a spell on the Chain resolves by its effect: without one it would fail as it resolves
    (lambda d: d["chain"][0].pop("effect"),
     "chain[0] is a Chain item with no effect (only an Add's and a unit card's have none)"),
    (lambda d: d["chain"][0].update(effect=None), "chain[0] is a Chain item with no effect"),
    (lambda d: d["chain"][0]["card"].update(type="land"),
     "chain[0].card.type is 'land', not one of spell, unit"),
    (lambda d: d["chain"][0].update(card=5), "chain[0].card is 5, neither null nor a card"),
    (lambda d: d["chain"][0].update(to=5), "chain[0].to is 5, neither null nor a place"),
    (lambda d: d.update(damage_plan={"P1": "x"}),
     "damage_plan['P1'] is 'x', not a mapping of units to damage"),
    (lambda d: d.update(damage_plan={"P1": {"U1": "2"}}),
     "damage_plan['P1']['U1'] is '2', not a whole number from 0"),
    (lambda d: d.update(passes="1"), "passes is '1', not a whole number from 0"),
    (lambda d: d.update(next_order=-1), "next_order is -1, not a whole number from 0"),
    (lambda d: d.update(contest_at="Z"), "contest_at is 'Z', neither null nor a battlefield"),
    (lambda d: d.update(chain_begun_by="P1"),
     "chain_begun_by is 'P1', neither null nor one of card, trigger, add"),
    (lambda d: d.update(teams=[["P9"]]),
     "teams is [['P9']], neither null nor two teams of two players alternating in turn order"),
    # teams of two players each, as a scenario file could not give
    (lambda d: d.update(teams=[["P1"], ["P2"]]), "teams is [['P1'], ['P2']], neither null"),
    (lambda d: d.update(manual_damage="no"), "manual_damage is 'no', not true or false"),
    # two units with one id: one would be lost
    (lambda d: d["units"].append({**d["units"][0]}),
     "units[1].id is 'U1', the id of an earlier unit"),
    (lambda d: d["units"][0].pop("might"), "units[0] has no 'might'"),
    (lambda d: d["chain"][0]["card"].pop("type"), "chain[0].card has no 'type'"),
    # effects are read as a scenario file's are: what the rules could not carry out
    (lambda d: d["hands"]["P1"][0].update(effect={"gain_points": -5}),
     "hands['P1'][0].effect.gain_points: must be from 0 to 1000000"),
    (lambda d: d["hands"]["P1"][0].update(effect={"bogus": {}}),
     "hands['P1'][0].effect.bogus: unknown effect 'bogus'"),
    (lambda d: d["hands"]["P1"][0].update(effect={"move": {"units": ["U1"], "to": "Z"}}),
     "hands['P1'][0].effect.move.to: unknown battlefield 'Z'"),
    (lambda d: d["hands"]["P1"][0].update(effect={"sequence": "x"}),
     "hands['P1'][0].effect.sequence: expected a list, got a string, 'x'"),
    (lambda d: d["chain"][0].update(effect={"damage": "lots"}),
     "chain[0].effect.damage: expected an integer, got a string, 'lots'"),
    (lambda d: d["units"][0].update(triggers=[{"when": "move", "effect": {"kill": {"units": [
        "ghost"]}}, "targets": None}]),
     "units[0].triggers[0].effect.kill.units[0]: unknown unit 'ghost'"),
    (lambda d: d["hands"]["P1"][0].update(effect=None), "hands['P1'][0] is a spell with no effect"),
    # a file's `move:` with nothing after it is read as {} (D33); a game never writes null
    # there, and the rules would fail on it at the next legal_actions()
    (lambda d: d["hands"]["P1"][0].update(effect={"move": None}),
     "hands['P1'][0].effect is {'move': None}, which a game writes as {'move': {}}"),
    (lambda d: d["hands"]["P1"][0].update(effect={"sequence": [{"stun": {}}, {"move": None}]}),
     "hands['P1'][0].effect is {'sequence': [{'stun': {}}, {'move': None}]}, which a game "
     "writes as {'sequence': [{'stun': {}}, {'move': {}}]}"),
    (lambda d: d["scores"].update(P1=10**5000),
     "scores['P1'] is a number of more than 4,300 digits, which JSON text"),
    (lambda d: d.update(pending={"player": "P1", "kind": "battlefield", "options": ["Z"]}),
     "pending.options is ['Z'], not a list of battlefields to choose from"),
])
def test_a_snapshot_entry_of_the_wrong_shape_is_a_value_error_naming_it(
        change: Callable[[dict[str, Any]], None], said: str) -> None:
    """Units, battlefields, cards, Chain items and the other fields are checked as they are
    restored: a string for a unit's damage would otherwise fail at the next action."""
    data = _snapshot_with_a_chain()
    assert Game.restore(data).snapshot() == data
    change(data)
    with pytest.raises(ValueError, match="malformed entry: " + re.escape(said)):
        Game.restore(data)


# what docs/embedding.md says a snapshot may leave out, and what it is read as
DEFAULTED = {
    "units": {"exhausted": False, "stunned": False, "damage": 0, "designation": None,
              "timing": "none"},
    "fields": {"controller": None, "applier": None, "staged_combatants": []},
    "chain": {"to": None, "source": None, "where": None},
    "hands": {"might": 0},  # a card's
}


@pytest.mark.parametrize(("entries", "name"), [(e, n) for e, names in DEFAULTED.items()
                                               for n in names])
def test_a_field_left_out_of_a_snapshot_is_read_as_its_default(entries: str, name: str) -> None:
    """A snapshot written before a field was added lacks it (the stability promise): left out,
    it is read as its default, so the game is the one with the default written out."""
    data = _snapshot_with_a_chain()
    entry = data["hands"]["P1"][0] if entries == "hands" else data[entries][0]
    entry[name] = DEFAULTED[entries][name]
    written = Game.restore(data).snapshot()
    del entry[name]
    assert Game.restore(data).snapshot() == written


def test_a_read_only_mapping_restores_and_a_value_that_is_not_data_is_a_value_error() -> None:
    data = Game.from_scenario(MANUAL_DAMAGE).snapshot()
    assert Game.restore(types.MappingProxyType(data)).snapshot() == data
    with pytest.raises(ValueError, match=r"a value that is not JSON data: extra is mappingproxy"):
        Game.restore({**data, "extra": types.MappingProxyType({})})
    # a field riftchart does not read holds JSON data too
    assert Game.restore({**data, "extra": {"note": [1, None, 2.5]}}).snapshot() == data
    for odd, said in (({1, 2}, "extra is {1, 2}"), (object(), "extra is <object"),
                      ({1: "a"}, "extra has the key 1, not a string"),
                      ({"a": [(1,)]}, "extra['a'][0] is (1,)")):
        with pytest.raises(ValueError, match="not JSON data: " + re.escape(said)):
            Game.restore({**data, "extra": odd})
    with pytest.raises(ValueError, match="the snapshot has the key 1, not a string"):
        Game.restore({**data, 1: "a"})


@pytest.mark.parametrize(("odd", "said"), [
    ({1, 2}, "{1, 2}"),
    ((1, 2), "(1, 2)"),
    (float("nan"), "nan"),
    (float("inf"), "inf"),
])
def test_a_card_effect_holding_what_is_not_json_data_is_refused_where_it_is(
        odd: Any, said: str) -> None:
    """Inside a card's effect too (a field riftchart keeps as it is given), a snapshot holds
    JSON data only: a set there would restore and make ``to_json`` fail later, a tuple would
    come back a list, and NaN is no JSON number."""
    data = _snapshot_with_a_chain()
    card = next(c for cards in data["hands"].values() for c in cards if c)
    who = next(p for p, cards in data["hands"].items() if card in cards)
    card["effect"] = {**card["effect"], "amount": odd}
    before = copy.deepcopy(data)
    index = data["hands"][who].index(card)
    where = f"hands[{who!r}][{index}]['effect']['amount']"
    with pytest.raises(ValueError, match=re.escape(f"not JSON data: {where} is {said}, ")):
        Game.restore(data)
    assert repr(data) == repr(before)  # the caller's data is left as it was
    card["effect"]["amount"] = [1, 2]  # as JSON data, it is then read as an effect is
    with pytest.raises(ValueError, match=re.escape(
            f"hands[{who!r}][{index}].effect: an effect has exactly one key")):
        Game.restore(data)


def test_a_configuration_naming_no_state_of_its_chart_is_a_value_error() -> None:
    data = Game.from_scenario(MANUAL_DAMAGE).snapshot()
    data["configs"]["focus"] = ["holding", "no_such_state"]
    with pytest.raises(ValueError, match=r"configs\['focus'\] is not a list of the focus"):
        Game.restore(data)


@pytest.mark.parametrize(("configs", "pending", "said"), [
    ({"scheduler": 5}, None, "configs['scheduler'] is not a list of the scheduler"),
    ({"scheduler": {"choosing": 1}}, None, "configs['scheduler'] is not a list"),
    ({"scheduler": ["choosing"]}, {"player": "P1", "kind": "battlefield", "options": 5},
     "configs['scheduler'] is not a list of the scheduler"),
    ({"scheduler": ["choosing"], "battlefield:A": 5},
     {"player": "P1", "kind": "battlefield", "options": ["A"]},
     "configs['battlefield:A'] is not a list of the battlefield"),
])
def test_a_malformed_snapshot_naming_the_scheduler_state_before_the_split_says_which_field(
        configs: dict[str, Any], pending: Any, said: str) -> None:
    """The reading of the old ``choosing`` state acts only on the shapes a dump writes: any
    other shape gets the field's own message, not a TypeError of the code in between."""
    data = Game.from_scenario(MANUAL_DAMAGE).snapshot()
    data["configs"].update(configs)
    data["pending"] = pending
    with pytest.raises(ValueError, match="malformed entry: " + re.escape(said)):
        Game.restore(data)


def test_a_number_too_long_to_read_is_not_a_snapshots_json() -> None:
    text = Game.from_scenario(MANUAL_DAMAGE).to_json()
    assert '"victory_score":8,' in text
    with pytest.raises(ValueError, match="not a snapshot's JSON text: Exceeds the limit"):
        Game.from_json(text.replace('"victory_score":8,', f'"victory_score":{"9" * 5_000},'))


def test_json_nested_too_deeply_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="nested too deeply"):
        Game.from_json("[" * 100_000 + "]" * 100_000)
    data = Game.from_scenario(MANUAL_DAMAGE).snapshot()
    deep: list[Any] = []
    for _ in range(5_000):
        deep = [deep]
    with pytest.raises(ValueError, match="nested too deeply"):
        Game.restore({**data, "extra": deep})
    # deep enough to pass a copy, but not what snapshot() and to_json() can write back: said
    # at once, rather than restored to fail later; as deep as riftchart could write, restored
    text = Game.from_scenario(MANUAL_DAMAGE).to_json()
    with pytest.raises(ValueError, match=r"nested too deeply to be one: extra\[0\]"):
        Game.from_json(text[:-1] + ', "extra": ' + "[" * 450 + "]" * 450 + "}")
    data = _snapshot_with_a_chain()
    for depth, restores in ((MAX_SNAPSHOT_DEPTH - 1, True), (MAX_SNAPSHOT_DEPTH, False)):
        deep: Any = 1
        for _ in range(depth):
            deep = [deep]
        # in a field riftchart leaves aside, held by the snapshot: 1 level more
        if restores:
            assert Game.restore({**data, "extra": deep}).snapshot() == data
        else:
            with pytest.raises(ValueError, match=re.escape("nested too deeply to be one: extra")):
                Game.restore({**data, "extra": deep})


def test_the_action_steps_are_the_steps_of_every_action_type() -> None:
    """ACTION_STEPS, which the scenario loader reads, names the step of each action type, in
    the order ACTION_TYPES lists them, and nothing else; from_step reads each."""
    examples = [Move("P1", ("U1",), "A"), Play("P1", "S1"), Pass("P1"), Add("P1"),
                Choose("P1", "A"), Assign("P1", {"U1": 1}), EndTurn("P1")]
    assert tuple(type(action) for action in examples) == ACTION_TYPES
    steps = [to_step(action) for action in examples]
    assert tuple(next(iter(step)) for step in steps) == ACTION_STEPS
    for kind, step, action in zip(ACTION_STEPS, steps, examples, strict=True):
        assert from_step(kind, step[kind]) == action


def test_a_listed_assignment_leaves_out_the_units_given_nothing() -> None:
    """docs/embedding.md, Actions: legal_actions() lists damage pairs in the choice's order,
    without zero amounts; the same plan with a zero written out is legal, applies alike, and
    is not equal to the listed one."""
    game = Game.from_scenario(ROOT / "scenarios" / "088_manual_backline_last.yaml")
    for action in [Move("P1", ("U1",), "A"), Pass("P1"), Pass("P2")]:
        game.apply(action)
    assert game.view()["pending_choice"]["options"] == ["T1", "B1", "N1"]
    listed = Assign("P1", {"T1": 1, "N1": 1})
    zero = Assign("P1", {"T1": 1, "B1": 0, "N1": 1})
    assert listed in game.legal_actions() and zero not in game.legal_actions()
    twin = game.clone()
    game.apply(listed)
    twin.apply(zero)
    assert game.to_json() == twin.to_json()


def test_a_card_on_the_chain_keeps_its_targets_in_the_order_given() -> None:
    """docs/embedding.md, the snapshot format: the same spell at U1, U2 and at U2, U1 gives two
    snapshots while it is on the Chain (the order is part of the play), one once it resolves."""
    game = Game.from_scenario(
        ROOT / "scenarios" / "002_flow_two_battlefields_choice_and_cancel.yaml")
    one, other = game.clone(), game.clone()
    one.apply(Play("P1", "S2", ("U1", "U2")))
    other.apply(Play("P1", "S2", ("U2", "U1")))
    assert one.to_json() != other.to_json()
    assert one.snapshot()["chain"][0]["targets"] == ["U1", "U2"]
    for played in (one, other):
        played.apply(Pass("P1"))
        played.apply(Pass("P2"))
    assert one.to_json() == other.to_json()


class _Id(str, enum.Enum):  # noqa: UP042 (a StrEnum formats as its text: no bug to show)
    """Ids as a program might keep them: str members of an Enum, which compare equal to
    their text but format as ``_Id.A``."""

    P1 = "P1"
    P2 = "P2"
    A = "A"
    U1 = "U1"
    E1 = "E1"
    E2 = "E2"


class _Amount(enum.IntEnum):
    TWO = 2


def test_ids_given_as_str_enum_members_are_their_text_in_actions() -> None:
    game = Game.from_scenario(SCENARIOS / "001_flow_empty_battlefield_conquer.yaml")
    plain_game = game.clone()
    trace = game.apply(Move(_Id.P1, (_Id.U1,), _Id.A))  # was a KeyError: battlefield:_Id.A
    assert trace == plain_game.apply(Move("P1", ("U1",), "A"))
    logged = game.log[0]
    assert logged == Move("P1", ("U1",), "A")
    assert [type(v) for v in (logged.player, *logged.units, logged.to)] == [str, str, str]
    assert game.to_json() == plain_game.to_json()


def test_damage_given_with_enum_ids_and_amounts_is_plain_in_the_log() -> None:
    game = _manual_damage_game()
    game.apply(Assign(_Id.P1, {_Id.E1: _Amount.TWO, _Id.E2: 2}))
    logged = game.log[-1]
    assert logged == Assign("P1", (("E1", 2), ("E2", 2)))
    assert {type(v) for pair in logged.damage for v in pair} == {str, int}
    assert "_Id" not in repr(logged) and "_Amount" not in repr(logged)


def test_damage_given_as_a_dict_of_enum_amounts_is_pairs_and_among_the_legal_actions() -> None:
    """An IntEnum amount is an int: the dict is made pairs, as one of plain ints is, so the
    action hashes and is found among the legal ones (it stayed a dict, unhashable)."""
    game = _manual_damage_game()
    answer = Assign("P1", {"E1": _Amount.TWO, "E2": _Amount.TWO})
    assert answer == Assign("P1", (("E1", 2), ("E2", 2))) and hash(answer)
    assert answer in game.legal_actions()
    assert isinstance(Assign("P1", {"E1": True}).damage, dict)  # True damage is a mistake


def test_a_scenario_dict_with_enum_ids_plays_and_round_trips() -> None:
    game = Game.from_scenario({
        "name": "enum ids", "players": [_Id.P1, _Id.P2], "battlefields": [{"id": _Id.A}],
        "units": [{"id": _Id.U1, "controller": _Id.P1, "might": _Amount.TWO, "at": "base"}],
    })
    again = Game.from_json(game.to_json())  # was refused: configs keyed battlefield:_Id.A
    assert again.view() == game.view()
    move = Move("P1", ("U1",), "A")
    assert move in game.legal_actions()
    game.apply(move)  # was a KeyError
    assert game.view()["contested"] == {"A": "P1"}
    assert "_Id" not in game.to_json() and "_Amount" not in game.to_json()


def test_a_unit_card_played_to_an_empty_string_is_refused() -> None:
    """None is the default destination (the base); "" names no place, as for a Move."""
    game = Game.from_scenario({
        "name": "empty to", "players": ["P1", "P2"], "battlefields": [{"id": "A"}],
        "hands": {"P1": [{"id": "C1", "type": "unit", "unit": {"might": 3}}]},
    })
    before = game.snapshot()
    with pytest.raises(IllegalAction) as refused:
        game.apply(Play("P1", "C1", (), ""))
    assert refused.value.rule == "CR 355.2"
    assert game.snapshot() == before
    game.apply(Play("P1", "C1", (), None))
    assert game.view()["units"]["C1"]["at"] == "base"


def test_a_snapshot_given_enum_ids_restores_as_plain_text() -> None:
    game = Game.from_scenario(SCENARIOS / "001_flow_empty_battlefield_conquer.yaml")
    data = game.snapshot()
    data["players"] = [_Id.P1, _Id.P2]
    data["turn_player"] = _Id.P1
    again = Game.restore(data)
    assert again.snapshot() == game.snapshot()
    assert type(again.snapshot()["turn_player"]) is str
    again.apply(Move("P1", ("U1",), "A"))
    assert again.view()["contested"] == {"A": "P1"}
