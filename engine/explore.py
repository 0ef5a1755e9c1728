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
import marshal
import multiprocessing
import pickle
import signal
import sys
import time
import traceback
import zlib
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from multiprocessing.connection import Connection, wait
from operator import attrgetter
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


def _configs_key(configs: dict[str, Configuration]) -> tuple[int, ...]:
    """Every chart's configuration as its bit set (worked out once per combination of chart
    keys and configurations: all are immutable, and few combinations occur)."""
    combination = tuple(configs.items())
    codes = _key_codes.get(combination)
    if codes is None:
        codes = _key_codes[combination] = tuple(
            _config_code(key.partition(":")[0], config) for key, config in combination
        )
    return codes


_key_codes: dict[tuple[tuple[str, Configuration], ...], tuple[int, ...]] = {}
_by_order = attrgetter("order")
# what the key holds of a unit and of a battlefield, read in one call each
_unit_fields = attrgetter("id", "owner", "controller", "at", "exhausted", "stunned", "damage",
                          "designation")
_field_fields = attrgetter("controller", "applier", "scored")


def state_key(s: GameState) -> tuple:
    """A compact, hashable, canonical value of everything in ``s`` that affects the future.

    Units are listed in board order, so their position stands for their order (only the
    relative order matters: a unit entering the board always goes last). Static data (Might,
    keywords, triggers, card texts, names) is fixed by ids and left out; so is the trace.
    """
    return (
        s.units.derived(_units_key),
        tuple(map(_field_fields, s.fields.values())),
        _configs_key(s.configs),
        _chain_key(s.chain),
        tuple(tuple(sorted(c.id if c else "" for c in hand)) for hand in s.hands.values()),
        _rest_key(s),
    )


def _units_key(units: dict[str, Any]) -> tuple:
    return tuple(map(_unit_fields, sorted(units.values(), key=_by_order)))


def stored_key(key: tuple) -> bytes:
    """A state key as the explorer stores it: its tuples, strings, numbers, booleans and
    Nones written out by ``marshal`` (format 2).

    Equal keys give equal bytes whatever the objects' identities (format 2 shares nothing,
    unlike pickle, which writes a string met twice as a reference to the first, and later
    marshal formats), so the bytes made in different processes can be compared. (A key holds
    no sets: the order their items are written in would not be canonical.) A key is about
    440 bytes this way against about 2,400 as tuples in memory, and bytes hash and compare
    fast, which is most of what the parent does with workers.
    """
    return marshal.dumps(key, 2)


def _chain_key(chain: Iterable[Any]) -> tuple:
    return tuple(
        (i.kind, i.label, i.controller, i.targets, i.to, i.source, i.where,
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
         i.to, rn(i.source), i.where,
         _effect_tag(i.effect) if i.kind == "trigger" else 0)
        for i in s.chain
    )
    return (
        units,
        board,
        tuple(map(_field_fields, s.fields.values())),
        _configs_key(s.configs),
        chain,
        tuple(tuple(sorted(rn(c.id) if c else "" for c in hand)) for hand in s.hands.values()),
        _rest_key(s, rn),
    )


# --- successors ---------------------------------------------------------------------------


def successor(state: GameState, action: Action, runtime: Any | None = None,
              fixpoints: set[tuple] | None = None) -> GameState:
    """The state after a legal ``action``; ``state`` itself is left as it was.

    ``fixpoints``, kept from one successor to the next, lets Cleanup skip the states it has
    already found to need nothing (see :func:`engine.cleanup.inputs`).
    """
    child = state.copy()
    table = Table(child, runtime or FastRuntime())
    table.tracing = False
    table.fixpoints = fixpoints
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


@dataclass(slots=True)
class _Node:
    """What the parent keeps per state: enough for traces and for the turn bound."""

    parent: int
    action: Action | None
    depth: int
    turns: int


class _Context:
    """Everything a process needs to expand states: built once per process."""

    def __init__(self, settings: Settings, profile: str, symmetry: Symmetry | None):
        self.runtime = FastRuntime()
        self.fixpoints: set[tuple] = set()
        applying = [inv for inv in settings.invariants if inv.applies_to(profile)]
        self.state_checks = [inv for inv in applying if inv.kind == "state"]
        self.transition_checks = [inv for inv in applying if inv.kind == "transition"]
        self.canonical = symmetry.key if symmetry else state_key
        self.graph = settings.graph

    def key(self, state: GameState) -> bytes:
        """The visited-set key: the state key as bytes (see :func:`stored_key`)."""
        return stored_key(self.canonical(state))

    def process(self, node: int, state: GameState, expand: bool, keep: Keep) -> tuple:
        """Check one state and, if ``expand``, compute its successors.

        Returns (node, legal count, winner?, state failures, successors, graph attributes,
        0); a successor is (action, key, child, turn changed?, transition failures), where the
        child is what ``keep(key, child state)`` makes of it: the state itself in the parent,
        a reference to the worker that holds it in a worker. (The last number is how many more
        transitions there are that a worker did not list; see :func:`_expand_one`.)
        """
        legal = actions.legal(state)
        failures = [
            (inv.name, inv.witness(state, None))
            for inv in self.state_checks
            if not inv.holds(state, legal)
        ]
        successors = [self._step(state, action, keep) for action in legal] if expand else []
        attributes = _node_attributes(state) if self.graph else None
        return node, len(legal), state.winner is not None, failures, successors, attributes, 0

    def _step(self, state: GameState, action: Action, keep: Keep) -> tuple:
        child = successor(state, action, self.runtime, self.fixpoints)
        failures = [
            (inv.name, inv.witness(child, state))
            for inv in self.transition_checks
            if not inv.holds(state, action, child)
        ] or ()  # nearly always: and () costs nothing to send to the parent
        key = self.key(child)
        return action, key, keep(key, child), child.turn_player != state.turn_player, failures


Keep = Callable[[Any, GameState], Any]


def _itself(key: Any, child: GameState) -> GameState:
    return child


def _node_attributes(s: GameState) -> dict[str, Any]:
    return {
        "state": state_name(s),
        "turn": s.turn_player,
        "focus": s.focus or "",
        "priority": s.priority or "",
        "chain": " ".join(i.label for i in s.chain),
        "winner": s.winner or "",
    }


# --- workers ---------------------------------------------------------------------------------
#
# A state stays in the worker process that found it: a worker answers a level with keys and
# small references (worker, handle), the parent decides which children are new, and tells each
# worker which of its children to keep and under which node. Only the states that move to even
# out the load between workers, and the start, are ever pickled.

_RESULTS_PER_MESSAGE = 64  # a worker's results go to the parent in messages of this many states
_BALANCE_SLACK = 8  # a worker may hold this many states (or 5%) above its share of a level
# a worker that has finished its share takes half of what another still owes, if that is more
# than this many states (moving a state costs about a fifth of expanding it)
_STEAL_ABOVE = 2 * _RESULTS_PER_MESSAGE
_DRAIN_EVERY = 16  # while merging, the parent reads what the workers have sent every so often


def _worker_main(conn: Connection, index: int, settings: Settings, profile: str,
                 symmetry: Symmetry | None) -> None:
    """A worker process: holds states by node, expands the ones the parent names, and keeps
    the children the parent says are new. Requests are served in the order they come."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    context = _Context(settings, profile, symmetry)
    gc.disable()  # see Explorer.run
    held: dict[int, GameState] = {}  # node -> state, until it is expanded or given away
    found: list[GameState] = []  # this level's children, by handle
    handles: dict[Any, int] = {}  # their keys: a child found twice is kept once
    known: set[bytes] = set()  # the keys of the children of earlier levels: all are nodes

    def keep(key: Any, child: GameState) -> tuple[int, int] | None:
        if key in known:
            return None
        handle = handles.get(key)
        if handle is None:
            handle = handles[key] = len(found)
            found.append(child)
        return index, handle

    try:
        while True:
            request, *args = conn.recv()
            if request == "stop":
                return
            if request == "keep":  # the previous level's new nodes this worker found
                for handle, node in args[0]:
                    held[node] = found[handle]
                known.update(handles)
                found.clear()
                handles.clear()
            elif request == "adopt":
                for node, data in args[0]:
                    held[node] = pickle.loads(data)
            elif request == "give":
                conn.send([(node, _pickled(held.pop(node))) for node in args[0]])
            elif request == "expand":
                nodes, expand = args
                _expand_share(conn, deque(nodes), held, partial(_expand_one, context, held,
                                                                 expand, keep))
            elif request == "steal":  # too late: this worker's share is done
                conn.send(_Given([]))
    except Exception as error:  # the parent raises it, as it would have in one process
        conn.send(_WorkerError(error))


def _expand_one(context: _Context, held: dict[int, GameState], expand: bool, keep: Keep,
                node: int) -> tuple:
    """A state's result, without the transitions the parent needs nothing of: those to a
    state this worker found in an earlier level (the parent already made it a node, or,
    past --max-states, expands nothing more) with no failure, unless a graph is drawn. The
    parent only counts them: most transitions go to known states, and this halves what
    workers send and what the parent merges."""
    result = context.process(node, held.pop(node), expand, keep)
    successors = result[4]
    if context.graph:
        return result
    listed = [s for s in successors if s[2] is not None or s[4]]
    return (*result[:4], listed, result[5], len(successors) - len(listed))


def _expand_share(conn: Connection, todo: deque[int], held: dict[int, GameState],
                  process: Callable[[int], tuple]) -> None:
    """Expand a worker's share of a level in order, sending the results every few states;
    between two messages, if the parent asks (another worker has run out of work), give it
    the last half of what is left to do."""
    while todo:
        part = [todo.popleft() for _ in range(min(_RESULTS_PER_MESSAGE, len(todo)))]
        conn.send([process(node) for node in part])
        if todo and conn.poll():
            request = conn.recv()
            assert request == ("steal",), request
            given = [todo.pop() for _ in range(len(todo) // 2)]
            conn.send(_Given([(node, _pickled(held.pop(node))) for node in reversed(given)]))


class _Given:
    """A worker's answer to "steal": (node, pickled state) pairs, in order; maybe none."""

    def __init__(self, states: list[tuple[int, bytes]]):
        self.states = states


class _WorkerError:
    """An exception raised in a worker, carried to the parent (as text if it cannot be)."""

    def __init__(self, error: Exception):
        try:
            pickle.dumps(error)
            self.error: Exception = error
        except Exception:
            self.error = RuntimeError("".join(traceback.format_exception(error)))


def _pickled(state: GameState) -> bytes:
    return pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)


class _Workers:
    """N forked worker processes that keep the states they find (see the comment above)."""

    def __init__(self, settings: Settings, profile: str, symmetry: Symmetry | None):
        # forked where possible so that they start at once and share the parent's compiled
        # charts (and any patched rules, which the mutation tests rely on)
        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if "fork" in methods else None)
        self.conns: list[Connection] = []
        self.processes: list[Any] = []
        for index in range(settings.workers):
            mine, theirs = context.Pipe()
            process = context.Process(target=_worker_main, daemon=True,
                                      args=(theirs, index, settings, profile, symmetry))
            process.start()
            theirs.close()
            self.conns.append(mine)
            self.processes.append(process)
        # per worker, the children it found this level that became nodes: (handle, node)
        self.kept: list[list[tuple[int, int]]] = [[] for _ in self.conns]
        self.stealing: tuple[int, int] | None = None  # (victim, thief) of an open "steal"

    def close(self) -> None:
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            process.join()

    def found(self, node: int, child: tuple[int, int]) -> None:
        """A child a worker found is new: that worker keeps it as ``node``."""
        worker, handle = child
        self.kept[worker].append((handle, node))

    def expand(self, level: list[tuple[int, Any]], expand: bool) -> Iterator[tuple]:
        """The results for a level's states, in the level's order."""
        for conn, kept in zip(self.conns, self.kept, strict=True):
            conn.send(("keep", kept))
        self.kept = [[] for _ in self.conns]
        shares = self._shares(level)
        self._balance(shares)
        for worker, nodes in enumerate(shares):
            self.conns[worker].send(("expand", nodes, expand))
        yield from self._in_order([node for node, _ in level], shares, expand)

    def _shares(self, level: list[tuple[int, Any]]) -> list[list[int]]:
        """Each worker's nodes of the level, in order: the ones it holds (the start state,
        held by the parent, goes to the first worker)."""
        shares: list[list[int]] = [[] for _ in self.conns]
        for node, where in level:
            if isinstance(where, GameState):
                self.conns[0].send(("adopt", [(node, _pickled(where))]))
                shares[0].append(node)
            else:
                shares[where[0]].append(node)
        return shares

    def _balance(self, shares: list[list[int]]) -> None:
        """Move states from workers holding more than their share of the level to workers
        holding less. A move costs a pickle and an unpickle, so only the excess moves; the
        states moved are spread over the giver's part of the level, so that both keep
        answering all along the level's order."""
        total = sum(map(len, shares))
        fair = -(-total // len(shares))
        slack = max(_BALANCE_SLACK, fair // 20)
        moving: list[tuple[int, bytes]] = []
        for worker, nodes in enumerate(shares):
            excess = len(nodes) - fair
            if excess > slack:
                step = len(nodes) / excess
                chosen = {nodes[int(i * step)] for i in range(excess)}
                self.conns[worker].send(("give", sorted(chosen)))
                moving += self._receive(self.conns[worker])
                shares[worker] = [n for n in nodes if n not in chosen]
        for worker, nodes in enumerate(shares):
            room = fair - len(nodes)
            if room > 0 and moving:
                taken, moving = moving[:room], moving[room:]
                self.conns[worker].send(("adopt", taken))
                nodes.extend(node for node, _ in taken)
                nodes.sort()
        assert not moving, "every state moved has found a worker"

    def _in_order(self, order: list[int], shares: list[list[int]],
                  expand: bool) -> Iterator[tuple]:
        """Yield the results in ``order``, reading whichever worker has answered meanwhile
        (so that no worker waits on a full pipe while the parent waits on another), and
        letting a worker that has finished its share take over part of another's."""
        owed = [len(nodes) for nodes in shares]  # results each worker still owes
        ready: dict[int, tuple] = {}
        for merged, node in enumerate(order):
            while node not in ready:
                self._read(owed, ready, expand)
            if merged % _DRAIN_EVERY == 0:
                # a worker that sends while the parent merges waits until it is read: read
                # what has come meanwhile, so that none waits long
                self._read(owed, ready, expand, timeout=0)
            yield ready.pop(node)
        while self.stealing:  # the answer to a late "steal" is empty: read it
            self._read(owed, ready, expand)

    def _read(self, owed: list[int], ready: dict[int, tuple], expand: bool,
              timeout: float | None = None) -> None:
        """Take in the messages the workers have sent (waiting for one unless ``timeout``),
        then maybe ask a worker with much left to do to give half of it to one that has
        nothing left."""
        victim = self.stealing[0] if self.stealing else None
        busy = [conn for worker, conn in enumerate(self.conns) if owed[worker] or worker == victim]
        for conn in wait(busy, timeout):
            worker = self.conns.index(conn)
            message = self._receive(conn)
            if isinstance(message, _Given):
                thief = self.stealing[1]
                self.stealing = None
                if message.states:
                    moved = len(message.states)
                    owed[worker] -= moved
                    owed[thief] += moved
                    self.conns[thief].send(("adopt", message.states))
                    self.conns[thief].send(("expand", [n for n, _ in message.states], expand))
            else:
                owed[worker] -= len(message)
                ready.update((result[0], result) for result in message)
        idle = [worker for worker, left in enumerate(owed) if not left]
        victim = max(range(len(owed)), key=owed.__getitem__)
        if idle and not self.stealing and owed[victim] > _STEAL_ABOVE:
            self.conns[victim].send(("steal",))
            self.stealing = (victim, idle[0])

    @staticmethod
    def _receive(conn: Connection) -> Any:
        try:
            message = conn.recv()
        except EOFError:
            raise RuntimeError("a worker process ended unexpectedly") from None
        if isinstance(message, _WorkerError):
            raise message.error
        return message


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
        self._workers: _Workers | None = None

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
            self._add(self.context.key(self.start), _Node(-1, None, 0, 0))
            seeds: dict[int, list[tuple[int, Any]]] = {0: [(0, self.start)]}
            if self.settings.workers > 1:
                self._workers = _Workers(self.settings, self.start.profile, self.symmetry)
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

    def _process(self, level: list[tuple[int, Any]], expand: bool) -> Iterator[tuple]:
        """Results for a level in its order, from the worker processes or from here. Whether
        a state is expanded is decided for the whole level before any result is merged, so
        that one worker and several explore exactly the same transitions."""
        if len(self.nodes) >= self.settings.max_states and expand:
            self.report.complete = False  # the level is checked but not expanded
            expand = False
        if self._workers is not None:
            return self._workers.expand(level, expand)
        return (self.context.process(node, state, expand, _itself) for node, state in level)

    def _merge(self, result: tuple, buckets: dict, next_turn: dict) -> None:
        node, legal_count, won, failures, successors, attributes, unlisted = result
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
        report.transitions += len(successors) + unlisted
        index = self.index
        for action, key, child, turn_changed, failures in successors:
            target = index.get(key)
            if target is None:
                target = self._discover(node, action, key, child, turn_changed, buckets,
                                        next_turn)
            for name, witness in failures:
                self._violated(name, target, node, action, witness)
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
        entry = _Node(node, action, parent.depth + 1, parent.turns + turn_changed)
        new = self._add(key, entry)
        if self._workers is not None:
            self._workers.found(new, child)
        queue = next_turn if turn_changed else buckets
        queue.setdefault(entry.depth, []).append((new, child))
        return new

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
