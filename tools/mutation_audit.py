"""Mutation audit: does breaking the rules procedures make the bundled scenarios fail?

Each mutant changes one place in one function of the engine's rules modules: a statement
deleted (a ``raise`` too), a comparison changed (``==`` and ``!=``, ``<`` and ``<=``, ``>`` and
``>=``, ``in`` and ``not in``, ``is`` and ``is not``), ``and`` and ``or`` swapped, a ``not``
dropped, a condition negated (where that is not the same as one of the above), an integer
constant plus one, a boolean constant flipped. Or it changes one transition of a compiled chart
(target ``charts``): the transition dropped, one of its guards flipped, one of its actions
skipped. Left alone, as no rule lies there: trace wording (``say`` calls, f-strings, an ``if``
or ``x if c else y`` that only chooses words; tests/test_trace_wording.py checks those),
``assert`` statements, and assignments to a local name (deleting one only unbinds the name).
Functions that are closures, and methods that call ``super()``, are skipped: their code object
cannot be swapped alone.

A mutant is *killed* when a bundled scenario fails under it (an ``expect`` that no longer holds,
a step refused, an error), or when bounded searches of the bundled models find other counts or
violations than the unbroken engine. Every survivor is a place to look: an equivalent change (a
check made twice, a value that nothing reads), one that only the trace or another test sees, or
a rule no scenario pins, which wants a scenario (docs/rule-coverage.md, Mutation audit).

How: the engine is imported and the scenarios loaded once; each mutant runs in a forked child,
which swaps the mutated function's code object in place (so every caller sees it) and runs
everything. POSIX only (fork). The default modules take about half an hour on one core.

    python tools/mutation_audit.py                       # every rules module, and the charts
    python tools/mutation_audit.py engine.scoring --out scoring.jsonl
    python tools/mutation_audit.py charts --no-search
"""

from __future__ import annotations

import argparse
import ast
import copy
import dataclasses
import inspect
import json
import os
import resource
import signal
import sys
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.explore import Settings, explore, prepare  # noqa: E402
from engine.game import Game  # noqa: E402
from engine.invariants import by_names  # noqa: E402
from engine.runner import FAILED, OK, _run_step  # noqa: E402
from engine.runtime import CompiledChart, Transition, compiled  # noqa: E402
from engine.scenario import load_scenario  # noqa: E402
from engine.state import GameState  # noqa: E402
from statecharts import CHARTS  # noqa: E402

RULES_MODULES = (
    "engine.scoring", "engine.cleanup", "engine.contest", "engine.combat", "engine.chain",
    "engine.turn", "engine.flow", "engine.destinations", "engine.effects", "engine.models",
    "engine.state", "engine.units", "engine.actions", "engine.effect_needs",
)
CHARTS_TARGET = "charts"  # the compiled charts' transitions

# (model, profile, states): small enough to search for every mutant
SEARCHES = (("1v1_two_battlefields", None, 2500), ("ffa_three_players", None, 1500),
            ("1v1_two_battlefields", "cr-1.4", 1500))
SECONDS_PER_MUTANT = 60  # a mutant that loops is killed by this
BYTES_PER_MUTANT = 4 << 30  # and one that allocates without end, by this

SWAPPED: dict[type, type] = {
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE,
    ast.GtE: ast.Gt, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
}
Where = list[tuple[str, int | None]]  # from a function node to a node: (field, index or None)


# --- what the unbroken engine does -----------------------------------------------------------


class Baseline:
    """The bundled scenarios, loaded once, and what they and the searches give unbroken."""

    def __init__(self, with_searches: bool) -> None:
        files = sorted((ROOT / "scenarios").glob("*.yaml"))
        self.scenarios = [(f.name, load_scenario(str(f))) for f in files]
        self.searches = [(prepare(ROOT / "models" / f"{name}.yaml", rules), states)
                         for name, rules, states in SEARCHES] if with_searches else []
        self.unbroken = self.run_scenarios(None)
        failing = [name for name, run in self.unbroken.items() if run.code != 0]
        if failing:
            raise SystemExit(f"mutation_audit: the unbroken engine fails {', '.join(failing)}")
        self.found = self.run_searches()

    def run_scenarios(self, unbroken: dict[str, Played] | None) -> dict[str, Played]:
        """Per scenario, as :func:`_play` gives it, compared with ``unbroken`` if given."""
        out: dict[str, Played] = {}
        for name, scenario in self.scenarios:
            try:
                out[name] = _play(scenario, unbroken[name] if unbroken else None)
            except Exception as error:  # noqa: BLE001 - a mutant may raise anything: killed
                out[name] = Played(f"raised {type(error).__name__}", [])
        return out

    def run_searches(self) -> list[Any]:
        found: list[Any] = []
        for prepared, states in self.searches:
            try:
                r = explore(prepared.start, Settings(by_names(None), max_states=states))
            except Exception as error:  # noqa: BLE001
                found.append(f"raised {type(error).__name__}")
                continue
            found.append([r.states, r.transitions, r.max_depth, r.frontier, r.terminal,
                          sorted(r.violations)])
        return found

    def verdict(self) -> dict[str, Any]:
        """Run everything (in the mutated child) and say what noticed."""
        runs = self.run_scenarios(self.unbroken)
        failed = [name for name, run in runs.items() if run.code != 0]
        passed = [name for name in runs if name not in failed]
        same_views = all(runs[n].views == self.unbroken[n].views for n in passed)
        same_states = all(runs[n].same_states for n in passed)
        if not failed and self.run_searches() != self.found:
            failed = ["the bounded searches"]
        return {"killed": bool(failed), "by": failed, "same_views": same_views,
                "same_states": same_states}


@dataclass
class Played:
    """A scenario played: its exit code (or the error it raised) and its view after each
    step; unbroken, a deep copy of the game state after each step (a later step may change in
    place what a plain copy shares); played again, whether each state equalled those. The
    state holds what the view leaves out: who applied a Contested that has ended, say."""

    code: Any
    views: list[str]
    states: list[GameState] = dataclasses.field(default_factory=list)
    same_states: bool = True


def _play(scenario: Any, unbroken: Played | None) -> Played:
    """Play a scenario as ``riftchart run`` does (its steps and expectations); the exit code
    is 0 or 1. The unbroken run plays every step of every scenario, so each state played again
    has its unbroken twin."""
    game = Game.from_scenario(scenario)
    played = Played(OK, [])

    def keep() -> None:
        played.views.append(json.dumps(game.view(), sort_keys=True, default=str))
        if unbroken is None:
            played.states.append(copy.deepcopy(game.state))
        elif game.state != unbroken.states[len(played.views) - 1]:
            played.same_states = False

    keep()
    for step in scenario.steps:
        _, failure, _ = _run_step(game, step)
        keep()
        if failure:
            played.code = FAILED
            break
    return played


# --- the mutants ------------------------------------------------------------------------------


def _says(node: ast.AST) -> bool:
    """A trace line: ``table.say(...)``, ``self.say(...)``, or a helper of ours that only says
    one (``_say_designation(...)``)."""
    call = node.value if isinstance(node, ast.Expr) else node
    if not isinstance(call, ast.Call):
        return False
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name == "say" or name.startswith("_say_")


def _only_says(node: ast.AST) -> bool:
    """A trace line, an ``if`` that only chooses among trace lines, or an ``x if c else y``
    that only chooses among words."""
    if isinstance(node, ast.If):
        return all(_only_says(statement) for statement in node.body + node.orelse)
    if isinstance(node, ast.IfExp):
        return all(isinstance(branch, ast.JoinedStr)
                   or (isinstance(branch, ast.Constant) and isinstance(branch.value, str))
                   for branch in (node.body, node.orelse))
    return _says(node)


def _docstring(node: ast.AST) -> bool:
    return (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str))


def _deletable(node: ast.AST) -> bool:
    return not (_docstring(node) or _only_says(node) or _names_a_local(node)
                or isinstance(node, ast.FunctionDef | ast.Assert))


def _names_a_local(node: ast.AST) -> bool:
    """``s = table.state``: deleted, it only leaves the name unbound, which any run catches."""
    return isinstance(node, ast.Assign | ast.AnnAssign) and all(
        isinstance(target, ast.Name)
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target]))


def _negation_is_new(node: ast.If | ast.While | ast.IfExp) -> bool:
    """Negating ``if a == b`` is swapping its comparison, negating ``if not x`` is dropping
    its ``not``: those are made once, by the other kind."""
    test = node.test
    swappable = (isinstance(test, ast.Compare) and len(test.ops) == 1
                 and type(test.ops[0]) in SWAPPED)
    return not (swappable or (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)))


def sites(function: ast.FunctionDef) -> Iterator[tuple[Where, str]]:
    """Every (place, kind of change) of one function."""

    def visit(node: ast.AST, path: Where) -> Iterator[tuple[Where, str]]:
        if isinstance(node, ast.JoinedStr | ast.Assert) or _only_says(node):
            return  # wording, or a check of our own that no rule is
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in SWAPPED:
            yield path, "swap"
        if isinstance(node, ast.BoolOp):
            yield path, "and-or"
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            yield path, "drop-not"
        if isinstance(node, ast.If | ast.While | ast.IfExp) and _negation_is_new(node):
            yield path, "negate"
        if isinstance(node, ast.Constant) and type(node.value) is int:
            yield path, "plus-one"
        if isinstance(node, ast.Constant) and type(node.value) is bool:
            yield path, "flip"
        for field, value in ast.iter_fields(node):
            children = value if isinstance(value, list) else [value]
            for index, child in enumerate(children):
                if not isinstance(child, ast.AST):
                    continue
                here = path + [(field, index if isinstance(value, list) else None)]
                if isinstance(child, ast.stmt) and _deletable(child):
                    yield here, "delete"
                yield from visit(child, here)

    for index, statement in enumerate(function.body):
        here: Where = [("body", index)]
        if _deletable(statement):
            yield here, "delete"
        yield from visit(statement, here)


def _at(node: ast.AST, path: Where) -> Any:
    for field, index in path:
        node = getattr(node, field) if index is None else getattr(node, field)[index]
    return node


def _replace(root: ast.AST, path: Where, new: ast.AST) -> None:
    parent, (field, index) = _at(root, path[:-1]), path[-1]
    if index is None:
        setattr(parent, field, new)
    else:
        getattr(parent, field)[index] = new


def mutated(function: ast.FunctionDef, path: Where, kind: str) -> ast.FunctionDef:
    copied = copy.deepcopy(function)
    node = _at(copied, path)
    if kind == "delete":
        _replace(copied, path, ast.copy_location(ast.Pass(), node))
    elif kind == "swap":
        node.ops[0] = SWAPPED[type(node.ops[0])]()
    elif kind == "and-or":
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    elif kind == "drop-not":
        _replace(copied, path, node.operand)
    elif kind == "negate":
        node.test = ast.copy_location(ast.UnaryOp(ast.Not(), node.test), node.test)
    elif kind == "plus-one":
        node.value += 1
    else:  # flip
        node.value = not node.value
    return copied


def code_of(function: ast.FunctionDef, filename: str) -> types.CodeType:
    """The function's code object, compiled from the changed syntax at the same lines."""
    module = ast.Module(body=[function], type_ignores=[])
    ast.fix_missing_locations(module)
    code = compile(module, filename, "exec")
    return next(c for c in code.co_consts
                if isinstance(c, types.CodeType) and c.co_name == function.name)


Found = tuple[str, types.FunctionType, ast.FunctionDef]  # a name, its live function, its syntax


def functions(module: types.ModuleType) -> Iterator[Found]:
    """(name, live function, its syntax) for the module's functions and its classes' methods
    (closures left out: their code cannot be swapped alone)."""
    tree = ast.parse(inspect.getsource(module))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            yield from _live(node.name, getattr(module, node.name, None), node)
        elif isinstance(node, ast.ClassDef) and isinstance(getattr(module, node.name, None), type):
            cls = getattr(module, node.name)
            for sub in node.body:
                if isinstance(sub, ast.FunctionDef):
                    raw = cls.__dict__.get(sub.name)
                    raw = raw.fget if isinstance(raw, property) else raw
                    raw = raw.__func__ if isinstance(raw, staticmethod | classmethod) else raw
                    yield from _live(f"{node.name}.{sub.name}", raw, sub)


def _live(name: str, found: Any, node: ast.FunctionDef) -> Iterator[Found]:
    live = inspect.unwrap(found) if callable(found) else None
    if isinstance(live, types.FunctionType) and not live.__code__.co_freevars:
        yield name, live, node


def chart_mutants() -> Iterator[tuple[dict[str, Any], Callable[[], None]]]:
    """(what it is, how to make it) for each change of one transition of a compiled chart."""
    for name in sorted(CHARTS):
        chart = compiled(name)
        for t in chart.transitions:
            changes: list[tuple[str, Transition | None]] = [("drop", None)]
            changes += [(f"flip guard {guard}", replace(t, guards=tuple(
                (g, not wanted if g == guard else wanted) for g, wanted in t.guards)))
                for guard, _ in t.guards]
            changes += [(f"skip action {action}", replace(t, actions=tuple(
                a for a in t.actions if a != action))) for action in t.actions]
            for kind, changed in changes:
                what = {"module": f"{CHARTS_TARGET}:{name}", "function": f"{t.source} "
                        f"-{t.event}-> {', '.join(t.targets) or t.source}", "line": t.order,
                        "kind": kind, "code": t.rule}
                yield what, _swapping(chart, t, changed)


def _swapping(chart: CompiledChart, t: Transition, changed: Transition | None
              ) -> Callable[[], None]:
    def swap() -> None:  # in the child only: the tables and what they cached
        key = (t.source, t.event)
        chart._by_state_event[key] = [changed if x is t else x
                                      for x in chart._by_state_event[key]
                                      if changed is not None or x is not t]
        chart._plans.clear()
        chart._outcomes.clear()
        chart._step_cache.clear()
    return swap


# --- running them -----------------------------------------------------------------------------


def run_mutant(baseline: Baseline, make: Callable[[], None]) -> dict[str, Any]:
    """The verdict on one mutant, from a forked child that ``make``s it and runs everything."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read)
        signal.alarm(SECONDS_PER_MUTANT)
        resource.setrlimit(resource.RLIMIT_AS, (BYTES_PER_MUTANT, BYTES_PER_MUTANT))
        try:
            make()
            answer = baseline.verdict()
        except BaseException as error:  # noqa: BLE001 - whatever it is, the parent hears it
            answer = {"killed": True, "by": [f"raised {type(error).__name__}"],
                      "same_views": False, "same_states": False}
        os.write(write, json.dumps(answer).encode())
        os._exit(0)
    os.close(write)
    data = b""
    while chunk := os.read(read, 65536):
        data += chunk
    os.close(read)
    os.waitpid(pid, 0)
    if not data:  # the alarm, or a crash of the interpreter
        return {"killed": True, "by": ["did not finish"], "same_views": False,
                "same_states": False}
    answer: dict[str, Any] = json.loads(data)
    return answer


def audit(module_names: list[str], with_searches: bool = True,
          only: set[str] | None = None, baseline: Baseline | None = None
          ) -> Iterator[dict[str, Any]]:
    """One row per mutant of the named modules (of the functions named in ``only``, if given:
    ``draw``, ``BattlefieldModel.keep_control``, a transition ``uncontested -unit_arrives->
    contested``; ``charts``: of the compiled charts), judged
    against ``baseline`` (made here if not given, with or without the searches)."""
    baseline = baseline or Baseline(with_searches)
    for module_name in module_names:
        if module_name == CHARTS_TARGET:
            for what, make in chart_mutants():
                if only is None or what["function"] in only:
                    yield {**what, **run_mutant(baseline, make)}
            continue
        module = __import__(module_name, fromlist=["_"])
        filename = inspect.getsourcefile(module) or module_name
        for name, live, node in functions(module):
            if only is not None and name not in only:
                continue
            for path, kind in sites(node):
                try:
                    code = code_of(mutated(node, path, kind), filename)
                except (SyntaxError, ValueError):
                    continue  # a change that does not compile is no mutant
                place = _at(node, path)
                yield {"module": module_name, "function": name,
                       "line": getattr(place, "lineno", node.lineno), "kind": kind,
                       "code": ast.unparse(place).splitlines()[0][:100],
                       **run_mutant(baseline, _swapping_code(live, code))}


def _swapping_code(live: types.FunctionType, code: types.CodeType) -> Callable[[], None]:
    def swap() -> None:  # in the child only; every caller sees it, ``from x import f`` too
        live.__code__ = code
    return swap


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*", default=[*RULES_MODULES, CHARTS_TARGET],
                        help="modules of the engine, or charts (default: the rules modules "
                             "and the charts)")
    parser.add_argument("--out", help="write every mutant as a JSON line here")
    parser.add_argument("--function", action="append", dest="only",
                        help="only this function (NAME or CLASS.NAME); may be repeated")
    parser.add_argument("--no-search", action="store_true",
                        help="only the scenarios judge (faster; the searches see what listing "
                             "the legal actions gets wrong)")
    args = parser.parse_args(argv)
    out = open(args.out, "w", encoding="utf-8") if args.out else None  # noqa: SIM115
    counts: dict[str, list[int]] = {}
    try:
        only = set(args.only) if args.only else None
        for row in audit(args.modules, not args.no_search, only):
            if out:
                out.write(json.dumps(row) + "\n")
            tally = counts.setdefault(row["module"], [0, 0])
            tally[0] += 1
            if not row["killed"]:
                tally[1] += 1
                seen = (" (its views differ: no expect saw it)" if not row["same_views"] else
                        " (the game state differs where the view does not show it)"
                        if not row["same_states"] else "")
                print(f"survived: {row['module']}:{row['line']} {row['function']} "
                      f"{row['kind']}: {row['code']}{seen}", flush=True)
    finally:
        if out:
            out.close()
    for module_name, (made, survived) in counts.items():
        print(f"{module_name}: {made} mutants, {survived} survived")
    return 0


if __name__ == "__main__":
    sys.exit(main())
