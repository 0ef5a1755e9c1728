"""Each built-in invariant, shown failing on a state (or step) that breaks its promise: a
predicate weakened by mistake would otherwise keep passing every search of a correct engine.

The bad states are real states of bundled scenarios with one thing broken by hand.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from engine import Add, Game, Move, Pass, actions
from engine.invariants import _what_a_player_could_do, by_names
from engine.state import GameState, battlefield_key
from engine.view import view
from tests.conftest import SCENARIOS


def _scenario(number: str) -> Game:
    (path,) = [p for p in SCENARIOS if p.name.startswith(f"{number}_")]
    return Game.from_scenario(path)


def _holds(name: str, state: GameState, *more: Any) -> bool:
    (invariant,) = by_names([name])
    if invariant.kind == "state":
        return invariant.holds(state, actions.legal(state))
    return invariant.holds(state, *more)


def _showdown() -> GameState:
    """Scenario 001 after P1's move: a Showdown at A, Open, P1 holding Focus and Priority."""
    game = _scenario("001")
    game.apply(Move("P1", ("U1",), "A"))
    return game.state.copy()


def _swap_state(s: GameState, bf: str, old: str, new: str) -> None:
    key = battlefield_key(bf)
    assert old in s.configs[key], sorted(s.configs[key])
    s.configs[key] = (s.configs[key] - {old}) | {new}


def test_the_unbroken_states_hold() -> None:
    """The states the tests below break hold every state invariant as they are."""
    for state in (_showdown(), _scenario("001").state):
        for invariant in by_names(None):
            if invariant.kind == "state":
                assert invariant.holds(state, actions.legal(state)), invariant.name


def test_one_active_contest_is_the_engines() -> None:
    s = _showdown()
    s.contest_at = None  # A is in Showdown, but the engine runs no contest
    assert not _holds("one_active_contest", s)


@pytest.mark.parametrize("break_it", ["winner with focus", "priority elsewhere",
                                      "focus in the damage step"])
def test_focus_in_showdown(break_it: str) -> None:
    s = _showdown()
    if break_it == "winner with focus":
        s.winner = "P1"  # a won game has no Focus
    elif break_it == "priority elsewhere":
        s.priority = "P2"  # in Showdown Open the Focus holder has Priority
    else:  # a Combat's damage step has no Focus (rules 11.5)
        s = _scenario("036")
        s.apply(Move("P1", ("U1",), "A"))
        s = s.state.copy()
        _swap_state(s, "A", "combat_showdown", "damage_step")
    assert not _holds("focus_in_showdown", s)


def test_closed_iff_chain_on_every_battlefield() -> None:
    s = _scenario("001").state.copy()
    _swap_state(s, "A", "open", "closed")  # A alone sees a Chain that does not exist
    assert not _holds("closed_iff_chain", s)


def test_teammates_apart() -> None:
    s = _scenario("252").state.copy()
    s.units["U1"] = replace(s.units["U1"], at="A")  # beside its teammate P3's F3
    assert not _holds("teammates_apart", s)


def test_contest_not_stuck_even_with_a_choice_pending() -> None:
    s = _scenario("001").state.copy()
    _swap_state(s, "A", "uncontested", "contested")  # Contested, nothing staged or running
    s.fields["A"] = replace(s.fields["A"], applier="P1")
    assert not _holds("contest_not_stuck", s)
    s.pending = {"player": "P1", "kind": "battlefield", "options": ("A",)}
    assert not _holds("contest_not_stuck", s)


def test_scores_never_decrease() -> None:
    parent = _scenario("001").state.copy()
    parent.scores = {"P1": 1, "P2": 0}
    child = parent.copy()
    child.scores = {"P1": 0, "P2": 0}
    assert not _holds("scores_never_decrease", parent, Pass("P1"), child)
    assert _holds("scores_never_decrease", child, Pass("P1"), parent)


def test_an_add_in_showdown_open_keeps_focus() -> None:
    parent = _showdown()
    child = parent.copy()
    child.focus = child.priority = "P2"  # an Add that moved Focus on
    assert not _holds("non_card_chains_keep_focus", parent, Add("P1"), child)
    assert _holds("non_card_chains_keep_focus", parent, Add("P1"), parent.copy())


def test_a_deadlock_counterexample_refuses_ending_the_turn() -> None:
    """no_deadlock's counterexample expects every step the rules could give to be refused,
    ending the turn among them in Neutral Open's Main phase."""
    shown = view(_scenario("001").state)
    assert {"end_turn": "P1"} in _what_a_player_could_do(shown)


# --- the report's counts -----------------------------------------------------------------------


def test_terminal_states_and_deadlocks_are_counted_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    """A state with no legal action is terminal; it is a deadlock only without a winner."""
    from engine import explore, invariants

    won = _scenario("001").state.copy()
    won.winner = "P1"
    report = explore.explore(won, explore.Settings(invariants.by_names(["focus_in_showdown"])))
    assert (report.states, report.terminal, report.deadlocks) == (1, 1, 0)
    monkeypatch.setattr(actions, "legal", lambda state, max_targets=1: [])
    stuck = _scenario("001").state.copy()
    report = explore.explore(stuck, explore.Settings(invariants.by_names(["focus_in_showdown"])))
    assert (report.states, report.terminal, report.deadlocks) == (1, 1, 1)


def test_an_invariant_of_the_other_profile_is_not_checked() -> None:
    """control_frozen_while_contested is the seed's (S 184.3.c): a cr-1.4 search that changes
    control while a battlefield is Contested (the same promise, written as a view invariant
    for both profiles, fails) reports nothing of it."""
    from engine import explore, invariants

    frozen = invariants.view_step_invariant(
        "frozen_in_both", "S 184.3.c",
        lambda before, step, after: all(
            before["control"][bf] == after["control"][bf]
            for bf in before["control"] if before["contested"][bf] and after["contested"][bf]))
    start = _scenario("223").state  # profile cr-1.4
    assert start.profile == "cr-1.4"
    report = explore.explore(start, explore.Settings(
        [*invariants.all_invariants(), frozen], max_states=20_000))
    assert "frozen_in_both" in report.violations
    assert "control_frozen_while_contested" not in report.violations


def test_focus_in_showdown_fails_on_focus_in_neutral() -> None:
    """CR 313: nobody has Focus in a Neutral state (no contest running, no winner)."""
    s = _scenario("001").state.copy()
    assert s.contest_at is None and s.winner is None
    s.focus = "P1"
    assert not _holds("focus_in_showdown", s)


def test_one_active_contest_witness_shows_the_contests() -> None:
    """A counterexample of one_active_contest must show where contests run and are staged:
    its final expect is made of the witness's keys."""
    game = _scenario("001")
    game.apply(Move("P1", ("U1",), "A"))
    s = game.state.copy()
    s.contest_at = None  # A is in Showdown, but the engine runs no contest
    (invariant,) = by_names(["one_active_contest"])
    assert not invariant.holds(s, actions.legal(s))
    shown = invariant.witness(s, None)
    assert {"state", "showdown", "staged"} <= set(shown), shown
