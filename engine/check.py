"""``riftchart check FILE``: the model checker as a command (see :mod:`engine.explore`).

Exit codes: 0 explored and nothing violated; 1 an invariant was violated (a counterexample
scenario was written for each); 2 bad input, in one line naming the file and the field; 3 the
search could not finish (a worker process ended in the middle of it); 130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, TextIO

# the module as well as its names: its limits (GRAPH_LIMIT, MAX_WORKERS) are read when used,
# so that a test or a program that sets them is heard
from . import actions, counterexample, explore as search
from .errors import ScenarioError
from .explore import Progress, Report, Settings, Violation, explore
from .invariants import Invariant, by_names
from .prepared import Prepared, prepare
from .runner import FAILED, INVALID, OK
from .scenario import STDIN, STDIN_LABEL
from .wording import counted
from .workers import WorkerLost
from .writable import check_writable

SEARCH_FAILED = 3  # the exit code when a worker process ends in the middle of a search
# (the others are the run command's: OK, FAILED for a violation, INVALID for bad input)


def main(args: argparse.Namespace, out: TextIO, err: TextIO,
         given: Sequence[str] = ()) -> int:
    """``riftchart check``: 0 explored and nothing violated, 1 a violation, 2 bad input, 3 a
    worker process lost. ``given`` names the search options the command line gave."""
    if args.list and args.file:
        # a search was meant, or a file's invariants: neither is what --list does
        err.write("riftchart check: --list names the invariants and takes no FILE\n")
        return INVALID
    problem = None if args.list else _bad_arguments(args)
    if problem:
        err.write(f"riftchart check: {problem}\n")
        return INVALID
    try:
        chosen = by_names(args.invariant)
    except KeyError as unknown:
        err.write(f"riftchart check: --invariant {unknown.args[0]!r}: no such invariant "
                  "(see --list)\n")
        return INVALID
    if args.list:
        return _list_invariants(args, chosen, given, out, err)
    return _check_file(args, chosen, out, err)


def _list_invariants(args: argparse.Namespace, chosen: list[Invariant], given: Sequence[str],
                     out: TextIO, err: TextIO) -> int:
    """``--list``: every invariant, or those named with --invariant, or the profile's."""
    if given:  # said rather than ignored: --list searches nothing
        err.write(f"riftchart check: --list names the invariants and searches nothing: "
                  f"{', '.join(given)} would do nothing\n")
        return INVALID
    if args.rules:
        problem = _not_for_profile(args.invariant, chosen, args.rules, "--rules")
        if problem:
            err.write(f"riftchart check: {problem}\n")
            return INVALID
        chosen = [inv for inv in chosen if inv.applies_to(args.rules)]
    _print_invariants(chosen, out, as_json=args.json)
    return OK


def _check_file(args: argparse.Namespace, chosen: list[Invariant], out: TextIO,
                err: TextIO) -> int:
    """The search of FILE: prepared, its options checked against it (the profile's
    invariants, where the results go), then :func:`check_prepared`, and the report printed."""
    try:
        prepared = prepare(args.file, args.rules)
    except ScenarioError as error:
        err.write(f"{error}\n")
        return INVALID
    # today only the seed profile has invariants of its own, and it is the default: a file
    # can only lack one by naming cr-1.4 in its rules
    source = "--rules" if args.rules else f"{prepared.scenario.path}, rules:"
    problem = (_not_for_profile(args.invariant, chosen, prepared.start.profile,
                                f"{source}; see --list")
               or _unwritable(args, [inv.name for inv in chosen]))
    if problem:
        err.write(f"riftchart check: {problem}\n")
        return INVALID
    settings = Settings(chosen, args.max_turns, args.max_states, args.symmetry, args.workers,
                        max_targets=args.max_targets)  # graph: check_prepared sets it
    try:
        checked = check_prepared(prepared, settings, out=args.out, graph=args.graph,
                                 progress=lambda label: _ProgressBar(err, args.max_states, label))
    except WorkerLost as lost:
        err.write(f"riftchart check: {lost}\n")
        return SEARCH_FAILED
    if args.graph and checked.report.graph_dropped:
        err.write(f"riftchart check: {checked.summary['graph']}\n")
    if args.json:
        out.write(json.dumps(checked.summary, indent=2) + "\n")
    else:
        _print_summary(checked.summary, out)
    if checked.unwritten:
        out.flush()
        for refused in checked.unwritten:
            err.write(f"riftchart check: cannot write {refused.filename}: {refused.strerror}\n")
    return checked.code


@dataclasses.dataclass
class Checked:
    """What :func:`check_prepared` found and wrote."""

    report: Report
    plain: Report | None  # with symmetry: the search without it, to measure the reduction
    written: dict[str, Path]  # the counterexample file of each violated invariant
    graph_written: bool
    unwritten: list[OSError]  # files that could not be written after the search (a full disk)
    summary: dict[str, Any]  # the report as ``riftchart check --json`` prints it

    @property
    def code(self) -> int:
        """``riftchart check``'s exit code: 2 a file could not be written, 1 a violation, 0."""
        return INVALID if self.unwritten else FAILED if self.report.violations else OK


ProgressFor = Callable[[str], AbstractContextManager[Progress | None]]


def check_prepared(prepared: Prepared, settings: Settings, *,
                   out: str | os.PathLike = "counterexamples",
                   graph: str | os.PathLike | None = None,
                   progress: ProgressFor | None = None) -> Checked:
    """What ``riftchart check`` does once its file is prepared (:func:`prepare`): the search
    (with ``settings.symmetry``, the plain one too, to measure the reduction), then each
    violation's counterexample written in ``out`` and the state graph in ``graph`` (if given,
    and kept: at most ``explore.GRAPH_LIMIT`` states), and the report as ``--json`` prints it.

    A file that cannot be written does not stop the others; it is in ``unwritten``, and the
    report says what became of the graph. ``progress(label)`` may give a context manager whose
    value is the search's progress callback (the command's bar on a terminal). Raises
    ``WorkerLost`` if a worker process ends in the middle of the search."""
    settings = dataclasses.replace(settings, graph=graph is not None)
    report, plain = _run(prepared, settings, progress)
    source = STDIN if prepared.scenario.path == STDIN_LABEL else prepared.scenario.path
    written: dict[str, Path] = {}
    # the graph is tried even when the counterexamples failed (it may go elsewhere)
    unwritten: list[OSError] = []
    graph_written = False
    try:
        written = counterexample.write_all(source, prepared, report, Path(out))
    except OSError as error:
        unwritten.append(error)
    if graph is not None and not report.graph_dropped:
        try:
            counterexample.write_graph(Path(graph), report)
            graph_written = True
        except OSError as error:
            unwritten.append(error)
    summary = report_summary(prepared.scenario.path, prepared, settings, report, plain, written,
                             None if graph is None else str(graph), graph_written=graph_written)
    return Checked(report, plain, written, graph_written, unwritten, summary)


def _bad_arguments(args: argparse.Namespace) -> str | None:
    if not args.file:
        return "a scenario FILE is needed (or --list)"
    if args.max_turns < 1:
        return "--max-turns must be 1 or more (the turn changes a path may make)"
    if args.max_states < 1:
        return "--max-states must be 1 or more"
    if not 1 <= args.workers <= search.MAX_WORKERS:
        return f"--workers must be from 1 to {search.MAX_WORKERS}"
    if args.max_targets < 1:
        return "--max-targets must be 1 or more"
    if not args.out:
        return "--out needs a folder name"
    if args.graph is not None and not args.graph.lower().endswith((".graphml", ".dot", ".gv")):
        return f"--graph {args.graph!r}: the file name must end in .graphml, .dot or .gv"
    return None


def _not_for_profile(named: list[str] | None, chosen: list, profile: str,
                     source: str) -> str | None:
    """Invariants named with --invariant must all be the profile's (by default, those that are
    not are listed in the report as not for it, or left out of --list). The message says
    where the profile came from (``source``: --rules or the file's ``rules:``)."""
    missing = [inv.name for inv in chosen if not inv.applies_to(profile)]
    if not missing or (named is None and len(missing) < len(chosen)):
        return None
    return (f"--invariant {', '.join(missing)}: not an invariant of profile {profile} "
            f"(from {source})")


def _unwritable(args: argparse.Namespace, invariants: list[str]) -> str | None:
    """Where the results would go cannot take them (the --out folder, the counterexample files
    it may get, the --graph file): said before a long search, not after. The --out folder is
    made only when a counterexample is written."""
    out = Path(args.out)
    try:
        check_writable(out, [counterexample.path_for(args.file, name, out) for name in invariants])
    except OSError as error:
        return f"cannot write to --out {args.out}: {error.filename}: {error.strerror}"
    if args.graph is not None:
        graph = Path(args.graph)
        if not graph.parent.is_dir():
            what = "a file, not a folder" if graph.parent.exists() else "no folder"
            return f"cannot write --graph {args.graph}: {graph.parent} is {what}"
        try:
            check_writable(graph.parent, [graph])
        except OSError as error:
            return f"cannot write --graph {args.graph}: {error.strerror}"
    return None


def _run(prepared: Prepared, settings: Settings, progress_for: ProgressFor | None
         ) -> tuple[Report, Report | None]:
    """The search; with symmetry, the plain search too, to measure the reduction."""
    bar = progress_for or (lambda label: contextlib.nullcontext(None))
    with bar("exploring") as progress:
        report = explore(prepared.start, settings, progress)
    plain = None
    if settings.symmetry:
        plain_settings = dataclasses.replace(settings, symmetry=False, graph=False)
        with bar("without symmetry") as progress:
            plain = explore(prepared.start, plain_settings, progress)
    return report, plain


class _ProgressBar:
    """A rich progress bar on a terminal (stderr); nothing when the output is not a TTY."""

    def __init__(self, err: TextIO, total: int, label: str = "exploring"):
        self.err, self.total, self.label = err, total, label
        self.bar: Any = None

    def __enter__(self) -> Progress | None:
        if not (hasattr(self.err, "isatty") and self.err.isatty()):
            return None
        try:
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
        except ImportError:
            return None
        self.bar = Progress(
            TextColumn("{task.description}"), BarColumn(),
            # the bar fills towards --max-states: how near the search is to its bound
            TextColumn("{task.completed} states (at most {task.total}), "
                       "{task.fields[transitions]} transitions"),
            TimeElapsedColumn(), console=Console(file=self.err), transient=True,
        )
        self.bar.start()
        task = self.bar.add_task(self.label, total=self.total, transitions=0)

        def update(report: Report, states: int) -> None:
            self.bar.update(task, completed=states, transitions=report.transitions)

        return update

    def __exit__(self, *exc: Any) -> None:
        if self.bar is not None:
            self.bar.stop()


def _graph_note(path: str, report: Report, written: bool) -> str:
    """What became of the --graph file."""
    if report.graph_dropped:
        limit = search.GRAPH_LIMIT
        return (f"graph not written: more than {limit} states; bound the search with "
                f"--max-states {limit} to draw a part of it")
    if not written:
        return f"graph not written: {path} could not be written (see the error below)"
    if not report.complete:  # edges to the states refused are counted, not drawn
        return (f"graph written to {path} (the search stopped at --max-states: the "
                f"{report.transitions - len(report.edges):,} transitions to states it did "
                "not keep are not drawn)")
    return f"graph written to {path}"


def report_summary(file: str, prepared: Prepared, settings: Settings, report: Report,
                   plain: Report | None = None, written: Mapping[str, Path] | None = None,
                   graph: str | None = None, *, graph_written: bool = True) -> dict[str, Any]:
    """The report as ``riftchart check --json`` prints it, for a search from ``file`` (as
    :func:`engine.explore.prepare` prepared it) with ``settings``: ``plain`` is the search
    without symmetry, where ``settings.symmetry`` (for the reduction), ``written`` the
    counterexample files by invariant name (:func:`engine.counterexample.write_all`), and
    ``graph`` the ``--graph`` file asked for (``settings.graph``), written if the search
    kept its graph and ``graph_written`` (False: writing it failed)."""
    written = written or {}
    profile = prepared.start.profile
    checked = [inv.name for inv in settings.invariants if inv.applies_to(profile)]
    skipped = [inv.name for inv in settings.invariants if not inv.applies_to(profile)]
    summary: dict[str, Any] = {
        "file": file,
        "rules": profile,
        "invariants": checked,
        "not_applicable": skipped,
        "max_turns": settings.max_turns,
        "max_targets": settings.max_targets,
        "max_states": settings.max_states,
        "complete": report.complete,
        "states": report.states,
        "transitions": report.transitions,
        "max_depth": report.max_depth,
        "terminal_states": report.terminal,
        "deadlocks": report.deadlocks,
        "frontier_states": report.frontier,
        "seconds": round(report.seconds, 3),
        "states_per_second": round(report.states_per_second),
        "bytes_per_state": round(report.bytes_per_state, 1),
        "workers": settings.workers,
        # the file's own expect and expect_error steps: its prefix plays, they are not checked
        "expects_not_checked": sum(step.kind in ("expect", "expect_error")
                                   for step in prepared.scenario.steps),
        "symmetry": None,
        "violations": [_violation_summary(v, written.get(name))
                       for name, v in report.violations.items()],
    }
    if plain is not None:
        # a reduction and a verdict are compared only where both searches went to their end:
        # two searches cut off at --max-states saw different states
        both = plain.complete and report.complete
        summary["symmetry"] = {
            # which units and cards the search took as interchangeable, each group in setup order
            "interchangeable": [list(ids) for ids in search.Symmetry(prepared.start).classes],
            "states_without": plain.states,
            "states_with": report.states,
            # the report's seconds are the symmetric search's; the plain one runs after it
            "seconds_without": round(plain.seconds, 3),
            "reduction": round(plain.states / report.states, 3) if both and report.states else None,
            "same_verdict": sorted(plain.violations) == sorted(report.violations) if both else None,
            "both_complete": both,
        }
    if graph:
        done = graph_written and not report.graph_dropped
        summary["graph"] = _graph_note(graph, report, done)
        summary["graph_file"] = graph if done else None
    return summary


def _violation_summary(v: Violation, path: Path | None) -> dict[str, Any]:
    return {
        "invariant": v.invariant.name,
        "rule": v.invariant.rule,
        "kind": v.invariant.kind,
        "depth": v.depth,
        "turns": v.turns,
        "steps": [actions.to_step(a) for a in v.path],
        "expect": v.witness,
        "counterexample": str(path) if path else None,
    }


def _print_summary(summary: dict, out: TextIO) -> None:
    done = "complete" if summary["complete"] else f"stopped at --max-states {summary['max_states']}"
    out.write(f"== check {summary['file']} [rules: {summary['rules']}]\n")
    turns, targets = summary["max_turns"], summary["max_targets"]
    out.write(f"explored: {done}, within {counted(turns, 'turn change')}, plays of at most "
              f"{counted(targets, 'target')}\n")
    for label, key in (("states", "states"), ("transitions", "transitions"),
                       ("max depth", "max_depth"), ("terminal states", "terminal_states"),
                       ("deadlocks", "deadlocks"), ("past --max-turns", "frontier_states"),
                       ("seconds", "seconds"), ("states/second", "states_per_second"),
                       ("bytes/state (key)", "bytes_per_state"), ("workers", "workers")):
        out.write(f"  {label:<18} {summary[key]}\n")
    sym = summary["symmetry"]
    if sym:
        groups = "; ".join(" = ".join(ids) for ids in sym["interchangeable"])
        out.write(f"  interchangeable: {groups or 'none (no two units or unit cards alike)'}\n")
        out.write(f"  symmetry: {sym['states_without']} states without "
                  f"({sym['seconds_without']} s), {sym['states_with']} with "
                  f"({summary['seconds']} s), "
                  + (f"reduction {sym['reduction']}x, same verdict: {sym['same_verdict']}"
                     if sym["both_complete"] else
                     "reduction and verdicts not compared (a search stopped at --max-states)")
                  + "\n")
    if summary.get("graph"):
        out.write(f"  {summary['graph']}\n")
    if summary["expects_not_checked"]:
        n = summary["expects_not_checked"]
        out.write(f"the file's {counted(n, 'expect step')} (expect, expect_error) "
                  f"{'is' if n == 1 else 'are'} not checked here: `riftchart run` checks "
                  f"{'it' if n == 1 else 'them'}\n")
    out.write(f"invariants checked: {', '.join(summary['invariants'])}\n")
    if summary["not_applicable"]:
        out.write(f"not for this profile: {', '.join(summary['not_applicable'])}\n")
    if not summary["violations"] and summary["complete"]:
        out.write("no violation\n")
    elif not summary["violations"]:
        out.write(f"no violation in the {counted(summary['states'], 'state')} explored (the "
                  f"search stopped at --max-states {summary['max_states']}; the states beyond "
                  "were not checked)\n")
    for v in summary["violations"]:
        out.write(f"VIOLATED {v['invariant']} ({v['rule']}) after {counted(v['depth'], 'step')}: "
                  f"{v['counterexample'] or 'counterexample not written'}\n")


def _print_invariants(invariants: list[Invariant], out: TextIO, as_json: bool) -> None:
    if as_json:
        listed = [{"name": inv.name, "kind": inv.kind, "rule": inv.rule,
                   "profiles": list(inv.profiles), "doc": " ".join(inv.doc.split())}
                  for inv in invariants]
        out.write(json.dumps(listed, indent=2) + "\n")
        return
    for inv in invariants:
        scope = "" if len(inv.profiles) > 1 else f", profile {inv.profiles[0]} only"
        out.write(f"{inv.name} [{inv.kind}, {inv.rule}{scope}]\n    {inv.doc}\n")


if __name__ == "__main__":  # pragma: no cover - handy for profiling: python -m engine.check
    from .commands import main as command  # closed and failing streams handled as riftchart's

    raise SystemExit(command(["check", *sys.argv[1:]]))
