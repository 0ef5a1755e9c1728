"""The API holds its promises at the edges: bad values get clear errors, and nothing the
caller gets back, or does wrong, changes or breaks the game (docs/embedding.md)."""

from __future__ import annotations

import importlib.resources
import pickle

import pytest

from engine import Assign, Game, IllegalAction, Move, Pass, Play
from tests.conftest import ROOT

SCENARIOS = ROOT / "scenarios"


def _manual_damage_game() -> Game:
    game = Game.from_scenario(SCENARIOS / "042_combat_manual_damage.yaml")
    game.replay([Move("P1", ("U1", "U2"), "A"), Pass("P1"), Pass("P2")])
    assert game.view()["pending_choice"]["kind"] == "damage"
    return game


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
    assert refused.value.rule == "CR 458" and "is not one of" in refused.value.message
    assert game.snapshot() == snapshot and game.legal_actions()


def test_a_unit_is_targeted_once_at_most() -> None:
    game = Game.from_scenario({
        "name": "one target twice", "players": ["P1", "P2"], "battlefields": [{"id": "A"}],
        "units": [{"id": "E1", "controller": "P2", "might": 5, "at": "base"}],
        "hands": {"P1": [{"id": "S2", "type": "spell", "effect": {"damage": 2}}]},
    })
    with pytest.raises(IllegalAction) as refused:
        game.apply(Play("P1", "S2", ("E1", "E1")))
    assert refused.value.rule == "CR 185.2.a"


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


@pytest.mark.parametrize("text", ["[]", "null", "3", '"x"'])
def test_restoring_what_is_not_a_snapshot_is_a_value_error(text: str) -> None:
    with pytest.raises(ValueError):
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


def test_lists_in_actions_become_tuples_in_the_log() -> None:
    game = Game.from_scenario(SCENARIOS / "001_flow_empty_battlefield_conquer.yaml")
    game.apply(Move("P1", ["U1"], "A"))
    assert game.log == [Move("P1", ("U1",), "A")]
    assert hash(game.log[0])


def test_the_installed_package_is_marked_typed() -> None:
    """PEP 561: type checkers read the API's hints only when the package says it has them."""
    assert importlib.resources.files("engine").joinpath("py.typed").is_file()


def test_a_runtime_that_is_not_one_is_refused_at_once() -> None:
    with pytest.raises(TypeError, match="not a chart runtime"):
        Game.from_scenario(SCENARIOS / "001_flow_empty_battlefield_conquer.yaml",
                           runtime="checked")
