"""The trace as a judge reads it: every event said once, in the rules' words, with no line that
contradicts another or the state (a reading of every bundled trace found these).
"""

from __future__ import annotations

import pytest

from tests.conftest import ROOT
from tests.helpers import trace_lines

SCENARIO_DIR = ROOT / "scenarios"


def _lines(number: str, rules: str | None = None) -> list[str]:
    (path,) = SCENARIO_DIR.glob(f"{number}_*.yaml")
    return trace_lines(path, rules)


@pytest.mark.parametrize(("number", "rules", "line"), [
    # cr-1.4 loses control where a contest is only staged: none is under way (Cleanup step 4)
    ("201", "cr-1.4", "A: P1 loses control: no units there, the state is Open, and no Showdown "
                      "or Combat is under way there [profile cr-1.4] (CR 323.6)"),
    # the Attacker with the applier gone and nobody there controlling the battlefield (D18)
    ("113", None, "P1 applied Contested but has no units at A, which nobody there controls: P3, "
                  "the first in turn order from the turn player, is the Attacker (rules 11.11)"),
    # a team wins together; one point is a point
    ("066", None, "Cleanup: Team P1 and P3 win with 1 point, more than any opponent; the game is "
                  "over (CR 467)"),
    ("020", None, "Cleanup: P1 wins with 8 points, more than any opponent; the game is over "
                  "(CR 467)"),
    # control established at a contest's end cites the rule of that contest's end
    ("001", None, "A: P1 establishes control (S 184.4)"),  # a Showdown
    ("002", None, "C: P1 establishes control (CR 461.5)"),  # a Combat
    # two opposing players there are a Combat before Cleanup stages it (rules 11.10)
    ("063", None, "F1 cannot go to A (the Combat there does not involve P3) (CR 442.2.a)"),
    # a Combat begun where a Showdown is staged too uses that staging up, and says so
    ("003", None, "The Showdown staged at A is this Combat: the staging is used up (CR 323.13)"),
    # the winner of a Combat, named with its side
    ("002", None, "Combat at C: P1 (Attacker) won (CR 461.3)"),
    ("019", None, "Combat at A: P1 (Defender) won (CR 461.3)"),
    # a No Result stages the Combat again: the combat result does, not Cleanup
    ("044", None,
     "No Result with both sides still there: a Combat is staged at A again (CR 461.3.d.1)"),
    # cr-1.4: the Attacker who holds Focus already keeps it
    ("046", None, "P1 keeps Focus: the Attacker [profile cr-1.4] (CR 459.2.c)"),
    # Cleanup step 2 gives a unit arriving mid-combat its side's designation
    ("021", None, "Cleanup: U2 is now an Attacker at A (CR 323.2)"),
    # the damage choice is announced; pass and add while a choice waits are refused by the
    # timing rule that says so, other actions by the choice's procedure
    ("042", None, "P1 is to assign 4 damage among E1, E2 (CR 460.2.c)"),
    ("042", None,
     "refused as expected: P1 must first answer the pending damage choice (rules 11.3)"),
    ("104", None,
     "refused as expected: P1 must first answer the pending battlefield choice (rules 11.3)"),
    # a choice answered with something it did not offer (an id of the file all the same)
    ("104", None, "refused as expected: U1 is not among the options: A, B (CR 323)"),
    ("042", None, "refused as expected: A is not among the options: E1, E2 (CR 460.2.c)"),
    ("042", None, "refused as expected: 2 of 4 damage assigned: an assignment gives out all "
                  "of it (CR 460.2.c)"),
    # an assignment refused is said in words, not in a programming language's notation
    ("042", None, "refused as expected: 1 to E1, 3 to E2 is not a legal assignment of 4 damage: "
                  "lethal damage in full before the next unit, Tanks first, Backline last "
                  "(CR 460.2.c)"),
    ("104", None,
     "refused as expected: P1 must first answer the pending battlefield choice (CR 323)"),
    # Priority coming back to the turn player in Neutral Open is said
    ("001", None, "P1, the turn player, has Priority in Neutral Open (CR 312.2.a)"),
    # "you" is no one: said in the rules' words, not the file's keys
    ("059", None, 'gaining 1 point does nothing: the battlefield has no controller, so "you" is '
                  'no one (S 184.6.c)'),
    ("282", None, 'taking control of E1 does nothing: the battlefield has no controller, so '
                  '"you" is no one (S 184.6.c)'),
    ("283", None, 'playing T1 does nothing: the battlefield has no controller, so "you" is no '
                  'one (S 184.6.c)'),
    # a teammate's battlefield is no destination by rules.md 8 (seed 001 speaks of units)
    ("226", None, "U2 cannot go to D (a teammate controls it) (rules 8)"),
    ("226", None, "U2 is recalled instead: it stays in P1's base (CR 442.2.c)"),
    # the choice says what is offered
    ("002", None, "Showdowns are staged at A, B; P1 chooses which opens first (CR 323.11)"),
    # a Standard Move: its cost, then its effect
    ("015", None, "P1 exhausts U1: a Standard Move to A (CR 144)"),
    # the Defender keeps control when the attackers were recalled: said, and not a conquest
    ("038", None, "A: P2 keeps control; keeping control is not conquering (CR 461.5)"),
    # so is a controller alone at the end of a non-combat Showdown (rules.md 5.6)
    ("276", None, "A: P2 keeps control; keeping control is not conquering (S 184.4)"),
    # Priority back to the player of an Add or a unit, citing the rule that says so
    ("014", None, "P2 receives Priority again (rules 11.3)"),
    ("013", None, "P2 receives Priority again (rules 11.7)"),
    # attackers recalled with defenders left: No Result, not the Defender's win
    ("038", None, "Combat at A: No Result (CR 461.3)"),
    # said by the battlefield chart's own transitions (a mutation audit of the charts found
    # these lines the only sign of a transition dropped or moved)
    ("033", None, "Nobody's units remain at A; nobody claims it (S 184.4)"),  # uncontrolled
    ("247", None, "Nobody's units remain at A; nobody claims it (S 184.4)"),  # was controlled
    ("039", None, "No units remain at A (CR 461.5.b)"),
    ("055", None, "P1 ends the turn: Ending phase, stuns expire and damage heals (CR 317)"),
    ("055", None, "Main phase: P2 has Priority (CR 316)"),
    ("022", None, "They join this Chain while its item finishes resolving (CR 336.1)"),
    ("003", None, "P1 gains Focus: the Attacker (CR 459.2.c)"),
    # each Cleanup step and Showdown rule cites the point that says it (a rules judge's
    # reading of CR 1.3: 323.8 to 323.14, 344, 346.1, 348)
    ("001", None, "Cleanup: Showdown staged at A (CR 323.8)"),
    ("087", None, "Cleanup: staged Showdown at C removed before it opened (CR 323.8)"),
    ("003", None, "Cleanup: Combat staged at A (CR 323.9)"),
    ("025", None, "Cleanup: staged Combat at A removed before it began (CR 323.10)"),
    ("028", None, "Combats are staged at A, B; P1 chooses which opens first (CR 323.13)"),
    ("045", None, "The Showdown at A converts into Combat: P1 attacks, P2 defends (CR 323.14)"),
    ("001", None, "Showdown opens at A (CR 344)"),
    ("073", None, "P1 keeps Focus: the chain was not begun by a card (CR 346.1)"),
    ("001", None, "P2 passes Focus; every player has passed in a row (CR 348)"),
    # a draw that finds the deck short says so, citing the rule that it draws nothing (D42)
    ("285", None, "P2 draws 1 card (CR 413)"),
    ("285", None, "P2 draws 1 card of 2: the deck is now empty (rules 11.9)"),
    ("285", None, "P2 draws nothing: the deck is empty (rules 11.9)"),
    ("056", None, "P2 draws nothing: the deck is empty (rules 11.9)"),
])
def test_the_trace_says_it_in_the_rules_words(number: str, rules: str | None, line: str) -> None:
    assert line in _lines(number, rules)


@pytest.mark.parametrize(("number", "unwanted"), [
    ("201", "no contest there"),
    ("014", "'s Add ability resolves"),  # "add:P2 resolves at once" said it
    ("003", "recalled instead"),  # the recall line that follows says it
    ("062", "it enters the base"),  # likewise the line that it enters the board
    ("046", "P1 gains Focus: the Attacker"),  # P1 held it already
    ("038", "(Defender) won"),  # the attackers were recalled: No Result
    ("038", "no longer an Attacker"),  # a recalled unit leaves the Combat, designation and all
    ("245", "no longer an Attacker"),  # the Combat's end removes designations, not Cleanup
    ("039", "no longer a"),  # a unit that dies leaves its designation with the board (D20)
    # a required move that cannot be made leaves a unit in its base: not "recalled to" it
    ("226", "is recalled to"),
    # the Attacker won: no Combat is staged again (only No Result with both sides there is)
    ("036", "staged at A again"),
    ("036", "staged Combat at A removed"),
])
def test_the_trace_says_nothing_twice_or_wrong(number: str, unwanted: str) -> None:
    rules = "cr-1.4" if number == "201" else None
    assert not [line for line in _lines(number, rules) if unwanted in line]


@pytest.mark.parametrize(("number", "first", "then"), [
    # Cleanup's steps in order: step 5 stages the Showdown, step 6 the Combat (rules.md 4)
    ("038", "Cleanup: Showdown staged at A", "Cleanup: Combat staged at A"),
    # task 3 settles control while A is still Contested; the Combat's end then removes it
    ("245", "A: P1 establishes control", "A: no longer Contested"),
    ("001", "A: P1 establishes control", "A: no longer Contested"),  # a non-combat Showdown
    ("038", "A: P2 keeps control", "A: no longer Contested"),
    ("039", "U1 dies", "E1 dies"),  # units with lethal damage die in board order
    ("020", "P1 receives Priority", "Cleanup: P1 wins"),  # after the win nobody acts
    # Cleanup's step 7 (a stale Contested removed) comes after steps 5 and 6 drop the stagings
    ("025", "Cleanup: staged Showdown at A removed", "Cleanup: staged Combat at A removed"),
    ("025", "Cleanup: staged Combat at A removed", "Cleanup: P1 has no units at A; Contested"),
])
def test_the_trace_says_it_in_the_rules_order(number: str, first: str, then: str) -> None:
    lines = _lines(number)
    (at_first,) = [i for i, line in enumerate(lines) if line.startswith(first)]
    (at_then,) = [i for i, line in enumerate(lines) if line.startswith(then)]
    assert at_first < at_then


def test_after_the_win_nothing_more_is_said() -> None:
    """A spell wins the game with a card still on the Chain (080): the win is the last line,
    and nobody receives Priority after it (D13)."""
    lines = [line for line in _lines("080") if not line.startswith("refused as expected")]
    assert lines[-1].startswith("Cleanup: P1 wins with 2 points")


def test_a_no_result_with_both_sides_there_is_said_in_the_order_it_happens() -> None:
    """Task 2 says No Result, the battlefield chart stages the Combat again, task 3 leaves
    control unsettled, task 4 ends the Combat: four lines in a row (CR 461.3-461.7)."""
    lines = _lines("044")
    at = lines.index("Combat at A: No Result (CR 461.3)")
    assert lines[at:at + 4] == [
        "Combat at A: No Result (CR 461.3)",
        "No Result with both sides still there: a Combat is staged at A again (CR 461.3.d.1)",
        "A: a contest is staged there again; control is not settled yet (CR 461.5)",
        "Combat at A ends; designations are removed (CR 461.7)",
    ]


def test_taking_control_of_ones_own_unit_says_nothing() -> None:
    """A take_control effect on a unit its player controls already does nothing, and says
    nothing of teammates (there are none in a 1v1 game)."""
    from engine import Game, Pass, Play

    game = Game.from_scenario({
        "name": "take your own", "players": ["P1", "P2"], "battlefields": [{"id": "A"}],
        "units": [{"id": "U1", "controller": "P1", "might": 1, "at": "base"}],
        "hands": {"P1": [{"id": "S1", "type": "spell", "effect": {"take_control": {}}}]},
    })
    lines = game.replay([Play("P1", "S1", ("U1",)), Pass("P1"), Pass("P2")])
    assert "Every player has passed in turn; S1 resolves (CR 339.1)" in lines
    assert not [line for line in lines if "control" in line]
    assert game.view()["units"]["U1"]["controller"] == "P1"


def test_a_standard_move_is_said_alike_whatever_order_names_its_units() -> None:
    """The same units in any order are the same move (docs/embedding.md): the trace says them
    in board order, the order their move triggers go on the Chain in."""
    from engine import Game, Move

    setup = {
        "name": "two movers", "players": ["P1", "P2"], "battlefields": [{"id": "A"}],
        "units": [{"id": "U1", "controller": "P1", "might": 1, "at": "base"},
                  {"id": "U2", "controller": "P1", "might": 1, "at": "base"}],
    }
    told = [Game.from_scenario(setup).apply(Move("P1", units, "A"))
            for units in (("U1", "U2"), ("U2", "U1"))]
    assert told[0] == told[1]
    assert told[0][:4] == ["P1 exhausts U1, U2: a Standard Move to A (CR 144)",
                           "U1 moves to A (CR 144)", "A: Contested by P1 (S 184.3.a)",
                           "U2 moves to A (CR 144)"]
