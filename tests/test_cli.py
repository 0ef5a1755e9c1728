"""The `riftchart` command as a user meets it: exit codes, messages, the trace."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from engine import Game, cli
from engine.runner import run_file, run_files
from tests.conftest import ROOT, SCENARIOS
from tests.test_scenario_loader import FORMAT_EXAMPLE

EXAMPLE = FORMAT_EXAMPLE


def riftchart(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "engine.cli", *args], capture_output=True, text=True, timeout=120
    )


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_a_passing_scenario_prints_its_trace_and_exits_0(tmp_path):
    done = riftchart("run", write(tmp_path, "ok.yaml", EXAMPLE))
    assert done.returncode == 0, done.stderr
    assert "A: Contested by P1 (S 184.3.a)" in done.stdout
    assert "P1 gains Focus: they applied Contested (CR 345)" in done.stdout
    assert "P1 conquers A and scores 1 point" in done.stdout


def test_a_failed_expectation_exits_1_naming_file_step_and_values(tmp_path):
    broken = EXAMPLE.replace("expect: {focus: P2}", "expect: {focus: P1}")
    path = write(tmp_path, "bad.yaml", broken)
    done = riftchart("run", path)
    assert done.returncode == 1
    # the FAIL line follows the trace on stdout (with --json it goes to stderr: below)
    (fail,) = [line for line in done.stdout.splitlines() if line.startswith("FAIL ")]
    assert done.stdout.endswith(fail + "\n")
    assert f"{path}: step 4" in fail
    assert 'expected "P1", actual "P2"' in fail
    assert "Traceback" not in done.stderr


def test_a_refused_step_exits_1(tmp_path):
    path = write(tmp_path, "refused.yaml", EXAMPLE.replace("- pass: P1\n", "- pass: P2\n", 1))
    done = riftchart("run", path)
    assert done.returncode == 1
    assert "pass was refused" in done.stdout and "(CR 313)" in done.stdout


def test_an_invalid_file_exits_2_with_one_line_naming_file_and_field(tmp_path):
    path = write(tmp_path, "invalid.yaml", EXAMPLE.replace("might: 2", "might: two"))
    done = riftchart("run", path)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{path}: units[0].might")
    assert "(line 4)" in lines[0]
    assert "Traceback" not in done.stderr


def test_a_missing_file_exits_2(tmp_path):
    done = riftchart("run", str(tmp_path / "nowhere.yaml"))
    assert done.returncode == 2 and "nowhere.yaml" in done.stderr
    assert "Traceback" not in done.stderr


def test_several_files_exit_with_the_highest_code_and_all_run(tmp_path):
    ok = write(tmp_path, "ok.yaml", EXAMPLE)
    bad = write(tmp_path, "bad.yaml", EXAMPLE.replace("expect: {focus: P2}", "expect: {focus: P1}"))
    invalid = write(tmp_path, "invalid.yaml", "name: x\n")
    done = riftchart("run", bad, invalid, ok)
    assert done.returncode == 2
    assert f"PASS {ok}" in done.stdout


def test_json_prints_one_object_per_step_from_the_setup(tmp_path):
    done = riftchart("run", "--json", write(tmp_path, "ok.yaml", EXAMPLE))
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["step"] for r in rows] == list(range(7))
    assert rows[0]["do"] is None and rows[0]["state"]["state"] == "neutral-open"
    assert rows[1]["do"] == {"move": {"player": "P1", "units": ["U1"], "to": "A"}}
    assert rows[-1]["state"]["score"] == {"P1": 1, "P2": 0}
    assert all(list(r) == ["file", "step", "do", "state"] for r in rows)  # exactly these
    traced = riftchart("run", "--json", "--trace", write(tmp_path, "ok.yaml", EXAMPLE))
    rows = [json.loads(line) for line in traced.stdout.splitlines()]
    assert "A: Contested by P1 (S 184.3.a)" in rows[1]["trace"]


def test_json_outcomes_say_how_each_step_went_and_why_the_run_stopped(tmp_path):
    passed = riftchart("run", "--json", "--outcomes", write(tmp_path, "ok.yaml", EXAMPLE))
    rows = [json.loads(line) for line in passed.stdout.splitlines()]
    assert {r["outcome"] for r in rows} == {"as written"} and "failure" not in rows[-1]
    refused = EXAMPLE.replace("- move: {player: P1, units: [U1], to: A}", "- pass: P2")
    failed = riftchart("run", "--json", "--outcomes", write(tmp_path, "no.yaml", refused))
    rows = [json.loads(line) for line in failed.stdout.splitlines()]
    assert failed.returncode == 1
    assert [r["outcome"] for r in rows] == ["as written", "refused"]
    assert f"FAIL {rows[-1]['failure']}\n" == failed.stderr
    alone = riftchart("run", "--outcomes", write(tmp_path, "ok.yaml", EXAMPLE))
    assert alone.returncode == 2 and "use it with --json" in alone.stderr


def test_rules_option_overrides_the_profile(tmp_path):
    done = riftchart("run", "--rules", "cr-1.4", write(tmp_path, "ok.yaml", EXAMPLE))
    assert done.returncode == 0 and "[rules: cr-1.4]" in done.stdout


def test_demo_runs_every_bundled_scenario():
    done = riftchart("demo")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    assert done.stdout.count("\nPASS ") == len(SCENARIOS)
    assert "did not pass" not in done.stdout


def test_demo_names_the_scenarios_that_did_not_pass_at_the_end(capsys):
    """Under one profile for all, the other profile's scenarios fail; the last line names
    each, as its FAIL line in the trace does."""
    assert cli.main(["demo", "--rules", "cr-1.4"]) == 1
    out = capsys.readouterr().out
    # the file is named by its path, which may hold spaces (the checkout's folder)
    failed = sorted(Path(found[1]).name for line in out.splitlines()
                    if (found := re.match(r"FAIL (.+?\.yaml): ", line)))
    assert failed and "023_cleanup_control_loss_seed.yaml" in failed
    last = out.splitlines()[-1]
    assert last == f"{len(failed)} scenarios did not pass: {', '.join(failed)}"


CITATION = re.compile(r"\((S [0-9.a-z]+|CR [0-9.a-z-]+|rules [0-9.]+|seed 00[0-3])\)$")


def test_every_trace_line_cites_its_rule():
    uncited = []
    for path in SCENARIOS:
        for step in run_file(path).steps:
            for line in step.lines:
                if not line.startswith("refused as expected") and not CITATION.search(line):
                    uncited.append(f"{path.name} step {step.index}: {line}")
    assert not uncited, uncited[:10]


def test_the_documented_scenario_runs(tmp_path):
    doc = (Path(__file__).resolve().parent.parent / "docs" / "scenarios.md").read_text()
    example = re.search(r"```yaml\n(.*?)```", doc, re.S).group(1)
    done = riftchart("run", write(tmp_path, "doc.yaml", example))
    assert done.returncode == 0, done.stdout + done.stderr


# --- JSON files and awkward output streams ---------------------------------------------------

JSON_SCENARIO = (
    '{\n\t"name": "smile \\ud83d\\ude00",\n\t"players": ["P1", "P2"],\n'
    '\t"battlefields": [{"id": "\\ud83c\\udfb2"}],\n'
    '\t"units": [{"id": "U1", "controller": "P1", "might": 1, "at": "base"}],\n'
    '\t"steps": [{"move": {"player": "P1", "units": ["U1"], "to": "\U0001F3B2"}},\n'
    '\t\t{"expect": {"contested": {"\U0001F3B2": "P1"}}}]\n}\n'
)


def test_json_with_tabs_and_escaped_astral_characters_runs(tmp_path):
    """JSON is valid YAML (scenario-format.md): JSON indents with tabs and writes a character
    beyond U+FFFF as two escapes; both are read as JSON means them."""
    done = riftchart("run", write(tmp_path, "game.json", JSON_SCENARIO))
    assert done.returncode == 0, done.stderr
    assert "== smile \U0001F600 (" in done.stdout
    assert "PASS" in done.stdout  # the escaped id is the same id as the emoji written out


def test_an_unpaired_surrogate_escape_is_a_bad_file(tmp_path):
    path = write(tmp_path, "half.json", JSON_SCENARIO.replace("\\ude00", ""))
    done = riftchart("run", path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"{path}: name") and "surrogate" in done.stderr


def test_a_reader_that_stops_early_gets_no_traceback(tmp_path):
    """`riftchart run --json FILES | head -1`: the reader closes the pipe; no traceback."""
    files = [str(p) for p in SCENARIOS[:20]]
    process = subprocess.Popen([sys.executable, "-m", "engine.cli", "run", "--json", *files],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout.readline().startswith(b'{"file"')
    process.stdout.close()
    errors = process.stderr.read()
    assert process.wait(timeout=120) == 0  # every file still ran, and passed
    assert b"Traceback" not in errors and b"Error" not in errors, errors.decode()
    # the exit code is still the highest of all files (scenario-format.md)
    bad = write(tmp_path, "bad.yaml", "name: bad\nplayers: [P1, P2]\n")
    process = subprocess.Popen([sys.executable, "-m", "engine.cli", "run", bad, *files],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.readline()
    process.stdout.close()
    process.stderr.read()
    assert process.wait(timeout=120) == 2


def test_names_the_terminal_cannot_show_are_escaped(tmp_path):
    env = {**os.environ, "PYTHONIOENCODING": "ascii:strict"}
    path = write(tmp_path, "emoji.json", JSON_SCENARIO)
    done = subprocess.run([sys.executable, "-m", "engine.cli", "run", path], env=env,
                          capture_output=True, text=True, encoding="ascii", timeout=120)
    assert done.returncode == 0, done.stderr
    assert "== smile \\U0001f600 (" in done.stdout


def test_the_trace_says_why_an_ability_of_no_one_hits_nobody():
    """D14: the trace names the rule that leaves the unit at A unharmed."""
    (path,) = [p for p in SCENARIOS if p.name.startswith("110_")]
    done = riftchart("run", str(path))
    assert done.returncode == 0, done.stdout
    assert 'A:beginning: "you" is no one here, so no unit is an enemy (S 184.6.c)' in done.stdout


# --- diagrams and exports: what cannot be done is one line and exit code 2 -----------------


def test_diagram_formats_are_checked(tmp_path):
    for formats in ("svg,bogus", ","):
        done = riftchart("diagrams", "--out", str(tmp_path / "d"), "--format", formats)
        assert done.returncode == 2 and done.stderr.count("\n") == 1
        assert "formats are dot,svg,png,mermaid,scxml" in done.stderr


def test_diagrams_and_exports_say_where_they_cannot_write(tmp_path):
    blocker = write(tmp_path, "a-file", "x")
    for args in (["diagrams", "--format", "dot"], ["export", "--format", "json"]):
        done = riftchart(*args, "--out", blocker)
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert done.stderr.count("\n") == 1 and f"cannot write to {blocker}" in done.stderr
        assert done.stderr.endswith(": it is a file, not a folder\n")  # not "File exists"


def test_diagrams_and_exports_write_all_their_files_or_none(tmp_path):
    """A file that cannot be replaced stops the write before anything is written: the files
    there stay as they were, and no temporary file is left."""
    for args, name in ((["diagrams", "--format", "dot"], "focus.dot"),
                       (["export", "--format", "json"], "focus.json")):
        out = tmp_path / args[0]
        (out / name).mkdir(parents=True)  # a folder where a chart's file goes
        done = riftchart(*args, "--out", str(out))
        assert done.returncode == 2 and "it is a folder, not a file" in done.stderr
        assert [p.name for p in out.iterdir()] == [name]


def test_an_empty_folder_name_is_refused_rather_than_taken_as_here(tmp_path):
    for args in (["diagrams", "--format", "dot", "--out", ""],
                 ["export", "--format", "json", "--out", ""],
                 ["run", write(tmp_path, "ok.yaml", EXAMPLE), "--diagrams", ""]):
        done = subprocess.run([sys.executable, "-m", "engine.cli", *args], capture_output=True,
                              text=True, timeout=120, cwd=tmp_path)
        assert done.returncode == 2 and done.stdout == "", args
        assert done.stderr.count("\n") == 1 and "needs a folder name" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ok.yaml"]  # nothing written here


def test_trace_without_json_is_refused_rather_than_ignored(tmp_path):
    done = riftchart("run", "--trace", write(tmp_path, "ok.yaml", EXAMPLE))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "use it with --json" in done.stderr


def test_svg_without_graphviz_says_what_to_install(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "engine.cli", "diagrams", "--out", str(tmp_path), "--format",
         "svg"], capture_output=True, text=True, timeout=120,
        env={**os.environ, "PATH": str(tmp_path)})  # no `dot` on this PATH
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "install graphviz" in done.stderr
    assert not any(tmp_path.iterdir())  # nothing half written


def test_after_a_win_nobody_receives_priority_in_the_trace():
    """D13: the game stops where the win found it; the trace says nothing happens after."""
    (path,) = [p for p in SCENARIOS if p.name.startswith("080_")]
    done = riftchart("run", str(path))
    assert done.returncode == 0, done.stdout
    after_win = done.stdout.split("P1 wins with 2 points")[1]
    assert "receives Priority" not in after_win


STEPS_THE_RULES_JUDGE = """\
name: steps the rules judge
players: [P1, P2]
battlefields: [{id: A}]
units: [{id: U1, controller: P1, might: 1, at: base}]
hands: {P1: [{id: S1, type: spell, timing: action, effect: {stun: {}}},
             {id: S2, type: spell, timing: action, effect: {move: {}}}]}
steps:
  - expect_error: {move: {player: P1, units: [U1, U1], to: A}}
  - expect_error: {move: {player: P1, units: [], to: A}}
  - expect_error: {play: {player: P1, card: S1, targets: [U1, U1]}}
  # ids of the file that name something else than the step wants (D15)
  - expect_error: {move: {player: P1, units: [S1], to: A}}
  - expect_error: {move: {player: P1, units: [U1], to: S1}}
  - expect_error: {play: {player: P1, card: S1, targets: [A]}}
  - expect_error: {play: {player: P1, card: S1, targets: [S2]}}
  - expect_error: {play: {player: P1, card: S2, targets: [U1], to: P2}}
  - expect_error: {play: {player: P1, card: A}}
  - expect_error: {pass: U1}
"""

#: each refusal of the steps above, and the rule it cites
RULES_THAT_REFUSE = [
    "a Standard Move names one or more different units (CR 144)",
    "a Standard Move names one or more different units (CR 144)",
    "a unit is targeted once at most (CR 355.5)",
    "S1 is not a unit on the board (CR 144)",
    "'S1' is not a battlefield or base (CR 144)",
    "target A is not a unit on the board (CR 355.9.a)",
    "target S2 is not a unit on the board (CR 355.9.a)",
    "'P2' is not a battlefield or base (CR 355.4.a)",
    "A is not in P1's hand (CR 419.1.a)",
    "'U1' is not a player (CR 116.1)",
]  # a choice answered with an id of the wrong kind: scenarios 042 and 104


def test_a_step_the_rules_refuse_is_not_a_bad_file(tmp_path):
    """Naming a unit twice, or none, or an id of the file that names something else than the
    step wants (a spell as a unit, a unit as a destination), is for the rules to refuse (exit
    0 under expect_error, 1 as a plain step), as the Python API refuses the same action: not a
    fault of the file (exit 2 is for bad keys, and ids the file does not have)."""
    done = riftchart("run", write(tmp_path, "s.yaml", STEPS_THE_RULES_JUDGE))
    assert done.returncode == 0, done.stdout + done.stderr
    refusals = [line.removeprefix("  refused as expected: ") for line in done.stdout.splitlines()
                if line.startswith("  refused as expected: ")]
    assert refusals == RULES_THAT_REFUSE
    plain = STEPS_THE_RULES_JUDGE.replace(
        "  - expect_error: {move: {player: P1, units: [U1, U1], to: A}}",
        "  - move: {player: P1, units: [U1, U1], to: A}")
    done = riftchart("run", write(tmp_path, "p.yaml", plain))
    assert done.returncode == 1 and "refused" in done.stdout


def test_an_expected_list_that_repeats_a_value_fails_rather_than_being_invalid(tmp_path):
    text = EXAMPLE + "  - expect: {scored_this_turn: {A: [P1, P1]}}\n"
    done = riftchart("run", write(tmp_path, "s.yaml", text))
    assert done.returncode == 1 and "scored_this_turn.A" in done.stdout + done.stderr


def test_expected_choice_options_that_repeat_a_value_fail_rather_than_being_invalid(tmp_path):
    # D15: an expect list that repeats a value simply fails (exit 1), the choice's too
    text = EXAMPLE + "  - expect: {pending_choice: {options: [A, A]}}\n"
    done = riftchart("run", write(tmp_path, "s.yaml", text))
    assert done.returncode == 1 and "pending_choice" in done.stdout + done.stderr


def test_output_that_cannot_be_written_is_one_line_and_exit_2(tmp_path):
    """`riftchart run FILE > /dev/full`: the trace is lost, so the run says so in one line and
    exits 2 (D30), rather than a traceback and exit 1, which means a failed expectation."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    path = write(tmp_path, "ok.yaml", EXAMPLE)
    for args in (["run", path], ["run", "--json", path, path]):
        with open("/dev/full", "w") as full:
            done = subprocess.run([sys.executable, "-m", "engine.cli", *args], stdout=full,
                                  stderr=subprocess.PIPE, text=True, timeout=120)
        assert done.returncode == 2, done.stderr
        assert done.stderr == "riftchart run: cannot write the output: No space left on device\n"


def test_json_failure_line_follows_the_steps_it_reports(tmp_path):
    """`--json` writes the steps to stdout and the FAIL line to stderr; read together
    (`2>&1`), the FAIL line comes after the file's steps, whatever the buffering."""
    bad = write(tmp_path, "bad.yaml", EXAMPLE.replace("expect: {focus: P2}", "expect: {focus: P1}"))
    ok = write(tmp_path, "ok.yaml", EXAMPLE)
    env = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}
    done = subprocess.run([sys.executable, "-m", "engine.cli", "run", "--json", bad, ok],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=120, env=env)
    files = [line.split()[1] if line.startswith("FAIL") else json.loads(line)["file"]
             for line in done.stdout.splitlines()]
    assert files == [bad] * 5 + [f"{bad}:"] + [ok] * 7, done.stdout


# --- closed and failing streams (D30, D32) --------------------------------------------------


MODELS = Path(__file__).resolve().parent.parent / "models"


def _with_streams(redirect: str, *args: str) -> subprocess.CompletedProcess:
    """``riftchart ARGS`` started by a shell with ``redirect`` (``>&-``, ``2>&-``...)."""
    return subprocess.run(["sh", "-c", f'"$@" {redirect}', "sh", sys.executable, "-m",
                           "engine.cli", *args], capture_output=True, text=True, timeout=120)


def _commands(tmp_path: Path) -> list[tuple[str, list[str], int]]:
    """Each command, with the exit code it decides when its streams work."""
    ok = write(tmp_path, "ok.yaml", EXAMPLE)
    failing = write(tmp_path, "failing.yaml",
                    EXAMPLE.replace("expect: {focus: P2}", "expect: {focus: P1}"))
    return [
        ("run", ["run", ok], 0),
        ("run", ["run", "--json", failing, ok], 1),
        ("check", ["check", str(MODELS / "1v1_two_battlefields.yaml"), "--max-states", "50",
                   "--out", str(tmp_path / "cex")], 0),
        ("compare", ["compare", ok], 0),
        ("diagrams", ["diagrams", "--out", str(tmp_path / "d"), "--format", "dot,mermaid"], 0),
        ("export", ["export", "--format", "json", "--out", str(tmp_path / "e")], 0),
        ("demo", ["demo"], 0),
    ]


def test_closed_streams_give_no_traceback_and_the_decided_exit_code(tmp_path):
    """D32: started with stdout closed (`>&-`), a command says in one line that it cannot
    write its output, and exits 2; with stderr closed (`2>&-`) it prints its output and exits
    with the code it decided; with both closed, it exits 2. Never a traceback."""
    for command, args, code in _commands(tmp_path):
        done = _with_streams(">&-", *args)
        assert (done.returncode, done.stdout) == (2, ""), (args, done.stderr)
        assert done.stderr.endswith(
            f"riftchart {command}: cannot write the output: Bad file descriptor\n"), args
        assert "Traceback" not in done.stderr
        done = _with_streams("2>&-", *args)
        assert done.returncode == code and done.stdout, (args, done.stdout)
        done = _with_streams(">&- 2>&-", *args)
        assert (done.returncode, done.stdout, done.stderr) == (2, "", ""), args


def test_a_closed_standard_input_is_a_file_that_cannot_be_read(tmp_path):
    """`-` with standard input closed (`<&-`) is exit 2 and one line naming <stdin>, as any
    unreadable file is (it was a traceback, and the files after it did not run)."""
    ok = write(tmp_path, "ok.yaml", EXAMPLE)
    message = "<stdin>: <file>: cannot read: standard input is closed\n"
    done = _with_streams("<&-", "run", "-", ok)
    assert (done.returncode, done.stderr) == (2, message)
    assert done.stdout.endswith(f"PASS {ok}\n")
    for args in (["check", "-", "--max-states", "5"], ["compare", "-"]):
        done = _with_streams("<&-", *args)
        assert (done.returncode, done.stdout, done.stderr) == (2, "", message), args


def test_output_that_cannot_be_written_is_one_line_and_exit_2_for_every_command(tmp_path):
    """D30 holds for every command, not only `run`: a full disk is one line and exit 2."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    for command, args, _ in _commands(tmp_path):
        done = _with_streams(">/dev/full", *args)
        assert done.returncode == 2, (args, done.stderr)
        assert done.stderr == (
            f"riftchart {command}: cannot write the output: No space left on device\n"), args


def test_a_full_stderr_leaves_stdout_its_output(tmp_path):
    """D32: when only stderr cannot be written (`2>/dev/full`), stdout keeps all its output
    and the exit code is what the files decided."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    ok = write(tmp_path, "ok.yaml", EXAMPLE)
    failing = write(tmp_path, "failing.yaml",
                    EXAMPLE.replace("expect: {focus: P2}", "expect: {focus: P1}"))
    invalid = write(tmp_path, "invalid.yaml", "name: x\n")
    done = _with_streams("2>/dev/full", "run", "--json", failing, ok)
    assert done.returncode == 1
    assert [json.loads(line)["file"] for line in done.stdout.splitlines()] == [failing] * 5 + [
        ok] * 7
    done = _with_streams("2>/dev/full", "run", invalid, ok)
    assert done.returncode == 2 and done.stdout.endswith(f"PASS {ok}\n"), done.stdout
    for command, args, code in _commands(tmp_path):
        done = _with_streams("2>/dev/full", *args)
        assert done.returncode == code and done.stdout, (command, args)


def test_the_records_of_a_run_share_what_a_step_left_as_it_was(tmp_path):
    """A run keeps every step's state view: each part a step did not change is the earlier
    record's object (a long run of a large position took gigabytes when each was whole), and
    each view still equals the game's own view after its step."""
    scenario = yaml.safe_load(EXAMPLE)
    scenario["units"] += [{"id": f"V{i}", "controller": "P2", "might": 1, "at": "base"}
                          for i in range(50)]
    steps = run_file(write(tmp_path, "many.yaml", yaml.safe_dump(scenario))).steps
    game = Game.from_scenario(write(tmp_path, "again.yaml", yaml.safe_dump(scenario)))
    assert steps[0].state == game.view()
    moved, passed = steps[1], steps[3]  # the move of U1, then P1's pass
    assert moved.state["units"] is not steps[0].state["units"]
    assert moved.state["units"]["V0"] is steps[0].state["units"]["V0"]  # not moved
    assert passed.state["units"] is steps[2].state["units"]  # a pass moves no unit
    assert passed.state["focus"] != steps[2].state["focus"]


def test_run_files_keeps_each_stream_apart_from_python(tmp_path):
    """``run_files`` called from Python: a stream that fails loses only its own output."""
    import io

    from engine.runner import run_files

    class Full(io.StringIO):
        def write(self, text):
            raise OSError(28, "No space left on device")

    ok = write(tmp_path, "ok.yaml", EXAMPLE)
    invalid = write(tmp_path, "invalid.yaml", "name: x\n")
    out = io.StringIO()
    assert run_files([invalid, ok], out, Full()) == 2
    assert out.getvalue().endswith(f"PASS {ok}\n")
    err = io.StringIO()
    assert run_files([ok, invalid], Full(), err) == 2
    assert err.getvalue() == "riftchart run: cannot write the output: No space left on device\n"


# --- the failure messages of `riftchart run` -------------------------------------------------


def test_a_key_absent_from_the_view_is_said_to_be_absent(tmp_path):
    """A unit not on the board (a token not made yet) has no entry in the view: the failure
    says it is absent, not that its value is the string "<missing>"."""
    text = EXAMPLE.replace("units: [{id: U1, controller: P1, might: 2, at: base}]",
                           "units: [{id: U1, controller: P1, might: 2, at: base}]\n"
                           "hands: {P1: [{id: S1, type: spell, effect: "
                           "{play_unit: {id: T1, might: 1}}}]}")
    text += "  - expect: {units: {T1: {at: A}}}\n"
    done = riftchart("run", write(tmp_path, "token.yaml", text))
    assert done.returncode == 1
    assert ('units.T1: expected {"at": "A"}, actual: absent (the state has no units.T1)'
            in done.stdout), done.stdout
    assert "<missing>" not in done.stdout


def test_a_name_with_line_breaks_keeps_the_header_on_one_line(tmp_path):
    text = EXAMPLE.replace("name: Showdown at an empty battlefield (seed 000)",
                           'name: "Two\\nlines\\r\\nand more"')
    path = write(tmp_path, "lines.yaml", text)
    done = riftchart("run", path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == f"== Two lines and more ({path}) [rules: seed]"


def test_an_id_with_a_line_break_keeps_each_trace_line_on_one_line(tmp_path):
    """An id may hold a line break; the trace prints it as a space, so that no printed line
    looks like one the runner wrote (here a made-up ``step 99``)."""
    path = write(tmp_path, "break.yaml", (
        "name: a line break in an id\nplayers: [P1, P2]\nbattlefields: [{id: A}]\n"
        'units: [{id: "U1\\nstep 99 - pass", controller: P1, might: 1, at: base}]\n'
        'steps:\n  - move: {player: P1, units: ["U1\\nstep 99 - pass"], to: A}\n'))
    done = riftchart("run", path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[1] == 'step 1: move player="P1" units=["U1\\nstep 99 - pass"] to="A"'
    assert lines[2] == "  P1 exhausts U1 step 99 - pass: a Standard Move to A (CR 144)"
    assert [line for line in lines if line.startswith("step")] == [lines[1]]


def test_control_characters_in_names_and_ids_reach_the_terminal_as_escapes(tmp_path):
    """A name or an id may hold any character; the text output writes a control character
    (ESC, BEL, NUL...) as its escape, so a scenario cannot clear the screen, retitle the
    window or colour what follows, in the trace or in an error message."""
    path = write(tmp_path, "escapes.yaml", (
        'name: "evil\\e]0;pwned\\a\\e[2J"\nplayers: [P1, P2]\nbattlefields: [{id: A}]\n'
        'units: [{id: "U\\e[31m1\\0", controller: P1, might: 1, at: base}]\n'
        'steps:\n  - move: {player: P1, units: ["U\\e[31m1\\0"], to: A}\n'))
    done = riftchart("run", "--states", path)
    assert done.returncode == 0, done.stderr
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f]", done.stdout)
    assert done.stdout.startswith("== evil\\x1b]0;pwned\\x07\\x1b[2J (")
    assert "  P1 exhausts U\\x1b[31m1\\x00: a Standard Move to A (CR 144)\n" in done.stdout
    bad = write(tmp_path, "bad.yaml", EXAMPLE.replace("name:", '"k\\e[2J": 1\nname:', 1))
    refused = riftchart("run", bad)
    assert refused.returncode == 2
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f]", refused.stderr)
    assert ": k\\x1b[2J: unknown key 'k\\x1b[2J'" in refused.stderr


def test_a_long_unknown_key_is_cut_short_in_the_message(tmp_path):
    key = "k" * 5000
    # an explicit key (`? KEY`), which YAML allows as well as a plain one
    path = write(tmp_path, "long.yaml", EXAMPLE + f"  - expect:\n      ? {key}\n      : 1\n")
    done = riftchart("run", path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert len(done.stderr) < 400, done.stderr
    assert f"unknown key '{'k' * 40}...'; expected one of: state," in done.stderr


def test_states_show_every_charts_active_states_after_the_setup_and_each_step():
    path = next(p for p in SCENARIOS if p.name.startswith("001_"))
    done = riftchart("run", "--states", str(path))
    assert done.returncode == 0, done.stderr
    text = done.stdout
    steps = len(re.findall(r"^step \d+:", text, re.M))
    assert text.count("  active states:\n") == steps + 1 and "\nsetup:\n" in text
    moved = text.split("step 2: move", 1)[1].split("step 3:", 1)[0]
    assert "    battlefield A: control.uncontrolled, contest_status.contested, " \
           "contest.showdown.non_combat," in moved
    assert "    focus: holding\n" in moved and "    scheduler: contest_active\n" in moved


def test_states_in_json_agree_with_the_state_view_in_every_bundled_scenario():
    """The charts' active states and the view are two readings of one state: the priority
    chart is Open exactly when the Chain is empty, and a battlefield's contest status is
    Contested exactly when the view names who contested it (rules.md 1, S 184.3)."""
    out = io.StringIO()
    run_files(SCENARIOS, out, io.StringIO(), as_json=True, with_states=True)
    lines = out.getvalue().splitlines()
    assert len(lines) > len(SCENARIOS)
    for line in lines:
        step = json.loads(line)
        where = (step["file"], step["step"])
        active, state = step["active"], step["state"]
        assert list(active)[-4:] == ["focus", "priority", "scheduler", "turn"]
        assert (active["priority"] == ["open"]) == (not state["chain"]), where
        for bf, by in state["contested"].items():
            contested = "contest_status.contested" in active[f"battlefield:{bf}"]
            assert contested == (by is not None), (where, bf)


def test_states_keep_one_line_per_chart_whatever_a_battlefield_id_holds(tmp_path):
    path = write(tmp_path, "odd.yaml", 'name: odd id\nplayers: [P1, P2]\n'
                 'battlefields: [{id: "A\\nB"}]\n'
                 'units: [{id: U1, controller: P1, might: 1, at: base}]\n')
    done = riftchart("run", "--states", path)
    assert done.returncode == 0, done.stderr
    charts = [line for line in done.stdout.splitlines() if line.startswith("    ")]
    assert len(charts) == 5 and charts[0].startswith("    battlefield A B: control.")


def test_the_turn_chart_cites_the_phases_of_the_turn():
    """D11: the turn's phases cite the Core Rules' Phases of the Turn (CR 314-317); CR 318-319
    are Cleanups, which no phase change is."""
    from engine.runtime import compiled
    rules = {(t.source, t.event): t.rule for t in compiled("turn").transitions}
    assert rules == {
        ("main", "end_turn"): "CR 317",
        ("ending", "advance"): "CR 315.1",
        ("awaken", "advance"): "CR 315.2",
        ("beginning_triggers", "advance"): "CR 315.2.b",
        ("hold_scoring", "advance"): "CR 315.4",
        ("draw", "advance"): "CR 316",
    }


def test_the_priority_chart_cites_the_steps_of_resolving_chain_items():
    """D11: the Chain's steps cite CR 332-340 as numbered there (CR 331 says when the turn is
    Closed, CR 334 what a Task is: neither is a step of the Chain's)."""
    from engine.runtime import compiled
    rules = [(t.source, t.event, t.target, t.guard_text(), t.rule)
             for t in compiled("priority").transitions]
    assert sorted(rules) == sorted([
        ("open", "items_added", "priority_window", "", "CR 333"),
        ("priority_window", "items_added", "priority_window", "", "CR 337.1.c.3"),
        ("resolving", "items_added", "resolving", "", "CR 336.1"),
        ("priority_window", "pass_priority", "resolving", "everyone_else_has_passed",
         "CR 339.1"),
        ("priority_window", "pass_priority", "priority_window", "", "CR 338.1.c.1"),
        ("priority_window", "resolve_at_once", "resolving", "", "CR 337.1.c"),
        ("resolving", "item_resolved", "open", "chain_is_empty", "CR 340.2"),
        # back to the player of an Add or a unit (rules.md 11.3, 11.7), else to the newest
        ("resolving", "item_resolved", "priority_window", "an_add_resolved", "rules 11.3"),
        ("resolving", "item_resolved", "priority_window", "a_unit_resolved", "rules 11.7"),
        ("resolving", "item_resolved", "priority_window", "", "CR 340.4"),
    ])


def test_decision_d11_lists_every_citation_the_code_makes():
    """D11 says how rules are cited; every citation in the charts and the engine is one it
    names, or a Core Rules number inside a section it names (``CR 341-348``)."""
    code = "".join(p.read_text(encoding="utf-8") for folder in ("engine", "statecharts")
                   for p in sorted((ROOT / folder).glob("*.py")))
    cited = set(re.findall(r'"((?:CR|S|rules|seed) [0-9][0-9.a-z]*)"', code))
    decisions = (ROOT / "docs" / "decisions.md").read_text(encoding="utf-8")
    d11 = decisions.split("**D11.", 1)[1].split("**D12.", 1)[0]
    assert "CR 333" in d11 and "Seed control rules" in d11 and "The Add ability" not in d11
    named = set(re.findall(r"`((?:CR|S|rules|seed) [0-9][0-9.a-z]*)`", d11))
    sections = [tuple(map(int, r)) for r in re.findall(r"`CR (\d+)-(\d+)`", d11)]

    def in_a_section(rule: str) -> bool:
        number = re.fullmatch(r"CR (\d+)", rule)
        return bool(number) and any(lo <= int(number[1]) <= hi for lo, hi in sections)

    assert sorted(r for r in cited if r not in named and not in_a_section(r)) == []


def test_version_is_the_installed_distributions(capsys):
    from importlib.metadata import version

    import engine

    with pytest.raises(SystemExit) as done:
        cli.main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"riftchart {version('riftchart')}\n"
    assert engine.__version__ == version("riftchart")
    # the package shows its API and its modules, not what it used to find its version
    shown = {name for name in dir(engine)
             if not name.startswith("_") and not isinstance(getattr(engine, name), type(engine))}
    assert shown == set(engine.__all__)


def test_importing_engine_loads_no_engine_until_the_api_is_used() -> None:
    """The command's entry point starts before the engine loads, so that it can answer Ctrl-C
    during the load (below); the API's names load when first used."""
    script = ("import sys, engine, engine.cli\n"
              "print(sorted(m for m in sys.modules if m.startswith(('engine.', 'statecharts'))))\n"
              "from engine import Game, Move\n"
              "print(Game.__module__, Move.__name__, 'engine.game' in sys.modules)\n"
              # the package's modules are reached from it, as when it loaded them at once
              "import engine as e\n"
              "print(e.actions.from_step('pass', 'P1'), e.scenario.load_scenario.__name__)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=ROOT, check=True)
    assert done.stdout.splitlines() == ["['engine.cli']", "engine.game Move True",
                                        "Pass(player='P1') load_scenario"]


class _InterruptedLoad:
    """An import hook that is Ctrl-C pressed while engine.commands loads."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> None:
        if name == "engine.commands":
            raise KeyboardInterrupt


def test_ctrl_c_while_the_engine_loads_is_one_line_and_exit_130(
        capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    import engine

    monkeypatch.delitem(sys.modules, "engine.commands")
    monkeypatch.delattr(engine, "commands")
    monkeypatch.setattr(sys, "meta_path", [_InterruptedLoad(), *sys.meta_path])
    assert cli.main(["demo"]) == cli.INTERRUPTED == 130
    assert capsys.readouterr() == ("", "riftchart: interrupted\n")


@pytest.mark.parametrize(("argv", "usage"), [
    (["compare", "a.yaml", "b.yaml"], "usage: riftchart compare"),  # compare takes one FILE
    (["check", "a.yaml", "b.yaml"], "usage: riftchart check"),
    (["run", "a.yaml", "--bogus"], "usage: riftchart run"),
])
def test_a_stray_argument_is_said_with_the_commands_own_usage(argv, usage, capsys):
    with pytest.raises(SystemExit) as done:
        cli.main(argv)
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(usage)
    assert f"riftchart {argv[0]}: error: unrecognized arguments: {argv[-1]}" in err


def test_a_file_named_dash_is_read_from_standard_input(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """``-`` is standard input, called ``<stdin>``, read once in a run; a bad one is exit 2
    with the field named, as a file is; its step-through page is ``stdin.html``."""
    def piped(text: str, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "engine.cli", "run", *args], input=text,
                              capture_output=True, text=True, timeout=120)

    done = piped(EXAMPLE, "-")
    assert done.returncode == 0, done.stderr
    assert "(<stdin>) [rules: seed]" in done.stdout.splitlines()[0]
    assert done.stdout.rstrip().endswith("PASS <stdin>")
    done = piped("name: x\n", "-")
    assert (done.returncode, done.stderr) == (2, "<stdin>: players: required key missing; "
                                                 "also missing: battlefields (line 1)\n")
    done = piped(EXAMPLE, "-", "-")
    assert done.returncode == 2
    assert done.stderr == ("<stdin>: <file>: standard input is read once, and an earlier '-' "
                           "has read it\n")
    assert done.stdout.count("PASS <stdin>") == 1
    done = piped(EXAMPLE, "--diagrams", str(tmp_path / "pages"), "-")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "pages" / "stdin.html").is_file()
    done = subprocess.run([sys.executable, "-m", "engine.cli", "compare", "-"], input=EXAMPLE,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "(<stdin>)" in done.stdout.splitlines()[0], done.stderr
    done = subprocess.run([sys.executable, "-m", "engine.cli", "check", "-"], input=EXAMPLE,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "no violation" in done.stdout and "<stdin>" in done.stdout
    refused = EXAMPLE.replace("steps:\n", "steps:\n  - pass: P2\n", 1)
    done = subprocess.run([sys.executable, "-m", "engine.cli", "check", "-"], input=refused,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stderr.startswith("<stdin>: steps[0].pass: refused: ")
    # from Python too: run_file("-") reads sys.stdin's bytes
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(EXAMPLE.encode())))
    result = run_file("-")
    assert (result.path, result.code) == ("<stdin>", 0)
    # and a text stream put in its place, as test harnesses do, is read as its text
    monkeypatch.setattr(sys, "stdin", io.StringIO(EXAMPLE))
    result = run_file("-")
    assert (result.path, result.code) == ("<stdin>", 0)


def test_an_expect_error_step_that_is_taken_says_what_it_did(tmp_path, capsys):
    """A step expected to be refused that the rules take happens: its trace lines are said
    (the page and --json --trace show them too), then the failure."""
    path = tmp_path / "taken.yaml"
    path.write_text("name: taken\nplayers: [P1, P2]\nbattlefields: [{id: A}]\n"
                    "units: [{id: U1, controller: P1, might: 2, at: base}]\n"
                    "steps:\n  - expect_error: {move: {player: P1, units: [U1], to: A}}\n",
                    encoding="utf-8")
    assert cli.main(["run", str(path)]) == 1
    out = capsys.readouterr().out.splitlines()
    at = out.index('step 1: expect refused: move player="P1" units=["U1"] to="A"')
    assert out[at + 1:at + 3] == ["  P1 exhausts U1: a Standard Move to A (CR 144)",
                                  "  U1 moves to A (CR 144)"]
    assert out[-1].endswith("step 1 (line 6): expected move to be refused, but it was legal")
    assert cli.main(["run", "--json", "--trace", str(path)]) == 1
    record = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert "A: Contested by P1 (S 184.3.a)" in record["trace"]
