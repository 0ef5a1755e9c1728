"""The model checker: bundled models, the report, the graph, symmetry, workers, counterexamples."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import networkx as nx
import pytest
import yaml

from benchmarks.compiled_build import without_timings
from engine import Game, actions, check, cli, counterexample, expansion, explore, invariants, runner
from engine.explore import Settings, prepare, state_key, successor
from engine.invariants import Invariant
from engine.runtime import CheckedRuntime, FastRuntime
from engine.state import ChainItem, Field, GameState, Unit
from tests.chart_agreement import data_disagreements
from tests.helpers import twin_moved, write_yaml

ROOT = Path(__file__).resolve().parent.parent
ONE_V_ONE = ROOT / "models" / "1v1_two_battlefields.yaml"
FFA = ROOT / "models" / "ffa_three_players.yaml"

# a small position (a few thousand states) for the tests that explore more than once
SMALL = {
    "name": "small free-for-all",
    "players": ["P1", "P2", "P3"],
    "battlefields": [{"id": "A", "controller": "P2"}, {"id": "B"}],
    "units": [
        {"id": "U1", "controller": "P1", "might": 2, "at": "base"},
        {"id": "E1", "controller": "P2", "might": 1, "at": "A"},
        {"id": "F1", "controller": "P3", "might": 1, "at": "base"},
        {"id": "F2", "controller": "P3", "might": 1, "at": "base"},
    ],
    "hands": {
        "P2": [{"id": "T1", "type": "spell", "timing": "reaction", "effect": {"stun": {}}}],
        "P3": [{"id": "R1", "type": "spell", "timing": "action", "effect": {"move": {}}}],
    },
}

REQUIRED = {
    "one_active_contest", "focus_in_showdown", "closed_iff_chain", "no_three_players",
    "teammates_apart", "control_frozen_while_contested", "contest_not_stuck",
    "scores_never_decrease", "no_deadlock",
}


def _check(args: list[str], capsys: pytest.CaptureFixture) -> tuple[int, dict[str, Any]]:
    code = cli.main(["check", *args, "--json"])
    return code, json.loads(capsys.readouterr().out)


def _settings(**changes: Any) -> Settings:
    return Settings(invariants.all_invariants(), **changes)


# --- the bundled models --------------------------------------------------------------------


def _staged_players_noted(s: GameState, legal: Any) -> bool:
    """A battlefield notes the two players of a Combat staged there while it is staged, and
    nobody otherwise (D16): a stale note would make states that differ in nothing else."""
    return all(
        f.staged_combatants == (s.players_facing_off(bf) if "combat_staged" in s.bf_config(bf)
                                else ())
        for bf, f in s.fields.items())


STAGED_PLAYERS_NOTED = Invariant("staged_players_noted", "rules 11.10", "state",
                                 _staged_players_noted, invariants._view_keys("staged"),
                                 doc="Staged Combats note their players (rules 11.10).")
# the data the game keeps beside its charts, as every scenario's every step keeps it
# (tests/test_scenarios.py), now in every state a search reaches
DATA_AGREES = Invariant("data_agrees_with_charts", "docs/architecture.md", "state",
                        lambda s, legal: not data_disagreements(s), invariants._view_keys(),
                        doc="The game's data agrees with its charts.")


@pytest.fixture(scope="module")
def ffa_report() -> explore.Report:
    settings = _settings()
    settings.invariants += [STAGED_PLAYERS_NOTED, DATA_AGREES]
    return explore.explore(prepare(str(FFA)).start, settings)


def test_ffa_model_explores_completely_without_violation(ffa_report: explore.Report) -> None:
    assert ffa_report.complete
    # the figure docs/model-checking.md gives: a change in what a state holds shows here
    assert ffa_report.states == 18_520
    assert ffa_report.frontier > 0  # ending the turn is the frontier of --max-turns 1
    assert ffa_report.deadlocks == 0
    assert not ffa_report.violations


def test_1v1_model_within_a_bound_without_violation() -> None:
    settings = _settings(max_states=4_000)
    settings.invariants.append(DATA_AGREES)
    report = explore.explore(prepare(str(ONE_V_ONE)).start, settings)
    assert report.states == 4_000
    assert not report.complete
    assert not report.violations


def test_prepare_takes_a_path_as_it_takes_a_str() -> None:
    """As load_scenario and Game.from_scenario do (a Path was a TypeError from inside)."""
    by_path, by_str = prepare(ONE_V_ONE), prepare(str(ONE_V_ONE))
    assert by_path.scenario == by_str.scenario and by_path.start == by_str.start


def test_bundled_models_are_valid_scenarios() -> None:
    for path in (ONE_V_ONE, FFA):
        assert runner.run_file(path).code == runner.OK


# --- invariants ------------------------------------------------------------------------------


def test_invariant_list(capsys: pytest.CaptureFixture) -> None:
    assert cli.main(["check", "--list"]) == 0
    listed = capsys.readouterr().out
    names = {inv.name for inv in invariants.all_invariants()}
    assert REQUIRED <= names
    for inv in invariants.all_invariants():
        assert inv.name in listed
        assert inv.doc and inv.rule in inv.doc, inv.name  # each cites its rule
        assert inv.kind in ("state", "transition")
    assert cli.main(["check", "--list", str(ONE_V_ONE)]) == 2  # not silently ignored
    assert "takes no FILE" in capsys.readouterr().err


def test_invariant_list_of_the_named_ones(capsys: pytest.CaptureFixture) -> None:
    """--list with --invariant lists those named; an unknown name is refused, not ignored."""
    assert cli.main(["check", "--list", "--invariant", "no_deadlock",
                     "--invariant", "teammates_apart"]) == 0
    listed = [line.split(" ")[0] for line in capsys.readouterr().out.splitlines()
              if not line.startswith(" ")]
    assert listed == ["no_deadlock", "teammates_apart"]
    assert cli.main(["check", "--list", "--invariant", "bogus"]) == 2
    assert "--invariant 'bogus': no such invariant" in capsys.readouterr().err


def test_invariant_list_of_a_profile(capsys: pytest.CaptureFixture) -> None:
    """--list --rules lists that profile's invariants; one named that is not the profile's is
    refused, as a search refuses it."""
    assert cli.main(["check", "--list", "--rules", "cr-1.4"]) == 0
    listed = {line.split(" ")[0] for line in capsys.readouterr().out.splitlines()
              if not line.startswith(" ")}
    assert listed == {inv.name for inv in invariants.all_invariants()
                      if inv.applies_to("cr-1.4")}
    assert "control_frozen_while_contested" not in listed
    assert cli.main(["check", "--list", "--rules", "cr-1.4", "--invariant",
                     "control_frozen_while_contested"]) == 2
    assert capsys.readouterr().err == (
        "riftchart check: --invariant control_frozen_while_contested: not an invariant of "
        "profile cr-1.4 (from --rules)\n")


def test_invariant_list_refuses_search_options(capsys: pytest.CaptureFixture) -> None:
    """--list searches nothing: a search option given with it is said, not ignored."""
    assert cli.main(["check", "--list", "--max-turns", "3", "--symmetry", "--out", "x"]) == 2
    assert capsys.readouterr().err == (
        "riftchart check: --list names the invariants and searches nothing: --max-turns, "
        "--symmetry, --out would do nothing\n")
    # even at its default value: it was given, and does nothing
    assert cli.main(["check", "--list", "--json", "--max-turns", "1", "--graph", "g.dot"]) == 2
    assert capsys.readouterr().err == (
        "riftchart check: --list names the invariants and searches nothing: --max-turns, "
        "--graph would do nothing\n")


def test_control_freeze_is_a_seed_rule_only(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    code, report = _check([str(write_yaml(tmp_path, SMALL)), "--rules", "cr-1.4",
                           "--max-states", "50", "--out", str(tmp_path)], capsys)
    assert code == 0
    assert report["not_applicable"] == ["control_frozen_while_contested"]


def test_choosing_invariants(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    code, report = _check([str(write_yaml(tmp_path, SMALL)), "--invariant", "no_deadlock",
                           "--invariant", "closed_iff_chain", "--max-states", "50"], capsys)
    assert code == 0
    assert report["invariants"] == ["no_deadlock", "closed_iff_chain"]


# --- the report -----------------------------------------------------------------------------


def test_json_report_shape(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    code, report = _check([str(write_yaml(tmp_path, SMALL)), "--out", str(tmp_path)], capsys)
    assert code == 0
    for key, kind in {
        "file": str, "rules": str, "invariants": list, "complete": bool, "states": int,
        "transitions": int, "max_depth": int, "terminal_states": int, "deadlocks": int,
        "frontier_states": int, "seconds": float, "states_per_second": int,
        "bytes_per_state": float, "workers": int, "violations": list,
    }.items():
        assert isinstance(report[key], kind), key
    assert report["complete"] and report["states"] > 1_000
    assert report["transitions"] >= report["states"] - 1
    assert report["symmetry"] is None and report["violations"] == []
    assert report["expects_not_checked"] == 0


def test_the_report_says_the_files_own_expect_steps_are_not_checked(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """A prefix whose own expect (here a wrong one) and expect_error steps would fail under
    `riftchart run`: the search plays the action steps, and the report says what it skipped."""
    steps = [{"expect": {"score": {"P1": 7}}}, {"move": {"player": "P1", "units": ["U1"],
                                                          "to": "B"}},
             {"expect_error": {"pass": "P2"}}]
    path = str(write_yaml(tmp_path, {**SMALL, "steps": steps}))
    code, report = _check([path, "--max-states", "20"], capsys)
    assert (code, report["expects_not_checked"]) == (0, 2)
    assert cli.main(["check", path, "--max-states", "20"]) == 0
    assert ("the file's 2 expect steps (expect, expect_error) are not checked here: "
            "`riftchart run` checks them\n") in capsys.readouterr().out


def test_a_bound_that_is_just_enough_still_finds_everything(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--max-states stops only discovering states: with exactly as many as there are, the
    search is complete, and every transition is counted and checked."""
    start = prepare(str(write_yaml(tmp_path, SMALL))).start
    free = explore.explore(start, _settings())
    monkeypatch.setattr(explore, "PARALLEL_FROM", 1)  # the position is small
    for workers in (1, 2):
        bounded = explore.explore(start, _settings(max_states=free.states, workers=workers))
        assert bounded.complete
        assert (bounded.states, bounded.transitions) == (free.states, free.transitions)
    short = explore.explore(start, _settings(max_states=free.states - 1))
    assert not short.complete and short.states == free.states - 1


def test_text_report(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert cli.main(["check", str(write_yaml(tmp_path, SMALL)), "--max-states", "100"]) == 0
    text = capsys.readouterr().out
    assert "explored: stopped at --max-states 100," in text
    # the last line does not read as if every state had been checked
    assert text.endswith("\nno violation in the 100 states explored (the search stopped at "
                         "--max-states 100; the states beyond were not checked)\n")
    assert cli.main(["check", str(write_yaml(tmp_path, SMALL))]) == 0
    assert capsys.readouterr().out.endswith("\nno violation\n")
    # one state, one turn change: counted in the singular
    assert cli.main(["check", str(write_yaml(tmp_path, SMALL)), "--max-states", "1"]) == 0
    text = capsys.readouterr().out
    assert "within 1 turn change, plays of at most 1 target" in text
    assert "\nno violation in the 1 state explored (" in text


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    missing = tmp_path / "missing.yaml"
    assert cli.main(["check", str(missing)]) == 2
    message = capsys.readouterr().err
    assert str(missing) in message and message.count("\n") == 1

    assert cli.main(["check", str(write_yaml(tmp_path, SMALL)), "--invariant", "nope"]) == 2
    assert "nope" in capsys.readouterr().err

    refused = dict(SMALL, steps=[{"pass": "P1"}])
    assert cli.main(["check", str(write_yaml(tmp_path, refused, "refused.yaml"))]) == 2
    message = capsys.readouterr().err
    assert "refused.yaml: steps[0].pass" in message and message.count("\n") == 1

    assert cli.main(["check"]) == 2
    assert "FILE" in capsys.readouterr().err


def test_prefix_is_played_and_bounds_apply(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    moved = dict(SMALL, steps=[{"move": {"player": "P1", "units": ["U1"], "to": "B"}},
                               {"expect": {"state": "showdown-open"}}])
    prepared = prepare(str(write_yaml(tmp_path, moved)))
    assert prepared.prefix == [{"move": {"player": "P1", "units": ["U1"], "to": "B"}}]
    assert prepared.start.contest_at == "B"
    report = explore.explore(prepared.start, _settings(max_states=1))
    assert report.states == 1 and not report.complete and report.transitions > 0
    assert report.max_depth == 0


# --- the graph ------------------------------------------------------------------------------


def test_graphml_and_dot(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    model = str(write_yaml(tmp_path, SMALL))
    graphml = tmp_path / "states.graphml"
    code, report = _check([model, "--max-states", "300", "--graph", str(graphml)], capsys)
    assert code == 0
    graph = nx.read_graphml(graphml, force_multigraph=True)
    assert graph.number_of_nodes() == report["states"] == 300
    assert graph.number_of_edges() > 0
    assert graph.nodes["s0"]["state"] == "neutral-open"
    assert report["graph_file"] == str(graphml)  # for a program, beside the words
    # every edge has an id of its own: GraphML viewers (Gephi, yEd) keep one edge per id
    ids = [key for _, _, key in graph.edges(keys=True)]
    assert len(set(ids)) == len(ids) == graph.number_of_edges()
    # the search stopped at --max-states: the graph says so, and the report says what of the
    # transitions it counted the graph cannot draw
    assert graph.graph["complete"] is False and not report["complete"]
    missing = report["transitions"] - graph.number_of_edges()
    assert missing > 0
    assert report["graph"] == (
        f"graph written to {graphml} (the search stopped at --max-states: the {missing:,} "
        "transitions to states it did not keep are not drawn)")
    code, whole = _check([str(write_yaml(tmp_path, {**SMALL, "hands": {}, "units": SMALL[
        "units"][:2]})), "--graph", str(graphml)], capsys)
    graph = nx.read_graphml(graphml, force_multigraph=True)
    assert whole["complete"] and graph.graph["complete"] is True
    assert graph.number_of_edges() == whole["transitions"]
    assert whole["graph"] == f"graph written to {graphml}"

    dot = tmp_path / "states.dot"
    assert cli.main(["check", model, "--max-states", "300", "--graph", str(dot)]) == 0
    text = dot.read_text()
    assert text.startswith("digraph states {") and "s0 -> s" in text


def test_dot_labels_keep_their_characters(tmp_path: Path) -> None:
    """DOT reads UTF-8: a player named Pé is written Pé, not as a JSON escape."""
    data = {**SMALL, "players": ["P1", "Pé", "P3"],
            "battlefields": [{"id": "A", "controller": "Pé"}, {"id": "B"}],
            "units": [{**u, "controller": "Pé"} if u["controller"] == "P2" else u
                      for u in SMALL["units"]],
            "hands": {"Pé": SMALL["hands"]["P2"], "P3": SMALL["hands"]["P3"]}}
    dot = tmp_path / "states.dot"
    assert cli.main(["check", str(write_yaml(tmp_path, data)), "--max-states", "50",
                     "--graph", str(dot), "--out", str(tmp_path)]) == 0
    text = dot.read_text(encoding="utf-8")
    assert "Pé" in text and "\\u00e9" not in text


def test_where_results_cannot_go_is_said_before_the_search(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture) -> None:
    model = str(write_yaml(tmp_path, SMALL))
    nowhere = str(tmp_path / "missing" / "states.dot")
    assert cli.main(["check", model, "--graph", nowhere, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot write --graph" in err and "states" not in err[:10]
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    assert cli.main(["check", model, "--out", str(blocker / "cex")]) == 2
    assert "cannot write to --out" in capsys.readouterr().err


def test_an_invariant_the_profile_does_not_have_checks_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    code = cli.main(["check", str(write_yaml(tmp_path, SMALL)), "--rules", "cr-1.4",
                     "--invariant", "control_frozen_while_contested", "--out", str(tmp_path)])
    assert code == 2 and "not an invariant of profile cr-1.4" in capsys.readouterr().err


def test_graph_refused_when_too_big(tmp_path: Path, capsys: pytest.CaptureFixture,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(explore, "GRAPH_LIMIT", 50)
    graph = tmp_path / "states.graphml"
    code, report = _check([str(write_yaml(tmp_path, SMALL)), "--max-states", "200",
                           "--graph", str(graph)], capsys)
    assert code == 0
    assert "more than 50 states" in capsys.readouterr().err + report["graph"]
    assert report["graph_file"] is None
    assert not graph.exists()


# --- symmetry and workers --------------------------------------------------------------------


def test_symmetry_reduces_and_keeps_the_verdict(tmp_path: Path,
                                                capsys: pytest.CaptureFixture) -> None:
    """F1 and F2 are interchangeable: P2's Reaction killing either leaves one state (board
    order tells two twins apart while both are on the board, not once one has left it)."""
    kill = {"id": "T1", "type": "spell", "timing": "reaction", "effect": {"kill": {}}}
    data = {**SMALL, "hands": {**SMALL["hands"], "P2": [kill]}}
    code, report = _check([str(write_yaml(tmp_path, data)), "--symmetry"], capsys)
    assert code == 0
    sym = report["symmetry"]
    assert (sym["states_without"], sym["states_with"]) == (3801, 3386)
    assert sym["same_verdict"] and sym["interchangeable"] == [["F1", "F2"]]


def test_symmetry_groups_units_with_equal_triggers(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture) -> None:
    """Triggers hold mappings (their effects): units with equal ones are still alike, units
    with different ones are not."""
    alike = {"when": "move", "effect": {"draw": 1}}
    data = {**SMALL, "units": [
        *SMALL["units"][:2],
        {"id": "F1", "controller": "P3", "might": 1, "at": "base", "triggers": [alike]},
        {"id": "F2", "controller": "P3", "might": 1, "at": "base", "triggers": [alike]},
        {"id": "F3", "controller": "P3", "might": 1, "at": "base",
         "triggers": [{"when": "move", "effect": {"draw": 2}}]},
    ]}
    start = prepare(str(write_yaml(tmp_path, data))).start
    assert explore.Symmetry(start).classes == (("F1", "F2"),)
    code, report = _check([str(write_yaml(tmp_path, data)), "--symmetry", "--max-states", "3000"],
                          capsys)
    assert code == 0 and report["symmetry"]["interchangeable"] == [["F1", "F2"]]


def test_a_capped_symmetry_run_says_it_measures_no_reduction(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    code, report = _check([str(write_yaml(tmp_path, SMALL)), "--symmetry", "--max-states", "100"],
                          capsys)
    assert code == 0 and report["symmetry"]["both_complete"] is False
    # counts cut short measure nothing, and two searches cut short saw different states
    assert report["symmetry"]["reduction"] is None and report["symmetry"]["same_verdict"] is None
    cli.main(["check", str(write_yaml(tmp_path, SMALL)), "--symmetry", "--max-states", "100"])
    out = capsys.readouterr().out
    assert "reduction and verdicts not compared (a search stopped at --max-states)\n" in out
    assert "  interchangeable: F1 = F2\n" in out


def test_a_symmetry_run_says_when_nothing_is_interchangeable(
        capsys: pytest.CaptureFixture) -> None:
    code, report = _check([str(ONE_V_ONE), "--symmetry", "--max-states", "50"], capsys)
    assert code == 0 and report["symmetry"]["interchangeable"] == []
    cli.main(["check", str(ONE_V_ONE), "--symmetry", "--max-states", "50"])
    assert "  interchangeable: none (no two units or unit cards alike)\n" in capsys.readouterr().out


def test_symmetry_key_merges_swapped_units() -> None:
    start = prepare(str(FFA)).start
    sym = explore.Symmetry(start)
    assert sym.classes == (("F1", "F2"),)
    one, two = twin_moved(start, "F1", "F2"), twin_moved(start, "F2", "F1")
    assert state_key(one) != state_key(two)
    assert sym.key(one) == sym.key(two)
    # moved alone, F2 is after F1 in board order, which a later move keeps: not a renaming
    alone = start.copy()
    alone.units["F2"] = dataclasses.replace(alone.units["F2"], at="B")
    assert sym.key(one) != sym.key(alone)


def test_symmetry_renames_twins_wherever_the_state_names_them() -> None:
    """Swapped twins are one state, also where a pending choice or a damage plan names them;
    the same names on the same twin are not."""
    start = prepare(str(FFA)).start
    sym = explore.Symmetry(start)
    one, two = twin_moved(start, "F1", "F2"), twin_moved(start, "F2", "F1")
    for field, value in (("pending", lambda moved: {"player": "P3", "kind": "damage",
                                                    "options": (moved,), "total": 1}),
                         ("damage_plan", lambda moved: {"P1": {moved: 1}})):
        a, b = one.copy(), two.copy()
        setattr(a, field, value("F1"))
        setattr(b, field, value("F2"))
        assert sym.key(a) == sym.key(b), field  # the twin that moved is named in both
        setattr(b, field, value("F1"))
        assert sym.key(a) != sym.key(b), field  # here the twin that stayed is


def test_symmetry_never_merges_units_that_differ_or_that_something_names() -> None:
    from dataclasses import replace

    from engine.state import Trigger

    start = prepare(str(FFA)).start
    assert explore.Symmetry(start).classes == (("F1", "F2"),)
    timed = start.copy()
    timed.units["F2"] = replace(timed.units["F2"], timing="reaction")  # played from another card
    assert explore.Symmetry(timed).classes == ()
    named = start.copy()
    named.fields["A"] = replace(named.fields["A"], abilities=(
        Trigger("beginning", {"stun": {}}, ("F1",)),))  # a battlefield's ability names F1
    assert explore.Symmetry(named).classes == ()


def test_a_trigger_on_the_chain_is_keyed_by_which_of_its_units_effects_it_is() -> None:
    """Two triggers of one unit on one event have the same label; the key tells them apart."""
    from engine.state import ChainItem

    start = prepare(str(FFA)).start
    one, two = start.copy(), start.copy()
    one.chain = [ChainItem("trigger", "F1:move", "P3", {"stun": {}}, source="F1")]
    two.chain = [ChainItem("trigger", "F1:move", "P3", {"draw": 1}, source="F1")]
    assert state_key(one) != state_key(two)


# the workers start at the first level of PARALLEL_FROM states; 1 starts them at once
WORKERS_FROM = pytest.mark.parametrize("parallel_from", [1, explore.PARALLEL_FROM],
                                       ids=["workers from the start", "from a large level"])


@WORKERS_FROM
def test_workers_give_the_same_exploration(monkeypatch: pytest.MonkeyPatch,
                                           parallel_from: int) -> None:
    monkeypatch.setattr(explore, "PARALLEL_FROM", parallel_from)
    start = prepare(str(FFA)).start
    one = explore.explore(start, _settings(max_states=3_000, max_turns=1))
    two = explore.explore(start, _settings(max_states=3_000, max_turns=1, workers=2))
    assert (two.states, two.transitions, two.max_depth) == (one.states, one.transitions,
                                                             one.max_depth)
    assert two.frontier == one.frontier and sorted(two.violations) == sorted(one.violations)
    # node by node: the same states, numbered alike, joined by the same actions
    one = explore.explore(start, _settings(max_states=3_000, graph=True))
    two = explore.explore(start, _settings(max_states=3_000, graph=True, workers=2))
    assert two.edges == one.edges and two.nodes == one.nodes


def _p2_changes_something(parent: GameState, action: Any, child: GameState) -> bool:
    return getattr(action, "player", None) != "P2" or state_key(parent) != state_key(child)


def test_workers_report_a_failing_transition_to_a_state_they_already_know(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker leaves out the transitions to states it found in an earlier level, which the
    parent only counts, but not one that breaks an invariant. In the free-for-all model a
    second Add in a row by P2 changes nothing: the state goes back to itself, a state the
    worker holds and knows; the first such loop the search meets is the counterexample kept,
    with workers as without."""
    monkeypatch.setattr(explore, "PARALLEL_FROM", 1)
    looping = Invariant("p2_changes_something", "a test's own", "transition",
                        _p2_changes_something, lambda child, parent: {})
    start = prepare(str(FFA)).start
    found = [explore.explore(start, Settings([looping], max_states=3_000, workers=n))
             for n in (1, 2)]
    one, two = (report.violations["p2_changes_something"] for report in found)
    assert one.path[-2:] == [actions.Add("P2")] * 2
    assert two.path == one.path


@WORKERS_FROM
def test_workers_complete_exploration_matches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              parallel_from: int) -> None:
    monkeypatch.setattr(explore, "PARALLEL_FROM", parallel_from)
    start = prepare(str(write_yaml(tmp_path, SMALL))).start
    one = explore.explore(start, _settings())
    two = explore.explore(start, _settings(workers=2))
    assert one.complete and two.complete
    assert (two.states, two.transitions, two.terminal) == (one.states, one.transitions,
                                                            one.terminal)


# --- shortest paths across turns ------------------------------------------------------------

# P2 can kill U1 in P1's turn (in a Showdown at A) or in its own; U2 is U1's twin (--symmetry)
KILL_IN_EITHER_TURN = {
    "name": "a kill in either turn",
    "players": ["P1", "P2"],
    "deck": {"P1": 0, "P2": 0},
    "battlefields": [{"id": "A"}],
    "units": [{"id": "U1", "controller": "P1", "might": 1, "at": "base"},
              {"id": "U2", "controller": "P1", "might": 1, "at": "base"}],
    "hands": {"P2": [{"id": "T1", "type": "spell", "timing": "reaction",
                      "effect": {"kill": {}}}]},
}


@pytest.mark.parametrize("workers", [1, 2])
def test_a_counterexample_in_the_next_turn_is_the_shortest(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int) -> None:
    """U1 dead in P2's turn: four steps (P1 ends the turn, P2 kills U1, both pass), not the
    seven of a path that reaches the same state through P1's Showdown; the file replays it."""
    monkeypatch.setattr(explore, "PARALLEL_FROM", 1)
    data = dict(KILL_IN_EITHER_TURN, units=KILL_IN_EITHER_TURN["units"][:1])
    source = write_yaml(tmp_path, data)
    alive = invariants.view_invariant(
        "u1_alive_in_p2s_turn", "a test's own",
        lambda view: view["turn"]["player"] != "P2" or view["units"]["U1"]["at"] != "trash",
        shows=["units", "turn"])
    prepared = prepare(str(source))
    report = explore.explore(prepared.start, Settings([alive], max_turns=2, workers=workers))
    violation = report.violations[alive.name]
    assert [actions.to_step(a) for a in violation.path] == [
        {"end_turn": "P1"}, {"play": {"player": "P2", "card": "T1", "targets": ["U1"]}},
        {"pass": "P2"}, {"pass": "P1"}]
    written = tmp_path / "counterexample.yaml"
    written.write_text(counterexample.text_for(str(source), prepared.prefix, violation),
                       encoding="utf-8")
    assert runner.run_file(written).code == runner.OK


# --- successors on both runtimes ------------------------------------------------------------


def test_successors_agree_with_python_statemachine() -> None:
    """Along one path, every legal action's successor is the same on the fast runtime and
    on python-statemachine (CheckedRuntime fails on any difference in between)."""
    state = prepare(str(ONE_V_ONE)).start
    for _ in range(12):
        legal = actions.legal(state)
        for action in legal:
            assert state_key(successor(state, action, CheckedRuntime())) == state_key(
                successor(state, action, FastRuntime()))
        state = successor(state, legal[len(legal) // 2])


# --- counterexamples --------------------------------------------------------------------------


def _nobody_conquers(parent: Any, action: Any, child: Any) -> bool:
    """Nobody ever scores (test only: false as soon as someone conquers; CR 463)."""
    return child.scores == parent.scores


def test_counterexample_replays(tmp_path: Path) -> None:
    source = write_yaml(tmp_path, dict(SMALL, steps=[{"add": "P1"}]))
    witness = invariants._view_keys("score", "control")
    never = Invariant("nobody_conquers", "CR 463", "transition", _nobody_conquers, witness,
                      doc="Nobody ever scores (CR 463).")
    prepared = prepare(str(source))
    report = explore.explore(prepared.start, Settings([never]))
    violation = report.violations["nobody_conquers"]
    path = counterexample.write(source, prepared.prefix, violation, tmp_path / "out")

    written = yaml.safe_load(path.read_text())
    assert written["players"] == SMALL["players"] and written["units"] == SMALL["units"]
    assert written["steps"][0] == {"add": "P1"}  # the prefix comes first
    assert written["steps"][-1] == {"expect": violation.witness}
    assert len(written["steps"]) == violation.depth + 2
    # the header counts the search's steps apart from the file's own
    header = path.read_text().splitlines()[1]
    assert header == (f"# {violation.depth} steps, after the file's own 1, from the start "
                      f"of {source.name}.")
    # the engine reaches the violation, so the final expect holds
    result = runner.run_file(path)
    assert result.code == runner.OK, result.message
    # with no steps of its own, the file's start is where the search began
    fresh = tmp_path / "fresh.yaml"
    fresh.write_text(yaml.safe_dump(SMALL))
    prepared = prepare(str(fresh))
    violation = explore.explore(prepared.start, Settings([never])).violations["nobody_conquers"]
    text = counterexample.text_for(fresh, prepared.prefix, violation)
    assert text.splitlines()[1] == f"# {violation.depth} steps from the start of fresh.yaml."


def test_a_win_is_not_a_turn_change(tmp_path: Path) -> None:
    """P1 wins by conquering the only battlefield in its own turn (its final point: every
    battlefield scored this turn, rules section 7): the violation of "nobody wins" counts no
    turn change, as the game ends in P1's turn."""
    source = write_yaml(tmp_path, {
        "name": "a win in one move", "players": ["P1", "P2"], "battlefields": [{"id": "A"}],
        "victory_score": 1,
        "units": [{"id": "U1", "controller": "P1", "might": 1, "at": "base"}],
    })
    nobody_wins = invariants.view_invariant("nobody_wins", "a test's own",
                                            lambda v: v["winner"] is None)
    report = explore.explore(prepare(str(source)).start, Settings([nobody_wins]))
    violation = report.violations["nobody_wins"]
    assert violation.witness["winner"] == "P1"
    assert violation.path == [actions.Move("P1", ("U1",), "A"), actions.Pass("P1"),
                              actions.Pass("P2")]  # the Showdown at A, then the Conquer
    assert violation.turns == 0


def test_a_state_copy_carries_every_field_and_shares_no_container() -> None:
    """``GameState.copy`` names the fields one by one (a compiled build has no ``__dict__`` to
    copy): a field added to the class and forgotten there would come back as its default."""
    state = prepare(str(ONE_V_ONE)).start
    marks: dict[str, Any] = {}
    for f in dataclasses.fields(GameState):
        value = getattr(state, f.name)
        # a value no default has: a container gets one more entry, a scalar a new value
        if isinstance(value, dict):
            # one more entry, shaped like the others (damage_plan's values are dicts)
            value = type(value)({**value, "mark": next(iter(value.values()), {})})
        elif isinstance(value, list):
            value = [*value, f.name]
        elif isinstance(value, tuple):
            value = (*value, f.name)
        elif isinstance(value, bool):  # of the right type: the compiled build checks types
            value = not value
        elif isinstance(value, int):
            value += 7
        elif f.name == "pending":  # None or a dict
            value = {"mark": f.name}
        elif f.name == "teams":  # None or a tuple of teams
            value = (("mark",),)
        else:  # a string, or None for one
            value = f"mark {f.name}"
        setattr(state, f.name, value)
        marks[f.name] = value
    copy = state.copy()
    for name, value in marks.items():
        assert getattr(copy, name) == value, name
        if isinstance(value, dict | list):
            assert getattr(copy, name) is not value, f"{name} is shared"


# What the key leaves out, and why: fixed for a whole search (the setup's), or a counter whose
# value does not matter (a unit entering the board always goes last, so only the units' relative
# order is keyed). Everything else a rule changes must change the key, or two states the rules
# tell apart would be explored as one.
KEY_LEAVES_OUT = {
    GameState: {"players", "teams", "profile", "victory_score", "manual_damage", "next_order"},
    # static: fixed by the unit's or battlefield's id
    Unit: {"name", "might", "keywords", "triggers", "timing"},
    Field: {"id", "name", "index", "abilities"},
}


def configurations_after(state: GameState) -> Any:
    """The charts' configurations after each legal action from ``state``."""
    for action in actions.legal(state):
        yield successor(state, action, FastRuntime()).configs


def _another(value: Any, name: str) -> Any:
    """A value of the same kind as ``value`` that it is not (as the copy test makes them)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 7
    if isinstance(value, tuple):
        return (*value, "P1")
    return f"mark {name}"


@pytest.mark.parametrize("symmetry", [False, True], ids=["plain", "symmetry"])
def test_the_key_holds_every_field_a_rule_can_change(symmetry: bool) -> None:
    """Each field outside KEY_LEAVES_OUT, changed alone, changes the state's key (plain and
    with --symmetry): a field left out of the key merges states the rules tell apart (a 2v2
    search without ``blocked_scoring`` in it finds 4 states fewer)."""
    start = prepare(str(ONE_V_ONE)).start
    leaves_out = {cls: set(names) for cls, names in KEY_LEAVES_OUT.items()}
    key = state_key
    if symmetry:
        # U3, a twin of U1, so that the key renames them
        start.units["U3"] = dataclasses.replace(start.units["U1"], id="U3",
                                                order=start.next_order)
        start.next_order += 1
        key = explore.Symmetry(start).key
        assert explore.Symmetry(start).classes == (("U1", "U3"),)
        leaves_out[GameState].add("units")
    before = key(start)
    changed = []
    for f in dataclasses.fields(GameState):
        if f.name in leaves_out[GameState]:
            continue
        state = start.copy()
        value = getattr(state, f.name)
        if isinstance(value, dict) and f.name in ("scores", "deck"):
            value = {**value, "P1": value["P1"] + 1}
        elif f.name == "hands":
            value = {**value, "P1": value["P1"][1:]}
        elif f.name == "units":
            unit = state.units["U1"]
            value = value.copy()
            value["U1"] = dataclasses.replace(unit, order=max(u.order for u in value.values()) + 1)
        elif f.name == "fields":
            value = {**value, "A": dataclasses.replace(value["A"], applier="P1")}
        elif f.name == "configs":
            value = next(c for c in configurations_after(start) if c != value)
        elif f.name == "chain":
            value = [ChainItem("add", "add:P1", "P1")]
        elif f.name == "pending":
            value = {"player": "P1", "kind": "mark", "options": ("U1",)}
        elif f.name == "damage_plan":
            value = {"P1": {"U1": 1}}
        elif f.name == "queued_triggers":
            value = [(("mark",), ChainItem("trigger", "U1:mark", "P1"))]
        else:
            value = _another(value, f.name)
        setattr(state, f.name, value)
        changed.append(f.name)
        assert key(state) != before, f"the key does not see {f.name}"
    assert "blocked_scoring" in changed
    for cls, where in ((Unit, lambda s: s.units["U1"]), (Field, lambda s: s.fields["A"])):
        for f in dataclasses.fields(cls):
            if f.name in leaves_out[cls]:
                continue
            state = start.copy()
            old = where(state)
            new = dataclasses.replace(old, **{f.name: _another(getattr(old, f.name), f.name)})
            if cls is Unit:
                state.units[old.id] = new
            else:
                state.fields[old.id] = new
            assert key(state) != before, f"the key does not see {cls.__name__}.{f.name}"


def test_a_combat_staged_again_is_a_new_focus_cycle(tmp_path: Path) -> None:
    """Scenario 242: a trigger's chain in a Combat's resolution ends, No Result stages the
    Combat again, and it begins with Focus to its Attacker. That is the new Combat's first Focus
    (checked by first_focus_to_applier), not Focus passed by the chain (which
    non_card_chains_keep_focus forbids)."""
    (source,) = (ROOT / "scenarios").glob("242_*.yaml")
    setup = yaml.safe_load(source.read_text())
    setup["steps"] = setup["steps"][:-2]  # up to the last pass, which ends the chain
    path = tmp_path / "before_the_last_pass.yaml"
    path.write_text(yaml.safe_dump(setup))
    parent = prepare(str(path)).start
    last = actions.Pass("P1")
    child = successor(parent, last)
    assert (parent.chain_begun_by, parent.focus, child.focus) == ("trigger", None, "P1")
    by_name = {i.name: i for i in invariants.all_invariants()}
    assert by_name["non_card_chains_keep_focus"].holds(parent, last, child)
    assert by_name["first_focus_to_applier"].holds(parent, last, child)
    to_defender = child.copy()
    to_defender.focus = to_defender.priority = "P2"
    assert not by_name["first_focus_to_applier"].holds(parent, last, to_defender)


@pytest.mark.parametrize(("change", "error", "message"), [
    ({"max_turns": 0}, ValueError, "settings.max_turns must be 1 or more, not 0"),
    ({"max_states": -1}, ValueError, "settings.max_states must be 1 or more, not -1"),
    ({"workers": 0}, ValueError, "settings.workers must be 1 or more, not 0"),
    ({"workers": 65}, ValueError, "settings.workers must be at most 64, not 65"),
    ({"max_targets": 0}, ValueError, "settings.max_targets must be 1 or more, not 0"),
    ({"max_states": 2.5}, TypeError, "settings.max_states must be an int, not float"),
    ({"symmetry": 1}, TypeError, "settings.symmetry must be True or False"),
    ({"invariants": "no_deadlock"}, TypeError, "settings.invariants must be a list of Invariant"),
])
def test_search_settings_are_checked_before_the_search(change: dict, error: type,
                                                       message: str, tmp_path: Path) -> None:
    """From Python as on the command line: a bound that would search nothing, or a value of
    the wrong type, is refused naming the setting (it ran silently, or failed deep inside)."""
    start = prepare(str(write_yaml(tmp_path, SMALL))).start
    with pytest.raises(error) as refused:
        explore.explore(start, dataclasses.replace(Settings(invariants.all_invariants()),
                                                   **change))
    # built with mypyc (tests/test_compiled.py), Settings itself refuses a value of the wrong
    # type, in mypyc's words
    compiled = not expansion.__file__.endswith(".py")
    if not (compiled and error is TypeError):
        assert str(refused.value).startswith(message)


def test_the_start_must_be_a_game_state(tmp_path: Path) -> None:
    game = Game.from_scenario(SMALL)
    with pytest.raises(TypeError, match=r"start must be a GameState \(a Game's is game.state\)"):
        explore.explore(game, Settings([]))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="settings must be a Settings, not list"):
        explore.explore(game.state, [])  # type: ignore[arg-type]


SHORTEST_PATH_SEARCHES = {  # position, turns, workers, symmetry
    "three players, two turns": (SMALL, 2, 1, False),
    "a kill in either turn": (KILL_IN_EITHER_TURN, 3, 1, False),
    "a kill in either turn, workers": (KILL_IN_EITHER_TURN, 3, 2, False),
    "a kill in either turn, symmetry": (KILL_IN_EITHER_TURN, 3, 1, True),
    "a kill in either turn, both": (KILL_IN_EITHER_TURN, 3, 2, True),
}


@pytest.mark.parametrize("search", SHORTEST_PATH_SEARCHES.values(), ids=SHORTEST_PATH_SEARCHES)
def test_every_state_is_expanded_with_a_shortest_path(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, search: tuple) -> None:
    """Each state is expanded with the path of fewest turn changes, then fewest steps (the
    order counterexamples are kept in): checked against a shortest-path search of the state
    graph it wrote, where a later turn starts from states at many depths. In the kill in
    either turn, a state of P2's turn first reached late in P1's (U1 killed in P1's
    Showdown, then the turn ended) is reached sooner in P2's (P1 ends the turn at once, then
    P2 kills U1), and must take that path before it is expanded."""
    position, turns, workers, symmetry = search
    monkeypatch.setattr(explore, "GRAPH_LIMIT", 20_000)  # room for SMALL's 5,138 states
    monkeypatch.setattr(explore, "PARALLEL_FROM", 1)  # the workers from the start
    start = prepare(str(write_yaml(tmp_path, position))).start
    explorer = explore.Explorer(start, Settings([], max_turns=turns, graph=True,
                                                workers=workers, symmetry=symmetry))
    report = explorer.run()
    assert report.complete and not report.graph_dropped
    graph = nx.DiGraph()
    changes_turn = 10 ** 6  # more than the steps of any path: one turn change outweighs them
    for parent, child, _action in report.edges:
        turn_changed = report.nodes[parent]["turn"] != report.nodes[child]["turn"]
        graph.add_edge(parent, child, weight=1 + changes_turn * turn_changed)
    shortest = nx.single_source_dijkstra_path_length(graph, 0)
    assert len(shortest) == report.states
    later_turns = 0
    for node, entry in enumerate(explorer.nodes):
        assert divmod(shortest[node], changes_turn) == (entry.turns, entry.depth), node
        later_turns += entry.turns > 0
    assert later_turns > report.states / 4  # SMALL: 1,420 of 5,138
    assert report.max_depth == max(entry.depth for entry in explorer.nodes)


def test_the_json_report_is_a_function_a_python_user_can_call(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """``riftchart check --json`` prints ``engine.check.report_summary`` of its search."""
    from benchmarks.compiled_build import without_timings
    from engine.check import report_summary

    model = str(write_yaml(tmp_path, SMALL))
    code, printed = _check([model, "--out", str(tmp_path)], capsys)
    prepared = prepare(model)
    settings = _settings()
    made = report_summary(model, prepared, settings, explore.explore(prepared.start, settings))
    assert code == 0 and without_timings(made) == without_timings(printed)


def test_a_violation_counts_the_turn_change_of_its_failing_step() -> None:
    """The documented example (docs/model-checking.md): the transition invariant fails on the
    first end_turn, a turn change; the state invariant within P1's turn."""
    from engine.invariants import view_invariant, view_step_invariant

    p2_scoreless = view_invariant("p2_scoreless", "house rule 1",
                                  lambda v: v["score"]["P2"] == 0, shows=["score"])
    quiet = view_step_invariant(
        "quiet_turn_change", "house rule 2",
        lambda before, step, after: "end_turn" not in step or before["score"] == after["score"],
        shows=["score", "turn"])
    report = explore.explore(prepare(str(ONE_V_ONE)).start,
                             Settings([p2_scoreless, quiet], max_states=20_000))
    turn_change = report.violations["quiet_turn_change"]
    assert (turn_change.turns, turn_change.depth) == (1, 1)
    assert turn_change.path == [actions.EndTurn("P1")]
    assert report.violations["p2_scoreless"].turns == 0
    # the JSON report says both counts
    summary = check.report_summary(str(ONE_V_ONE), prepare(str(ONE_V_ONE)),
                                   Settings([p2_scoreless, quiet]), report)
    counts = {v["invariant"]: (v["depth"], v["turns"]) for v in summary["violations"]}
    assert counts == {"quiet_turn_change": (1, 1), "p2_scoreless": (9, 0)}


@pytest.mark.parametrize(("limit", "dropped"), [(300, False), (299, True)])
def test_the_graph_is_kept_up_to_its_limit_exactly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   limit: int, dropped: bool) -> None:
    """A search of exactly GRAPH_LIMIT states keeps its graph; one more state drops it."""
    monkeypatch.setattr(explore, "GRAPH_LIMIT", limit)
    start = prepare(str(write_yaml(tmp_path, SMALL))).start
    report = explore.explore(start, _settings(max_states=300, graph=True))
    assert report.states == 300 and report.graph_dropped == dropped
    assert len(report.nodes) == (0 if dropped else 300)


def test_the_bundled_copies_model_halves_with_symmetry(capsys: pytest.CaptureFixture) -> None:
    """docs/model-checking.md's figure: two copies of a unit card in hand, played in either
    order, are one state with --symmetry."""
    code, report = _check([str(ROOT / "models" / "1v1_copies_in_hand.yaml"), "--symmetry"],
                          capsys)
    sym = report["symmetry"]
    assert code == 0 and report["violations"] == [] and sym["same_verdict"]
    assert (sym["states_without"], sym["states_with"]) == (5805, 2609)
    assert sym["interchangeable"] == [["C1", "C2"]]


# --- fields of the state key each change the future (a second mutation audit) -----------


def _keys(start: GameState, one: GameState, two: GameState) -> list[tuple[tuple, tuple]]:
    """The plain key and the --symmetry key (U3 a twin of U1) of two states."""
    sym = explore.Symmetry(start)
    return [(state_key(one), state_key(two)), (sym.key(one), sym.key(two))]


def _start() -> GameState:
    start = prepare(str(ONE_V_ONE)).start
    start.units["U3"] = dataclasses.replace(start.units["U1"], id="U3", order=start.next_order)
    start.next_order += 1
    assert explore.Symmetry(start).classes == (("U1", "U3"),)
    return start


def test_the_key_sees_which_cards_are_in_a_hand_not_only_how_many() -> None:
    start = _start()
    one, two = start.copy(), start.copy()
    (player, hand), *_ = [(p, h) for p, h in start.hands.items() if h]
    two.hands = {**two.hands, player: [dataclasses.replace(hand[0], id="OTHER"), *hand[1:]]}
    assert len(one.hands[player]) == len(two.hands[player])
    for a, b in _keys(start, one, two):
        assert a != b


def test_the_key_sees_how_much_damage_a_plan_assigns() -> None:
    start = _start()
    one, two = start.copy(), start.copy()
    one.damage_plan = {"P1": {"U2": 1}}
    two.damage_plan = {"P1": {"U2": 2}}
    for a, b in _keys(start, one, two):
        assert a != b


def test_the_key_sees_a_damage_choices_total() -> None:
    start = _start()
    one, two = start.copy(), start.copy()
    one.pending = {"player": "P1", "kind": "damage", "options": ("U2",), "total": 1}
    two.pending = {"player": "P1", "kind": "damage", "options": ("U2",), "total": 3}
    for a, b in _keys(start, one, two):
        assert a != b


def test_the_key_sees_the_order_queued_triggers_go_on_the_chain_in() -> None:
    """flush_triggers sorts the queue by its order keys: two queues with the same items and
    other order keys put them on the Chain in other orders."""
    start = _start()
    first = ChainItem("trigger", "U1:die", "P1", source="U1", where="A")
    second = ChainItem("trigger", "U2:die", "P2", source="U2", where="A")
    one, two = start.copy(), start.copy()
    one.queued_triggers = [((0, 1), first), ((1, 2), second)]
    two.queued_triggers = [((1, 1), first), ((0, 2), second)]
    for a, b in _keys(start, one, two):
        assert a != b


def test_twins_off_the_board_are_told_apart_by_where_the_chain_names_them() -> None:
    """U1 and U3 are twins, both in the trash, alike in all but their ids: a state whose Chain
    holds U1's trigger and one whose Chain holds U3's are each other's renaming, one state."""
    start = _start()
    one, two = start.copy(), start.copy()
    for s in (one, two):
        for uid in ("U1", "U3"):
            s.units[uid] = dataclasses.replace(s.units[uid], at="trash")
    one.chain = [ChainItem("trigger", "U1:die", "P1", effect={"draw": 1}, source="U1", where="A")]
    two.chain = [ChainItem("trigger", "U3:die", "P1", effect={"draw": 1}, source="U3", where="A")]
    sym = explore.Symmetry(start)
    assert state_key(one) != state_key(two)
    assert sym.key(one) == sym.key(two)


def test_units_of_different_might_are_never_twins() -> None:
    start = prepare(str(ONE_V_ONE)).start
    u1 = start.units["U1"]
    start.units["U3"] = dataclasses.replace(u1, id="U3", might=u1.might + 1,
                                            order=start.next_order)
    start.next_order += 1
    assert explore.Symmetry(start).classes == ()


def test_a_unit_named_by_an_effect_on_the_starting_chain_has_no_twin() -> None:
    """A model's steps can leave a Chain in the start state: an effect there naming U1 moves
    U1 and not its twin, so U1 and U3 must not be merged."""
    start = _start()
    start.chain = [ChainItem("card", "S9", "P1", effect={"move": {"units": ["U1"], "to": "A"}})]
    assert explore.Symmetry(start).classes == ()


def test_the_key_sees_where_a_trigger_on_the_chain_triggered() -> None:
    """An ``enemies_here`` trigger hits the enemies where its source was (scenario 095): the
    same die trigger from A and from B are different futures."""
    start = _start()
    one, two = start.copy(), start.copy()
    effect = {"damage": 1}
    one.chain = [ChainItem("trigger", "U2:die", "P1", effect=effect, targets="enemies_here",
                           source="U2", where="A")]
    two.chain = [dataclasses.replace(one.chain[0], where="B")]
    for a, b in _keys(start, one, two):
        assert a != b


def test_the_key_sees_who_controls_a_trigger_on_the_chain() -> None:
    """A trigger is controlled by its source's controller when it triggered (scenario 271),
    which a later take_control does not change: the label does not say who."""
    start = _start()
    one, two = start.copy(), start.copy()
    one.chain = [ChainItem("trigger", "U2:die", "P1", effect={"draw": 1}, source="U2",
                           where="A")]
    two.chain = [dataclasses.replace(one.chain[0], controller="P2")]
    for a, b in _keys(start, one, two):
        assert a != b


def test_a_game_won_at_the_turn_bound_is_terminal_not_past_it(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """P1 ends the turn; P2 holds A at its Beginning phase and wins. That state is reached by
    the turn change the bound stops at, but nothing lies beyond it: it counts as terminal,
    not as left unexplored (past --max-turns)."""
    model = write_yaml(tmp_path, {
        "name": "hold to win", "players": ["P1", "P2"], "scores": {"P1": 0, "P2": 7},
        "battlefields": [{"id": "A", "controller": "P2"}, {"id": "B"}],
        "units": [{"id": "E1", "controller": "P2", "might": 1, "at": "A"}],
    })
    for turns in ("1", "2"):
        code, report = _check([str(model), "--max-turns", turns, "--out", str(tmp_path)],
                              capsys)
        assert code == 0
        assert (report["states"], report["terminal_states"], report["deadlocks"],
                report["frontier_states"]) == (2, 1, 0, 0), turns


def test_check_prepared_is_what_the_command_does(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture) -> None:
    """From Python, check.check_prepared gives the report `riftchart check --json` prints,
    with --symmetry's plain search, and writes the same graph."""
    kill = {"id": "T1", "type": "spell", "timing": "reaction", "effect": {"kill": {}}}
    model = str(write_yaml(tmp_path, {**SMALL, "hands": {**SMALL["hands"], "P2": [kill]}}))
    graph = tmp_path / "cli.dot"
    code, printed = _check([model, "--symmetry", "--max-states", "1000", "--graph", str(graph),
                            "--out", str(tmp_path / "cli")], capsys)
    settings = _settings(max_states=1000, symmetry=True)
    mine = tmp_path / "api.dot"
    checked = check.check_prepared(prepare(model), settings, out=tmp_path / "api", graph=mine)
    assert checked.code == code == 0
    assert checked.plain is not None and checked.plain.states == printed["symmetry"][
        "states_without"]
    assert checked.graph_written and mine.read_bytes() == graph.read_bytes()
    expected = {**without_timings(printed), "graph": f"graph written to {mine} (the search stopped "
                f"at --max-states: the {checked.report.transitions - len(checked.report.edges):,}"
                " transitions to states it did not keep are not drawn)", "graph_file": str(mine)}
    assert without_timings(checked.summary) == expected
    # a file that cannot be written is in unwritten, and the code says so
    blocker = tmp_path / "blocker"
    blocker.write_text("x")
    broken = check.check_prepared(prepare(model), _settings(max_states=50),
                                  graph=blocker / "g.dot")
    assert broken.code == 2 and len(broken.unwritten) == 1
    assert str(blocker) in broken.unwritten[0].filename
    assert broken.summary["graph_file"] is None
