"""Break a rule on purpose: at least one bundled scenario must notice.

Each mutation replaces one rules procedure or guard with a wrong one; the bundled scenarios
are run under it and at least one must fail. A mutation no scenario catches is a rule the
scenarios do not really test.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engine import combat, contest, models, scoring
from engine.runner import OK, run_file
from tests.conftest import SCENARIOS


def _first_focus_to_turn_player(self: models.FocusModel) -> None:
    contest.give_focus(self.table, self.state.turn_player, self.rule, why="the turn player")


def _conquer_ignores_scored(s, bf, player) -> bool:  # noqa: ANN001
    return True


def _stunned_units_deal_damage(units) -> int:  # noqa: ANN001
    return sum(max(0, u.might) for u in units)


def _damage_in_board_order(total, targets):  # noqa: ANN001
    return combat._fill(total, sorted(targets, key=lambda u: u.order))


def _no_final_point_rule(table, bf, player, method) -> None:  # noqa: ANN001
    s = table.state
    table.update_field(bf, scored=s.fields[bf].scored + (player,))
    scoring.add_points(table, player, 1)


MUTATIONS: dict[str, tuple[object, str, Callable]] = {
    "first Focus to the turn player": (
        models.FocusModel,
        "give_focus_to_applier",
        _first_focus_to_turn_player,
    ),
    "triggered chains pass Focus": (models.FocusModel, "chain_begun_by_card", lambda self: True),
    "card chains keep Focus": (models.FocusModel, "chain_begun_by_card", lambda self: False),
    "a Conquer scores twice in a turn": (scoring, "may_score", _conquer_ignores_scored),
    "Contested is never stale": (
        models.BattlefieldModel,
        "applier_has_no_units_here",
        lambda self: False,
    ),
    "control is never frozen (seed)": (
        models.BattlefieldModel, "contested_here", lambda self: False),
    "control is frozen only while a Chain exists (cr-1.4)": (
        models.BattlefieldModel, "open_with_no_contest_here", lambda self: self.state.chain_open),
    "combats are never staged": (
        models.BattlefieldModel,
        "opponents_face_off_here",
        lambda self: False,
    ),
    "stunned units deal damage": (combat, "total_might", _stunned_units_deal_damage),
    "Tank and Backline ignored": (combat, "automatic_assignment", _damage_in_board_order),
    "no final-point rule": (scoring, "score", _no_final_point_rule),
    "joining a contest applies it again": (
        models.BattlefieldModel,
        "join_contest",
        lambda self: self.table.update_field(self.bf, applier=self.args["player"]),
    ),
    "the seed conversion passes Focus": (
        models.FocusModel,
        "seed_keeps_focus",
        lambda self: False,
    ),
}


def _failing_scenarios() -> list[str]:
    return [p.name for p in SCENARIOS if run_file(p).code != OK]


def test_every_scenario_passes_unbroken():
    assert _failing_scenarios() == []


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_a_broken_rule_fails_a_scenario(name, monkeypatch):
    owner, attribute, replacement = MUTATIONS[name]
    monkeypatch.setattr(owner, attribute, replacement)
    assert _failing_scenarios(), f"no bundled scenario notices: {name}"
