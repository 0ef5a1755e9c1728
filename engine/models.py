"""The charts' guards and actions, implemented over the game state.

The charts name their guards and actions; each chart kind has one model class here whose
methods carry those names. Guards only read. Actions are short: most call the rules
procedures of the other engine modules; those that are a few assignments and a trace line
and belong to one chart only are written here (a battlefield's control and Contested
bookkeeping, Focus and Priority handed to the next player). A model is made for one event:
``args`` carries that event's data (``player``: whose unit arrives, or who controls a
battlefield in the setup; ``resolved``: the Chain item that resolved; ``battlefield``: the
one chosen to open).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import chain, combat, contest, scoring, turn
from .runtime import Configuration, Transition
from .state import Field, battlefield_key, battlefield_of, chart_of

if TYPE_CHECKING:
    from .core import Table


class Model:
    # one model is made for every event a chart may take (hundreds of thousands in a search):
    # slots make that cheap
    __slots__ = ("table", "state", "args", "transition")

    def __init__(self, table: Table, args: dict[str, Any]):
        self.table = table
        self.state = table.state
        self.args = args
        self.transition: Transition | None = None

    def guard(self, name: str) -> bool:
        return bool(getattr(self, name)())

    def everyone_else_has_passed(self) -> bool:
        """Every other player has passed in a row (Focus, CR 347; Priority, CR 339.1)."""
        return self.state.passes + 1 >= len(self.state.players)

    @property
    def rule(self) -> str:
        return self.transition.rule if self.transition else ""

    def say(self, text: str) -> None:
        self.table.say(text, self.rule)


class BattlefieldModel(Model):
    __slots__ = ("bf", "key")

    def __init__(self, table: Table, bf: str, args: dict[str, Any], key: str):
        # Model.__init__ written out: one is made for every event a transition may take (the
        # fast runtime makes none for an event no transition of the configuration takes)
        self.table = table
        self.state = table.state
        self.args = args
        self.transition = None
        self.bf = bf
        self.key = key

    @property
    def config(self) -> Configuration:
        return self.state.configs[self.key]

    @property
    def battlefield(self) -> Field:
        """The battlefield's data (``bf`` is its id)."""
        return self.state.fields[self.bf]

    # --- guards ---------------------------------------------------------------------
    # named in the charts' words; those that ask whether this chart is Contested, in a
    # Showdown or a Combat, or has one staged put the question to the state's own predicates
    # (GameState.is_contested and the ones after it), which the rules procedures ask too;
    # conversion_due reads the configuration itself, once for the three states it needs
    # (Open and a non-combat Showdown have no predicate: no rules procedure asks them)

    def controller_has_no_units_here(self) -> bool:
        controller = self.battlefield.controller
        return controller is not None and controller not in self.state.players_at(self.bf)

    def one_player_has_units_here(self) -> bool:
        return len(self.state.players_at(self.bf)) == 1

    def controller_alone_has_units_here(self) -> bool:
        return self.state.players_at(self.bf) == (self.battlefield.controller,)

    def nobody_has_units_here(self) -> bool:
        return not self.state.players_at(self.bf)

    def seed_rules(self) -> bool:
        return self.state.profile == "seed"

    def contested_here(self) -> bool:
        return self.state.is_contested(self.bf)  # the seed freezes control meanwhile (S 184.3.c)

    def open_with_no_contest_here(self) -> bool:
        # "open": this chart's own chain region, which the chain events reach by broadcast
        return "open" in self.config and not self.contest_in_progress_here()

    def arrival_contests(self) -> bool:
        return self.args["player"] != self.battlefield.controller

    def applier_has_no_units_here(self) -> bool:
        return self.battlefield.applier not in self.state.players_at(self.bf)

    def rival_units_remain(self) -> bool:
        controller = self.battlefield.controller
        return any(p != controller for p in self.state.players_at(self.bf))

    def contest_in_progress_here(self) -> bool:
        return self.state.in_showdown(self.bf)

    def combat_in_progress_here(self) -> bool:
        return self.state.in_combat(self.bf)

    def applier_has_units_here(self) -> bool:
        applier = self.battlefield.applier
        return self.contested_here() and applier in self.state.players_at(self.bf)

    def opponents_face_off_here(self) -> bool:
        return self.contested_here() and bool(self.state.players_facing_off(self.bf))

    def both_sides_remain(self) -> bool:
        present = self.state.players_at(self.bf)
        return self.state.attacker in present and self.state.defender in present

    def conversion_due(self) -> bool:
        # Cleanup step 10: only in Showdown Open, at the running non-combat Showdown
        config = self.config
        return "open" in config and "non_combat" in config and "combat_staged" in config

    def contest_staged_here(self) -> bool:
        return self.state.showdown_staged(self.bf) or self.state.combat_staged(self.bf)

    # --- actions: control and Contested ----------------------------------------------------

    def set_up_controller(self) -> None:
        self._give_control(self.args["player"])

    def establish_control_for_sole_player(self) -> None:
        (player,) = self.state.players_at(self.bf)
        self._give_control(player)
        scoring.conquer(self.table, self.bf, player)

    def _give_control(self, player: str) -> None:
        self.table.update_field(self.bf, controller=player)
        self.say(f"{self.bf}: {player} establishes control")
        scoring.block_if_teammates(self.table, self.bf)

    def keep_control(self) -> None:
        self.say(f"{self.bf}: {self.battlefield.controller} keeps control; keeping control is not "
                 "conquering")

    def note_nobody_claims(self) -> None:
        self.say(f"Nobody's units remain at {self.bf}; nobody claims it")

    def note_no_units_remain(self) -> None:
        self.say(f"No units remain at {self.bf}")

    def lose_control_of_battlefield(self) -> None:
        self._lose_control("")

    def lose_control_while_uncontested(self) -> None:
        self._lose_control(": no units there and not Contested [profile seed]")

    def lose_control_while_open(self) -> None:
        self._lose_control(": no units there, the state is Open, and no Showdown or Combat is "
                           "under way there [profile cr-1.4]")

    def _lose_control(self, why: str) -> None:
        self.say(f"{self.bf}: {self.battlefield.controller} loses control{why}")
        self.table.update_field(self.bf, controller=None)

    def apply_contested(self) -> None:
        self.table.update_field(self.bf, applier=self.args["player"])
        self.say(f"{self.bf}: Contested by {self.args['player']}")

    def reinforce(self) -> None:
        self.say(f"{self.bf}: {self.args['player']} controls it; nothing is applied")

    def join_contest(self) -> None:
        if self.args["player"] != self.battlefield.applier:
            self.say(f"{self.bf}: already Contested by {self.battlefield.applier}; nothing is "
                     "applied")

    def remove_contested(self) -> None:
        self.table.update_field(self.bf, applier=None)
        self.say(f"{self.bf}: no longer Contested")

    def reapply_contested(self) -> None:
        rival = self.state.first_rival(self.bf)  # of two in a free-for-all, see D18
        self.say(f"Cleanup: {self.battlefield.applier} has no units at {self.bf}; {rival} applies "
                 "Contested")
        self.table.update_field(self.bf, applier=rival)

    def remove_stale_contested(self) -> None:
        self.say(f"Cleanup: {self.battlefield.applier} has no units at {self.bf}; Contested "
                 "removed")
        self.table.update_field(self.bf, applier=None)

    # --- actions: staging --------------------------------------------------------------

    def note_showdown_staged(self) -> None:
        self.say(f"Cleanup: Showdown staged at {self.bf}")

    def drop_staged_showdown(self) -> None:
        self.say(f"Cleanup: staged Showdown at {self.bf} removed before it opened")

    def use_up_staged_showdown(self) -> None:
        self.say(f"The Showdown staged at {self.bf} is this Combat: the staging is used up")

    # the two that record the players a staged Combat is between (D16), and say it
    def record_staged_combatants(self) -> None:
        self._stage_combat()
        self.say(f"Cleanup: Combat staged at {self.bf}")

    def record_restaged_combatants(self) -> None:
        self._stage_combat()
        self.say(f"No Result with both sides still there: a Combat is staged at {self.bf} again")

    def _stage_combat(self) -> None:
        self.table.update_field(self.bf,
                                staged_combatants=self.state.players_facing_off(self.bf))

    def drop_staged_combat(self) -> None:
        self.table.update_field(self.bf, staged_combatants=())
        self.say(f"Cleanup: staged Combat at {self.bf} removed before it began")

    def use_up_staged_combat(self) -> None:
        """The staged Combat begins: its players are the Combat's own from now on."""
        self.table.update_field(self.bf, staged_combatants=())

    # --- actions: the contest ----------------------------------------------------------

    def begin_showdown(self) -> None:
        contest.begin_showdown(self.table, self.bf, self.rule)

    def begin_combat(self) -> None:
        contest.begin_combat(self.table, self.bf, self.rule, converted=False)

    def convert_showdown_to_combat(self) -> None:
        contest.begin_combat(self.table, self.bf, self.rule, converted=True)

    def end_non_combat_showdown(self) -> None:
        contest.end_non_combat_showdown(self.table, self.bf, self.rule)

    def begin_damage_step(self) -> None:
        combat.begin_damage_step(self.table, self.bf, self.rule)

    def skip_damage_step(self) -> None:
        self.say("No damage step: attackers and defenders do not both remain")

    def deal_combat_damage(self) -> None:
        combat.deal_damage(self.table, self.rule)

    def kill_heal_and_recall(self) -> None:
        combat.kill_heal_and_recall(self.table, self.bf, self.rule)

    def declare_result(self) -> None:
        combat.declare_result(self.table, self.bf, self.rule)

    def settle_control_after_combat(self) -> None:
        combat.settle_control(self.table, self.bf)

    def skip_control(self) -> None:
        self.say(f"{self.bf}: a contest is staged there again; control is not settled yet")

    def end_the_combat(self) -> None:
        combat.end_combat(self.table, self.bf, self.rule)


class FocusModel(Model):
    __slots__ = ()

    def chain_begun_by_card(self) -> bool:
        return self.state.chain_begun_by == "card"

    def seed_keeps_focus(self) -> bool:
        return self.state.profile == "seed"

    def give_focus_to_applier(self) -> None:
        applier = self.state.fields[self.state.contest_battlefield].applier
        assert applier is not None, "a Showdown opens where someone applied Contested"
        contest.give_focus(self.table, applier, self.rule, why="they applied Contested")

    def give_focus_to_attacker(self) -> None:
        contest.give_focus(self.table, self.state.combatants[0], self.rule, why="the Attacker")

    def give_focus_to_attacker_after_conversion(self) -> None:
        contest.give_focus(self.table, self.state.combatants[0], self.rule,
                           why="the Attacker [profile cr-1.4]")

    def remember_focus_holder(self) -> None:
        self.state.focus_at_chain_start = self.state.focus

    def pass_focus_on(self) -> None:
        nxt = self.state.next_player(self.state.focus)
        contest.give_focus(self.table, nxt, self.rule, why="the chain was begun by a card")

    def keep_focus(self) -> None:
        self.say(f"{self.state.focus} keeps Focus: the chain was not begun by a card")
        self.state.priority = self.state.focus

    def return_focus_to_chain_starter(self) -> None:
        # rules 11.1: the chain's end passed Focus on (c) before this conversion (d) undoes it
        holder = self.state.focus_at_chain_start or self.state.focus
        # said as an undoing where (c) gave Focus to another player: a judge reading "P1
        # gains Focus" and then "P3 gets Focus back" should see which one stands
        kept = (f"{holder} keeps Focus:" if holder == self.state.focus
                else f"The conversion undoes that pass: {holder} gets Focus back, as")
        self.state.focus = self.state.priority = holder
        self.say(f"{kept} the chain that led to the Combat does not pass it [profile seed]")

    def hand_focus_to_next(self) -> None:
        nxt = self.state.next_player(self.state.focus)
        self.say(f"{self.state.focus} passes Focus to {nxt}")
        self.state.passes += 1
        self.state.focus = self.state.priority = nxt

    def end_showdown(self) -> None:
        self.say(f"{self.state.focus} passes Focus; every player has passed in a row")
        contest.all_passed(self.table)


class PriorityModel(Model):
    __slots__ = ()

    def chain_is_empty(self) -> bool:
        return not self.state.chain

    def create_chain(self) -> None:
        chain.create(self.table, self.rule)

    def give_priority_to_newest(self) -> None:
        chain.priority_to_newest(self.table, self.rule)

    def hand_priority_to_next(self) -> None:
        nxt = self.state.next_player(self.state.priority)
        self.say(f"{self.state.priority} passes Priority to {nxt}")
        self.state.passes += 1
        self.state.priority = nxt

    def an_add_resolved(self) -> bool:
        return self.args["resolved"].kind == "add"

    def a_unit_resolved(self) -> bool:
        card = self.args["resolved"].card
        return card is not None and card.type == "unit"

    def resolve_newest(self) -> None:
        chain.resolve_newest(self.table, self.rule, at_once=False)

    def resolve_newest_at_once(self) -> None:
        chain.resolve_newest(self.table, self.rule, at_once=True)

    def join_chain_being_resolved(self) -> None:
        chain.join_chain_being_resolved(self.table, self.rule)

    def close_chain(self) -> None:
        chain.close(self.table, self.rule)

    def give_priority_back(self) -> None:
        chain.priority_after_resolution(self.table, self.rule, self.args["resolved"].controller)

    def give_priority_after_resolution(self) -> None:
        chain.priority_after_resolution(self.table, self.rule, None)


class SchedulerModel(Model):
    __slots__ = ()

    def neutral_open(self) -> bool:
        return self.state.neutral_open

    def several_showdowns_qualify(self) -> bool:
        return len(contest.showdowns_ready(self.state)) > 1

    def one_showdown_qualifies(self) -> bool:
        return len(contest.showdowns_ready(self.state)) == 1

    def several_combats_qualify(self) -> bool:
        return len(contest.combats_ready(self.state)) > 1

    def one_combat_qualifies(self) -> bool:
        return len(contest.combats_ready(self.state)) == 1

    def offer_showdown_choice(self) -> None:
        contest.offer_choice(self.table, self.rule, contest.showdowns_ready(self.state),
                             "Showdowns")

    def offer_combat_choice(self) -> None:
        contest.offer_choice(self.table, self.rule, contest.combats_ready(self.state), "Combats")

    def open_showdown(self) -> None:
        (bf,) = contest.showdowns_ready(self.state)
        self.table.send(battlefield_key(bf), "open_showdown")

    def open_combat(self) -> None:
        (bf,) = contest.combats_ready(self.state)
        self.table.send(battlefield_key(bf), "open_combat")

    def open_chosen_showdown(self) -> None:
        contest.open_chosen(self.table, self.args["battlefield"], "open_showdown", self.rule)

    def open_chosen_combat(self) -> None:
        contest.open_chosen(self.table, self.args["battlefield"], "open_combat", self.rule)


class TurnModel(Model):
    __slots__ = ()

    def expire_turn_effects(self) -> None:
        turn.ending(self.table, self.rule)

    def start_next_turn(self) -> None:
        turn.next_turn(self.table, self.rule)

    def put_beginning_triggers_on_chain(self) -> None:
        turn.beginning_triggers(self.table, self.rule)

    def score_holds(self) -> None:
        scoring.score_holds(self.table)

    def draw_for_turn(self) -> None:
        turn.draw_step(self.table, self.rule)

    def begin_main_phase(self) -> None:
        turn.main_phase(self.table, self.rule)


def model_factory(key: str) -> Callable[[Table, dict[str, Any]], Model]:
    """How to make the model of the chart at ``key`` for one event (the key is fixed)."""
    if chart_of(key) == "battlefield":
        bf = battlefield_of(key)
        return lambda table, args: BattlefieldModel(table, bf, args, key)
    return _MODELS[key]


_MODELS: dict[str, type[Model]] = {
    "focus": FocusModel,
    "priority": PriorityModel,
    "scheduler": SchedulerModel,
    "turn": TurnModel,
}
