"""The Chain and Priority (CR 312, CR 327-340, rules.md section 3).

Open means no Chain exists; while one does, players pass Priority in turn order and the newest
item resolves when all have passed in sequence.
"""

from statemachine import State

from .base import RiftChart, cite


class Priority(RiftChart):
    open = State(initial=True)
    priority_window = State()
    resolving = State()

    # the steps of resolving Chain items (CR 332-340): Finalize, Execute, Pass, Resolve
    items_added = (
        cite("CR 333", open.to(priority_window, on="create_chain"))
        | cite("CR 337.1.c.3", priority_window.to.itself(on="give_priority_to_newest"))
        | cite("CR 336.1", resolving.to.itself(on="join_chain_being_resolved"))
    )
    pass_priority = cite(
        "CR 339.1",
        priority_window.to(resolving, cond="everyone_else_has_passed", on="resolve_newest"),
    ) | cite("CR 338.1.c.1", priority_window.to.itself(on="hand_priority_to_next"))
    resolve_at_once = cite(
        "CR 337.1.c", priority_window.to(resolving, on="resolve_newest_at_once")
    )
    # after an Add or a unit, Priority goes back to its player (rules.md 11.3, 11.7); after
    # anything else, to the controller of the newest item left
    item_resolved = (
        cite("CR 340.2", resolving.to(open, cond="chain_is_empty", on="close_chain"))
        | cite("rules 11.3",
               resolving.to(priority_window, cond="an_add_resolved", on="give_priority_back"))
        | cite("rules 11.7",
               resolving.to(priority_window, cond="a_unit_resolved", on="give_priority_back"))
        | cite("CR 340.4",
               resolving.to(priority_window, on="give_priority_after_resolution"))
    )
