"""Does every chart's active configuration agree with the engine's state view, and with the
data the game keeps beside its charts?"""

from __future__ import annotations

from typing import Any

from engine.state import GameState


def disagreements(view: dict[str, Any], configs: dict[str, frozenset[str]]) -> list[str]:
    found = []

    def want(key: str, state: str, expected: bool, why: str) -> None:
        if (state in configs[key]) != expected:
            found.append(f"{key}: {state} {'missing' if expected else 'active'} but {why}")

    closed = view["state"].endswith("closed")
    showdown = view["showdown"]
    for bf in view["control"]:
        key = f"battlefield:{bf}"
        want(
            key, "controlled", view["control"][bf] is not None, f"control is {view['control'][bf]}"
        )
        want(
            key,
            "contested",
            view["contested"][bf] is not None,
            f"contested is {view['contested'][bf]}",
        )
        want(
            key,
            "showdown_staged",
            "showdown" in view["staged"][bf],
            f"staged is {view['staged'][bf]}",
        )
        want(
            key, "combat_staged", "combat" in view["staged"][bf], f"staged is {view['staged'][bf]}"
        )
        here = showdown is not None and showdown["at"] == bf
        want(key, "showdown", here, f"showdown is {showdown}")
        want(key, "combat", here and showdown["kind"] == "combat", f"showdown is {showdown}")
        want(key, "closed", closed, f"state is {view['state']}")
    want("priority", "open", not view["chain"], f"chain is {view['chain']}")
    if view["winner"]:
        return found  # a won game stops where it is: nobody holds Focus or Priority
    want("focus", "holding", view["focus"] is not None and not closed, f"focus is {view['focus']}")
    want(
        "focus",
        "kept_during_chain",
        view["focus"] is not None and closed,
        f"focus is {view['focus']}",
    )
    want("scheduler", "contest_active", showdown is not None, f"showdown is {showdown}")
    pending = view["pending_choice"]
    choice = pending if pending and pending["kind"] == "battlefield" else None
    # Showdowns are offered only where no Combat is staged (Cleanup step 8)
    of_combats = bool(choice) and all("combat" in view["staged"][bf] for bf in choice["options"])
    want("scheduler", "choosing_showdown", bool(choice) and not of_combats, f"choice is {pending}")
    want("scheduler", "choosing_combat", of_combats, f"choice is {pending}")
    want("turn", view["turn"]["phase"], True, f"phase is {view['turn']['phase']}")
    return found


def data_disagreements(s: GameState) -> list[str]:
    """Where the game's data says other than its charts. A battlefield keeps who applied
    Contested exactly while it is Contested, a staged Combat's players exactly while one is
    staged; the game keeps the active contest's battlefield exactly while a Showdown is under
    way there, the Attacker and Defender exactly while a Combat is, whether the attackers were
    recalled and the damage assigned only while it is, what began the Chain and who held Focus
    then only while a Chain exists, and no count of passes in Neutral Open."""
    wrong = []
    for bf, f in s.fields.items():
        if (f.applier is not None) != s.is_contested(bf):
            wrong.append(f"{bf}: applier {f.applier!r}, Contested {s.is_contested(bf)}")
        if bool(f.staged_combatants) != s.combat_staged(bf):
            wrong.append(f"{bf}: staged_combatants {f.staged_combatants!r}, Combat staged "
                         f"{s.combat_staged(bf)}")
    showdowns = [bf for bf in s.fields if s.in_showdown(bf)]
    combats = [bf for bf in s.fields if s.in_combat(bf)]
    if [s.contest_at] != (showdowns or [None]):
        wrong.append(f"contest_at {s.contest_at!r}, Showdowns under way at {showdowns}")
    for name in ("attacker", "defender"):
        if (getattr(s, name) is not None) != bool(combats):
            wrong.append(f"{name} {getattr(s, name)!r}, Combats under way at {combats}")
    if (s.attackers_recalled or s.damage_plan) and not combats:
        wrong.append(f"attackers_recalled {s.attackers_recalled}, damage_plan "
                     f"{s.damage_plan!r} with no Combat under way")
    if (s.chain_begun_by is not None) != bool(s.chain) or (
            s.focus_at_chain_start is not None and not s.chain):
        wrong.append(f"chain_begun_by {s.chain_begun_by!r}, focus_at_chain_start "
                     f"{s.focus_at_chain_start!r}, chain {[i.label for i in s.chain]}")
    if s.neutral_open and s.passes:
        wrong.append(f"{s.passes} passes counted in Neutral Open")
    return wrong
