"""The state view of scenario-format.md: what `expect` compares and `--json` prints."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .runtime import compiled
from .state import GameState, Unit, chart_of


def state_name(s: GameState) -> str:
    return ("showdown" if s.contest_at else "neutral") + ("-open" if s.chain_open else "-closed")


def view(s: GameState) -> dict[str, Any]:
    """The state view: scenario-format.md's keys in its order, with this project's additions
    (a unit's ``might``, ``deck``) beside the keys they go with."""
    bfs = list(s.fields)
    return {
        "state": state_name(s),
        "showdown": _showdown(s),
        "focus": s.focus,
        "priority": s.priority,
        "chain": [item.label for item in s.chain],
        "control": {bf: s.fields[bf].controller for bf in bfs},
        "contested": {bf: _contested_by(s, bf) for bf in bfs},
        "staged": {bf: _staged(s, bf) for bf in bfs},
        "score": {p: s.scores[p] for p in s.players},
        "scored_this_turn": {bf: _in_turn_order(s, s.fields[bf].scored) for bf in bfs},
        "units": {unit.id: _unit(unit) for unit in s.units_in_board_order()},
        "hand": {p: len(s.hands[p]) for p in s.players},
        "deck": {p: s.deck[p] for p in s.players},  # an extension: cards left to draw (D42)
        "pending_choice": _pending_choice(s),
        "winner": s.winner,
        "turn": {"player": s.turn_player, "phase": s.phase},
    }


def _showdown(s: GameState) -> dict[str, Any] | None:
    """The contest under way, if any; only a combat has an attacker and a defender."""
    if not s.contest_at:
        return None
    combat = s.in_combat(s.contest_at)
    return {
        "at": s.contest_at,
        "kind": "combat" if combat else "non-combat",
        "attacker": s.attacker if combat else None,
        "defender": s.defender if combat else None,
    }


def _contested_by(s: GameState, bf: str) -> str | None:
    """Who applied Contested to the battlefield, while it is contested."""
    return s.fields[bf].applier if s.is_contested(bf) else None


def _staged(s: GameState, bf: str) -> list[str]:
    """The contests staged at the battlefield: "showdown", "combat", both or neither."""
    staged = {"showdown": s.showdown_staged(bf), "combat": s.combat_staged(bf)}
    return [kind for kind, is_staged in staged.items() if is_staged]


def _unit(unit: Unit) -> dict[str, Any]:
    return {
        "at": unit.at,
        "controller": unit.controller,
        "exhausted": unit.exhausted,
        "stunned": unit.stunned,
        "damage": unit.damage,
        "designation": unit.designation,
        "might": unit.might,
    }


def _pending_choice(s: GameState) -> dict[str, Any] | None:
    """The choice a player must answer; ``total`` only for a damage choice."""
    if not s.pending:
        return None
    pending = {"player": s.pending["player"], "kind": s.pending["kind"],
               "options": list(s.pending["options"])}  # a copy: the view shares nothing
    if "total" in s.pending:
        pending["total"] = s.pending["total"]
    return pending


class Absent:
    """The actual value of a key the state view does not have (a unit not on the board yet)."""

    def __repr__(self) -> str:
        return "ABSENT"


#: What :func:`differences` gives as the actual value of a key missing from the view.
ABSENT = Absent()


def differences(expected: Any, actual: Any, path: str = "") -> list[tuple[str, Any, Any]]:
    """Where ``actual`` differs from the keys ``expected`` names (lists compare whole); the
    actual value of a key ``actual`` does not have is :data:`ABSENT`."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        found = []
        for key, value in expected.items():
            where = f"{path}.{key}" if path else str(key)
            if key not in actual:
                found.append((where, value, ABSENT))
            else:
                found += differences(value, actual[key], where)
        return found
    if expected != actual or (
        type(expected) is not type(actual) and not _same_number(expected, actual)
    ):
        return [(path, expected, actual)]
    return []


def _same_number(a: Any, b: Any) -> bool:
    return (
        isinstance(a, int)
        and isinstance(b, int)
        and not isinstance(a, bool)
        and not isinstance(b, bool)
        and a == b
    )


def _in_turn_order(s: GameState, players: Iterable[str]) -> list[str]:
    """Lists of players in the view are in turn order (scenario-format.md), whatever order
    they came in."""
    return sorted(players, key=s.players.index)


# --- the charts' active states (``riftchart run --states``, the step-through page) ----------


def chart_caption(key: str) -> str:
    """A chart key as people read it: ``battlefield:A`` -> ``battlefield A``."""
    return key.replace(":", " ", 1)


def active_states(configs: Mapping[str, frozenset[str]]) -> dict[str, list[str]]:
    """Each chart's active states in words (:func:`active_state_names`), keyed as the game
    keeps its charts (``battlefield:A``..., then ``focus``, ``priority``, ``scheduler``,
    ``turn``)."""
    return {key: active_state_names(chart_of(key), active) for key, active in configs.items()}


def active_state_names(chart: str, active: frozenset[str]) -> list[str]:
    """The active innermost states in document order, each named with the states it is in,
    by the ids the chart shows: ``contest.showdown.non_combat``. A chart's lone top state
    (``battlefield``) is left out: it is always active, so it says nothing."""
    tables = compiled(chart)
    always = set(tables.root_ids) if len(tables.root_ids) == 1 else set()
    names = []
    for state in tables.in_order(active):
        if state not in tables.states:
            names.append(state)  # not in the chart's tables: shown as it is
        elif tables.states[state].kind == "atomic":
            path = [s for s in reversed(tables.ancestors(state)) if s not in always]
            names.append(".".join(path or [state]))
    return names
