"""Invariants of your own (docs/model-checking.md, "Your own invariants"): predicates over the
state view, checked by the same search, with counterexamples that `riftchart run` replays."""

from __future__ import annotations

import io
import multiprocessing
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from engine import counterexample
from engine.explore import Settings, explore, prepare
from engine.invariants import all_invariants, view_invariant, view_step_invariant
from engine.runner import OK, run_file
from engine.workers import WorkerTraceback, _Parent, _ParentGone
from tests.conftest import ROOT
from tests.helpers import python_blocks

MODEL = ROOT / "models" / "1v1_two_battlefields.yaml"


def _p2_scoreless() -> Any:
    return view_invariant("p2_scoreless", "house rule 1", lambda v: v["score"]["P2"] == 0,
                          shows=["score"], doc="P2 scores nothing")


def test_a_view_invariant_is_checked_and_its_counterexample_replays(tmp_path: Path) -> None:
    prepared = prepare(str(MODEL))
    report = explore(prepared.start, Settings([_p2_scoreless()], max_states=5_000))
    violation = report.violations["p2_scoreless"]
    # the shortest way: P1 ends the turn and P2 holds B, which P2 controls in the model
    assert [type(a).__name__ for a in violation.path] == ["EndTurn"]
    assert violation.witness == {"score": {"P1": 0, "P2": 1}}
    written = counterexample.write_all(str(MODEL), prepared, report, tmp_path)
    assert run_file(written["p2_scoreless"]).code == OK


def test_a_counterexample_copies_the_setup_that_was_searched(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The setup is the file as it was read for the search, not as it is when the search is
    over (edited meanwhile), and standard input read once serves too (``check -``)."""
    source = tmp_path / "model.yaml"
    source.write_text(MODEL.read_text(encoding="utf-8"), encoding="utf-8")
    prepared = prepare(str(source))
    report = explore(prepared.start, Settings([_p2_scoreless()], max_states=5_000))
    source.write_text("name: edited while the search ran\n", encoding="utf-8")
    written = counterexample.write_all(str(source), prepared, report, tmp_path / "out")
    assert run_file(written["p2_scoreless"]).code == OK

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(MODEL.read_bytes())))
    prepared = prepare("-")
    assert prepared.scenario.path == "<stdin>"
    written = counterexample.write_all("-", prepared, report, tmp_path / "out")
    path = written["p2_scoreless"]
    assert path.name == "stdin.p2_scoreless.yaml"
    assert "from the start of standard input" in path.read_text(encoding="utf-8")
    assert run_file(path).code == OK


def test_an_invariant_that_holds_is_reported_as_holding() -> None:
    prepared = prepare(str(MODEL))
    scores_are_small = view_invariant("scores_small", "house rule 2",
                                      lambda v: max(v["score"].values()) <= 8)
    report = explore(prepared.start, Settings([scores_are_small], max_states=5_000))
    assert report.states == 5_000 and not report.violations


def test_a_step_invariant_sees_the_views_around_the_step_and_the_step() -> None:
    seen: list[str] = []

    def ending_changes_no_score(before: dict, step: dict, after: dict) -> bool:
        seen.append(next(iter(step)))
        return "end_turn" not in step or before["score"] == after["score"]

    invariant = view_step_invariant("quiet_turn_change", "house rule 3",
                                    ending_changes_no_score, shows=["score", "turn"])
    prepared = prepare(str(MODEL))
    report = explore(prepared.start, Settings([invariant], max_states=2_000))
    violation = report.violations["quiet_turn_change"]
    assert violation.witness["turn"] == {"player": "P2", "phase": "main"}
    assert {"move", "pass", "end_turn"} <= set(seen)


def test_the_counterexample_kept_has_the_fewest_turn_changes_then_the_fewest_steps() -> None:
    """Ending the turn breaks this at once (1 turn change, 1 step), and so does a Conquer in
    P1's turn (no turn change, 3 steps): the search meets the Conquer first, as it finishes a
    turn before opening the next, and keeps it although the other path has fewer steps."""
    p1_first = view_invariant("p1_scoreless_turn", "house rule",
                              lambda v: v["score"]["P1"] == 0 and v["turn"]["player"] == "P1")
    for workers in (1, 2):
        report = explore(prepare(str(MODEL)).start,
                         Settings([p1_first], max_states=2_000, workers=workers))
        violation = report.violations["p1_scoreless_turn"]
        assert (violation.turns, violation.depth) == (0, 3)
        assert violation.witness["score"] == {"P1": 1, "P2": 0}


def test_own_invariants_are_checked_in_worker_processes_too() -> None:
    prepared = prepare(str(MODEL))
    found = [explore(prepared.start, Settings([_p2_scoreless()], max_states=3_000, workers=n))
             for n in (1, 2)]
    assert [sorted(r.violations) for r in found] == [["p2_scoreless"]] * 2
    assert found[0].violations["p2_scoreless"].path == found[1].violations["p2_scoreless"].path


@pytest.mark.parametrize(("kwargs", "error", "fragment"), [
    ({"name": "a b"}, ValueError, "letters, digits"),
    ({"name": "../x"}, ValueError, "letters, digits"),
    ({"name": "no_deadlock"}, ValueError, "built-in"),
    ({"rule": " "}, ValueError, "cites its rule"),
    ({"holds": 3}, TypeError, "holds must be a function"),
    ({"shows": ["scores"]}, ValueError, "shows names keys the state view does not have: scores"),
    ({"profiles": ["seed", "cr-2"]}, ValueError, "unknown profile"),
    ({"profiles": []}, ValueError, "never be checked"),
    ({"profiles": "seed"}, TypeError, "lists of names"),
    ({"shows": "score"}, TypeError, "lists of names"),
    ({"shows": [1]}, TypeError, "lists of names"),
    ({"shows": None}, TypeError, "lists of names"),
    ({"profiles": None}, TypeError, "lists of names"),
])
def test_a_bad_invariant_is_refused_naming_what_is_wrong(kwargs: dict, error: type,
                                                         fragment: str) -> None:
    arguments = {"name": "mine", "rule": "house rule", "holds": lambda v: True, **kwargs}
    with pytest.raises(error, match=fragment):
        view_invariant(**arguments)


def test_own_invariants_are_not_added_to_the_built_in_list() -> None:
    before = [i.name for i in all_invariants()]
    _p2_scoreless()
    assert [i.name for i in all_invariants()] == before


def test_the_documented_example_runs(tmp_path: Path, monkeypatch, capsys) -> None:
    """docs/model-checking.md's example, run as written from the checkout (its counterexample
    folder redirected to a temporary one)."""
    doc = (ROOT / "docs" / "model-checking.md").read_text(encoding="utf-8")
    section = doc.split("### Your own invariants", 1)[1]
    (block,) = python_blocks(section.split("\n## ", 1)[0])
    monkeypatch.chdir(ROOT)
    block = block.replace('Path("counterexamples")', f"Path({str(tmp_path)!r})")
    exec(compile(block, "docs/model-checking.md", "exec"), {"__name__": "doc"})  # noqa: S102
    printed = capsys.readouterr().out.splitlines()
    assert printed[:2] == ["['p2_scoreless', 'quiet_turn_change']",
                           "{'score': {'P1': 0, 'P2': 1}}"]
    for path in tmp_path.glob("*.yaml"):
        assert run_file(path).code == OK
    assert len(list(tmp_path.glob("*.yaml"))) == 2


def test_two_invariants_of_one_name_are_refused() -> None:
    """A violation is kept by its invariant's name: two of one name would mix their traces."""
    prepared = prepare(str(MODEL))
    other = view_invariant("p2_scoreless", "rule B", lambda v: v["hand"]["P2"] == 1)
    with pytest.raises(ValueError, match=r"two invariants share a name \(case aside\): "
                                         "p2_scoreless"):
        explore(prepared.start, Settings([_p2_scoreless(), other], max_states=100))
    # names that differ only in case would name one file where file names ignore case
    shouting = view_invariant("P2_SCORELESS", "rule C", lambda v: True)
    with pytest.raises(ValueError, match="P2_SCORELESS, p2_scoreless"):
        explore(prepared.start, Settings([_p2_scoreless(), shouting], max_states=100))


class _TwoArguments(Exception):
    """An exception pickle carries but cannot make again (``__init__`` takes two arguments and
    keeps one)."""

    def __init__(self, message: str, extra: str) -> None:
        super().__init__(message)


def _failing(error: Exception, *, workers: int) -> Any:
    """An invariant that raises ``error`` where the search runs: in this process with one
    worker, else only in the worker processes (the parent expands the first levels itself)."""
    parent = os.getpid()

    def holds(view: dict) -> bool:
        if workers == 1 or os.getpid() != parent:
            raise error
        return True
    return view_invariant("reads_a_file", "house rule", holds)


@pytest.mark.parametrize("workers", [1, 2])
def test_an_error_in_an_invariant_stops_the_search_as_it_was_raised(workers: int) -> None:
    """Whatever it is (an OSError too: it is not taken for a lost worker), with a note naming the
    invariant; from a worker, with the worker's traceback as its cause."""
    invariant = _failing(FileNotFoundError(2, "rules.csv missing"), workers=workers)
    with pytest.raises(FileNotFoundError, match="rules.csv missing") as raised:
        explore(prepare(str(MODEL)).start, Settings([invariant], max_states=3_000,
                                                     workers=workers))
    assert raised.value.__notes__ == ["raised by invariant reads_a_file (its holds function)"]
    if workers > 1:
        assert isinstance(raised.value.__cause__, WorkerTraceback)
        assert "in holds\n" in str(raised.value.__cause__)


def test_an_error_a_worker_cannot_send_whole_is_said_by_its_type_and_message() -> None:
    invariant = _failing(_TwoArguments("the house rule broke", "unused"), workers=2)
    with pytest.raises(RuntimeError, match=r"\A_TwoArguments: the house rule broke \(raised in a "
                                           r"worker process, whose traceback is this error's "
                                           r"cause\)") as raised:
        explore(prepare(str(MODEL)).start, Settings([invariant], max_states=3_000, workers=2))
    assert "raised by invariant reads_a_file" in str(raised.value.__cause__)
    assert raised.value.__notes__ == ["raised by invariant reads_a_file (its holds function)"]


class _Unsendable:
    def __reduce__(self) -> Any:
        raise OSError(28, "No space left on device")


def test_a_worker_tells_an_error_of_its_own_from_the_parent_gone() -> None:
    """An OSError in making a message (here from pickling it) is the search's, raised as it
    is; only a pipe closed at the other end is the parent gone."""
    mine, theirs = multiprocessing.Pipe()
    parent = _Parent(theirs)
    with pytest.raises(OSError, match="No space left on device"):
        parent.send(_Unsendable())
    parent.send("still open")
    assert mine.recv() == "still open"
    mine.close()
    with pytest.raises(_ParentGone):
        parent.recv()


@pytest.mark.parametrize("answer", [None, 0, "False", []])
def test_a_predicate_that_does_not_answer_true_or_false_stops_the_search(answer: Any) -> None:
    prepared = prepare(str(MODEL))
    forgetful = view_invariant("forgetful", "house rule", lambda v: answer)
    with pytest.raises(TypeError, match=r"invariant forgetful: holds returned .*, not True or "
                                        r"False"):
        explore(prepared.start, Settings([forgetful], max_states=100))


def test_a_name_too_long_for_a_file_is_refused() -> None:
    view_invariant("x" * 64, "house rule", lambda v: True)
    with pytest.raises(ValueError, match="1 to 64 letters"):
        view_invariant("x" * 65, "house rule", lambda v: True)


def test_a_counterexample_names_the_profile_prepare_was_given(tmp_path: Path) -> None:
    """The model names no profile (seed); searched under cr-1.4, its counterexample says
    ``rules: cr-1.4`` so that it replays under the rules that were checked."""
    prepared = prepare(str(MODEL), "cr-1.4")
    report = explore(prepared.start, Settings([_p2_scoreless()], max_states=2_000))
    (path,) = counterexample.write_all(str(MODEL), prepared, report, tmp_path).values()
    text = path.read_text(encoding="utf-8")
    assert "\nrules: cr-1.4\n" in text
    assert text.startswith("# Written by riftchart's model checker: invariant p2_scoreless")
    assert run_file(path).code == OK
    # an invariant with no description leaves no empty comment line
    quiet = view_invariant("quiet", "house rule", lambda v: v["score"]["P2"] == 0)
    report = explore(prepared.start, Settings([quiet], max_states=2_000))
    (path,) = counterexample.write_all(str(MODEL), prepared, report, tmp_path).values()
    assert "\n#\n" not in path.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", [".x", "-x"])
def test_a_name_begins_with_a_letter_digit_or_underscore(name: str) -> None:
    with pytest.raises(ValueError, match="beginning with a letter, digit or '_'"):
        view_invariant(name, "house rule", lambda v: True)


def test_a_built_in_name_is_refused_whatever_its_case() -> None:
    with pytest.raises(ValueError, match="built-in invariant"):
        view_invariant("No_Deadlock", "house rule", lambda v: True)
