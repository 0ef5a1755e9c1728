"""The turn's phases (CR 314-317, rules.md section 8): the Start of Turn (Awaken, Beginning with
its Beginning and Scoring steps, Draw; the Channel phase has nothing to do here), the Main
phase and the Ending phase."""

from statemachine import State

from .base import RiftChart, cite


class Turn(RiftChart):
    # the phases in the order a turn goes through them; a game (a scenario's setup) starts in
    # the turn player's Main phase
    awaken = State()

    class beginning(State.Compound):
        beginning_triggers = State(initial=True)
        hold_scoring = State()

    draw = State()
    main = State(initial=True)
    ending = State()

    end_turn = cite("CR 317", main.to(ending, on="expire_turn_effects"))
    advance = (
        cite("CR 315.1", ending.to(awaken, on="start_next_turn"))
        | cite("CR 315.2", awaken.to(beginning, on="put_beginning_triggers_on_chain"))
        | cite("CR 315.2.b",
               beginning.beginning_triggers.to(beginning.hold_scoring, on="score_holds"))
        | cite("CR 315.4", beginning.hold_scoring.to(draw, on="draw_for_turn"))
        | cite("CR 316", draw.to(main, on="begin_main_phase"))
    )
