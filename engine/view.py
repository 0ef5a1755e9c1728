"""The state view of scenario-format.md: what `expect` compares and `--json` prints."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .state import GameState


def state_name(s: GameState) -> str:
    return ("showdown" if s.contest_at else "neutral") + ("-open" if s.chain_open else "-closed")


def view(s: GameState) -> dict[str, Any]:
    bfs = list(s.fields)
    showdown = None
    if s.contest_at:
        combat = "combat" in s.bf_config(s.contest_at)
        showdown = {
            "at": s.contest_at,
            "kind": "combat" if combat else "non-combat",
            "attacker": s.attacker if combat else None,
            "defender": s.defender if combat else None,
        }
    units = {}
    for unit in s.units_in_board_order():
        units[unit.id] = {
            "at": unit.at,
            "controller": unit.controller,
            "exhausted": unit.exhausted,
            "stunned": unit.stunned,
            "damage": unit.damage,
            "designation": unit.designation,
            "might": unit.might,
        }
    pending = None
    if s.pending:
        pending = {k: s.pending[k] for k in ("player", "kind", "options")}
        if "total" in s.pending:
            pending["total"] = s.pending["total"]
    return {
        "state": state_name(s),
        "showdown": showdown,
        "focus": s.focus,
        "priority": s.priority,
        "chain": [item.label for item in s.chain],
        "control": {bf: s.fields[bf].controller for bf in bfs},
        "contested": {
            bf: s.fields[bf].applier if "contested" in s.bf_config(bf) else None for bf in bfs
        },
        "staged": {
            bf: [k for k in ("showdown", "combat") if f"{k}_staged" in s.bf_config(bf)]
            for bf in bfs
        },
        "score": {p: s.scores[p] for p in s.players},
        "scored_this_turn": {bf: _in_turn_order(s, s.fields[bf].scored) for bf in bfs},
        "units": units,
        "hand": {p: len(s.hands[p]) for p in s.players},
        "pending_choice": pending,
        "winner": s.winner,
        "turn": {"player": s.turn_player, "phase": s.phase},
    }


def differences(expected: Any, actual: Any, path: str = "") -> list[tuple[str, Any, Any]]:
    """Where ``actual`` differs from the keys ``expected`` names (lists compare whole)."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        found = []
        for key, value in expected.items():
            where = f"{path}.{key}" if path else str(key)
            if key not in actual:
                found.append((where, value, "<missing>"))
            else:
                found += differences(value, actual[key], where)
        return found
    if (
        expected != actual
        or type(expected) is not type(actual)
        and not _same_number(expected, actual)
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
