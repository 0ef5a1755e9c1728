"""The rules' promises, as predicates the model checker evaluates on every reachable state.

A *state* invariant is a predicate of one game state; a *transition* invariant is a predicate of
a parent state, the action taken and the child state (what a single step may change). Each one
names the rule it stands for and says, through ``witness``, which keys of the state view show a
violation: the model checker puts those keys in the final ``expect`` of a counterexample.

Only the no-deadlock invariant needs the list of legal actions; the explorer computes that list
once per state anyway (to expand it) and hands it over.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from . import combat
from .actions import Action, Add, to_step
from .scenario_model import EXPECT_KEYS
from .state import PROFILES, GameState
from .view import view

Witness = Callable[[GameState, GameState | None], dict[str, Any]]


@dataclass(frozen=True)
class Invariant:
    """A named promise of the rules. ``holds(state, legal_actions)`` for a state invariant,
    ``holds(parent, action, child)`` for a transition invariant; ``witness(child, parent)``
    gives the view keys that show a violation."""

    name: str
    rule: str
    kind: str  # "state" or "transition"
    holds: Callable[..., bool]
    witness: Witness
    profiles: tuple[str, ...] = PROFILES
    doc: str = field(default="", compare=False)
    # steps a counterexample adds as ``expect_error`` after its final expect, from the witness:
    # for a promise no state view can show (that someone may act), what must be refused
    refusals: Callable[[dict[str, Any]], list[dict[str, Any]]] | None = None

    def applies_to(self, profile: str) -> bool:
        return profile in self.profiles


_REGISTRY: dict[str, Invariant] = {}


def _view_keys(*keys: str) -> Witness:
    """A witness showing these keys of the child's state view (all of it for none). A partial
    of a module's function, not a closure: workers that are spawned rather than forked (where
    the system has no fork) receive the invariants pickled."""
    return partial(_shown, keys)


def _shown(keys: tuple[str, ...], child: GameState, parent: GameState | None) -> dict[str, Any]:
    shown = view(child)
    return {key: shown[key] for key in keys} if keys else shown


def _register(
    name: str,
    rule: str,
    kind: str,
    witness: Witness,
    profiles: tuple[str, ...] = PROFILES,
    refusals: Callable[[dict[str, Any]], list[dict[str, Any]]] | None = None,
    *,
    doc: str,
) -> Callable[[Callable[..., bool]], Callable[..., bool]]:
    """Register a predicate as the invariant ``name``; ``doc`` is the promise in words, with
    its rule (given here, not as the function's docstring, which a compiled build drops)."""

    def decorate(fn: Callable[..., bool]) -> Callable[..., bool]:
        text = " ".join(doc.split())
        _REGISTRY[name] = Invariant(name, rule, kind, fn, witness, profiles, text, refusals)
        return fn

    return decorate


def all_invariants() -> list[Invariant]:
    """Every invariant, in the order they are documented."""
    return list(_REGISTRY.values())


def by_names(names: Sequence[str] | None) -> list[Invariant]:
    """The named invariants (all of them for None); KeyError names an unknown one."""
    if not names:
        return all_invariants()
    unknown = [n for n in names if n not in _REGISTRY]
    if unknown:
        raise KeyError(", ".join(unknown))
    return [_REGISTRY[n] for n in dict.fromkeys(names)]


# --- your own invariants ----------------------------------------------------------------------

_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}")  # it names a file: kept short


def view_invariant(name: str, rule: str, holds: Callable[[dict[str, Any]], bool], *,
                   shows: Sequence[str] = (), doc: str = "",
                   profiles: Sequence[str] = PROFILES) -> Invariant:
    """A state invariant of your own, written over the state view (the ``state`` that
    ``riftchart run --json`` prints): ``holds(view)`` is true in every state that keeps it.

    ``shows`` names the view keys that show a violation (the whole view if empty): they make
    the final ``expect`` of its counterexample. It is not registered: pass it in
    :class:`engine.expansion.Settings` (docs/model-checking.md, "Your own invariants").
    """
    keys = _checked(name, rule, holds, shows, profiles)
    check = partial(_view_holds, name, holds)
    return Invariant(name, rule, "state", check, _view_keys(*keys), tuple(profiles), doc)


def view_step_invariant(
    name: str, rule: str, holds: Callable[[dict[str, Any], dict[str, Any], dict[str, Any]], bool],
    *, shows: Sequence[str] = (), doc: str = "", profiles: Sequence[str] = PROFILES,
) -> Invariant:
    """A transition invariant of your own: ``holds(before, step, after)`` with the state views
    before and after one action and the action as the scenario step that takes it
    (``{"move": {...}}``). Otherwise as :func:`view_invariant`."""
    keys = _checked(name, rule, holds, shows, profiles)
    check = partial(_step_holds, name, holds)
    return Invariant(name, rule, "transition", check, _view_keys(*keys), tuple(profiles), doc)


# The checks of your own invariants, as partials of these (picklable, as _view_keys says).


def _view_holds(name: str, holds: Callable[[dict[str, Any]], bool], state: GameState,
                legal: Sequence[Action]) -> bool:
    return _verdict(name, holds, view(state))


def _step_holds(name: str, holds: Callable[..., bool], parent: GameState, action: Action,
                child: GameState) -> bool:
    return _verdict(name, holds, view(parent), to_step(action), view(child))


def _verdict(name: str, holds: Callable[..., Any], *views: Any) -> bool:
    """The predicate's answer, which must be True or False: a forgotten ``return`` (None) or a
    value that is only truthy would pass or fail states for the wrong reason. An exception it
    raises gets a note naming the invariant (the search may have many)."""
    try:
        value = holds(*views)
    except Exception as error:
        error.add_note(f"raised by invariant {name} (its holds function)")
        raise
    if not isinstance(value, bool):
        raise TypeError(f"invariant {name}: holds returned {value!r}, not True or False")
    return value


def _checked(name: Any, rule: Any, holds: Any, shows: Any, profiles: Any) -> tuple[str, ...]:
    """The ``shows`` keys, once every argument is checked (a ValueError or TypeError naming
    the argument; a name is part of a counterexample's file name)."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError("an invariant's name is 1 to 64 letters, digits, '_', '.' and '-', "
                         f"beginning with a letter, digit or '_': {name!r}")
    if name.casefold() in {built_in.casefold() for built_in in _REGISTRY}:
        raise ValueError(f"{name!r} is the name of a built-in invariant (case aside)")
    if not isinstance(rule, str) or not rule.strip():
        raise ValueError(f"an invariant cites its rule (a non-empty string): {rule!r}")
    if not callable(holds):
        raise TypeError(f"holds must be a function, not {type(holds).__name__}")
    for names in (shows, profiles):
        if isinstance(names, str) or not isinstance(names, Sequence) or not all(
                isinstance(n, str) for n in names):
            raise TypeError(f"shows and profiles are lists of names (strings), not {names!r}")
    keys = tuple(shows)
    unknown = [k for k in keys if k not in EXPECT_KEYS]
    if unknown:
        raise ValueError(f"shows names keys the state view does not have: {', '.join(unknown)}; "
                         f"it has: {', '.join(EXPECT_KEYS)}")
    bad = [p for p in profiles if p not in PROFILES]
    if not profiles:
        raise ValueError("profiles is empty: the invariant would never be checked")
    if bad:
        raise ValueError(f"unknown profile(s) {', '.join(map(repr, bad))}: the profiles are "
                         f"{', '.join(PROFILES)}")
    return keys


# --- helpers -------------------------------------------------------------------------------


def _players_at(s: GameState) -> dict[str, set[str]]:
    """Battlefield -> players with units there (one pass over the units; counted here, not
    taken from ``GameState.players_at``, whose answers the units' dict caches: a check should
    not lean on what it checks)."""
    present: dict[str, set[str]] = {bf: set() for bf in s.fields}
    for unit in s.units.values():
        if unit.at in present:
            present[unit.at].add(unit.controller)
    return present


def _units_where(test: Callable[[GameState, str], bool]) -> Witness:
    """A witness listing where the units are at the battlefields that fail ``test`` (a
    module's function: picklable, as ``_view_keys`` says)."""
    return partial(_units_failing, test)


def _units_failing(test: Callable[[GameState, str], bool], child: GameState,
                   parent: GameState | None) -> dict[str, Any]:
    bad = {bf for bf in child.fields if not test(child, bf)}
    units = {
        u.id: {"at": u.at, "controller": u.controller}
        for u in child.units_in_board_order()
        if u.at in bad
    }
    return {"units": units}


# --- state invariants ----------------------------------------------------------------------


@_register(
    "one_active_contest", "seed 001", "state", _view_keys("state", "showdown", "staged"),
    doc="""At most one showdown or combat is in progress in the whole game (seed 001, rules.md 1
    and 4): at most one battlefield chart is in "showdown", and it is the engine's contest.""",
)
def one_active_contest(s: GameState, legal: Sequence[Action]) -> bool:
    active = [bf for bf in s.fields if s.in_showdown(bf)]
    return len(active) <= 1 and (not active or active[0] == s.contest_at)


@_register(
    "focus_in_showdown", "CR 313", "state", _view_keys("state", "showdown", "focus"),
    doc="""Focus exists only in a Showdown (CR 313, rules.md 2): nobody has Focus in a Neutral
    state, and in Showdown Open, while its Focus cycle runs, the Focus holder has Priority. The
    holder keeps Focus while a Chain exists (passing Priority does not pass Focus), so Showdown
    Closed shows it too; the damage step and resolution have no Focus (rules 11.5).""",
)
def focus_in_showdown(s: GameState, legal: Sequence[Action]) -> bool:
    if s.winner:
        return s.focus is None
    if s.contest_at is None:
        return s.focus is None
    if s.pending or not s.chain_open:
        return True
    if _in_focus_cycle(s):
        return s.focus is not None and s.priority == s.focus
    return s.focus is None


@_register(
    "closed_iff_chain", "CR 309.1", "state", _view_keys("state", "chain"),
    doc="""The state is Closed exactly when the Chain is non-empty (CR 309.1, rules.md 1), and
    every battlefield sees the Chain as the priority chart does (a Harel broadcast).""",
)
def closed_iff_chain(s: GameState, legal: Sequence[Action]) -> bool:
    if s.chain_open == bool(s.chain):
        return False
    wanted = "open" if s.chain_open else "closed"
    return all(wanted in s.bf_config(bf) for bf in s.fields)


def _at_most_two_players(s: GameState, bf: str) -> bool:
    return len(_players_at(s)[bf]) <= 2


@_register(
    "no_three_players", "CR 444.2", "state",
    _units_where(_at_most_two_players),
    doc="""A battlefield never holds units of three players (CR 444.2, rules.md 8).""",
)
def no_three_players(s: GameState, legal: Sequence[Action]) -> bool:
    return all(len(players) <= 2 for players in _players_at(s).values())


def _no_teammates(s: GameState, bf: str) -> bool:
    players = sorted(_players_at(s)[bf])
    return not any(s.teammates(a, b) for i, a in enumerate(players) for b in players[i + 1 :])


@_register(
    "teammates_apart", "seed 001", "state", _units_where(_no_teammates),
    doc="""Teammates never have units at the same battlefield (seed 001, rules.md 8).""",
)
def teammates_apart(s: GameState, legal: Sequence[Action]) -> bool:
    return s.teams is None or all(_no_teammates(s, bf) for bf in s.fields)


@_register(
    "contest_not_stuck", "rules 11.11", "state",
    _view_keys("state", "contested", "staged", "showdown"),
    doc="""Once Cleanup has run in Neutral Open, a Contested battlefield has a staged or active
    contest: no battlefield stays Contested forever (Cleanup step 7, rules 11.11).""",
)
def contest_not_stuck(s: GameState, legal: Sequence[Action]) -> bool:
    if s.contest_at is not None or not s.chain_open or s.winner:
        return True
    for bf in s.fields:
        if s.is_contested(bf) and not (
            s.showdown_staged(bf) or s.combat_staged(bf) or s.in_showdown(bf)
        ):
            return False
    return True


# the view cannot show a player listed twice (an expect may not say it): the extra point can
@_register(
    "scored_once_per_turn", "CR 465", "state", _view_keys("score", "control"),
    doc="""A player scores a given battlefield at most once per turn, by Conquer or Hold (CR
    465, rules.md 7): nobody is listed twice in a battlefield's scored-this-turn.""",
)
def scored_once_per_turn(s: GameState, legal: Sequence[Action]) -> bool:
    return all(len(set(f.scored)) == len(f.scored) for f in s.fields.values())


def _what_a_player_could_do(shown: dict[str, Any]) -> list[dict[str, Any]]:
    """The steps the rules give someone in a state that looks like ``shown``: a pass and an Add
    for whoever holds Priority or Focus, ending the turn in Neutral Open in the Main phase,
    answering a pending choice (of battlefield, or of damage). Where the rules deadlock, each
    is refused; where they keep the promise, one of them is taken, so a counterexample's
    ``expect_error`` on it fails."""
    steps: list[dict[str, Any]] = []
    for holder in dict.fromkeys(p for p in (shown["priority"], shown["focus"]) if p):
        steps += [{"pass": holder}, {"add": holder}]
    if shown["state"] == "neutral-open" and shown["turn"]["phase"] == "main":
        steps.append({"end_turn": shown["turn"]["player"]})
    choice = shown["pending_choice"]
    if choice and choice["kind"] == "battlefield":
        steps += [{"choose": {"player": choice["player"], "battlefield": bf}}
                  for bf in choice["options"]]
    if choice and choice["kind"] == "damage":
        steps += [{"assign": {"player": choice["player"], "damage": plan}}
                  for plan in _damage_plans(choice, shown["units"])]
    return steps


def _damage_plans(choice: dict[str, Any], units: dict[str, Any]) -> list[dict[str, int]]:
    """Lethal damage in full to the options in every order: the legal assignments are among
    them (the view does not show Tank and Backline, which only rule orders out)."""
    return combat.every_fill(choice["total"], [
        (uid, max(1, units[uid]["might"] - units[uid]["damage"]), 0) for uid in choice["options"]])


def _stuck_witness(child: GameState, parent: GameState | None) -> dict[str, Any]:
    """What shows nobody can act, and, at a damage choice, the Might and damage of its
    options (from which the assignments to try are worked out)."""
    shown = _view_keys("state", "focus", "priority", "chain", "pending_choice", "winner",
                       "turn")(child, parent)
    choice = shown["pending_choice"]
    if choice and choice["kind"] == "damage":
        units = view(child)["units"]
        shown["units"] = {uid: {"might": units[uid]["might"], "damage": units[uid]["damage"]}
                          for uid in choice["options"]}
    return shown


@_register(
    "no_deadlock", "rules 11.9", "state", _stuck_witness,
    refusals=_what_a_player_could_do,
    doc="""Someone can always act unless the game is over (rules 11.9: whatever stops the game
    waits for a player): legal() is empty only when there is a winner.""",
)
def no_deadlock(s: GameState, legal: Sequence[Action]) -> bool:
    return bool(legal) or s.winner is not None


# --- transition invariants -------------------------------------------------------------------


@_register(
    "control_frozen_while_contested", "S 184.3.c", "transition",
    _view_keys("control", "contested"),
    profiles=("seed",),
    doc="""Control never changes while a battlefield is Contested (S 184.3.c, profile seed),
    except the change made as the contest ends: control and Contested change together (rules
    11.6), so a battlefield Contested before and after the step keeps its controller.""",
)
def control_frozen_while_contested(parent: GameState, action: Action, child: GameState) -> bool:
    for bf, f in child.fields.items():
        before = parent.fields[bf]
        if f.controller != before.controller and parent.is_contested(bf) and child.is_contested(bf):
            return False
    return True


@_register(
    "control_kept_while_contest_under_way", "CR 323.6", "transition",
    _view_keys("control", "showdown"),
    profiles=("cr-1.4",),
    doc="""Control never changes at a battlefield while a Showdown or Combat is under way there
    (CR 323.6, profile cr-1.4; rules.md 9: control is lost in Cleanup in an Open state, not
    while a contest is ongoing there): a battlefield with a contest under way, and Contested,
    before and after the step keeps its controller. The change made as the contest settles is
    allowed: control and Contested change together (CR 461.5, 461.5.a), while a Combat's
    resolution may still have tasks to run.""",
)
def control_kept_while_contest_under_way(parent: GameState, action: Action,
                                         child: GameState) -> bool:
    for bf, f in child.fields.items():
        if f.controller != parent.fields[bf].controller and _contest_runs_on(parent, bf) \
                and _contest_runs_on(child, bf):
            return False
    return True


def _contest_runs_on(s: GameState, bf: str) -> bool:
    return s.in_showdown(bf) and s.is_contested(bf)


@_register(
    "scores_never_decrease", "CR 463", "transition", _view_keys("score"),
    doc="""Points are only ever gained (CR 463-466, rules.md 7): no player's score goes down.""",
)
def scores_never_decrease(parent: GameState, action: Action, child: GameState) -> bool:
    return all(child.scores[p] >= parent.scores[p] for p in parent.players)


@_register(
    "first_focus_to_applier", "CR 345", "transition",
    _view_keys("showdown", "focus", "contested"),
    doc="""When a Showdown begins, the player who applied Contested receives Focus, not
    necessarily the turn player (CR 345, rules.md 5.1); a Combat's first Focus goes to its
    Attacker, the applier (CR 459.2.b.1, 459.2.c, rules.md 6).""",
)
def first_focus_to_applier(parent: GameState, action: Action, child: GameState) -> bool:
    if child.winner or not _focus_cycle_began(parent, child):
        return True
    if not child.in_combat(child.contest_battlefield):
        return child.focus == child.fields[child.contest_battlefield].applier
    return child.focus == child.attacker


@_register(
    "non_card_chains_keep_focus", "rules 11.1", "transition",
    _view_keys("state", "showdown", "focus"),
    doc="""A chain begun by a triggered ability or an Add ability does not pass Focus when it
    ends (rules.md 5.3, rules 11.1 c): an Add in Showdown Open, or the end of such a chain in
    the same Showdown, leaves Focus where it was.""",
)
def non_card_chains_keep_focus(parent: GameState, action: Action, child: GameState) -> bool:
    if child.winner or child.contest_at is None or child.contest_at != parent.contest_at:
        return True
    if not child.chain_open or child.pending:
        return True
    if _kind(parent) != _kind(child):
        return True  # a conversion to Combat has its own Focus rule (rules.md 6.1)
    if _focus_cycle_began(parent, child):
        return True  # a Combat staged again began: its first Focus (first_focus_to_applier)
    if isinstance(action, Add) and parent.chain_open:
        return child.focus == parent.focus
    if parent.chain and parent.chain_begun_by in ("trigger", "add"):
        return child.focus == parent.focus
    return True


#: the battlefield chart's states in which a contest's Focus cycle runs (not the damage step
#: and resolution of a Combat, rules 11.5)
_FOCUS_CYCLE = ("non_combat", "combat_showdown")


def _in_focus_cycle(s: GameState) -> bool:
    if s.contest_at is None:
        return False
    return not s.bf_config(s.contest_at).isdisjoint(_FOCUS_CYCLE)


def _focus_cycle_began(parent: GameState, child: GameState) -> bool:
    """A contest's Focus cycle began with this transition: a Showdown opened, a Combat began,
    also one staged again at the same battlefield after No Result (rules.md 6); not a
    conversion, whose Showdown's cycle goes on as the Combat's (rules.md 6.1)."""
    return _in_focus_cycle(child) and (child.contest_at != parent.contest_at
                                       or not _in_focus_cycle(parent))


def _kind(s: GameState) -> str:
    return "combat" if s.in_combat(s.contest_battlefield) else "non-combat"
