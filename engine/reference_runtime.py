"""The reference runtimes: python-statemachine itself runs the charts.

:class:`ReferenceRuntime` sends each event to a real python-statemachine instance of the chart
class; :class:`CheckedRuntime` sends it to both that and the fast runtime and fails on the
first disagreement. Both are also importable from ``engine.runtime``. This module is not
compiled in the compiled build (setup.py): the model python-statemachine sees gets its guards
and actions as attributes at run time.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from .errors import RuntimeDisagreement
from .runtime import (
    ChartHost,
    ChartModel,
    CompiledChart,
    FastRuntime,
    Transition,
    compiled,
    guard_specs,
)


class _ReferenceModel:
    """The model a python-statemachine instance sees: guards ask the engine; its actions do
    nothing, and the transitions taken are recorded, for the engine to run their actions
    once the configuration has moved (as with the fast runtime)."""

    def __init__(self, chart: CompiledChart):
        self.model: ChartModel | None = None
        self.taken: list[Any] = []
        for name in {g for t in chart.transitions for g, _ in t.guards}:
            # a partial of a bound method, not a closure: copy.deepcopy rebinds it to the copy,
            # so a deep-copied game's machines ask the copy's guards
            setattr(self, name, partial(self._ask, name))
        for name in {a for t in chart.transitions for a in t.actions}:
            setattr(self, name, _no_action)

    def _ask(self, name: str) -> bool:
        # python-statemachine may look at guards while it starts, before a game is attached
        return self.model is not None and self.model.guard(name)

    def on_transition(self, transition: Any) -> None:
        # python-statemachine may announce a transition more than once; one event takes a
        # transition at most once
        if all(transition is not seen for seen in self.taken):
            self.taken.append(transition)


def _no_action(*args: Any, **kwargs: Any) -> None:
    return None


class ReferenceRuntime:
    """Runs the same events on python-statemachine instances of the chart classes."""

    def __init__(self) -> None:
        self.machines: dict[str, tuple[Any, _ReferenceModel]] = {}

    def _machine(self, host: ChartHost, key: str, chart: str):
        entry = self.machines.get(key)
        if entry is None:
            table = compiled(chart)
            model = _ReferenceModel(table)
            machine = table.cls(model=model)
            entry = (machine, model)
            self.machines[key] = entry
        machine, model = entry
        wanted = host.configs[key]
        if frozenset(s.id for s in machine.configuration) != wanted:
            from statemachine.orderedset import OrderedSet

            states = [machine.states_map[s] for s in compiled(chart).in_order(wanted)]
            machine.configuration = OrderedSet(states)
        return machine, model

    def _lookup(self, chart: str, psm_transition: Any, event: str) -> Transition:
        table = compiled(chart)
        for t in table.transitions:
            if (
                t.source == psm_transition.source.id
                and t.event == event
                and t.targets == tuple(x.id for x in psm_transition.targets)
                and getattr(psm_transition, "rule", "") == t.rule
                and t.guards == guard_specs(psm_transition.cond)
            ):
                return t
        raise LookupError(f"{chart}: no compiled transition for {psm_transition}")

    def send(
        self, host: ChartHost, key: str, chart: str, event: str, model: ChartModel
    ) -> list[Transition]:
        machine, ref = self._machine(host, key, chart)
        ref.model = model
        try:
            if not any(e.id == event for e in machine.enabled_events()):
                return []
            ref.taken = []
            machine.send(event)
        finally:
            # the engine's model is the game's: kept, it would tie a copy or a pickle of this
            # runtime to that game and its observers
            ref.model = None
        host.configs[key] = frozenset(s.id for s in machine.configuration)
        # python-statemachine announces a parallel event's transitions in its own order; the
        # actions run afterwards, in document order, in both runtimes
        return sorted((self._lookup(chart, t, event) for t in ref.taken), key=lambda t: t.order)


class CheckedRuntime:
    """Drives both runtimes with every event and fails on the first difference."""

    def __init__(self) -> None:
        self.fast = FastRuntime()
        self.reference = ReferenceRuntime()
        self.events_checked = 0

    def send(
        self, host: ChartHost, key: str, chart: str, event: str, model: ChartModel
    ) -> list[Transition]:
        before = host.configs[key]
        ref_taken = self.reference.send(host, key, chart, event, model)
        ref_config = host.configs[key]
        host.configs[key] = before
        fast_taken = self.fast.send(host, key, chart, event, model)
        self.events_checked += 1
        if host.configs[key] != ref_config or fast_taken != ref_taken:
            raise RuntimeDisagreement(
                f"{key}: {event} from {sorted(before)}: fast {sorted(host.configs[key])} "
                f"{[t.order for t in fast_taken]}, reference {sorted(ref_config)} "
                f"{[t.order for t in ref_taken]}"
            )
        return fast_taken
