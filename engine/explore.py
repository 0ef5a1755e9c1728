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
turn before it opens the next, and each turn level by level. A state that a turn change reaches
is queued for the next turn at the depth it was first reached at; that next turn may reach it
again in fewer steps (from a turn change found earlier), and then it takes the shorter path
before it is expanded. So every state is expanded, and every trace written, with the fewest
turn changes, and within those, the fewest steps.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .actions import Action
from .expansion import Expanded, Expansion, Settings, itself, successor
from .game import Game
from .invariants import Invariant
from .prepared import Prepared, prepare
from .state import GameState
from .statekeys import Symmetry, state_key, stored_key
from .workers import PARALLEL_FROM, Workers

# prepare and Prepared (engine.prepared) are offered here too: from Python a search is
# explore.prepare(file), then explore.explore(prepared.start, settings)
__all__ = ["Explorer", "Prepared", "Report", "Settings", "Symmetry", "Violation", "explore",
           "prepare", "state_key", "stored_key", "successor"]

GRAPH_LIMIT = 5_000  # the most states a --graph file will hold


@dataclass
class Violation:
    """The first (shortest) failure of one invariant."""

    invariant: Invariant
    node: int  # the state that fails (the child, for a transition invariant)
    path: list[Action]  # the actions from the start that reach it
    witness: dict[str, Any]  # view keys that show it
    turns: int = 0  # the turn changes on the path

    @property
    def depth(self) -> int:
        return len(self.path)


@dataclass
class Report:
    """What a search found: counts, bounds, time, and the shortest violation of each invariant
    (see docs/model-checking.md, Report)."""

    states: int = 0
    transitions: int = 0
    max_depth: int = 0
    terminal: int = 0  # processed states with no legal action (a winner or a deadlock)
    deadlocks: int = 0
    frontier: int = 0  # states past --max-turns with legal actions: checked, not expanded
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


@dataclass(slots=True)
class _Node:
    """What the parent keeps per state: enough for traces and for the turn bound."""

    parent: int
    action: Action | None
    depth: int
    turns: int


Progress = Callable[[Report, int], None]


class Explorer:
    """Breadth-first search from one state; :meth:`run` returns the :class:`Report`."""

    def __init__(self, start: GameState, settings: Settings, progress: Progress | None = None):
        _check_arguments(start, settings)
        # a violation is kept by name: two of one name would mix their traces, and names that
        # differ only in case name one counterexample file where file names ignore case
        names = [invariant.name.casefold() for invariant in settings.invariants]
        twice = sorted({i.name for i in settings.invariants if names.count(i.name.casefold()) > 1})
        if twice:
            raise ValueError(f"two invariants share a name (case aside): {', '.join(twice)}")
        self.start = start
        self.settings = settings
        self.progress = progress
        self.symmetry = Symmetry(start) if settings.symmetry else None
        self.expansion = Expansion(settings, start.profile, self.symmetry)
        self.report = Report()
        self.nodes: list[_Node] = []
        self.index: dict[Any, int] = {}
        self._key_sizes: list[int] = []
        self._workers: Workers | None = None
        self._turn = 0  # the turn changes of the states being expanded

    # --- the search loop ----------------------------------------------------------------

    def run(self) -> Report:
        began = time.perf_counter()
        # The cyclic garbage collector is off while the search runs (and in the workers). A
        # search makes millions of objects that either die at once (freed by reference
        # counting) or live to its end (keys, nodes, queued states), and no reference cycles:
        # a full collection after searching the bundled models and every scenario finds
        # nothing. Left on, the collector would scan the long-lived objects over and over, a
        # tenth of the time or more. Were a cycle ever made, it would wait for the end.
        collecting = gc.isenabled()
        try:
            gc.disable()
            self._add(self.expansion.key(self.start), _Node(-1, None, 0, 0))
            seeds: dict[int, list[tuple[int, Any]]] = {0: [(0, self.start)]}
            for turn in range(self.settings.max_turns + 1):
                if not seeds:
                    break
                seeds = self._explore_turn(turn, seeds)
        finally:
            if collecting:
                gc.enable()
            if self._workers is not None:
                self._workers.close()
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
        self._turn = turn
        buckets = dict(seeds)
        next_turn: dict[int, list] = {}
        while buckets:
            depth = min(buckets)
            level = buckets.pop(depth)
            for result in self._process(level, expand):
                self._merge(result, buckets, next_turn)
            if self.progress:
                self.progress(self.report, len(self.nodes))
        return next_turn

    def _process(self, level: list[tuple[int, Any]], expand: bool) -> Iterator[Expanded]:
        """Results for a level in its order, from the worker processes or from here. Past
        --max-states the states already found are still expanded (their transitions counted
        and checked); only new states are refused (see :meth:`_discover`)."""
        if self._workers is None and self.settings.workers > 1 and len(level) >= PARALLEL_FROM:
            self._workers = Workers(self.settings.workers, self.expansion)
        if self._workers is not None:
            return self._workers.expand(level, expand)
        return (self.expansion.process(node, state, expand, itself) for node, state in level)

    def _merge(self, result: Expanded, buckets: dict, next_turn: dict) -> None:
        node = result.node
        report = self.report
        if result.legal_count == 0:
            report.terminal += 1
            report.deadlocks += 0 if result.won else 1
        if not self._expanding(node) and result.legal_count:
            report.frontier += 1  # actions left unexplored (a terminal state has none)
        if result.attributes is not None and not report.graph_dropped:
            report.nodes[node] = result.attributes
        for name, witness in result.failures:
            self._violated(name, node, node, None, witness, False)
        report.transitions += len(result.successors) + result.unlisted
        index, nodes, workers = self.index, self.nodes, self._workers
        depth = nodes[node].depth + 1
        for action, key, child, turn_changed, failures in result.successors:
            target = index.get(key)
            if target is None:
                target = self._discover(node, action, key, child, turn_changed, buckets,
                                        next_turn)
            elif child is not None:  # None: a worker knows the state is settled
                if nodes[target].depth > depth:  # see _take_shorter_path
                    self._take_shorter_path(node, action, target, child, turn_changed,
                                            buckets, next_turn)
                if workers is not None:
                    self._tell_if_unsettled(target, child)
            for name, witness in failures:
                self._violated(name, target, node, action, witness, turn_changed)
            if self.settings.graph and target >= 0 and not report.graph_dropped:
                report.edges.append((node, target, action))

    def _expanding(self, node: int) -> bool:
        return self.nodes[node].turns < self.settings.max_turns

    def _discover(self, node: int, action: Action, key: Any, child: GameState | tuple[int, int],
                  turn_changed: bool, buckets: dict, next_turn: dict) -> int:
        """A new state's node, queued for its level; -1 past --max-states. ``child`` is the
        state, or with workers, which worker holds it (worker, handle)."""
        if len(self.nodes) >= self.settings.max_states:
            self.report.complete = False
            return -1
        parent = self.nodes[node]
        new = self._add(key, _Node(node, action, parent.depth + 1, parent.turns + turn_changed))
        if self._workers is not None:
            assert isinstance(child, tuple), "with workers a child is (worker, handle)"
            self._workers.found(new, child)
            self._tell_if_unsettled(new, child)
        self._queue_of(new, buckets, next_turn).setdefault(self.nodes[new].depth, []).append(
            (new, child))
        return new

    def _take_shorter_path(self, node: int, action: Action, target: int,
                           child: GameState | tuple[int, int], turn_changed: bool,
                           buckets: dict, next_turn: dict) -> None:
        """A known state reached again in fewer steps than it is queued with: only a state of
        the next turn can be (see the module's docstring). Reached with as many turn changes
        (two paths to one state cannot differ by one turn change: its turn player would
        differ), it is queued again with this path, and with ``child``, the state this path
        leads to (under --symmetry it may be a mirror image of the one queued, and the trace
        must replay)."""
        parent, known = self.nodes[node], self.nodes[target]
        shorter = _Node(node, action, parent.depth + 1, parent.turns + turn_changed)
        if (shorter.turns, shorter.depth) < (known.turns, known.depth):
            queue = self._queue_of(target, buckets, next_turn)
            level = queue[known.depth]
            _, before = level.pop(next(i for i, (n, _) in enumerate(level) if n == target))
            if not level:
                del queue[known.depth]
            self.nodes[target] = shorter
            self._queue_of(target, buckets, next_turn).setdefault(shorter.depth, []).append(
                (target, child))
            if self._workers is not None:
                assert isinstance(child, tuple), "with workers a child is (worker, handle)"
                self._workers.moved(target, before, child)

    def _queue_of(self, node: int, buckets: dict, next_turn: dict) -> dict:
        """The queue ``node`` is in: this turn's levels, or the next turn's."""
        return next_turn if self.nodes[node].turns > self._turn else buckets

    def _tell_if_unsettled(self, node: int, child: Any) -> None:
        """A state of the next turn may yet be reached in fewer steps, if that turn is
        expanded: the worker that found ``child`` must not take its key as settled (it would
        no longer send it)."""
        if self.nodes[node].turns > self._turn and self._expanding(node):
            assert self._workers is not None, "only workers know states as settled"
            self._workers.unsettled(child)

    def _add(self, key: Any, entry: _Node) -> int:
        new = len(self.nodes)
        self.index[key] = new
        self.nodes.append(entry)
        if new % 97 == 0:  # a sample is enough for the average size
            self._key_sizes.append(len(key))
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
            assert entry.action is not None, "only the start (node 0) has no action"
            path.append(entry.action)
            node = entry.parent
        path.reverse()
        return path

    def _violated(self, name: str, node: int, parent: int, action: Action | None,
                  witness: dict, turn_changed: bool) -> None:
        """Keep the shortest failure of each invariant, shortest as the search orders states
        (the fewest turn changes, then the fewest steps): the path to ``parent``, then
        ``action`` for a transition invariant; ``node`` is the failing state (-1: not kept).
        A transition invariant can fail on a step that changes the turn before one that
        does not, from a state met later: the order is compared, not only the steps."""
        start = self.nodes[parent]
        turns, depth = start.turns + turn_changed, start.depth + (action is not None)
        known = self.report.violations.get(name)
        if known is not None and (known.turns, known.depth) <= (turns, depth):
            return
        path = self._path(parent) + ([action] if action is not None else [])
        invariant = next(i for i in self.settings.invariants if i.name == name)
        self.report.violations[name] = Violation(invariant, node, path, witness, turns)


MAX_WORKERS = 64  # more processes than this on one machine is a typing error, not a plan


def _check_arguments(start: Any, settings: Any) -> None:
    """A TypeError or ValueError naming what is wrong, before anything runs (the command line
    says the same of its options in its own words)."""
    if not isinstance(start, GameState):
        hint = " (a Game's is game.state)" if isinstance(start, Game) else ""
        raise TypeError(f"start must be a GameState{hint}, not {type(start).__name__}")
    if not isinstance(settings, Settings):
        raise TypeError(f"settings must be a Settings, not {type(settings).__name__}")
    if not isinstance(settings.invariants, (list, tuple)) or not all(
            isinstance(i, Invariant) for i in settings.invariants):
        raise TypeError("settings.invariants must be a list of Invariant (see "
                        "engine.invariants: all_invariants, by_names, view_invariant)")
    for name in ("max_turns", "max_states", "max_targets", "workers"):  # each 1 or more
        value = getattr(settings, name)
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"settings.{name} must be an int, not {type(value).__name__}")
        if value < 1:
            raise ValueError(f"settings.{name} must be 1 or more, not {value}")
    if settings.workers > MAX_WORKERS:
        raise ValueError(f"settings.workers must be at most {MAX_WORKERS}, not {settings.workers}")
    for name in ("symmetry", "graph"):
        if not isinstance(getattr(settings, name), bool):
            raise TypeError(f"settings.{name} must be True or False")


def explore(start: GameState, settings: Settings, progress: Progress | None = None) -> Report:
    """Explore from ``start``; see :class:`Settings` and :class:`Report`."""
    return Explorer(start, settings, progress).run()
