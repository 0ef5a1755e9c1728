"""The model checker: every reachable state of a small position, invariants, counterexamples.

``riftchart check FILE`` sets up a scenario, plays its action steps as a prefix, then explores
breadth-first every state that any sequence of legal actions of any player reaches, bounded by
a number of turn changes (``--max-turns``) and of states (``--max-states``). Every state is
checked against the state invariants of :mod:`engine.invariants` and every step against the
transition invariants; for each invariant that fails, the shortest path found is written as a
scenario file by :mod:`engine.counterexample`.

Design (after SPIN and TLC): a visited set of compact canonical keys (:func:`state_key`), parent
pointers for shortest traces, and level-synchronous search so that ``--workers N`` can split
each level among processes and the parent merges their results in a fixed order: the same
states, numbers and counterexamples whatever the number of workers.

States of a search are ordered by (turn changes, depth): the search finishes every state of one
turn before it opens the next, so a state is first met with the fewest turn changes, and within
those, with the fewest steps.
"""

from __future__ import annotations

import argparse
import gc
import json
import multiprocessing
import pickle
import sys
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from . import actions, counterexample
from .actions import Action
from .core import Table
from .errors import IllegalAction, ScenarioError
from .game import Game
from .invariants import Invariant, by_names
from .runtime import Configuration, FastRuntime, compiled
from .scenario import Scenario, load_scenario
from .state import GameState
from .view import state_name

GRAPH_LIMIT = 5_000  # the most states a --graph file will hold
_SERIAL_BELOW = 64  # levels smaller than this are expanded in the parent, even with workers

# --- state keys ------------------------------------------------------------------------------

_config_codes: dict[tuple[str, Configuration], int] = {}
_effect_tags: dict[int, tuple[Any, int]] = {}


def _config_code(chart: str, config: Configuration) -> int:
    """A configuration as a bit set over the chart's states: small, and the same number in
    every process (bit positions follow the chart's document order)."""
    code = _config_codes.get((chart, config))
    if code is None:
        states = compiled(chart).states
        code = sum(1 << states[s].order for s in config)
        _config_codes[(chart, config)] = code
    return code


def _effect_tag(effect: Any) -> int:
    """A stable number for an effect mapping (a trigger's label does not say which of a unit's
    triggers it is). Kept with its object so that its id is never reused."""
    if effect is None:
        return 0
    entry = _effect_tags.get(id(effect))
    if entry is None:
        entry = (effect, zlib.crc32(repr(effect).encode()))
        _effect_tags[id(effect)] = entry
    return entry[1]


def _by_order(unit: Any) -> int:
    return unit.order


def state_key(s: GameState) -> tuple:
    """A compact, hashable, canonical value of everything in ``s`` that affects the future.

    Units are listed in board order, so their position stands for their order (only the
    relative order matters: a unit entering the board always goes last). Static data (Might,
    keywords, triggers, card texts, names) is fixed by ids and left out; so is the trace.
    """
    units = tuple(
        (u.id, u.owner, u.controller, u.at, u.exhausted, u.stunned, u.damage, u.designation)
        for u in sorted(s.units.values(), key=_by_order)
    )
    return (
        units,
        tuple((f.controller, f.applier, f.scored) for f in s.fields.values()),
        tuple(_config_code(key.partition(":")[0], c) for key, c in s.configs.items()),
        _chain_key(s.chain),
        tuple(tuple(sorted(c.id if c else "" for c in hand)) for hand in s.hands.values()),
        _rest_key(s),
    )


def _chain_key(chain: Iterable[Any]) -> tuple:
    return tuple(
        (i.kind, i.label, i.controller, i.targets, i.to, i.chosen_to, i.source, i.where,
         _effect_tag(i.effect) if i.kind == "trigger" else 0)
        for i in chain
    )


def _same(uid: Any) -> Any:
    return uid


def _rest_key(s: GameState, rn: Callable[[Any], Any] = _same) -> tuple:
    """The scalars, with unit ids passed through ``rn`` (a renaming, for symmetry)."""
    pending = None
    if s.pending:
        p = s.pending
        pending = (p["player"], p["kind"], tuple(map(rn, p["options"])), p.get("total"))
    return (
        s.turn_player, tuple(s.scores.values()), tuple(s.deck.values()), s.focus, s.priority,
        s.passes, s.chain_begun_by, s.focus_at_chain_start, s.contest_at, s.attacker,
        s.defender, s.winner, s.attackers_recalled, s.resolving, s.blocked_scoring, pending,
        tuple(sorted((p, tuple(sorted((rn(u), n) for u, n in a.items())))
                     for p, a in s.damage_plan.items())),
        tuple((k, _chain_key([i])) for k, i in s.queued_triggers),
    )


class Symmetry:
    """Units with equal static attributes and the same owner and controller are interchangeable;
    a state's key lists them sorted by what they are doing, not by their ids.

    Units that any effect names by id (cards, triggers, battlefield abilities) are never
    interchangeable. Board order is kept among the units at each battlefield (it decides the
    damage assignment there), not across locations: that is the reduction's one abstraction.
    """

    def __init__(self, start: GameState):
        named = _named_ids(start)
        groups: dict[tuple, list[str]] = {}
        for unit in sorted(start.units.values(), key=_by_order):
            if unit.id in named:
                continue
            static = (unit.owner, unit.controller, unit.might, unit.keywords, unit.triggers,
                      unit.name)
            groups.setdefault(static, []).append(unit.id)
        self.classes = tuple(tuple(ids) for ids in groups.values() if len(ids) > 1)

    def key(self, s: GameState) -> tuple:
        if not self.classes:
            return state_key(s)
        return _renamed_key(s, self._renaming(s))

    def _renaming(self, s: GameState) -> dict[str, str]:
        names: dict[str, str] = {}
        for ids in self.classes:
            members = sorted(ids, key=lambda uid: _dynamic(s.units[uid]))
            for old, new in zip(members, ids, strict=True):
                if old != new:
                    names[old] = new
        return names


def _dynamic(unit: Any) -> tuple:
    return (unit.controller, unit.at, unit.exhausted, unit.stunned, unit.damage,
            unit.designation or "", unit.order)


def _named_ids(start: GameState) -> set[str]:
    """Every string inside an effect, a target list or a chain item: the ids effects name."""
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, str):
            found.add(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, (list, tuple)):
            for item in value:
                walk(item)
        elif hasattr(value, "__dataclass_fields__"):
            for name in value.__dataclass_fields__:
                walk(getattr(value, name))

    walk([list(start.hands.values()), [u.triggers for u in start.units.values()],
          [f.abilities for f in start.fields.values()], start.chain])
    return found & set(start.units)


def _renamed_key(s: GameState, names: dict[str, str]) -> tuple:
    def rn(uid: Any) -> Any:
        return names.get(uid, uid) if isinstance(uid, str) else uid

    def label(text: str) -> str:
        source, sep, event = text.partition(":")
        return rn(source) + sep + event if sep else rn(text)

    units = tuple(sorted(
        (rn(u.id), u.owner, u.controller, u.at, u.exhausted, u.stunned, u.damage, u.designation)
        for u in s.units.values()
    ))
    board = tuple(
        tuple(rn(u.id) for u in sorted(s.units.values(), key=_by_order) if u.at == bf)
        for bf in s.fields
    )
    chain = tuple(
        (i.kind, label(i.label), i.controller,
         tuple(map(rn, i.targets)) if isinstance(i.targets, tuple) else i.targets,
         i.to, i.chosen_to, rn(i.source), i.where,
         _effect_tag(i.effect) if i.kind == "trigger" else 0)
        for i in s.chain
    )
    return (
        units,
        board,
        tuple((f.controller, f.applier, f.scored) for f in s.fields.values()),
        tuple(_config_code(key.partition(":")[0], c) for key, c in s.configs.items()),
        chain,
        tuple(tuple(sorted(rn(c.id) if c else "" for c in hand)) for hand in s.hands.values()),
        _rest_key(s, rn),
    )


# --- successors ---------------------------------------------------------------------------


def successor(state: GameState, action: Action, runtime: Any | None = None) -> GameState:
    """The state after a legal ``action``; ``state`` itself is left as it was."""
    child = state.copy()
    table = Table(child, runtime or FastRuntime())
    table.tracing = False
    actions.perform(table, action)
    return child


# --- the search ------------------------------------------------------------------------------


@dataclass
class Settings:
    """What to explore and what to check."""

    invariants: list[Invariant]
    max_turns: int = 1
    max_states: int = 200_000
    symmetry: bool = False
    workers: int = 1
    graph: bool = False


@dataclass
class Violation:
    """The first (shortest) failure of one invariant."""

    invariant: Invariant
    node: int  # the state that fails (the child, for a transition invariant)
    path: list[Action]  # the actions from the start that reach it
    witness: dict[str, Any]  # view keys that show it

    @property
    def depth(self) -> int:
        return len(self.path)


@dataclass
class Report:
    states: int = 0
    transitions: int = 0
    max_depth: int = 0
    terminal: int = 0  # processed states with no legal action (a winner or a deadlock)
    deadlocks: int = 0
    frontier: int = 0  # states past --max-turns: checked, not expanded
    complete: bool = True  # False when --max-states stopped the search
    seconds: float = 0.0
    bytes_per_state: float = 0.0
    violations: dict[str, Violation] = field(default_factory=dict)
    edges: list[tuple[int, int, Action]] = field(default_factory=list)
    nodes: dict[int, dict[str, Any]] = field(default_factory=dict)
    graph_dropped: bool = False

    @property
    def states_per_second(self) -> float:
        return self.states / self.seconds if self.seconds else 0.0


@dataclass
class _Node:
    """What the parent keeps per state: enough for traces and for the turn bound."""

    parent: int
    action: Action | None
    depth: int
    turns: int


class _Context:
    """Everything a process needs to expand states: built once per process."""

    def __init__(self, settings: Settings, profile: str, symmetry: Symmetry | None,
                 worker: bool = False):
        self.runtime = FastRuntime()
        applying = [inv for inv in settings.invariants if inv.applies_to(profile)]
        self.state_checks = [inv for inv in applying if inv.kind == "state"]
        self.transition_checks = [inv for inv in applying if inv.kind == "transition"]
        self.key = symmetry.key if symmetry else state_key
        # keys a worker has already sent with their state (the parent needs none of them)
        self.emitted: set | None = set() if worker else None
        self.graph = settings.graph

    def process(self, item: tuple[int, GameState | bytes, bool]) -> tuple:
        """Check one state and, if ``expand``, compute its successors.

        Returns (node, legal count, winner?, state failures, successors, graph attributes);
        a successor is (action, key, child, turn changed?, transition failures). In a worker
        the child is pickled here, so that the parent only keeps and forwards bytes (it never
        needs the state itself), and it is None when this worker has sent that key before:
        the parent has it already.
        """
        node, state, expand = item
        if isinstance(state, bytes):
            state = pickle.loads(state)
        legal = actions.legal(state)
        failures = [
            (inv.name, inv.witness(state, None))
            for inv in self.state_checks
            if not inv.holds(state, legal)
        ]
        successors = []
        if expand:
            for action in legal:
                successors.append(self._step(state, action))
        attributes = _node_attributes(state) if self.graph else None
        return node, len(legal), state.winner is not None, failures, successors, attributes

    def _step(self, state: GameState, action: Action) -> tuple:
        child = successor(state, action, self.runtime)
        failures = [
            (inv.name, inv.witness(child, state))
            for inv in self.transition_checks
            if not inv.holds(state, action, child)
        ]
        key = self.key(child)
        sent: GameState | bytes | None = child
        if self.emitted is not None:
            if key in self.emitted:
                sent = None
            else:
                self.emitted.add(key)
                sent = pickle.dumps(child, protocol=pickle.HIGHEST_PROTOCOL)
        return action, key, sent, child.turn_player != state.turn_player, failures


def _node_attributes(s: GameState) -> dict[str, Any]:
    return {
        "state": state_name(s),
        "turn": s.turn_player,
        "focus": s.focus or "",
        "priority": s.priority or "",
        "chain": " ".join(i.label for i in s.chain),
        "winner": s.winner or "",
    }


_WORKER: _Context | None = None


def _worker_start(settings: Settings, profile: str, symmetry: Symmetry | None) -> None:
    global _WORKER
    _WORKER = _Context(settings, profile, symmetry, worker=True)


def _worker_batch(batch: list[tuple[int, GameState | bytes, bool]]) -> list[tuple]:
    assert _WORKER is not None
    results = [_WORKER.process(item) for item in batch]
    gc.freeze()  # the keys it has sent live on: keep the collector from scanning them again
    return results


Progress = Callable[[Report, int], None]


class Explorer:
    """Breadth-first search from one state; :meth:`run` returns the :class:`Report`."""

    def __init__(self, start: GameState, settings: Settings, progress: Progress | None = None):
        self.start = start
        self.settings = settings
        self.progress = progress
        self.symmetry = Symmetry(start) if settings.symmetry else None
        self.context = _Context(settings, start.profile, self.symmetry)
        self.report = Report()
        self.nodes: list[_Node] = []
        self.index: dict[Any, int] = {}
        self._key_sizes: list[int] = []
        self._pool: Any = None

    # --- the search loop ----------------------------------------------------------------

    def run(self) -> Report:
        began = time.perf_counter()
        self._add(self.context.key(self.start), _Node(-1, None, 0, 0))
        seeds: dict[int, list[tuple[int, GameState]]] = {0: [(0, self.start)]}
        try:
            if self.settings.workers > 1:
                self._pool = _pool(self.settings, self.start.profile, self.symmetry)
            for turn in range(self.settings.max_turns + 1):
                if not seeds:
                    break
                seeds = self._explore_turn(turn, seeds)
        finally:
            gc.unfreeze()
            if self._pool is not None:
                self._pool.terminate()
                self._pool.join()
        report = self.report
        report.seconds = time.perf_counter() - began
        report.states = len(self.nodes)
        report.max_depth = max(n.depth for n in self.nodes)
        sizes = self._key_sizes
        report.bytes_per_state = sum(sizes) / len(sizes) if sizes else 0.0
        return report

    def _explore_turn(self, turn: int, seeds: dict[int, list]) -> dict[int, list]:
        """Every state reachable without another turn change, by depth; returns the states
        that a turn change reaches (the next turn's seeds)."""
        expand = turn < self.settings.max_turns
        buckets = dict(seeds)
        next_turn: dict[int, list] = {}
        while buckets:
            depth = min(buckets)
            level = buckets.pop(depth)
            for node, result in self._process(level, expand):
                self._merge(node, result, buckets, next_turn)
            # the visited keys live until the end: the cyclic collector need not scan them
            # again and again (about a tenth of the time on large searches)
            gc.freeze()
            if self.progress:
                self.progress(self.report, len(self.nodes))
        return next_turn

    def _process(self, level: list[tuple[int, GameState]], expand: bool) -> Iterator:
        """Results for a level in its order, from the worker processes or from here. Whether
        a state is expanded is decided for the whole level before any result is merged, so
        that one worker and several explore exactly the same transitions."""
        if len(self.nodes) >= self.settings.max_states and expand:
            self.report.complete = False  # the level is checked but not expanded
            expand = False
        items = [(node, state, expand) for node, state in level]
        if self._pool is None or len(items) < _SERIAL_BELOW:
            for item in items:
                yield item[0], self.context.process(item)
            return
        size = max(16, len(items) // (self.settings.workers * 8))
        batches = [items[i : i + size] for i in range(0, len(items), size)]
        for results in self._pool.imap(_worker_batch, batches):
            for result in results:
                yield result[0], result

    def _merge(self, node: int, result: tuple, buckets: dict, next_turn: dict) -> None:
        _, legal_count, won, failures, successors, attributes = result
        report = self.report
        if legal_count == 0:
            report.terminal += 1
            report.deadlocks += 0 if won else 1
        if not self._expanding(node):
            report.frontier += 1
        if attributes is not None and not report.graph_dropped:
            report.nodes[node] = attributes
        for name, witness in failures:
            self._violated(name, node, node, None, witness)
        for action, key, child, turn_changed, failures in successors:
            report.transitions += 1
            target = self._reach(node, action, key, child, turn_changed, buckets, next_turn)
            for name, witness in failures:
                self._violated(name, target, node, action, witness)
            if target >= 0 and self.settings.graph and not report.graph_dropped:
                report.edges.append((node, target, action))

    def _expanding(self, node: int) -> bool:
        return self.nodes[node].turns < self.settings.max_turns

    def _reach(self, node: int, action: Action, key: Any, child: GameState | bytes | None,
               turn_changed: bool, buckets: dict, next_turn: dict) -> int:
        """The child's node, adding it (and queueing it) if it is new; -1 past --max-states."""
        found = self.index.get(key)
        if found is not None:
            return found
        if len(self.nodes) >= self.settings.max_states:
            self.report.complete = False
            return -1
        assert child is not None, "a process left out the state of a key it had not sent"
        parent = self.nodes[node]
        entry = _Node(node, action, parent.depth + 1, parent.turns + turn_changed)
        new = self._add(key, entry)
        queue = next_turn if turn_changed else buckets
        queue.setdefault(entry.depth, []).append((new, child))
        return new

    def _add(self, key: Any, entry: _Node) -> int:
        new = len(self.nodes)
        self.index[key] = new
        self.nodes.append(entry)
        if new % 97 == 0:  # a sample is enough for the average size
            self._key_sizes.append(len(pickle.dumps(key, protocol=pickle.HIGHEST_PROTOCOL)))
        if self.settings.graph and new >= GRAPH_LIMIT:
            self.report.graph_dropped = True
            self.report.edges.clear()
            self.report.nodes.clear()
        return new

    # --- traces -------------------------------------------------------------------------

    def _path(self, node: int) -> list[Action]:
        path: list[Action] = []
        while node > 0:
            entry = self.nodes[node]
            path.append(entry.action)
            node = entry.parent
        path.reverse()
        return path

    def _violated(self, name: str, node: int, parent: int, action: Action | None,
                  witness: dict) -> None:
        """Keep the shortest failure of each invariant: the path to ``parent``, then
        ``action`` for a transition invariant; ``node`` is the failing state (-1: not kept)."""
        depth = self.nodes[parent].depth + (action is not None)
        known = self.report.violations.get(name)
        if known is not None and known.depth <= depth:
            return
        path = self._path(parent) + ([action] if action is not None else [])
        invariant = next(i for i in self.settings.invariants if i.name == name)
        self.report.violations[name] = Violation(invariant, node, path, witness)


def _pool(settings: Settings, profile: str, symmetry: Symmetry | None) -> Any:
    """Worker processes; forked where possible so that they start at once and share the
    parent's compiled charts (and any patched rules, which the mutation tests rely on)."""
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    return context.Pool(settings.workers, _worker_start, (settings, profile, symmetry))


def explore(start: GameState, settings: Settings, progress: Progress | None = None) -> Report:
    """Explore from ``start``; see :class:`Settings` and :class:`Report`."""
    return Explorer(start, settings, progress).run()


# --- from a scenario file ----------------------------------------------------------------------


@dataclass
class Prepared:
    """A scenario set up and its action steps played: the state the search starts from."""

    scenario: Scenario
    start: GameState
    prefix: list[dict[str, Any]]  # the action steps, as written in the file


def prepare(path: str, rules: str | None = None) -> Prepared:
    """Load ``path``, set it up and play its action steps (``expect`` steps are skipped).

    Raises :class:`ScenarioError` for a bad file or a refused step.
    """
    scenario = load_scenario(path)
    if rules:
        scenario = scenario.with_rules(rules)
    game = Game.from_scenario(scenario)
    prefix = []
    for step in scenario.steps:
        if step.kind in ("expect", "expect_error"):
            continue
        try:
            game.apply(actions.from_step(step.kind, step.args))
        except IllegalAction as refused:
            field_path = f"steps[{step.index - 1}].{step.kind}"
            raise ScenarioError(path, field_path, f"refused: {refused}", step.line) from None
        prefix.append(step.as_mapping())
    return Prepared(scenario, game.state, prefix)


# --- the command ---------------------------------------------------------------------------


def main(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``riftchart check``: 0 explored and nothing violated, 1 a violation, 2 bad input."""
    if args.list:
        _print_invariants(out)
        return 0
    problem = _bad_arguments(args)
    if problem:
        err.write(f"riftchart check: {problem}\n")
        return 2
    try:
        chosen = by_names(args.invariant)
    except KeyError as unknown:
        err.write(f"riftchart check: unknown invariant {unknown.args[0]} (see --list)\n")
        return 2
    try:
        prepared = prepare(args.file, args.rules)
    except ScenarioError as error:
        err.write(f"{error}\n")
        return 2
    settings = Settings(chosen, args.max_turns, args.max_states, args.symmetry, args.workers,
                        graph=bool(args.graph))
    report, plain = _run(prepared, settings, err)
    try:
        written = counterexample.write_all(args.file, prepared, report, Path(args.out),
                                           args.rules)
        graph_note = _write_graph(args.graph, report, err) if args.graph else None
    except OSError as error:
        err.write(f"riftchart check: cannot write {error.filename}: {error.strerror}\n")
        return 2
    summary = _summary(args, prepared, settings, report, plain, written, graph_note)
    if args.json:
        out.write(json.dumps(summary, indent=2) + "\n")
    else:
        _print_summary(summary, out)
    return 1 if report.violations else 0


def _bad_arguments(args: argparse.Namespace) -> str | None:
    if not args.file:
        return "a scenario FILE is needed (or --list)"
    if args.max_turns < 0:
        return "--max-turns must be 0 or more"
    if args.max_states < 1:
        return "--max-states must be 1 or more"
    if args.workers < 1:
        return "--workers must be 1 or more"
    if args.graph and not args.graph.endswith((".graphml", ".dot", ".gv")):
        return "--graph FILE must end in .graphml or .dot"
    return None


def _run(prepared: Prepared, settings: Settings, err: TextIO) -> tuple[Report, Report | None]:
    """The search, with a progress bar on a terminal; with --symmetry, the plain search too,
    to measure the reduction."""
    with _progress_bar(err, settings.max_states) as progress:
        report = explore(prepared.start, settings, progress)
    plain = None
    if settings.symmetry:
        plain_settings = Settings(settings.invariants, settings.max_turns, settings.max_states,
                                  False, settings.workers)
        with _progress_bar(err, settings.max_states, "without symmetry") as progress:
            plain = explore(prepared.start, plain_settings, progress)
    return report, plain


class _progress_bar:
    """A rich progress bar on a terminal (stderr); nothing when the output is not a TTY."""

    def __init__(self, err: TextIO, total: int, label: str = "exploring"):
        self.err, self.total, self.label = err, total, label
        self.bar: Any = None

    def __enter__(self) -> Progress | None:
        if not (hasattr(self.err, "isatty") and self.err.isatty()):
            return None
        try:
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
        except ImportError:
            return None
        self.bar = Progress(
            TextColumn("{task.description}"), BarColumn(),
            TextColumn("{task.completed} states, {task.fields[transitions]} transitions"),
            TimeElapsedColumn(), console=Console(file=self.err), transient=True,
        )
        self.bar.start()
        task = self.bar.add_task(self.label, total=self.total, transitions=0)

        def update(report: Report, states: int) -> None:
            self.bar.update(task, completed=states, transitions=report.transitions)

        return update

    def __exit__(self, *exc: Any) -> None:
        if self.bar is not None:
            self.bar.stop()


def _write_graph(path: str, report: Report, err: TextIO) -> str:
    if report.graph_dropped:
        note = (f"graph not written: more than {GRAPH_LIMIT} states; bound the search with "
                f"--max-states {GRAPH_LIMIT} to draw a part of it")
        err.write(f"riftchart check: {note}\n")
        return note
    counterexample.write_graph(Path(path), report)
    return f"graph written to {path}"


def _summary(args: argparse.Namespace, prepared: Prepared, settings: Settings, report: Report,
             plain: Report | None, written: dict[str, Path], graph_note: str | None) -> dict:
    profile = prepared.start.profile
    checked = [inv.name for inv in settings.invariants if inv.applies_to(profile)]
    skipped = [inv.name for inv in settings.invariants if not inv.applies_to(profile)]
    summary: dict[str, Any] = {
        "file": args.file,
        "rules": profile,
        "invariants": checked,
        "not_applicable": skipped,
        "max_turns": settings.max_turns,
        "max_states": settings.max_states,
        "complete": report.complete,
        "states": report.states,
        "transitions": report.transitions,
        "max_depth": report.max_depth,
        "terminal_states": report.terminal,
        "deadlocks": report.deadlocks,
        "frontier_states": report.frontier,
        "seconds": round(report.seconds, 3),
        "states_per_second": round(report.states_per_second),
        "bytes_per_state": round(report.bytes_per_state, 1),
        "workers": settings.workers,
        "symmetry": None,
        "violations": [_violation_summary(v, written.get(name))
                       for name, v in report.violations.items()],
    }
    if plain is not None:
        summary["symmetry"] = {
            "states_without": plain.states,
            "states_with": report.states,
            "reduction": round(plain.states / report.states, 3) if report.states else None,
            "same_verdict": sorted(plain.violations) == sorted(report.violations),
        }
    if graph_note:
        summary["graph"] = graph_note
    return summary


def _violation_summary(v: Violation, path: Path | None) -> dict[str, Any]:
    return {
        "invariant": v.invariant.name,
        "rule": v.invariant.rule,
        "kind": v.invariant.kind,
        "depth": v.depth,
        "steps": [actions.to_step(a) for a in v.path],
        "expect": v.witness,
        "counterexample": str(path) if path else None,
    }


def _print_summary(summary: dict, out: TextIO) -> None:
    done = "complete" if summary["complete"] else f"stopped at --max-states {summary['max_states']}"
    out.write(f"== check {summary['file']} [rules: {summary['rules']}]\n")
    out.write(f"explored: {done}, within {summary['max_turns']} turn change(s)\n")
    for label, key in (("states", "states"), ("transitions", "transitions"),
                       ("max depth", "max_depth"), ("terminal states", "terminal_states"),
                       ("deadlocks", "deadlocks"), ("past --max-turns", "frontier_states"),
                       ("seconds", "seconds"), ("states/second", "states_per_second"),
                       ("bytes/state (key)", "bytes_per_state"), ("workers", "workers")):
        out.write(f"  {label:<18} {summary[key]}\n")
    sym = summary["symmetry"]
    if sym:
        out.write(f"  symmetry: {sym['states_without']} states without, {sym['states_with']} "
                  f"with ({sym['reduction']}x), same verdict: {sym['same_verdict']}\n")
    if summary.get("graph"):
        out.write(f"  {summary['graph']}\n")
    out.write(f"invariants checked: {', '.join(summary['invariants'])}\n")
    if summary["not_applicable"]:
        out.write(f"not for this profile: {', '.join(summary['not_applicable'])}\n")
    if not summary["violations"]:
        out.write("no violation\n")
    for v in summary["violations"]:
        out.write(f"VIOLATED {v['invariant']} ({v['rule']}) after {v['depth']} step(s): "
                  f"{v['counterexample']}\n")


def _print_invariants(out: TextIO) -> None:
    from .invariants import all_invariants

    for inv in all_invariants():
        scope = "" if len(inv.profiles) > 1 else f", profile {inv.profiles[0]} only"
        out.write(f"{inv.name} [{inv.kind}, {inv.rule}{scope}]\n    {inv.doc}\n")


if __name__ == "__main__":  # pragma: no cover - handy for profiling: python -m engine.explore
    from .cli import build_parser

    parsed = build_parser().parse_args(["check", *sys.argv[1:]])
    raise SystemExit(main(parsed, sys.stdout, sys.stderr))
