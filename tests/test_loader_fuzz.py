"""Fuzzing the scenario loader with malformed and hostile input.

Whatever the input (random bytes, YAML token soup, random trees, mutations of valid scenarios,
object tags, aliases, deep nesting, huge numbers, huge files), :func:`load_scenario` may only
return a :class:`Scenario` or raise a one-line :class:`ScenarioError`; any other exception
fails the test.

Every input tried is counted in ``STATS`` (tried / loaded / rejected, per test and in total), and
the tests assert that enough was exercised and that both outcomes occurred, so a strategy that
silently generates nothing useful cannot pass.

``RIFTCHART_FUZZ_EXAMPLES`` sets the number of Hypothesis examples per fuzz test (default 100,
which keeps this file to a few seconds). For a longer run::

    RIFTCHART_FUZZ_EXAMPLES=5000 pytest tests/test_loader_fuzz.py -q
"""

from __future__ import annotations

import copy
import os
import string
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings, strategies as st

from engine.errors import ScenarioError
from engine.scenario import MAX_FILE_BYTES, MAX_STEPS, Scenario, load_scenario, load_scenario_text

EXAMPLES = max(1, int(os.environ.get("RIFTCHART_FUZZ_EXAMPLES", "100")))
FUZZ = settings(max_examples=EXAMPLES, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

STATS: Counter[str] = Counter()
FUZZ_TESTS = ("bytes", "soup", "trees", "mutations", "text_mutations", "hostile_lines",
              "hostile_documents")

# ---- the single rule: a Scenario or a ScenarioError -----------------------------------------


def attempt(test: str, load: Callable[[], Scenario]) -> str:
    """Run ``load``; count and return 'loaded' or 'rejected'. Anything else propagates."""
    STATS["tried"] += 1
    STATS[f"{test}:tried"] += 1
    try:
        scenario = load()
    except ScenarioError as error:
        text = str(error)
        assert len(text.splitlines()) == 1, repr(text)
        assert error.field, text
        assert error.line is None or (isinstance(error.line, int) and error.line >= 1), text
        outcome = "rejected"
    else:
        assert isinstance(scenario, Scenario)
        for step in scenario.steps:
            step.as_mapping()
        outcome = "loaded"
    STATS[outcome] += 1
    STATS[f"{test}:{outcome}"] += 1
    return outcome


def from_text(test: str, text: str) -> str:
    return attempt(test, lambda: load_scenario_text(text, "fuzz.yaml"))


def from_data(test: str, data: Any) -> str:
    return attempt(test, lambda: load_scenario(data))


def exercised(test: str, *, both: bool = False) -> None:
    """Assert the test tried enough inputs (and saw both outcomes if ``both``)."""
    tried = STATS[f"{test}:tried"]
    assert tried >= EXAMPLES // 2, f"{test}: only {tried} inputs tried"
    if both and EXAMPLES >= 50:  # fewer examples may, by chance, miss an outcome
        assert STATS[f"{test}:loaded"] > 0, f"{test}: nothing loaded"
        assert STATS[f"{test}:rejected"] > 0, f"{test}: nothing rejected"
    STATS[f"done:{test}"] = 1


@pytest.fixture(scope="module")
def scratch() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="riftchart-fuzz-") as directory:
        yield Path(directory)


# ---- valid material to mutate ---------------------------------------------------------------

BASES: list[dict[str, Any]] = [
    {
        "name": "Showdown at an empty battlefield (seed 000)",
        "players": ["P1", "P2"],
        "battlefields": [{"id": "A"}],
        "units": [{"id": "U1", "controller": "P1", "might": 2, "at": "base"}],
        "steps": [
            {"move": {"player": "P1", "units": ["U1"], "to": "A"}},
            {"expect": {"state": "showdown-open", "showdown": {"at": "A", "kind": "non-combat"},
                        "focus": "P1", "contested": {"A": "P1"}, "control": {"A": None}}},
            {"pass": "P1"},
            {"expect": {"focus": "P2"}},
            {"pass": "P2"},
            {"expect": {"state": "neutral-open", "control": {"A": "P1"},
                        "contested": {"A": None}, "score": {"P1": 1}}},
        ],
    },
    {
        "name": "Teams and cards",
        "rules": "cr-1.4",
        "players": ["P1", "P2", "P3", "P4"],
        "teams": [["P1", "P3"], ["P2", "P4"]],
        "turn_player": "P2",
        "manual_damage": True,
        "scores": {"P1": 3, "P3": 3},
        "deck": {"P4": 0},
        "battlefields": [
            {"id": "A", "name": "Arena", "controller": "P2", "scored_this_turn": ["P2"],
             "abilities": [{"when": "beginning", "effect": {"gain_points": 1}}]},
            {"id": "B"},
        ],
        "units": [
            {"id": "U1", "controller": "P1", "might": 3, "at": "B", "keywords": ["tank"],
             "triggers": [{"when": "attack", "targets": "enemies_here", "effect": {"damage": 1}}]},
            {"id": "U2", "controller": "P2", "might": 2, "at": "A", "exhausted": True},
        ],
        "hands": {
            "P1": [{"id": "S1", "type": "spell", "timing": "action",
                    "effect": {"sequence": [{"move": {"units": ["U1"], "to": "A"}},
                                            {"play_unit": {"id": "T1", "might": 1, "to": "B"}}]}}],
            "P2": [{"id": "C1", "type": "unit", "timing": "reaction",
                    "unit": {"might": 2, "keywords": ["backline"],
                             "triggers": [{"when": "play", "targets": ["U1"],
                                           "effect": {"stun": {}}}]}}],
        },
        "steps": [
            {"play": {"player": "P1", "card": "S1", "targets": ["U1"], "to": "A"}},
            {"choose": {"player": "P2", "battlefield": "A"}},
            {"assign": {"player": "P1", "damage": {"U2": 2}}},
            {"expect_error": {"end_turn": "P3"}},
            {"expect": {"chain": ["S1", "U1:attack", "add:P2"], "staged": {"A": ["combat"]},
                        "units": {"T1": {"at": "B", "designation": None}},
                        "pending_choice": {"player": "P1", "kind": "damage", "options": ["U2"]},
                        "turn": {"player": "P2", "phase": "main"}, "winner": None}},
        ],
    },
]

WORDS = [
    "P1", "P2", "P3", "P4", "A", "B", "C", "U1", "U2", "S1", "C1", "T1", "base", "hand",
    "trash", "P1:x", "", "tank", "ganking", "flying", "spell", "unit", "action", "none",
    "reaction", "move", "die", "beginning", "self", "enemies_here", "seed", "cr-1.4",
    "neutral-open", "showdown-open", "combat", "attacker", "main", "U1:attack", "add:P1",
]
KEYS = [
    "name", "rules", "players", "teams", "turn_player", "victory_score", "manual_damage",
    "scores", "deck", "battlefields", "units", "hands", "steps", "id", "controller", "might",
    "at", "exhausted", "stunned", "damage", "keywords", "triggers", "type", "timing", "effect",
    "unit", "when", "targets", "to", "player", "card", "battlefield", "state", "focus", "chain",
    "showdown", "kind", "options", "phase", "expect", "expect_error", "pass", "sequence", "x",
]

scalars = st.one_of(
    st.none(), st.booleans(), st.sampled_from([0, 1, 2, 3, 8, 11, 20, -1, 10**6, 10**6 + 1]),
    st.integers(min_value=-(2**70), max_value=2**70), st.floats(allow_nan=True),
    st.sampled_from(WORDS), st.text(max_size=12),
)
trees = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.one_of(st.sampled_from(KEYS), scalars), children, max_size=4),
    ),
    max_leaves=25,
)


def nodes(tree: Any, path: tuple = ()) -> Iterator[tuple]:
    """Every path in ``tree`` (the root included)."""
    yield path
    if isinstance(tree, dict):
        for key, value in tree.items():
            yield from nodes(value, (*path, key))
    elif isinstance(tree, list):
        for index, value in enumerate(tree):
            yield from nodes(value, (*path, index))


def at(tree: Any, path: tuple) -> Any:
    for part in path:
        tree = tree[part]
    return tree


MUTATIONS = ("replace", "word", "number", "delete", "add_key", "duplicate", "wrap", "nest")


def tweak(tree: Any, data: st.DataObject) -> Any:
    """A mutation that often keeps the scenario valid: drop or repeat a step, change a count
    or a display name."""
    if not isinstance(tree, dict):
        return tree
    paths = list(nodes(tree))
    counts = [path for path in paths if type(at(tree, path)) is int]
    names = [path for path in paths if path and path[-1] == "name"]
    choice = data.draw(st.sampled_from(("step", "count", "name")), label="tweak")
    if choice == "step" and isinstance(tree.get("steps"), list) and tree["steps"]:
        steps = tree["steps"]
        index = data.draw(st.integers(0, len(steps) - 1))
        if data.draw(st.booleans()):
            del steps[index]
        else:
            steps.insert(index, copy.deepcopy(steps[index]))
    elif choice == "count" and counts:
        path = data.draw(st.sampled_from(counts))
        at(tree, path[:-1])[path[-1]] = data.draw(st.integers(0, 20))
    elif names:
        path = data.draw(st.sampled_from(names))
        at(tree, path[:-1])[path[-1]] = data.draw(st.text(min_size=1, max_size=20))
    return tree


def mutate(tree: Any, data: st.DataObject) -> Any:
    """Apply one random mutation to ``tree`` (in place where possible): half of them
    :func:`tweak`, the others structural and mostly fatal."""
    if data.draw(st.booleans(), label="tweak?"):
        return tweak(tree, data)
    path = data.draw(st.sampled_from(list(nodes(tree))), label="path")
    operation = data.draw(st.sampled_from(MUTATIONS), label="operation")
    node = at(tree, path)
    if operation == "add_key" and isinstance(node, dict):
        node[data.draw(st.sampled_from(KEYS))] = data.draw(trees)
        return tree
    if operation == "duplicate" and path and isinstance(at(tree, path[:-1]), list):
        at(tree, path[:-1]).insert(path[-1], copy.deepcopy(node))
        return tree
    if operation == "delete" and path:
        del at(tree, path[:-1])[path[-1]]
        return tree
    replacement: Any
    if operation == "word":
        replacement = data.draw(st.sampled_from(WORDS))
    elif operation == "number":
        replacement = data.draw(st.one_of(st.integers(-5, 30), st.integers()))
    elif operation == "wrap":
        replacement = [node]
    elif operation == "nest":
        replacement = node
        for _ in range(data.draw(st.integers(1, 80))):
            replacement = {"k": replacement}
    else:
        replacement = data.draw(trees)
    if not path:
        return replacement
    at(tree, path[:-1])[path[-1]] = replacement
    return tree


# ---- the fuzz tests -------------------------------------------------------------------------


def test_random_bytes(scratch: Path) -> None:
    @FUZZ
    @example(yaml.safe_dump(BASES[0]).encode())
    @given(st.one_of(st.binary(max_size=600),
                     st.binary(max_size=200).map(lambda b: yaml.safe_dump(BASES[0]).encode() + b)))
    def run(raw: bytes) -> None:
        path = scratch / "bytes.yaml"
        path.write_bytes(raw)
        attempt("bytes", lambda: load_scenario(path))
        from_text("bytes", raw.decode("latin-1"))

    run()
    exercised("bytes", both=True)


YAML_TOKENS = [
    "name: ", "players: ", "battlefields: ", "units: ", "steps: ", "hands: ", "expect: ",
    "[", "]", "{", "}", ", ", ": ", "\n", "  ", "- ", "P1", "P2", "A", "U1", "x", "'", '"',
    "&a ", "*a", "&b ", "*b", "!!python/object/apply:os.system ", "!!python/name:os.system ",
    "!!set ", "!!str ", "!!int ", "!!binary ", "!custom ", "? ", "---\n", "...\n", "%YAML 1.1\n",
    "#", "|\n", ">\n", "\t", "~", "null", "true", "yes", "0x1F", "1e9", ".nan", "9" * 40,
    "2024-01-01", "<<: ", "\x00", "\ufeff", "\u2028", "\\", "%",
]


def test_yaml_token_soup() -> None:
    @FUZZ
    @given(st.lists(st.sampled_from(YAML_TOKENS), max_size=60).map("".join))
    def run(text: str) -> None:
        from_text("soup", text)

    run()
    exercised("soup")


def test_random_trees() -> None:
    @FUZZ
    @given(st.one_of(trees, st.dictionaries(st.sampled_from(KEYS), trees, max_size=8)))
    def run(tree: Any) -> None:
        from_data("trees", tree)
        from_text("trees", yaml.safe_dump(tree))

    run()
    exercised("trees")


def test_mutations_of_valid_scenarios() -> None:
    for base in BASES:
        assert from_data("valid", copy.deepcopy(base)) == "loaded"

    @FUZZ
    @given(st.sampled_from(BASES), st.integers(1, 3), st.data())
    def run(base: dict[str, Any], count: int, data: st.DataObject) -> None:
        tree: Any = copy.deepcopy(base)
        for _ in range(count):
            tree = mutate(tree, data)
        from_data("mutations", tree)
        from_text("mutations", yaml.safe_dump(tree, sort_keys=False))

    run()
    exercised("mutations", both=True)


def test_text_mutations_of_valid_scenarios() -> None:
    texts = [yaml.safe_dump(base, sort_keys=False) for base in BASES]
    texts += [yaml.safe_dump(base, default_flow_style=True) for base in BASES]
    alphabet = string.printable + "&*!?|>%@`{}[]:-#\u00e9\u2028\x00"

    @FUZZ
    @example(texts[0], [("insert", 1.0, "\n")])
    @given(st.sampled_from(texts), st.lists(st.tuples(
        st.sampled_from(("insert", "delete", "replace", "copy_line")),
        st.floats(0, 1), st.text(alphabet, min_size=1, max_size=4)), min_size=1, max_size=3))
    def run(text: str, edits: list[tuple[str, float, str]]) -> None:
        for operation, where, chars in edits:
            position = int(where * len(text))
            if operation == "insert":
                text = text[:position] + chars + text[position:]
            elif operation == "delete":
                text = text[:position] + text[position + len(chars):]
            elif operation == "replace":
                text = text[:position] + chars + text[position + len(chars):]
            else:
                lines = text.splitlines(keepends=True)
                line = lines[min(int(where * len(lines)), len(lines) - 1)]
                text = text + line
        from_text("text_mutations", text)

    run()
    exercised("text_mutations", both=True)


HOSTILE_LINES = [
    "x: !!python/object/apply:os.system ['echo owned']",
    "x: !!python/object/new:subprocess.Popen [['true']]",
    "x: !!python/name:builtins.eval",
    "x: &anchor [1, 2]",
    "y: *anchor",
    "<<: {name: merged}",
    "x: " + "[" * 5000,
    "x: " + "{a: " * 5000,
    "x: " + "9" * 10_000,
    "x: !!float 1e999",
    "x: !!timestamp 2024-99-99",
    "x: !!binary '@@@'",
    "name: dup",
    "? [complex, key]\n: 1",
    "\t- tab",
    "x: \x00",
    "x: |\n  block\n   text",
    "%TAG !e! tag:example.com,2000:\n---",
]


def test_hostile_lines_in_valid_scenarios() -> None:
    texts = [yaml.safe_dump(base, sort_keys=False) for base in BASES]

    @FUZZ
    @given(st.sampled_from(texts), st.sampled_from(HOSTILE_LINES), st.floats(0, 1))
    def run(text: str, hostile: str, where: float) -> None:
        lines = text.splitlines(keepends=True)
        position = int(where * len(lines))
        from_text("hostile_lines", "".join(lines[:position]) + hostile + "\n"
                  + "".join(lines[position:]))

    run()
    exercised("hostile_lines")


def _deep_dict(depth: int) -> dict[str, Any]:
    tree: dict[str, Any] = {"name": "deep"}
    for _ in range(depth):
        tree = {"k": tree}
    return tree


def _cycle() -> dict[str, Any]:
    data = copy.deepcopy(BASES[0])
    data["steps"].append({"expect": data})
    return data


def _shared() -> dict[str, Any]:
    level: Any = ["x"]
    for _ in range(10):
        level = [level] * 40
    data = copy.deepcopy(BASES[0])
    data["steps"] = level
    return data


def _laughs() -> str:
    lines = ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for index in range(1, 10):
        name, previous = chr(97 + index), chr(96 + index)
        lines.append(f"{name}: &{name} [{', '.join(['*' + previous] * 9)}]")
    return "\n".join(lines) + "\n"


def _steps_text(count: int) -> str:
    return yaml.safe_dump({**BASES[0], "steps": [{"pass": "P1"} for _ in range(count)]})


HOSTILE_DOCUMENTS: list[tuple[str, Callable[[], Any], str]] = [
    # (case, a thunk giving a text or a dict, the expected outcome)
    ("10,000 opening brackets", lambda: "[" * 10_000, "rejected"),
    ("10,000 flow mappings", lambda: "{a: " * 10_000, "rejected"),
    ("200 block levels", lambda: "".join("  " * d + "- \n" for d in range(200)), "rejected"),
    ("billion laughs", _laughs, "rejected"),
    ("os.system tag", lambda: "!!python/object/apply:os.system ['echo owned']", "rejected"),
    ("tag on a key", lambda: "!!python/object/apply:os.system ['x']: 1", "rejected"),
    ("one byte over the size limit", lambda: "#" * (MAX_FILE_BYTES + 1), "rejected"),
    ("multi-byte text over the limit", lambda: "é" * (MAX_FILE_BYTES // 2 + 1), "rejected"),
    ("comments up to the size limit", lambda: yaml.safe_dump(BASES[0]) + (
        "#" * 1023 + "\n") * (MAX_FILE_BYTES // 1024 - 1), "loaded"),
    ("a 10,000-digit integer", lambda: "victory_score: " + "9" * 10_000, "rejected"),
    ("10,000 steps", lambda: _steps_text(MAX_STEPS), "loaded"),
    ("10,001 steps", lambda: _steps_text(MAX_STEPS + 1), "rejected"),
    ("dict nested 10,000 deep", lambda: _deep_dict(10_000), "rejected"),
    ("dict with a cycle", _cycle, "rejected"),
    ("dict sharing sub-lists (40**10 leaves)", _shared, "rejected"),
    ("dict with a set", lambda: {**BASES[0], "players": {"P1", "P2"}}, "rejected"),
    ("dict with an object", lambda: {**BASES[0], "name": object()}, "rejected"),
    ("dict with bytes", lambda: {**BASES[0], "name": b"x"}, "rejected"),
    ("dict with a nan", lambda: {**BASES[0], "victory_score": float("nan")}, "rejected"),
    ("dict with a huge int", lambda: {**BASES[0], "victory_score": 10**5000}, "rejected"),
    ("a list", lambda: [BASES[0]], "rejected"),
    ("a string", lambda: "just text", "rejected"),
    ("empty text", lambda: "", "rejected"),
]


@pytest.mark.parametrize(("make", "outcome"), [case[1:] for case in HOSTILE_DOCUMENTS],
                         ids=[case[0] for case in HOSTILE_DOCUMENTS])
def test_hostile_documents(make: Callable[[], Any], outcome: str) -> None:
    document = make()
    if isinstance(document, str):
        assert from_text("hostile_documents", document) == outcome
    else:
        assert from_data("hostile_documents", document) == outcome
    if STATS["hostile_documents:tried"] >= len(HOSTILE_DOCUMENTS):
        STATS["done:hostile_documents"] = 1


def test_enough_was_exercised() -> None:
    """Runs last: the fuzzing above must have tried many inputs, with both outcomes."""
    missing = [test for test in FUZZ_TESTS if not STATS[f"done:{test}"]]
    if missing:
        pytest.skip(f"only part of the module ran (missing: {', '.join(missing)})")
    assert STATS["tried"] >= min(200, 2 * EXAMPLES), STATS
    assert STATS["loaded"] > 0 and STATS["rejected"] > 0, STATS
    assert STATS["tried"] == STATS["loaded"] + STATS["rejected"]
    # the figures docs/hardening.md tabulates, shown with `pytest -s`
    print("\nriftchart loader fuzz figures (tried / loaded / rejected):")
    for test in (*FUZZ_TESTS, None):
        prefix = f"{test}:" if test else ""
        counts = " / ".join(str(STATS[prefix + key]) for key in ("tried", "loaded", "rejected"))
        print(f"  {test or 'all'}: {counts}")
