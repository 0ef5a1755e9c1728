"""Opening, converting and ending contests, the Attackers' and Defenders' designations
(Cleanup step 2) and Focus (rules.md sections 4 to 6, CR 341-348; a Combat's own steps are
in ``combat``).

Which staged contest may open is the scheduler chart's decision; what opening one does to the
battlefield, to Focus and to the Chain is here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import chain
from .state import GameState, battlefield_key

if TYPE_CHECKING:
    from .core import Table


def showdowns_ready(s: GameState) -> list[str]:
    """Cleanup step 8: staged Showdowns without a staged Combat, in setup order."""
    return [
        bf
        for bf in s.fields
        if s.showdown_staged(bf) and not s.combat_staged(bf)
    ]


def combats_ready(s: GameState) -> list[str]:
    """Cleanup step 9: staged Combats, in setup order. Only when no Showdown qualifies: the
    scheduler chart asks for them after its transitions for Showdowns, which then take none."""
    return [bf for bf in s.fields if s.combat_staged(bf)]


def offer_choice(table: Table, rule: str, options: list[str], contests: str) -> None:
    """The turn player chooses which of the staged contests in ``options`` opens (the
    scheduler chart decides whether those are Showdowns or Combats: ``contests`` says it)."""
    s = table.state
    s.pending = {"player": s.turn_player, "kind": "battlefield", "options": options}
    s.priority = None  # answering a choice is not Priority: nobody acts until it is answered
    table.say(f"{contests} are staged at {', '.join(options)}; {s.turn_player} chooses which opens "
              "first", rule)


def open_chosen(table: Table, bf: str, event: str, rule: str) -> None:
    """The chosen battlefield's contest opens (``event``: the scheduler's choice was of
    Showdowns or of Combats, ``rule`` the one that opens such a contest)."""
    s = table.state
    assert s.pending is not None, "the scheduler takes a choice only while one is pending"
    table.say(f"{s.pending['player']} chooses {bf}", rule)
    s.pending = None
    table.send(battlefield_key(bf), event)


def give_focus(table: Table, player: str, rule: str, why: str) -> None:
    s = table.state
    # a conversion can give Focus to the Attacker who holds it already
    verb = "keeps" if s.focus == player else "gains"
    s.focus = s.priority = player
    s.passes = 0
    table.say(f"{player} {verb} Focus: {why}", rule)


def begin_showdown(table: Table, bf: str, rule: str) -> None:
    s = table.state
    s.contest_at = bf
    s.attacker = s.defender = None
    table.say(f"Showdown opens at {bf}", rule)
    table.send("focus", "showdown_opens")


def begin_combat(table: Table, bf: str, rule: str, converted: bool) -> None:
    """A Combat opens, or a running Showdown converts into one (CR 455-459, rules.md 6.1)."""
    s = table.state
    present = s.players_at(bf)
    applier = s.fields[bf].applier
    if applier is not None and applier in present:
        attacker = applier
    else:
        # a running Showdown keeps its Contested while its applier is away (Cleanup step 7),
        # so a conversion can find the applier gone: the player there who does not control
        # the battlefield attacks, as step 7 would have them apply Contested (decisions D17)
        attacker = s.first_rival(bf)
        if s.fields[bf].controller in present:
            table.say(f"{applier} applied Contested but has no units at {bf}: {attacker}, who "
                      "does not control it, is the Attacker", "rules 11.11")
        else:  # nobody there controls it: the first in turn order attacks (D18)
            table.say(f"{applier} applied Contested but has no units at {bf}, which nobody there "
                      f"controls: {attacker}, the first in turn order from the turn player, is "
                      "the Attacker", "rules 11.11")
    defender = next(p for p in present if s.opponents(attacker, p))
    s.contest_at, s.attacker, s.defender = bf, attacker, defender
    s.passes = 0
    if converted:
        table.say(
            f"The Showdown at {bf} converts into Combat: {attacker} attacks, {defender} defends",
            rule,
        )
    else:
        table.say(f"Combat begins at {bf}: {attacker} attacks, {defender} defends", rule)
    designate(table, announce=False)
    table.send("focus", "converted" if converted else "combat_opens")
    _queue_combat_triggers(table, bf)


def designate(table: Table, announce: bool = True) -> bool:
    """Cleanup step 2: units at the combat take their controller's designation (said in the
    trace, but as the Combat opens, whose line names both sides)."""
    s = table.state
    changed = False
    for unit in list(s.units.values()):
        wanted = None
        if s.attacker and unit.at == s.contest_at:
            if unit.controller == s.attacker:
                wanted = "attacker"
            elif unit.controller == s.defender:
                wanted = "defender"
        if unit.designation != wanted:
            if announce:
                _say_designation(table, unit.id, wanted)
            table.update_unit(unit.id, designation=wanted)
            changed = True
    return changed


def _say_designation(table: Table, uid: str, wanted: str | None) -> None:
    """Said before the unit's designation changes to ``wanted``."""
    role = {"attacker": "an Attacker", "defender": "a Defender"}
    name = table.name(uid)
    if wanted:
        table.say(f"Cleanup: {name} is now {role[wanted]} at {table.state.contest_at}",
                  "CR 323.2")
        return
    had = table.unit(uid).designation
    assert had is not None, "a designation that changes to none was held"
    table.say(f"Cleanup: {name} is no longer {role[had]}", "CR 323.2")


def _queue_combat_triggers(table: Table, bf: str) -> None:
    """Attack and defend triggers: the Attacker's first, the Defender's last (rules 11.4).
    They are the only ones waiting (Cleanup puts waiting triggers on the Chain before it
    opens or converts a contest), so ranking the Attacker 0 and the Defender 1 is enough."""
    s = table.state
    assert not s.queued_triggers, "Cleanup puts waiting triggers on the Chain first"
    for unit in s.units_at(bf):
        event = {"attacker": "attack", "defender": "defend"}.get(unit.designation or "")
        if event:
            chain.fire_unit(table, unit, event, rank=0 if unit.controller == s.attacker else 1)


def all_passed(table: Table) -> None:
    """Every player passed Focus in a row: the Showdown's passes end it (CR 348)."""
    s = table.state
    s.focus = s.priority = None
    s.passes = 0
    table.send(battlefield_key(s.contest_battlefield), "showdown_ends")


def end_non_combat_showdown(table: Table, bf: str, rule: str) -> None:
    """rules.md 5.6: it is Neutral first; then the only player with units there establishes
    control if they do not control it (the battlefield chart's ``claim_after_showdown``)."""
    s = table.state
    s.contest_at = None
    table.say(f"The Showdown at {bf} ends", rule)
    table.send("scheduler", "showdown_over")
    table.try_send(battlefield_key(bf), "claim_after_showdown")
    table.try_send(battlefield_key(bf), "clear_contested_after_showdown")
