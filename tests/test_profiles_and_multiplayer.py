"""Free-for-all, 2v2 teams and the rules profiles (the 2NN scenarios).

Each profile pair is two files with the same setup and steps, one `rules: seed` and one
`rules: cr-1.4`, each with the expectations of its own profile (rules.md section 9). Here:
`compare` finds the exact step where the profiles part and marks it; the seed file fails under
`--rules cr-1.4` at its first expectation after that step, and passes under `--rules seed`.
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from engine.compare import compare, format_comparison
from engine.runner import FAILED, INVALID, OK, run_file
from engine.scenario import load_scenario
from tests.conftest import ROOT
from tests.helpers import step_block, trace_lines, write_yaml

SCENARIO_DIR = ROOT / "scenarios"


@dataclass(frozen=True)
class Pair:
    seed: str
    cr14: str
    parts_at: int  # the step where the two profiles' traces first differ
    fails_at: int  # the seed file's first `expect` that cr-1.4 does not meet
    tag: str  # the profile tag on the trace line that decides it at `parts_at`
    key: str  # a state key that differs at `parts_at`

    @property
    def seed_path(self) -> Path:
        return SCENARIO_DIR / self.seed

    @property
    def cr14_path(self) -> Path:
        return SCENARIO_DIR / self.cr14


PAIRS = [
    # (a) control loss with no units: seed at once, cr-1.4 only in an Open state.
    Pair(
        "220_profile_control_loss_seed.yaml",
        "221_profile_control_loss_cr14.yaml",
        parts_at=8,
        fails_at=9,
        tag="[profile seed]",
        key="control",
    ),
    # (b) control frozen: seed while Contested, cr-1.4 while a contest is ongoing there.
    Pair(
        "222_profile_control_frozen_seed.yaml",
        "223_profile_control_frozen_cr14.yaml",
        parts_at=7,
        fails_at=8,
        tag="[profile cr-1.4]",
        key="control",
    ),
    # (c) Focus when a showdown converts: seed the chain-starter keeps it, cr-1.4 the Attacker.
    Pair(
        "224_profile_conversion_focus_seed.yaml",
        "225_profile_conversion_focus_cr14.yaml",
        parts_at=10,
        fails_at=11,
        tag="[profile seed]",
        key="focus",
    ),
    # (b) again, with teams: a teammate's frozen battlefield makes a required move recall.
    Pair(
        "226_profile_teams_teammate_battlefield_seed.yaml",
        "227_profile_teams_teammate_battlefield_cr14.yaml",
        parts_at=17,
        fails_at=18,
        tag="[profile cr-1.4]",
        key="control",
    ),
]
PAIR_IDS = [p.seed.split("_", 1)[0] for p in PAIRS]

SCENARIOS_2NN = sorted(SCENARIO_DIR.glob("2[0-9][0-9]_*.yaml"))


def _cli(*args: str) -> subprocess.CompletedProcess:
    # this interpreter's riftchart: a `riftchart` found on PATH may be another installation
    return subprocess.run([sys.executable, "-m", "engine.cli", *args], capture_output=True,
                          text=True, timeout=120)


# --- every 2NN scenario ---------------------------------------------------------------------


def test_there_are_2nn_scenarios():
    assert len(SCENARIOS_2NN) >= 15


@pytest.mark.parametrize("path", SCENARIOS_2NN, ids=[p.stem for p in SCENARIOS_2NN])
def test_2nn_scenario_passes(path):
    result = run_file(path)
    assert result.code == OK, result.message


# --- profile pairs --------------------------------------------------------------------------


@pytest.mark.parametrize("pair", PAIRS, ids=PAIR_IDS)
def test_pair_has_same_setup_and_steps(pair):
    seed, cr14 = load_scenario(pair.seed_path), load_scenario(pair.cr14_path)
    assert (seed.rules, cr14.rules) == ("seed", "cr-1.4")
    for field in ("players", "teams", "turn_player", "victory_score", "scores", "deck",
                  "battlefields", "units", "hands"):
        assert getattr(seed, field) == getattr(cr14, field), field

    def actions(s):
        return [st.as_mapping() for st in s.steps if st.kind != "expect"]

    assert actions(seed) == actions(cr14)
    assert len(seed.steps) == len(cr14.steps)
    # Both files run to the end, so the expectations after the parting step are checked too.
    assert pair.fails_at < len(seed.steps)


@pytest.mark.parametrize("pair", PAIRS, ids=PAIR_IDS)
def test_compare_finds_the_parting_step(pair):
    comparison = compare(str(pair.seed_path))
    assert comparison.first_difference == pair.parts_at
    assert [r.rules for r in comparison.runs] == ["seed", "cr-1.4"]
    # Before the parting step the two runs agree on every state.
    for a, b in zip(comparison.runs[0].steps, comparison.runs[1].steps, strict=False):
        if a.index < pair.parts_at:
            assert a.state == b.state, a.index
    # The cr-1.4 file parts from its own profile's twin at the same step.
    assert compare(str(pair.cr14_path)).first_difference == pair.parts_at


@pytest.mark.parametrize("pair", PAIRS, ids=PAIR_IDS)
def test_format_comparison_marks_the_parting_step(pair):
    text = format_comparison(compare(str(pair.seed_path)), width=200)
    assert f"steps 1-{pair.parts_at - 1}: identical" in text
    assert f"The profiles part at step {pair.parts_at} (lines marked *)." in text
    marked = [line for line in step_block(text, pair.parts_at) if line.startswith("*")]
    assert any(pair.tag in line for line in marked), marked
    assert any(re.match(rf"\*\s+{pair.key}: ", line) for line in marked), marked


@pytest.mark.parametrize("pair", PAIRS, ids=PAIR_IDS)
def test_each_file_passes_only_under_its_own_profile(pair):
    assert run_file(pair.seed_path).code == OK
    assert run_file(pair.seed_path, rules="seed").code == OK
    assert run_file(pair.cr14_path).code == OK
    assert run_file(pair.cr14_path, rules="cr-1.4").code == OK

    wrong = run_file(pair.seed_path, rules="cr-1.4")
    assert wrong.code == FAILED
    assert f": step {pair.fails_at} (line" in wrong.message, wrong.message

    wrong = run_file(pair.cr14_path, rules="seed")
    assert wrong.code == FAILED
    assert f": step {pair.fails_at} (line" in wrong.message, wrong.message


def test_cli_compare_and_run_with_profiles():
    pair = PAIRS[0]
    done = _cli("compare", str(pair.seed_path))
    assert done.returncode == 0, done.stderr
    assert f"step {pair.parts_at}: pass P1" in done.stdout
    assert f"The profiles part at step {pair.parts_at}" in done.stdout
    assert "[profile seed]" in done.stdout

    done = _cli("run", "--rules", "cr-1.4", str(pair.seed_path))
    assert done.returncode == 1
    assert f"step {pair.fails_at}" in done.stdout + done.stderr
    assert "Traceback" not in done.stderr

    done = _cli("run", "--rules", "seed", str(pair.seed_path))
    assert done.returncode == 0, done.stdout + done.stderr


# --- teams need four players alternating in turn order ---------------------------------------


def test_teams_that_do_not_alternate_are_invalid(tmp_path):
    path = tmp_path / "teams.yaml"
    path.write_text(
        "name: teams not alternating\n"
        "players: [P1, P2, P3, P4]\n"
        "teams: [[P1, P2], [P3, P4]]\n"
        "battlefields: [{id: A}]\n"
        "steps: []\n",
        encoding="utf-8",
    )
    result = run_file(path)
    assert result.code == INVALID
    assert "teams" in result.message


def test_a_required_move_from_the_base_says_the_unit_stays_there(tmp_path):
    """A required move to a battlefield the unit cannot go to recalls it instead (rules.md 8):
    from a battlefield the recall says so, from its base the trace says it stays there, citing
    the recall's rule either way."""
    data = yaml.safe_load((SCENARIO_DIR / "003_flow_ffa_bystander.yaml").read_text("utf-8"))
    data["units"] = [u if u["id"] != "F1" else {**u, "at": "base"} for u in data["units"]]
    path = write_yaml(tmp_path, data, "from_base.yaml")
    lines = trace_lines(path)
    at = lines.index("F1 cannot go to A (the Combat there does not involve P3) (CR 442.2.a)")
    assert lines[at + 1] == "F1 is recalled instead: it stays in P3's base (CR 442.2.c)"
    original = trace_lines(SCENARIO_DIR / "003_flow_ffa_bystander.yaml")
    at = original.index("F1 cannot go to A (the Combat there does not involve P3) (CR 442.2.a)")
    assert original[at + 1] == "F1 is recalled to P3's base (CR 442.2.c)"


def test_a_conversion_that_undoes_the_focus_pass_says_focus_comes_back():
    """rules 11.1 (seed): the chain's end passes Focus on, then the conversion undoes it; the
    trace says the holder gets Focus back, not that they kept it (someone else just got it)."""
    path = SCENARIO_DIR / "113_decision_conversion_applier_gone_rivals_in_turn_order.yaml"
    lines = run_file(path).steps[11].lines
    gained = lines.index("P1 gains Focus: the chain was begun by a card (CR 346)")
    assert lines[gained + 1:].count("The conversion undoes that pass: P3 gets Focus back, as the "
                                    "chain that led to the Combat does not pass it [profile seed] "
                                    "(seed 000)") == 1


def test_decisions_lists_every_bundled_scenario_where_the_profiles_part():
    """docs/decisions.md says where the bundled scenarios part under `riftchart compare` (the
    others give the same trace and states): the list it gives is the one compare finds."""
    import re

    from engine.compare import compare
    from tests.conftest import ROOT, SCENARIOS

    text = (ROOT / "docs" / "decisions.md").read_text(encoding="utf-8")
    paragraph = text[text.index("Where the bundled scenarios part"):text.index("## Choices")]
    listed = set(re.findall(r"\b(\d{3})\b", paragraph))
    parting = {path.name[:3] for path in SCENARIOS
               if compare(str(path)).first_difference is not None}
    assert parting == listed
