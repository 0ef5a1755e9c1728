"""The Focus cycle of a Showdown (CR 313, rules.md section 5).

Focus is the opportunity to act in a Showdown while the Chain is empty. Who holds it is data;
this chart says whether anyone does and how it moves.
"""

from statemachine import State

from .base import RiftChart, cite


class Focus(RiftChart):
    nobody = State(initial=True)
    holding = State()
    kept_during_chain = State()

    showdown_opens = cite("CR 345", nobody.to(holding, on="give_focus_to_applier"))
    combat_opens = cite("CR 459.2.c", nobody.to(holding, on="give_focus_to_attacker"))
    chain_created = cite("CR 313", holding.to(kept_during_chain, on="remember_focus_holder"))
    chain_emptied = cite(
        "CR 346", kept_during_chain.to(holding, cond="chain_begun_by_card", on="pass_focus_on")
    ) | cite("CR 346.1", kept_during_chain.to(holding, on="keep_focus"))
    converted = cite(
        "seed 000",
        holding.to.itself(cond="seed_keeps_focus", on="return_focus_to_chain_starter"),
    ) | cite("CR 459.2.c", holding.to.itself(on="give_focus_to_attacker_after_conversion"))
    pass_focus = cite(
        "CR 348", holding.to(nobody, cond="everyone_else_has_passed", on="end_showdown")
    ) | cite("CR 347", holding.to.itself(on="hand_focus_to_next"))
