"""`riftchart compare`: the column width, how values are shown, and which steps are shown.

The parting steps of the profile pairs are tested in test_profiles_and_multiplayer.py.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from engine import compare as compare_module
from engine.compare import compare, format_comparison
from engine.runner import StepRecord, run_scenario
from engine.scenario import load_scenario
from tests.conftest import ROOT
from tests.helpers import step_block, write_yaml

SCENARIO_DIR = ROOT / "scenarios"
CONTROL_LOSS = SCENARIO_DIR / "220_profile_control_loss_seed.yaml"  # parts at step 8
# the same file named from the project's folder: the header, which names the file, then wraps
# the same wherever the project was cloned
CONTROL_LOSS_HERE = CONTROL_LOSS.relative_to(ROOT)
END_TURN_REFUSED = SCENARIO_DIR / "057_turn_end_turn_refused.yaml"  # no parting
UNIT_LEAVES = SCENARIO_DIR / "241_ffa_conversion_applier_gone_non_controller_attacks.yaml"


def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    # this interpreter's engine, with stdout a pipe: never a terminal
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=120,
                          cwd=ROOT, env=env)


def _main(path: Path, width: int | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = compare_module.main(str(path), out, err, width=width)
    return code, out.getvalue(), err.getvalue()


def _columns(line: str, width: int) -> tuple[str, str]:
    """The two columns of a side-by-side line, without their padding."""
    return line[2:2 + width].rstrip(), line[2 + width + 3:]


# --- 1. the width --------------------------------------------------------------------------


@pytest.mark.parametrize("width", ["0", "-5", "19", "1001", "99999999999"])
def test_a_width_out_of_range_is_one_line_naming_the_range_and_exit_2(width):
    done = _run("-m", "engine.cli", "compare", "--width", width, str(CONTROL_LOSS))
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("riftchart compare: --width: "), done.stderr
    assert "20 to 1000" in done.stderr and width in done.stderr


@pytest.mark.parametrize("width", [0, -5, 19, 1001, 10**11])
def test_main_and_format_comparison_refuse_a_width_out_of_range(width):
    code, out, err = _main(CONTROL_LOSS, width)
    assert (code, out) == (2, "")
    assert err == (
        f"riftchart compare: --width: a column is 20 to 1000 characters wide, not {width}\n")
    with pytest.raises(ValueError, match="20 to 1000"):
        format_comparison(compare(str(CONTROL_LOSS)), width)


@pytest.mark.parametrize("width", [20, 1000])
def test_the_widths_at_the_limits_are_allowed(width):
    code, out, err = _main(CONTROL_LOSS, width)
    assert (code, err) == (0, "")
    assert max(len(line) for line in out.splitlines()) <= 2 * width + 5


# --- 2. values in JSON's notation, units one by one ----------------------------------------


def test_state_values_are_shown_in_json_notation():
    text = format_comparison(compare(str(CONTROL_LOSS)), width=200)
    rows = [_columns(line, 200) for line in step_block(text, 8) if line.startswith("*")]
    assert ('control: {"A": null}', 'control: {"A": "P1"}') in rows, rows
    rows = [_columns(line, 200) for line in step_block(text, 11) if line.startswith("*")]
    assert ('focus: "P1"', "focus: null") in rows, rows
    assert ('state: "showdown-open"', 'state: "neutral-open"') in rows, rows
    # no Python notation anywhere
    assert "None" not in text and "{'" not in text and "': " not in text


def test_only_the_units_that_differ_are_shown_one_by_one():
    comparison = compare(str(UNIT_LEAVES))
    a, b = (next(r for r in run.steps if r.index == 14) for run in comparison.runs)
    left, right = a.state["units"], b.state["units"]
    differing = [u for u in left | right if left.get(u) != right.get(u)]
    assert 0 < len(differing) < len(left | right)  # some units differ, not all

    text = format_comparison(comparison, width=1000)
    rows = [_columns(line, 1000) for line in step_block(text, 14) if line.startswith("*")]
    unit_rows = [row for row in rows if row[0].startswith("units") or row[1].startswith("units")]
    expected = [
        tuple(f"units.{u}: {json.dumps(units[u])}" if u in units else f"units.{u}: absent"
              for units in (left, right))
        for u in differing
    ]
    assert unit_rows == expected


# --- 3. the default width fits the terminal ------------------------------------------------


@pytest.mark.parametrize("columns", [60, 100, 300])
def test_by_default_the_lines_fit_COLUMNS_header_included(monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", str(columns))
    monkeypatch.chdir(ROOT)
    code, out, _ = _main(CONTROL_LOSS_HERE)
    assert code == 0
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= columns
    assert max(len(line) for line in lines) > columns - 10  # the width is used, not fixed
    header = lines[: next(i for i, line in enumerate(lines) if line.startswith("Not compared"))]
    assert header[0].startswith("== Profile seed, control loss")
    assert header[-1].endswith("profile seed | profile cr-1.4")
    assert " ".join(line.strip() for line in header).startswith("== " + load_scenario(
        CONTROL_LOSS).name)


def test_a_terminal_narrower_than_two_columns_gets_the_narrowest_columns(monkeypatch):
    monkeypatch.setenv("COLUMNS", "10")
    monkeypatch.chdir(ROOT)
    code, out, _ = _main(CONTROL_LOSS_HERE)
    assert code == 0
    assert max(len(line) for line in out.splitlines()) == 2 * 20 + 5


def test_without_a_terminal_or_COLUMNS_the_output_is_80_wide_and_always_the_same():
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    program = ("import sys; from engine.compare import main; "
               f"sys.exit(main({str(CONTROL_LOSS_HERE)!r}, sys.stdout, sys.stderr))")
    first, again = (_run("-c", program, env=env) for _ in range(2))
    assert first.returncode == 0, first.stderr
    assert first.stdout == again.stdout
    lines = first.stdout.splitlines()
    assert 75 < max(len(line) for line in lines) <= 80
    body = lines[next(i for i, line in enumerate(lines) if line.startswith("Not compared")):]
    # the header names the columns ("profile seed | profile cr-1.4") but is not one of them
    side_by_side = [line for line in body if line[:2] in ("  ", "* ") and " | " in line]
    assert side_by_side and all(line[39:42] == " | " for line in side_by_side)


# --- 4. refused steps and expect steps are shown --------------------------------------------


_RUN = re.compile(r"steps (\d+)-(\d+): identical(?:, but for the expect steps? ([\d, ]+) "
                  r"\(not compared\))?$")


def _runs(text: str) -> list[tuple[int, int, set[int]]]:
    """Each "steps a-b: identical" line: a, b and the expect steps it names inside."""
    found = (_RUN.match(line) for line in text.splitlines())
    return [(int(m[1]), int(m[2]), {int(n) for n in (m[3] or "").split(",") if n.strip()})
            for m in found if m]


def _numbers_shown(text: str) -> set[int]:
    shown = {i for first, last, _ in _runs(text) for i in range(first, last + 1)}
    for line in text.splitlines():
        if found := re.match(r"step (\d+): ", line):
            shown.add(int(found[1]))
    return shown


@pytest.mark.parametrize("path", [CONTROL_LOSS, END_TURN_REFUSED, UNIT_LEAVES],
                         ids=lambda p: p.stem[:3])
def test_every_step_number_is_shown_and_expect_steps_are_said_not_compared(path):
    scenario = load_scenario(path)
    text = format_comparison(compare(str(path)), width=100)
    assert _numbers_shown(text) == set(range(1, len(scenario.steps) + 1))
    expects = ", ".join(str(s.index) for s in scenario.steps if s.kind == "expect")
    assert f"Not compared: the expect steps ({expects})" in text


@pytest.mark.parametrize("path", [CONTROL_LOSS, END_TURN_REFUSED, UNIT_LEAVES],
                         ids=lambda p: p.stem[:3])
def test_a_run_of_identical_steps_is_bounded_by_compared_steps_and_names_the_expects_inside(
        path):
    expects = {s.index for s in load_scenario(path).steps if s.kind == "expect"}
    runs = _runs(format_comparison(compare(str(path)), width=1000))
    assert runs, "each of these files has a run of identical steps"
    for first, last, named in runs:
        assert first not in expects and last not in expects, (first, last)
        assert named == {i for i in expects if first < i < last}, (first, last)


def test_an_expect_step_after_the_parting_is_said_not_compared():
    text = format_comparison(compare(str(CONTROL_LOSS)), width=100)
    assert "step 9: expect, not compared" in text.splitlines()
    assert "step 12: expect, not compared" in text.splitlines()


def test_a_step_refused_under_both_profiles_is_shown_with_the_reason(tmp_path):
    # the control-loss pair, with a first step that both profiles refuse
    source = CONTROL_LOSS.read_text(encoding="utf-8")
    path = tmp_path / "refused_first.yaml"
    path.write_text(source.replace("steps:\n", "steps:\n  - end_turn: P2\n", 1), encoding="utf-8")
    text = format_comparison(compare(str(path)), width=100)
    lines = text.splitlines()
    at = lines.index("step 1: end_turn P2 (refused under both profiles)")
    assert lines[at + 1].startswith("  refused: end_turn was refused: only the turn player")
    assert lines[at + 2] == "steps 2-8: identical, but for the expect steps 3, 5, 7 (not compared)"
    assert "The profiles part at step 9 (lines marked *)." in lines


def test_an_expect_error_refused_under_both_profiles_is_shown_with_the_reason():
    text = format_comparison(compare(str(END_TURN_REFUSED)), width=100)
    lines = text.splitlines()
    at = lines.index("step 1: expect refused: end_turn P2 (refused under both profiles)")
    assert lines[at + 1].startswith("  refused as expected: only the turn player (P1)")
    assert lines[at + 2] == "step 2: identical"
    assert lines[-1] == "The two profiles give the same trace and the same states at every step."


# --- 5. an expect_error step that was legal, and expect steps beside a run ------------------

# The audit's scenario: step 1 expects a legal move to be refused (both profiles take it),
# step 2 is refused under both, step 3 is an expect, steps 4-5 agree.
TAKEN_EXPECT_ERROR = """\
name: compare edge
players: [P1, P2]
battlefields: [{id: A}, {id: B}]
units:
  - {id: U1, controller: P1, might: 2, at: base}
  - {id: U2, controller: P1, might: 2, at: base}
steps:
  - expect_error: {move: {player: P1, units: [U1], to: A}}
  - move: {player: P2, units: [U2], to: B}
  - expect: {state: neutral-open}
  - pass: P1
  - pass: P2
"""


@pytest.fixture
def taken_lines(tmp_path: Path) -> list[str]:
    path = tmp_path / "taken.yaml"
    path.write_text(TAKEN_EXPECT_ERROR, encoding="utf-8")
    comparison = compare(str(path))
    assert comparison.first_difference is None  # the profiles agree at every step
    return format_comparison(comparison, width=200).splitlines()


def test_an_expect_error_step_taken_under_both_profiles_is_shown_not_called_identical(
        taken_lines):
    at = taken_lines.index('step 1: expect refused: move player="P1" units=["U1"] to="A" '
                           "(taken under both profiles: it was not refused)")
    # what the step did is said (it happened), then why the check failed
    assert taken_lines[at + 1] == "  P1 exhausts U1: a Standard Move to A (CR 144)"
    refused = taken_lines.index("  refused: expected move to be refused, but it was legal")
    assert refused > at + 1 and taken_lines[refused + 1].startswith('step 2: move player="P2"')
    assert not any(re.match(r"steps? 1\b", line) and "identical" in line
                   for line in taken_lines)


def test_an_expect_step_at_the_start_of_a_run_is_left_out_of_it(taken_lines):
    at = taken_lines.index("step 3: expect, not compared")
    assert taken_lines[at + 1:] == [
        "steps 4-5: identical",
        "The two profiles give the same trace and the same states at every step.",
    ]
    assert _numbers_shown("\n".join(taken_lines)) == {1, 2, 3, 4, 5}


def test_an_expect_step_at_the_end_of_a_run_is_left_out_of_it(tmp_path):
    # an expect step last: the run before it stops short of it
    path = tmp_path / "expect_last.yaml"
    path.write_text(TAKEN_EXPECT_ERROR + "  - expect: {state: neutral-open}\n",
                    encoding="utf-8")
    lines = format_comparison(compare(str(path)), width=200).splitlines()
    at = lines.index("step 3: expect, not compared")
    assert lines[at + 1:at + 3] == ["steps 4-5: identical", "step 6: expect, not compared"]


def _one_step_scenario(tmp_path: Path, step: dict) -> Path:
    """The empty 1v1 position of END_TURN_REFUSED with one step of ``step`` after its setup."""
    data = yaml.safe_load(END_TURN_REFUSED.read_text(encoding="utf-8"))
    data["steps"] = [step]
    return write_yaml(tmp_path, data, "one_step.yaml")


@pytest.mark.parametrize("step, outcome, note", [
    ({"expect_error": {"end_turn": "P2"}}, "as written", "refused under both profiles"),
    ({"expect_error": {"end_turn": "P1"}}, "not refused",
     "taken under both profiles: it was not refused"),
    ({"end_turn": "P2"}, "refused", "refused under both profiles"),
    ({"end_turn": "P1"}, "as written", None),
])
def test_how_a_step_went_is_recorded_by_the_runner_and_noted_by_compare(tmp_path, step,
                                                                        outcome, note):
    scenario = load_scenario(str(_one_step_scenario(tmp_path, step)))
    record = run_scenario(scenario, keep_going=True).steps[1]
    assert record.outcome == outcome
    assert compare_module._note(record) == note


def test_a_refused_step_that_changed_the_state_is_noted_as_a_failed_check():
    # the engine never lets a refusal change the state, so this outcome is made by hand
    do = {"expect_error": {"end_turn": "P2"}}
    record = StepRecord(1, do, [], {}, {}, [], "refusal changed the state")
    assert compare_module._note(record) == "its expect_error check failed under both profiles"


def test_a_trace_line_that_reads_like_a_refusal_does_not_make_a_step_refused():
    # how a step went is recorded, not read back from the wording of its trace
    do = {"move": {"player": "P1", "units": ["U1"], "to": "A"}}
    record = StepRecord(1, do, ["refused: a line of the trace"], {}, {})
    assert compare_module._note(record) is None


def test_compare_shows_what_a_file_does_and_exits_0_where_run_fails(tmp_path):
    """docs/scenarios.md, Comparing the profiles: a refused step and a failing expect are part of
    what compare shows, not a failure of it (exit 0); `run` fails the same file (exit 1); a bad
    file is exit 2 for both."""
    path = write_yaml(tmp_path, {
        "name": "refused and failing", "players": ["P1", "P2"], "battlefields": [{"id": "A"}],
        "units": [{"id": "U1", "controller": "P1", "might": 1, "at": "base"}],
        "steps": [{"pass": "P2"}, {"expect": {"focus": "P2"}},
                  {"move": {"player": "P1", "units": ["U1"], "to": "A"}}]})
    code, out, err = _main(path)
    assert (code, err) == (0, "")
    assert "refused under both profiles" in out and "step 3" in out
    assert _run("-m", "engine.cli", "run", str(path)).returncode == 1
    bad = write_yaml(tmp_path, {"name": "bad", "players": ["P1", "P2"],
                                "battlefields": [{"id": "A"}], "steps": [{"fly": "P1"}]})
    assert _main(bad)[0] == 2
    helped = " ".join(_run("-m", "engine.cli", "compare", "--help").stdout.split())
    assert "exit 0 once the file ran, whether or not the profiles part; 2 for a bad file" in helped
