"""`riftchart check` as a user meets it: plays at several targets, what it refuses before the
search, where its files go, and how it stops (Ctrl-C, a worker process lost)."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
import yaml

from engine import Game, actions, cli, combat, counterexample, explore, invariants, runner, writable
from engine.actions import Play
from engine.errors import IllegalAction
from engine.explore import Settings, prepare
from engine.invariants import Invariant
from tests.helpers import write_yaml

ROOT = Path(__file__).resolve().parent.parent
ONE_V_ONE = ROOT / "models" / "1v1_two_battlefields.yaml"

# P1's one card kills whatever it targets: only a play at both of P2's units empties P2's side
GROUP_KILL = {
    "name": "a card played at two targets",
    "players": ["P1", "P2"],
    "battlefields": [{"id": "A"}],
    "units": [
        {"id": "U1", "controller": "P1", "might": 1, "at": "base"},
        {"id": "E1", "controller": "P2", "might": 1, "at": "base"},
        {"id": "E2", "controller": "P2", "might": 1, "at": "base"},
    ],
    "hands": {"P1": [{"id": "S1", "type": "spell", "timing": "action", "effect": {"kill": {}}}]},
}


def _p2_keeps_a_unit(s: Any, legal: Any) -> bool:
    """P2 always has a unit on the board (test only: a card at two targets breaks it)."""
    return any(u.on_board and u.controller == "P2" for u in s.units.values())


P2_KEEPS_A_UNIT = Invariant("p2_keeps_a_unit", "CR 323", "state", _p2_keeps_a_unit,
                            invariants._view_keys("units"), doc="P2 keeps a unit (CR 323).")


# --- plays at several targets (D37) ------------------------------------------------------------


def test_the_search_tries_plays_at_every_choice_of_targets_up_to_the_bound(tmp_path: Path) -> None:
    start = prepare(str(write_yaml(tmp_path, GROUP_KILL))).start
    one = explore.explore(start, Settings([P2_KEEPS_A_UNIT], graph=True))
    assert one.complete and not one.violations
    assert all(len(a.targets) <= 1 for _, _, a in one.edges if isinstance(a, Play))

    two = explore.explore(start, Settings([P2_KEEPS_A_UNIT], graph=True, max_targets=2))
    violation = two.violations["p2_keeps_a_unit"]
    assert violation.path[0] == Play("P1", "S1", ("E1", "E2"), None)  # then both pass
    assert len(violation.path) == 3
    assert two.states > one.states
    # a kill acts on each unit alike: each pair is tried once, in board order
    assert {a.targets for _, _, a in two.edges if isinstance(a, Play)} == {
        (u,) for u in ("U1", "E1", "E2")} | set(combinations(("U1", "E1", "E2"), 2))


def test_legal_actions_list_every_play_that_check_accepts_up_to_the_bound() -> None:
    game = Game.from_scenario(GROUP_KILL)
    for bound in (1, 2, 3):
        listed = {a for a in game.legal_actions(max_targets=bound) if isinstance(a, Play)}
        accepted = set()
        for size in range(1, bound + 1):
            for targets in combinations(("U1", "E1", "E2"), size):
                try:
                    game.check(Play("P1", "S1", targets))
                except IllegalAction:
                    continue
                accepted.add(Play("P1", "S1", targets))
        assert listed == accepted and len(listed) == sum(
            len(list(combinations(range(3), n))) for n in range(1, bound + 1))
    assert game.legal_actions() == actions.legal(game.state, 1)


# P1's card moves the units it targets to A, in the order listed: the first to arrive applies
# Contested (rules 11.8), so the same two targets in the other order make P2 the Attacker
MOVE_TWO = {
    "name": "the order of a play's targets",
    "players": ["P1", "P2"],
    "battlefields": [{"id": "A"}],
    "units": [
        {"id": "U1", "controller": "P1", "might": 1, "at": "base", "exhausted": True},
        {"id": "E1", "controller": "P2", "might": 1, "at": "base"},
    ],
    "hands": {"P1": [{"id": "S1", "type": "spell", "timing": "action", "effect": {"move": {}}}]},
}


def test_the_search_tries_a_play_s_targets_in_every_order(tmp_path: Path) -> None:
    """Where their order can matter, a play's targets are tried in every order (D37): the
    search and legal_actions() try both orders of a move's, and only E1 listed first makes P2
    the Attacker in P1's turn."""
    p1_attacks = invariants.view_invariant(
        "p1_attacks", "house rule",
        lambda v: (v["showdown"] or {}).get("attacker") in (None, "P1"))
    start = prepare(str(write_yaml(tmp_path, MOVE_TWO))).start
    report = explore.explore(start, Settings([p1_attacks], max_targets=2))
    assert report.complete
    assert report.violations["p1_attacks"].path[0] == Play("P1", "S1", ("E1", "U1"), "A")
    plays = {a.targets for a in Game.from_scenario(MOVE_TWO).legal_actions(max_targets=2)
             if isinstance(a, Play) and a.to == "A"}
    assert {("U1", "E1"), ("E1", "U1")} <= plays


def test_the_invariants_are_listed_as_json_too(capsys: pytest.CaptureFixture) -> None:
    assert cli.main(["check", "--list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [i["name"] for i in listed] == [i.name for i in invariants.all_invariants()]
    frozen = next(i for i in listed if i["name"] == "control_frozen_while_contested")
    assert frozen["profiles"] == ["seed"] and frozen["kind"] == "transition"
    assert frozen["rule"] in frozen["doc"]


def test_the_report_names_the_bound_on_targets(tmp_path: Path,
                                               capsys: pytest.CaptureFixture) -> None:
    model = str(write_yaml(tmp_path, GROUP_KILL))
    assert cli.main(["check", model, "--max-targets", "2", "--out", str(tmp_path)]) == 0
    assert "plays of at most 2 targets" in capsys.readouterr().out
    assert cli.main(["check", model, "--json", "--out", str(tmp_path)]) == 0
    assert json.loads(capsys.readouterr().out)["max_targets"] == 1


# --- refused before the search -----------------------------------------------------------------


@pytest.mark.parametrize("extra, message", [
    (["--max-targets", "0"], "--max-targets must be 1 or more"),
    (["--max-turns", "0"], "--max-turns must be 1 or more"),
    (["--workers", "65"], "--workers must be from 1 to 64"),
    (["--out", ""], "--out needs a folder name"),
    (["--graph", ""], "--graph '': the file name must end in"),
    (["--graph", "states.txt"], "--graph 'states.txt': the file name must end in .graphml, "),
    (["--invariant", ""], "--invariant '': no such invariant (see --list)"),
    (["--invariant", "NO_DEADLOCK"], "--invariant 'NO_DEADLOCK': no such invariant"),
    (["--rules", "cr-1.4", "--invariant", "no_deadlock",
      "--invariant", "control_frozen_while_contested"],
     "--invariant control_frozen_while_contested: not an invariant of profile cr-1.4 (from "
     "--rules; see --list)"),
])
def test_bad_options_are_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture,
                                             extra: list[str], message: str) -> None:
    assert cli.main(["check", str(write_yaml(tmp_path, GROUP_KILL)), *extra]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and message in captured.err


def _crowded(units: int, brought: int, rivals: int = 0, effect: str = "kill"
             ) -> dict[str, Any]:
    """GROUP_KILL with ``units`` units of P1's and ``rivals`` of P2's at base, and a card of
    P1's whose sequence of effects makes ``brought`` more, two levels deep, then ``effect``s."""
    plays = [{"play_unit": {"id": f"N{i}", "might": 1}} for i in range(brought)]
    return {**GROUP_KILL, "units": [
        *({"id": f"U{i}", "controller": "P1", "might": 1, "at": "base"} for i in range(units)),
        *({"id": f"E{i}", "controller": "P2", "might": 1, "at": "base"} for i in range(rivals))],
        "hands": {"P1": [{"id": "S1", "type": "spell", "timing": "action",
                          "effect": {"sequence": [{"sequence": plays}, {effect: {}}]}}]}}


@pytest.mark.parametrize(("setup", "who"), [
    (_crowded(13, 0), "P1"),
    (_crowded(10, 3), "P1"),  # units a play_unit makes count
    (_crowded(6, 0, rivals=7, effect="take_control"), "a player"),  # one may take them all
])
def test_a_position_with_more_units_than_a_search_can_list_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture, setup: dict[str, Any], who: str) -> None:
    """n units of one player make 2^n - 1 Standard Moves to each destination in one state:
    30 of them, a billion, took all the memory before a first state was expanded. A position
    where one player could have more than 12 is refused before the search (D41)."""
    path = str(write_yaml(tmp_path, setup))
    assert cli.main(["check", path, "--max-states", "1"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == (
        f"{path}: units: {who} could have 13 units at once (set up, in hand, or made by "
        "play_unit): too large a position to explore (at most 12; n units make 2^n - 1 "
        "Standard Moves to each destination in one state)\n")


def test_a_position_of_many_units_none_of_whose_players_could_have_13_is_explored(
        tmp_path: Path) -> None:
    """Six units against seven, and twelve of one player's: each player's own count is what
    a Standard Move grows with."""
    for setup in (_crowded(6, 0, rivals=7), _crowded(9, 3, rivals=12)):
        start = prepare(str(write_yaml(tmp_path, setup))).start
        assert explore.explore(start, Settings([], max_states=20)).states == 20


def test_where_the_profile_of_an_invariant_it_lacks_came_from_is_said(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """An invariant the profile does not have, with the profile from the file's ``rules:``:
    the message names the file's field as the profile's source."""
    path = str(write_yaml(tmp_path, {**GROUP_KILL, "rules": "cr-1.4"}))
    code = cli.main(["check", path, "--invariant", "control_frozen_while_contested"])
    assert code == 2 and capsys.readouterr().err == (
        "riftchart check: --invariant control_frozen_while_contested: not an invariant of "
        f"profile cr-1.4 (from {path}, rules:; see --list)\n")


def test_a_graph_file_below_a_file_is_refused_as_such(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    model = write_yaml(tmp_path, GROUP_KILL)
    assert cli.main(["check", str(model), "--graph", f"{model}/states.dot"]) == 2
    assert capsys.readouterr().err == (f"riftchart check: cannot write --graph {model}/states.dot: "
                                       f"{model} is a file, not a folder\n")


def test_a_graph_file_that_is_a_folder_is_refused_before_the_search(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    folder = tmp_path / "states.dot"
    folder.mkdir()
    out = tmp_path / "cex"
    code = cli.main(["check", str(write_yaml(tmp_path, GROUP_KILL)), "--max-targets", "2",
                     "--graph", str(folder), "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 2 and "cannot write --graph" in captured.err and "it is a folder" in captured.err
    assert captured.out == "" and not out.exists()  # nothing was searched, nothing written


@pytest.mark.parametrize("option", ["--out", "--graph"])
def test_a_place_where_no_file_can_be_made_is_refused_before_the_search(
        tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch,
        option: str) -> None:
    """A folder that passes the access check (root passes them all) but takes no new file, as
    /proc: found by making one, not after the search."""
    model = write_yaml(tmp_path, GROUP_KILL)
    folder = tmp_path / "like-proc"
    folder.mkdir()
    make = writable.tempfile.mkstemp

    def refused(**where: Any) -> tuple[int, str]:
        if Path(where["dir"]) == folder:
            raise OSError(errno.ENOENT, "No such file or directory")
        return make(**where)
    monkeypatch.setattr(writable.tempfile, "mkstemp", refused)
    monkeypatch.chdir(tmp_path)  # the default --out, counterexamples, goes here
    place = folder / ("states.graphml" if option == "--graph" else "cex")
    code = cli.main(["check", str(model), option, str(place)])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == "" and captured.err.count("\n") == 1
    assert str(folder) in captured.err
    assert captured.err.endswith(
        ": a file cannot be made there (its file system takes no new files)\n")


@pytest.mark.skipif(not Path("/proc/self").is_dir() or os.geteuid() != 0,
                    reason="root in Linux's /proc (as CI runs): others fail the access check")
def test_root_is_refused_proc_before_the_search(tmp_path: Path,
                                                capsys: pytest.CaptureFixture) -> None:
    code = cli.main(["check", str(write_yaml(tmp_path, GROUP_KILL)), "--out", "/proc/cex"])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert captured.err == ("riftchart check: cannot write to --out /proc/cex: /proc: a file "
                            "cannot be made there (its file system takes no new files)\n")


def test_the_place_tried_is_left_as_it_was(tmp_path: Path) -> None:
    writable.check_writable(tmp_path)
    assert list(tmp_path.iterdir()) == []


# --- where the files go ---------------------------------------------------------------------


def test_the_out_folder_is_made_only_for_a_counterexample(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    model = str(write_yaml(tmp_path, GROUP_KILL))
    out = tmp_path / "deep" / "cex"
    assert cli.main(["check", model, "--out", str(out)]) == 0
    assert not out.exists()
    # a rule broken so that P1 can never act: a deadlock, written where --out says
    monkeypatch.setattr(actions, "legal", lambda s, max_targets=1: [])
    assert cli.main(["check", model, "--out", str(out), "--invariant", "no_deadlock"]) == 1
    assert (out / "model.no_deadlock.yaml").exists()
    capsys.readouterr()


def test_a_counterexample_file_taken_by_a_folder_is_refused_before_the_search(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    model = str(write_yaml(tmp_path, GROUP_KILL))
    (tmp_path / "cex" / "model.no_deadlock.yaml").mkdir(parents=True)
    assert cli.main(["check", model, "--out", str(tmp_path / "cex")]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert "model.no_deadlock.yaml: it is a folder, not a file" in captured.err


def test_a_counterexample_that_cannot_be_written_after_the_search_keeps_the_report(
        tmp_path: Path) -> None:
    """A disk that fills up as the counterexamples are written: the report is printed (saying
    which were not written), then one line naming the file, exit 2; nothing half-written is
    left, and a file of the same name written before stays as it was."""
    model = write_yaml(tmp_path, GROUP_KILL)
    out = tmp_path / "cex"
    earlier = out / "model.no_deadlock.yaml"
    earlier.parent.mkdir()
    earlier.write_text("an earlier counterexample\n", encoding="utf-8")
    # a real ENOSPC: part of the text lands, and the error names no file
    script = (
        "import sys\n"
        "from engine import actions, cli, writable\n"
        "actions.legal = lambda s, max_targets=1: []  # a deadlock at once\n"
        "def full(path, text):\n"
        "    path.write_text(text[:10], encoding='utf-8')\n"
        "    raise OSError(28, 'No space left on device')\n"
        "writable.write_text = full\n"
        "sys.exit(cli.main(sys.argv[1:]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, "check", str(model), "--out", str(out)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    assert done.returncode == 2, done.stdout
    lines = done.stdout.splitlines()
    assert "explored: complete" in done.stdout
    rule = invariants.by_names(["no_deadlock"])[0].rule
    assert f"VIOLATED no_deadlock ({rule}) after 0 steps: counterexample not written" in lines
    # said after the report, naming the file the user would have had
    assert lines[-1] == f"riftchart check: cannot write {earlier}: No space left on device"
    assert sorted(p.name for p in out.iterdir()) == [earlier.name]
    assert earlier.read_text(encoding="utf-8") == "an earlier counterexample\n"


def test_a_deadlock_at_a_damage_choice_replays_and_fails_under_the_rules(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = write_yaml(tmp_path, {
        "name": "manual damage", "players": ["P1", "P2"], "manual_damage": True,
        "battlefields": [{"id": "A", "controller": "P2"}],
        "units": [{"id": "U1", "controller": "P1", "might": 3, "at": "base"},
                  {"id": "E1", "controller": "P2", "might": 1, "at": "A"},
                  {"id": "E2", "controller": "P2", "might": 1, "at": "A"}],
    })
    prepared = prepare(str(model))
    with monkeypatch.context() as broken:  # no assignment is ever legal: the game is stuck
        broken.setattr(actions, "assignment_options", lambda s: [])
        broken.setattr(combat, "is_legal_assignment", lambda total, targets, plan: False)
        report = explore.explore(prepared.start, Settings([invariants.by_names(
            ["no_deadlock"])[0]]))
        violation = report.violations["no_deadlock"]
        path = counterexample.write(model, prepared.prefix, violation, tmp_path / "out")
        assert runner.run_file(path).code == runner.OK  # the broken rules reach it
    steps = yaml.safe_load(path.read_text())["steps"]
    assigns = [s["expect_error"]["assign"] for s in steps if "assign" in s.get("expect_error", {})]
    assert {"player": "P1", "damage": {"E1": 1, "E2": 2}} in assigns
    assert runner.run_file(path).code == runner.FAILED  # the rules let P1 assign


# --- how it stops ---------------------------------------------------------------------------


def _start_check(out: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "engine.cli", "check", str(ONE_V_ONE), "--out", str(out), *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
        preexec_fn=_ctrl_c_as_from_a_terminal)


def _ctrl_c_as_from_a_terminal() -> None:
    """In the search's process before it starts: Ctrl-C takes its default action. A shell
    without job control starts a command run in the background (``pytest &`` in a script) with
    Ctrl-C ignored, its children inherit that, and Python keeps it ignored, as a command run
    with nohup should: the search would then run to its end whatever the test sends."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(child) for child in text.split()]


def _wait_for_workers(pid: int, count: int) -> list[int]:
    """The search's worker processes, once ``count`` of them have started (or a minute)."""
    deadline = time.monotonic() + 60
    while len(_children(pid)) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    return _children(pid)


def _wait_for_cpu(pid: int, seconds: float) -> None:
    """Until the process and its workers have run ``seconds`` of CPU time: past the imports and
    into the search (1.5 s is twice what the imports take), however busy the machine is."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if sum(_cpu_seconds(p) for p in (pid, *_children(pid))) >= seconds:
            return
        time.sleep(0.05)


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the command's name (the state first), or None for a
    process that has ended."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def _cpu_seconds(pid: int) -> float:
    fields = _stat(pid)
    if fields is None:  # it has just ended
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def _alive(pid: int) -> bool:
    """Running (a worker orphaned and ended becomes a zombie of init for a moment: not alive)."""
    fields = _stat(pid)
    return fields is not None and fields[0] != "Z"


@pytest.mark.parametrize("workers", ["1", "2"])
def test_ctrl_c_is_one_line_and_exit_130(tmp_path: Path, workers: str) -> None:
    search = _start_check(tmp_path, "--workers", workers)
    _wait_for_cpu(search.pid, 1.5)
    search.send_signal(signal.SIGINT)
    out, err = search.communicate(timeout=60)
    assert search.returncode == 130
    assert err == "riftchart check: interrupted\n" and out == ""


def test_a_worker_killed_is_one_line_and_exit_3(tmp_path: Path) -> None:
    search = _start_check(tmp_path, "--workers", "2")  # its workers are found through /proc
    workers = _wait_for_workers(search.pid, 1)
    time.sleep(0.5)
    os.kill(workers[0], signal.SIGKILL)
    out, err = search.communicate(timeout=60)
    assert search.returncode == 3
    assert err == "riftchart check: a worker process ended unexpectedly; the search stopped\n"


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_workers_end_when_the_search_is_killed(tmp_path: Path, how: signal.Signals) -> None:
    """A parent killed without a word (no Ctrl-C to handle) leaves no worker behind: each sees
    the end of its pipe (none holds a copy of the parent's ends) and stops."""
    search = _start_check(tmp_path, "--workers", "2")
    workers = _wait_for_workers(search.pid, 2)
    assert len(workers) == 2
    _wait_for_cpu(workers[0], 0.5)  # into the search, exchanging messages with the parent
    assert search.poll() is None, "the search ended before it could be killed"
    os.kill(search.pid, how)
    search.wait(timeout=60)
    deadline = time.monotonic() + 30
    while any(_alive(worker) for worker in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [worker for worker in workers if _alive(worker)]
    for worker in left:  # not to leave them running if the test fails
        os.kill(worker, signal.SIGKILL)
    search.communicate(timeout=60)  # the pipes, which a worker left running would hold
    assert left == []


def _deadlock_checked_on_a_full_disk(tmp_path: Path, refused: str
                                     ) -> tuple[subprocess.CompletedProcess, Path]:
    """``riftchart check --graph --json`` of a position whose every state is a deadlock (so a
    counterexample is written), in a process whose writes of files whose path holds
    ``refused`` fail as on a full disk; the run, and the graph's path."""
    model = write_yaml(tmp_path, GROUP_KILL)
    graph = tmp_path / "g.graphml"
    script = (
        "import sys\n"
        "from engine import actions, cli, writable\n"
        "actions.legal = lambda s, max_targets=1: []  # a deadlock at once\n"
        "real = writable._write\n"
        "def full(path, content):  # text and bytes alike\n"
        f"    if {refused!r} in str(path):\n"
        "        raise OSError(28, 'No space left on device')\n"
        "    real(path, content)\n"
        "writable._write = full\n"
        "sys.exit(cli.main(sys.argv[1:]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, "check", str(model), "--out", str(tmp_path / "cex"),
         "--graph", str(graph), "--json"],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    return done, graph


def test_a_graph_that_a_full_disk_kept_from_being_written_is_not_reported_written(
        tmp_path: Path) -> None:
    """A full disk refuses the counterexample and the graph: the report must not say the
    graph was written, and each file refused is said."""
    done, graph = _deadlock_checked_on_a_full_disk(tmp_path, str(tmp_path))
    assert done.returncode == 2, done.stderr
    summary = json.loads(done.stdout)
    assert summary["graph_file"] is None and not graph.exists()
    assert summary["graph"].startswith(f"graph not written: {graph} could not be written")
    assert done.stderr.count("No space left on device") == 2, done.stderr


def test_a_counterexample_that_cannot_be_written_does_not_keep_the_graph_from_being_written(
        tmp_path: Path) -> None:
    """--out on a disk that refuses, --graph elsewhere: the graph is written and reported so,
    and the one error line names the counterexample (the report said the graph could not be
    written, which was never tried)."""
    done, graph = _deadlock_checked_on_a_full_disk(tmp_path, "cex")
    assert done.returncode == 2, done.stderr
    summary = json.loads(done.stdout)
    assert summary["graph_file"] == str(graph) and graph.exists()
    assert summary["graph"] == f"graph written to {graph}"
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "cex" in lines[0] and "No space left on device" in lines[0]
