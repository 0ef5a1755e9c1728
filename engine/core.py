"""The engine's working object: a game state, the runtime that moves its charts, and the trace.

Every rules procedure in ``engine`` that changes the game is a function of a :class:`Table`
(what only reads it takes the :class:`~engine.state.GameState`). The public facade is
:class:`engine.game.Game`; a Table is what it drives.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from .models import model_factory
from .runtime import CompiledChart, FastRuntime, Runtime, Transition, compiled
from .state import Field, GameState, Unit, battlefield_key, chart_of


@dataclass(frozen=True)
class TransitionTaken:
    """What an observer hears for every transition: enough to animate or log it."""

    chart: str  # "battlefield:A", "focus", "priority", "scheduler" or "turn"
    source: str
    target: str
    event: str
    rule: str
    guard: str = ""  # the guards that held, as the diagrams write them ("" for none)
    order: int = -1  # the transition's place in its chart's document order: which one it was


Observer = Callable[[TransitionTaken], None]


class Table:
    """A game in play: state, runtime, trace lines and observers."""

    def __init__(self, state: GameState, runtime: Runtime | None = None):
        self.state = state
        self.runtime: Runtime = runtime or FastRuntime()
        self.lines: list[str] = []
        self.observers: list[Observer] = []
        self.tracing = True
        # Cleanup's known fixed points (see cleanup.inputs): None runs every Cleanup in full
        self.fixpoints: set[tuple] | None = None

    # --- the trace ----------------------------------------------------------------------

    def say(self, text: str, rule: str | None = None) -> None:
        if self.tracing:
            self.lines.append(f"{text} ({rule})" if rule else text)

    # --- sending events to the charts ------------------------------------------------------

    def send(self, key: str, event: str, **args: Any) -> list[Transition]:
        """Send ``event`` to the chart at ``key``; run the actions of what it takes."""
        chosen = self._dispatch(key, event, args)
        if not chosen:
            # the engine sends an event only where the rules say it happens: a chart that does
            # not take it means the engine and the chart disagree
            raise RuntimeError(
                f"{key} took no transition for {event!r} in {sorted(self.state.configs[key])}"
            )
        return chosen

    def try_send(self, key: str, event: str, **args: Any) -> bool:
        """Send ``event`` where the chart may not take it (Cleanup's checks, the steps the game
        runs on by itself, the end of a contest); say if it did."""
        return bool(self._dispatch(key, event, args))

    def _dispatch(self, key: str, event: str, args: dict[str, Any]) -> list[Transition]:
        route = _routes.get(key) or _new_route(key)
        config = self.state.configs[key]
        if not route.chart.plan(config, event) and isinstance(self.runtime, FastRuntime):
            # no transition for it here at all (most of what Cleanup asks): the fast runtime
            # reads these very tables, so no model need be made. Any other runtime is asked
            # every event: python-statemachine must find no transition either, or a table
            # that lacks one is a disagreement
            return []
        model = route.make_model(self, args)
        chosen = self.runtime.send(self.state, key, route.name, event, model)
        for t in chosen:
            if self.observers:
                self._announce(TransitionTaken(key, t.source, t.target, t.event, t.rule,
                                               t.guard_text(), t.order))
            model.transition = t
            for action in t.actions:
                getattr(model, action)()
        return chosen

    def _announce(self, step: TransitionTaken) -> None:
        for observer in self.observers:
            observer(step)

    def broadcast(self, event: str) -> None:
        """Chain events go to every battlefield (a Harel broadcast) and to the Focus chart."""
        for bf in self.state.fields:
            self.try_send(battlefield_key(bf), event)
        self.try_send("focus", event)

    # --- small state updates ------------------------------------------------------------

    def unit(self, uid: str) -> Unit:
        return self.state.units[uid]

    def update_unit(self, uid: str, **changes: Any) -> Unit:
        unit = replace(self.state.units[uid], **changes)
        self.state.units[uid] = unit
        return unit

    def update_field(self, bf: str, **changes: Any) -> Field:
        f = replace(self.state.fields[bf], **changes)
        self.state.fields[bf] = f
        return f

    def name(self, oid: str) -> str:
        """An object's id, with its display name where it has one."""
        s = self.state
        named = s.units.get(oid) or s.fields.get(oid)
        label = getattr(named, "name", None)
        return f"{oid} ({label})" if label else oid


@dataclass(frozen=True)
class _Route:
    """Where events for one chart key go: worked out once per key (keys are few and fixed)."""

    name: str  # the chart's name: "battlefield" for "battlefield:A"
    chart: CompiledChart
    make_model: Callable[[Table, dict[str, Any]], Any]


_routes: dict[str, _Route] = {}


def _new_route(key: str) -> _Route:
    name = chart_of(key)
    route = _routes[key] = _Route(name, compiled(name), model_factory(key))
    return route
