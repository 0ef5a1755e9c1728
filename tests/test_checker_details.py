"""Details of the model checker that a mutation audit of its code (keys, symmetry,
invariants, counterexamples, legal actions) found no other test pinned: each test here failed
on a mutant that broke the detail its name states. The symmetry tests at the end pin the fix
of what the audit found besides: the symmetry key kept board order only per battlefield, so
it merged states that a later move tells apart, and a violation could be missed."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml

from engine import (
    Assign,
    Game,
    Move,
    Pass,
    Play,
    actions,
    counterexample,
    explore,
    invariants,
    runner,
)
from engine.expansion import successor
from engine.invariants import by_names
from engine.state import ChainItem, GameState, battlefield_key
from tests.conftest import ROOT
from tests.helpers import twin_moved, write_yaml

ONE_V_ONE = ROOT / "models" / "1v1_two_battlefields.yaml"
FFA = ROOT / "models" / "ffa_three_players.yaml"


def _holds(name: str, state: GameState, *more: Any) -> bool:
    (invariant,) = by_names([name])
    if invariant.kind == "state":
        return invariant.holds(state, actions.legal(state))
    return invariant.holds(state, *more)


def _swap(s: GameState, bf: str, old: str, new: str) -> None:
    key = battlefield_key(bf)
    assert old in s.configs[key], sorted(s.configs[key])
    s.configs[key] = (s.configs[key] - {old}) | {new}


def _one_v_one_showdown_at_a() -> GameState:
    game = Game.from_scenario(ONE_V_ONE)
    game.apply(Move("P1", ("U1",), "A"))  # Showdown at A (the first battlefield)
    return game.state.copy()


def test_two_showdowns_at_once_fail_one_active_contest() -> None:
    s = _one_v_one_showdown_at_a()
    assert _holds("one_active_contest", s)
    _swap(s, "B", "neutral", "showdown")  # a second Showdown, at B, listed after the engine's
    assert not _holds("one_active_contest", s)


def test_contest_not_stuck_looks_at_every_battlefield() -> None:
    s = Game.from_scenario(ONE_V_ONE).state.copy()
    assert _holds("contest_not_stuck", s)
    _swap(s, "B", "uncontested", "contested")  # B, the second battlefield, is stuck
    assert not _holds("contest_not_stuck", s)


def test_a_win_at_the_turn_change_counts_the_turn_change(tmp_path: Path) -> None:
    """Scenario 052's position: P1 ends the turn and P2 wins by Hold in its Beginning phase.
    The winning step changes the turn: the violation counts one turn change, and with
    --max-turns 1 the won state, reached by the last turn change allowed, is terminal, not a
    frontier state (it has no action the bound leaves unexplored)."""
    source = tmp_path / "hold_win.yaml"
    source.write_text(
        "name: P2 wins by Hold as the turn changes\n"
        "players: [P1, P2]\n"
        "scores: {P1: 0, P2: 7}\n"
        "battlefields: [{id: A, controller: P2}, {id: B}]\n"
        "units: [{id: E1, controller: P2, might: 1, at: A}]\n")
    nobody_wins = invariants.view_invariant("nobody_wins", "a test's own",
                                            lambda v: v["winner"] is None, shows=["winner"])
    report = explore.explore(explore.prepare(str(source)).start,
                             explore.Settings([nobody_wins], max_turns=1))
    violation = report.violations["nobody_wins"]
    assert violation.path == [actions.EndTurn("P1")]
    assert violation.turns == 1
    assert report.frontier == 0 and report.terminal == 1


def test_symmetry_never_groups_units_of_different_owners() -> None:
    """The documented classes: equal static attributes AND the same owner and controller. F1,
    taken by P3 from P1 (owner P1), is not F2's twin (owner P3)."""
    start = explore.prepare(str(FFA)).start
    assert explore.Symmetry(start).classes == (("F1", "F2"),)
    start.units["F1"] = replace(start.units["F1"], owner="P1")
    assert explore.Symmetry(start).classes == ()


def test_the_symmetry_key_keeps_board_order_at_a_battlefield() -> None:
    """Documented: board order is kept among the units at each battlefield (it decides the
    damage assignment there). Two of P3's units at B in either order are two states."""
    start = explore.prepare(str(FFA)).start
    sym = explore.Symmetry(start)
    assert sym.classes == (("F1", "F2"),)
    one = start.copy()
    one.units["U1"] = replace(one.units["U1"], at="B")
    one.units["F1"] = replace(one.units["F1"], at="B")
    two = one.copy()
    two.units["U1"] = replace(two.units["U1"], order=two.next_order)  # now after F1 at B
    assert [u.id for u in one.units_in_board_order() if u.at == "B"] == ["U1", "F1"]
    assert [u.id for u in two.units_in_board_order() if u.at == "B"] == ["F1", "U1"]
    assert sym.key(one) != sym.key(two)


def test_every_legal_damage_assignment_is_enumerated() -> None:
    """With manual damage, legal() offers each assignment the rules allow (the checker
    explores each): U1's 1 damage may go to E1 or to E2."""
    game = Game.from_scenario({
        "name": "two ways to assign", "players": ["P1", "P2"], "manual_damage": True,
        "battlefields": [{"id": "A", "controller": "P2"}],
        "units": [{"id": "U1", "controller": "P1", "might": 1, "at": "base"},
                  {"id": "E1", "controller": "P2", "might": 1, "at": "A"},
                  {"id": "E2", "controller": "P2", "might": 1, "at": "A"}]})
    game.apply(Move("P1", ("U1",), "A"))
    game.apply(Pass("P1"))
    game.apply(Pass("P2"))
    s = game.state
    assert s.pending and s.pending["kind"] == "damage" and s.pending["player"] == "P1"
    assert set(actions.legal(s)) == {Assign("P1", (("E1", 1),)), Assign("P1", (("E2", 1),))}


def test_symmetry_renames_twins_on_the_chain() -> None:
    """A chain item's targets name a twin: swapped twins are one state when the item names the
    twin that moved in both, two states when it names the one that stayed. (Swapped whole:
    place and board order, which a later move keeps.)"""
    start = explore.prepare(str(FFA)).start
    sym = explore.Symmetry(start)
    assert sym.classes == (("F1", "F2"),)
    one, two = twin_moved(start, "F1", "F2"), twin_moved(start, "F2", "F1")

    def stun(target: str) -> list:
        return [ChainItem("card", "T1", "P2", {"stun": {}}, targets=(target,))]

    a, b = one.copy(), two.copy()
    a.chain, b.chain = stun("F1"), stun("F2")  # the twin that moved, in both
    assert sym.key(a) == sym.key(b)
    b.chain = stun("F1")  # here the twin that stayed
    assert sym.key(a) != sym.key(b)


def test_symmetry_never_takes_an_add_for_a_unit_called_add(tmp_path: Path) -> None:
    """D39: a unit may be called add; an Add ability's label, add:PLAYER, names a player, not
    that unit, so renaming the twins leaves it as it is and swapped twins stay one state."""
    text = FFA.read_text(encoding="utf-8").replace("F1", "add")
    start = explore.prepare(str(write_yaml(tmp_path, yaml.safe_load(text)))).start
    sym = explore.Symmetry(start)
    assert sym.classes == (("add", "F2"),)
    a, b = twin_moved(start, "add", "F2"), twin_moved(start, "F2", "add")
    a.chain = [ChainItem("add", "add:P1", "P1")]
    b.chain = [ChainItem("add", "add:P1", "P1")]
    assert sym.key(a) == sym.key(b)


def test_control_frozen_also_on_a_step_that_resolves_a_chain() -> None:
    """P1 attacks A (Contested) and plays a Stun: the pass that resolves it (the parent has a
    Chain) must not change A's control either."""
    game = Game.from_scenario({
        "name": "stun in a combat", "players": ["P1", "P2"],
        "battlefields": [{"id": "A", "controller": "P2"}],
        "units": [{"id": "U1", "controller": "P1", "might": 2, "at": "base"},
                  {"id": "E1", "controller": "P2", "might": 1, "at": "A"}],
        "hands": {"P1": [{"id": "S1", "type": "spell", "timing": "action",
                          "effect": {"stun": {}}}]}})
    game.apply(Move("P1", ("U1",), "A"))
    game.apply(Play("P1", "S1", ("E1",)))
    parent = game.state.copy()
    assert parent.chain and not parent.chain_open
    child = parent.copy()
    child.fields["A"] = replace(child.fields["A"], controller="P1")  # control moved mid-contest
    assert "contested" in child.configs[battlefield_key("A")]
    assert not _holds("control_frozen_while_contested", parent, Pass("P1"), child)


def test_the_end_of_a_chain_begun_by_an_add_keeps_focus() -> None:
    showdown = _one_v_one_showdown_at_a()  # Showdown Open at A, P1 holds Focus
    parent = showdown.copy()
    parent.chain = [ChainItem("add", "add:P1", "P1")]
    parent.chain_begun_by = "add"
    child = showdown.copy()
    child.focus = child.priority = "P2"  # the Add's chain ended and passed Focus on
    assert not _holds("non_card_chains_keep_focus", parent, Pass("P2"), child)
    assert _holds("non_card_chains_keep_focus", parent, Pass("P2"), showdown.copy())


def test_a_counterexample_keeps_the_source_s_own_rules(tmp_path: Path) -> None:
    """A cr-1.4 model checked under its own rules: the counterexample says rules: cr-1.4 (the
    setup is copied whole), so that it replays under the rules that were checked."""
    source = tmp_path / "cr14.yaml"
    source.write_text(
        "name: a cr-1.4 model\nrules: cr-1.4\nplayers: [P1, P2]\nbattlefields: [{id: A}]\n"
        "units: [{id: U1, controller: P1, might: 1, at: base}]\n")
    prepared = explore.prepare(str(source))
    assert prepared.start.profile == "cr-1.4"
    nobody_scores = invariants.view_invariant("nobody_scores", "a test's own",
                                              lambda v: v["score"]["P1"] == 0, shows=["score"])
    report = explore.explore(prepared.start, explore.Settings([nobody_scores]))
    path = counterexample.write(source, prepared.prefix, report.violations["nobody_scores"],
                                tmp_path / "out", prepared.scenario.rules)
    assert yaml.safe_load(path.read_text())["rules"] == "cr-1.4"
    assert runner.run_file(path).code == runner.OK


# --- --symmetry loses no state ------------------------------------------------------------------

BOARD_ORDER = {
    # P1 plays its unit cards C1 (Might 2) and C2 (Might 1) in either order, then moves both to
    # A in one Standard Move: E1's 1 damage goes to the first of them in board order. F1 and F2
    # are twins, so --symmetry renames; the two orders must stay two states while C1 and C2
    # wait in the base, or the Combat in which C2 dies is never met.
    "name": "board order at a battlefield, with twins elsewhere",
    "players": ["P1", "P2"],
    "battlefields": [{"id": "A", "controller": "P2"}],
    "units": [{"id": "E1", "controller": "P2", "might": 1, "at": "A"},
              {"id": "F1", "controller": "P2", "might": 1, "at": "base"},
              {"id": "F2", "controller": "P2", "might": 1, "at": "base"}],
    "hands": {"P1": [{"id": "C1", "type": "unit", "unit": {"might": 2}},
                     {"id": "C2", "type": "unit", "unit": {"might": 1}}]},
}


def _c2_dies_beside_c1(before: dict, step: Any, after: dict) -> bool:
    units = before["units"]
    beside = units.get("C1", {}).get("at") == "A" == units.get("C2", {}).get("at")
    return not (beside and after["units"]["C2"]["at"] == "trash"
                and after["units"]["C1"]["at"] == "A")


def test_symmetry_finds_what_the_plain_search_finds(tmp_path: Path) -> None:
    path = write_yaml(tmp_path, BOARD_ORDER)
    start = explore.prepare(str(path)).start
    assert explore.Symmetry(start).classes == (("E1", "F1", "F2"),)
    invariant = invariants.view_step_invariant("c2_never_dies_beside_c1", "a test's own",
                                               _c2_dies_beside_c1, shows=["units"])
    for symmetry in (False, True):
        report = explore.explore(start, explore.Settings([invariant], symmetry=symmetry))
        assert list(report.violations) == ["c2_never_dies_beside_c1"], symmetry


def _reachable(start: GameState, key: Any) -> dict[Any, GameState]:
    """Every state within one turn change, one per key (a plain search, written out)."""
    seen = {key(start): start}
    todo = [(start, 0)]
    while todo:
        state, turns = todo.pop()
        for action in actions.legal(state):
            child = successor(state, action)
            if key(child) not in seen:
                seen[key(child)] = child
                child_turns = turns + (child.turn_player != state.turn_player)
                if child_turns < 1:
                    todo.append((child, child_turns))
    return seen


def test_every_state_is_met_by_the_symmetric_search_as_its_class(tmp_path: Path) -> None:
    """Sound reduction: each state the plain search reaches has its symmetric key among the
    states the symmetric search reaches (it merges renamings only, and loses none)."""
    path = write_yaml(tmp_path, BOARD_ORDER)
    start = explore.prepare(str(path)).start
    symmetry = explore.Symmetry(start)
    plain = _reachable(start, explore.state_key)
    symmetric = _reachable(start, symmetry.key)
    assert {symmetry.key(s) for s in plain.values()} == set(symmetric)


# --- --symmetry with twin unit cards in hand ------------------------------------------------------

HAND_TWINS = {
    # C1 and C2 are two copies of one unit card: P1 plays them in either order, moves them, and
    # P2's Reaction kills one; each position reached with C1 and C2 swapped is one state
    "name": "two copies of a unit card",
    "players": ["P1", "P2"],
    "battlefields": [{"id": "A", "controller": "P2"}],
    "units": [{"id": "E1", "controller": "P2", "might": 1, "at": "A"}],
    "hands": {"P1": [{"id": "C1", "name": "Recruit", "type": "unit", "unit": {"might": 1}},
                     {"id": "C2", "name": "Recruit", "type": "unit", "unit": {"might": 1}}],
              "P2": [{"id": "T1", "type": "spell", "timing": "reaction", "effect": {"kill": {}}}]},
}


def _hand_twins(tmp_path: Path, **changes: Any) -> GameState:
    return explore.prepare(str(write_yaml(tmp_path, {**HAND_TWINS, **changes}))).start


def test_symmetry_groups_copies_of_a_unit_card_in_one_hand(tmp_path: Path) -> None:
    assert explore.Symmetry(_hand_twins(tmp_path)).classes == (("C1", "C2"),)
    copy = HAND_TWINS["hands"]["P1"][0]
    other_hand = {"P1": [copy], "P2": [{**copy, "id": "C2"}]}
    assert explore.Symmetry(_hand_twins(tmp_path, hands=other_hand)).classes == ()
    stronger = {"P1": [copy, {**copy, "id": "C2", "unit": {"might": 2}}]}
    assert explore.Symmetry(_hand_twins(tmp_path, hands=stronger)).classes == ()
    named = {"P1": [*HAND_TWINS["hands"]["P1"],
                    {"id": "S1", "type": "spell", "effect": {"kill": {"units": ["C2"]}}}]}
    assert explore.Symmetry(_hand_twins(tmp_path, hands=named)).classes == ()


def test_copies_played_in_either_order_are_one_state(tmp_path: Path) -> None:
    start = _hand_twins(tmp_path)
    sym = explore.Symmetry(start)
    one = successor(start, Play("P1", "C1", (), "base"))
    two = successor(start, Play("P1", "C2", (), "base"))
    assert explore.state_key(one) != explore.state_key(two)
    assert sym.key(one) == sym.key(two)
    both = successor(one, Play("P1", "C2", (), "base"))
    assert sym.key(both) == sym.key(successor(two, Play("P1", "C1", (), "base")))
    assert sym.key(both) != sym.key(one)


def test_twin_cards_lose_no_state_to_symmetry(tmp_path: Path) -> None:
    start = _hand_twins(tmp_path)
    symmetry = explore.Symmetry(start)
    plain = _reachable(start, explore.state_key)
    symmetric = _reachable(start, symmetry.key)
    assert len(symmetric) < len(plain)
    assert {symmetry.key(s) for s in plain.values()} == set(symmetric)


BOUNCING_COPIES = {
    # two copies of a unit card whose conquer ability returns it to hand; P2 can take one and
    # send it back: copies go to the hand and come back, so their board order goes stale
    "name": "copies that come back to hand",
    "players": ["P1", "P2"],
    "battlefields": [{"id": "A", "controller": "P2"}, {"id": "B"}],
    "units": [{"id": "E1", "controller": "P2", "might": 1, "at": "A"}],
    "hands": {
        "P1": [{"id": cid, "name": "Recruit", "type": "unit",
                "unit": {"might": 1, "triggers": [
                    {"when": "conquer", "effect": {"return_to_hand": {}}, "targets": "self"}]}}
               for cid in ("C1", "C2")],
        "P2": [{"id": "T1", "type": "spell", "timing": "reaction", "effect": {"take_control": {}}},
               {"id": "T2", "type": "spell", "timing": "reaction",
                "effect": {"return_to_hand": {}}}],
    },
}


def test_twins_are_renamed_alike_from_either_of_two_renamings(tmp_path: Path) -> None:
    """The renaming sorts twins only by what the key holds: a unit's board order counts on the
    board, not in the hand (where it is forgotten), or two states with one key could lead,
    by the same action, to children with two (a smaller reduction than the exact one)."""
    start = explore.prepare(str(write_yaml(tmp_path, BOUNCING_COPIES))).start
    sym = explore.Symmetry(start)
    game = Game(start.copy())
    game.replay([Play("P1", "C2"), Play("P1", "C1"), Move("P1", ("C2",), "B"), Pass("P1"),
                 Pass("P2"), Pass("P1"), Pass("P2"), Move("P1", ("C1",), "B"), Pass("P1"),
                 Play("P2", "T1", ("C1",)), Pass("P2"), Pass("P1"), Pass("P1"), Pass("P2"),
                 Play("P2", "T2", ("C1",)), Pass("P2")])
    one = game.state
    assert one.units["C2"].at == "hand" and "C1:conquer" in [i.label for i in one.chain]
    other = one.copy()  # C2 with another stale order: the same state to the key
    other.units["C2"] = replace(other.units["C2"], order=one.next_order)
    assert sym.key(one) == sym.key(other)
    for action in actions.legal(one):
        assert sym.key(successor(one, action)) == sym.key(successor(other, action)), action
