"""The legal damage assignments (rules.md 6, CR 460.2.c): worked out without going through
every order of the units, checked here against doing exactly that."""

from __future__ import annotations

from itertools import permutations

from hypothesis import given, settings, strategies as st

from engine import combat
from engine.runner import OK, run_file
from engine.state import Unit
from tests.helpers import write_yaml

KEYWORDS = st.sampled_from([(), ("tank",), ("backline",), ("tank", "backline")])


@st.composite
def side(draw: st.DrawFn) -> list[Unit]:
    count = draw(st.integers(1, 5))
    return [Unit(id=f"E{i}", name=None, owner="P2", controller="P2", at="A", order=i,
                 might=draw(st.integers(0, 4)), damage=draw(st.integers(0, 3)),
                 keywords=draw(KEYWORDS)) for i in range(count)]


def _by_every_order(total: int, targets: list[Unit]) -> set[frozenset]:
    """The rule read literally, written here again rather than taken from the engine (an
    oracle that shared the engine's helpers would share their mistakes): every order of the
    units that puts Tanks first and Backline units last, the Tank rule over the Backline rule
    where they clash (a unit with both: after the plain Tanks, before every unit without Tank,
    decisions.md D45), each unit given lethal damage, max(1, Might - damage), before the next
    gets any, the last taking what is left (rules.md 6, 11.5)."""
    def tank(unit: Unit) -> bool:
        return "tank" in unit.keywords

    def backline(unit: Unit) -> bool:
        return "backline" in unit.keywords

    def may_precede(first: Unit, later: Unit) -> bool:
        if tank(later) and not tank(first):
            return False  # a Tank is never after a unit without Tank
        # Backline after the others, unless Tank puts it first
        return not (backline(first) and not backline(later) and tank(first) == tank(later))

    found = set()
    for order in permutations(targets):
        if not all(may_precede(a, b) for i, a in enumerate(order) for b in order[i + 1:]):
            continue
        plan: dict[str, int] = {}
        left = total
        for i, unit in enumerate(order):
            if left == 0:
                break
            plan[unit.id] = left if i == len(order) - 1 else min(left, max(1, unit.might
                                                                            - unit.damage))
            left -= plan[unit.id]
        found.add(frozenset(plan.items()))
    return found


@settings(max_examples=300, deadline=None)
@given(total=st.integers(0, 14), targets=side(),
       guesses=st.lists(st.dictionaries(st.sampled_from(["E0", "E1", "E2", "E3", "E4"]),
                                        st.integers(1, 6), max_size=5), max_size=6))
def test_the_assignments_are_those_of_every_order(total: int, targets: list[Unit],
                                                  guesses: list[dict[str, int]]) -> None:
    expected = _by_every_order(total, targets)
    listed = combat.legal_assignments(total, targets)
    assert {frozenset(p.items()) for p in listed} == expected
    assert len(listed) == len(expected)  # each once
    # what the engine assigns without manual_damage is one of them
    assert frozenset(combat.automatic_assignment(total, targets).items()) in expected
    ids = {u.id for u in targets}
    for plan in [*listed, *guesses]:
        if set(plan) <= ids:
            assert combat.is_legal_assignment(total, targets, plan) == (
                frozenset(plan.items()) in expected), plan


def test_an_assignment_among_many_units_is_checked_without_trying_every_order(tmp_path,
                                                                               monkeypatch):
    """Eleven defenders have 39,916,800 orders; the assign step is checked from the plan, and
    nothing lists the assignments (which fails here at once rather than running for hours)."""
    def listing(*args):
        raise AssertionError("the assignments were listed to check one")

    monkeypatch.setattr(combat, "legal_assignments", listing)
    monkeypatch.setattr(combat, "every_fill", listing)
    defenders = [{"id": f"E{i}", "controller": "P2", "might": 1, "at": "A"} for i in range(11)]
    scenario = {
        "name": "eleven defenders", "players": ["P1", "P2"], "manual_damage": True,
        "battlefields": [{"id": "A", "controller": "P2"}],
        "units": [{"id": "U1", "controller": "P1", "might": 11, "at": "base"}, *defenders],
        "steps": [
            {"move": {"player": "P1", "units": ["U1"], "to": "A"}},
            {"pass": "P1"}, {"pass": "P2"},
            {"expect_error": {"assign": {"player": "P1", "damage": {"E0": 11}}}},
            {"assign": {"player": "P1", "damage": {f"E{i}": 1 for i in range(11)}}},
        ],
    }
    assert run_file(write_yaml(tmp_path, scenario)).code == OK
