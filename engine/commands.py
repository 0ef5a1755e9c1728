"""The `riftchart` commands: a thin shell over functions a Python user can call too
(:mod:`engine.cli` is the entry point that loads this module)."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from . import __version__, diagrams, graphs, runner, streams
from .cli import INTERRUPTED
from .expansion import Settings
from .state import PROFILES
from .wording import counted


def _cmd_run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.diagrams == "":  # "" would quietly mean no diagrams
        err.write("riftchart run: --diagrams needs a folder name\n")
        return runner.INVALID
    if args.trace and not args.json:  # it would do nothing: said rather than ignored
        err.write("riftchart run: --trace adds the trace lines to --json's objects (the text "
                  "output always shows them): use it with --json\n")
        return runner.INVALID
    if args.outcomes and not args.json:
        err.write("riftchart run: --outcomes adds how each step went to --json's objects (the "
                  "text output always says it): use it with --json\n")
        return runner.INVALID
    return runner.run_files(
        args.files,
        out,
        err,
        as_json=args.json,
        with_trace=args.trace,
        with_states=args.states,
        with_outcomes=args.outcomes,
        rules=args.rules,
        diagrams_dir=Path(args.diagrams) if args.diagrams else None,
    )


def _cmd_compare(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from . import compare

    return compare.main(args.file, out, err, width=args.width)


#: what `riftchart check` searches with when an option is not given: the search's own
#: defaults (:class:`engine.expansion.Settings`), no graph file, and the counterexamples' folder
SEARCH_DEFAULTS = {
    **{f.name: f.default for f in dataclasses.fields(Settings)
       if f.name in ("max_turns", "max_states", "symmetry", "workers", "max_targets")},
    "graph": None,
    "out": "counterexamples",
}


def _cmd_check(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from . import check

    given = [f"--{name.replace('_', '-')}" for name in SEARCH_DEFAULTS
             if getattr(args, name) is not None]
    for name, value in SEARCH_DEFAULTS.items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    return check.main(args, out, err, given=given)


def _cmd_demo(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    files = runner.bundled_scenarios()
    if not files:
        err.write("riftchart demo: no bundled scenarios found: it plays the scenarios/ folder of "
                  "a riftchart checkout (beside the sources, or in the current folder)\n")
        return runner.INVALID
    failed: list[str] = []

    def note(result: runner.RunResult) -> None:
        if result.code != runner.OK:
            failed.append(Path(result.path).name)

    code = runner.run_files(files, out, err, rules=args.rules, command="demo", on_result=note)
    out.write(f"\n{len(files)} bundled scenarios run; exit code {code}\n")
    if failed:  # named again at the end: a failure is otherwise found among 6,000 lines
        out.write(f"{counted(len(failed), 'scenario')} did not pass: {', '.join(failed)}\n")
    return code


def _cmd_diagrams(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    formats = tuple(f.strip() for f in args.format.split(",") if f.strip())
    unknown = sorted(set(formats) - set(diagrams.SUFFIXES))
    if not formats or unknown:
        known = ",".join(diagrams.SUFFIXES)
        err.write(f"riftchart diagrams: --format {args.format!r}: formats are {known}\n")
        return runner.INVALID
    return _write_files("diagrams", args.out, out, err,
                        lambda: diagrams.write_diagrams(args.out, formats))


def _write_files(command: str, where: str, out: TextIO, err: TextIO,
                 write: Callable[[], list[Path]]) -> int:
    """``write()`` and print the paths it wrote; if it cannot write its files, one line on
    ``err`` and exit code 2."""
    if not where:  # "" would quietly mean the current folder
        err.write(f"riftchart {command}: --out needs a folder name\n")
        return runner.INVALID
    written = streams.writing(
        write, err, command=command, what="to ", folder=where,
        no_dot="Graphviz's `dot` is needed for svg and png: "
               "install graphviz, or ask for --format dot,mermaid")
    if written is None:
        return runner.INVALID
    for path in written:
        out.write(f"{path}\n")
    return runner.OK


def _cmd_export(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    return _write_files("export", args.out, out, err,
                        lambda: graphs.write_exports(args.out, args.format))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="riftchart", description="Statecharts of the Riftbound battlefield rules"
    )
    parser.add_argument("--version", action="version", version=f"riftchart {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="run scenario files and print their traces")
    run.add_argument("files", nargs="+", metavar="FILE",
                     help="scenario files (YAML or JSON); - reads one from standard input")
    run.add_argument("--json", action="store_true", help="one JSON object per step")
    run.add_argument("--trace", action="store_true",
                     help="with --json: each step's trace lines too, under \"trace\"")
    run.add_argument("--outcomes", action="store_true",
                     help="with --json: how each step went, under \"outcome\", and the "
                          "failure's message, under \"failure\", on the step that failed")
    run.add_argument("--states", action="store_true",
                     help="every chart's active states after each step (with --json: under "
                          "\"active\")")
    run.add_argument("--rules", choices=PROFILES, help="override the rules profile")
    run.add_argument(
        "--diagrams", metavar="DIR", help="write lit charts per step and a step-through page"
    )
    run.set_defaults(func=_cmd_run, parser=run)

    cmp = sub.add_parser(
        "compare", help="run a scenario under both rules profiles, side by side",
        epilog="Its expect steps are not checked, and refused steps are shown: exit 0 once the "
               "file ran, whether or not the profiles part; 2 for a bad file. `riftchart run` "
               "says whether a file passes.")
    cmp.add_argument("file", metavar="FILE", help="a scenario file; - reads it from standard input")
    cmp.add_argument("--width", type=int, default=None,
                     help="width of each column, 20 to 1000 (default: fit the terminal)")
    cmp.set_defaults(func=_cmd_compare, parser=cmp)

    check = sub.add_parser("check", help="explore every reachable state and check invariants")
    check.add_argument("file", nargs="?", help="a scenario: its setup, then its steps as a prefix")
    check.add_argument("--list", action="store_true",
                       help="list the invariants (those named by --invariant, or all; with "
                            "--rules, that profile's) and exit")
    check.add_argument("--invariant", action="append", metavar="NAME",
                       help="check this invariant (repeat for more; default: all)")
    check.add_argument("--rules", choices=PROFILES, help="override the rules profile")
    check.add_argument("--json", action="store_true", help="machine-readable report")
    # the search's options are None when not given (their defaults are filled in later), so
    # that --list can say that one given would do nothing
    search = check.add_argument_group("search options (not with --list)")
    search.add_argument("--max-turns", type=int, metavar="N",
                        help="turn changes a path may make "
                             f"(default {SEARCH_DEFAULTS['max_turns']})")
    search.add_argument("--max-states", type=int, metavar="N",
                        help="stop discovering states past N "
                             f"(default {SEARCH_DEFAULTS['max_states']})")
    search.add_argument("--symmetry", action="store_true", default=None,
                        help="merge states that differ only by interchangeable units (twins, "
                             "copies of a unit card in one hand)")
    search.add_argument("--workers", type=int, metavar="N",
                        help="processes to share the search "
                             f"(default {SEARCH_DEFAULTS['workers']})")
    search.add_argument("--max-targets", type=int, metavar="N",
                        help="try plays at every choice of at most N targets "
                             f"(default {SEARCH_DEFAULTS['max_targets']})")
    search.add_argument("--graph", metavar="FILE",
                        help="write the state graph (.graphml or .dot)")
    search.add_argument("--out", metavar="DIR",
                        help="where counterexample scenarios are written "
                             f"(default: {SEARCH_DEFAULTS['out']})")
    check.set_defaults(func=_cmd_check, parser=check)

    demo = sub.add_parser("demo", help="run the bundled scenarios and show their traces")
    demo.add_argument("--rules", choices=PROFILES,
                      help="play every scenario under this profile, not the one it names (the "
                           "expectations written for the other profile then fail: see compare)")
    demo.set_defaults(func=_cmd_demo, parser=demo)

    dia = sub.add_parser("diagrams", help="write every chart as a diagram")
    dia.add_argument("--out", default="diagrams", metavar="DIR",
                     help="where the diagrams go (default: diagrams)")
    dia.add_argument("--format", default="dot,svg,mermaid",
                     help="a comma-separated list of: " + ",".join(diagrams.SUFFIXES)
                     + " (default: %(default)s)")
    dia.set_defaults(func=_cmd_diagrams, parser=dia)

    export = sub.add_parser("export", help="export the charts for other tools")
    export.add_argument("--format", choices=["graphml", "json", "scxml"], required=True,
                        help="one file per chart in this format")
    export.add_argument("--out", default="export", metavar="DIR",
                        help="where the files go (default: export)")
    export.set_defaults(func=_cmd_export, parser=export)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The command; its exit code. Output that cannot be written never raises (D30, D32): a
    reader that went away (``| head``) leaves the exit code as the command decided; a stdout
    that cannot be written (a full disk, or closed: ``>&-``) is one line on stderr and exit
    code 2; a stderr that cannot be written loses only its own lines."""
    args, extra = build_parser().parse_known_args(argv)
    if extra:  # said with the command's own usage (``compare A B``: compare takes one FILE)
        args.parser.error(f"unrecognized arguments: {' '.join(extra)}")
    _hold_closed_descriptors()
    for stream in (sys.stdout, sys.stderr):
        # a file name that is not valid UTF-8, or a name the terminal cannot show, is written
        # escaped rather than stopping the run
        if hasattr(stream, "reconfigure"):
            with contextlib.suppress(ValueError, OSError):  # closed: Output says so
                stream.reconfigure(errors="backslashreplace")
    out, err = streams.Output(sys.stdout), streams.Output(sys.stderr)
    try:
        code = args.func(args, out, err)
    except BrokenPipeError:  # not expected: Output catches it
        streams.reader_gone()
        return 1
    except KeyboardInterrupt:  # Ctrl-C: what was written stays; worker processes are stopped
        err.write(f"riftchart {args.command}: interrupted\n")
        err.flush()
        return INTERRUPTED
    out.flush()  # what is still buffered fails here, not at exit
    err.flush()
    if streams.output_lost(out, err, args.command):
        code = max(code, runner.INVALID)
    return code


def _hold_closed_descriptors() -> None:
    """A process started with stdout or stderr closed (``>&-``, ``2>&-``) has ``sys.stdout`` or
    ``sys.stderr`` None, and the descriptor free: the next file opened would take it, and a
    child process would take that file for its output. The null device holds it instead;
    riftchart's own output to such a stream still counts as not written."""
    for fd, stream in ((0, sys.stdin), (1, sys.stdout), (2, sys.stderr)):
        if stream is not None or _is_open(fd):
            continue
        with contextlib.suppress(OSError):
            devnull = os.open(os.devnull, os.O_RDWR)
            if devnull != fd:
                os.dup2(devnull, fd)
                os.close(devnull)


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True
