"""The public API: a game another program can drive.

    from engine import Game, Move, Pass
    game = Game.from_scenario("scenarios/001_flow_empty_battlefield_conquer.yaml")
    for action in [Move("P1", ("U1",), "A"), Pass("P1"), Pass("P2")]:
        print(game.apply(action))          # the trace lines it produced
    game.view()["score"]                   # {'P1': 1, 'P2': 0}

Actions are the typed values of :mod:`engine.actions`. An illegal one raises
:class:`IllegalAction` and leaves the game exactly as it was.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from typing import Any

from . import actions, snapshot
from .actions import Action
from .core import Observer, Table
from .errors import ActionInProgress
from .position import setup_state
from .runtime import FastRuntime, Runtime
from .scenario import Scenario, load_scenario
from .state import GameState
from .view import view


class Game:
    """A Riftbound position in play, driven by actions."""

    def __init__(self, state: GameState, runtime: Runtime | None = None) -> None:
        self._table = Table(state, _a_runtime(runtime))
        self._log: list[Action] = []
        self._applying = False  # an action is under way (an observer is being told of it)

    # --- making one --------------------------------------------------------------------

    @classmethod
    def from_scenario(
        cls,
        source: str | os.PathLike | Mapping | Scenario,
        *,
        rules: str | None = None,
        runtime: Runtime | None = None,
    ) -> Game:
        """A scenario's setup (from a path, a dict or a loaded Scenario), its steps not played."""
        runtime = _a_runtime(runtime)
        scenario = source if isinstance(source, Scenario) else load_scenario(source)
        if rules is not None:
            scenario = scenario.with_rules(rules)
        return cls(setup_state(scenario, runtime or FastRuntime()), runtime)

    # --- playing ---------------------------------------------------------------------------

    def legal_actions(self, max_targets: int = 1) -> list[Action]:
        """Every legal action of every player who may act now, each once (see
        :func:`engine.actions.legal`), plays with every choice of at most ``max_targets``
        targets (D37). Whether one given action is legal: :meth:`check`."""
        if isinstance(max_targets, bool) or not isinstance(max_targets, int):
            raise TypeError(f"max_targets is a whole number of targets, not {max_targets!r}")
        if max_targets < 1:
            raise ValueError(f"max_targets is 1 or more, not {max_targets}")
        return actions.legal(self._table.state, max_targets)

    def check(self, action: Action) -> None:
        """Raise IllegalAction if ``action`` is not legal now (TypeError if it is no action)."""
        actions.check(self._table.state, actions.as_action(action))

    def apply(self, action: Action) -> list[str]:
        """Take ``action``; returns the trace lines it produced.

        All or nothing: if anything raises on the way (an observer, say), the game is put
        back exactly as it was and the exception goes on to the caller. An observer may not
        apply an action to the game that is telling it of one (:class:`ActionInProgress`).
        """
        if self._applying:  # only then is the action written out (a repr can fail)
            self._refuse_half_way(f"apply({action!r})")
        action = actions.as_action(action)
        table = self._table
        actions.check(table.state, action)
        before = table.state.copy()
        start = len(table.lines)
        self._applying = True
        try:
            actions.perform(table, action)
        except BaseException:
            table.state = before
            del table.lines[start:]
            raise
        finally:
            self._applying = False
        self._log.append(action)
        return table.lines[start:]

    @property
    def is_over(self) -> bool:
        """Whether someone has won (after a win every action is refused)."""
        return self._table.state.winner is not None

    @property
    def winner(self) -> str | None:
        """Who has won (with teams: the first player of the winning team), or None."""
        return self._table.state.winner

    # --- reading ---------------------------------------------------------------------------

    def view(self) -> dict[str, Any]:
        """The state view of scenario-format.md."""
        return view(self._table.state)

    @property
    def log(self) -> list[Action]:
        """Every action applied so far, in order (a fresh list each time, as ``trace`` is)."""
        return list(self._log)

    @property
    def trace(self) -> list[str]:
        """Every trace line so far, in the words of the rules."""
        return list(self._table.lines)

    def hand(self, player: str) -> list[dict[str, Any] | None]:
        """The cards in ``player``'s hand, in order, as JSON-ready data (``id``, ``name``,
        ``type``, ``timing``, ``effect``, ``might``, ``keywords``, ``triggers``; a spell's
        Might is 0), ``None`` for a drawn card nobody has seen. A fresh list each call (the
        state view's ``hand`` counts them)."""
        if not isinstance(player, str):
            raise TypeError(f"hand() takes a player id (a string), not {type(player).__name__}")
        hands = self._table.state.hands
        if player not in hands:
            raise ValueError(f"no player {player!r} in this game (players: "
                             f"{', '.join(self._table.state.players)})")
        return [snapshot.card_data(card) for card in hands[player]]

    @property
    def configurations(self) -> dict[str, frozenset[str]]:
        """Each chart's active states, keyed ``battlefield:A``, ``focus``, ``priority``..."""
        return dict(self._table.state.configs)

    def observe(self, observer: Observer) -> None:
        """Call ``observer`` with every transition taken from now on."""
        if not callable(observer):  # refused now, not at the next action (which it would spoil)
            raise TypeError(f"observe() takes a callable, not {type(observer).__name__}")
        # a new list, here and in unobserve: a transition being told goes on to the observers
        # it began with, even when one of them observes or unobserves
        self._table.observers = [*self._table.observers, observer]

    def unobserve(self, observer: Observer) -> None:
        """Stop calling ``observer`` (one registration of it: registered twice, it is still
        called once). A ValueError if it is not observing this game."""
        observers = list(self._table.observers)
        if observer not in observers:
            raise ValueError(f"{observer!r} is not observing this game")
        observers.remove(observer)
        self._table.observers = observers

    @property
    def state(self) -> GameState:
        """The underlying state value (read it; change it only through actions)."""
        return self._table.state

    # --- snapshots -------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """The whole game state as JSON-ready data; not from an observer, half-way through an
        action (:class:`ActionInProgress`): restored, such a state would be stuck there."""
        self._refuse_half_way("snapshot()")
        return snapshot.dump(self._table.state)

    @classmethod
    def restore(cls, data: Mapping[str, Any], runtime: Runtime | None = None) -> Game:
        """A new game from a :meth:`snapshot`'s data."""
        return cls(snapshot.load(data), runtime)

    def to_json(self) -> str:
        """The :meth:`snapshot` as compact JSON text (keys sorted: equal states, equal text)."""
        self._refuse_half_way("to_json()")
        return json.dumps(self.snapshot(), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str, runtime: Runtime | None = None) -> Game:
        """A new game from :meth:`to_json`'s text."""
        try:
            data = json.loads(text)
        except ValueError as error:  # not JSON, or a number of more digits than Python reads
            raise ValueError(f"not a snapshot's JSON text: {error}") from None
        except RecursionError:  # arrays or objects nested thousands deep
            raise ValueError("not a snapshot's JSON text: nested too deeply") from None
        return cls.restore(data, runtime)

    def replay(self, log: Iterable[Action]) -> list[str]:
        """:meth:`apply` each action in order; returns the trace lines they produced. Stops at
        the first refused one, which raises (the actions before it stay applied)."""
        lines: list[str] = []
        for action in log:
            lines += self.apply(action)
        return lines

    def clone(self) -> Game:
        """An independent game in the same position, with the same log and trace and the same
        runtime, and no observers: what a search tries actions on without touching this one.
        Cheaper than a snapshot's round trip (the state's immutable parts are shared)."""
        return self._clone("clone()")

    def __copy__(self) -> Game:
        """``copy.copy`` and ``copy.deepcopy`` of a game make a :meth:`clone`."""
        return self._clone("a copy")

    def __deepcopy__(self, memo: dict[int, Any]) -> Game:
        return self._clone("a copy")

    def _clone(self, what: str) -> Game:
        self._refuse_half_way(what)
        twin = Game(self._table.state.copy(), self._table.runtime)
        twin._log = list(self._log)
        twin._table.lines = list(self._table.lines)
        return twin

    def __reduce__(self) -> tuple[Any, ...]:
        """What pickle takes of a game: what a :meth:`clone` takes (no observers: callbacks
        belong to the program that set them, and often do not pickle), and not half-way
        through an action (the copy would be stuck there, refusing every action). Rebuilt
        through the constructor, which the compiled build's classes need."""
        self._refuse_half_way("pickling")
        table = self._table
        return _unpickled, (type(self), table.state, table.runtime, list(self._log),
                            list(table.lines))

    def __eq__(self, other: object) -> bool:
        """Two games are equal when they are in the same position: their snapshots are equal
        (log, trace, runtime and observers aside), so they play on alike from here."""
        if not isinstance(other, Game):
            return NotImplemented
        return snapshot.dump(self._table.state) == snapshot.dump(other._table.state)

    __hash__ = None  # type: ignore[assignment]  # a game changes: it cannot key a dict

    def _refuse_half_way(self, what: str) -> None:
        if self._applying:
            raise ActionInProgress(
                f"{what} while this game is still taking an action: its state is half-way "
                "through it, and an observer may read the game, not act in it, copy it or "
                "take a snapshot of it")

    @property
    def rules(self) -> str:
        """The rules profile the game is played under: ``seed`` or ``cr-1.4``."""
        return self._table.state.profile


def _unpickled(cls: type[Game], state: GameState, runtime: Runtime, log: list[Action],
               lines: list[str]) -> Game:
    game = cls(state, runtime)
    game._log = log
    game._table.lines = lines
    return game


def _a_runtime(runtime: Any) -> Runtime | None:
    """``runtime`` if it can be one (None: the default); a TypeError, before any game is made,
    for anything else (a name, say)."""
    if isinstance(runtime, type):
        # the class for an instance: its send would fail at the first event, far from here
        raise TypeError(f"a runtime instance is needed, not the class: {runtime.__name__}()")
    if runtime is not None and not callable(getattr(runtime, "send", None)):
        raise TypeError(f"not a chart runtime (see engine.runtime): {runtime!r}")
    return runtime
