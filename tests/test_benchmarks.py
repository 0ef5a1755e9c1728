"""The benchmark's parts still work, on tiny bounds (its figures are measured by hand, with
``python3 benchmarks/run.py``, never asserted here)."""

from __future__ import annotations

from types import ModuleType

from engine.runtime import FastRuntime, ReferenceRuntime
from tests.conftest import ROOT
from tests.helpers import load_script


def _bench() -> ModuleType:
    return load_script("riftchart_bench", ROOT / "benchmarks" / "run.py")


def test_recorded_events_replay_the_same_on_both_runtimes() -> None:
    bench = _bench()
    events = bench.record_events([bench.ONE_V_ONE], walks=2, steps=15)
    assert len(events) > 50
    _, reference = bench.replay(ReferenceRuntime(), events)
    _, fast = bench.replay(FastRuntime(), events)
    assert fast == reference


def test_the_naive_explorer_finds_the_same_first_states() -> None:
    bench = _bench()
    states, transitions, _ = bench.naive_explore(bench.ONE_V_ONE, 8)
    assert states >= 8 and transitions >= states - 1


def test_growth_variants_are_valid_scenarios(tmp_path) -> None:
    bench = _bench()
    rows = bench.bench_growth(True, tmp_path, 300)
    assert [(r["battlefields"], r["units_each"]) for r in rows] == [(1, 1), (2, 1), (1, 2), (2, 2)]
    assert rows[0]["complete"] and rows[0]["states"] == 171  # the figure in the docs
