"""The Chain: items going on it, Priority, newest-first resolution (CR 327-340, rules.md 3)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import cleanup, effects
from .state import ChainItem, Trigger, Unit

if TYPE_CHECKING:
    from .core import Table


def add(table: Table, items: list[ChainItem]) -> None:
    """Put items on the Chain together and tell the priority chart, which says who has
    Priority: a new Chain's or a waiting one's newest item's controller, and nobody while the
    Chain resolves (the item being resolved gives it back as it ends)."""
    s = table.state
    if s.chain_open:  # a new Chain, begun by its first item's kind (rules 5.3 reads it); items
        # joining one that is resolving keep its beginning
        s.chain_begun_by = items[0].kind
    s.chain.extend(items)
    for item in items:
        table.say(f"{item.label} goes on the Chain", "CR 328")
    table.send("priority", "items_added")


def create(table: Table, rule: str) -> None:
    table.say("A Chain exists: the state is Closed", "CR 309.1")
    table.broadcast("chain_created")
    priority_to_newest(table, rule)


def priority_to_newest(table: Table, rule: str) -> None:
    s = table.state
    # a new item on the Chain restarts every count of passes (a play or an Add is acting:
    # rules.md 2); the actions that add one leave the reset to this
    s.passes = 0
    newest = s.chain[-1]
    # an uncontrolled battlefield's ability is put on the Chain by the turn player (S 184.6.b)
    s.priority = newest.controller or s.turn_player
    table.say(f"{s.priority} receives Priority", rule)


def join_chain_being_resolved(table: Table, rule: str) -> None:
    # the item that made them has left the Chain but has not finished resolving (its Cleanup
    # runs first): they go on this Chain, not a new one
    table.say("They join this Chain while its item finishes resolving", rule)


def resolve_newest(table: Table, rule: str, at_once: bool) -> None:
    """The newest item resolves completely; Cleanup waits until it has (rules.md 3)."""
    s = table.state
    item = s.chain.pop()
    s.passes = 0
    s.priority = None
    if at_once:
        table.say(f"{item.label} resolves at once", rule)
    else:
        table.say(f"Every player has passed in turn; {item.label} resolves", rule)
    effects.resolve_item(table, item)  # nothing in it runs Cleanup: rules.md 3
    cleanup.run(table)  # rules 11.1 (a): triggers it creates join this Chain
    table.send("priority", "item_resolved", resolved=item)


def priority_after_resolution(table: Table, rule: str, back_to: str | None) -> None:
    """An item resolved and the Chain goes on: Priority ``back_to`` a player (after an Add or
    a unit), or to the newest item's controller."""
    s = table.state
    s.passes = 0
    if s.winner:
        return  # the item won the game: nobody receives Priority again (docs/decisions.md D13)
    if back_to is not None:
        s.priority = back_to
        table.say(f"{s.priority} receives Priority again", rule)
    else:
        priority_to_newest(table, rule)


def close(table: Table, rule: str) -> None:
    """The last item has resolved: Open again, and Focus moves or stays (rules 11.1 b, c)."""
    s = table.state
    s.passes = 0
    s.priority = None
    table.say("The Chain is empty: the state is Open", rule)
    table.broadcast("chain_emptied")
    s.chain_begun_by = None


def fire_unit(table: Table, unit: Unit, event: str, rank: int | None = None) -> None:
    """A unit's triggers for ``event``; its controller now controls them (rules 11.4).

    ``rank`` overrides the turn-order rank (a combat's start puts the Attacker's first)."""
    if rank is None:
        rank = table.state.turn_rank(unit.controller)
    for trigger in unit.triggers:
        if trigger.when == event:
            item = _trigger_item(unit.id, event, trigger, unit.controller, unit.at)
            queue_trigger(table, item, (rank, unit.order))


def fire_battlefield(table: Table, bf: str, event: str) -> None:
    """A battlefield's abilities for ``event``: its controller's, or the turn player's to
    handle with "you" meaning no one when it is uncontrolled (S 184.6). Among one player's
    simultaneous triggers they come before units' (docs/decisions.md D5)."""
    f = table.state.fields[bf]
    for trigger in f.abilities:
        if trigger.when == event:
            item = _trigger_item(bf, event, trigger, f.controller, bf)
            queue_trigger(table, item, (table.state.turn_rank(f.controller), -1, f.index))


def _trigger_item(
    source: str, event: str, trigger: Trigger, controller: str | None, where: str
) -> ChainItem:
    return ChainItem(
        kind="trigger",
        label=f"{source}:{event}",
        controller=controller,
        effect=trigger.effect,
        targets=trigger.targets,
        source=source,
        where=where,
    )


def queue_trigger(table: Table, item: ChainItem, order_key: tuple) -> None:
    """A triggered ability waits here until Cleanup puts it on the Chain, ordered among the
    others waiting by ``order_key``: (rank, board order) for a unit's trigger, (rank, -1,
    battlefield index) for a battlefield's ability, which so comes before the units' of the
    same rank (D5). The rank is the controller's place in turn order from the turn player
    (:meth:`GameState.turn_rank`), or the Attacker's and Defender's at a combat's start."""
    table.state.queued_triggers.append((order_key, item))
    table.say(f"{item.label} triggers", "CR 382")


def flush_triggers(table: Table) -> bool:
    s = table.state
    if not s.queued_triggers:
        return False
    items = [item for _, item in sorted(s.queued_triggers, key=lambda pair: pair[0])]
    s.queued_triggers = []
    add(table, items)
    return True
