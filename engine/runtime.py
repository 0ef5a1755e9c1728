"""One definition, two runtimes.

The charts in ``statecharts`` are python-statemachine classes. This module compiles each one,
by introspection, into flat tables over hashable configurations (frozensets of state ids) and
runs them: that is the fast runtime the engine and the model checker use. python-statemachine
stays the reference semantics; :class:`ReferenceRuntime` drives real instances of the same
classes and :class:`CheckedRuntime` drives both and fails on the first disagreement (both in
``reference_runtime``, and named here too).

A runtime does two parts of an event: it chooses the enabled transitions (guards read the
engine through a model object) and moves to the new configuration; the engine
(``core.Table``) then runs the chosen transitions' actions in document order, whichever
runtime chose them. Actions therefore always see the configuration after the event.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any, Protocol

from statemachine import State

from statecharts import CHARTS, RiftChart

Configuration = frozenset[str]


@dataclass(frozen=True)
class Transition:
    """One transition of a chart, as the engine, the exporters and the trace see it."""

    chart: str
    source: str
    targets: tuple[str, ...]
    event: str
    guards: tuple[tuple[str, bool], ...]  # (guard name, required value)
    actions: tuple[str, ...]
    internal: bool
    rule: str
    order: int  # document order, for deterministic listing

    @property
    def target(self) -> str:
        """The first target; a transition without one stays in its source."""
        return self.targets[0] if self.targets else self.source

    @property
    def drawn_targets(self) -> tuple[str, ...]:
        """Where the pictures draw the transition to: its targets, or its source for one
        without a target (a loop, as its source stays active)."""
        return self.targets or (self.source,)

    def guard_text(self) -> str:
        return " and ".join(name if wanted else f"not {name}" for name, wanted in self.guards)


@dataclass(frozen=True)
class StateInfo:
    id: str
    parent: str | None
    kind: str  # "atomic", "compound" or "parallel"
    children: tuple[str, ...]
    initial: str | None
    order: int


class CompiledChart:
    """A chart's states and transitions as plain tables, read from its definition."""

    def __init__(self, name: str, cls: type[RiftChart]):
        self.name = name
        self.cls = cls
        self.states: dict[str, StateInfo] = {}
        self.transitions: list[Transition] = []
        roots = list(cls.states)
        for top in roots:
            self._add_state(top, None)
        self.root_ids = tuple(s.id for s in roots)
        self._by_state_event: dict[tuple[str, str], list[Transition]] = {}
        for t in self.transitions:
            self._by_state_event.setdefault((t.source, t.event), []).append(t)
        #: the top-level state the chart starts in
        self.initial_root: str = next(s for s in self.root_ids if cls.states_map[s].initial)
        self.initial = self._enter_defaults(self.initial_root)
        self._step_cache: dict[tuple[Configuration, tuple[int, ...]], Configuration] = {}
        self._plans: dict[tuple[Configuration, str], tuple] = {}
        # per (configuration, event): the outcome when no guard is asked, None when guards decide
        self._outcomes: dict[tuple[Configuration, str], tuple | None] = {}

    # --- compilation -------------------------------------------------------------------

    def _add_state(self, state: State, parent: str | None) -> None:
        children = list(state.states)
        kind = "parallel" if state.parallel else ("compound" if children else "atomic")
        initial = next((c.id for c in children if c.initial), None)
        self.states[state.id] = StateInfo(
            id=state.id,
            parent=parent,
            kind=kind,
            children=tuple(c.id for c in children),
            initial=initial,
            order=len(self.states),
        )
        for child in children:
            self._add_state(child, state.id)
        for t in state.transitions:
            if t.initial:
                continue
            guards = guard_specs(t.cond)
            actions = tuple(str(spec) for spec in t.on if not spec.is_convention)
            for event in t.events:
                self.transitions.append(
                    Transition(
                        chart=self.name,
                        source=t.source.id,
                        targets=tuple(x.id for x in t.targets),
                        event=str(event),
                        guards=guards,
                        actions=actions,
                        internal=bool(t.internal),
                        rule=getattr(t, "rule", ""),
                        order=len(self.transitions),
                    )
                )

    def _enter_defaults(self, state_id: str) -> Configuration:
        """The state, its ancestors, and its default descendants."""
        active = set(self.ancestors(state_id))
        self._add_descendants(state_id, active)
        return frozenset(active)

    def _add_descendants(self, state_id: str, active: set[str]) -> None:
        """Add the state and its default descendants to ``active``, except below a child
        that already has an active state: a transition with several targets may have
        entered one region, or one state of a compound, already."""
        info = self.states[state_id]
        active.add(state_id)
        if info.kind == "parallel":
            for child in info.children:
                if not any(self.is_descendant(a, child) for a in active):
                    self._add_descendants(child, active)
        elif info.kind == "compound":
            if not any(a in info.children for a in active):
                assert info.initial is not None, "a compound state has an initial state"
                self._add_descendants(info.initial, active)

    @cache  # noqa: B019 - compiled charts live as long as the process
    def ancestors(self, state_id: str) -> tuple[str, ...]:
        """The state and every state above it, innermost first."""
        chain = []
        current: str | None = state_id
        while current is not None:
            chain.append(current)
            current = self.states[current].parent
        return tuple(chain)

    def is_descendant(self, state_id: str, ancestor: str) -> bool:
        return ancestor in self.ancestors(state_id)

    def in_parallel(self, state_id: str) -> bool:
        """Whether the state is an orthogonal region: a child of a parallel state."""
        parent = self.states[state_id].parent
        return parent is not None and self.states[parent].kind == "parallel"

    def initial_child(self, parent: str | None) -> str | None:
        """The child a compound state enters by default (``None`` for the chart itself: the
        top-level state it starts in); ``None`` for an atomic or parallel state."""
        if parent is None:
            return self.initial_root
        return self.states[parent].initial

    def entered_with_parent(self, state_id: str) -> bool:
        """Whether entering the state's parent (starting the chart, for a top-level state)
        enters it: the initial child of a compound state, every region of a parallel one."""
        return self.in_parallel(state_id) or self.initial_child(
            self.states[state_id].parent) == state_id

    # --- execution ---------------------------------------------------------------------

    def atomic_states(self, config: Configuration) -> list[str]:
        return sorted(  # in document order
            (s for s in config if self.states[s].kind == "atomic"),
            key=lambda s: self.states[s].order,
        )

    def in_order(self, states: Iterable[str]) -> list[str]:
        """``states`` in document order (outermost first); an id that is not one of the
        chart's states goes last."""
        last = len(self.states)
        return sorted(states, key=lambda s: self.states[s].order if s in self.states else last)

    def plan(self, config: Configuration, event: str) -> tuple:
        """What ``event`` could do in ``config``: per region (atomic state, in document order),
        the transitions it might take there, each with its guards and exit set.

        Worked out once per (configuration, event) and kept, so sending an event costs only
        its guards. Empty when the chart has no transition for the event there at all.
        """
        found = self._plans.get((config, event))
        if found is None:
            key = (config, event)
            regions = []
            for atomic in self.atomic_states(config):
                candidates = tuple(
                    (t, t.guards, self._exit_set(config, t))
                    for state in self.ancestors(atomic)
                    for t in self._by_state_event.get((state, event), ())
                )
                if candidates:
                    regions.append(candidates)
            found = self._plans[key] = tuple(regions)
        return found

    def select(
        self, config: Configuration, event: str, guard: Callable[[str], bool]
    ) -> list[Transition]:
        """The transitions ``event`` takes in ``config``: in each region (atomic state, in
        document order) the first enabled one, looking from the state outwards. Two of them
        that would leave a common state conflict, as in SCXML: the one whose source lies inside
        the other's wins, and otherwise the one chosen first (document order)."""
        chosen: list[Transition] = []
        exited: frozenset[str] = _NO_STATES
        regions = self._plans.get((config, event))
        if regions is None:
            regions = self.plan(config, event)
        for candidates in regions:
            for t, guards, exits in candidates:
                if not guards or _guards_hold(guards, guard):
                    if t in chosen:
                        pass
                    elif not exits & exited:
                        exited |= exits
                        chosen.append(t)
                    else:  # rare: no Riftbound chart has such a conflict
                        chosen = self._without_conflicts(config, chosen, t, exits)
                        exited = frozenset().union(
                            *(self._exit_set(config, c) for c in chosen))
                    break
        return chosen

    def _without_conflicts(self, config: Configuration, chosen: list[Transition],
                           t: Transition, exits: frozenset[str]) -> list[Transition]:
        """``chosen`` with ``t`` added, by SCXML's rule for conflicting transitions: ``t``
        replaces those it conflicts with if its source lies strictly inside each of theirs,
        and is dropped otherwise."""
        clashing = [c for c in chosen if exits & self._exit_set(config, c)]
        if all(self._strictly_inside(t.source, c.source) for c in clashing):
            return [c for c in chosen if c not in clashing] + [t]
        return chosen

    def take(
        self, config: Configuration, event: str, guard: Callable[[str], bool]
    ) -> tuple[list[Transition], Configuration]:
        """:meth:`select`, then :meth:`apply`: the transitions taken and the new configuration.

        Where the first candidate of every region is unguarded, no guard is ever asked and the
        outcome is always the same: it is worked out once and kept (the list is shared, and
        nobody changes it). Elsewhere the guards decide each time.
        """
        outcome = self._outcomes.get((config, event), _UNKNOWN)
        if outcome is _UNKNOWN:
            fixed = all(not candidates[0][1] for candidates in self.plan(config, event))
            outcome = self._outcomes[(config, event)] = (
                self._select_and_apply(config, event, guard) if fixed else None
            )
        return outcome or self._select_and_apply(config, event, guard)

    def _select_and_apply(
        self, config: Configuration, event: str, guard: Callable[[str], bool]
    ) -> tuple[list[Transition], Configuration]:
        chosen = self.select(config, event, guard)
        return chosen, self.apply(config, chosen) if chosen else config

    def _domain(self, t: Transition) -> str | None:
        """SCXML's transition domain: the source, for an internal transition of a compound
        state to states strictly inside it; otherwise the innermost compound state strictly
        above the source that holds every target strictly inside it (None: the chart)."""
        if t.internal and self.states[t.source].kind == "compound" and all(
            self._strictly_inside(x, t.source) for x in t.targets
        ):
            return t.source
        for state in self.ancestors(t.source)[1:]:
            if self.states[state].kind == "compound" and all(
                self._strictly_inside(x, state) for x in t.targets
            ):
                return state
        return None

    def _strictly_inside(self, state_id: str, ancestor: str) -> bool:
        return state_id != ancestor and self.is_descendant(state_id, ancestor)

    def _exit_set(self, config: Configuration, t: Transition) -> frozenset[str]:
        """The active states strictly inside the transition's domain; none for a transition
        without a target (it runs its actions and leaves the configuration as it is)."""
        if not t.targets:
            return _NO_STATES
        domain = self._domain(t)
        if domain is None:
            return config
        return frozenset(s for s in config if self._strictly_inside(s, domain))

    def apply(self, config: Configuration, chosen: list[Transition]) -> Configuration:
        key = (config, tuple(t.order for t in chosen))
        new = self._step_cache.get(key)
        if new is None:
            active = set(config)
            entered: list[str] = []
            for t in chosen:
                domain = self._domain(t)
                active -= self._exit_set(config, t)
                for target in t.targets:
                    for state in self.ancestors(target):
                        if state == domain:
                            break
                        active.add(state)
                        entered.append(state)
                    self._add_descendants(target, active)
            # a parallel state entered on the way to the targets enters its other regions
            # too, by default (after every target, which may have entered some of them)
            for state in entered:
                if self.states[state].kind == "parallel":
                    self._add_descendants(state, active)
            new = frozenset(active)
            self._step_cache[key] = new
        return new


def guard_specs(cond: Any) -> tuple[tuple[str, bool], ...]:
    """A python-statemachine transition's guards (its ``cond``) as (name, required value):
    ``!name`` is ``name`` required false."""
    return tuple((str(spec).lstrip("!"), bool(spec.expected_value)) for spec in cond)


_NO_STATES: frozenset[str] = frozenset()
_UNKNOWN: Any = object()


def _guards_hold(guards: tuple[tuple[str, bool], ...], guard: Callable[[str], bool]) -> bool:
    """Every guard has its required value; asked in order, stopping at the first that fails
    (as python-statemachine does: a later guard may assume an earlier one held)."""
    for name, wanted in guards:
        if guard(name) != wanted:
            return False
    return True


# the charts compiled so far, by name (keys typed `object` as compiled's argument is: see there)
_COMPILED: dict[object, CompiledChart] = {}


def compiled(name: object) -> CompiledChart:
    """The compiled form of the chart registered under ``name`` in ``statecharts.CHARTS``,
    made once; a ValueError listing the charts for a name that is none of theirs, even one
    that does not hash (the exporters and the diagrams take names from outside). A dict
    rather than ``functools.cache``, which would hash the name before it is checked (and
    costs more a call: every event asks for its chart); ``object``, not ``str``, so that the
    compiled build too (which checks a ``str`` on the way in) says a list is no chart's name."""
    try:
        return _COMPILED[name]
    except (KeyError, TypeError):
        if not isinstance(name, str) or name not in CHARTS:
            raise ValueError(f"unknown chart {name!r}: the charts are "
                             f"{', '.join(sorted(CHARTS))}") from None
    chart = _COMPILED[name] = CompiledChart(name, CHARTS[name])
    return chart


def forget_compiled() -> None:
    """The next :func:`compiled` of each chart compiles it anew (what a benchmark of a cold
    start measures)."""
    _COMPILED.clear()


class ChartModel(Protocol):
    """What a chart's guards are asked of: the engine's adapter for one chart."""

    def guard(self, name: str) -> bool: ...


class ChartHost(Protocol):
    """Where a runtime keeps configurations: the game state."""

    configs: dict[str, Configuration]


class Runtime(Protocol):
    """What moves the charts: :class:`FastRuntime`, :class:`ReferenceRuntime` or
    :class:`CheckedRuntime` (the engine and the model checker take any of them)."""

    def send(
        self, host: ChartHost, key: str, chart: str, event: str, model: ChartModel
    ) -> list[Transition]:
        """Send ``event`` to the ``chart`` whose configuration ``host`` keeps at ``key``: move
        that configuration, and return the transitions taken (their actions not yet run)."""


class FastRuntime:
    """Runs compiled charts over configurations kept in the game state."""

    def send(
        self, host: ChartHost, key: str, chart: str, event: str, model: ChartModel
    ) -> list[Transition]:
        chosen, host.configs[key] = compiled(chart).take(host.configs[key], event, model.guard)
        return chosen


# python-statemachine's runtimes, named here beside the fast one; they live apart because
# their model sets its guards as attributes, which a compiled class (setup.py) cannot hold
# (``X as X``: re-exported, for type checkers too)
from .reference_runtime import (  # noqa: E402
    CheckedRuntime as CheckedRuntime,
    ReferenceRuntime as ReferenceRuntime,
)
