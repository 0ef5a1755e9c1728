"""Properties of the public API, checked over long random games (Hypothesis, stateful).

For each of four setups (1v1 on one battlefield, 1v1 on two with manual damage, a 3-player
free-for-all, a 2v2 teams game) a :class:`~hypothesis.stateful.RuleBasedStateMachine` plays
random games that mix

- actions drawn from ``legal_actions()``: each must pass ``check`` and be taken by ``apply``;
- random actions built from the setup's ids (wrong player, wrong card, bad targets, passes out
  of turn, unknown ids...) and near misses (a legal action with one field changed): each one
  ``check`` refuses must raise :class:`IllegalAction` with a non-empty ``.rule`` from ``apply``
  too and leave ``view()`` and ``snapshot()`` exactly as they were; one it accepts must be
  taken by ``apply``;
- round trips through ``snapshot()``/``Game.restore`` and ``to_json()``/``Game.from_json``: the
  copies have the same view, snapshot, configurations and legal actions, and taking the same
  action on the original and both copies gives the same trace lines and the same state.

Effort: ``RIFTCHART_PROPERTY_EXAMPLES`` is the number of Hypothesis examples per setup
(default 15); each example is a run of 100 steps that plays one game or, once a game is won,
several. Runs are derandomized (the same games every run, so the figures in docs/hardening.md
are reproducible); set ``RIFTCHART_PROPERTY_RANDOM=1`` to let Hypothesis pick fresh games, and
``RIFTCHART_PROPERTY_SHRINK=1`` to have it shrink a failing game (slow). What was exercised is
counted in ``EXERCISED`` and checked by the last test, so the file cannot pass by testing
nothing; ``pytest -s`` prints the figures, and they are written as
JSON to ``RIFTCHART_FIGURES_FILE`` when that is set (else to a pytest tmp dir).
"""

from __future__ import annotations

import copy
import json
import os
import random
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, settings, strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from engine import (
    Action,
    Add,
    Assign,
    Choose,
    EndTurn,
    Game,
    IllegalAction,
    Move,
    Pass,
    Play,
)

GAMES_PER_SETUP = int(os.environ.get("RIFTCHART_PROPERTY_EXAMPLES", "15"))
FRESH_RANDOMNESS = os.environ.get("RIFTCHART_PROPERTY_RANDOM", "") not in ("", "0")
# Shrinking a failing 100-step game can take Hypothesis minutes; every failure message already
# carries the game's action log, which is a reproduction. Opt in to shrinking when wanted.
SHRINK = os.environ.get("RIFTCHART_PROPERTY_SHRINK", "") not in ("", "0")
STEPS_PER_GAME = 100  # rule invocations; play_on takes several legal actions in one
BURST = 10
NEAR_MISSES = 3  # tried per try_near_misses step
SEEDS = st.integers(0, 2**32 - 1)

# --- the setups ----------------------------------------------------------------------------
# Victory scores are low so that a good share of random games end, and the games then go on
# to check that a finished game refuses everything.

ONE_BATTLEFIELD: dict[str, Any] = {
    "name": "1v1, one battlefield, every timing",
    "players": ["P1", "P2"],
    "victory_score": 4,
    "deck": {"P1": 3, "P2": 3},
    "battlefields": [
        {"id": "A", "abilities": [{"when": "beginning", "effect": {"gain_points": 1}}]},
    ],
    "units": [
        {"id": "U1", "controller": "P1", "might": 3, "at": "base",
         "triggers": [{"when": "attack", "effect": {"damage": 1}, "targets": "enemies_here"}]},
        {"id": "U2", "controller": "P1", "might": 1, "at": "base", "keywords": ["ganking"]},
        {"id": "E1", "controller": "P2", "might": 2, "at": "A",
         "triggers": [{"when": "defend", "effect": {"stun": {}}, "targets": ["U1"]}]},
        {"id": "E2", "controller": "P2", "might": 1, "at": "base", "keywords": ["tank"]},
    ],
    "hands": {
        "P1": [
            {"id": "S1", "type": "spell", "timing": "action", "effect": {"stun": {}}},
            {"id": "S2", "type": "spell", "timing": "reaction", "effect": {"move": {}}},
            {"id": "S3", "type": "spell", "timing": "none", "effect": {"kill": {}}},
            {"id": "C1", "type": "unit", "timing": "reaction",
             "unit": {"might": 2, "triggers": [{"when": "play", "effect": {"draw": 1}}]}},
        ],
        "P2": [
            {"id": "S4", "type": "spell", "timing": "action", "effect": {"damage": 2}},
            {"id": "S5", "type": "spell", "timing": "reaction", "effect": {"gain_points": 1}},
            {"id": "C2", "type": "unit", "timing": "none",
             "unit": {"might": 3, "keywords": ["backline"]}},
        ],
    },
}

# Ids whose alphabetical order differs from board order (E2 before C2, T1 entering late) on
# purpose: anything that sorts what should keep its order shows up in the round trips.
TWO_BATTLEFIELDS: dict[str, Any] = {
    "name": "1v1, two battlefields, manual damage",
    "players": ["P1", "P2"],
    "victory_score": 3,
    "manual_damage": True,
    "battlefields": [
        {"id": "A", "controller": "P2",
         "abilities": [{"when": "conquer", "effect": {"draw": 1}}]},
        {"id": "B", "abilities": [{"when": "hold", "effect": {"gain_points": 1}}]},
    ],
    "units": [
        {"id": "U1", "controller": "P1", "might": 3, "at": "base"},
        {"id": "U2", "controller": "P1", "might": 2, "at": "base", "keywords": ["ganking"],
         "triggers": [{"when": "move", "effect": {"damage": 1}, "targets": "enemies_here"}]},
        {"id": "U3", "controller": "P1", "might": 1, "at": "B", "keywords": ["backline"]},
        {"id": "E2", "controller": "P2", "might": 2, "at": "A", "keywords": ["tank"],
         "triggers": [{"when": "die", "effect": {"gain_points": 1}}]},
        {"id": "E1", "controller": "P2", "might": 3, "at": "A"},
        {"id": "E3", "controller": "P2", "might": 1, "at": "base",
         "triggers": [{"when": "conquer", "effect": {"draw": 1}}]},
    ],
    "hands": {
        "P1": [
            {"id": "S1", "type": "spell", "timing": "reaction", "effect": {"recall": {}}},
            {"id": "S2", "type": "spell", "timing": "action", "effect": {"move": {}}},
            {"id": "S3", "type": "spell", "timing": "action", "effect": {"take_control": {}}},
            {"id": "S6", "type": "spell", "timing": "none",
             "effect": {"sequence": [{"damage": 1}, {"gain_points": 1}]}},
            {"id": "S7", "type": "spell", "timing": "none",
             "effect": {"sequence": [{"move": {"units": ["U1"], "to": "A"}},
                                     {"move": {"units": ["U2"], "to": "B"}}]}},
        ],
        "P2": [
            {"id": "S4", "type": "spell", "timing": "reaction", "effect": {"return_to_hand": {}}},
            {"id": "S5", "type": "spell", "timing": "action",
             "effect": {"play_unit": {"id": "T1", "might": 2}}},
            {"id": "C2", "type": "unit", "timing": "action",
             "unit": {"might": 2, "keywords": ["tank"]}},
        ],
    },
}

FREE_FOR_ALL: dict[str, Any] = {
    "name": "3-player free-for-all",
    "players": ["P1", "P2", "P3"],
    "victory_score": 3,
    "battlefields": [{"id": "A"}, {"id": "B", "controller": "P3"}],
    "units": [
        # U1 drags U2 along to B: two contests staged at once, so a battlefield choice
        {"id": "U1", "controller": "P1", "might": 2, "at": "base",
         "triggers": [{"when": "move", "effect": {"move": {"units": ["U2"], "to": "B"}}}]},
        {"id": "U2", "controller": "P1", "might": 1, "at": "base"},
        {"id": "V1", "controller": "P2", "might": 2, "at": "base"},
        {"id": "V2", "controller": "P2", "might": 2, "at": "A"},
        {"id": "W1", "controller": "P3", "might": 3, "at": "B",
         "triggers": [{"when": "defend", "effect": {"damage": 1}, "targets": "enemies_here"}]},
        {"id": "W2", "controller": "P3", "might": 1, "at": "base"},
    ],
    "hands": {
        "P1": [{"id": "S1", "type": "spell", "timing": "action", "effect": {"stun": {}}},
               {"id": "S2", "type": "spell", "timing": "reaction", "effect": {"kill": {}}}],
        "P2": [{"id": "S3", "type": "spell", "timing": "reaction", "effect": {"move": {}}},
               {"id": "C1", "type": "unit", "timing": "none", "unit": {"might": 2}}],
        "P3": [{"id": "S4", "type": "spell", "timing": "action", "effect": {"gain_points": 1}},
               {"id": "S5", "type": "spell", "timing": "none", "effect": {"damage": 3}}],
    },
}

TEAMS: dict[str, Any] = {
    "name": "2v2 teams",
    "players": ["P1", "P2", "P3", "P4"],
    "teams": [["P1", "P3"], ["P2", "P4"]],
    "victory_score": 3,
    "battlefields": [{"id": "A"}, {"id": "B", "controller": "P2"}],
    "units": [
        {"id": "U1", "controller": "P1", "might": 2, "at": "base"},
        {"id": "U3", "controller": "P3", "might": 2, "at": "base"},
        {"id": "V2", "controller": "P2", "might": 2, "at": "B"},
        {"id": "V4", "controller": "P4", "might": 1, "at": "base",
         "triggers": [{"when": "move", "effect": {"stun": {}}, "targets": "enemies_here"}]},
    ],
    "hands": {
        "P1": [{"id": "S1", "type": "spell", "timing": "reaction", "effect": {"damage": 1}}],
        "P2": [{"id": "S2", "type": "spell", "timing": "action", "effect": {"move": {}}}],
        "P3": [{"id": "C3", "type": "unit", "timing": "action", "unit": {"might": 1}}],
        "P4": [{"id": "S4", "type": "spell", "timing": "none", "effect": {"gain_points": 1}}],
    },
}

SETUPS: dict[str, dict[str, Any]] = {
    "one_battlefield": ONE_BATTLEFIELD,
    "two_battlefields": TWO_BATTLEFIELDS,
    "free_for_all": FREE_FOR_ALL,
    "teams": TEAMS,
}


@dataclass(frozen=True)
class Ids:
    """The names a random action is built from: the setup's own, plus some that mean nothing."""

    players: tuple[str, ...]
    units: tuple[str, ...]
    cards: tuple[str, ...]
    places: tuple[str, ...]

    @classmethod
    def of(cls, setup: dict[str, Any]) -> Ids:
        cards = tuple(card["id"] for hand in setup.get("hands", {}).values() for card in hand)
        made = tuple(  # units that play_unit effects may create
            eff["play_unit"]["id"]
            for hand in setup.get("hands", {}).values()
            for card in hand
            if (eff := card.get("effect")) and "play_unit" in eff
        )
        fields = tuple(b["id"] for b in setup["battlefields"])
        return cls(
            players=(*setup["players"], "P9", ""),
            units=(*(u["id"] for u in setup["units"]), *made, "ghost"),
            cards=(*cards, "ghost"),
            places=(*fields, "base", "hand", "trash", "nowhere"),
        )


def random_actions(ids: Ids) -> st.SearchStrategy[Action]:
    """Any action at all built from the ids: almost all illegal, a few legal by chance."""
    player = st.sampled_from(ids.players)
    unit = st.sampled_from(ids.units + ids.cards + ids.places[:1])
    card = st.sampled_from(ids.cards + ids.units[:1])
    place = st.sampled_from(ids.places + ids.units[:1])
    units = st.lists(unit, max_size=3).map(tuple)
    amounts = st.lists(st.tuples(unit, st.integers(-1, 7)), max_size=3).map(tuple)
    return st.one_of(
        st.builds(Move, player, units, place),
        st.builds(Play, player, card, st.lists(unit, max_size=2).map(tuple), st.none() | place),
        st.builds(Pass, player),
        st.builds(Add, player),
        st.builds(Choose, player, place),
        st.builds(Assign, player, amounts),
        st.builds(EndTurn, player),
    )


def near_misses(action: Action, ids: Ids) -> list[Action]:
    """Actions one field away from a legal one: the mistakes a client is likely to make."""
    found: list[Action] = []
    for other in ids.players:
        if other != action.player:
            found.append(replace(action, player=other))  # wrong player, or out of turn
    if isinstance(action, Move):
        found += [replace(action, units=action.units + action.units[:1])]  # a unit twice
        found += [replace(action, units=action.units + (u,)) for u in ids.units]
        found += [replace(action, to=p) for p in ids.places + ids.units[:1]]
        found += [replace(action, units=())]
    elif isinstance(action, Play):
        found += [replace(action, card=c) for c in ids.cards + ids.units[:1]]
        found += [replace(action, targets=(t,)) for t in ids.cards + ids.places]
        found += [replace(action, targets=action.targets + ("ghost",)), replace(action, to=None)]
        found += [replace(action, to=p) for p in ids.places + ids.units[:1]]
        if not action.targets:
            found += [replace(action, targets=ids.units[:1])]  # targets it does not take
    elif isinstance(action, Choose):
        found += [replace(action, battlefield=p) for p in ids.places + ids.units[:1]]
    elif isinstance(action, Assign):
        found += [replace(action, damage=())]
        found += [replace(action, damage=tuple((u, n + 1) for u, n in action.damage))]
        found += [replace(action, damage=tuple((u, -1) for u, _ in action.damage))]
        found += [replace(action, damage=action.damage + (("ghost", 1),))]
    return [a for a in found if a != action]


# --- what was exercised ----------------------------------------------------------------------

EXERCISED: Counter[str] = Counter()


def _canonical(action: Action) -> Action:
    """An action as legal_actions() would list it, where several spellings mean the same."""
    if isinstance(action, Move):
        return replace(action, units=tuple(sorted(action.units)))
    return action


def _listable(action: Action) -> bool:
    """Actions legal_actions() is meant to list whenever they are legal. Not listed: plays at
    several targets; a unit card played with ``to="base"`` (listed as ``to=None``; without
    the card's type at hand, every untargeted play to base is left out); damage plans, which
    can be spelled in many orders and with zero entries."""
    if isinstance(action, Assign):
        return False
    if isinstance(action, Play):
        return len(action.targets) <= 1 and not (action.to == "base" and not action.targets)
    return True


def _apply(game: Game, action: Action, why_legal: str) -> list[str]:
    """``game.apply(action)`` for an action known to be legal: a refusal or a crash is a bug,
    reported with the game's log (a reproduction: replay it from the setup)."""
    log = list(game.log)
    try:
        return game.apply(action)
    except IllegalAction as refused:
        raise AssertionError(f"ENGINE BUG: {why_legal} {action} but apply() refused it: "
                             f"{refused}; log={log}") from refused
    except Exception as crash:
        raise AssertionError(f"ENGINE BUG: {why_legal} {action} but apply() crashed with "
                             f"{crash!r}; log={log}") from crash


# --- the state machine -------------------------------------------------------------------------


class ApiMachine(RuleBasedStateMachine):
    """One random game of one setup (chosen by the subclass's ``SETUP``)."""

    SETUP = "one_battlefield"

    def __init__(self) -> None:
        super().__init__()
        self.setup = SETUPS[self.SETUP]
        self.ids = Ids.of(self.setup)
        self.game = Game.from_scenario(self.setup)

    @initialize()
    def count_game(self) -> None:
        EXERCISED["games"] += 1
        EXERCISED[f"games[{self.SETUP}]"] += 1

    @precondition(lambda self: self.game.is_over)
    @rule()
    def start_over(self) -> None:
        """A finished game has been poked at enough (every rule but this one refuses to play
        on, or checks that it refuses): play another game of the same setup."""
        self.game = Game.from_scenario(self.setup)
        self.count_game()

    # --- legal actions ----------------------------------------------------------------

    def _apply_legal(self, action: Action) -> None:
        game = self.game
        try:
            game.check(action)
        except IllegalAction as refused:
            raise AssertionError(f"legal_actions() offered {action} but check() refused it: "
                                 f"{refused}; log={game.log}") from refused
        _apply(game, action, "legal_actions() offered")
        self._count_applied(action)

    def _count_applied(self, action: Action) -> None:
        EXERCISED["legal actions applied"] += 1
        EXERCISED[f"applied {type(action).__name__}"] += 1
        if self.game.is_over:
            EXERCISED["games won"] += 1

    @precondition(lambda self: not self.game.is_over)
    @rule(data=st.data())
    def take_a_legal_action(self, data: st.DataObject) -> None:
        self._apply_legal(data.draw(st.sampled_from(self.game.legal_actions()), label="legal"))

    @precondition(lambda self: not self.game.is_over)
    @rule(seed=SEEDS, count=st.integers(1, BURST))
    def play_on(self, seed: int, count: int) -> None:
        """Long games cheaply: several legal actions, chosen uniformly by a seeded generator.

        Hypothesis's own draws favour the first items of a list (they shrink best), and the
        first legal action is often an Add ability, which changes nothing; a seeded uniform
        choice makes the games progress to a winner.
        """
        rng = random.Random(seed)
        for _ in range(count):
            if self.game.is_over:
                return
            legal = self.game.legal_actions()
            # Add abilities are often half of the choices and never move the game on: skip
            # them most of the time, so games reach their end within the step budget.
            progress = [a for a in legal if not isinstance(a, Add)]
            self._apply_legal(rng.choice(progress if progress and rng.random() < 0.8 else legal))

    # --- illegal actions ------------------------------------------------------------------

    def _before(self) -> tuple[dict[str, Any], dict[str, Any]]:
        return self.game.view(), self.game.snapshot()

    def _try(self, action: Action, before: tuple[dict[str, Any], dict[str, Any]]) -> bool:
        """Try ``action`` on a game whose view and snapshot are ``before``; True if it was taken.

        Refused by check: apply refuses it too, naming a rule, and nothing changes.
        Accepted by check (an action built at random can be legal by chance): legal_actions()
        lists it, where listing is promised, and apply takes it.
        """
        game = self.game
        view, snapshot = before
        try:
            game.check(action)
        except IllegalAction as refused:
            assert refused.rule, f"IllegalAction without a rule for {action}: {refused!r}"
            try:
                game.apply(action)
            except IllegalAction as also_refused:
                assert also_refused.rule, f"apply refused {action} without naming a rule"
            except Exception as crash:
                raise AssertionError(f"ENGINE BUG: apply({action}) crashed with {crash!r} "
                                     f"instead of refusing it; log={game.log}") from crash
            else:
                raise AssertionError(f"check() refused {action} but apply() took it; "
                                     f"log={game.log}") from refused
            # one comparison covers check and apply: neither may change anything
            assert game.view() == view, f"the refused {action} changed view(); log={game.log}"
            assert game.snapshot() == snapshot, (
                f"the refused {action} changed snapshot(); log={game.log}"
            )
            EXERCISED["illegal actions refused"] += 1
            return False
        except Exception as crash:
            raise AssertionError(f"ENGINE BUG: check({action}) crashed with {crash!r} instead "
                                 f"of refusing it; log={game.log}") from crash
        if _listable(action):
            listed = {_canonical(a) for a in game.legal_actions()}
            assert _canonical(action) in listed, (
                f"check() accepts {action} but legal_actions() does not list it; log={game.log}"
            )
        _apply(game, action, "check() accepted")
        self._count_applied(action)
        EXERCISED["random actions that were legal, applied"] += 1
        return True

    @rule(data=st.data())
    def try_a_random_action(self, data: st.DataObject) -> None:
        self._try(data.draw(random_actions(self.ids), label="random"), self._before())

    @precondition(lambda self: not self.game.is_over)
    @rule(seed=SEEDS)
    def try_near_misses(self, seed: int) -> None:
        rng = random.Random(seed)
        misses = near_misses(rng.choice(self.game.legal_actions()), self.ids)
        before = self._before()
        for action in rng.sample(misses, min(NEAR_MISSES, len(misses))):
            if self._try(action, before):
                before = self._before()  # it was legal after all: the game moved on

    # --- round trips ------------------------------------------------------------------------

    @rule(seed=SEEDS)
    def round_trip(self, seed: int) -> None:
        game = self.game
        snapshot = game.snapshot()
        kept = copy.deepcopy(snapshot)
        restored = Game.restore(snapshot)
        from_json = Game.from_json(game.to_json())
        legal, view = game.legal_actions(), game.view()
        for name, other in (("restore", restored), ("from_json", from_json)):
            assert other.view() == view, f"{name}: view differs; log={game.log}"
            # equal snapshots give equal to_json() text: its keys are sorted
            assert other.snapshot() == snapshot, f"{name}: snapshot differs; log={game.log}"
            assert other.configurations == game.configurations, f"{name}: configurations differ"
            assert other.legal_actions() == legal, f"{name}: legal actions differ; log={game.log}"
            assert other.is_over == game.is_over and other.winner == game.winner
        EXERCISED["round trips"] += 2
        if not legal:
            return
        # The copies go on exactly as the original does.
        action = random.Random(seed).choice(legal)
        lines = _apply(game, action, "legal_actions() offered")
        self._count_applied(action)
        after = game.snapshot()
        for name, other in (("restore", restored), ("from_json", from_json)):
            assert _apply(other, action, f"after {name}, legal_actions() offered") == lines, (
                f"{name}: {action} gave other trace lines after the round trip; log={game.log}"
            )
            assert other.snapshot() == after, (
                f"{name}: {action} led to another state after the round trip; log={game.log}"
            )
        assert snapshot == kept, "a snapshot changed after the game (or its copy) played on"
        EXERCISED["continuations after a round trip"] += 2

    # --- always -------------------------------------------------------------------------

    @invariant()
    def over_exactly_when_nothing_is_legal(self) -> None:
        game = self.game
        assert game.view()["winner"] == game.winner
        if game.is_over:
            assert game.legal_actions() == [], f"legal actions after {game.winner} won"
            view = game.view()
            assert view["focus"] is None and view["priority"] is None, (
                f"after {game.winner} won, the view still hands Focus/Priority to someone "
                f"(focus={view['focus']}, priority={view['priority']}); log={game.log}"
            )
        else:
            assert game.legal_actions(), f"no legal action, yet no winner; log={game.log}"


def _settings() -> settings:
    phases = [Phase.explicit, Phase.reuse, Phase.generate] + ([Phase.shrink] if SHRINK else [])
    return settings(
        phases=phases,
        max_examples=GAMES_PER_SETUP,
        stateful_step_count=STEPS_PER_GAME,
        deadline=None,
        derandomize=not FRESH_RANDOMNESS,
        database=None if not FRESH_RANDOMNESS else settings.default.database,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        print_blob=True,
    )


def _machine_for(setup: str) -> type[ApiMachine]:
    return type(f"ApiMachine_{setup}", (ApiMachine,), {"SETUP": setup})


MACHINES: dict[str, type[ApiMachine]] = {name: _machine_for(name) for name in SETUPS}


def _run(setup: str) -> None:
    run_state_machine_as_test(MACHINES[setup], settings=_settings())


# One test per setup, so a failure names its setup.
def test_one_battlefield() -> None:
    _run("one_battlefield")


def test_two_battlefields_manual_damage() -> None:
    _run("two_battlefields")


def test_free_for_all() -> None:
    _run("free_for_all")


def test_teams() -> None:
    _run("teams")


# --- deterministic regressions for what the machines found ------------------------------------


def _json_order_game() -> Game:
    """A combat with manual damage where P1 assigned damage to Z1 then A1 (board order), and
    P2 has yet to assign: the plan sits in the snapshot, keyed by unit."""
    game = Game.from_scenario({
        "name": "damage plan order", "players": ["P1", "P2"], "manual_damage": True,
        "battlefields": [{"id": "A"}],
        "units": [
            {"id": "U1", "controller": "P1", "might": 3, "at": "base"},
            {"id": "Z1", "controller": "P2", "might": 2, "at": "A"},
            {"id": "A1", "controller": "P2", "might": 1, "at": "A"},
        ],
    })
    game.replay([Move("P1", ("U1",), "A"), Pass("P1"), Pass("P2"),
                 Assign("P1", (("Z1", 2), ("A1", 1)))])
    return game


def test_json_round_trip_keeps_the_damage_plan_order() -> None:
    game = _json_order_game()
    copy_ = Game.from_json(game.to_json())
    action = Assign("P2", (("U1", 3),))
    assert game.legal_actions() == copy_.legal_actions() == [action]
    expected, got = game.apply(action), copy_.apply(action)
    assert got == expected, (
        "ENGINE BUG: Game.from_json(game.to_json()) does not continue identically: to_json() "
        "sorts keys, so the damage plan {Z1: 2, A1: 1} comes back as {A1: 1, Z1: 2} and the "
        f"trace reads {got[1]!r} instead of {expected[1]!r}"
    )


def test_restored_game_does_not_share_the_snapshot_data() -> None:
    game = Game.from_scenario({
        "name": "aliasing", "players": ["P1", "P2"], "battlefields": [{"id": "A"}],
        "hands": {"P1": [{"id": "S1", "type": "spell", "timing": "action",
                          "effect": {"play_unit": {"id": "T1", "might": 2}}}]},
    })
    data = game.snapshot()
    restored = Game.restore(data)
    before = restored.to_json()
    data["hands"]["P1"][0]["effect"]["play_unit"]["might"] = 99  # the caller reuses its dict
    assert restored.to_json() == before, (
        "ENGINE BUG: Game.restore(data) keeps references into `data` (card effects): changing "
        "the snapshot dict after restoring changed the restored game"
    )


def test_snapshots_keep_the_keys_of_format_1() -> None:
    """Keys of riftchart-snapshot/1 are never removed (docs/embedding.md): a chain item still
    carries ``chosen_to``, which riftchart no longer reads, and an old snapshot restores."""
    game = Game.from_scenario({
        "name": "chain items", "players": ["P1", "P2"], "battlefields": [{"id": "A"}],
        "units": [{"id": "U1", "controller": "P1", "might": 1, "at": "base"}],
        "hands": {"P1": [{"id": "S1", "type": "spell", "timing": "action",
                          "effect": {"move": {}}}]},
    })
    game.apply(Play("P1", "S1", ("U1",), "A"))
    data = game.snapshot()
    (item,) = data["chain"]
    assert item["chosen_to"] is True and item["to"] == "A"
    item["chosen_to"] = False  # whatever an old riftchart wrote there, `to` decides
    assert Game.restore(data).legal_actions() == game.legal_actions()


def test_a_snapshot_from_before_staged_combatants_restores_the_same_game() -> None:
    """``staged_combatants`` was added within format /1: a snapshot without it, taken while a
    Combat is staged, restores with the staged Combat's players (scenario 243: a third player
    is still barred)."""
    from tests.conftest import SCENARIOS

    (path,) = [p for p in SCENARIOS if p.name.startswith("243_")]
    game = Game.from_scenario(path)
    for action in [Play("P1", "S1"), Pass("P1"), Pass("P2"), Pass("P3")]:
        game.apply(action)
    data = game.snapshot()
    (field,) = [f for f in data["fields"] if f["id"] == "A"]
    assert field.pop("staged_combatants") == ["P1", "P2"]
    restored = Game.restore(data)
    assert restored.snapshot() == game.snapshot()
    for played in (game, restored):
        for action in [Play("P1", "S2"), Pass("P1"), Pass("P2"), Pass("P3")]:
            played.apply(action)
        assert played.view()["units"]["F3"]["at"] == "base"


@pytest.mark.parametrize(("number", "choosing", "opened"), [
    ("002", "choosing_showdown", {"at": "A", "kind": "non-combat"}),
    ("028", "choosing_combat", {"at": "A", "kind": "combat"}),
])
def test_a_snapshot_from_before_the_split_choosing_restores_the_same_game(
        number: str, choosing: str, opened: dict[str, str]) -> None:
    """The scheduler's ``choosing`` was split within format /1 into a choice of Showdowns and
    a choice of Combats: a snapshot naming the old state, taken while the turn player chooses,
    restores as the one it was (its options say which), and the choice opens that contest."""
    from tests.conftest import SCENARIOS

    (path,) = [p for p in SCENARIOS if p.name.startswith(f"{number}_")]
    game = Game.from_scenario(path)
    for action in [Play("P1", "S1"), Pass("P1"), Pass("P2")]:
        game.apply(action)
    data = game.snapshot()
    assert data["configs"]["scheduler"] == [choosing]
    data["configs"]["scheduler"] = ["choosing"]
    restored = Game.restore(data)
    assert restored.snapshot() == game.snapshot()
    for played in (game, restored):
        played.apply(Choose("P1", "A"))
        assert {k: played.view()["showdown"][k] for k in opened} == opened


def test_a_staged_combats_players_are_used_up_when_it_begins() -> None:
    """A battlefield notes the two players of a Combat staged there only while it is staged
    (D16): once the Combat begins they are its Attacker and Defender, and the note is gone."""
    game = Game.from_scenario({
        "name": "a combat begins", "players": ["P1", "P2"],
        "battlefields": [{"id": "A", "controller": "P2"}],
        "units": [{"id": "U1", "controller": "P1", "might": 1, "at": "base"},
                  {"id": "E1", "controller": "P2", "might": 1, "at": "A"}],
    })
    game.apply(Move("P1", ("U1",), "A"))
    data = game.snapshot()
    assert (data["attacker"], data["defender"]) == ("P1", "P2")
    (field,) = data["fields"]
    assert field["staged_combatants"] == []


def test_who_held_focus_when_a_chain_began_is_forgotten_once_it_has_ended() -> None:
    """It matters only to the Cleanup after the chain (a conversion gives Focus back to them,
    rules 11.1 d); kept, it would tell apart positions that are one, in snapshots and to the
    model checker. A snapshot written while it was still kept, or with the ``resolving`` flag
    riftchart once wrote, restores the same game."""
    game = Game.from_scenario({
        "name": "a card chain in a showdown", "players": ["P1", "P2"],
        "battlefields": [{"id": "A"}],
        "units": [{"id": "U1", "controller": "P1", "might": 1, "at": "base"}],
        "hands": {"P1": [{"id": "S1", "type": "spell", "timing": "action",
                          "effect": {"draw": 1}}]},
    })
    game.apply(Move("P1", ("U1",), "A"))
    game.apply(Play("P1", "S1"))
    assert game.snapshot()["focus_at_chain_start"] == "P1"  # the chain is under way
    game.apply(Pass("P1"))
    game.apply(Pass("P2"))
    data = game.snapshot()
    assert (data["focus"], data["focus_at_chain_start"]) == ("P2", None)
    assert "resolving" not in data
    data.update(focus_at_chain_start="P1", resolving=False)
    restored = Game.restore(data)
    restored.apply(Pass("P2"))
    game.apply(Pass("P2"))
    assert restored.snapshot() == game.snapshot()


def test_winning_by_a_spell_during_a_showdown_does_not_crash() -> None:
    game = Game.from_scenario({
        "name": "win by a spell in a showdown", "players": ["P1", "P2"], "victory_score": 1,
        "battlefields": [{"id": "A"}],
        "units": [{"id": "U1", "controller": "P1", "might": 1, "at": "base"}],
        "hands": {"P1": [{"id": "S1", "type": "spell", "timing": "action",
                          "effect": {"gain_points": 1}}]},
    })
    steps = [Move("P1", ("U1",), "A"), Play("P1", "S1"), Pass("P1"), Pass("P2")]
    for action in steps:
        assert action in game.legal_actions(), f"{action} is not offered; log={game.log}"
        try:
            game.apply(action)
        except IllegalAction:
            raise
        except Exception as crash:
            raise AssertionError(
                f"ENGINE BUG: apply({action}) crashed with {crash!r}: S1 resolves, P1 reaches "
                "the victory score mid-Showdown, the win clears Focus, and the Focus chart then "
                "passes Focus on from None (models.pass_focus_on -> state.next_player(None))"
            ) from crash
    assert game.winner == "P1"
    assert game.legal_actions() == []
    view = game.view()
    assert view["focus"] is None and view["priority"] is None, (
        "ENGINE BUG: the win clears Focus and Priority (scoring.check_win), but the chain then "
        f"closes and hands Focus on anyway: focus={view['focus']}, priority={view['priority']}, "
        f"trace ends {game.trace[-2:]}"
    )


# --- the figures: the tests above cannot pass by exercising nothing ---------------------------

MINIMUMS_AT_DEFAULT = {
    "games": 50,
    "legal actions applied": 1_000,
    "illegal actions refused": 200,
    "round trips": 100,
}


def _minimums() -> dict[str, int]:
    """The default minimums, scaled with RIFTCHART_PROPERTY_EXAMPLES (at least 1 each)."""
    scale = GAMES_PER_SETUP / 15
    return {key: max(1, int(n * scale)) for key, n in MINIMUMS_AT_DEFAULT.items()}


def test_enough_was_exercised(tmp_path_factory: pytest.TempPathFactory) -> None:
    # Run any setup whose test did not run in this session (e.g. under `pytest -k`), so this
    # check means the same whichever tests were selected.
    for setup in SETUPS:
        if not EXERCISED[f"games[{setup}]"]:
            _run(setup)
    figures = dict(sorted(EXERCISED.items()))
    print("\nriftchart API property figures:", json.dumps(figures, indent=2))
    target = os.environ.get("RIFTCHART_FIGURES_FILE")
    path = Path(target) if target else tmp_path_factory.mktemp("figures") / "api-figures.json"
    path.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    for key, minimum in _minimums().items():
        assert EXERCISED[key] >= minimum, f"only {EXERCISED[key]} {key} (need {minimum})"
    for setup in SETUPS:
        assert EXERCISED[f"games[{setup}]"] > 0, f"no game of {setup} was played"
    # every kind of action the setups allow was taken at least once
    for kind in ("Move", "Play", "Pass", "EndTurn", "Assign"):
        assert EXERCISED[f"applied {kind}"] > 0, f"no {kind} was ever applied"

