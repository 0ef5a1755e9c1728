"""Running scenario files: setup, steps, `expect`, `expect_error` (scenario-format.md)."""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TextIO

from . import actions
from .errors import IllegalAction, ScenarioError
from .game import Game
from .runtime import Runtime
from .scenario import STDIN, STDIN_LABEL, Scenario, Step, load_scenario
from .streams import Output, output_lost, writing
from .view import ABSENT, active_states, chart_caption, differences
from .wording import one_line
from .writable import same_file_key

OK, FAILED, INVALID = 0, 1, 2

#: How a step went (:attr:`StepRecord.outcome`):
#: "as written": the setup, an action taken, an `expect` that held, an `expect_error` refused
#: as it expected; "refused": an action the rules refused; "not refused": an `expect_error`
#: whose action was legal (and so was taken); "refusal changed the state": an `expect_error`
#: refused, but the state changed (an engine fault); "expect failed": an `expect` that did not
#: hold.
Outcome = Literal["as written", "refused", "not refused", "refusal changed the state",
                  "expect failed"]


@dataclass
class StepRecord:
    """One step as it ran: what it did, the trace lines, and the state view after it (the
    parts of it a step left as they were are the earlier record's objects: read them, do not
    change them)."""

    index: int
    do: dict[str, Any] | None
    lines: list[str]
    state: dict[str, Any]
    configs: dict[str, frozenset[str]]
    taken: list[Any] = field(default_factory=list)
    outcome: Outcome = "as written"


@dataclass
class RunResult:
    """One scenario file as it ran: its exit code (OK, FAILED or INVALID), the message of its
    failure, and every step's record."""

    path: str
    name: str
    rules: str
    code: int
    message: str = ""
    steps: list[StepRecord] = field(default_factory=list)


StepHook = Callable[[StepRecord], None]


def run_file(
    path: str | os.PathLike,
    *,
    rules: str | None = None,
    runtime: Runtime | None = None,
    on_step: StepHook | None = None,
) -> RunResult:
    """Run one scenario file (``-``: standard input, named ``<stdin>``); never raises for a bad
    file (code 2) or a failed step (code 1)."""
    try:
        scenario = load_scenario(path)
    except ScenarioError as error:
        return _invalid(error, rules)
    return run_scenario(scenario, rules=rules, runtime=runtime, on_step=on_step)


def _invalid(error: ScenarioError, rules: str | None) -> RunResult:
    """The result of a file that is not a valid scenario (exit code 2)."""
    return RunResult(error.file, "", rules or "", INVALID, str(error))


def run_scenario(
    scenario: Scenario,
    *,
    rules: str | None = None,
    runtime: Runtime | None = None,
    on_step: StepHook | None = None,
    keep_going: bool = False,
) -> RunResult:
    """Run a loaded scenario. ``keep_going`` ignores `expect` and runs past refused steps
    (for comparing profiles, whose expectations differ). A path or a dict is a TypeError
    saying what takes it: it is not a loaded scenario."""
    if not isinstance(scenario, Scenario):
        raise TypeError(f"run_scenario takes a Scenario, not {type(scenario).__name__}: "
                        "engine.scenario.load_scenario makes one of a path or a dict, and "
                        "run_file plays a file")
    if rules is not None:
        scenario = scenario.with_rules(rules)
    game = Game.from_scenario(scenario, runtime=runtime)
    taken: list[Any] = []
    game.observe(taken.append)
    result = RunResult(scenario.path, scenario.name, scenario.rules, OK)

    def record(index: int, do: dict[str, Any] | None, lines: list[str],
               outcome: Outcome = "as written") -> None:
        view = game.view()
        if result.steps:
            view = _shared(view, result.steps[-1].state)
        rec = StepRecord(index, do, lines, view, game.configurations, list(taken), outcome)
        taken.clear()
        result.steps.append(rec)
        if on_step:
            on_step(rec)

    record(0, None, [])
    for step in scenario.steps:
        if keep_going and step.kind == "expect":
            continue
        lines, failure, outcome = _run_step(game, step)
        if keep_going and failure:
            lines, failure = lines + [f"refused: {failure}"], None
        record(step.index, step.as_mapping(), lines, outcome)
        if failure:
            where = f"step {step.index}" + (f" (line {step.line})" if step.line else "")
            result.code = FAILED
            result.message = f"{scenario.path}: {where}: {failure}"
            break
    return result


def _shared(view: dict[str, Any], earlier: dict[str, Any]) -> dict[str, Any]:
    """``view`` with each of its parts that equals ``earlier``'s made that very object: a run
    keeps every step's view, and a step changes little of it (10,000 steps of a 1,000-unit
    position took 3 GB when each view was whole)."""
    shared = {}
    for key, value in view.items():
        before = earlier.get(key, ABSENT)
        if value == before:
            shared[key] = before
        elif isinstance(value, dict) and isinstance(before, dict):
            shared[key] = _shared(value, before)
        else:
            shared[key] = value
    return shared


def _run_step(game: Game, step: Step) -> tuple[list[str], str | None, Outcome]:
    """Run a step; returns its trace lines, why it failed (None if it did not), and how it
    went."""
    if step.kind == "expect":
        found = differences(step.args, game.view())
        if found:
            return [], "; ".join(
                f"{path}: expected {show_value(want)}, " + (
                    f"actual: absent (the state has no {path})" if got is ABSENT
                    else f"actual {show_value(got)}")
                for path, want, got in found), "expect failed"
        return [], None, "as written"
    if step.kind == "expect_error":
        inner = step.args
        # a copy compared field by field, not snapshots: a snapshot spells out every card of a
        # hand, and a hand may hold a million unseen cards (None), which a copy shares as is;
        # what a copy shares and a step could change in place is copied in full
        before = game.state.copy()
        nested = copy.deepcopy((before.pending, before.chain, before.queued_triggers))
        try:
            taken = game.apply(actions.from_step(inner.kind, inner.args))
        except IllegalAction as refused:
            s = game.state
            if s != before or (s.pending, s.chain, s.queued_triggers) != nested:
                return [], "the refused step changed the state", "refusal changed the state"
            return [f"refused as expected: {refused}"], None, "as written"
        # taken, it happened: its lines are said, as the state the next views show says it
        return taken, f"expected {inner.kind} to be refused, but it was legal", "not refused"
    try:
        return game.apply(actions.from_step(step.kind, step.args)), None, "as written"
    except IllegalAction as refused:
        return [], f"{step.kind} was refused: {refused}", "refused"


def show_value(value: Any) -> str:
    # JSON's notation, with every character as it is: the trace is text for people
    return json.dumps(value, sort_keys=False, ensure_ascii=False)


# --- printing ------------------------------------------------------------------------------


def describe(do: dict[str, Any] | None) -> str:
    """A step in a few words, for the trace."""
    if do is None:
        return "setup"
    ((kind, body),) = do.items()
    if kind == "expect":
        return "expect " + ", ".join(f"{k}={show_value(v)}" for k, v in body.items())
    if kind == "expect_error":
        return "expect refused: " + describe(body)
    if isinstance(body, str):
        return f"{kind} {body}"
    return f"{kind} " + " ".join(f"{k}={show_value(v)}" for k, v in body.items())


def print_text(result: RunResult, out: TextIO | Output, *, with_states: bool = False) -> None:
    """The trace, step by step; ``with_states`` adds every chart's active states after the
    setup and after each step."""
    # one line, whatever line breaks the name or the path hold
    out.write(one_line(f"== {result.name} ({result.path}) [rules: {result.rules}]") + "\n")
    if with_states and result.steps:
        out.write("setup:\n")
        _print_states(result.steps[0], out)
    for rec in result.steps[1:]:
        out.write(f"step {rec.index}: {describe(rec.do)}\n")
        for line in rec.lines:
            out.write(f"  {one_line(line)}\n")  # an id may hold a line break
        if with_states:
            _print_states(rec, out)
    if result.code == OK:
        out.write(f"PASS {one_line(result.path)}\n")
    else:
        out.write(f"FAIL {one_line(result.message)}\n")


def _print_states(rec: StepRecord, out: TextIO | Output) -> None:
    out.write("  active states:\n")
    for key, names in active_states(rec.configs).items():
        # one line each, whatever line breaks a battlefield's id holds
        out.write(one_line(f"    {chart_caption(key)}: {', '.join(names)}") + "\n")


def print_json(result: RunResult, out: TextIO | Output, *, with_trace: bool = False,
               with_states: bool = False, with_outcomes: bool = False) -> None:
    """One object per step, step 0 the setup, with exactly the keys scenario-format.md names
    (``file``, ``step``, ``do``, ``state``); ``with_trace`` adds the step's trace lines
    (``trace``), ``with_states`` every chart's active states (``active``), ``with_outcomes``
    how the step went (``outcome``, see :data:`Outcome`) and, on the step a failed run
    stopped at, its message (``failure``, as stderr says it after ``FAIL``)."""
    for rec in result.steps:
        line: dict[str, Any] = {"file": result.path, "step": rec.index, "do": rec.do,
                                "state": rec.state}
        if with_trace:
            line["trace"] = rec.lines
        if with_states:
            line["active"] = active_states(rec.configs)
        if with_outcomes:
            line["outcome"] = rec.outcome
            if result.code == FAILED and rec is result.steps[-1]:
                line["failure"] = one_line(result.message)
        out.write(json.dumps(line, sort_keys=False) + "\n")


def run_files(
    paths: Iterable[str | os.PathLike],
    out: TextIO,
    err: TextIO,
    *,
    as_json: bool = False,
    with_trace: bool = False,
    with_states: bool = False,
    with_outcomes: bool = False,
    rules: str | None = None,
    diagrams_dir: Path | None = None,
    command: str = "run",
    on_result: Callable[[RunResult], None] | None = None,
) -> int:
    """Run several files; each stops at its first failure; the exit code is the highest.
    ``on_result``, if given, hears each file's result once it is reported.

    With ``diagrams_dir``, each file also gets its lit charts and a step-through page there,
    named after the file (``NAME-2``, ``NAME-3``... for a name met again in the same run, with
    a line on ``err`` that says whose page it is; the layout is in ``engine.stepthrough``). A
    page that cannot be written is one line on ``err``, naming the path, and exit code 2; the
    trace is printed first. If the reader of ``out`` goes away (``| head``), the rest runs
    without printing, so that the exit code is still the highest of all files. Output that
    cannot be written (a full disk, a closed stdout) is one line on ``err``; the rest runs
    without printing, and the exit code is 2. An ``err`` that cannot be written loses only its
    own lines: ``out`` keeps its output and the exit code is what the files decided (D32).
    """
    output, errors = Output.of(out), Output.of(err)
    code = OK
    pages: set[str] = set()
    stdin_read = False
    for path in paths:
        from_stdin = os.fspath(path) == STDIN
        if from_stdin and stdin_read:
            result = _invalid(ScenarioError(STDIN_LABEL, "<file>", "standard input is read "
                                            "once, and an earlier '-' has read it"), rules)
        else:
            result = run_file(path, rules=rules)
        stdin_read |= from_stdin
        _report(result, output, errors, as_json, with_trace, with_states, with_outcomes)
        if on_result is not None:
            on_result(result)
        if output_lost(output, errors, command):
            code = INVALID
        code = max(code, result.code)
        if diagrams_dir is not None and result.code != INVALID:
            stem = "stdin" if result.path == STDIN_LABEL else Path(result.path).stem
            page = _page_name(stem or "scenario", pages)
            if not _write_page(result, diagrams_dir, page, errors, command):
                code = INVALID
            elif page != stem:
                _say_whose_page(result.path, diagrams_dir / f"{page}.html", errors, command)
    return code


def _report(result: RunResult, out: Output, err: Output, as_json: bool,
            with_trace: bool, with_states: bool, with_outcomes: bool) -> None:
    if result.code == INVALID:
        err.write(f"{result.message}\n")
    elif as_json:
        print_json(result, out, with_trace=with_trace, with_states=with_states,
                   with_outcomes=with_outcomes)
        if result.code:
            out.flush()  # the steps first, for a reader of both streams (`2>&1`)
            if out.lost:  # the steps are lost: the run says that instead (D30)
                return
            err.write(f"FAIL {one_line(result.message)}\n")
    else:
        print_text(result, out, with_states=with_states)
    out.flush()  # a reader that went away, or a full disk, is found here, not at exit
    err.flush()


def _page_name(stem: str, taken: set[str]) -> str:
    """``stem``, or else ``stem-2``, ``stem-3``...: the first name whose page (``NAME.html``)
    and folder (``NAME``) no earlier file of the run has, which ``taken`` records. Names are
    compared as macOS and Windows do (:func:`writable.same_file_key`): there ``Same`` and
    ``same`` are one file."""

    def files(name: str) -> set[str]:
        return {same_file_key(name), same_file_key(f"{name}.html")}

    name, n = stem, 1
    while files(name) & taken:
        n += 1
        name = f"{stem}-{n}"
    taken |= files(name)
    return name


def _say_whose_page(path: str, page: Path, err: Output, command: str) -> None:
    # a page not named after its file would otherwise be a guess (stdout is the trace's)
    err.write(one_line(f"riftchart {command}: {path}: its page is {page}") + "\n")
    err.flush()


def _write_page(result: RunResult, folder: Path, name: str, err: Output, command: str) -> bool:
    """Write the page and charts of ``result``; if they cannot be written, one line on
    ``err`` that names the path which could not be written, and why, and False."""
    from . import stepthrough

    written = writing(lambda: stepthrough.write_lit_run(result, folder, name), err,
                      command=command, what="diagrams to ", folder=folder,
                      no_dot="--diagrams needs Graphviz's `dot`: install graphviz")
    return written is not None


def bundled_scenarios() -> list[Path]:
    """The scenarios that ship with riftchart, in reading order: the checkout's ``scenarios``
    beside the sources, or, for an install that is not editable (such as the compiled build),
    ``scenarios`` in the current folder."""
    for folder in (Path(__file__).resolve().parent.parent / "scenarios", Path("scenarios")):
        found = sorted(folder.glob("*.yaml"))
        if found:
            return found
    return []
