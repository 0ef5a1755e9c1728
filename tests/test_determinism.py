"""Deterministic: the same scenario and actions give the same trace, byte for byte.

- In process: a game replayed from its action log reaches the same state, the same trace, the
  same chart transitions; so does a JSON snapshot taken mid-game with the rest of the log.
- Across processes: ``riftchart run`` (text and ``--json``) prints byte-identical output every
  time, including under different ``PYTHONHASHSEED`` values, which would expose any output that
  follows the iteration order of a set of strings (chart configurations are frozensets).
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from engine import Action, Add, Game
from engine.core import TransitionTaken
from tests.conftest import ROOT, SCENARIOS
from tests.test_api_properties import SETUPS

# Two scenarios written here, so the test does not depend on files elsewhere: the combat one
# exercises triggers, the chain, Focus, damage and resolution; the other a plain Showdown.
COMBAT_YAML = """\
name: Combat
players: [P1, P2]
battlefields: [{id: A, controller: P2}, {id: B}]
units:
  - {id: U1, controller: P1, might: 3, at: base,
     triggers: [{when: attack, effect: {damage: 1}, targets: enemies_here}]}
  - {id: E1, controller: P2, might: 2, at: A,
     triggers: [{when: defend, effect: {stun: {}}, targets: [U1]}]}
  - {id: E2, controller: P2, might: 1, at: A, keywords: [tank]}
hands:
  P2:
    - {id: S1, type: spell, timing: action, effect: {stun: {}}}
steps:
  - move: {player: P1, units: [U1], to: A}
  - expect: {state: showdown-closed, chain: ["U1:attack", "E1:defend"], priority: P2, focus: P1}
  - pass: P2
  - pass: P1
  - expect: {chain: ["U1:attack"], priority: P1}
  - pass: P1
  - pass: P2
  - expect: {state: showdown-open, focus: P1}
  - pass: P1
  - play: {player: P2, card: S1, targets: [U1]}
  - pass: P2
  - pass: P1
  - expect: {state: showdown-open, focus: P1}
  - pass: P1
  - pass: P2
  - expect: {state: neutral-open}
"""

SHOWDOWN_YAML = """\
name: Showdown at an empty battlefield
players: [P1, P2]
battlefields: [{id: A}]
units: [{id: U1, controller: P1, might: 2, at: base}]
steps:
  - move: {player: P1, units: [U1], to: A}
  - expect: {state: showdown-open, showdown: {at: A, kind: non-combat}, focus: P1}
  - pass: P1
  - pass: P2
  - expect: {state: neutral-open, control: {A: P1}, score: {P1: 1}}
  - end_turn: P1
  - end_turn: P2
  - expect: {score: {P1: 2}, turn: {player: P1, phase: main}}
"""


def _random_game(setup: dict, seed: int, limit: int = 400) -> Game:
    """A game played by a seeded random policy (Add abilities mostly skipped, so it ends)."""
    rng = random.Random(seed)
    game = Game.from_scenario(setup)
    while not game.is_over and len(game.log) < limit:
        legal = game.legal_actions()
        progress = [a for a in legal if not isinstance(a, Add)]
        game.apply(rng.choice(progress if progress and rng.random() < 0.8 else legal))
    return game


def _watched(setup: dict) -> tuple[Game, list[TransitionTaken]]:
    game = Game.from_scenario(setup)
    seen: list[TransitionTaken] = []
    game.observe(seen.append)
    return game, seen


@pytest.mark.parametrize("name", sorted(SETUPS))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_replaying_the_log_gives_the_same_game(name: str, seed: int) -> None:
    original = _random_game(SETUPS[name], seed)
    log: list[Action] = list(original.log)
    assert log, "the random game took no action"

    first, first_seen = _watched(SETUPS[name])
    first.replay(log)
    second, second_seen = _watched(SETUPS[name])
    second.replay(log)

    for replayed in (first, second):
        assert replayed.trace == original.trace
        assert replayed.snapshot() == original.snapshot()
        assert replayed.to_json() == original.to_json()
        assert replayed.view() == original.view()
        assert replayed.configurations == original.configurations
        assert replayed.winner == original.winner
        assert replayed.log == log
    assert first_seen == second_seen and first_seen, "the charts took other transitions"


@pytest.mark.parametrize("name", sorted(SETUPS))
def test_a_mid_game_snapshot_plus_the_rest_of_the_log_gives_the_same_end(name: str) -> None:
    original = _random_game(SETUPS[name], seed=7)
    log = original.log
    half = len(log) // 2
    game = Game.from_scenario(SETUPS[name])
    game.replay(log[:half])
    lines_before = game.trace
    resumed = Game.from_json(game.to_json())
    resumed.replay(log[half:])
    assert resumed.snapshot() == original.snapshot()
    assert resumed.view() == original.view()
    # a restored game starts a fresh trace: together they are the original's
    assert lines_before + resumed.trace == original.trace


# --- the command line -------------------------------------------------------------------------


def _riftchart(args: list[str], cwd: Path, hash_seed: str) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    return subprocess.run(
        [sys.executable, "-m", "engine.cli", *args],
        capture_output=True, cwd=cwd, env=env, timeout=300, check=False,
    )


@pytest.fixture
def scenario_files(tmp_path: Path) -> list[str]:
    (tmp_path / "combat.yaml").write_text(COMBAT_YAML, encoding="utf-8")
    (tmp_path / "showdown.yaml").write_text(SHOWDOWN_YAML, encoding="utf-8")
    return ["combat.yaml", "showdown.yaml"]


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_riftchart_run_prints_the_same_bytes_every_time(
    scenario_files: list[str], tmp_path: Path, as_json: bool
) -> None:
    args = ["run", *(["--json"] if as_json else []), *scenario_files]
    runs = [_riftchart(args, tmp_path, seed) for seed in ("0", "1", "12345")]
    for done in runs:
        assert done.returncode == 0, done.stderr.decode()
        assert done.stderr == b""
    assert runs[0].stdout, "riftchart run printed nothing"
    assert runs[0].stdout == runs[1].stdout == runs[2].stdout, (
        "riftchart run printed different output in different runs (hash seeds 0, 1, 12345)"
    )


def test_bundled_scenarios_print_the_same_bytes_every_time(tmp_path: Path) -> None:
    paths = [str(p) for p in SCENARIOS]
    assert paths, "no bundled scenarios"
    for args in (["run", *paths], ["run", "--json", *paths]):
        first = _riftchart(args, ROOT, "0")
        second = _riftchart(args, ROOT, "4242")
        assert first.returncode == second.returncode == 0, first.stderr.decode()
        assert first.stdout
        assert first.stdout == second.stdout, f"`riftchart {args[:2]}` output differs"


def test_api_game_is_the_same_under_other_hash_seeds(tmp_path: Path) -> None:
    """A game driven through the API in fresh interpreters: same trace and snapshot text."""
    script = tmp_path / "drive.py"
    script.write_text(
        "import random\n"
        "from engine import Add, Game\n"
        "from tests.test_api_properties import SETUPS\n"
        "for name in sorted(SETUPS):\n"
        "    rng = random.Random(3)\n"
        "    game = Game.from_scenario(SETUPS[name])\n"
        "    while not game.is_over and len(game.log) < 300:\n"
        "        legal = [a for a in game.legal_actions() if not isinstance(a, Add)]\n"
        "        game.apply(rng.choice(legal or game.legal_actions()))\n"
        "    print('\\n'.join(game.trace))\n"
        "    print(game.to_json())\n"
        "    print(sorted((k, sorted(v)) for k, v in game.configurations.items()))\n",
        encoding="utf-8",
    )
    outputs = []
    for seed in ("0", "99"):
        # the checkout first, for `tests`; then whatever else was on the path (the compiled
        # build, when the suite runs on it from a copy without the sources)
        path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": path}
        done = subprocess.run(
            [sys.executable, str(script)], capture_output=True, cwd=ROOT, env=env,
            timeout=300, check=False,
        )
        assert done.returncode == 0, done.stderr.decode()
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1], "the same game gave another trace under another hash seed"
