"""Players' actions: their legality, what taking one does, and every legal one in a state
(the values themselves, ``Move``, ``Play``..., are in ``action_types`` and re-exported here).

Every check happens before anything changes, so an illegal action raises
:class:`~engine.errors.IllegalAction` (naming its rule) with the game exactly as before.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from itertools import combinations, permutations
from typing import TYPE_CHECKING, Any

from . import chain, combat, destinations, effects, flow

# re-exported, written "X as X" so that type checkers see them as this module's too
from .action_types import (
    ACTION_TYPES as ACTION_TYPES,
    Action as Action,
    Add as Add,
    Assign as Assign,
    Choose as Choose,
    EndTurn as EndTurn,
    Move as Move,
    Pass as Pass,
    Play as Play,
    as_action as as_action,
    from_step as from_step,
    to_step as to_step,
)
from .effect_needs import Destination, effect_parts, names_its_units, needs, order_matters
from .errors import IllegalAction
from .state import Card, ChainItem, GameState, Unit, by_board_order
from .wording import place_name

if TYPE_CHECKING:
    from .core import Table


def check(s: GameState, action: Action) -> None:
    """Raise IllegalAction if ``action`` is not legal now; change nothing."""
    if s.winner:
        raise IllegalAction(f"the game is over: {s.winner} has won", "CR 467")
    if action.player not in s.players:
        raise IllegalAction(f"{action.player!r} is not a player", "CR 116.1")
    if isinstance(action, (Choose, Assign)):
        _check_choice(s, action)
        return
    if s.pending:
        # pass and add are refused by the timing rule that says so (rules 11.3, D4); the rest
        # wait for the choice, which is its procedure's (Cleanup, the damage step)
        raise IllegalAction(
            f"{s.pending['player']} must first answer the pending {s.pending['kind']} choice",
            "rules 11.3" if isinstance(action, (Pass, Add)) else choice_rule(s.pending["kind"]),
        )
    _CHECKS[type(action)](s, action)


def choice_rule(kind: str) -> str:
    """The rule of a pending choice: which staged contest opens is Cleanup's (CR 323), how
    damage is assigned the damage step's (CR 460.2.c)."""
    return "CR 323" if kind == "battlefield" else combat.ASSIGNING


def _neutral_open_main(s: GameState) -> bool:
    return s.neutral_open and s.phase == "main"


def _may_move(s: GameState, player: str) -> bool:
    return _neutral_open_main(s) and player == s.turn_player


def _check_move(s: GameState, m: Move) -> None:
    if not _may_move(s, m.player):
        raise IllegalAction(
            "a Standard Move is made only by the turn player in their Main phase, in Neutral Open",
            "CR 144",
        )
    if not m.units or len(set(m.units)) != len(m.units):
        raise IllegalAction("a Standard Move names one or more different units", "CR 144")
    if m.to != "base" and m.to not in s.fields:
        raise IllegalAction(f"{m.to!r} is not a battlefield or base", "CR 144")
    for uid in m.units:
        _check_unit_may_move(s, m, uid)
    if m.to != "base":
        problem = destinations.destination_problem(s, m.player, m.to)
        if problem:
            raise IllegalAction(f"{m.to} is not a valid destination: {problem.reason}",
                                problem.rule)


def _check_unit_may_move(s: GameState, m: Move, uid: str) -> None:
    """One unit of a Standard Move: on the board, the mover's, ready, and going somewhere new
    (from one battlefield to another only with Ganking)."""
    unit = s.units.get(uid)
    if unit is None or not unit.on_board:
        raise IllegalAction(f"{uid} is not a unit on the board", "CR 144")
    if unit.controller != m.player:
        raise IllegalAction(f"{m.player} does not control {uid}", "CR 144")
    if unit.exhausted:
        raise IllegalAction(
            f"{uid} is exhausted: a Standard Move's cost is exhausting it", "CR 144"
        )
    if unit.at == m.to:
        raise IllegalAction(f"{uid} is already there", "CR 144")
    if unit.at != "base" and m.to != "base" and "ganking" not in unit.keywords:
        raise IllegalAction(
            f"{uid} cannot move battlefield to battlefield without Ganking", "CR 144"
        )


def _card_in_hand(s: GameState, player: str, card_id: str) -> Card:
    for card in s.hands[player]:
        if card is not None and card.id == card_id:
            return card
    raise IllegalAction(f"{card_id} is not in {player}'s hand", "CR 419.1.a")


def _check_timing(s: GameState, player: str, timing: str) -> None:
    problem = _timing_problem(s, player, timing)
    if problem:
        raise problem


def _timing_problem(s: GameState, player: str, timing: str) -> IllegalAction | None:
    """Why timing keywords (CR 308-310, rules.md section 2) forbid the play now, if they do."""
    if _neutral_open_main(s) and player == s.turn_player and s.priority == player:
        return None
    if timing == "none":
        return IllegalAction(
            "a card without a timing keyword is played only by the turn player in Neutral Open",
            "CR 310.1.a",
        )
    if s.chain_open:
        if s.contest_at is not None and s.focus == player:
            return None
        # nobody has Focus in Neutral Open, where only the turn player may act (rules.md 2)
        return IllegalAction(f"{player} has neither Focus nor Priority",
                             "CR 313" if s.contest_at is not None else "rules 2")
    if s.priority != player:
        return IllegalAction(f"{player} does not have Priority", "CR 312")
    if timing != "reaction":
        return IllegalAction("only a Reaction can be played while a Chain is waiting", "CR 309.1.a")
    return None


NO, MAY, MUST = Destination.NO, Destination.MAY, Destination.MUST


def _check_play(s: GameState, p: Play) -> None:
    card = _card_in_hand(s, p.player, p.card)
    _check_timing(s, p.player, card.timing)
    if card.type == "unit":
        _check_unit_play(s, p)
        return
    wants_targets, wants_to = needs(card.effect)
    _check_play_targets(s, p, wants_targets)
    _check_play_destination(s, p, card, wants_to)


def _check_unit_play(s: GameState, p: Play) -> None:
    """A unit card takes no targets and goes to its player's base (the default) or to a
    battlefield they control that units may be played to (CR 355)."""
    if p.targets:
        raise IllegalAction("a unit card takes no targets", "CR 355.5")
    to = "base" if p.to is None else p.to  # "" is no place: refused below
    if to == "base":
        return
    if to not in s.fields or s.fields[to].controller != p.player:
        raise IllegalAction(
            "a unit is played to its base or a battlefield its player controls", "CR 355.2"
        )
    problem = destinations.destination_problem(s, p.player, to)
    if problem:
        raise IllegalAction(f"{to} is not a valid place to play units: {problem.reason}",
                            problem.rule)


def _check_play_targets(s: GameState, p: Play, wants_targets: bool) -> None:
    """A spell names targets exactly when its effect takes them from the play, and each is a
    unit on the board."""
    if wants_targets and not p.targets:
        raise IllegalAction(f"{p.card} needs targets", "CR 355.8")
    if not wants_targets and p.targets:
        raise IllegalAction(f"{p.card} takes no targets", "CR 355.5")
    if len(set(p.targets)) != len(p.targets):
        raise IllegalAction("a unit is targeted once at most", "CR 355.5")
    for uid in p.targets:
        unit = s.units.get(uid)
        if unit is None or not unit.on_board:
            raise IllegalAction(f"target {uid} is not a unit on the board", "CR 355.9.a")


def _check_play_destination(s: GameState, p: Play, card: Card, wants_to: Destination) -> None:
    """A spell names a destination (``to``) as its effect needs one (:func:`needs`)."""
    if wants_to == MUST and p.to is None:
        raise IllegalAction(f"{p.card} needs a destination (to)", "CR 355.4")
    if p.to is not None and wants_to == NO:
        raise IllegalAction(f"{p.card} takes no destination", "CR 355.4")
    if p.to is not None and p.to != "base":
        _check_play_battlefield(s, p, card, p.to)


def _check_play_battlefield(s: GameState, p: Play, card: Card, to: str) -> None:
    """A battlefield chosen as a spell's destination: every player whose units it takes there
    (:func:`_sent_to_chosen`) may go there, and it still seats only opponents."""
    if to not in s.fields:
        raise IllegalAction(f"{to!r} is not a battlefield or base", "CR 355.4.a")
    movers = _sent_to_chosen(s, p, card.effect)
    for player in sorted(movers):
        problem = destinations.destination_problem(s, player, to)
        if problem:
            raise IllegalAction(f"{to} is not a valid destination: {problem.reason}", problem.rule)
    # one chosen destination for several players' units: together they must still leave at
    # most two opposing players there (rules.md 8)
    seated = set(s.players_at(to)) | movers
    if len(seated) > 2:
        raise IllegalAction(f"{to} would hold units of {', '.join(sorted(seated))}", "CR 444.2")
    if any(s.teammates(a, b) for a in seated for b in seated):
        raise IllegalAction(f"{to} would hold units of teammates {' and '.join(sorted(seated))}",
                            "seed 001")


def _sent_to_chosen(s: GameState, p: Play, effect: Mapping[str, Any] | None) -> set[str]:
    """The players whose units a play's chosen destination takes there: the controllers of the
    units its moves take (the units the effect names, else the targets, which were checked
    first: each is on the board), and the caster for a ``play_unit`` (rules.md 8)."""
    movers: set[str] = set()
    for kind, arg in effect_parts(effect):
        if isinstance(arg, Mapping) and "to" in arg:
            continue  # a destination of its own: not the chosen one
        if kind == "move":
            named = names_its_units(arg)
            units = [s.units.get(uid) for uid in (arg["units"] if named else p.targets)]
            movers |= {u.controller for u in units if u is not None and u.on_board}
        elif kind == "play_unit":
            movers.add(p.player)
    return movers or {p.player}


def _check_pass(s: GameState, p: Pass) -> None:
    problem = _pass_problem(s, p.player)
    if problem:
        raise problem


def _pass_problem(s: GameState, player: str) -> IllegalAction | None:
    if not s.chain_open:
        if s.priority != player:
            return IllegalAction(f"{player} does not have Priority", "CR 312")
        return None
    if s.contest_at is not None and s.focus == player:
        return None
    if s.contest_at is None:
        return IllegalAction(
            "nothing to pass in Neutral Open: the turn player ends the turn instead", "rules 11.3"
        )
    return IllegalAction(f"{player} does not have Focus", "CR 313")


def _check_add(s: GameState, a: Add) -> None:
    if not _may_add(s, a.player):
        raise IllegalAction(f"{a.player} does not have Priority", "CR 312")


def _may_add(s: GameState, player: str) -> bool:
    return s.priority == player


def _check_end_turn(s: GameState, e: EndTurn) -> None:
    if e.player != s.turn_player:
        raise IllegalAction(f"only the turn player ({s.turn_player}) ends the turn", "CR 316.6")
    if not _neutral_open_main(s):
        raise IllegalAction("the turn ends only from the Main phase in Neutral Open", "CR 316.6")


def _check_choice(s: GameState, action: Choose | Assign) -> None:
    kind = "battlefield" if isinstance(action, Choose) else "damage"
    rule = choice_rule(kind)
    pending = s.pending
    if not pending or pending["kind"] != kind:
        raise IllegalAction(f"no {kind} choice is pending", rule)
    if pending["player"] != action.player:
        raise IllegalAction(f"the pending choice is {pending['player']}'s", rule)
    if isinstance(action, Choose):
        if action.battlefield not in pending["options"]:
            raise IllegalAction(f"{action.battlefield} is not among the options: "
                                f"{', '.join(pending['options'])}", rule)
        return
    plan = {uid: n for uid, n in action.damage if n}
    if any(not isinstance(n, int) or isinstance(n, bool) or n < 0 for _, n in action.damage):
        raise IllegalAction("damage amounts are whole numbers, 0 or more", rule)
    if any(n > pending["total"] for _, n in action.damage):  # said before any sum is written
        raise IllegalAction(f"an amount is more than the {pending['total']} damage to assign",
                            rule)
    if len(dict(action.damage)) != len(action.damage):
        raise IllegalAction("a unit is named twice", rule)
    for uid, _ in action.damage:
        if uid not in pending["options"]:
            raise IllegalAction(f"{uid} is not among the options: "
                                f"{', '.join(pending['options'])}", rule)
    assigned = sum(plan.values())
    if assigned != pending["total"]:
        raise IllegalAction(f"{assigned} of {pending['total']} damage assigned: an assignment "
                            "gives out all of it", rule)
    if not combat.is_legal_assignment(pending["total"], _damage_targets(s), plan):
        raise IllegalAction(
            f"{_assignment_words(plan)} is not a legal assignment of {pending['total']} damage: "
            "lethal damage in full before the next unit, Tanks first, Backline last",
            rule,
        )


def _assignment_words(plan: dict[str, int]) -> str:
    """``3 to E1, 1 to E2``: a refused assignment as the player wrote it, in their order and
    with their zeros (the trace's wording of a legal one is ``combat._plan_text``)."""
    return ", ".join(f"{n} to {uid}" for uid, n in plan.items())


def assignment_options(s: GameState) -> list[dict[str, int]]:
    assert s.pending is not None, "asked only while a damage choice is pending"
    return combat.legal_assignments(s.pending["total"], _damage_targets(s))


def _damage_targets(s: GameState) -> list[Unit]:
    """The units a pending damage choice offers, in the order it lists them."""
    assert s.pending is not None
    return [s.units[uid] for uid in s.pending["options"]]


_CHECKS: dict[type, Callable[[GameState, Any], None]] = {
    Move: _check_move,
    Play: _check_play,
    Pass: _check_pass,
    Add: _check_add,
    EndTurn: _check_end_turn,
}


# --- taking an action ----------------------------------------------------------------------


def perform(table: Table, action: Action) -> None:
    """Take a legal action, then let the game run until a player must act."""
    if isinstance(action, Move):
        _standard_move(table, action)
    elif isinstance(action, Play):
        _play(table, action)
    elif isinstance(action, Pass):
        # a pass is of Focus while a Showdown's Focus is held, else of Priority: the charts
        # know which (Focus is held only in Showdown Open, Priority's window only while Closed)
        if not table.try_send("focus", "pass_focus"):
            table.send("priority", "pass_priority")
    elif isinstance(action, Add):
        table.say(f"{action.player} activates an Add ability", "CR 429")
        chain.add(table, [ChainItem("add", f"add:{action.player}", action.player)])
        table.send("priority", "resolve_at_once")
    elif isinstance(action, Choose):
        table.send("scheduler", "choose", battlefield=action.battlefield)
    elif isinstance(action, Assign):
        combat.answer_damage_choice(table, action.player, dict(action.damage))
    elif isinstance(action, EndTurn):
        table.send("turn", "end_turn")
    flow.settle(table)


def _standard_move(table: Table, m: Move) -> None:
    s = table.state
    s.passes = 0
    # the same units in any order are the same move, said alike: in board order
    units = [u.id for u in sorted((s.units[uid] for uid in m.units), key=by_board_order)]
    for uid in units:
        table.update_unit(uid, exhausted=True)
    where = place_name(m.player, m.to)
    # the Standard Move's cost, then its effect (each unit's move, said as it arrives)
    table.say(f"{m.player} exhausts {', '.join(units)}: a Standard Move to {where}", "CR 144")
    for uid in units:
        effects.move(table, uid, m.to, "CR 144")


def _play(table: Table, p: Play) -> None:
    s = table.state
    card = _card_in_hand(s, p.player, p.card)
    s.hands[p.player].remove(card)
    table.say(f"{p.player} plays {table.name(p.card)}", "CR 419")
    item = ChainItem(
        kind="card",
        label=card.id,
        controller=p.player,
        effect=card.effect,
        targets=p.targets,
        to=p.to,
        card=card,
    )
    chain.add(table, [item])
    if card.type == "unit":
        table.send("priority", "resolve_at_once")  # units resolve on being put on the Chain


# --- every legal action ----------------------------------------------------------------------


def candidates(s: GameState, max_targets: int = 1) -> list[Action]:
    """Every action worth trying now; :func:`legal` keeps those that pass :func:`check`.
    Plays are listed with every choice of at most ``max_targets`` targets (D37).

    Actions that the first test of their check refuses for the same reason as a whole group
    (every Move when the turn player may not move, every play of a card whose timing forbids
    it now...) are not listed: that test is asked once here, by the same function the check
    uses, so the legal actions are the same and the explorer does not build and refuse them
    one by one (most candidates are refused).
    """
    if s.winner:
        return []
    if s.pending:
        return _choice_answers(s, s.pending)
    found: list[Action] = []
    for player in s.players:
        found += _player_actions(s, player, max_targets)
    if _neutral_open_main(s):
        found.append(EndTurn(s.turn_player))
    if _may_move(s, s.turn_player):
        found += _moves(s)
    return found


def _choice_answers(s: GameState, pending: dict[str, Any]) -> list[Action]:
    """Every answer to the pending choice: while one is pending, nothing else is legal."""
    if pending["kind"] == "battlefield":
        return [Choose(pending["player"], bf) for bf in pending["options"]]
    return [Assign(pending["player"], tuple(plan.items())) for plan in assignment_options(s)]


def _player_actions(s: GameState, player: str, max_targets: int) -> list[Action]:
    """One player's passes, Add abilities and plays worth trying now."""
    found: list[Action] = []
    if not _pass_problem(s, player):
        found.append(Pass(player))
    if _may_add(s, player):
        found.append(Add(player))
    for card in s.hands[player]:
        if card is not None and not _timing_problem(s, player, card.timing):
            found += _plays(s, player, card, max_targets)
    return found


def legal(s: GameState, max_targets: int = 1) -> list[Action]:
    """Every legal action now, each once in one spelling (a unit card played to its base has
    ``to=None``; a Standard Move names its units in board order), plays with every choice of at
    most ``max_targets`` targets, in every order where it can matter (D37)."""
    ok = []
    for action in candidates(s, max_targets):
        try:
            check(s, action)
        except IllegalAction:
            continue
        ok.append(action)
    return ok


def _plays(s: GameState, player: str, card: Card, max_targets: int) -> list[Action]:
    if card.type == "unit":
        # None is its base (the default): to="base" would be the same play listed twice
        return [Play(player, card.id, (), to) for to in [None, *s.fields]]
    wants_targets, wants_to = needs(card.effect)
    on_board = [u.id for u in s.units_in_board_order() if u.on_board]
    target_lists = (_target_lists(on_board, max_targets, order_matters(card.effect))
                    if wants_targets else [()])
    places: list[str | None] = ["base", *s.fields]
    if wants_to == MAY:
        places.insert(0, None)  # no destination, or any
    destinations = [None] if wants_to == NO else places
    return [Play(player, card.id, t, to) for t in target_lists for to in destinations]


def _target_lists(on_board: list[str], most: int, ordered: bool) -> list[tuple[str, ...]]:
    """Every choice of 1 to ``most`` distinct units on the board, fewer first, in board order:
    in every order where the order of the targets can matter (``ordered``, see
    :func:`engine.effect_needs.order_matters`), else once, in board order."""
    choose = permutations if ordered else combinations
    return [group for size in range(1, min(most, len(on_board)) + 1)
            for group in choose(on_board, size)]


def _moves(s: GameState) -> list[Action]:
    mine = [
        u.id
        for u in s.units_in_board_order()
        if u.on_board and u.controller == s.turn_player and not u.exhausted
    ]
    found: list[Action] = []
    for size in range(1, len(mine) + 1):
        for group in combinations(mine, size):
            for to in ["base", *s.fields]:
                found.append(Move(s.turn_player, group, to))
    return found
