"""Every bundled scenario passes, on both runtimes, with the charts agreeing with the view."""

from __future__ import annotations

import pytest

from engine.runner import OK, StepRecord, run_file
from engine.runtime import CheckedRuntime
from tests.chart_agreement import disagreements
from tests.conftest import SCENARIOS


def test_there_are_scenarios():
    assert len(SCENARIOS) >= 30


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario_passes_and_charts_agree(path):
    problems: list[str] = []

    def check(rec: StepRecord) -> None:
        problems.extend(f"step {rec.index}: {d}" for d in disagreements(rec.state, rec.configs))

    runtime = CheckedRuntime()
    result = run_file(path, runtime=runtime, on_step=check)
    assert result.code == OK, result.message
    assert not problems, problems
    assert runtime.events_checked > 0
