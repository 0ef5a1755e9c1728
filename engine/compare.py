"""`riftchart compare`: one scenario under both rules profiles, and where their traces part."""

from __future__ import annotations

import difflib
import re
import textwrap
from dataclasses import dataclass
from itertools import zip_longest
from typing import TextIO

from .errors import ScenarioError
from .runner import INVALID, OK, RunResult, describe, run_scenario
from .scenario import load_scenario
from .state import PROFILES

_PROFILE_TAG = re.compile(r" \[profile [^\]]+\]")


@dataclass
class Comparison:
    path: str
    name: str
    runs: tuple[RunResult, RunResult]
    first_difference: int | None  # the step index where the traces first part, if they do


def _plain(lines: list[str]) -> list[str]:
    """A trace without its profile tags: the tags alone do not make traces part."""
    return [_PROFILE_TAG.sub("", line) for line in lines]


def compare(path: str) -> Comparison:
    """Run ``path`` under both profiles (expectations ignored) and find where they part."""
    scenario = load_scenario(path)
    runs = tuple(run_scenario(scenario, rules=p, keep_going=True) for p in PROFILES)
    first = None
    for a, b in zip_longest(runs[0].steps, runs[1].steps):
        if a is None or b is None or _plain(a.lines) != _plain(b.lines) or a.state != b.state:
            first = (a or b).index
            break
    return Comparison(str(path), scenario.name, runs, first)


def format_comparison(c: Comparison, width: int = 60) -> str:
    left, right = c.runs
    out = [f"== {c.name} ({c.path}): profile seed | profile cr-1.4"]
    if c.first_difference is None:
        out.append("The two profiles give the same trace and the same states at every step.")
        return "\n".join(out) + "\n"
    same = c.first_difference - 1
    if same >= 1:
        out.append(f"steps 1-{same}: identical")
    for a, b in zip_longest(left.steps, right.steps):
        if (a or b).index < c.first_difference:
            continue
        do = describe((a or b).do)
        out.append(f"step {(a or b).index}: {do}")
        for mark, la, lb in _aligned(a.lines if a else [], b.lines if b else []):
            out += _side_by_side(mark, la, lb, width)
        if a and b and a.state != b.state:
            for key in a.state:
                if a.state[key] != b.state[key]:
                    out += _side_by_side(
                        "*", f"{key}: {a.state[key]}", f"{key}: {b.state[key]}", width
                    )
    out.append(f"The profiles part at step {c.first_difference} (lines marked *).")
    return "\n".join(out) + "\n"


def _aligned(left: list[str], right: list[str]) -> list[tuple[str, str, str]]:
    """Pairs of lines, matched where the traces agree (profile tags aside); * where they part."""
    rows: list[tuple[str, str, str]] = []
    matcher = difflib.SequenceMatcher(a=_plain(left), b=_plain(right), autojunk=False)
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
    lcol = textwrap.wrap(left, width) or [""]
    rcol = textwrap.wrap(right, width) or [""]
    return [f"{mark} {a:<{width}} | {b}" for a, b in zip_longest(lcol, rcol, fillvalue="")]


def main(path: str, out: TextIO, err: TextIO, width: int = 60) -> int:
    try:
        comparison = compare(path)
    except ScenarioError as error:
        err.write(f"{error}\n")
        return INVALID
    out.write(format_comparison(comparison, width))
    return OK
