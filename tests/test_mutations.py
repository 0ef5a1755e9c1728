"""The model checker catches deliberately broken rules.

Each case breaks one rule of the engine with ``unittest.mock.patch``, runs ``riftchart check`` on
a small position where the broken rule shows, and asserts that the checker reports a violation
of the invariant that stands for that rule; then that the counterexample it wrote fails under
the correct rules (``riftchart run`` exits 1) and passes under the broken ones.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import yaml

from engine import actions, cli, contest, destinations, runner, scoring
from engine.core import Table
from engine.errors import IllegalAction
from engine.models import BattlefieldModel, FocusModel

# --- the broken rules ------------------------------------------------------------------------


def _focus_to_turn_player(self: FocusModel) -> None:
    """(a) the first Focus of a Showdown goes to the turn player instead of the applier."""
    contest.give_focus(self.table, self.state.turn_player, self.rule, why="the turn player")


def _never_clear_contested(original: Callable) -> Callable:
    """(c) Contested is never removed when a contest ends."""

    def try_send(self: Table, key: str, event: str, **args: Any) -> bool:
        if event.startswith("clear_contested"):
            return False
        return original(self, key, event, **args)

    return try_send


def _no_pass_during_a_chain(original: Callable) -> Callable:
    """(f) a Chain that nobody can pass: the game deadlocks."""

    def pass_problem(s: Any, player: str) -> IllegalAction | None:
        if s.chain:
            return IllegalAction("nobody passes while a Chain exists", "broken")
        return original(s, player)

    return pass_problem


@dataclass
class Mutation:
    name: str
    patches: list[Callable[[], Any]]  # each makes one patcher
    model: dict[str, Any]
    invariant: str


def _two_player(units: list[dict], hands: dict | None = None, **setup: Any) -> dict[str, Any]:
    return {"name": "mutation model", "players": ["P1", "P2"], "battlefields": [{"id": "A"}],
            "units": units, "hands": hands or {}, **setup}


MUTATIONS = [
    Mutation(
        "first Focus to the turn player",
        [lambda: mock.patch.object(FocusModel, "give_focus_to_applier", _focus_to_turn_player)],
        _two_player(
            [{"id": "U1", "controller": "P1", "might": 1, "at": "base"},
             {"id": "E1", "controller": "P2", "might": 1, "at": "base"}],
            {"P1": [{"id": "S1", "type": "spell", "timing": "none", "effect": {"move": {}}}]},
        ),
        "first_focus_to_applier",
    ),
    Mutation(
        "triggered chains pass Focus",
        [lambda: mock.patch.object(FocusModel, "chain_begun_by_card", lambda self: True)],
        _two_player(
            [{"id": "U1", "controller": "P1", "might": 2, "at": "base",
              "triggers": [{"when": "attack", "effect": {"draw": 1}}]},
             {"id": "E1", "controller": "P2", "might": 1, "at": "A"}],
            battlefields=[{"id": "A", "controller": "P2"}],
        ),
        "non_card_chains_keep_focus",
    ),
    Mutation(
        "Contested never removed when a contest ends",
        [lambda: mock.patch.object(Table, "try_send", _never_clear_contested(Table.try_send))],
        _two_player([{"id": "U1", "controller": "P1", "might": 1, "at": "base"}]),
        "control_frozen_while_contested",
    ),
    Mutation(
        "a stale Contested never removed",
        [lambda: mock.patch.object(BattlefieldModel, "applier_has_no_units_here",
                                   lambda self: False)],
        _two_player(
            [{"id": "U1", "controller": "P1", "might": 1, "at": "base"},
             {"id": "E1", "controller": "P2", "might": 1, "at": "base"}],
            {"P1": [{"id": "S1", "type": "spell", "timing": "none", "effect": {"sequence": [
                {"move": {"units": ["E1"], "to": "A"}}, {"recall": {"units": ["E1"]}}]}}]},
        ),
        "contest_not_stuck",
    ),
    Mutation(
        "a Conquer scores twice in a turn",
        [lambda: mock.patch.object(scoring, "may_score", lambda s, bf, player: True)],
        _two_player(
            [{"id": "U1", "controller": "P1", "might": 1, "at": "base"}],
            battlefields=[{"id": "A", "scored_this_turn": ["P1"]}],
        ),
        "scored_once_per_turn",
    ),
    Mutation(
        "a third player allowed into a combat",
        [lambda: mock.patch.object(destinations, "destination_problem",
                                   lambda s, player, bf: None)],
        {
            "name": "mutation model",
            "players": ["P1", "P2", "P3"],
            "battlefields": [{"id": "A", "controller": "P2"}],
            "units": [{"id": "U1", "controller": "P1", "might": 2, "at": "base"},
                      {"id": "E1", "controller": "P2", "might": 1, "at": "A"},
                      {"id": "F1", "controller": "P3", "might": 1, "at": "base"}],
            # a destination named by the effect: a required move, checked as it resolves
            "hands": {"P3": [{"id": "R1", "type": "spell", "timing": "action",
                              "effect": {"move": {"units": ["F1"], "to": "A"}}}]},
        },
        "no_three_players",
    ),
    Mutation(
        "cr-1.4 control lost while a contest is under way there",
        [lambda: mock.patch.object(BattlefieldModel, "open_with_no_contest_here",
                                   lambda self: "open" in self.config)],
        _two_player(
            [{"id": "U1", "controller": "P1", "might": 2, "at": "base"},
             {"id": "E1", "controller": "P2", "might": 1, "at": "A"}],
            {"P2": [{"id": "T2", "type": "spell", "timing": "action", "effect": {"recall": {}}}]},
            rules="cr-1.4", battlefields=[{"id": "A", "controller": "P2"}],
        ),
        "control_kept_while_contest_under_way",
    ),
    Mutation(
        "nobody may pass or Add while a Chain exists",
        [lambda: mock.patch.object(actions, "_pass_problem", _no_pass_during_a_chain(
            actions._pass_problem)),
         lambda: mock.patch.object(actions, "_may_add",
                                   lambda s, player: not s.chain and s.priority == player)],
        _two_player(
            [{"id": "U1", "controller": "P1", "might": 1, "at": "base"}],
            {"P1": [{"id": "S1", "type": "spell", "timing": "action", "effect": {"stun": {}}}]},
        ),
        # the deadlock looks like any chain waiting for a pass: the counterexample ends with
        # the steps the rules would allow, each expected to be refused
        "no_deadlock",
    ),
]


def _broken(mutation: Mutation) -> ExitStack:
    stack = ExitStack()
    for make in mutation.patches:
        stack.enter_context(make())
    return stack


@pytest.mark.parametrize("mutation", MUTATIONS, ids=lambda m: m.name)
def test_checker_catches_broken_rule(
    mutation: Mutation, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    model = tmp_path / "model.yaml"
    model.write_text(yaml.safe_dump(mutation.model, sort_keys=False), encoding="utf-8")
    out = tmp_path / "out"

    # the correct rules: nothing to report on this model
    assert cli.main(["check", str(model), "--out", str(out)]) == 0
    capsys.readouterr()

    with _broken(mutation):
        code = cli.main(["check", str(model), "--json", "--out", str(out)])
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    found = {v["invariant"]: v for v in report["violations"]}
    assert mutation.invariant in found, found
    written = Path(found[mutation.invariant]["counterexample"])

    # the counterexample fails under the correct rules...
    assert cli.main(["run", str(written)]) == 1
    assert "FAIL" in capsys.readouterr().out
    # ...and passes under the broken ones
    with _broken(mutation):
        replay = runner.run_file(written)
    assert replay.code == runner.OK, replay.message


def test_counterexample_is_a_shortest_trace(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """(a) shows after three steps: the spell is played and both players pass."""
    mutation = MUTATIONS[0]
    model = tmp_path / "model.yaml"
    model.write_text(yaml.safe_dump(mutation.model, sort_keys=False), encoding="utf-8")
    with _broken(mutation):
        cli.main(["check", str(model), "--json", "--out", str(tmp_path)])
    (violation,) = json.loads(capsys.readouterr().out)["violations"]
    assert violation["depth"] == 3
    assert violation["expect"]["focus"] == "P1"


def test_a_counterexample_found_under_rules_names_them(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """Checked with ``--rules cr-1.4``, a model that names no profile (seed) gets a
    counterexample saying ``rules: cr-1.4``: it replays under the rules that were checked."""
    mutation = next(m for m in MUTATIONS if m.invariant == "scored_once_per_turn")
    model = tmp_path / "model.yaml"
    model.write_text(yaml.safe_dump(mutation.model, sort_keys=False), encoding="utf-8")
    with _broken(mutation):
        code = cli.main(["check", str(model), "--rules", "cr-1.4", "--json",
                         "--out", str(tmp_path / "out")])
    assert code == 1
    (violation,) = json.loads(capsys.readouterr().out)["violations"]
    written = Path(violation["counterexample"])
    assert yaml.safe_load(written.read_text(encoding="utf-8"))["rules"] == "cr-1.4"
    with _broken(mutation):
        assert runner.run_file(written).code == runner.OK
    # checked under the file's own profile, the counterexample adds none
    with _broken(mutation):
        cli.main(["check", str(model), "--json", "--out", str(tmp_path / "seed")])
    (violation,) = json.loads(capsys.readouterr().out)["violations"]
    assert "rules" not in yaml.safe_load(Path(violation["counterexample"]).read_text("utf-8"))
