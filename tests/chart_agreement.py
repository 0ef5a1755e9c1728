"""Does every chart's active configuration agree with the engine's state view?"""

from __future__ import annotations

from typing import Any


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
