"""The step-through page: lit charts per step, one self-contained page, nothing from a
scenario file can run in it, and it steps back and forth in a real (headless) browser."""

from __future__ import annotations

import errno
import io
import json
import os
import queue
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine import stepthrough, writable
from engine.diagrams import ACTIVE_FILL, TAKEN_COLOUR
from engine.runner import OK, RunResult, describe, run_file

#: A contest at one battlefield: step 1 opens a Showdown, so the battlefield chart's lit
#: states change between step 0 (setup) and step 1.
SHOWDOWN = """\
name: {name}
players: [P1, P2]
battlefields: [{{id: {bf}, name: {name}}}, {{id: B}}]
units: [{{id: U1, name: {name}, controller: P1, might: 2, at: base}}]
hands:
  P1:
    - {{id: S1, name: {name}, type: spell, timing: action, effect: {{draw: 1}}}}
steps:
  - move: {{player: P1, units: [U1], to: {bf}}}
  - expect: {{state: showdown-open, focus: P1}}
  - pass: P1
  - pass: P2
  - expect: {{state: neutral-open, score: {{P1: 1}}}}
"""

SCRIPT = "<script>alert(1)</script>"
# what the browser test injects: each would set the title if it ever ran
TITLE_SCRIPT = "<script>document.title='pwned'</script>"
TITLE_IMG = "<img src=x onerror=\"document.title='pwned'\">"


def _scenario(folder: Path, stem: str, name: str, bf: str = "A") -> Path:
    path = folder / f"{stem}.yaml"
    path.write_text(SHOWDOWN.format(name=json.dumps(name), bf=json.dumps(bf)), encoding="utf-8")
    return path


def _run(path: Path) -> RunResult:
    result = run_file(path)
    assert result.code == OK, result.message
    return result


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


# --- files --------------------------------------------------------------------------------


def test_one_page_and_an_svg_per_step_and_chart_deterministic(tmp_path: Path) -> None:
    path = _scenario(tmp_path, "showdown", "Showdown at A")
    result = _run(path)
    charts = ["battlefield-A", "battlefield-B", "focus", "priority", "scheduler", "turn"]

    first = tmp_path / "first"
    written = stepthrough.write_lit_run(result, first)
    expected_svgs = {
        f"showdown/step-{record.index:03d}-{chart}.svg"
        for record in result.steps
        for chart in charts
    }
    assert set(_files(first)) == expected_svgs | {"showdown.html"}
    assert written == sorted(first / name for name in _files(first))

    # a second run of the same file, drawn afresh by Graphviz, gives the same bytes
    stepthrough._lit_svg.cache_clear()
    second = tmp_path / "second"
    stepthrough.write_lit_run(_run(path), second)
    assert _files(first) == _files(second)

    # the setup lights the initial states and marks no transition; step 1 marks what it took
    step0 = (first / "showdown/step-000-battlefield-A.svg").read_text(encoding="utf-8")
    step1 = (first / "showdown/step-001-battlefield-A.svg").read_text(encoding="utf-8")
    assert ACTIVE_FILL in step0 and TAKEN_COLOUR not in step0
    assert TAKEN_COLOUR in step1

    page = (first / "showdown.html").read_text(encoding="utf-8")
    assert f"Step 0 of {result.steps[-1].index}" in page
    for needle in ("http://", "https://", "src=", "<link"):
        assert needle not in page.replace("http://www.w3.org/", ""), needle



def test_the_command_writes_the_same_bytes_whatever_the_hash_seed(tmp_path: Path) -> None:
    # configurations are frozensets, whose order follows the string hash seed of the
    # process: nothing written may depend on it
    path = _scenario(tmp_path, "showdown", "Showdown at A")
    outputs = []
    for seed in ("1", "2"):
        out = tmp_path / f"seed{seed}"
        done = subprocess.run(
            [sys.executable, "-m", "engine.cli", "run", str(path), "--diagrams", str(out)],
            capture_output=True, text=True, timeout=120,
            env={**os.environ, "PYTHONHASHSEED": seed},
        )
        assert done.returncode == 0, done.stdout + done.stderr
        outputs.append(_files(out))
    assert outputs[0] == outputs[1]
    assert "showdown.html" in outputs[0]

def test_stale_step_files_of_a_longer_run_are_removed(tmp_path: Path) -> None:
    path = _scenario(tmp_path, "showdown", "Showdown at A")
    out = tmp_path / "out"
    stale = out / "showdown" / "step-999-focus.svg"
    stale.parent.mkdir(parents=True)
    stale.write_text("old", encoding="utf-8")
    keep = out / "showdown" / "notes.txt"
    keep.write_text("mine", encoding="utf-8")
    stepthrough.write_lit_run(_run(path), out)
    assert not stale.exists()
    assert keep.exists()


def test_each_step_lists_its_lit_states(tmp_path: Path) -> None:
    result = _run(_scenario(tmp_path, "showdown", "Showdown at A"))
    page = stepthrough.render_page(result)
    sections = re.findall(r'<section class="step" data-step="(\d+)"', page)
    assert sections == [str(record.index) for record in result.steps]
    active = re.findall(r'data-chart="battlefield:A" data-active="([^"]*)"', page)
    assert len(active) == len(result.steps)
    assert "uncontested" in active[0].split() and "neutral" in active[0].split()
    assert "showdown" in active[1].split() and "contested" in active[1].split()


def _sections(page: str) -> list[str]:
    return re.findall(r'<section class="step".*?</section>', page, re.DOTALL)


def test_each_step_names_its_active_states_in_words_not_by_colour_alone(tmp_path: Path) -> None:
    result = _run(_scenario(tmp_path, "showdown", "Showdown at A"))
    page = stepthrough.render_page(result)
    sections = _sections(page)
    assert len(sections) == len(result.steps)

    def words(section: str) -> dict[str, list[str]]:
        """The step's list of active states, as a reader reads it: chart -> states."""
        (listed,) = re.findall(r'<ul class="active">(.*?)</ul>', section)
        lines = re.findall(r'<li id="[^"]+"><span class="chart-name">([^<]*)</span>: (.*?)</li>',
                           listed)
        return {chart: re.findall(r"<code>([^<]*)</code>", states) for chart, states in lines}

    setup, opened = words(sections[0]), words(sections[1])
    # every chart, in the order the pictures are shown, named as the page captions them
    assert list(setup) == ["battlefield A", "battlefield B", "focus", "priority", "scheduler",
                           "turn"]
    # the innermost states, named by the state ids the chart shows, within their regions
    assert setup["battlefield A"] == [
        "control.uncontrolled", "contest_status.uncontested", "contest.neutral",
        "showdown_staging.showdown_unstaged", "combat_staging.combat_unstaged", "chain.open"]
    assert "contest.showdown.non_combat" in opened["battlefield A"]
    assert "contest_status.contested" in opened["battlefield A"]
    assert setup["focus"] == ["nobody"] and opened["focus"] == ["holding"]
    # the transitions taken name their charts as the active states and pictures do
    (taken,) = re.findall(r'<h3>Transitions taken</h3>\s*<ol class="taken">(.*?)</ol>',
                          sections[1], re.DOTALL)
    charts = re.findall(r'<li><span class="chart-name">([^<]*)</span>: ', taken)
    assert charts and set(charts) <= set(setup) and "battlefield A" in charts
    # every picture can be focused and is described by its chart's line
    for section in sections:
        figures = re.findall(r'<figure class="chart[^>]*>', section)
        assert len(figures) == 6
        for figure in figures:
            assert 'tabindex="0"' in figure
            (described,) = re.findall(r'aria-describedby="([^"]*)"', figure)
            first, hint = described.split()
            assert f'<li id="{first}">' in section and hint == "zoom-hint"
    assert page.count('id="zoom-hint"') == 1
    # a state value that the step changed is said to have changed, besides its colour
    changed = re.findall(r'<tr class="changed"><th>([^<]*) <span class="mark">\(changed\)',
                         sections[1])
    assert "focus" in changed and len(changed) == sections[1].count('<tr class="changed">')
    assert "(changed)" not in sections[0]
    ids = re.findall(r' id="([^"]+)"', page)
    assert len(ids) == len(set(ids))  # ids are unique in the page


def test_only_the_transition_taken_is_lit_not_its_look_alikes(tmp_path: Path) -> None:
    """The scheduler's open_contest has two transitions with the same source, target and rule
    (a Showdown or a Combat qualifies): opening a Showdown lights the first only."""
    result = _run(_scenario(tmp_path, "s", "Showdown"))
    (scheduler,) = [lit for lit in stepthrough.lit_charts(result.steps[1])
                    if lit.key == "scheduler"]
    assert [t.guard_text() for t in scheduler.taken_in_order] == [
        "neutral_open and one_showdown_qualifies"]
    page = (tmp_path / "out").joinpath("s.html")
    stepthrough.write_lit_run(result, tmp_path / "out")
    assert "[else if neutral_open and one_showdown_qualifies]" in page.read_text(encoding="utf-8")


def test_scenarios_with_the_same_name_get_a_page_each(tmp_path: Path) -> None:
    from engine import runner

    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir(), two.mkdir()
    paths = [_scenario(one, "s", "First"), _scenario(two, "s", "Second")]
    out, err = io.StringIO(), io.StringIO()
    assert runner.run_files(paths, out, err, diagrams_dir=tmp_path / "lit") == OK
    pages = sorted(p.name for p in (tmp_path / "lit").glob("*.html"))
    assert pages == ["s-2.html", "s.html"]
    assert "Second" in (tmp_path / "lit" / "s-2.html").read_text(encoding="utf-8")


def test_a_page_that_cannot_be_written_is_one_line_after_the_trace(tmp_path: Path) -> None:
    from engine import runner

    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    out, err = io.StringIO(), io.StringIO()
    code = runner.run_files([_scenario(tmp_path, "s", "Showdown")], out, err,
                            diagrams_dir=blocker)
    assert code == 2 and "PASS" in out.getvalue()
    assert err.getvalue() == f"riftchart run: cannot write diagrams to {blocker}: it is a file, " \
        "not a folder\n"


def _tree(folder: Path) -> dict[str, bytes | None]:
    """Every file (with its bytes) and folder (None) under ``folder``."""
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None)
            for p in sorted(folder.rglob("*"))}


@pytest.mark.parametrize(
    ("clash", "made", "why"),
    [
        # the folder of the step charts is a file
        ("o/s", "file", "it is a file, not a folder"),
        # the page is a folder
        ("o/s.html", "folder", "it is a folder, not a file"),
        # one step chart is a folder, among older step charts that are files
        ("o/s/step-001-focus.svg", "folder", "it is a folder, not a file"),
    ],
)
def test_an_error_names_the_path_in_the_way_and_writes_nothing(
    tmp_path: Path, clash: str, made: str, why: str
) -> None:
    from engine import runner

    path = _scenario(tmp_path, "s", "Showdown")
    out_dir = tmp_path / "o"
    out_dir.mkdir()
    (out_dir / "mine.txt").write_text("the user's", encoding="utf-8")
    if clash.startswith("o/s/"):
        (out_dir / "s").mkdir()
        (out_dir / "s" / "step-000-focus.svg").write_text("an older run", encoding="utf-8")
    blocker = tmp_path / clash
    if made == "file":
        blocker.write_text("in the way", encoding="utf-8")
    else:
        blocker.mkdir()
    before = _tree(out_dir)

    out, err = io.StringIO(), io.StringIO()
    assert runner.run_files([path], out, err, diagrams_dir=out_dir) == 2
    assert err.getvalue() == f"riftchart run: cannot write diagrams to {blocker}: {why}\n"
    assert "PASS" in out.getvalue()
    assert _tree(out_dir) == before  # no half-written page, nothing of the user's touched


def test_without_graphviz_no_folder_is_left_behind(tmp_path: Path) -> None:
    path = _scenario(tmp_path, "s", "Showdown")
    there = tmp_path / "there"
    there.mkdir()
    for out_dir, left in ((tmp_path / "new" / "deeper", tmp_path / "new"), (there, there)):
        done = subprocess.run(
            [sys.executable, "-m", "engine.cli", "run", str(path), "--diagrams", str(out_dir)],
            capture_output=True, text=True, timeout=120,
            env={**os.environ, "PATH": str(tmp_path / "no-dot-here")},
        )
        assert done.returncode == 2 and "PASS" in done.stdout
        assert done.stderr == ("riftchart run: --diagrams needs Graphviz's `dot`: "
                               "install graphviz\n")
        # a folder the user made stays; one that the run would have made is not made
        assert left.exists() == (left == there)
        assert not any(there.iterdir())


def _disk_full_at(monkeypatch: pytest.MonkeyPatch, name: str,
                  stop: type[BaseException] = OSError) -> None:
    """Make the write of the file called ``name`` stop halfway: a tenth of it written, then
    the disk is full (an ``OSError`` that, like a real ENOSPC from a write, names no file),
    or ``stop`` (``KeyboardInterrupt`` for Ctrl-C)."""
    write_text = writable.write_text

    def stopping(path: Path, text: str) -> None:
        # the file itself, or the temporary file it is written to first
        if path.name == name or path.name.startswith(f".{name}."):
            path.write_text(text[: len(text) // 10], encoding="utf-8")
            if stop is OSError:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            raise stop()
        write_text(path, text)

    monkeypatch.setattr(writable, "write_text", stopping)


def test_a_write_that_fails_halfway_takes_back_only_what_it_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = _run(_scenario(tmp_path, "s", "Showdown"))
    mine = tmp_path / "o" / "s" / "notes.txt"
    mine.parent.mkdir(parents=True)
    mine.write_text("mine", encoding="utf-8")
    _disk_full_at(monkeypatch, "s.html")
    with pytest.raises(OSError) as raised:
        stepthrough.write_lit_run(result, tmp_path / "o")
    assert raised.value.filename == str(tmp_path / "o" / "s.html")
    assert raised.value.errno == errno.ENOSPC
    assert _tree(tmp_path / "o") == {"s": None, "s/notes.txt": b"mine"}

    # in a folder that was not there, nothing at all is left
    with pytest.raises(OSError):
        stepthrough.write_lit_run(result, tmp_path / "new" / "o")
    assert not (tmp_path / "new").exists()


def _earlier_page(tmp_path: Path, out_dir: Path) -> RunResult:
    """A good page ``out_dir/s.html`` from an earlier run, its pictures told apart from what
    the next run draws (as another Graphviz would draw them), and a stale picture of a longer
    run; returns the next run, of another scenario under the same name."""
    stepthrough.write_lit_run(_run(_scenario(tmp_path, "s", "Earlier")), out_dir)
    for svg in (out_dir / "s").glob("*.svg"):
        svg.write_bytes(svg.read_bytes() + b"<!-- an earlier drawing -->\n")
    (out_dir / "s" / "step-999-focus.svg").write_text("a longer run's", encoding="utf-8")
    return _run(_scenario(tmp_path, "s", "Later"))


@pytest.mark.parametrize("failing", ["step-002-focus.svg", "s.html"])
def test_a_failed_write_over_an_earlier_page_leaves_it_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    from engine import runner

    out_dir = tmp_path / "o"
    later = _earlier_page(tmp_path, out_dir)
    before = _tree(out_dir)
    assert b"Earlier" in before["s.html"]
    _disk_full_at(monkeypatch, failing)

    out, err = io.StringIO(), io.StringIO()
    assert runner.run_files([later.path], out, err, diagrams_dir=out_dir) == 2
    # the file that could not be written, not the folder, and not a temporary name
    where = out_dir / failing if failing == "s.html" else out_dir / "s" / failing
    assert err.getvalue() == (f"riftchart run: cannot write diagrams to {where}: "
                              "No space left on device\n")
    # the earlier page and every picture byte for byte, the stale one too; no temporary file
    assert _tree(out_dir) == before


def test_ctrl_c_while_writing_leaves_an_earlier_page_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out_dir = tmp_path / "o"
    later = _earlier_page(tmp_path, out_dir)
    before = _tree(out_dir)
    _disk_full_at(monkeypatch, "step-003-turn.svg", KeyboardInterrupt)
    with pytest.raises(KeyboardInterrupt):
        stepthrough.write_lit_run(later, out_dir)
    assert _tree(out_dir) == before


def test_a_later_run_replaces_the_earlier_page_whole(tmp_path: Path) -> None:
    out_dir = tmp_path / "o"
    later = _earlier_page(tmp_path, out_dir)
    stepthrough.write_lit_run(later, tmp_path / "fresh")
    stepthrough.write_lit_run(later, out_dir)
    # the same bytes as a page written where there was none, and no temporary file left
    assert _tree(out_dir) == _tree(tmp_path / "fresh")


@pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX's")
def test_a_replaced_file_keeps_its_mode(tmp_path: Path) -> None:
    result = _run(_scenario(tmp_path, "s", "Showdown"))
    out_dir = tmp_path / "o"
    stepthrough.write_lit_run(result, out_dir)
    page, picture = out_dir / "s.html", out_dir / "s" / "step-001-focus.svg"
    page.chmod(0o640)
    picture.chmod(0o604)
    other = out_dir / "s" / "step-000-focus.svg"
    new_mode = stat.S_IMODE(other.stat().st_mode)  # what a plain write of a new file gets
    other.unlink()

    stepthrough.write_lit_run(result, out_dir)
    assert stat.S_IMODE(page.stat().st_mode) == 0o640
    assert stat.S_IMODE(picture.stat().st_mode) == 0o604
    assert stat.S_IMODE(other.stat().st_mode) == new_mode


def test_a_page_that_is_a_link_is_written_through(tmp_path: Path) -> None:
    result = _run(_scenario(tmp_path, "s", "Showdown"))
    stepthrough.write_lit_run(result, tmp_path / "fresh")
    elsewhere = tmp_path / "site" / "showdown.html"
    elsewhere.parent.mkdir()
    elsewhere.write_text("an earlier page", encoding="utf-8")
    out_dir = tmp_path / "o"
    out_dir.mkdir()
    (out_dir / "s.html").symlink_to(elsewhere)

    stepthrough.write_lit_run(result, out_dir)
    assert (out_dir / "s.html").is_symlink()
    assert (out_dir / "s.html").readlink() == elsewhere
    assert elsewhere.read_bytes() == (tmp_path / "fresh" / "s.html").read_bytes()
    assert sorted(p.name for p in out_dir.iterdir()) == ["s", "s.html"]  # nothing ours left


def test_a_page_not_named_after_its_file_says_whose_it_is(tmp_path: Path) -> None:
    for folder in ("a", "b", "c"):
        (tmp_path / folder).mkdir()
    paths = [_scenario(tmp_path / "a", "same", "First"),
             _scenario(tmp_path / "b", "same", "Second"),
             _scenario(tmp_path / "c", "same-2", "Third")]
    args = [sys.executable, "-m", "engine.cli", "run", *(str(p.relative_to(tmp_path))
                                                          for p in paths)]
    plain = subprocess.run(args, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    done = subprocess.run([*args, "--diagrams", "o"], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)
    assert done.returncode == 0
    assert done.stdout == plain.stdout  # stdout is the contract's: nothing added there
    assert done.stderr == (
        "riftchart run: b/same.yaml: its page is o/same-2.html\n"
        "riftchart run: c/same-2.yaml: its page is o/same-2-2.html\n"
    )
    pages = {p.name: p.read_text(encoding="utf-8") for p in (tmp_path / "o").glob("*.html")}
    assert sorted(pages) == ["same-2-2.html", "same-2.html", "same.html"]
    assert "<h1>Second</h1>" in pages["same-2.html"]
    assert "<h1>Third</h1>" in pages["same-2-2.html"]


def test_page_names_differ_where_a_file_system_would_take_them_for_one() -> None:
    from engine import runner

    taken: set[str] = set()
    names = [runner._page_name(stem, taken) for stem in ("Same", "same", "x", "x.html")]
    # ``Same`` and ``same`` are one file on macOS and Windows; ``x.html/``, the folder of the
    # charts of x.html.yaml, would be the page of x.yaml
    assert names == ["Same", "same-2", "x", "x.html-2"]
    # on macOS "Ä" is one file whether written as one code point or as A and a combining mark
    composed, decomposed = "\u00c4", "A\u0308"
    taken = set()
    assert [runner._page_name(stem, taken) for stem in (composed, decomposed, "\u00e4")] == [
        composed, f"{decomposed}-2", "\u00e4-3"]  # ä-2 is Ä-2 but for case


def test_file_names_of_odd_battlefield_ids_stay_in_their_folder() -> None:
    assert stepthrough.file_key("battlefield:A") == "battlefield-A"
    assert stepthrough.file_key("focus") == "focus"
    odd = stepthrough.file_key("battlefield:../x/<y>~")
    assert "/" not in odd and ".." not in odd and "<" not in odd
    assert stepthrough.file_key("battlefield:a~2F") != stepthrough.file_key("battlefield:a/")


def test_battlefield_ids_that_differ_only_in_case_get_pictures_of_their_own(
        tmp_path: Path) -> None:
    """``A`` and ``a`` would be one file on macOS and Windows: the later is written encoded."""
    assert stepthrough.file_keys(["battlefield:A", "battlefield:a", "battlefield:b", "focus"]) \
        == {"battlefield:A": "battlefield-A", "battlefield:a": "battlefield-~61",
            "battlefield:b": "battlefield-b", "focus": "focus"}
    path = tmp_path / "cases.yaml"
    path.write_text(
        "name: cases\nplayers: [P1, P2]\nbattlefields: [{id: A}, {id: a}]\n"
        "units: [{id: U1, controller: P1, might: 1, at: base}]\n"
        "steps:\n  - move: {player: P1, units: [U1], to: a}\n", encoding="utf-8")
    written = stepthrough.write_lit_run(_run(path), tmp_path / "out")
    step_one = sorted(p.name for p in written if p.name.startswith("step-001-battlefield"))
    assert step_one == ["step-001-battlefield-A.svg", "step-001-battlefield-~61.svg"]
    assert len({p.name.casefold() for p in written}) == len(written)


def test_a_long_battlefield_id_gets_a_picture_whose_name_a_file_system_takes(
        tmp_path: Path) -> None:
    """60 times é is 360 characters encoded, past the 255 bytes of a file name: such a name is
    cut to its first 100 characters, ``~~`` and a hash of the id, one for each id."""
    long_ids = ["é" * 60, "é" * 59 + "e"]
    names = stepthrough.file_keys([f"battlefield:{i}" for i in long_ids])
    assert [len(n) for n in names.values()] == [118, 118]
    assert len(set(names.values())) == 2
    assert all(n.startswith("battlefield-~C3~A9") and "~~" in n for n in names.values())
    path = tmp_path / "long.yaml"
    path.write_text(
        f"name: long\nplayers: [P1, P2]\nbattlefields: [{{id: {long_ids[0]}}}]\n"
        "units: [{id: U1, controller: P1, might: 1, at: base}]\n", encoding="utf-8")
    written = stepthrough.write_lit_run(_run(path), tmp_path / "out")
    assert [p.name for p in written if "battlefield" in p.name] == [
        f"step-000-{names['battlefield:' + long_ids[0]]}.svg"]


# --- escaping -----------------------------------------------------------------------------


def test_scenario_text_is_escaped_everywhere(tmp_path: Path) -> None:
    # the scenario, the battlefield, the unit and the card are all named SCRIPT, and the
    # battlefield's id is markup too (ids may hold anything but ':')
    path = _scenario(tmp_path, "evil", SCRIPT, bf="<b>A</b>")
    result = _run(path)
    out = tmp_path / "out"
    written = stepthrough.write_lit_run(result, out)

    page = (out / "evil.html").read_text(encoding="utf-8")
    assert SCRIPT not in page
    assert "<b>A</b>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;b&gt;A&lt;/b&gt;" in page
    # the page's own script is the only one
    assert page.count("<script") == 1
    # every file stays inside the output folder, whatever the battlefield id
    assert all(p.resolve().is_relative_to(out.resolve()) for p in written)
    # the charts are drawn from the chart definitions only: no scenario text in any SVG
    for svg in (out / "evil").glob("*.svg"):
        text = svg.read_text(encoding="utf-8")
        assert "alert" not in text and "<b>" not in text, svg.name


def test_inline_svg_refuses_script() -> None:
    with pytest.raises(ValueError):
        stepthrough.inline_svg('<svg><script>alert(1)</script></svg>')


# --- the page in a real browser -----------------------------------------------------------

CHROMIUM = "/usr/bin/chromium"
TIMEOUT = 30.0  # seconds, for every single wait on the browser


def _chromium() -> str:
    found = shutil.which("chromium") or (CHROMIUM if Path(CHROMIUM).exists() else None)
    if not found:
        pytest.fail(
            "chromium is not installed: the step-through page's browser test needs it; "
            "run ./setup.sh (or apt-get install -y chromium)"
        )
    return found


class Browser:
    """Just enough of the Chrome DevTools protocol: one page, commands and events."""

    def __init__(self, ws_url: str):
        try:
            import websocket  # websocket-client, in the project's test extras
        except ImportError:  # pragma: no cover - depends on the machine
            pytest.fail("websocket-client is missing: pip install -e '.[test]'")
        # no Origin header: Chromium refuses DevTools connections from an unlisted origin
        self._ws = websocket.create_connection(ws_url, timeout=TIMEOUT, suppress_origin=True)
        self._timeouts = (TimeoutError, websocket.WebSocketTimeoutException)
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        self.session: str | None = None

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if self.session:
            message["sessionId"] = self.session
        self._ws.send(json.dumps(message))
        deadline = time.monotonic() + TIMEOUT
        while True:
            reply = self._receive(deadline, f"an answer to {method}")
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise AssertionError(f"{method} failed: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method: str) -> dict[str, Any]:
        deadline = time.monotonic() + TIMEOUT
        while True:
            for event in self.events:
                if event.get("method") == method:
                    self.events.remove(event)
                    return event
            self.events.append(self._receive(deadline, method))

    def _receive(self, deadline: float, waiting_for: str) -> dict[str, Any]:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise AssertionError(f"no {waiting_for} from Chromium within {TIMEOUT} s")
        self._ws.settimeout(remaining)
        try:
            message = json.loads(self._ws.recv())
        except self._timeouts:
            raise AssertionError(f"no {waiting_for} from Chromium within {TIMEOUT} s") from None
        if message.get("method") == "Page.javascriptDialogOpening":
            # an alert() blocks the page; only text from a scenario could have opened one
            raise AssertionError(f"the page opened a dialog, so scenario text ran: {message}")
        return message

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise AssertionError(f"{expression!r} threw {result['exceptionDetails']}")
        return result["result"].get("value")

    def press(self, key: str, code: int, dom_code: str | None = None) -> None:
        for kind in ("rawKeyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", type=kind, key=key, code=dom_code or key,
                      windowsVirtualKeyCode=code, nativeVirtualKeyCode=code)

    def close(self) -> None:
        self._ws.close()


@pytest.fixture
def browser() -> Iterator[Browser]:
    executable = _chromium()
    profile = tempfile.mkdtemp(prefix="riftchart-chromium-")
    process = subprocess.Popen(
        [executable, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--remote-debugging-port=0", f"--user-data-dir={profile}",
         "about:blank"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        text=True, errors="replace",
    )
    # read stderr on a thread: a bounded wait for the DevTools address, and a pipe that is
    # always drained, so Chromium never blocks on a full one
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in process.stderr],
                     daemon=True).start()
    client = None
    try:
        deadline = time.monotonic() + TIMEOUT
        ws_url, seen = None, []
        while ws_url is None and time.monotonic() < deadline:
            try:
                line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                break
            seen.append(line)
            match = re.search(r"DevTools listening on (ws://\S+)", line)
            ws_url = match[1] if match else None
        if ws_url is None:
            pytest.fail("Chromium did not print its DevTools address:\n" + "".join(seen[-20:]))
        client = Browser(ws_url)
        target = client.call("Target.createTarget", url="about:blank")["targetId"]
        client.session = client.call("Target.attachToTarget", targetId=target,
                                     flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            client.call(f"{domain}.enable")
        yield client
    finally:
        if client is not None:
            client.close()
        process.kill()
        process.wait(timeout=TIMEOUT)
        shutil.rmtree(profile, ignore_errors=True)


def _open(browser: Browser, tmp_path: Path, stem: str, name: str, bf: str = "A") -> RunResult:
    """The page of the Showdown scenario named ``name``, written and opened in the browser."""
    result = _run(_scenario(tmp_path, stem, name, bf=bf))
    stepthrough.write_lit_run(result, tmp_path / "out")
    browser.call("Page.navigate", url=(tmp_path / "out" / f"{stem}.html").resolve().as_uri())
    browser.wait_for("Page.loadEventFired")
    return result


_SHOWN = """(() => {
  const section = document.querySelector("main > section.step:not([hidden])");
  const figure = section.querySelector('figure.chart[data-chart^="battlefield:"]');
  return {
    label: document.getElementById("step-label").textContent,
    step: section.getAttribute("data-step"),
    shown: document.querySelectorAll("main > section.step:not([hidden])").length,
    active: figure.getAttribute("data-active").split(" "),
    drawn: figure.querySelectorAll("svg").length,
    litFill: figure.innerHTML.includes('fill="LIT_FILL"'),
    title: document.title,
    text: document.body.innerText,
  };
})()""".replace("LIT_FILL", ACTIVE_FILL)


def test_the_page_steps_in_a_browser_and_runs_nothing_from_the_scenario(
    tmp_path: Path, browser: Browser
) -> None:
    name = TITLE_SCRIPT + TITLE_IMG + SCRIPT
    result = _open(browser, tmp_path, "evil", name, bf=TITLE_IMG)
    last = result.steps[-1].index

    first = browser.evaluate(_SHOWN)
    assert first["label"] == f"Step 0 of {last}"
    assert (first["step"], first["shown"], first["drawn"]) == ("0", 1, 1)
    assert first["litFill"]
    assert "uncontested" in first["active"] and "showdown" not in first["active"]
    # the scenario's markup shows as text, in the heading and in the state view
    assert name in first["text"] and TITLE_IMG in first["text"]

    browser.press("ArrowRight", 39)
    second = browser.evaluate(_SHOWN)
    assert second["label"] == f"Step 1 of {last}"
    assert (second["step"], second["shown"], second["drawn"]) == ("1", 1, 1)
    assert "showdown" in second["active"] and "contested" in second["active"]
    assert second["active"] != first["active"]

    browser.evaluate('document.getElementById("next").click()')
    assert browser.evaluate(_SHOWN)["label"] == f"Step 2 of {last}"
    browser.press("ArrowLeft", 37)
    browser.press("ArrowLeft", 37)
    back = browser.evaluate(_SHOWN)
    assert back["label"] == f"Step 0 of {last}" and back["active"] == first["active"]
    browser.evaluate('document.getElementById("prev").click()')  # stays at the setup
    assert browser.evaluate(_SHOWN)["label"] == f"Step 0 of {last}"

    # nothing from the scenario ran: no title change, no dialog, no blocked script, no error
    assert browser.evaluate("document.title") != "pwned"
    browser.evaluate("new Promise(r => setTimeout(r, 200))")  # give a stray onerror its time
    assert browser.evaluate("document.title") != "pwned"
    methods = [event.get("method") for event in browser.events]
    assert "Page.javascriptDialogOpening" not in methods
    assert "Runtime.exceptionThrown" not in methods
    problems = [
        event["params"]["entry"]["text"]
        for event in browser.events
        if event.get("method") == "Log.entryAdded"
        and event["params"]["entry"]["level"] in ("error", "warning")
    ]
    assert problems == []


_FOCUSED = """(() => {
  const figure = document.activeElement;
  const style = getComputedStyle(figure);
  return {
    chart: figure.matches("figure.chart") ? figure.getAttribute("data-chart") : null,
    step: figure.closest("section.step") && figure.closest("section.step").dataset.step,
    zoomed: figure.classList.contains("zoomed"),
    outline: style.outlineStyle + " " + style.outlineWidth,
    scrollY: window.scrollY,
  };
})()"""


def test_the_charts_are_reached_and_zoomed_with_the_keyboard(
    tmp_path: Path, browser: Browser
) -> None:
    result = _open(browser, tmp_path, "showdown", "Showdown at A")

    # Tab goes through the buttons to the first chart: no mouse needed
    for _ in range(len(result.steps) + 5):
        browser.press("Tab", 9)
        focused = browser.evaluate(_FOCUSED)
        if focused["chart"]:
            break
    assert (focused["chart"], focused["step"]) == ("battlefield:A", "0")
    # where the keyboard is shows
    assert focused["outline"] == "solid 3px" and not focused["zoomed"]

    browser.press("Enter", 13)
    assert browser.evaluate(_FOCUSED)["zoomed"]
    browser.press(" ", 32, "Space")
    unzoomed = browser.evaluate(_FOCUSED)
    assert not unzoomed["zoomed"]
    assert unzoomed["scrollY"] == focused["scrollY"]  # Space zoomed, it did not scroll

    # stepping on keeps the keyboard on the same chart, now the next step's
    browser.press("ArrowRight", 39)
    moved = browser.evaluate(_FOCUSED)
    assert (moved["chart"], moved["step"]) == ("battlefield:A", "1")

    # the lit states are in the text too, in words
    text = browser.evaluate(
        'document.querySelector("main > section.step:not([hidden]) .text").innerText')
    assert "Active states" in text
    assert "battlefield A: control.uncontrolled, contest_status.contested, " \
        "contest.showdown.non_combat" in text
    assert "focus: holding" in text
    methods = [event.get("method") for event in browser.events]
    assert "Runtime.exceptionThrown" not in methods



def test_a_taken_transition_is_named_as_the_pictures_label_it(tmp_path: Path) -> None:
    """data-taken holds the labels the pictures show: passing Focus on is the second of the
    state's two pass_focus transitions, [else] to the first (everyone else has passed)."""
    result = _run(_scenario(tmp_path, "s", "Showdown"))
    page = stepthrough.render_page(result)
    taken = re.findall(r'data-chart="focus" data-active="[^"]*" data-taken="([^"]*)"', page)
    assert taken[3] == "pass_focus [else] (CR 347)"  # step 3: P1 passes Focus to P2
    assert taken[4] == "pass_focus [everyone_else_has_passed] (CR 348)"
    # and so does the list of transitions taken, in the step's text
    step_3 = _sections(page)[3]
    assert "holding \u2192 holding on <code>pass_focus</code> [else] " in step_3


_LAYOUT = """(() => {
  const shown = [...document.querySelectorAll("main > section.step")]
    .filter(s => getComputedStyle(s).display !== "none");
  return {
    shown: shown.length,
    controls: getComputedStyle(document.getElementById("controls")).display,
    nav: getComputedStyle(document.querySelector("nav")).display,
    navTop: getComputedStyle(document.querySelector("nav")).top,
    header: document.querySelector("header").offsetHeight + "px",
    label: document.getElementById("step-label").textContent,
    text: document.body.innerText,
  };
})()"""


def test_without_script_every_step_reads_one_after_another(
    tmp_path: Path, browser: Browser
) -> None:
    browser.call("Emulation.setScriptExecutionDisabled", value=True)
    # a file name that a link must quote: a space, '#', '?' and '%'
    stem = "show down #1?%"
    result = _open(browser, tmp_path, stem, "Showdown at A")
    layout = browser.evaluate(_LAYOUT)
    assert layout["shown"] == len(result.steps)
    # no button that would do nothing, and the page says how to read it
    assert (layout["controls"], layout["nav"]) == ("none", "none")
    # no empty picture frames: only the setup's pictures are in the page itself
    empty = browser.evaluate('[...document.querySelectorAll("figure.chart")].filter(f => '
                             'getComputedStyle(f).display !== "none" && !f.querySelector("svg"))'
                             '.length')
    assert empty == 0
    assert "Without script the steps follow one another" in layout["text"]
    assert "P2 passes Focus; every player has passed in a row (CR 348)" in layout["text"]
    # each later step links its pictures, which only the script would draw: the files written
    links = browser.evaluate('[...document.querySelectorAll("section.step")].map(s => '
                             '[...s.querySelectorAll("p.pictures a")].map(a => a.href))')
    assert links[0] == []  # the setup's pictures are in the page
    written = sorted(p.as_uri() for p in (tmp_path / "out" / stem).glob("*.svg"))
    later = [link for step in links[1:] for link in step]
    assert sorted(later) == [uri for uri in written if "step-000-" not in uri]
    assert all(len(step) == len(links[1]) > 0 for step in links[1:])


def test_the_steps_list_sits_below_a_tall_header_and_arrows_scroll_a_zoomed_chart(
    tmp_path: Path, browser: Browser
) -> None:
    _open(browser, tmp_path, "long", "A long name, " * 30)
    layout = browser.evaluate(_LAYOUT)
    assert layout["shown"] == 1 and layout["nav"] != "none"
    assert layout["navTop"] == layout["header"]  # the sticky list is not under the header

    # a zoomed chart wider than its frame: the arrow keys scroll it and do not step
    browser.evaluate('document.querySelector("main > section.step:not([hidden]) '
                     'figure.chart[data-chart^=battlefield]").focus()')
    browser.press("Enter", 13)
    assert browser.evaluate("document.activeElement.scrollWidth > "
                            "document.activeElement.clientWidth")
    browser.press("ArrowRight", 39)
    assert browser.evaluate(_LAYOUT)["label"] == layout["label"]
    browser.press("Enter", 13)  # unzoomed, the arrows step again
    browser.press("ArrowRight", 39)
    assert browser.evaluate(_LAYOUT)["label"] != layout["label"]


_ZOOM = """(() => {
  const figure = document.querySelector(
    'main > section.step:not([hidden]) figure.chart[data-chart="battlefield:A"]');
  return {
    step: figure.closest("section.step").dataset.step,
    zoomed: figure.classList.contains("zoomed"),
    left: figure.scrollLeft,
    focused: document.activeElement === figure,
  };
})()"""


def test_a_zoomed_chart_stays_zoomed_and_n_and_p_step_from_it(
    tmp_path: Path, browser: Browser
) -> None:
    """Following one corner of a large chart: zoomed and scrolled at one step, the same chart
    is zoomed and scrolled there at the next; N and P step while the arrows scroll it."""
    _open(browser, tmp_path, "showdown", "Showdown at A")
    browser.evaluate('document.querySelector("main > section.step:not([hidden]) '
                     'figure.chart[data-chart=\\"battlefield:A\\"]").focus()')
    browser.press("Enter", 13)
    browser.evaluate('document.activeElement.scrollLeft = 120')
    before = browser.evaluate(_ZOOM)
    assert before["zoomed"] and before["left"] == 120 and before["step"] == "0"
    browser.press("n", 78, "KeyN")
    after = browser.evaluate(_ZOOM)
    assert after == {"step": "1", "zoomed": True, "left": 120, "focused": True}
    browser.press("ArrowRight", 39)  # scrolls the zoomed chart, does not step
    assert browser.evaluate(_ZOOM)["step"] == "1"
    browser.press("p", 80, "KeyP")
    assert browser.evaluate(_ZOOM)["step"] == "0"
    browser.press("Enter", 13)  # unzoomed here, unzoomed in the next step too
    browser.press("n", 78, "KeyN")
    assert not browser.evaluate(_ZOOM)["zoomed"]


def test_the_steps_list_is_one_tab_stop_and_the_keyboard_is_never_dropped(
    tmp_path: Path, browser: Browser
) -> None:
    result = _open(browser, tmp_path, "showdown", "Showdown at A")
    stops = 'document.querySelectorAll("#steps-nav button[tabindex=\\"0\\"]").length'
    assert browser.evaluate(stops) == 1
    # the list's current step takes the keyboard; Down and Up step through the list
    browser.evaluate('document.querySelector("#steps-nav button[tabindex=\\"0\\"]").focus()')
    browser.press("ArrowDown", 40)
    browser.press("ArrowDown", 40)
    assert browser.evaluate("document.activeElement.getAttribute('data-goto')") == "2"
    assert browser.evaluate(stops) == 1
    # a step cut short in the list is whole in its title
    assert browser.evaluate("document.activeElement.title") == describe(result.steps[2].do)
    # "next" disabled at the last step hands the keyboard to "previous"
    browser.evaluate('document.getElementById("next").focus()')
    for _ in range(len(result.steps)):
        browser.evaluate('document.getElementById("next").click()')
    assert browser.evaluate("document.getElementById('next').disabled")
    assert browser.evaluate("document.activeElement.id") == "prev"
    # the drawings are not read out; the words beside them are
    hidden = browser.evaluate('[...document.querySelectorAll("figure.chart svg")]'
                              '.map(svg => svg.getAttribute("aria-hidden"))')
    assert hidden and set(hidden) == {"true"}
    assert "active state" in browser.evaluate('document.querySelector(".legend").innerText')
