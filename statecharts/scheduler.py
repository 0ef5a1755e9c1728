"""The global scheduler: which staged contest opens, one at a time (rules.md section 4).

Cleanup steps 8 and 9: in Neutral Open a staged Showdown without a staged Combat opens first,
otherwise a staged Combat; the turn player chooses when several qualify. Only one contest is
active in the whole game.
"""

from statemachine import State

from .base import RiftChart, cite


class Scheduler(RiftChart):
    idle = State(initial=True)
    # the turn player chooses among staged Showdowns, or among staged Combats: which of the two
    # is this chart's decision, so each has its state, and the choice opens its kind of contest
    choosing_showdown = State()
    choosing_combat = State()
    contest_active = State()

    open_contest = (
        cite(
            "CR 323.11",
            idle.to(
                choosing_showdown,
                cond=["neutral_open", "several_showdowns_qualify"],
                on="offer_showdown_choice",
            ),
        )
        | cite(
            "CR 323.11",
            idle.to(
                contest_active, cond=["neutral_open", "one_showdown_qualifies"], on="open_showdown"
            ),
        )
        | cite(
            "CR 323.13",
            idle.to(
                choosing_combat,
                cond=["neutral_open", "several_combats_qualify"],
                on="offer_combat_choice",
            ),
        )
        | cite(
            "CR 323.13",
            idle.to(
                contest_active, cond=["neutral_open", "one_combat_qualifies"], on="open_combat"
            ),
        )
    )
    choose = cite(
        "CR 323.11", choosing_showdown.to(contest_active, on="open_chosen_showdown")
    ) | cite("CR 323.13", choosing_combat.to(contest_active, on="open_chosen_combat"))
    showdown_over = cite("CR 348", contest_active.to(idle))
    combat_over = cite("CR 461.7", contest_active.to(idle))
