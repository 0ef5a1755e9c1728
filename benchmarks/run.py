"""The model checker's benchmark: every ratio measured in one run on the bundled models.

    .venv/bin/python benchmarks/run.py            # the full run (several minutes)
    .venv/bin/python benchmarks/run.py --quick    # smaller bounds: about a minute, plus the build

Sections, each printed with its figures and the target it is measured against:

1. runtimes: chart events recorded along random games on the bundled models, replayed on the
   compiled tables (the engine's FastRuntime) and on
   python-statemachine (ReferenceRuntime); the replays must end in the same configurations.
2. the 1v1 model explored completely on one core: states per second, bytes per state; then
   the same search by `riftchart check` on the sources and on the compiled build (setup.py,
   built here by benchmarks/compiled_build.py), each in a process of its own.
3. explorer against a naive explorer that deep-copies a python-statemachine-backed Game for
   every successor (bounded by states).
4. --workers 2 against one worker; --symmetry against the plain search.
5. how the number of states grows with battlefields and units (generated variants).

Times are wall-clock; CPU seconds of this process are shown beside them because the machine
may be shared (the load average is printed first).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import compiled_build  # noqa: E402
from engine import actions, explore, invariants  # noqa: E402
from engine.game import Game  # noqa: E402
from engine.runtime import FastRuntime, ReferenceRuntime, compiled, forget_compiled  # noqa: E402

ONE_V_ONE = ROOT / "models" / "1v1_two_battlefields.yaml"
FFA = ROOT / "models" / "ffa_three_players.yaml"


# --- 1. the runtimes on the same events --------------------------------------------------


class RecordingRuntime(FastRuntime):
    """The fast runtime, noting every event sent to it with the configuration it met and the
    value of every guard it could ask (guards only read, so asking them all changes nothing).
    For a FastRuntime (this subclass too) the game sends no event that no transition of the
    chart's configuration could take (engine.core.Table._dispatch reads that from the same
    tables): both runtimes are timed on the events that could move a chart."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, str, frozenset, dict[str, bool]]] = []

    def send(self, host: Any, key: str, chart: str, event: str, model: Any) -> list:
        config = host.configs[key]
        guards = {
            name: model.guard(name)
            for region in compiled(chart).plan(config, event)
            for _t, guards, _exits in region
            for name, _ in guards
        }
        self.events.append((key, chart, event, config, guards))
        return super().send(host, key, chart, event, model)


class _Host:
    def __init__(self) -> None:
        self.configs: dict[str, frozenset] = {}


class _Guards:
    """A model whose guards answer from a recorded table."""

    def __init__(self) -> None:
        self.values: dict[str, bool] = {}

    def guard(self, name: str) -> bool:
        return self.values[name]


def record_events(paths: list[Path], walks: int, steps: int, seed: int = 7) -> list[tuple]:
    """Chart events of random games (random legal actions) from each model's start."""
    rng = random.Random(seed)
    recorder = RecordingRuntime()
    for path in paths:
        for _ in range(walks):
            game = Game.from_scenario(path, runtime=recorder)
            for _ in range(steps):
                legal = game.legal_actions()
                if not legal:
                    break
                game.apply(rng.choice(legal))
    return recorder.events


def replay(runtime: Any, events: list[tuple]) -> tuple[float, list[frozenset]]:
    host, model = _Host(), _Guards()
    after = []
    began = time.perf_counter()
    for key, chart, event, config, guards in events:
        host.configs[key] = config
        model.values = guards
        runtime.send(host, key, chart, event, model)
        after.append(host.configs[key])
    return time.perf_counter() - began, after


def bench_runtimes(quick: bool) -> dict[str, Any]:
    events = record_events([ONE_V_ONE, FFA], walks=10 if quick else 40, steps=60)
    reference_time, reference = replay(ReferenceRuntime(), events)
    # cold: the charts compiled anew, every plan worked out as the events first meet it;
    # warm: the same events again, as a long game or a search meets them
    forget_compiled()
    cold_time, fast = replay(FastRuntime(), events)
    warm_time, again = replay(FastRuntime(), events)
    return {
        "events": len(events),
        "agree": fast == reference == again,
        "python_statemachine_events_per_s": round(len(events) / reference_time),
        "fast_cold_events_per_s": round(len(events) / cold_time),
        "fast_events_per_s": round(len(events) / warm_time),
        "fast_cold_ratio": round(reference_time / cold_time, 1),
        "fast_ratio": round(reference_time / warm_time, 1),
    }


# --- 2 and 4. the explorer --------------------------------------------------------------------


def run_explorer(path: Path, **settings: Any) -> dict[str, Any]:
    start = explore.prepare(str(path)).start
    cpu, before = time.process_time(), os.times()
    report = explore.explore(start, explore.Settings(invariants.all_invariants(), **settings))
    cpu, after = time.process_time() - cpu, os.times()
    workers_cpu = (after.children_user + after.children_system
                   - before.children_user - before.children_system)
    return {
        "states": report.states,
        "transitions": report.transitions,
        "complete": report.complete,
        "seconds": round(report.seconds, 2),
        "cpu_seconds": round(cpu, 2),
        "workers_cpu_seconds": round(workers_cpu, 2),
        "states_per_s": round(report.states_per_second),
        # every process's CPU: the parent's and, with --workers, the workers'
        "states_per_cpu_s": round(report.states / (cpu + workers_cpu)) if cpu else None,
        "bytes_per_state": round(report.bytes_per_state, 1),
        "violations": sorted(report.violations),
    }


def check_both(path: Path, workdir: Path, bound: int) -> dict[str, Any]:
    """``riftchart check --json`` on the sources and on the compiled build, one process each."""
    site = timed("compiling", lambda: compiled_build.build(workdir / "compiled"))
    reports = {}
    for name, where in (("sources", None), ("compiled", site)):
        done = compiled_build.riftchart(where, "check", str(path), "--json", "--max-states",
                                  str(bound), cwd=workdir)
        if done.returncode:
            raise RuntimeError(f"riftchart check on the {name} failed:\n{done.stderr}")
        reports[name] = json.loads(done.stdout)
    same = (compiled_build.without_timings(reports["sources"])
            == compiled_build.without_timings(reports["compiled"]))
    return {
        "states": reports["compiled"]["states"],
        "sources_states_per_s": round(reports["sources"]["states_per_second"]),
        "compiled_states_per_s": round(reports["compiled"]["states_per_second"]),
        "compiled_seconds": reports["compiled"]["seconds"],
        "ratio": round(reports["compiled"]["states_per_second"]
                       / reports["sources"]["states_per_second"], 2),
        "same_report": same,
    }


def deep_size(value: Any, seen: set[int] | None = None) -> int:
    """sys.getsizeof over a key and everything in it, each object counted once."""
    seen = set() if seen is None else seen
    if id(value) in seen:
        return 0
    seen.add(id(value))
    size = sys.getsizeof(value)
    if isinstance(value, (tuple, list, frozenset, set)):
        size += sum(deep_size(item, seen) for item in value)
    return size


def memory_per_key(path: Path, samples: int = 300) -> tuple[float, float]:
    """Average size in memory of the keys along random games: as tuples (deep size; strings
    shared by all keys are counted in every key: an upper bound) and as the explorer stores
    them (bytes)."""
    rng = random.Random(3)
    state = explore.prepare(str(path)).start
    sizes = []
    for _ in range(samples):
        key = explore.state_key(state)
        sizes.append((deep_size(key), sys.getsizeof(explore.stored_key(key))))
        legal = actions.legal(state)
        state = explore.successor(state, rng.choice(legal)) if legal else state
    return (sum(t for t, _ in sizes) / len(sizes), sum(b for _, b in sizes) / len(sizes))


# --- 3. the naive explorer ------------------------------------------------------------------


def _deep_copy(game: Game) -> Game:
    """The whole game copied, its python-statemachine machines included: what
    ``copy.deepcopy`` of an object does by default (riftchart makes a Game's deep copy a
    clone, which shares the runtime, so the naive explorer does it by hand)."""
    twin = object.__new__(Game)
    twin.__dict__.update(copy.deepcopy(game.__dict__))
    return twin


def naive_explore(path: Path, max_states: int) -> tuple[int, int, float]:
    """Breadth-first over whole python-statemachine-backed games, deep-copied per successor,
    keyed by their JSON snapshots: the straightforward way to write an explorer."""
    start = Game.from_scenario(path, runtime=ReferenceRuntime())
    seen = {start.to_json()}
    frontier = [start]
    transitions = 0
    began = time.perf_counter()
    while frontier and len(seen) < max_states:
        game = frontier.pop(0)
        turn = game.state.turn_player
        for action in game.legal_actions():
            child = _deep_copy(game)
            child.apply(action)
            transitions += 1
            key = child.to_json()
            if key not in seen:
                seen.add(key)
                if child.state.turn_player == turn:
                    frontier.append(child)
    return len(seen), transitions, time.perf_counter() - began


# --- 5. growth ---------------------------------------------------------------------------------


def variant(battlefields: int, units: int) -> dict[str, Any]:
    """1v1: P1's units at base, P2's at the last battlefield (which P2 controls); one Action
    Stun for P1 and one Reaction Stun for P2. Mights differ so that no units are alike."""
    ids = [f"B{i + 1}" for i in range(battlefields)]
    fields = [{"id": bf} for bf in ids[:-1]] + [{"id": ids[-1], "controller": "P2"}]
    board = [{"id": f"U{i + 1}", "controller": "P1", "might": i + 1, "at": "base"}
             for i in range(units)]
    board += [{"id": f"E{i + 1}", "controller": "P2", "might": i + 1, "at": ids[-1]}
              for i in range(units)]
    return {
        "name": f"{battlefields} battlefields, {units} units each",
        "players": ["P1", "P2"],
        "battlefields": fields,
        "units": board,
        "hands": {
            "P1": [{"id": "S1", "type": "spell", "timing": "action", "effect": {"stun": {}}}],
            "P2": [{"id": "T1", "type": "spell", "timing": "reaction", "effect": {"stun": {}}}],
        },
    }


def bench_growth(quick: bool, workdir: Path, bound: int) -> list[dict[str, Any]]:
    rows = []
    grid = [(1, 1), (2, 1), (1, 2), (2, 2)] if quick else [
        (1, 1), (2, 1), (3, 1), (1, 2), (2, 2), (3, 2), (1, 3), (2, 3)]
    for battlefields, units in grid:
        path = workdir / f"growth_{battlefields}bf_{units}u.yaml"
        path.write_text(yaml.safe_dump(variant(battlefields, units), sort_keys=False))
        result = run_explorer(path, max_states=bound)
        rows.append({"battlefields": battlefields, "units_each": units, **result})
    return rows


# --- the run ---------------------------------------------------------------------------------


def section(title: str) -> None:
    print(f"\n== {title}", flush=True)


def verdict(value: float, target: float, what: str) -> str:
    met = "met" if value >= target else "NOT met"
    return f"{what}: {value:,.1f} (target >= {target:,}) -> {met}"


def timed(label: str, fn: Callable[[], Any]) -> Any:
    began = time.perf_counter()
    result = fn()
    print(f"  ({label}: {time.perf_counter() - began:.1f} s)", flush=True)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="smaller bounds (about a minute, and the build unless --no-compiled)")
    parser.add_argument("--naive-states", type=int, default=None,
                        help="bound of the naive explorer (default 150, quick 40)")
    parser.add_argument("--json", metavar="FILE", help="also write every figure as JSON")
    parser.add_argument("--no-compiled", action="store_true",
                        help="skip the compiled build (it takes about half a minute to make)")
    args = parser.parse_args(argv)
    quick = args.quick
    bound = 20_000 if quick else 300_000
    naive_states = args.naive_states or (40 if quick else 150)
    workdir = Path(os.environ.get("TMPDIR", "/tmp")) / "riftchart-bench"
    workdir.mkdir(parents=True, exist_ok=True)
    figures: dict[str, Any] = {"quick": quick, "cpus": os.cpu_count(),
                               "load_average": os.getloadavg()}
    print(f"riftchart benchmark ({'quick' if quick else 'full'}); {os.cpu_count()} CPUs, "
          f"load average {', '.join(f'{x:.2f}' for x in os.getloadavg())}")

    section("1. runtimes on the same chart events (random games on both models)")
    rt = figures["runtimes"] = timed("runtimes", lambda: bench_runtimes(quick))
    print(f"  {rt['events']} events; configurations agree: {rt['agree']}")
    print(f"  python-statemachine {rt['python_statemachine_events_per_s']:,} events/s, "
          f"compiled FastRuntime {rt['fast_events_per_s']:,} "
          f"({rt['fast_cold_events_per_s']:,} cold: compiled anew, plans not yet made)")
    print("  " + verdict(rt["fast_ratio"], 50, "FastRuntime / python-statemachine"))
    print("  " + verdict(rt["fast_cold_ratio"], 50, "cold FastRuntime / python-statemachine"))

    section("2. the 1v1 model on one core" + (" (bounded)" if quick else ", completely"))
    one = figures["explorer_1v1"] = timed("1v1", lambda: run_explorer(ONE_V_ONE,
                                                                         max_states=bound))
    print(f"  {one['states']:,} states, {one['transitions']:,} transitions, complete: "
          f"{one['complete']}, {one['seconds']} s ({one['cpu_seconds']} s CPU), violations: "
          f"{one['violations'] or 'none'}")
    as_tuple, as_stored = memory_per_key(ONE_V_ONE)
    figures["key_bytes_in_memory"] = {"tuple": round(as_tuple), "stored": round(as_stored)}
    print(f"  {one['states_per_s']:,} states/s wall, {one['states_per_cpu_s']:,} per CPU s; "
          f"{one['bytes_per_state']} bytes per stored key; in memory (getsizeof) "
          f"{as_stored:,.0f} bytes per stored key, {as_tuple:,.0f} as tuples (deep)")
    print("  " + verdict(one["states_per_s"], 50_000, "states/s on one core (sources)"))
    if not args.no_compiled:
        both = figures["compiled_1v1"] = timed("sources and compiled", lambda: check_both(
            ONE_V_ONE, workdir, bound))
        print(f"  riftchart check, {both['states']:,} states: sources "
              f"{both['sources_states_per_s']:,} states/s, compiled "
              f"{both['compiled_states_per_s']:,} ({both['compiled_seconds']} s): "
              f"{both['ratio']}x; same report: {both['same_report']}")
        print("  " + verdict(both["compiled_states_per_s"], 50_000,
                             "states/s on one core (compiled)"))
    if one["complete"]:
        met = "met" if one["seconds"] <= 60 else "NOT met"
        print(f"  complete 1v1 exploration in {one['seconds']} s (target <= 60 s) -> {met}")

    section("3. explorer against a naive deep-copying python-statemachine explorer")
    states, steps, seconds = timed("naive", lambda: naive_explore(ONE_V_ONE, naive_states))
    naive_rate = states / seconds
    figures["naive"] = {"states": states, "transitions": steps, "seconds": round(seconds, 2),
                        "states_per_s": round(naive_rate, 1)}
    print(f"  naive: {states} states, {steps} transitions in {seconds:.1f} s = "
          f"{naive_rate:,.1f} states/s, {steps / seconds:,.1f} transitions/s")
    print("  " + verdict(one["states_per_s"] / naive_rate, 100, "explorer / naive, states/s"))
    per_step = (one["transitions"] / one["seconds"]) / (steps / seconds)
    print("  " + verdict(per_step, 100, "explorer / naive, transitions/s"))

    section("4. --workers 2 and --symmetry")
    two = figures["workers_2_1v1"] = timed("1v1 with 2 workers", lambda: run_explorer(
        ONE_V_ONE, max_states=bound, workers=2))
    same = (two["states"], two["transitions"]) == (one["states"], one["transitions"])
    print(f"  1v1, 2 workers: {two['seconds']} s against {one['seconds']} s; same states and "
          f"transitions: {same}")
    print("  " + verdict(one["seconds"] / two["seconds"], 1.6, "speed-up of 2 workers"))
    spent = two["cpu_seconds"] + two["workers_cpu_seconds"]
    print(f"  CPU: {spent:.1f} s in all with 2 workers ({two['cpu_seconds']} s in the parent) "
          f"against {one['cpu_seconds']} s with one: at most "
          f"{2 * one['cpu_seconds'] / spent:.2f}x on two idle cores")
    plain = figures["ffa_plain"] = timed("ffa", lambda: run_explorer(FFA, max_states=bound))
    sym = figures["ffa_symmetry"] = timed("ffa --symmetry", lambda: run_explorer(
        FFA, max_states=bound, symmetry=True))
    fewer, faster = plain["states"] / sym["states"], plain["seconds"] / sym["seconds"]
    print(f"  ffa: {plain['states']:,} states plain, {sym['states']:,} with --symmetry "
          f"({fewer:.2f}x fewer, {faster:.2f}x faster); same verdict: "
          f"{plain['violations'] == sym['violations']}")

    section("5. growth with battlefields and units (1v1, a Stun each)")
    rows = figures["growth"] = timed("growth", lambda: bench_growth(quick, workdir, 60_000))
    print(f"  {'battlefields':>12} {'units each':>10} {'states':>9} {'transitions':>11} "
          f"{'complete':>8} {'seconds':>8}")
    for row in rows:
        print(f"  {row['battlefields']:>12} {row['units_each']:>10} {row['states']:>9,} "
              f"{row['transitions']:>11,} {row['complete']!s:>8} {row['seconds']:>8}")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
