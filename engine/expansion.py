"""Expanding one state: its invariants checked, its legal actions, its successors and their
keys. The same in the explorer's process and in worker processes (:mod:`engine.workers`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from . import actions
from .actions import Action
from .core import Table
from .invariants import Invariant
from .runtime import FastRuntime, Runtime
from .state import GameState
from .statekeys import Symmetry, state_key, stored_key
from .view import state_name


@dataclass
class Settings:
    """What to explore and what to check."""

    invariants: list[Invariant]
    max_turns: int = 1
    max_states: int = 200_000
    symmetry: bool = False
    workers: int = 1
    graph: bool = False
    max_targets: int = 1  # plays are tried with every choice of at most this many targets


def successor(state: GameState, action: Action, runtime: Runtime | None = None,
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


class Successor(NamedTuple):
    """One transition from an expanded state."""

    action: Action
    key: bytes  # the child's stored key
    child: Any  # what ``keep`` made of the child: the state, or (worker, handle) in a worker
    turn_changed: bool
    failures: Any  # (invariant name, witness) of the transition invariants that fail


class Expanded(NamedTuple):
    """What expanding one state found."""

    node: int
    legal_count: int
    won: bool  # the state has a winner
    failures: list[tuple[str, dict]]  # (invariant name, witness) of the state invariants
    successors: list[Successor]
    attributes: dict[str, Any] | None  # for the --graph file
    unlisted: int  # more transitions, to states known before, that a worker did not list


class Expansion:
    """Everything a process needs to expand states: built once per process."""

    def __init__(self, settings: Settings, profile: str, symmetry: Symmetry | None):
        self.runtime = FastRuntime()
        self.fixpoints: set[tuple] = set()
        applying = [inv for inv in settings.invariants if inv.applies_to(profile)]
        self.state_checks = [inv for inv in applying if inv.kind == "state"]
        self.transition_checks = [inv for inv in applying if inv.kind == "transition"]
        self.canonical = symmetry.key if symmetry else state_key
        self.graph = settings.graph
        self.max_targets = settings.max_targets

    def key(self, state: GameState) -> bytes:
        """The visited-set key: the state key as bytes (see :func:`stored_key`)."""
        return stored_key(self.canonical(state))

    def process(self, node: int, state: GameState, expand: bool, keep: Keep) -> Expanded:
        """Check one state and, if ``expand``, compute its successors; each child is what
        ``keep(key, child state)`` makes of it (see :class:`Successor`)."""
        legal = actions.legal(state, self.max_targets)
        failures = [
            (inv.name, inv.witness(state, None))
            for inv in self.state_checks
            if not inv.holds(state, legal)
        ]
        successors = [self._successor(state, action, keep) for action in legal] if expand else []
        attributes = node_attributes(state) if self.graph else None
        return Expanded(node, len(legal), state.winner is not None, failures, successors,
                        attributes, 0)

    def _successor(self, state: GameState, action: Action, keep: Keep) -> Successor:
        child = successor(state, action, self.runtime, self.fixpoints)
        failures = [
            (inv.name, inv.witness(child, state))
            for inv in self.transition_checks
            if not inv.holds(state, action, child)
        ] or ()  # nearly always: and () costs nothing to send to the parent
        key = self.key(child)
        return Successor(action, key, keep(key, child), child.turn_player != state.turn_player,
                         failures)


Keep = Callable[[Any, GameState], Any]


def itself(key: Any, child: GameState) -> GameState:
    """Keep a child as it is (in the parent, where no process boundary is crossed)."""
    return child


def node_attributes(s: GameState) -> dict[str, Any]:
    return {
        "state": state_name(s),
        "turn": s.turn_player,
        "focus": s.focus or "",
        "priority": s.priority or "",
        "chain": " ".join(i.label for i in s.chain),
        "winner": s.winner or "",
    }
