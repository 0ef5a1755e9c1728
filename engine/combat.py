"""Combat's damage step and resolution tasks (CR 454-461, rules.md section 6)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from . import effects
from .state import GameState, Unit, battlefield_key

if TYPE_CHECKING:
    from .core import Table

# starting with the Attacker, each player assigns their total among the other side's units
ASSIGNING = "CR 460.2.c"


def side_units(s: GameState, bf: str, player: str) -> list[Unit]:
    return [u for u in s.units_at(bf) if u.controller == player]


def total_might(units: list[Unit]) -> int:
    """Stunned units deal nothing; negative Might counts as 0 (rules.md 6)."""
    return sum(max(0, u.might) for u in units if not u.stunned)


def _assign_class(unit: Unit) -> int:
    """The unit's place in the order of assignment: Tanks before every other unit, Backline
    after the others of its kind, so a unit with both comes after the plain Tanks and before
    every unit without Tank (decisions.md D45): 0 Tank, 1 Tank and Backline, 2 neither,
    3 Backline."""
    tank = "tank" in unit.keywords
    return (0 if tank else 2) + ("backline" in unit.keywords)


def _fill(total: int, order: list[Unit]) -> dict[str, int]:
    return fill_in_order(total, [(unit.id, unit.lethal()) for unit in order])


def fill_in_order(total: int, order: list[tuple[str, int]]) -> dict[str, int]:
    """Lethal damage to each unit of ``order`` (unit id, lethal damage) before the next gets
    any; the last takes what is left."""
    plan: dict[str, int] = {}
    remaining = total
    for i, (uid, lethal) in enumerate(order):
        if remaining <= 0:
            break
        give = remaining if i == len(order) - 1 else min(lethal, remaining)
        plan[uid] = give
        remaining -= give
    return plan


def automatic_assignment(total: int, targets: list[Unit]) -> dict[str, int]:
    """Tanks first, Backline last, board order otherwise."""
    return _fill(total, sorted(targets, key=lambda u: (_assign_class(u), u.order)))


def legal_assignments(total: int, targets: list[Unit]) -> list[dict[str, int]]:
    """Every assignment the rules allow: each order that keeps Tanks first and Backline last."""
    ranked = [(u.id, u.lethal(), _assign_class(u)) for u in targets]
    return sorted(every_fill(total, ranked), key=lambda p: sorted(p.items()))


def is_legal_assignment(total: int, targets: list[Unit], plan: Mapping[str, int]) -> bool:
    """Whether ``plan`` (unit id -> damage, no zeros) is one of :func:`legal_assignments`,
    worked out from the plan itself: only one order can give it (up to units of one class),
    the units dealt exactly lethal damage, then the one dealt another amount (what was left),
    then the units dealt none. Asking the list would cost every order of the units."""
    lethal = {u.id: u.lethal() for u in targets}
    other = [u for u in targets if u.id in plan and plan[u.id] != lethal[u.id]]
    if len(other) > 1:
        return False
    by_class = sorted(targets, key=lambda u: (_assign_class(u), u.order))
    order = ([u for u in by_class if plan.get(u.id) == lethal[u.id]] + other
             + [u for u in by_class if u.id not in plan])
    classes = [_assign_class(u) for u in order]
    return classes == sorted(classes) and fill_in_order(
        total, [(u.id, lethal[u.id]) for u in order]) == dict(plan)


def every_fill(total: int, units: list[tuple[str, int, int]]) -> list[dict[str, int]]:
    """:func:`fill_in_order` for every order of ``units`` (id, lethal damage, rank) whose
    ranks do not go down, each distinct plan once, in the order first met. Worked out over the
    sets of units dealt lethal damage so far (a plan depends on nothing else), not over the
    orders: n units have n! orders but at most 2^n such sets."""
    found: dict[frozenset[tuple[str, int]], dict[str, int]] = {}
    seen: set[frozenset[str]] = set()

    def emit(plan: dict[str, int]) -> None:
        found.setdefault(frozenset(plan.items()), plan)

    def extend(filled: dict[str, int], remaining: int) -> None:
        if frozenset(filled) in seen:
            return
        seen.add(frozenset(filled))
        left = [unit for unit in units if unit[0] not in filled]
        if remaining <= 0 or not left:
            emit(filled)
            return
        lowest = min(rank for _, _, rank in left)
        for uid, lethal, rank in left:
            if rank != lowest:
                continue  # a unit of a lower rank is still to come: not next
            if len(left) == 1 or remaining < lethal:
                emit({**filled, uid: remaining})  # the last takes what is left
            else:
                extend({**filled, uid: lethal}, remaining - lethal)

    extend({}, total)
    return list(found.values())


def begin_damage_step(table: Table, bf: str, rule: str) -> None:
    s = table.state
    s.focus = s.priority = None
    s.damage_plan = {}
    table.say(f"Damage step at {bf}: nobody has Focus", rule)
    attacker, defender = s.combatants
    for player, foe in ((attacker, defender), (defender, attacker)):
        total, targets = _damage_dealt(s, bf, player, foe)
        if s.manual_damage and targets:
            if s.pending is None:
                _ask_damage(table, player, total, targets)
            continue
        s.damage_plan[player] = automatic_assignment(total, targets)


def _damage_dealt(s: GameState, bf: str, player: str, foe: str) -> tuple[int, list[Unit]]:
    """The damage ``player``'s side deals at ``bf`` (its units' total Might) and the units of
    ``foe`` it goes to."""
    return total_might(side_units(s, bf, player)), side_units(s, bf, foe)


def _damage_choice(player: str, total: int, targets: list[Unit]) -> dict:
    return {
        "player": player,
        "kind": "damage",
        "options": [u.id for u in targets],
        "total": total,
    }


def answer_damage_choice(table: Table, player: str, plan: dict[str, int]) -> None:
    """An ``assign`` step; the Defender's choice follows the Attacker's."""
    s = table.state
    s.damage_plan[player] = {uid: n for uid, n in plan.items() if n}
    s.pending = None
    table.say(f"{player} assigns {_plan_text(s, plan)}", ASSIGNING)
    attacker, defender = s.combatants
    if player == attacker and defender not in s.damage_plan:
        total, targets = _damage_dealt(s, s.contest_battlefield, defender, attacker)
        if targets:
            _ask_damage(table, defender, total, targets)


def _ask_damage(table: Table, player: str, total: int, targets: list[Unit]) -> None:
    """A damage choice (manual_damage): ``player`` assigns ``total`` among ``targets``."""
    table.state.pending = _damage_choice(player, total, targets)
    names = ", ".join(u.id for u in targets)
    table.say(f"{player} is to assign {total} damage among {names}", ASSIGNING)


def _plan_text(s: GameState, plan: dict[str, int]) -> str:
    """In board order, whatever order the plan was written in (snapshots sort their keys)."""
    ordered = sorted(plan.items(), key=lambda item: s.units[item[0]].order)
    return ", ".join(f"{n} to {uid}" for uid, n in ordered if n) or "no damage"


def deal_damage(table: Table, rule: str) -> None:
    """All combat damage is dealt at once; it is checked only in resolution task 1 (11.5)."""
    s = table.state
    for player in s.combatants:
        plan = s.damage_plan.get(player, {})
        table.say(f"{player} deals {_plan_text(s, plan)}", rule)
        for uid, amount in plan.items():
            if amount:
                table.update_unit(uid, damage=s.units[uid].damage + amount)
    s.damage_plan = {}


def kill_heal_and_recall(table: Table, bf: str, rule: str) -> None:
    """Task 1: kill units with lethal damage, heal all, recall attackers if defenders remain."""
    s = table.state
    table.say(f"Combat resolution at {bf}, task 1: combat cleanup", rule)
    effects.kill_lethally_damaged(table, rule)
    for unit in list(s.units.values()):
        if unit.on_board and unit.damage:
            table.update_unit(unit.id, damage=0)
    table.say("Every unit is healed", rule)
    s.attackers_recalled = False
    attacker, defender = s.combatants
    if side_units(s, bf, defender):
        for unit in side_units(s, bf, attacker):
            effects.recall(table, unit.id, rule)
            s.attackers_recalled = True


def declare_result(table: Table, bf: str, rule: str) -> None:
    """Task 2: who won; No Result with both still there stages a Combat again."""
    s = table.state
    present = s.players_at(bf)
    attackers, defenders = s.attacker in present, s.defender in present
    if s.attackers_recalled or attackers == defenders:
        table.say(f"Combat at {bf}: No Result", rule)
    elif attackers:
        table.say(f"Combat at {bf}: {s.attacker} (Attacker) won", rule)
    else:
        table.say(f"Combat at {bf}: {s.defender} (Defender) won", rule)
    table.try_send(battlefield_key(bf), "restage_combat")  # if both sides remain


def settle_control(table: Table, bf: str) -> None:
    """Task 3: the player with units there establishes control; with none it is uncontrolled
    (the battlefield chart's ``claim_after_combat`` decides which). Contested is cleared."""
    table.try_send(battlefield_key(bf), "claim_after_combat")
    table.try_send(battlefield_key(bf), "clear_contested_after_combat")


def end_combat(table: Table, bf: str, rule: str) -> None:
    """Task 4: designations are removed and the Combat is over."""
    s = table.state
    s.contest_at = s.attacker = s.defender = None
    s.attackers_recalled = False
    for unit in list(s.units.values()):
        if unit.designation:
            table.update_unit(unit.id, designation=None)
    table.say(f"Combat at {bf} ends; designations are removed", rule)
    table.send("scheduler", "combat_over")
