"""`riftchart compare`: one scenario under both rules profiles, and where their traces part.

Layout. Each line is a mark (``*`` where the profiles part), the seed profile's column, ``|``
and the cr-1.4 profile's column; a column is ``width`` characters, 20 to 1000 (``--width``).
Without ``--width`` the two columns share the terminal's width, as
``shutil.get_terminal_size`` gives it: ``COLUMNS`` if it is set, else the terminal of stdout,
else 80 columns. So output to a pipe or a file, with ``COLUMNS`` unset, is always 80
characters wide (two 37-character columns): the same everywhere, whatever terminal started it.
A terminal narrower than two 20-character columns still gets them; a huge one gets at most
1000-character columns.

Values in the state are shown in JSON's notation (``{"A": null}``), as `riftchart run` shows
them; of ``units``, only the units that differ, one by one (``units.U1``).

Steps. Before the parting step, runs of steps on which the profiles agree are one line
(``steps 1-7: identical``); a step refused under both profiles is still shown, with the
reason, since the refusal is part of what the scenario does, and so is an `expect_error` step
that both profiles took (it was legal: the game went on from the state it left). `expect`
steps are not compared: they check the state, and a file's expectations hold for its own
profile only; the output lists them, so the step numbers that are missing are explained. A
run of identical steps neither begins nor ends with one, and names those inside it
(``steps 1-7: identical, but for the expect steps 2, 4, 6 (not compared)``). `expect_error`
steps are compared: their action is tried under both profiles, and one profile may allow it.
"""

from __future__ import annotations

import difflib
import re
import shutil
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import zip_longest
from typing import Any, TextIO

from .errors import ScenarioError
from .runner import INVALID, OK, RunResult, StepRecord, describe, run_scenario, show_value
from .scenario import load_scenario
from .state import PROFILES
from .view import ABSENT
from .wording import one_line

_PROFILE_TAG = re.compile(r" \[profile [^\]]+\]")
_TITLES = "profile seed | profile cr-1.4"  # the columns, named at the end of the header
# a profile tag, a citation or the columns' titles stays on one line, so that a reader (or
# grep) finds it whole, wherever a long name or path makes the line break
_UNBROKEN = re.compile(r"\[profile [^\]]+\]|\((?:CR|S|seed|rules) [^)]+\)|" + re.escape(_TITLES))
_NO_BREAK = "\u00a0"  # textwrap breaks only at ASCII whitespace

MIN_WIDTH, MAX_WIDTH = 20, 1000  # narrower splits most words; wider only costs memory
_GUTTER = len("* ") + len(" | ")  # what a line holds besides its two columns
_NOT_COMPARED = "expect, not compared"
_REFUSED = "refused under both profiles"
_TAKEN = "taken under both profiles: it was not refused"
_CHECK_FAILED = "its expect_error check failed under both profiles"

_Pair = tuple[StepRecord | None, StepRecord | None]  # a step under each profile


@dataclass
class Comparison:
    """One file run under both rules profiles, and where the two runs part."""

    path: str
    name: str
    runs: tuple[RunResult, RunResult]
    first_difference: int | None  # the step index where the traces first part, if they do
    not_compared: tuple[int, ...] = ()  # the `expect` steps, which neither run plays


def _untagged(lines: list[str]) -> list[str]:
    """A trace without its profile tags: the tags alone do not make traces part."""
    return [_PROFILE_TAG.sub("", line) for line in lines]


def compare(path: str) -> Comparison:
    """Run ``path`` under both profiles (expectations ignored) and find where they part."""
    scenario = load_scenario(path)
    seed, cr14 = (run_scenario(scenario, rules=p, keep_going=True) for p in PROFILES)
    runs = (seed, cr14)
    first = None
    for a, b in zip_longest(runs[0].steps, runs[1].steps):
        if a is None or b is None or _untagged(a.lines) != _untagged(b.lines) or a.state != b.state:
            first = (a or b).index
            break
    expects = tuple(step.index for step in scenario.steps if step.kind == "expect")
    return Comparison(scenario.path, scenario.name, runs, first, expects)


# --- width ---------------------------------------------------------------------------------


def column_width(width: int | None = None) -> int:
    """``width`` checked, or, for None, the widest columns that fit the terminal."""
    if width is None:
        columns = shutil.get_terminal_size().columns  # COLUMNS, the terminal, or 80
        return min(max((columns - _GUTTER) // 2, MIN_WIDTH), MAX_WIDTH)
    if isinstance(width, bool) or not isinstance(width, int) or not (
            MIN_WIDTH <= width <= MAX_WIDTH):
        raise ValueError(
            f"a column is {MIN_WIDTH} to {MAX_WIDTH} characters wide, not {width!r}")
    return width


def _wrap(text: str, width: int, indent: str = "") -> list[str]:
    """``text`` in lines of at most ``width``, tags and citations unbroken where they fit."""
    kept = _UNBROKEN.sub(lambda m: m.group().replace(" ", _NO_BREAK), text)
    lines = textwrap.wrap(kept, width, subsequent_indent=indent, break_on_hyphens=False)
    return [line.replace(_NO_BREAK, " ") for line in lines] or [""]


# --- the text ------------------------------------------------------------------------------


def format_comparison(c: Comparison, width: int | None = None) -> str:
    """The comparison as text: columns of ``width`` (None: fit the terminal; see the module)."""
    column = column_width(width)
    line_width = 2 * column + _GUTTER
    left, right = c.runs
    out = _wrap(one_line(f"== {c.name} ({c.path}): {_TITLES}"), line_width, "   ")
    if c.not_compared:
        out += _wrap(
            f"Not compared: the expect steps ({_numbers(c.not_compared)}), since a file's "
            "expectations hold for its own profile only.", line_width, "  ")
    pairs = {(a or b).index: (a, b) for a, b in zip_longest(left.steps, right.steps)}
    end = c.first_difference if c.first_difference is not None else _last_step(c) + 1
    out += _agreeing(c, pairs, end, line_width)
    if c.first_difference is None:
        out.append("The two profiles give the same trace and the same states at every step.")
        return "\n".join(out) + "\n"
    for index in sorted(set(pairs) | set(c.not_compared)):
        if index < c.first_difference:
            continue
        if index in pairs:
            out += _parted_step(*pairs[index], column)
        else:
            out.append(f"step {index}: {_NOT_COMPARED}")
    out.append(f"The profiles part at step {c.first_difference} (lines marked *).")
    return "\n".join(out) + "\n"


def _numbers(indexes: tuple[int, ...]) -> str:
    return ", ".join(str(i) for i in indexes)


def _last_step(c: Comparison) -> int:
    return max([r.index for run in c.runs for r in run.steps] + list(c.not_compared))


def _agreeing(c: Comparison, pairs: dict[int, _Pair], end: int, line_width: int) -> list[str]:
    """Steps 1 to ``end - 1``, on which the profiles agree: each stretch of them one line, but
    each step that did not simply happen as written (see `_note`) shown, with the reason."""
    out: list[str] = []
    for first, last in _stretches(c, pairs, end):
        note = _note(pairs[first][0]) if first in pairs else None
        if note:
            out += _noted_step(pairs[first], note, line_width)
        elif first == last and first in c.not_compared:
            out.append(f"step {first}: {_NOT_COMPARED}")
        else:
            out += _wrap(_identical(first, last, c.not_compared), line_width, "    ")
    return out


def _noted_step(pair: _Pair, note: str, line_width: int) -> list[str]:
    """A step both profiles agree on, with its note and its trace, which gives the reason."""
    a = pair[0]
    assert a is not None, "a noted step is a step of both runs"
    out = _wrap(f"step {a.index}: {describe(a.do)} ({note})", line_width, "    ")
    return out + [f"  {line}" for text in a.lines for line in _wrap(text, line_width - 2)]


def _identical(first: int, last: int, not_compared: tuple[int, ...]) -> str:
    """A run of identical steps; the expect steps inside it are named, since they were not
    compared and the range alone would count them in."""
    if first == last:
        return f"step {first}: identical"
    inside = tuple(i for i in range(first, last + 1) if i in not_compared)
    text = f"steps {first}-{last}: identical"
    if inside:
        noun = "step" if len(inside) == 1 else "steps"
        text += f", but for the expect {noun} {_numbers(inside)} (not compared)"
    return text


def _stretches(c: Comparison, pairs: dict[int, _Pair], end: int) -> Iterator[tuple[int, int]]:
    """(first, last): each step with a note alone, the steps between together, trimmed of the
    expect steps at their ends (see `_trimmed`)."""
    run: list[int] = []
    for index in range(1, end):
        if index in pairs and _note(pairs[index][0]):
            yield from _trimmed(run, c.not_compared)
            run = []
            yield index, index
        else:
            run.append(index)
    yield from _trimmed(run, c.not_compared)


def _trimmed(run: list[int], not_compared: tuple[int, ...]) -> Iterator[tuple[int, int]]:
    """``run`` (consecutive steps) with the expect steps at either end each alone: a range
    such as "steps 3-5: identical" must begin and end with steps that were compared."""
    lo, hi = 0, len(run)
    while lo < hi and run[lo] in not_compared:
        lo += 1
    while hi > lo and run[hi - 1] in not_compared:
        hi -= 1
    yield from ((i, i) for i in run[:lo])
    if lo < hi:
        yield run[lo], run[hi - 1]
    yield from ((i, i) for i in run[hi:])


def _note(record: StepRecord | None) -> str | None:
    """How a step went, if not simply as written: refused (an action, or the action of an
    `expect_error`, which is what it expected), taken (an `expect_error` whose action was
    legal, which changes the game the later steps play on, so it must not pass for an
    identical step), or its `expect_error` check failed."""
    if record is None:
        return None
    if record.outcome == "as written":
        expected_refusal = record.do is not None and next(iter(record.do)) == "expect_error"
        return _REFUSED if expected_refusal else None
    return _NOTES.get(record.outcome)


_NOTES: dict[str, str] = {
    "refused": _REFUSED,
    "not refused": _TAKEN,
    "refusal changed the state": _CHECK_FAILED,
}


def _parted_step(a: StepRecord | None, b: StepRecord | None, column: int) -> list[str]:
    """A step from the parting on: its trace lines side by side, then the state that differs."""
    step = a or b
    assert step is not None, "zip_longest gives a step of one run at least"
    out = _wrap(f"step {step.index}: {describe(step.do)}", 2 * column + _GUTTER, "    ")
    for mark, la, lb in _aligned(a.lines if a else [], b.lines if b else []):
        out += _side_by_side(mark, la, lb, column)
    if a and b and a.state != b.state:
        for la, lb in _state_differences(a.state, b.state):
            out += _side_by_side("*", la, lb, column)
    return out


def _state_differences(left: dict[str, Any], right: dict[str, Any]) -> list[tuple[str, str]]:
    """The keys whose values differ, as ``key: value`` in JSON's notation; units one by one."""
    rows = []
    for key in _keys(left, right):
        if key == "units":
            rows += _state_differences(
                {f"units.{u}": v for u, v in left.get(key, {}).items()},
                {f"units.{u}": v for u, v in right.get(key, {}).items()},
            )
        elif left.get(key, ABSENT) != right.get(key, ABSENT):
            rows.append((_entry(key, left), _entry(key, right)))
    return rows


def _keys(left: dict[str, Any], right: dict[str, Any]) -> list[str]:
    """The keys of both, in the left's order, then the right's own."""
    return list(left) + [key for key in right if key not in left]


def _entry(key: str, state: dict[str, Any]) -> str:
    # runner's notation for values, so that compare shows them as `riftchart run` does
    return f"{key}: {show_value(state[key])}" if key in state else f"{key}: absent"


def _aligned(left: list[str], right: list[str]) -> list[tuple[str, str, str]]:
    """Pairs of lines, matched where the traces agree (profile tags aside); * where they part."""
    rows: list[tuple[str, str, str]] = []
    matcher = difflib.SequenceMatcher(a=_untagged(left), b=_untagged(right), autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            rows += [
                (" ", left[i], right[j]) for i, j in zip(range(i1, i2), range(j1, j2), strict=True)
            ]
        else:
            rows += [
                ("*", la, lb) for la, lb in zip_longest(left[i1:i2], right[j1:j2], fillvalue="")
            ]
    return rows


def _side_by_side(mark: str, left: str, right: str, width: int) -> list[str]:
    lcol = _wrap(left, width)
    rcol = _wrap(right, width)
    return [f"{mark} {a:<{width}} | {b}" for a, b in zip_longest(lcol, rcol, fillvalue="")]


# --- the command ---------------------------------------------------------------------------


def main(path: str, out: TextIO, err: TextIO, width: int | None = None) -> int:
    """`riftchart compare FILE`; ``width`` None fits the terminal. A bad width or file is one
    line on ``err`` and exit code 2."""
    try:
        column = column_width(width)
    except ValueError as error:  # checked before the file is run: it may take a while
        err.write(f"riftchart compare: --width: {error}\n")
        return INVALID
    try:
        comparison = compare(path)
    except ScenarioError as error:
        err.write(f"{error}\n")
        return INVALID
    out.write(format_comparison(comparison, column))
    return OK
