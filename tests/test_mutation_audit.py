"""The mutation audit (tools/mutation_audit.py) tells a broken rule that a scenario catches
from a change that nothing sees; and the rules it found unpinned stay pinned."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.helpers import load_script


@pytest.fixture(scope="module")
def tool() -> ModuleType:
    return load_script("riftchart_mutation_audit", ROOT / "tools" / "mutation_audit.py")


@pytest.fixture(scope="module")
def baseline(tool: ModuleType) -> Any:
    return tool.Baseline(with_searches=False)  # the scenarios alone judge here


@pytest.fixture
def rows(tool: ModuleType, baseline: Any) -> Any:
    return lambda module, function: list(tool.audit([module], only={function}, baseline=baseline))


# each found by the audit with every bundled scenario passing; now each has its scenario
@pytest.mark.parametrize(("module", "function", "code", "scenario"), [
    ("engine.scoring", "draw", "s.deck[player] -= drawn",
     "285_deck_runs_down_then_draws_nothing.yaml"),
    ("engine.effects", "enter_board", "s.next_order += 1",
     "286_board_order_counts_entering_again.yaml"),
])
def test_a_rule_the_audit_found_unpinned_is_caught_by_its_scenario(
        rows: Any, module: str, function: str, code: str, scenario: str) -> None:
    (row,) = [r for r in rows(module, function)
              if r["kind"] == "delete" and r["code"] == code]
    assert row["killed"] and scenario in row["by"]


def test_a_change_no_scenario_runs_survives_with_the_same_views(rows: Any) -> None:
    # printing JSON is no part of running a scenario: whatever breaks it, the games are alike
    found = rows("engine.runner", "print_json")
    assert found and not any(r["killed"] for r in found)
    assert all(r["same_views"] and r["same_states"] for r in found)


def test_what_only_chooses_the_trace_wording_is_not_mutated(rows: Any) -> None:
    # draw's ifs only choose among trace lines: the audit asks what the game does
    found = rows("engine.scoring", "draw")
    assert any(r["code"] == "s.deck[player] -= drawn" for r in found)
    assert not [r["code"] for r in found if r["code"].startswith("if ") or "say" in r["code"]]


def test_a_chart_transition_dropped_or_its_guard_flipped_is_caught(rows: Any) -> None:
    # Contested applied on arrival (S 184.3.a): every scenario with a contest needs it
    found = {r["kind"]: r for r in rows("charts", "uncontested -unit_arrives-> contested")}
    assert set(found) == {"drop", "flip guard arrival_contests", "skip action apply_contested"}
    assert all(r["killed"] for r in found.values())
    assert "001_flow_empty_battlefield_conquer.yaml" in found["drop"]["by"]


def test_a_change_only_the_game_state_shows_is_told_apart(rows: Any) -> None:
    # Cleanup's stale-contest step without its action: the chart leaves Contested, so every
    # view is as before, but the battlefield keeps its applier (tests/test_scenarios.py's
    # agreement check catches it; the audit says where to look)
    (row,) = [r for r in rows("charts", "contested -check_stale_contest-> uncontested")
              if r["kind"] == "skip action remove_stale_contested"]
    assert not row["killed"] and row["same_views"] and not row["same_states"]
