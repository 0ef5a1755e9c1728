"""A battlefield: control, Contested, its staged and active contest, and the Chain as it sees it.

One instance per battlefield. The regions are orthogonal, so a battlefield can be contested,
have a Combat staged and be in a non-combat Showdown all at once (rules.md sections 4 to 6).
Guards and actions are named here and implemented by the engine's battlefield model.
"""

from statemachine import State

from .base import RiftChart, cite


def _sole_player_establishes_control(uncontrolled: State, controlled: State, rule: str):
    """At a contest's end the only player with units there establishes control, unless they
    already have it: the same for a Showdown (S 184.4) and a Combat (CR 461.5), each citing
    its own rule."""
    return cite(
        rule,
        uncontrolled.to(
            controlled, cond="one_player_has_units_here", on="establish_control_for_sole_player"
        ),
    ) | cite(
        rule,
        controlled.to.itself(
            cond=["one_player_has_units_here", "controller_has_no_units_here"],
            on="establish_control_for_sole_player",
        ),
    )


class Battlefield(RiftChart):
    class battlefield(State.Parallel):
        class control(State.Compound):
            """Who controls the battlefield is data; whether anyone does is this region."""

            uncontrolled = State(initial=True)
            controlled = State()

            # a setup's controller: sent once, to a chart that starts uncontrolled
            set_up_control = cite(
                "S 184.4", uncontrolled.to(controlled, on="set_up_controller")
            )
            # a controller with no units there loses control, except while control is frozen:
            # the seed freezes it while the battlefield is Contested; cr-1.4's Cleanup loses it
            # only in an Open state with no Showdown or Combat under way there
            check_control = cite(
                "S 184.4.c",
                controlled.to(
                    uncontrolled,
                    cond=["seed_rules", "controller_has_no_units_here"],
                    unless="contested_here",
                    on="lose_control_while_uncontested",
                ),
            ) | cite(
                "CR 323.6",
                controlled.to(
                    uncontrolled,
                    cond=["controller_has_no_units_here", "open_with_no_contest_here"],
                    unless="seed_rules",
                    on="lose_control_while_open",
                ),
            )
            # the end of a non-combat Showdown (rules.md 5.6): the only player with units there
            # establishes control if they do not control it (a controller alone there keeps
            # it, which is no Conquer); with nobody there nobody claims it
            claim_after_showdown = (
                _sole_player_establishes_control(uncontrolled, controlled, "S 184.4")
                | cite(
                    "S 184.4",
                    controlled.to.itself(cond="controller_alone_has_units_here", on="keep_control")
                    | uncontrolled.to.itself(cond="nobody_has_units_here", on="note_nobody_claims")
                    | controlled.to.itself(cond="nobody_has_units_here", on="note_nobody_claims"),
                )
            )
            # combat resolution task 3: the player with units there establishes control (keeping
            # it is not conquering); with no units there the battlefield becomes uncontrolled
            claim_after_combat = (
                _sole_player_establishes_control(uncontrolled, controlled, "CR 461.5")
                | cite(
                    "CR 461.5",
                    controlled.to.itself(cond="controller_alone_has_units_here", on="keep_control"),
                )
                | cite(
                    "CR 461.5.b",
                    controlled.to(
                        uncontrolled,
                        cond="nobody_has_units_here",
                        on=["note_no_units_remain", "lose_control_of_battlefield"],
                    ),
                )
                | cite(
                    "CR 461.5.b",
                    uncontrolled.to.itself(cond="nobody_has_units_here", on="note_no_units_remain"),
                )
            )

        class contest_status(State.Compound):
            """Contested, and who applied it (S 184.3)."""

            uncontested = State(initial=True)
            contested = State()

            unit_arrives = (
                cite(
                    "S 184.3.a",
                    uncontested.to(contested, cond="arrival_contests", on="apply_contested"),
                )
                | cite("S 184.3.a.1", uncontested.to.itself(on="reinforce"))
                | cite("S 184.3.a.1", contested.to.itself(on="join_contest"))
            )
            # a contest's end clears Contested, whether or not anyone establishes control there
            clear_contested_after_showdown = cite(
                "rules 5.6", contested.to(uncontested, on="remove_contested")
            )
            clear_contested_after_combat = cite(
                "CR 461.5.a", contested.to(uncontested, on="remove_contested")
            )
            check_stale_contest = cite(
                "rules 11.11",
                contested.to.itself(
                    cond=["applier_has_no_units_here", "rival_units_remain"],
                    unless="contest_in_progress_here",
                    on="reapply_contested",
                ),
            ) | cite(
                "rules 11.11",
                contested.to(
                    uncontested,
                    cond="applier_has_no_units_here",
                    unless="contest_in_progress_here",
                    on="remove_stale_contested",
                ),
            )

        class contest(State.Compound):
            """Neutral or Showdown, as this battlefield sees it (CR 307-310)."""

            neutral = State(initial=True)

            class showdown(State.Compound):
                non_combat = State(initial=True)

                class combat(State.Compound):
                    combat_showdown = State(initial=True)
                    damage_step = State()

                    class resolution(State.Compound):
                        # each state is the task that comes next, which the transition out of
                        # it does: a task's triggers resolve in the state after it, before
                        # the next task (so end_combat is lit while task 3's triggers resolve)
                        kill_and_recall = State(initial=True)
                        decide_result = State()
                        settle_control = State()
                        end_combat = State()

                        resolve_task = (
                            cite(
                                "CR 461.1",
                                kill_and_recall.to(decide_result, on="kill_heal_and_recall"),
                            )
                            | cite(
                                "CR 461.3",
                                decide_result.to(settle_control, on="declare_result"),
                            )
                            | cite(
                                "CR 461.5",
                                settle_control.to(
                                    end_combat,
                                    unless="contest_staged_here",
                                    on="settle_control_after_combat",
                                ),
                            )
                            | cite("CR 461.5", settle_control.to(end_combat, on="skip_control"))
                        )

                    deal_damage = cite(
                        "CR 460.2.d", damage_step.to(resolution, on="deal_combat_damage")
                    )
                    showdown_ends = cite(
                        "CR 460.1",
                        combat_showdown.to(
                            damage_step, cond="both_sides_remain", on="begin_damage_step"
                        ),
                    ) | cite("CR 460.1", combat_showdown.to(resolution, on="skip_damage_step"))

                convert_to_combat = cite(
                    "CR 323.14",
                    non_combat.to(combat, cond="conversion_due", on="convert_showdown_to_combat"),
                )

            open_showdown = cite("CR 344", neutral.to(showdown, on="begin_showdown"))
            open_combat = cite("CR 455", neutral.to(showdown.combat, on="begin_combat"))
            showdown_ends = cite(
                "CR 348", showdown.non_combat.to(neutral, on="end_non_combat_showdown")
            )
            resolve_task = cite(
                "CR 461.7", showdown.combat.resolution.end_combat.to(neutral, on="end_the_combat")
            )

        class showdown_staging(State.Compound):
            """Cleanup step 5 stages a Showdown; opening the contest uses the staging up."""

            showdown_unstaged = State(initial=True)
            showdown_staged = State()

            stage_showdowns = cite(
                "CR 323.8",
                showdown_unstaged.to(
                    showdown_staged,
                    cond="applier_has_units_here",
                    unless="contest_in_progress_here",
                    on="note_showdown_staged",
                ),
            ) | cite(
                "CR 323.8",
                showdown_staged.to(
                    showdown_unstaged, unless="applier_has_units_here", on="drop_staged_showdown"
                ),
            )
            open_showdown = cite("CR 323.11", showdown_staged.to(showdown_unstaged))
            # a Combat beginning where a Showdown is staged too is that contest (said, so that the
            # staged Showdown does not just vanish from the trace)
            open_combat = cite(
                "CR 323.13", showdown_staged.to(showdown_unstaged, on="use_up_staged_showdown")
            )

        class combat_staging(State.Compound):
            """Cleanup step 6 stages a Combat where two opposing players face off."""

            combat_unstaged = State(initial=True)
            combat_staged = State()

            stage_combats = cite(
                "CR 323.9",
                combat_unstaged.to(
                    combat_staged,
                    cond="opponents_face_off_here",
                    unless="combat_in_progress_here",
                    on="record_staged_combatants",
                ),
            ) | cite(
                "CR 323.10",
                combat_staged.to(
                    combat_unstaged, unless="opponents_face_off_here", on="drop_staged_combat"
                ),
            )
            restage_combat = cite(
                "CR 461.3.d.1",
                combat_unstaged.to(
                    combat_staged, cond="both_sides_remain", on="record_restaged_combatants"
                ),
            )
            open_combat = cite(
                "CR 323.13", combat_staged.to(combat_unstaged, on="use_up_staged_combat")
            )
            convert_to_combat = cite(
                "CR 323.14",
                combat_staged.to(combat_unstaged, cond="conversion_due", on="use_up_staged_combat"),
            )

        class chain(State.Compound):
            """The Chain as every battlefield sees it: broadcast to all of them (CR 307-310)."""

            open = State(initial=True)
            closed = State()

            chain_created = cite("CR 309.1", open.to(closed))
            chain_emptied = cite("CR 309.2", closed.to(open))
