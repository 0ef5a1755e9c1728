"""The engine asks whether a chart is in a state by the state's name (``"contested" in
config``): a name that no chart has would make the question quietly answer False, so a state
renamed in a chart (to follow the rulebook's words) must be renamed where the engine asks too.
"""

from __future__ import annotations

import ast
from pathlib import Path

from engine import invariants
from engine.runtime import compiled
from engine.state import PHASES
from statecharts import CHARTS
from tests.conftest import ROOT


def _asked_names() -> dict[str, list[str]]:
    """Every string tested for membership in an expression that names a configuration, with
    where it is asked."""
    asked: dict[str, list[str]] = {}
    for path in sorted((ROOT / "engine").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Compare) and isinstance(node.left, ast.Constant)
                    and isinstance(node.left.value, str)):
                continue
            for op, right in zip(node.ops, node.comparators, strict=True):
                if isinstance(op, ast.In | ast.NotIn) and "config" in ast.unparse(right):
                    asked.setdefault(node.left.value, []).append(
                        f"{Path(path).name}:{node.lineno}")
    return asked


def test_every_state_the_engine_asks_about_is_a_chart_state() -> None:
    states = {state for name in CHARTS for state in compiled(name).states}
    asked = _asked_names()
    assert len(asked) >= 9  # contested, showdown, combat_staged... (the scan finds them)
    unknown = {name: where for name, where in asked.items() if name not in states}
    assert unknown == {}
    assert set(invariants._FOCUS_CYCLE) <= set(compiled("battlefield").states)


def _phases_compared() -> dict[str, list[str]]:
    """Every string a turn phase is compared with (``s.phase == "main"``), with where."""
    compared: dict[str, list[str]] = {}
    for path in sorted((ROOT / "engine").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Compare):
                continue
            sides = [node.left, *node.comparators]
            if not any(isinstance(side, ast.Attribute) and side.attr == "phase"
                       for side in sides):
                continue
            for side in sides:
                if isinstance(side, ast.Constant) and isinstance(side.value, str):
                    compared.setdefault(side.value, []).append(f"{path.name}:{node.lineno}")
    return compared


def test_every_phase_the_engine_compares_with_is_a_turn_chart_phase() -> None:
    """``phase`` is the turn chart's top-level state (state.PHASES, read from the chart): a
    phase renamed in the chart and not where the engine compares would make Moves and ending
    the turn quietly illegal (``s.phase == "main"``)."""
    compared = _phases_compared()
    assert {"main", "beginning"} <= set(compared)  # the scan finds them
    assert {name: where for name, where in compared.items() if name not in PHASES} == {}
