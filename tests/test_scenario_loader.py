"""Tests of the scenario loader (engine/scenario.py) against the scenario format (the
contract: shared/docs/scenario-format.md; a guide: docs/scenarios.md)."""

from __future__ import annotations

import copy
import datetime
import json
import pickle
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from engine.errors import IllegalAction, RiftchartError, ScenarioError
from engine.runner import OK, run_file, run_scenario
from engine.scenario import (
    MAX_INT,
    MAX_STEPS,
    BattlefieldSpec,
    CardSpec,
    Scenario,
    Step,
    TriggerSpec,
    UnitSpec,
    UnitTemplate,
    load_scenario,
    load_scenario_text,
)
from engine.wording import one_line

FORMAT_EXAMPLE = """\
name: Showdown at an empty battlefield (seed 000)
players: [P1, P2]
battlefields: [{id: A}]
units: [{id: U1, controller: P1, might: 2, at: base}]
steps:
  - move: {player: P1, units: [U1], to: A}
  - expect: {state: showdown-open, showdown: {at: A, kind: non-combat}, focus: P1,
             contested: {A: P1}, control: {A: null}}
  - pass: P1
  - expect: {focus: P2}
  - pass: P2
  - expect: {state: neutral-open, control: {A: P1}, contested: {A: null}, score: {P1: 1}}
"""

FORMAT_SETUP = """\
name: Empty battlefield showdown      # required
rules: seed                           # optional: seed (default) | cr-1.4
players: [P1, P2]                     # required; turn order; 2 to 4 distinct ids
turn_player: P1                       # optional; default: the first player
victory_score: 8                      # optional; default 8, 11 with teams
manual_damage: false                  # optional; see "Precise behaviour of the runner"
scores: {P1: 0, P2: 0}                # optional; default 0
deck: {P1: 20, P2: 20}                # optional; cards left to draw; default 20
battlefields:                         # required; 1 to 4
  - id: A
    name: The Arena's Greatest        # optional display name (units and cards have one too)
    controller: P2                    # optional; default nobody
    scored_this_turn: [P1]            # optional
    abilities:                        # optional; triggered abilities (see Triggers)
      - {when: beginning, effect: {gain_points: 1}}
units:                                # units already on the board
  - id: U1
    name: Vi                          # optional display name
    controller: P1
    might: 3
    at: base                          # base (the controller's) | a battlefield id
    exhausted: false                  # optional flags, default false
    stunned: false
    damage: 0
    keywords: [tank]                  # optional: tank, backline, ganking
    triggers: []                      # optional (see Triggers)
hands:                                # cards in hand, per player
  P2:
    - id: S1
      name: Rune Prison               # optional display name
      type: spell                     # spell | unit
      timing: action                  # none | action | reaction; default none
      effect: {stun: {}}              # spells: the effect (see Effects)
    - id: C1
      type: unit
      timing: reaction
      unit: {might: 2, keywords: [], triggers: []}
"""

RICH = """\
name: Everything at once
rules: cr-1.4
players: [P1, P2, P3]
turn_player: P2
victory_score: 5
manual_damage: true
scores: {P1: 2}
deck: {P3: 0}
battlefields:
  - id: A
    name: Arena
    controller: P2
    scored_this_turn: [P2]
    abilities:
      - {when: beginning, effect: {gain_points: 1}}
      - {when: conquer, targets: [C1], effect: {move: {to: B}}}
  - id: B
units:
  - {id: U1, name: Vi, controller: P1, might: 3, at: base, keywords: [tank, ganking],
     triggers: [{when: attack, targets: enemies_here, effect: {damage: 1}}]}
  - {id: U2, controller: P2, might: 2, at: A, exhausted: true, stunned: true, damage: 1}
  - {id: U3, controller: P3, might: 1, at: B}
hands:
  P1:
    - {id: S1, name: Shove, type: spell, timing: action, effect: {move: {}}}
    - id: S2
      type: spell
      effect:
        sequence:
          - {move: {units: [U1], to: A}}
          - {play_unit: {id: T1, might: 1, to: B, triggers: [{when: die, effect: {draw: 1}}]}}
          - {kill: {units: [T2]}}
  P2:
    - id: C1
      type: unit
      timing: reaction
      unit:
        might: 2
        keywords: [backline]
        triggers:
          - {when: play, targets: [U1], effect: {stun: {}}}
          - {when: hold, targets: self, effect: {play_unit: {id: T2, might: 0}}}
steps:
  - move: {player: P1, units: [U1, U2], to: B}
  - play: {player: P1, card: S1, targets: [U1], to: base}
  - play: {player: P2, card: C1}
  - play: {player: P1, card: U1}
  - pass: P1
  - add: P2
  - choose: {player: P2, battlefield: A}
  - assign: {player: P1, damage: {U2: 2, C1: 1}}
  - end_turn: P2
  - expect_error: {move: {player: P3, units: [U3], to: base}}
  - expect:
      state: neutral-open
      showdown: null
      focus: null
      priority: P2
      chain: [S1, "U1:attack", "add:P2", "A:beginning", T1, "C1:play"]
      control: {A: P2, B: null}
      contested: {A: null}
      staged: {A: [showdown, combat], B: []}
      score: {P1: 2, P2: 0}
      scored_this_turn: {A: [P2], B: []}
      units:
        U1: {at: A, controller: P1, exhausted: true, stunned: false, damage: 0,
             designation: null, might: 3}
        C1: {at: hand, controller: null}
        T1: {at: trash, designation: attacker}
      hand: {P1: 1}
      pending_choice: {player: P1, kind: damage, options: [U2, C1]}
      winner: null
      turn: {player: P2, phase: main}
  - expect: {showdown: {at: B, kind: combat, attacker: P1, defender: P3},
             pending_choice: {kind: battlefield, options: [A, B]}}
"""


def minimal() -> dict[str, Any]:
    """A small valid scenario as a dict, to be broken by the tests."""
    return {
        "name": "minimal",
        "players": ["P1", "P2"],
        "battlefields": [{"id": "A"}, {"id": "B"}],
        "units": [
            {"id": "U1", "controller": "P1", "might": 2, "at": "base"},
            {"id": "U2", "controller": "P2", "might": 3, "at": "A"},
        ],
        "hands": {
            "P1": [{"id": "S1", "type": "spell", "effect": {"stun": {}}}],
            "P2": [{"id": "C1", "type": "unit", "unit": {"might": 1}}],
        },
        "steps": [{"move": {"player": "P1", "units": ["U1"], "to": "A"}},
                  {"expect": {"state": "neutral-open"}}],
    }


def write(tmp_path: Path, text: str, name: str = "scenario.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def rejected(source: Any, **kwargs: Any) -> ScenarioError:
    """The ScenarioError that loading ``source`` raises, after checking its one-line form."""
    with pytest.raises(ScenarioError) as caught:
        load_scenario(source, **kwargs)
    error = caught.value
    text = str(error)
    assert len(text.splitlines()) == 1, text
    assert text.startswith(one_line(f"{error.file}: {error.field}: "))
    if error.line is not None:
        assert text.endswith(f" (line {error.line})")
    return error


def rejected_text(tmp_path: Path, text: str) -> ScenarioError:
    path = write(tmp_path, text)
    error = rejected(path)
    assert error.file == str(path)
    assert str(error).startswith(str(path) + ": ")
    return error


def dumped(data: dict[str, Any]) -> str:
    return yaml.safe_dump(data, sort_keys=False)


# ---- valid scenarios ----------------------------------------------------------------------


def test_format_example_loads(tmp_path: Path) -> None:
    path = write(tmp_path, FORMAT_EXAMPLE)
    scenario = load_scenario(path)
    assert isinstance(scenario, Scenario)
    assert scenario.path == str(path)
    assert scenario.name == "Showdown at an empty battlefield (seed 000)"
    assert scenario.players == ("P1", "P2")
    assert scenario.battlefields == (BattlefieldSpec("A", None, None, (), ()),)
    assert scenario.units == (UnitSpec("U1", None, "P1", 2, "base", False, False, 0, (), ()),)
    assert [step.kind for step in scenario.steps] == [
        "move", "expect", "pass", "expect", "pass", "expect"]
    assert [step.index for step in scenario.steps] == [1, 2, 3, 4, 5, 6]
    assert [step.line for step in scenario.steps] == [6, 7, 9, 10, 11, 12]
    move = scenario.steps[0]
    assert move.args == {"player": "P1", "units": ("U1",), "to": "A"}
    assert scenario.steps[1].args == {
        "state": "showdown-open", "showdown": {"at": "A", "kind": "non-combat"}, "focus": "P1",
        "contested": {"A": "P1"}, "control": {"A": None}}
    assert type(scenario.steps[1].args) is dict
    assert type(scenario.steps[1].args["showdown"]) is dict
    assert scenario.steps[2].args == "P1"


def test_defaults_are_filled_in() -> None:
    scenario = load_scenario(minimal())
    assert scenario.path == "<scenario>"
    assert scenario.rules == "seed"
    assert scenario.teams is None
    assert scenario.turn_player == "P1"
    assert scenario.victory_score == 8
    assert scenario.manual_damage is False
    assert scenario.scores == {"P1": 0, "P2": 0}
    assert scenario.deck == {"P1": 20, "P2": 20}
    spell, = scenario.hands["P1"]
    assert spell == CardSpec("S1", None, "spell", "none", {"stun": {}}, None)
    unit_card, = scenario.hands["P2"]
    assert unit_card.unit == UnitTemplate(1, (), ())
    assert unit_card.effect is None


def test_defaults_without_optional_sections() -> None:
    data = {"name": "bare", "players": ["X", "Y", "Z"], "battlefields": [{"id": "A"}]}
    scenario = load_scenario(data)
    assert scenario.units == ()
    assert scenario.steps == ()
    assert scenario.hands == {"X": (), "Y": (), "Z": ()}
    assert list(scenario.scores) == ["X", "Y", "Z"]


def test_format_setup_block_loads(tmp_path: Path) -> None:
    scenario = load_scenario(write(tmp_path, FORMAT_SETUP))
    arena, = scenario.battlefields
    assert arena.name == "The Arena's Greatest"
    assert arena.controller == "P2"
    assert arena.scored_this_turn == ("P1",)
    assert arena.abilities == (TriggerSpec("beginning", {"gain_points": 1}, None),)
    assert scenario.units[0].keywords == ("tank",)
    assert [card.id for card in scenario.hands["P2"]] == ["S1", "C1"]
    assert scenario.hands["P2"][0].timing == "action"
    assert scenario.hands["P2"][1].timing == "reaction"


def test_rich_scenario(tmp_path: Path) -> None:
    scenario = load_scenario(write(tmp_path, RICH), label="rich")
    assert scenario.path == "rich"
    assert scenario.rules == "cr-1.4"
    assert scenario.turn_player == "P2"
    assert scenario.victory_score == 5
    assert scenario.manual_damage is True
    assert scenario.scores == {"P1": 2, "P2": 0, "P3": 0}
    assert scenario.deck == {"P1": 20, "P2": 20, "P3": 0}
    u1, u2, _ = scenario.units
    assert u1.name == "Vi"
    assert u1.triggers == (TriggerSpec("attack", {"damage": 1}, "enemies_here"),)
    assert (u2.exhausted, u2.stunned, u2.damage, u2.at) == (True, True, 1, "A")
    assert scenario.battlefields[0].abilities[1].targets == ("C1",)
    c1 = scenario.hands["P2"][0]
    assert c1.unit is not None and c1.unit.keywords == ("backline",)
    assert c1.unit.triggers[1].effect == {"play_unit": {"id": "T2", "might": 0}}
    s2 = scenario.hands["P1"][1]
    assert type(s2.effect) is dict and type(s2.effect["sequence"]) is list
    kinds = [step.kind for step in scenario.steps]
    assert kinds == ["move", "play", "play", "play", "pass", "add", "choose", "assign",
                     "end_turn", "expect_error", "expect", "expect"]
    play = scenario.steps[1].args
    assert play == {"player": "P1", "card": "S1", "targets": ("U1",), "to": "base"}
    assert scenario.steps[2].args == {"player": "P2", "card": "C1", "targets": (), "to": None}
    assert scenario.steps[6].args == {"player": "P2", "battlefield": "A"}
    assert scenario.steps[7].args == {"player": "P1", "damage": {"U2": 2, "C1": 1}}
    nested = scenario.steps[9].args
    assert isinstance(nested, Step)
    assert (nested.kind, nested.index) == ("move", 10)
    assert nested.args == {"player": "P3", "units": ("U3",), "to": "base"}


def test_step_as_mapping_round_trips(tmp_path: Path) -> None:
    scenario = load_scenario(write(tmp_path, RICH))
    data = yaml.safe_load(RICH)
    data["steps"] = [step.as_mapping() for step in scenario.steps]
    json.dumps(data["steps"])  # printable as the `do` of --json output
    again = load_scenario(data)
    assert [s.as_mapping() for s in again.steps] == data["steps"]
    assert [(s.kind, s.index) for s in again.steps] == [(s.kind, s.index) for s in scenario.steps]
    assert again.steps[1].args == scenario.steps[1].args
    assert scenario.steps[2].as_mapping() == {"play": {"player": "P2", "card": "C1"}}
    assert scenario.steps[9].as_mapping() == {
        "expect_error": {"move": {"player": "P3", "units": ["U3"], "to": "base"}}}


def test_with_rules() -> None:
    scenario = load_scenario(minimal())
    other = scenario.with_rules("cr-1.4")
    assert (scenario.rules, other.rules) == ("seed", "cr-1.4")
    assert other.steps == scenario.steps
    with pytest.raises(ValueError):
        scenario.with_rules("house-rules")


def test_teams_alternate_and_raise_victory_score() -> None:
    data = minimal()
    data["players"] = ["P1", "P2", "P3", "P4"]
    data["teams"] = [["P1", "P3"], ["P2", "P4"]]
    assert load_scenario(data).victory_score == 11
    data["teams"] = [["P4", "P2"], ["P3", "P1"]]
    assert load_scenario(data).teams == (("P4", "P2"), ("P3", "P1"))
    data["victory_score"] = 9
    assert load_scenario(data).victory_score == 9


def test_forward_references_inside_the_setup() -> None:
    """An effect may name a unit card or a play_unit token defined later in the file."""
    data = minimal()
    data["battlefields"][0]["abilities"] = [
        {"when": "hold", "targets": ["C1", "T9"], "effect": {"move": {"to": "B"}}}]
    data["hands"]["P2"].append({"id": "S9", "type": "spell",
                                "effect": {"play_unit": {"id": "T9", "might": 4, "to": "A"}}})
    scenario = load_scenario(data)
    assert scenario.battlefields[0].abilities[0].targets == ("C1", "T9")


def test_steps_may_name_units_from_hands_and_effects() -> None:
    data = minimal()
    data["hands"]["P1"].append({"id": "S2", "type": "spell",
                                "effect": {"play_unit": {"id": "T1", "might": 1}}})
    data["steps"] = [
        {"play": {"player": "P2", "card": "C1", "to": "B"}},
        {"move": {"player": "P2", "units": ["C1", "T1"], "to": "base"}},
        {"expect": {"units": {"C1": {"at": "B"}, "T1": {"at": "trash"}}}},
        {"play": {"player": "P1", "card": "U2"}},  # a unit returned to hand is played by its id
    ]
    assert len(load_scenario(data).steps) == 4


def test_null_optional_keys_take_defaults() -> None:
    data = minimal()
    data.update(rules=None, turn_player=None, victory_score=None, scores=None, teams=None)
    data["battlefields"][0]["controller"] = None
    data["steps"] = [{"play": {"player": "P1", "card": "S1", "targets": None, "to": None}}]
    scenario = load_scenario(data)
    assert (scenario.rules, scenario.turn_player, scenario.victory_score) == ("seed", "P1", 8)
    assert scenario.steps[0].args["to"] is None


def test_a_key_the_card_type_does_not_use_may_be_null() -> None:
    """D33: ``unit: null`` on a spell and ``effect: null`` on a unit card are keys given as
    null, which take their default (not given), as any optional key's null does."""
    data = minimal()
    data["hands"]["P1"][0]["unit"] = None
    data["hands"]["P2"][0]["effect"] = None
    data["units"][0]["name"] = None
    scenario = load_scenario(data)
    spell, unit_card = scenario.hands["P1"][0], scenario.hands["P2"][0]
    assert (spell.effect, spell.unit) == ({"stun": {}}, None)
    assert (unit_card.effect, unit_card.unit) == (None, UnitTemplate(1, (), ()))
    # what the card's type needs is still needed
    data["hands"]["P1"][0]["effect"] = None
    assert "needs an effect" in rejected(data).message
    data = minimal()
    data["hands"]["P2"][0]["unit"] = None
    assert "needs 'unit" in rejected(data).message


def test_a_players_entry_given_as_null_takes_the_default() -> None:
    """D33: a player's entry in ``hands``, ``scores`` or ``deck`` given as null is not given."""
    data = minimal()
    data["hands"]["P2"] = None
    data["scores"] = {"P1": None, "P2": 3}
    data["deck"] = {"P1": None}
    scenario = load_scenario(data)
    assert scenario.hands["P2"] == ()
    assert scenario.scores == {"P1": 0, "P2": 3}
    assert scenario.deck["P1"] == load_scenario(minimal()).deck["P1"]


def test_a_key_given_as_null_inside_an_effect_is_not_given() -> None:
    """D33 inside effects: what reads an effect (the rules, the search) sees a null key as
    absent, so ``units: null`` takes the play's targets and ``to: null`` the play's ``to``."""
    data = minimal()
    data["hands"]["P1"] = [
        {"id": "S1", "type": "spell", "effect": {"stun": {"units": None}}},
        {"id": "S2", "type": "spell", "effect": {"sequence": [
            {"move": {"units": ["U1"], "to": None}},
            {"play_unit": {"id": "T1", "might": 1, "keywords": None, "triggers": None,
                           "to": None}}]}},
    ]
    hand = load_scenario(data).hands["P1"]
    assert hand[0].effect == {"stun": {}}
    assert hand[1].effect == {"sequence": [{"move": {"units": ["U1"]}},
                                           {"play_unit": {"id": "T1", "might": 1}}]}


@pytest.mark.parametrize(("effect", "targets", "fragment"), [
    ({"move": {}}, "self", "a trigger's move needs its own 'to'"),
    ({"move": {"units": ["U1"]}}, None, "a trigger's move needs its own 'to'"),
    ({"move": {"units": ["U1"], "to": None}}, None, "a trigger's move needs its own 'to'"),
    ({"damage": 1}, None, "takes its units from the play"),
    ({"sequence": [{"draw": 1}, {"stun": {}}]}, None, "takes its units from the play"),
    ({"damage": 1}, "self", None),
    ({"move": {"to": "A"}}, "self", None),
    ({"move": {"units": ["U1"], "to": "B"}}, None, None),
    ({"play_unit": {"id": "T1", "might": 1}}, None, None),
])
def test_a_trigger_whose_effect_could_never_act_is_refused(effect: dict, targets: Any,
                                                           fragment: str | None) -> None:
    """A trigger has no play step to give its effect units or a destination (D15): an effect
    that takes its units from the play needs the trigger's ``targets``, and a move its own
    ``to``. On a unit and on a battlefield alike."""
    trigger: dict[str, Any] = {"when": "move", "effect": effect}
    if targets is not None:
        trigger["targets"] = targets
    for owner in ("unit", "battlefield"):
        data = minimal()
        if owner == "unit":
            data["units"][0]["triggers"] = [trigger]
            field = "units[0].triggers[0].effect"
        else:
            # a battlefield's own selector: 'self' is a unit (another test refuses it here)
            selector = {"targets": "enemies_here"} if targets == "self" else {}
            data["battlefields"][1]["abilities"] = [{**trigger, "when": "beginning", **selector}]
            field = "battlefields[1].abilities[0].effect"
        if fragment is None:
            load_scenario(data)
            continue
        error = rejected(data)
        assert (error.field, fragment in error.message) == (field, True), str(error)


@pytest.mark.parametrize(("key", "shown"), [(None, "null"), (True, "true"), (3, "3"),
                                            (datetime.date(2020, 1, 1), "2020-01-01")])
def test_a_key_that_is_not_a_string_is_named_as_yaml_writes_it(key: Any, shown: str) -> None:
    data = minimal()
    data[key] = 1
    error = rejected(data)
    assert error.field == shown
    assert error.message.startswith(f"unknown key {shown};")


def test_names_with_more_than_spaces_are_kept() -> None:
    data = minimal()
    data["units"][0]["name"] = " Vi "
    data["battlefields"][0]["name"] = "The Arena's Greatest"
    scenario = load_scenario(data)
    assert (scenario.units[0].name, scenario.battlefields[0].name) == (
        " Vi ", "The Arena's Greatest")


def test_long_keys_and_ids_are_cut_short_in_messages() -> None:
    data = minimal()
    data["units"][0]["x" * 5000] = 1
    error = rejected(data)
    assert error.field == "units[0]." + "x" * 40 + "..."
    assert error.message.startswith("unknown key '" + "x" * 40 + "...'; expected one of: id,")
    data = minimal()
    data["steps"].append({"pass": "P" * 5000})
    error = rejected(data)
    assert error.message.startswith("unknown player '" + "P" * 40 + "...'; players are: P1, P2")


def test_dict_input_accepts_tuples_and_custom_label() -> None:
    data = minimal()
    data["players"] = ("P1", "P2")
    scenario = load_scenario(data, label="inline")
    assert scenario.path == "inline"
    assert scenario.players == ("P1", "P2")


def test_load_scenario_text_names_the_label() -> None:
    assert load_scenario_text(FORMAT_EXAMPLE, "given.yaml").path == "given.yaml"
    error = pytest.raises(ScenarioError, load_scenario_text, "name: [", "given.yaml").value
    assert str(error).startswith("given.yaml: <yaml>: ")


def test_add_is_an_id_like_any_other() -> None:
    """D39: scenario-format.md reserves base, hand, trash and a `:`, not `add`: a player called
    add activates its Add ability with the step `add: add`, and its chain label reads add:add
    (scenario 275 has a unit called add)."""
    data = {"name": "add", "players": ["add", "P2"], "battlefields": [{"id": "A"}],
            "steps": [{"add": "add"}, {"expect": {"priority": "add", "chain": []}}]}
    scenario = load_scenario(data)
    assert scenario.players == ("add", "P2")
    result = run_scenario(scenario)
    assert (result.code, result.message) == (OK, "")
    assert "add:add goes on the Chain (CR 328)" in result.steps[1].lines


def test_json_is_accepted(tmp_path: Path) -> None:
    path = write(tmp_path, json.dumps(minimal()), "scenario.json")
    assert load_scenario(path).name == "minimal"


def test_json_may_name_a_long_id_as_a_key(tmp_path: Path) -> None:
    """YAML gives up on a key after 1,024 characters; JSON has no such limit, and an id may be
    as long as a string is (here a key of ``expect.units``, on one line as json.dumps writes)."""
    long_id = "U" * 1_100
    data = minimal()
    data["units"][0]["id"] = long_id
    data["steps"] = [{"expect": {"units": {long_id: {"at": "base"}}}}]
    path = write(tmp_path, json.dumps(data), "long.json")
    assert load_scenario(path).steps[0].args == {"units": {long_id: {"at": "base"}}}
    # a key still ends on its own line: YAML's other limit on keys is kept
    with pytest.raises(ScenarioError, match="could not find expected ':'"):
        load_scenario_text("name: x\nplayers\n: [P1]\n", "split.yaml")


def test_utf8_bom_and_unicode_names(tmp_path: Path) -> None:
    path = tmp_path / "bom.yaml"
    path.write_bytes("\ufeff".encode() + FORMAT_EXAMPLE.replace(
        "(seed 000)", "— Noxus ✓").encode())
    assert load_scenario(path).name.endswith("Noxus ✓")



def test_a_tab_inside_a_quoted_yaml_string_is_kept(tmp_path: Path) -> None:
    # flow-style YAML (it opens as JSON does): the tab in the single-quoted id is part of the
    # id, as YAML says, and the double-quoted escape names the same unit
    text = ("{name: tabs, players: [P1, P2], battlefields: [{id: A}],\n"
            " units: [{id: 'U\t1', controller: P1, might: 1, at: base}],\n"
            ' steps: [{move: {player: P1, units: ["U\\t1"], to: A}}]}\n')
    assert yaml.safe_load(text)["units"][0]["id"] == "U\t1"
    scenario = load_scenario(write(tmp_path, text, "tabs.yaml"))
    assert scenario.units[0].id == "U\t1"
    assert scenario.steps[0].args["units"] == ("U\t1",)


@pytest.mark.parametrize("old, new, field, fragment", [
    ("might: 2", "might: 2.0", "units[0].might", "expected an integer, got a number"),
    ("might: 2", "might: '2'", "units[0].might", "expected an integer, got a string, '2'"),
    ("might: 2", "might: 1e0", "units[0].might",
     "expected an integer, got a string, '1e0' (YAML 1.1 reads this exponent form as text)"),
    ("might: 2", "might: 2.5e3", "units[0].might",
     "expected an integer, got a string, '2.5e3' (YAML 1.1 reads this exponent form as text)"),
    ("might: 2", "might: 'e5'", "units[0].might", "expected an integer, got a string, 'e5'"),
    ("might: 2", "might: true", "units[0].might", "expected an integer, got a boolean"),
    ("at: base", "at: base, exhausted: 1", "units[0].exhausted", "expected true or false"),
    ("name: Showdown at an empty battlefield (seed 000)", "name: 2024-01-01", "name",
     "expected a string, got a date"),
])
def test_types_are_read_strictly(tmp_path: Path, old: str, new: str, field: str,
                                 fragment: str) -> None:
    # D31: a whole number written as 2.0 is not an integer; a YAML date is not a name
    text = FORMAT_EXAMPLE.replace(old, new, 1)
    error = pytest.raises(ScenarioError, load_scenario, write(tmp_path, text)).value
    assert (error.field, fragment in error.message) == (field, True), str(error)

# ---- errors: structure --------------------------------------------------------------------


def test_error_classes() -> None:
    assert issubclass(ScenarioError, RiftchartError)
    assert issubclass(IllegalAction, RiftchartError)
    illegal = IllegalAction("nobody has Priority", "CR 312")
    assert (str(illegal), illegal.rule, illegal.message) == (
        "nobody has Priority (CR 312)", "CR 312", "nobody has Priority")
    error = ScenarioError("a.yaml", "units[0].might", "bad\nvalue", 3)
    assert str(error) == "a.yaml: units[0].might: bad value (line 3)"
    assert (error.file, error.field, error.message, error.line) == (
        "a.yaml", "units[0].might", "bad\nvalue", 3)
    assert str(ScenarioError("<scenario>", "name", "missing")) == "<scenario>: name: missing"
    again = pickle.loads(pickle.dumps(error))
    assert (again.file, again.field, again.line, str(again)) == (
        "a.yaml", "units[0].might", 3, str(error))


def break_it(change: Any) -> dict[str, Any]:
    data = minimal()
    change(data)
    return data


def setitem(path: str, value: Any) -> Any:
    """A change that sets ``path`` (dotted, with [i] indexes) in the scenario dict."""
    def change(data: dict[str, Any]) -> None:
        *parents, last = path.replace("[", ".").replace("]", "").split(".")
        target: Any = data
        for part in parents:
            target = target[int(part)] if part.isdigit() else target[part]
        if last.isdigit():
            target[int(last)] = value
        else:
            target[last] = value
    return change


def delitem(path: str) -> Any:
    def change(data: dict[str, Any]) -> None:
        *parents, last = path.replace("[", ".").replace("]", "").split(".")
        target: Any = data
        for part in parents:
            target = target[int(part)] if part.isdigit() else target[part]
        del target[int(last) if last.isdigit() else last]
    return change


def step(payload: dict[str, Any]) -> Any:
    def change(data: dict[str, Any]) -> None:
        data["steps"].append(payload)
    return change


def expect(payload: Any) -> Any:
    return step({"expect": payload})


def effect(value: Any) -> Any:
    return setitem("hands.P1[0].effect", value)


INVALID: list[tuple[str, Any, str, str]] = [
    # (case, change, field, fragment of the message)
    ("missing name", delitem("name"), "name", "required"),
    ("name not a string", setitem("name", 3), "name", "string"),
    ("empty name", setitem("name", " "), "name", "empty"),
    ("unknown top key", setitem("player", ["P1"]), "player", "unknown key"),
    ("missing players", delitem("players"), "players", "required"),
    ("missing battlefields", delitem("battlefields"), "battlefields", "required"),
    ("players not a list", setitem("players", "P1 P2"), "players", "list"),
    ("one player", setitem("players", ["P1"]), "players", "2 to 4"),
    ("five players", setitem("players", ["A1", "A2", "A3", "A4", "A5"]), "players", "2 to 4"),
    ("duplicate player", setitem("players", ["P1", "P1"]), "players[1]", "duplicate"),
    ("player id is a number", setitem("players", ["P1", 2]), "players[1]", "string"),
    ("player id base", setitem("players", ["P1", "base"]), "players[1]", "reserved"),
    ("player id hand", setitem("players", ["hand", "P2"]), "players[0]", "reserved"),
    ("player id with colon", setitem("players", ["P1", "P:2"]), "players[1]", "':'"),
    ("empty id", setitem("players", ["P1", ""]), "players[1]", "empty"),
    # D15: an id of only spaces, or an empty display name, is a mistake, as an empty id is
    ("id of spaces", setitem("players", ["P1", "  "]), "players[1]", "empty or only spaces"),
    ("unit id of a tab", setitem("units[0].id", "\t"), "units[0].id", "only spaces"),
    ("battlefield id of spaces", setitem("battlefields[1].id", " "), "battlefields[1].id",
     "only spaces"),
    ("card id of spaces", setitem("hands.P1[0].id", "\u3000"), "hands.P1[0].id",
     "only spaces"),
    ("step player of spaces", step({"pass": " "}), "steps[2].pass", "only spaces"),
    ("unit empty name", setitem("units[0].name", ""), "units[0].name", "must not be empty"),
    ("battlefield name of spaces", setitem("battlefields[0].name", "  "),
     "battlefields[0].name", "must not be empty"),
    ("card empty name", setitem("hands.P2[0].name", ""), "hands.P2[0].name",
     "must not be empty"),
    ("play_unit empty name", effect({"play_unit": {"id": "T1", "might": 1, "name": ""}}),
     "hands.P1[0].effect.play_unit.name", "must not be empty"),
    ("player id is a bool", setitem("players", ["P1", True]), "players[1]", "string"),
    ("teams with two players", setitem("teams", [["P1"], ["P2"]]), "teams", "four"),
    ("rules unknown", setitem("rules", "cr-1.3"), "rules", "seed"),
    ("turn player unknown", setitem("turn_player", "P3"), "turn_player", "unknown player"),
    ("victory score zero", setitem("victory_score", 0), "victory_score", "1 to"),
    ("victory score bool", setitem("victory_score", True), "victory_score", "integer"),
    ("victory score huge", setitem("victory_score", 10**6 + 1), "victory_score", "1 to"),
    ("victory score text", setitem("victory_score", "8"), "victory_score", "integer"),
    ("victory score float", setitem("victory_score", 8.0), "victory_score", "integer"),
    ("manual damage text", setitem("manual_damage", "yes"), "manual_damage", "true or false"),
    ("manual damage int", setitem("manual_damage", 1), "manual_damage", "true or false"),
    ("scores unknown player", setitem("scores", {"P3": 1}), "scores.P3", "unknown player"),
    ("scores negative", setitem("scores", {"P1": -1}), "scores.P1", "0 to"),
    ("deck not mapping", setitem("deck", [20, 20]), "deck", "mapping"),
    ("deck huge", setitem("deck", {"P2": 10**30}), "deck.P2", "0 to"),
    ("no battlefields", setitem("battlefields", []), "battlefields", "1 to 4"),
    ("five battlefields", setitem("battlefields", [{"id": f"B{i}"} for i in range(5)]),
     "battlefields", "1 to 4"),
    ("battlefield not mapping", setitem("battlefields[1]", "B"), "battlefields[1]", "mapping"),
    ("battlefield missing id", setitem("battlefields[1]", {"name": "B"}), "battlefields[1].id",
     "required"),
    ("battlefield unknown key", setitem("battlefields[1].owner", "P1"),
     "battlefields[1].owner", "unknown key"),
    ("battlefield id trash", setitem("battlefields[1].id", "trash"), "battlefields[1].id",
     "reserved"),
    ("battlefield id duplicates player", setitem("battlefields[1].id", "P2"),
     "battlefields[1].id", "duplicate"),
    ("battlefield controller unknown", setitem("battlefields[0].controller", "P9"),
     "battlefields[0].controller", "unknown player"),
    ("scored_this_turn twice", setitem("battlefields[0].scored_this_turn", ["P1", "P1"]),
     "battlefields[0].scored_this_turn[1]", "twice"),
    ("abilities not a list", setitem("battlefields[0].abilities", {"when": "hold"}),
     "battlefields[0].abilities", "list"),
    ("units not a list", setitem("units", {"U1": {}}), "units", "list"),
    ("unit missing might", delitem("units[0].might"), "units[0].might", "required"),
    ("unit missing at", delitem("units[0].at"), "units[0].at", "required"),
    ("unit missing controller", delitem("units[1].controller"), "units[1].controller",
     "required"),
    ("unit unknown key", setitem("units[0].power", 3), "units[0].power", "unknown key"),
    ("unit controller unknown", setitem("units[0].controller", "P3"), "units[0].controller",
     "unknown player"),
    # a wrong place is said with every place it could be, battlefields in setup order
    ("unit at unknown", setitem("units[0].at", "C"), "units[0].at",
     "unknown battlefield 'C'; expected one of: base, A, B"),
    ("unit at hand", setitem("units[0].at", "hand"), "units[0].at", "reserved"),
    ("unit might negative", setitem("units[0].might", -1), "units[0].might", "0 to"),
    ("unit might bool", setitem("units[0].might", False), "units[0].might", "integer"),
    ("unit damage float", setitem("units[0].damage", 1.5), "units[0].damage", "integer"),
    ("unit exhausted text", setitem("units[0].exhausted", "no"), "units[0].exhausted", "true"),
    ("unit id duplicates card", setitem("units[0].id", "S1"), "hands.P1[0].id", "duplicate"),
    ("duplicate unit", setitem("units[1].id", "U1"), "units[1].id", "duplicate"),
    ("unknown keyword", setitem("units[0].keywords", ["flying"]), "units[0].keywords[0]",
     "tank"),
    ("keyword twice", setitem("units[0].keywords", ["tank", "tank"]), "units[0].keywords[1]",
     "twice"),
    ("two opponents at one battlefield", setitem("units[0].at", "A"), "units[1].at",
     "two opposing players"),
    ("hands not a mapping", setitem("hands", []), "hands", "mapping"),
    ("hands of unknown player", setitem("hands.P3", []), "hands.P3", "unknown player"),
    ("hand not a list", setitem("hands.P1", {"id": "S1"}), "hands.P1", "list"),
    ("card missing type", delitem("hands.P1[0].type"), "hands.P1[0].type", "required"),
    ("card bad type", setitem("hands.P1[0].type", "gear"), "hands.P1[0].type", "spell"),
    ("card bad timing", setitem("hands.P1[0].timing", "instant"), "hands.P1[0].timing",
     "reaction"),
    ("spell without effect", delitem("hands.P1[0].effect"), "hands.P1[0].effect", "effect"),
    ("spell with unit", setitem("hands.P1[0].unit", {"might": 1}), "hands.P1[0].unit",
     "unit card"),
    ("unit card without unit", delitem("hands.P2[0].unit"), "hands.P2[0].unit", "needs"),
    ("unit card with effect", setitem("hands.P2[0].effect", {"kill": {}}),
     "hands.P2[0].effect", "only a spell"),
    ("unit template unknown key", setitem("hands.P2[0].unit.power", 1),
     "hands.P2[0].unit.power", "unknown key"),
    ("unit template missing might", setitem("hands.P2[0].unit", {}),
     "hands.P2[0].unit.might", "required"),
    ("effect not a mapping", effect("stun"), "hands.P1[0].effect", "mapping"),
    ("effect with two keys", effect({"stun": {}, "kill": {}}), "hands.P1[0].effect",
     "exactly one key"),
    ("effect empty", effect({}), "hands.P1[0].effect", "exactly one key"),
    ("unknown effect", effect({"banish": {}}), "hands.P1[0].effect.banish", "unknown effect"),
    ("move effect unknown key", effect({"move": {"unit": ["U1"]}}),
     "hands.P1[0].effect.move.unit", "unknown key"),
    ("move effect to unknown", effect({"move": {"units": ["U1"], "to": "Z"}}),
     "hands.P1[0].effect.move.to", "unknown battlefield"),
    ("move effect unknown unit", effect({"move": {"units": ["U7"], "to": "A"}}),
     "hands.P1[0].effect.move.units[0]", "unknown unit"),
    ("move effect units empty", effect({"move": {"units": [], "to": "A"}}),
     "hands.P1[0].effect.move.units", "at least one"),
    ("move effect not a mapping", effect({"move": "A"}), "hands.P1[0].effect.move", "mapping"),
    ("stun with an argument", effect({"stun": {"turns": 1}}),
     "hands.P1[0].effect.stun.turns", "unknown key"),
    ("kill not a mapping", effect({"kill": "U1"}), "hands.P1[0].effect.kill", "mapping"),
    ("damage not a number", effect({"damage": "3"}), "hands.P1[0].effect.damage", "integer"),
    ("damage too big", effect({"damage": 2_000_000}), "hands.P1[0].effect.damage", "0 to"),
    ("draw negative", effect({"draw": -2}), "hands.P1[0].effect.draw", "0 to"),
    ("gain_points mapping", effect({"gain_points": {"n": 1}}),
     "hands.P1[0].effect.gain_points", "integer"),
    ("play_unit missing id", effect({"play_unit": {"might": 1}}),
     "hands.P1[0].effect.play_unit.id", "required"),
    ("play_unit missing might", effect({"play_unit": {"id": "T1"}}),
     "hands.P1[0].effect.play_unit.might", "required"),
    ("play_unit id duplicates unit", effect({"play_unit": {"id": "U2", "might": 1}}),
     "hands.P1[0].effect.play_unit.id", "duplicate"),
    ("play_unit to unknown", effect({"play_unit": {"id": "T1", "might": 1, "to": "Q"}}),
     "hands.P1[0].effect.play_unit.to", "unknown battlefield"),
    ("play_unit bad keyword", effect({"play_unit": {"id": "T1", "might": 1,
                                                    "keywords": ["shy"]}}),
     "hands.P1[0].effect.play_unit.keywords[0]", "tank"),
    ("play_unit ids twice", effect({"sequence": [{"play_unit": {"id": "T1", "might": 1}},
                                                 {"play_unit": {"id": "T1", "might": 1}}]}),
     "hands.P1[0].effect.sequence[1].play_unit.id", "duplicate"),
    ("sequence not a list", effect({"sequence": {"stun": {}}}),
     "hands.P1[0].effect.sequence", "list"),
    ("sequence item bad", effect({"sequence": [{"stun": {}}, {"explode": 1}]}),
     "hands.P1[0].effect.sequence[1].explode", "unknown effect"),
    ("trigger not a mapping", setitem("units[0].triggers", ["die"]), "units[0].triggers[0]",
     "mapping"),
    ("trigger bad when", setitem("units[0].triggers", [{"when": "dies", "effect": {"kill": {}}}]),
     "units[0].triggers[0].when", "die"),
    ("trigger missing effect", setitem("units[0].triggers", [{"when": "die"}]),
     "units[0].triggers[0].effect", "required"),
    ("trigger bad selector", setitem("units[0].triggers", [
        {"when": "die", "effect": {"kill": {}}, "targets": "everyone"}]),
     "units[0].triggers[0].targets", "enemies_here"),
    ("trigger target unknown", setitem("units[0].triggers", [
        {"when": "die", "effect": {"kill": {}}, "targets": ["U1", "Z9"]}]),
     "units[0].triggers[0].targets[1]", "unknown unit"),
    ("trigger target is a battlefield", setitem("units[0].triggers", [
        {"when": "die", "effect": {"kill": {}}, "targets": ["A"]}]),
     "units[0].triggers[0].targets[0]", "'A' is not a unit: it is the id at battlefields[0].id"),
    # D15: a trigger that could never act
    ("trigger names no unit", setitem("units[0].triggers", [
        {"when": "die", "effect": {"kill": {}}, "targets": []}]),
     "units[0].triggers[0].targets", "names no unit, so the trigger's effect could never act"),
    ("trigger unknown key", setitem("units[0].triggers", [
        {"when": "die", "effect": {"kill": {}}, "once": True}]),
     "units[0].triggers[0].once", "unknown key"),
    ("nested template trigger", setitem("hands.P2[0].unit.triggers", [
        {"when": "play", "effect": {"play_unit": {"id": "T1", "might": 1,
                                                  "triggers": [{"when": "x", "effect": {}}]}}}]),
     "hands.P2[0].unit.triggers[0].effect.play_unit.triggers[0].when", "move"),
    # steps
    ("steps not a list", setitem("steps", {"pass": "P1"}), "steps", "list"),
    ("step not a mapping", setitem("steps", ["pass"]), "steps[0]", "mapping"),
    ("step with two keys", setitem("steps", [{"pass": "P1", "add": "P1"}]), "steps[0]",
     "exactly one key"),
    ("unknown step", setitem("steps", [{"attack": "P1"}]), "steps[0].attack", "unknown step"),
    ("pass unknown player", step({"pass": "P3"}), "steps[2].pass", "unknown player"),
    ("pass mapping", step({"pass": {"player": "P1"}}), "steps[2].pass", "string"),
    ("end_turn null", step({"end_turn": None}), "steps[2].end_turn", "string"),
    ("move missing to", step({"move": {"player": "P1", "units": ["U1"]}}), "steps[2].move.to",
     "required"),
    # what a step wants is said: its fields, and every one missing at once
    ("choose not a mapping", step({"choose": "A"}), "steps[2].choose",
     "expected a mapping of player, battlefield, got a string, 'A'"),
    ("play not a mapping", step({"play": "S1"}), "steps[2].play",
     "expected a mapping of player, card, targets, to"),
    ("choose empty", step({"choose": {}}), "steps[2].choose.player",
     "required key missing; also missing: battlefield"),
    ("move unknown unit", step({"move": {"player": "P1", "units": ["X"], "to": "A"}}),
     "steps[2].move.units[0]", "unknown unit"),
    # a move naming no unit, or one twice, or an id of something else (a spell as a unit, a
    # unit as a destination) is a step the rules refuse, not a bad file
    # (tests/test_cli.py: test_a_step_the_rules_refuse_is_not_a_bad_file)
    ("move to hand", step({"move": {"player": "P1", "units": ["U1"], "to": "hand"}}),
     "steps[2].move.to", "reserved"),
    ("move to unknown", step({"move": {"player": "P1", "units": ["U1"], "to": "C"}}),
     "steps[2].move.to", "unknown battlefield 'C'; expected one of: base, A, B"),
    ("move extra key", step({"move": {"player": "P1", "units": ["U1"], "to": "A", "x": 1}}),
     "steps[2].move.x", "unknown key"),
    ("play unknown card", step({"play": {"player": "P1", "card": "S9"}}), "steps[2].play.card",
     "unknown card"),
    ("play targets unknown", step({"play": {"player": "P1", "card": "S1", "targets": ["X"]}}),
     "steps[2].play.targets[0]", "unknown unit 'X'"),
    ("play targets a string", step({"play": {"player": "P1", "card": "S1", "targets": "U1"}}),
     "steps[2].play.targets", "list"),
    ("play to unknown", step({"play": {"player": "P1", "card": "S1", "to": "Q"}}),
     "steps[2].play.to", "unknown battlefield"),
    ("choose base", step({"choose": {"player": "P1", "battlefield": "base"}}),
     "steps[2].choose.battlefield", "reserved"),
    ("choose missing battlefield", step({"choose": {"player": "P1"}}),
     "steps[2].choose.battlefield", "required"),
    ("assign bool amount", step({"assign": {"player": "P1", "damage": {"U2": True}}}),
     "steps[2].assign.damage.U2", "integer"),
    ("assign unknown unit", step({"assign": {"player": "P1", "damage": {"U9": 1}}}),
     "steps[2].assign.damage.U9", "unknown unit"),
    ("assign list", step({"assign": {"player": "P1", "damage": ["U2"]}}),
     "steps[2].assign.damage", "mapping"),
    ("expect_error of expect", step({"expect_error": {"expect": {}}}),
     "steps[2].expect_error.expect", "one action step"),
    ("expect_error of expect_error", step({"expect_error": {"expect_error": {"pass": "P1"}}}),
     "steps[2].expect_error.expect_error", "one action step"),
    ("expect_error of two steps", step({"expect_error": {"pass": "P1", "add": "P1"}}),
     "steps[2].expect_error", "exactly one key"),
    ("expect_error of a list", step({"expect_error": [{"pass": "P1"}]}),
     "steps[2].expect_error", "mapping"),
    ("expect_error unknown id", step({"expect_error": {"move": {
        "player": "P1", "units": ["U1"], "to": "Z"}}}), "steps[2].expect_error.move.to",
     "unknown battlefield"),
    ("expect_error unknown key", step({"expect_error": {"play": {
        "player": "P1", "card": "S1", "when": 1}}}), "steps[2].expect_error.play.when",
     "unknown key"),
    # expect
    ("expect not a mapping", expect([]), "steps[2].expect", "mapping"),
    ("expect unknown key", expect({"phase": "main"}), "steps[2].expect.phase", "unknown key"),
    ("expect bad state", expect({"state": "neutral"}), "steps[2].expect.state", "neutral-open"),
    ("expect showdown unknown key", expect({"showdown": {"where": "A"}}),
     "steps[2].expect.showdown.where", "unknown key"),
    ("expect showdown bad kind", expect({"showdown": {"kind": "battle"}}),
     "steps[2].expect.showdown.kind", "combat"),
    ("expect showdown unknown battlefield", expect({"showdown": {"at": "Z"}}),
     "steps[2].expect.showdown.at", "unknown battlefield"),
    ("expect showdown attacker unknown", expect({"showdown": {"attacker": "P5"}}),
     "steps[2].expect.showdown.attacker", "unknown player"),
    ("expect focus unknown", expect({"focus": "P5"}), "steps[2].expect.focus", "unknown player"),
    ("expect priority number", expect({"priority": 1}), "steps[2].expect.priority", "string"),
    ("expect winner unknown", expect({"winner": "U1"}), "steps[2].expect.winner",
     "unknown player"),
    ("expect chain not a list", expect({"chain": "S1"}), "steps[2].expect.chain", "list"),
    ("expect chain number", expect({"chain": [1]}), "steps[2].expect.chain[0]", "string"),
    ("expect chain unknown card", expect({"chain": ["S7"]}), "steps[2].expect.chain[0]",
     "unknown card 'S7' on the chain"),
    ("expect chain battlefield", expect({"chain": ["A"]}), "steps[2].expect.chain[0]",
     "'A' is not a card: it is the id at battlefields[0].id"),
    ("expect chain unknown event", expect({"chain": ["U1:fly"]}), "steps[2].expect.chain[0]",
     "unknown event"),
    ("expect chain unknown source", expect({"chain": ["X:die"]}), "steps[2].expect.chain[0]",
     "SOURCE:EVENT"),
    ("expect chain add unknown player", expect({"chain": ["add:P7"]}),
     "steps[2].expect.chain[0]", "add:PLAYER"),
    ("expect control unknown battlefield", expect({"control": {"C": None}}),
     "steps[2].expect.control.C", "unknown battlefield"),
    ("expect control unknown player", expect({"control": {"A": "P4"}}),
     "steps[2].expect.control.A", "unknown player"),
    ("expect contested list", expect({"contested": ["A"]}), "steps[2].expect.contested",
     "mapping"),
    ("expect staged bad item", expect({"staged": {"A": ["duel"]}}),
     "steps[2].expect.staged.A[0]", "showdown"),
    ("expect staged not a list", expect({"staged": {"A": "combat"}}),
     "steps[2].expect.staged.A", "list"),
    ("expect score unknown player", expect({"score": {"P3": 1}}), "steps[2].expect.score.P3",
     "unknown player"),
    ("expect score text", expect({"score": {"P1": "1"}}), "steps[2].expect.score.P1",
     "integer"),
    ("expect scored_this_turn player unknown", expect({"scored_this_turn": {"A": ["P9"]}}),
     "steps[2].expect.scored_this_turn.A[0]", "unknown player"),
    ("expect units unknown unit", expect({"units": {"U9": {"at": "A"}}}),
     "steps[2].expect.units.U9", "unknown unit"),
    ("expect units unknown key", expect({"units": {"U1": {"location": "A"}}}),
     "steps[2].expect.units.U1.location", "unknown key"),
    ("expect units at unknown", expect({"units": {"U1": {"at": "graveyard"}}}),
     "steps[2].expect.units.U1.at",
     "unknown battlefield 'graveyard'; expected one of: base, hand, trash, A, B"),
    ("expect units at a unit", expect({"units": {"U1": {"at": "U2"}}}),
     "steps[2].expect.units.U1.at", "'U2' is not a battlefield: it is the id at units[1].id; "
     "expected one of: base, hand, trash, A, B"),
    ("expect units exhausted text", expect({"units": {"U1": {"exhausted": "yes"}}}),
     "steps[2].expect.units.U1.exhausted", "true or false"),
    ("expect units designation bad", expect({"units": {"U1": {"designation": "tank"}}}),
     "steps[2].expect.units.U1.designation",
     "expected one of: attacker, defender, null; got 'tank'"),
    ("expect units might negative", expect({"units": {"U1": {"might": -1}}}),
     "steps[2].expect.units.U1.might", "0 or more"),
    ("expect units not mapping", expect({"units": {"U1": "A"}}), "steps[2].expect.units.U1",
     "mapping"),
    ("expect hand negative", expect({"hand": {"P1": -1}}), "steps[2].expect.hand.P1",
     "0 or more"),
    ("expect deck negative", expect({"deck": {"P2": -1}}), "steps[2].expect.deck.P2",
     "0 or more"),
    ("expect deck unknown player", expect({"deck": {"P9": 1}}), "steps[2].expect.deck.P9",
     "unknown"),
    ("expect pending_choice bad kind", expect({"pending_choice": {"kind": "target"}}),
     "steps[2].expect.pending_choice.kind", "battlefield"),
    ("expect pending_choice unknown key", expect({"pending_choice": {"who": "P1"}}),
     "steps[2].expect.pending_choice.who", "unknown key"),
    ("expect pending_choice unit as battlefield", expect({"pending_choice": {
        "kind": "battlefield", "options": ["U1"]}}),
     "steps[2].expect.pending_choice.options[0]",
     "'U1' is not a battlefield: it is the id at units[0].id"),
    ("expect pending_choice battlefield as unit", expect({"pending_choice": {
        "kind": "damage", "options": ["A"]}}),
     "steps[2].expect.pending_choice.options[0]",
     "'A' is not a unit: it is the id at battlefields[0].id"),
    ("expect pending_choice options text", expect({"pending_choice": {"options": "A"}}),
     "steps[2].expect.pending_choice.options", "list"),
    ("expect turn unknown key", expect({"turn": {"number": 2}}),
     "steps[2].expect.turn.number", "unknown key"),
    ("expect turn bad phase", expect({"turn": {"phase": "combat"}}),
     "steps[2].expect.turn.phase", "awaken"),
    ("expect turn null", expect({"turn": None}), "steps[2].expect.turn", "mapping"),
]


INVALID_PARAMS = pytest.mark.parametrize(
    ("change", "field", "fragment"), [case[1:] for case in INVALID],
    ids=[case[0] for case in INVALID])


@INVALID_PARAMS
def test_invalid_dict(change: Any, field: str, fragment: str) -> None:
    error = rejected(break_it(change))
    assert error.file == "<scenario>"
    assert error.field == field, str(error)
    assert fragment in error.message, str(error)
    assert error.line is None


@INVALID_PARAMS
def test_invalid_file_has_lines(tmp_path: Path, change: Any, field: str, fragment: str) -> None:
    """The same mistakes in a YAML file: same field, and a line."""
    error = rejected_text(tmp_path, dumped(break_it(change)))
    assert error.field == field, str(error)
    assert fragment in error.message, str(error)
    assert isinstance(error.line, int) and error.line >= 1


def four_players() -> dict[str, Any]:
    data = minimal()
    data["players"] = ["P1", "P2", "P3", "P4"]
    data["units"] = []
    return data


@pytest.mark.parametrize(("teams", "field", "fragment"), [
    ([["P1", "P2"], ["P3", "P4"]], "teams", "alternate"),
    ([["P1", "P3", "P2"], ["P4"]], "teams[0]", "two players"),
    ([["P1", "P3"]], "teams", "two teams"),
    ([["P1", "P3"], ["P2", "P4"], []], "teams", "two teams"),
    ([["P1", "P1"], ["P2", "P4"]], "teams[0][1]", "twice"),
    ([["P1", "P3"], ["P1", "P3"]], "teams[1][0]", "'P1' is in two teams"),
    ([["P1", "P3"], ["P2", "P5"]], "teams[1][1]", "unknown player"),
    ("P1 P3", "teams", "list"),
    ([["P1", "P3"], "P2 P4"], "teams[1]", "list"),
])
def test_invalid_teams(teams: Any, field: str, fragment: str) -> None:
    data = four_players()
    data["teams"] = teams
    error = rejected(data)
    assert (error.field, fragment in error.message) == (field, True), str(error)


@pytest.mark.parametrize(("controllers", "teams", "culprit", "fragment"), [
    (["P1", "P2"], None, 1, "two opposing players"),
    (["P1", "P1", "P2", "P3"], None, 3, "three players"),  # at the third player's unit
    (["P1", "P3"], [["P1", "P3"], ["P2", "P4"]], 1, "teammates"),
    (["P2", "P1"], [["P1", "P3"], ["P2", "P4"]], 1, "two opposing players"),
])
def test_unreachable_setups(controllers: list[str], teams: Any, culprit: int,
                            fragment: str) -> None:
    data = four_players()
    data["teams"] = teams
    data["units"] = [{"id": f"U{index}", "controller": player, "might": 1, "at": "A"}
                     for index, player in enumerate(controllers)]
    data["units"].append({"id": "X", "controller": "P4", "might": 1, "at": "B"})
    error = rejected(data)
    assert error.field == f"units[{culprit}].at", str(error)
    assert fragment in error.message


@pytest.mark.parametrize(("holder", "refused"), [("P3", True), ("P1", False), ("P2", False),
                                                 (None, False)])
def test_a_unit_at_a_battlefield_its_teammate_controls_is_unreachable(
        holder: str | None, refused: bool) -> None:
    """A teammate's battlefield is never a destination (rules.md 8), so no game puts P1's unit
    at a battlefield P3 controls (D36); P1's own, an opponent's and an uncontrolled one are
    fine."""
    data = four_players()
    data["teams"] = [["P1", "P3"], ["P2", "P4"]]
    data["battlefields"] = [{"id": "A", "controller": holder}, {"id": "B"}]
    data["units"] = [{"id": "U1", "controller": "P1", "might": 1, "at": "A"}]
    if not refused:
        assert load_scenario(data).units[0].at == "A"
        return
    error = rejected(data)
    assert error.field == "units[0].at" and "teammate 'P3' controls" in error.message


def test_units_of_one_player_and_at_different_battlefields_are_fine() -> None:
    data = four_players()
    data["units"] = [
        {"id": "U1", "controller": "P1", "might": 1, "at": "A"},
        {"id": "U2", "controller": "P1", "might": 1, "at": "A"},
        {"id": "U3", "controller": "P2", "might": 1, "at": "B"},
        {"id": "U4", "controller": "P3", "might": 1, "at": "base"},
        {"id": "U5", "controller": "P4", "might": 1, "at": "base"},
    ]
    assert len(load_scenario(data).units) == 5


def test_too_many_steps() -> None:
    data = minimal()
    data["steps"] = [{"pass": "P1"}] * MAX_STEPS
    assert len(load_scenario(data).steps) == MAX_STEPS
    data["steps"].append({"pass": "P1"})
    assert rejected(data).field == "steps"


def test_non_mapping_sources() -> None:
    for source in ([], 3, None):
        error = rejected(source)
        assert error.field == "<root>"


# ---- errors: files and YAML ---------------------------------------------------------------


def test_yaml_errors_carry_lines(tmp_path: Path) -> None:
    error = rejected_text(tmp_path, "name: x\nplayers: [P1, P2\nbattlefields: []\n")
    assert error.field == "<yaml>"
    assert error.line is not None and error.line >= 2


def test_duplicate_keys_are_refused(tmp_path: Path) -> None:
    text = FORMAT_EXAMPLE.replace("battlefields: [{id: A}]", "battlefields: [{id: A, id: B}]")
    error = rejected_text(tmp_path, text)
    assert (error.field, error.line) == ("battlefields[0].id", 3)
    assert "duplicate key 'id'" in error.message
    error = rejected_text(tmp_path, FORMAT_EXAMPLE + "players: [P1, P2]\n")
    assert (error.field, error.line) == ("players", 13)


def test_duplicate_keys_inside_expect(tmp_path: Path) -> None:
    text = FORMAT_EXAMPLE.replace("{focus: P2}", "{focus: P2, focus: P1}")
    error = rejected_text(tmp_path, text)
    assert (error.field, error.line) == ("steps[3].expect.focus", 10)


def test_lines_point_at_the_field(tmp_path: Path) -> None:
    text = FORMAT_EXAMPLE.replace("- pass: P2", "- pass: P9")
    error = rejected_text(tmp_path, text)
    assert (error.field, error.line) == ("steps[4].pass", 11)
    text = FORMAT_EXAMPLE.replace("might: 2", "might: two")
    error = rejected_text(tmp_path, text)
    assert (error.field, error.line) == ("units[0].might", 4)
    assert str(error) == f"{tmp_path / 'scenario.yaml'}: units[0].might: expected an integer, " \
        "got a string, 'two' (line 4)"


def test_missing_key_names_the_mapping_line(tmp_path: Path) -> None:
    text = "name: x\nplayers: [P1, P2]\nbattlefields:\n  - id: A\nunits:\n  - id: U1\n" \
           "    controller: P1\n    at: A\n"
    error = rejected_text(tmp_path, text)
    assert (error.field, error.line) == ("units[0].might", 6)


@pytest.mark.parametrize("text", [
    "name: !!python/object/apply:os.system ['echo owned']\n",
    "!!python/object/apply:os.system ['echo owned']\n",
    "name: !!python/name:os.system\n",
    "name: !!python/object:builtins.dict {a: 1}\n",
    "players: !!set {P1, P2}\n",
    "name: !custom x\n",
    "name: !!binary aGVsbG8=\n",
])
def test_object_tags_are_refused(tmp_path: Path, text: str) -> None:
    error = rejected_text(tmp_path, text)
    assert "tag" in error.message
    assert error.line == 1


ALIASES = """\
name: anchors, aliases and merge keys
players: [P1, P2]
battlefields: [{id: A}, {id: B}]
units:
  - &unit {id: U1, controller: P1, might: 2, at: base}
  - {<<: *unit, id: U2, might: 3}
hands:
  P1:
    - &stun {id: S1, type: spell, timing: action, effect: {stun: {}}}
  P2:
    - {<<: [*stun], id: S2, timing: reaction}
steps:
  - expect: &idle {state: neutral-open, chain: []}
  - move: {player: P1, units: [U1, U2], to: A}
  - expect: {units: {U2: {might: 3, at: A}}}
"""


def test_anchors_aliases_and_merge_keys_work_as_yaml_says(tmp_path: Path) -> None:
    """A scenario is a YAML file: an alias repeats its anchor's value, a merge key (<<) adds
    the keys of the mappings it names that the mapping does not give itself."""
    scenario = load_scenario(write(tmp_path, ALIASES))
    u1, u2 = scenario.units
    assert (u1.id, u1.might, u2.id, u2.might, u2.controller) == ("U1", 2, "U2", 3, "P1")
    (s1,), (s2,) = scenario.hands["P1"], scenario.hands["P2"]
    assert (s2.id, s2.timing, s2.effect) == ("S2", "reaction", s1.effect)


def test_billion_laughs_and_recursive_aliases_are_refused(tmp_path: Path) -> None:
    laughs = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n"
        for i in range(9))
    error = rejected_text(tmp_path, laughs)
    assert "more than 1000000 values" in error.message
    recursive = FORMAT_EXAMPLE + "loop: &loop [*loop]\n"
    assert "nested deeper" in rejected_text(tmp_path, recursive).message


def test_a_key_given_twice_is_refused_even_beside_a_merge(tmp_path: Path) -> None:
    twice = ALIASES.replace("{<<: *unit, id: U2, might: 3}", "{<<: *unit, id: U2, id: U3}")
    error = rejected_text(tmp_path, twice)
    assert (error.field, error.message) == ("units[1].id", "duplicate key 'id'")
    scalar = ALIASES.replace("{<<: *unit, id: U2, might: 3}", "{<<: U1, id: U2}")
    assert "merge key" in rejected_text(tmp_path, scalar).message
    # two merge keys are a key given twice too (the one list form merges several)
    merges = ALIASES.replace("{<<: *unit, id: U2, might: 3}",
                             "{<<: *unit, <<: {might: 3}, id: U2}")
    error = rejected_text(tmp_path, merges)
    assert (error.field, error.message.split(" (")[0]) == ("units[1].<<", "duplicate key '<<'")
    several = ALIASES.replace("{<<: *unit, id: U2, might: 3}", "{<<: [{might: 3}, *unit], id: U2}")
    assert load_scenario_text(several, "several").units[1].might == 3


@pytest.mark.parametrize(("value", "hint"), [("12", True), ("yes", True), ("[P1]", False),
                                             ("{a: 1}", False)])
def test_quote_it_is_said_of_values_yaml_read_as_numbers_booleans_or_dates(
        tmp_path: Path, value: str, hint: bool) -> None:
    text = FORMAT_EXAMPLE.replace("- move: {player: P1, units: [U1], to: A}", f"- pass: {value}")
    error = rejected_text(tmp_path, text)
    assert error.message.startswith("an id must be a string")
    assert error.message.endswith("(quote it)") == hint


def test_deep_nesting_is_refused(tmp_path: Path) -> None:
    assert "nested deeper" in rejected_text(tmp_path, "[" * 10_000).message
    assert "nested deeper" in rejected_text(tmp_path, "{a: " * 10_000).message
    block = "".join("  " * depth + "- \n" for depth in range(200))
    assert "nested deeper" in rejected_text(tmp_path, block).message
    deep: Any = "x"
    for _ in range(10_000):
        deep = {"k": deep}
    assert "nested deeper" in rejected({"name": deep}).message
    cycle: dict[str, Any] = {"name": "loop"}
    cycle["steps"] = [cycle]
    assert "nested deeper" in rejected(cycle).message


def test_depth_limit_is_fifty_containers(tmp_path: Path) -> None:
    """The root mapping counts: 49 lists inside it make 50 levels, which is allowed."""
    for lists, allowed in ((49, True), (50, False)):
        text = FORMAT_EXAMPLE + "deep: " + "[" * lists + "1" + "]" * lists + "\n"
        error = rejected_text(tmp_path, text)
        assert ("nested deeper" not in error.message) is allowed, str(error)
        data: Any = 1
        for _ in range(lists):
            data = [data]
        error = rejected({**minimal(), "deep": data})
        assert ("nested deeper" not in error.message) is allowed, str(error)


def test_shared_subtrees_in_dict_input_are_bounded() -> None:
    level: Any = ["x"]
    for _ in range(8):
        level = [level] * 50  # 50**8 leaves if walked naively
    error = rejected({"name": "wide", "steps": level})
    assert "values" in error.message or "nested" in error.message


def test_file_size_limit(tmp_path: Path) -> None:
    text = FORMAT_EXAMPLE + "#" * (1024 * 1024)
    error = rejected_text(tmp_path, text)
    assert (error.field, error.line) == ("<file>", None)
    assert pytest.raises(ScenarioError, load_scenario_text, text, "t").value.field == "<file>"


def test_unreadable_files(tmp_path: Path) -> None:
    assert rejected(tmp_path / "missing.yaml").field == "<file>"
    assert rejected(tmp_path).field == "<file>"
    path = tmp_path / "latin1.yaml"
    path.write_bytes(b"name: caf\xe9\n")
    error = rejected(path)
    assert (error.field, error.line) == ("<file>", 1)
    path.write_bytes(b"name: x\x00\n")
    assert rejected(path).field == "<yaml>"


def test_odd_yaml_values(tmp_path: Path) -> None:
    cases = {
        "name: x\n---\nname: y\n": "<yaml>",
        "": "<root>",
        "- a\n": "<root>",
        "? [a]\n: 1\n": "<root>",
        "name: 2024-01-01\nplayers: [P1, P2]\nbattlefields: [{id: A}]\n": "name",
        "name: 2024-13-45\n": "name",
        "name: x\nvictory_score: " + "9" * 5000 + "\n": "victory_score",
        "name: x\nplayers: [P1, P2]\nbattlefields: [{id: A}]\nvictory_score: .nan\n":
            "victory_score",
        "name: x\nplayers: [yes, no]\nbattlefields: [{id: A}]\n": "players[0]",
        "name: x\nplayers: [P1, 1]\nbattlefields: [{id: A}]\n": "players[1]",
        "name: x\nplayers: [P1, P2]\nbattlefields: [{id: A}]\n3: x\n": "3",
        "name: x\nplayers: [P1, P2]\nbattlefields: [{id: A}]\nnull: x\n": "null",
    }
    for text, field in cases.items():
        error = rejected_text(tmp_path, text)
        assert error.field == field, (text, str(error))


def test_error_strings_stay_on_one_line(tmp_path: Path) -> None:
    data = minimal()
    data["units"][0]["id"] = "U\n1"
    data["steps"] = [{"pass\nP1": "P1"}]
    error = rejected(data, label="two\nlines.yaml")
    assert "\n" in error.field
    text = FORMAT_EXAMPLE + '"multi\\nline\\u2028key": 1\n'
    assert "unknown key" in rejected_text(tmp_path, text).message


def test_the_input_dict_is_not_modified() -> None:
    data = minimal()
    data["hands"]["P1"][0]["effect"] = {"sequence": [{"move": {"units": ["U1"], "to": "A"}}]}
    before = copy.deepcopy(data)
    scenario = load_scenario(data)
    assert data == before
    assert scenario.hands["P1"][0].effect == before["hands"]["P1"][0]["effect"]
    assert scenario.hands["P1"][0].effect is not data["hands"]["P1"][0]["effect"]


def test_an_expect_may_state_counts_past_the_setup_limit(tmp_path: Path) -> None:
    """Setup counts stop at MAX_INT, but the game's grow past it (a point gained at the
    limit): an expect can state what the game reaches, and no count below 0."""
    from engine.runner import FAILED, OK, run_file

    scenario = {
        "name": "a score past the count limit", "players": ["P1", "P2"],
        "victory_score": MAX_INT, "scores": {"P1": MAX_INT, "P2": MAX_INT},
        "battlefields": [{"id": "A"}],
        "hands": {"P1": [{"id": "G", "type": "spell", "effect": {"gain_points": 1}}]},
        "steps": [{"play": {"player": "P1", "card": "G"}}, {"pass": "P1"}, {"pass": "P2"},
                  {"expect": {"winner": "P1", "score": {"P1": MAX_INT + 1}}}],
    }
    path = tmp_path / "past.yaml"
    path.write_text(yaml.safe_dump(scenario), encoding="utf-8")
    assert run_file(path).code == OK
    scenario["steps"][-1] = {"expect": {"score": {"P1": MAX_INT + 2}}}
    path.write_text(yaml.safe_dump(scenario), encoding="utf-8")
    assert run_file(path).code == FAILED
    for bad in ({"score": {"P1": -1}}, {"hand": {"P2": -1}}):
        scenario["steps"][-1] = {"expect": bad}
        with pytest.raises(ScenarioError, match="must be 0 or more"):
            load_scenario(scenario)


@pytest.mark.parametrize(("where", "trigger", "message"), [
    ("battlefield", {"when": "die", "effect": {"gain_points": 1}},
     "battlefields[0].abilities[0].when: 'die' never happens to a battlefield"),
    ("battlefield", {"when": "move", "effect": {"draw": 1}},
     "battlefields[0].abilities[0].when: 'move' never happens to a battlefield"),
    ("battlefield", {"when": "beginning", "effect": {"kill": {}}, "targets": "self"},
     "battlefields[0].abilities[0].targets: 'self' is the unit that has the ability"),
    ("unit", {"when": "beginning", "effect": {"gain_points": 5}},
     "units[0].triggers[0].when: 'beginning' never happens to a unit"),
])
def test_a_trigger_that_could_never_fire_is_refused(where: str, trigger: dict,
                                                    message: str) -> None:
    """scenario-format.md gives each event to a source: "this unit" events, and a
    battlefield's Beginning phase (D15)."""
    field = {"id": "A", "controller": "P1"}
    unit = {"id": "U1", "controller": "P1", "might": 3, "at": "A"}
    (field if where == "battlefield" else unit)[
        "abilities" if where == "battlefield" else "triggers"] = [trigger]
    with pytest.raises(ScenarioError, match=re.escape(message)):
        load_scenario({"name": "never fires", "players": ["P1", "P2"],
                       "battlefields": [field], "units": [unit]})
    # the events each source does have load
    for when in ("conquer", "hold"):
        trigger = {"when": when, "effect": {"draw": 1}}
        load_scenario({"name": "fires", "players": ["P1", "P2"],
                       "battlefields": [{"id": "A", "abilities": [trigger]}],
                       "units": [{**unit, "triggers": [trigger]}]})


def test_an_effect_given_no_argument_takes_none() -> None:
    """D33: `stun:` with nothing after it is `stun: {}` (it said "expected a mapping, got
    null"); an effect that needs its argument still refuses null."""
    data = minimal()
    data["hands"] = {"P1": [
        {"id": "S1", "type": "spell", "effect": {"stun": None}},
        {"id": "S2", "type": "spell", "effect": {"sequence": [{"move": None}, {"kill": None}]}}]}
    hand = load_scenario(data).hands["P1"]
    assert hand[0].effect == {"stun": {}}
    assert hand[1].effect == {"sequence": [{"move": {}}, {"kill": {}}]}
    data["hands"] = {"P1": [{"id": "S1", "type": "spell", "effect": {"draw": None}}]}
    assert "expected an integer, got null" in rejected(data).message


@pytest.mark.parametrize(("expected", "holds"), [
    ({"staged": {"A": None}}, True),
    ({"scored_this_turn": {"A": None}}, False),  # P1 scored A
    ({"scored_this_turn": {"A": ["P1"]}}, True),
])
def test_null_for_an_empty_list_in_expect_is_the_empty_list(tmp_path: Path, expected: dict,
                                                            holds: bool) -> None:
    """D38: ``null`` in `staged` or `scored_this_turn` is ``[]``, compared as such."""
    from engine.runner import FAILED, OK, run_file

    steps = [{"move": {"player": "P1", "units": ["U1"], "to": "A"}}, {"pass": "P1"},
             {"pass": "P2"}, {"expect": expected}]
    scenario = {"name": "null", "players": ["P1", "P2"], "battlefields": [{"id": "A"}],
                "units": [{"id": "U1", "controller": "P1", "might": 2, "at": "base"}],
                "steps": steps}
    path = tmp_path / "null.yaml"
    path.write_text(yaml.safe_dump(scenario))
    assert run_file(path).code == (OK if holds else FAILED)


def test_a_number_too_long_to_read_is_out_of_range(tmp_path: Path) -> None:
    """Python reads at most 4,300 digits from text: a longer number is said to be out of
    range, not "unreadable", in a setup field and in an expect alike."""
    digits = "9" * 4_400
    setup = rejected_text(tmp_path, FORMAT_EXAMPLE + f"victory_score: {digits}\n")
    assert (setup.field, setup.message) == (
        "victory_score", "a number of 4,400 digits is out of range (at most 4,300 digits "
        "are read)")
    expect = rejected_text(tmp_path, FORMAT_EXAMPLE + f"  - expect: {{score: {{P1: {digits}}}}}\n")
    assert expect.field.endswith("].expect.score.P1") and "out of range" in expect.message


@pytest.mark.parametrize("number", ["0x" + "f" * 5_000, "0b" + "1" * 20_000, "0" + "7" * 20_000],
                         ids=["hexadecimal", "binary", "octal"])
def test_a_number_in_another_base_too_large_to_write_is_out_of_range(
        tmp_path: Path, number: str) -> None:
    """YAML 1.1 writes ints in bases 2, 8 and 16 too: Python reads those of any length, and
    then could not write them in the report (a traceback, before): refused by their value."""
    error = rejected_text(tmp_path, FORMAT_EXAMPLE + f"  - expect: {{score: {{P1: {number}}}}}\n")
    assert error.field.endswith("].expect.score.P1")
    assert error.message == "a number of more than 4,300 decimal digits is out of range"


@pytest.mark.parametrize("number", [":".join(["59"] * 3_000), '!!int "_1' + ":59" * 3_000 + '"',
                                    '!!int "1' + ":100" * 3_000 + '"'],
                         ids=["plain", "tagged, leading _", "tagged, parts past 59"])
def test_a_long_number_in_base_60_is_out_of_range_before_it_is_read(
        tmp_path: Path, number: str) -> None:
    """PyYAML reads base 60 (``1:2:3``) in time that grows as the square of its length (37 s
    for a 1 MB number): one longer than 4,300 characters is refused before it is read, however
    it is tagged or spelt."""
    error = rejected_text(tmp_path, FORMAT_EXAMPLE.replace("might: 2", f"might: {number}"))
    assert error.field == "units[0].might"
    assert error.message.startswith("a number in base 60 written with ")
    assert error.message.endswith(" characters is out of range (at most 4,300 are read)")


@pytest.mark.parametrize(("written", "value"), [
    ("+" + "9" * 4_300, int("9" * 4_300)),
    ("_".join(["9" * 10] * 430), int("9" * 4_300)),
    ("1" + "_" * 4_300, 1),
    ("0" * 4_300 + "7", 7),  # octal, as YAML 1.1 reads a leading 0
])
def test_a_long_spelling_of_a_readable_number_is_read(
        tmp_path: Path, written: str, value: int) -> None:
    """A number is refused by its digits, not by the characters it is written with."""
    scenario = load_scenario(write(tmp_path, FORMAT_EXAMPLE
                                   + f"  - expect: {{score: {{P1: {written}}}}}\n"))
    assert scenario.steps[-1].args == {"score": {"P1": value}}


def test_a_short_hexadecimal_number_too_large_to_write_is_out_of_range(tmp_path: Path) -> None:
    """4,000 hexadecimal digits are 4,817 decimal ones: read, then refused."""
    error = rejected_text(tmp_path, FORMAT_EXAMPLE
                          + f"  - expect: {{score: {{P1: 0x{'f' * 4_000}}}}}\n")
    assert error.message == "a number of more than 4,300 decimal digits is out of range"


def test_an_expected_count_too_large_to_write_is_refused_in_a_dict_too() -> None:
    data = yaml.safe_load(FORMAT_EXAMPLE)
    data["steps"].append({"expect": {"score": {"P1": 10**5000}}})
    error = rejected(data)
    assert error.field.endswith("].expect.score.P1")
    assert error.message == "a number of more than 4,300 decimal digits is out of range"


def test_chained_merge_keys_are_bounded_as_nesting_is(tmp_path: Path) -> None:
    """A mapping merged into one merged into another...: each link is one level deeper, so
    a chain of them (which a loader copying keys at every link reads in time that grows as the
    cube of its length) or a mapping that merges itself is refused at once."""
    chain = "".join(f"a{i}: &a{i} {{<<: *a{i - 1}, k{i}: 1}}\n" for i in range(1, 900))
    error = rejected_text(tmp_path, "a0: &a0 {k0: 1}\n" + chain + "name: t\n")
    assert error.message == "merge keys (<<) chained more than 50 deep"
    itself = rejected_text(tmp_path, "a: &a {<<: *a, k: 1}\nname: t\n")
    assert (itself.field, itself.message) == ("a", "merge keys (<<) chained more than 50 deep")
    short = "".join(f"a{i}: &a{i} {{<<: *a{i - 1}, k{i}: 1}}\n" for i in range(1, 40))
    assert rejected_text(tmp_path, "a0: &a0 {k0: 1}\n" + short + "name: t\n").message == (
        "unknown key 'a0'; expected one of: name, players, battlefields, rules, teams, "
        "turn_player, victory_score, manual_damage, scores, deck, units, hands, steps")


def test_the_keys_a_merge_copies_count_as_values(tmp_path: Path) -> None:
    """A merged mapping is built again for each merge: many merges of one wide mapping are as
    many values as writing them out, and count against the 1,000,000."""
    wide = "w: &w {" + ", ".join(f"k{i}: 1" for i in range(2_000)) + "}\n"
    merges = "m: [" + ", ".join(["{<<: *w}"] * 600) + "]\n"
    error = rejected_text(tmp_path, wide + merges + "name: t\n")
    assert error.message.startswith("more than 1000000 values")


def test_a_path_holding_a_nul_is_a_scenario_error() -> None:
    error = rejected("a\0b.yaml")
    assert (error.field, error.message) == (
        "<file>", "cannot read: a path cannot hold a NUL character")
    assert run_file("a\0b.yaml").code == 2


def test_an_unreadable_int_is_not_called_too_long(tmp_path: Path) -> None:
    digits = "1" * 5_000
    error = rejected_text(tmp_path, FORMAT_EXAMPLE + f"victory_score: !!int {digits}x\n")
    assert error.message.startswith("unreadable int")
