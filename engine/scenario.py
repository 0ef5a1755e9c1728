"""Load and validate scenario files (``docs/scenario-format.md``, version 1).

:func:`load_scenario` reads a YAML file (or takes a dict already parsed) and returns a
:class:`Scenario`: frozen dataclasses with every default filled in. Anything that is not a valid
scenario raises :class:`~engine.errors.ScenarioError`, and nothing else: the error names the file,
the field as a dotted path (``units[2].might``, ``steps[3].move.to``; list indexes count from 0)
and, for YAML input, the line.

YAML is parsed with a subclass of ``yaml.SafeLoader`` that builds nothing but mappings, lists,
strings, numbers, booleans and nulls, and that refuses duplicate keys and any tag that would
construct another kind of object. Anchors, aliases and merge keys (``<<: *card``) work as YAML
says, within the limits below.

Limits, so that a hostile file costs little to refuse:

- ``MAX_FILE_BYTES``: a file (or text) of at most 1 MiB;
- ``MAX_DEPTH``: mappings and lists nested at most 50 deep (checked while the YAML is composed,
  before anything deeper is built, and without recursion for dict input);
- ``MAX_NODES``: at most 1,000,000 values, in a dict given directly or in a YAML file once its
  aliases are expanded (which rules out "billion laughs" expansion);
- ``MAX_STEPS``: at most 10,000 steps;
- ``MAX_INT``: every count (might, damage, scores, deck, victory_score, effect amounts, assigned
  damage) is an integer (not a boolean) from 0 to 1,000,000; victory_score from 1;
- ``MAX_DEPTH`` holds for what aliases build too (an alias inside its own anchor is refused
  by it).

An optional setup key given as ``null`` takes its default (a battlefield's ``controller: null``
means nobody, a play step's ``to: null`` means no destination, a unit card's ``effect: null`` and
a spell's ``unit: null`` mean the key is not given; D33). A name given is a string with more
than spaces, and an id is not empty or only spaces (D15).
"""

from __future__ import annotations

import copy
import dataclasses
import os
import re
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, NoReturn, TypeVar

import yaml

from engine.errors import ScenarioError
from engine.state import PHASES, PROFILES

T = TypeVar("T")

MAX_FILE_BYTES = 1024 * 1024
MAX_DEPTH = 50
MAX_NODES = 1_000_000
MAX_STEPS = 10_000
MAX_INT = 1_000_000

RESERVED_IDS = ("base", "hand", "trash")
KEYWORDS = ("tank", "backline", "ganking")
EVENTS = ("move", "attack", "defend", "conquer", "hold", "die", "play", "beginning")
SELECTORS = ("self", "enemies_here")
CARD_TYPES = ("spell", "unit")
TIMINGS = ("none", "action", "reaction")
TARGETED_EFFECTS = ("stun", "kill", "recall", "return_to_hand", "take_control")
AMOUNT_EFFECTS = ("damage", "gain_points", "draw")
EFFECTS = ("move", *TARGETED_EFFECTS, "damage", "play_unit", "gain_points", "draw", "sequence")
STEP_KINDS = (
    "move", "play", "pass", "add", "choose", "assign", "end_turn", "expect", "expect_error",
)
PLAYER_STEPS = ("pass", "add", "end_turn")
GAME_STATES = ("neutral-open", "neutral-closed", "showdown-open", "showdown-closed")
SHOWDOWN_KINDS = ("non-combat", "combat")
STAGED_KINDS = ("showdown", "combat")
DESIGNATIONS = ("attacker", "defender")
CHOICE_KINDS = ("battlefield", "damage")
EXPECT_KEYS = (
    "state", "showdown", "focus", "priority", "chain", "control", "contested", "staged",
    "score", "scored_this_turn", "units", "hand", "pending_choice", "winner", "turn",
)
UNIT_STATE_KEYS = ("at", "controller", "exhausted", "stunned", "damage", "designation", "might")

DEFAULT_VICTORY_SCORE = 8
DEFAULT_TEAM_VICTORY_SCORE = 11
DEFAULT_DECK = 20

DICT_LABEL = "<scenario>"


# --------------------------------------------------------------------------------------------
# The data model


@dataclass(frozen=True)
class TriggerSpec:
    """A triggered ability: ``effect`` is the validated effect as a plain dict tree."""

    when: str
    effect: Mapping[str, Any]
    targets: str | tuple[str, ...] | None


@dataclass(frozen=True)
class UnitSpec:
    """A unit on the board in the setup."""

    id: str
    name: str | None
    controller: str
    might: int
    at: str
    exhausted: bool
    stunned: bool
    damage: int
    keywords: tuple[str, ...]
    triggers: tuple[TriggerSpec, ...]


@dataclass(frozen=True)
class UnitTemplate:
    """What a unit card puts on the board."""

    might: int
    keywords: tuple[str, ...]
    triggers: tuple[TriggerSpec, ...]


@dataclass(frozen=True)
class CardSpec:
    """A card in hand: a spell (with ``effect``) or a unit card (with ``unit``)."""

    id: str
    name: str | None
    type: str
    timing: str
    effect: Mapping[str, Any] | None
    unit: UnitTemplate | None


@dataclass(frozen=True)
class BattlefieldSpec:
    """A battlefield in the setup."""

    id: str
    name: str | None
    controller: str | None
    scored_this_turn: tuple[str, ...]
    abilities: tuple[TriggerSpec, ...]


@dataclass(frozen=True)
class Step:
    """One step of the scenario; ``index`` is its 1-based position in ``steps``.

    ``args`` by kind: move -> ``{"player", "units": tuple, "to"}``; play -> ``{"player", "card",
    "targets": tuple, "to": str | None}``; pass/add/end_turn -> the player id; choose ->
    ``{"player", "battlefield"}``; assign -> ``{"player", "damage": {unit: int}}``; expect -> the
    expected state as plain dicts and lists; expect_error -> the nested :class:`Step` (same index).
    """

    kind: str
    args: Any
    line: int | None
    index: int

    def as_mapping(self) -> dict[str, Any]:
        """The step as a plain ``{kind: payload}`` dict in the file's shape (JSON-friendly)."""
        args = self.args
        payload: Any
        if self.kind in PLAYER_STEPS:
            payload = args
        elif self.kind == "move":
            payload = {"player": args["player"], "units": list(args["units"]), "to": args["to"]}
        elif self.kind == "play":
            payload = {"player": args["player"], "card": args["card"]}
            if args["targets"]:
                payload["targets"] = list(args["targets"])
            if args["to"] is not None:
                payload["to"] = args["to"]
        elif self.kind == "choose":
            payload = {"player": args["player"], "battlefield": args["battlefield"]}
        elif self.kind == "assign":
            payload = {"player": args["player"], "damage": dict(args["damage"])}
        elif self.kind == "expect_error":
            payload = args.as_mapping()
        else:
            payload = copy.deepcopy(args)
        return {self.kind: payload}


@dataclass(frozen=True)
class Scenario:
    """A validated scenario with every default filled in.

    ``scores``, ``deck`` and ``hands`` list every player, in turn order.
    """

    path: str
    name: str
    rules: str
    players: tuple[str, ...]
    teams: tuple[tuple[str, ...], ...] | None
    turn_player: str
    victory_score: int
    manual_damage: bool
    scores: dict[str, int]
    deck: dict[str, int]
    battlefields: tuple[BattlefieldSpec, ...]
    units: tuple[UnitSpec, ...]
    hands: dict[str, tuple[CardSpec, ...]]
    steps: tuple[Step, ...]

    def with_rules(self, profile: str) -> Scenario:
        """A copy of this scenario under another rules profile (``seed`` or ``cr-1.4``)."""
        if profile not in PROFILES:
            raise ValueError(f"unknown rules profile {profile!r}; expected one of {PROFILES}")
        return dataclasses.replace(self, rules=profile)


# --------------------------------------------------------------------------------------------
# Public entry points


def load_scenario(source: str | os.PathLike | Mapping, *, label: str | None = None) -> Scenario:
    """Load a scenario from a file path, or validate one given as a dict.

    ``label`` is how errors and :attr:`Scenario.path` name the source (default: the path as
    given, or ``<scenario>`` for a dict). Raises :class:`ScenarioError` for anything invalid.
    """
    if isinstance(source, (str, os.PathLike)):
        path = os.fsdecode(source)
        name = path if label is None else label
        return load_scenario_text(_read_file(path, name), name)
    name = DICT_LABEL if label is None else label
    _check_shape(source, name)
    return _Checker(name).scenario(source)


def load_scenario_text(text: str, label: str) -> Scenario:
    """Parse and validate YAML (or JSON) ``text``; errors name the source ``label``."""
    if not isinstance(text, str):
        raise ScenarioError(label, "<file>", "a scenario text must be a str")
    if len(text) > MAX_FILE_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_FILE_BYTES:
        raise ScenarioError(label, "<file>", f"larger than {MAX_FILE_BYTES} bytes")
    data = _parse_yaml(text, label)
    return _Checker(label).scenario(data)


def _read_file(path: str, label: str) -> str:
    try:
        with open(path, "rb") as stream:
            raw = stream.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        raise ScenarioError(label, "<file>", f"cannot read: {error.strerror or error}") from None
    if len(raw) > MAX_FILE_BYTES:
        raise ScenarioError(label, "<file>", f"larger than {MAX_FILE_BYTES} bytes")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise ScenarioError(label, "<file>", "not valid UTF-8", line) from None


# --------------------------------------------------------------------------------------------
# YAML: a safe loader that keeps lines


class _Map(dict):
    """A mapping read from YAML, with its line and the line of each key."""

    __slots__ = ("line", "key_lines")

    def __init__(self, line: int) -> None:
        super().__init__()
        self.line = line
        self.key_lines: dict[Any, int] = {}


class _List(list):
    """A list read from YAML, with its line and the line of each item."""

    __slots__ = ("line", "item_lines")

    def __init__(self, line: int) -> None:
        super().__init__()
        self.line = line
        self.item_lines: list[int] = []


_TAG = "tag:yaml.org,2002:"
_MAP_TAG = _TAG + "map"
_MERGE_TAG = _TAG + "merge"
_SEQ_TAG = _TAG + "seq"
_SCALAR_TAGS = frozenset(
    _TAG + name for name in ("str", "int", "float", "bool", "null", "timestamp"))


def _line(mark: Any) -> int | None:
    return None if mark is None else mark.line + 1


class _ScenarioLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses deep nesting, too many values, duplicate keys and object
    tags.

    It builds :class:`_Map` and :class:`_List` containers that remember their lines. Only the
    plain YAML types are built: mappings, sequences, strings, ints, floats, booleans, nulls and
    timestamps (which the validator then refuses, as it wants strings or integers).
    """

    def __init__(self, stream: str, label: str) -> None:
        super().__init__(stream)
        self.label = label
        self.depth = 0
        self.built = 0  # values built, aliases counted as many times as they are used

    def fail(self, field: str, message: str, line: int | None) -> NoReturn:
        raise ScenarioError(self.label, field or "<root>", message, line)

    def compose_node(self, parent: Any, index: Any) -> Any:
        if not self.check_event(yaml.events.CollectionStartEvent):
            return super().compose_node(parent, index)
        if self.depth >= MAX_DEPTH:
            self.fail("<yaml>", f"mappings and lists nested deeper than {MAX_DEPTH} levels",
                      _line(self.peek_event().start_mark))
        self.depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def construct_document(self, node: yaml.Node) -> Any:
        return self.build(node, "", 0)

    def build(self, node: yaml.Node, path: str, depth: int) -> Any:
        """Build ``node``: at most ``MAX_DEPTH`` deep (so the recursion is bounded, aliases
        included) and ``MAX_NODES`` values in all."""
        line = _line(node.start_mark)
        self.built += 1
        if self.built > MAX_NODES:
            self.fail(path, f"more than {MAX_NODES} values (aliases counted each time they are "
                      "used)", line)
        if isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and depth >= MAX_DEPTH:
            self.fail(path, f"mappings and lists nested deeper than {MAX_DEPTH} levels", line)
        if isinstance(node, yaml.MappingNode):
            return self.build_mapping(node, path, depth)
        if isinstance(node, yaml.SequenceNode):
            self.check_tag(node, _SEQ_TAG, path)
            items = _List(line)
            for index, item_node in enumerate(node.value):
                items.item_lines.append(_line(item_node.start_mark))
                items.append(self.build(item_node, f"{path}[{index}]", depth + 1))
            return items
        if node.tag not in _SCALAR_TAGS:
            self.check_tag(node, "", path)
        try:
            value = self.yaml_constructors[node.tag](self, node)
        except Exception:  # e.g. `!!int ''` or `!!bool x` break PyYAML's builders
            kind = node.tag.removeprefix(_TAG)
            self.fail(path, f"unreadable {kind} {_shown(node.value)}", line)
        if isinstance(value, str) and _SURROGATE.search(value):
            value = self.join_surrogates(value, path, line)
        return value

    def build_mapping(self, node: yaml.MappingNode, path: str, depth: int) -> _Map:
        """A mapping; its merge keys (``<<: *anchor`` or ``<<: [*a, *b]``) add the keys of the
        mappings they name that it does not give itself, the first named first (YAML 1.1's
        merge key). A key given twice in the mapping itself is an error."""
        self.check_tag(node, _MAP_TAG, path)
        mapping = _Map(_line(node.start_mark))
        merged: list[yaml.Node] = []
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                self.fail(path, "a mapping key must be a plain value", _line(key_node.start_mark))
            if key_node.tag == _MERGE_TAG:
                sources = value_node.value if isinstance(value_node, yaml.SequenceNode) else [
                    value_node]
                merged += sources
                continue
            key = self.build(key_node, path, depth + 1)
            key_path = _join(path, key)
            key_line = _line(key_node.start_mark)
            if key in mapping:
                self.fail(key_path, f"duplicate key {_shown(key)}", key_line)
            mapping.key_lines[key] = key_line
            mapping[key] = self.build(value_node, key_path, depth + 1)
        for source in merged:
            if not isinstance(source, yaml.MappingNode):
                self.fail(path, "a merge key (<<) names mappings only", _line(source.start_mark))
            given = self.build_mapping(source, path, depth)
            for key, value in given.items():
                if key not in mapping:
                    mapping.key_lines[key] = given.key_lines[key]
                    mapping[key] = value
        return mapping

    def join_surrogates(self, value: str, path: str, line: int | None) -> str:
        """JSON writes a character outside the Basic Multilingual Plane as two escapes
        (``"\\ud83d\\ude00"``); PyYAML keeps them as two halves: join each pair into its
        character. A half without its other half is no character at all."""
        try:
            return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
        except UnicodeDecodeError:
            self.fail(path, "an unpaired surrogate escape (\\ud800-\\udfff) is not a character",
                      line)

    def check_tag(self, node: yaml.Node, wanted: str, path: str) -> None:
        if node.tag != wanted:
            self.fail(path, f"YAML tag {_shown(node.tag)} is not allowed", _line(node.start_mark))


def _describe_yaml_error(error: BaseException) -> str:
    if isinstance(error, yaml.MarkedYAMLError):
        parts = [error.context, error.problem]
        return "; ".join(part for part in parts if part) or type(error).__name__
    return str(error) or type(error).__name__


_SURROGATE = re.compile("[\ud800-\udfff]")


def _json_whitespace(text: str) -> str:
    """JSON may indent with tabs, which YAML refuses where a token starts: in a document that
    opens as JSON does, a tab outside a string (where JSON allows only whitespace) becomes a
    space. Lines and strings are left as they are. Used only for a text that YAML refuses at
    a tab, so that YAML's own strings (a single-quoted one may hold a tab) stay as written."""
    if "\t" not in text or text.lstrip()[:1] not in ("{", "["):
        return text
    out, in_string, escaped = [], False, False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == "\t":
            char = " "
        out.append(char)
    return "".join(out)


def _parse_yaml(text: str, label: str) -> Any:
    loader = None
    try:
        loader = _ScenarioLoader(text, label)
        return loader.get_single_data()
    except ScenarioError:
        raise
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        at_tab = mark is not None and text[mark.index:mark.index + 1] == "\t"
        relaxed = _json_whitespace(text) if at_tab else text
        if relaxed != text:  # JSON indented with tabs
            return _parse_yaml(relaxed, label)
        raise ScenarioError(label, "<yaml>", _describe_yaml_error(error), _line(mark)) from None
    except yaml.reader.ReaderError as error:
        line = text[: error.position].count("\n") + 1
        character = error.character
        code = ord(character) if isinstance(character, str) else character
        message = f"character #x{code:04x} is not allowed in YAML"
        raise ScenarioError(label, "<yaml>", message, line) from None
    except yaml.YAMLError as error:
        raise ScenarioError(label, "<yaml>", _describe_yaml_error(error)) from None
    except RecursionError:  # not expected: the depth is checked while composing
        raise ScenarioError(label, "<yaml>", "nested too deeply") from None
    finally:
        if loader is not None:
            loader.dispose()


def _check_shape(data: Any, label: str) -> None:
    """Refuse dict input nested deeper than MAX_DEPTH or larger than MAX_NODES, iteratively
    (so cycles and shared sub-trees cost at most MAX_NODES visits)."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    seen = 1
    while stack:
        value, depth = stack.pop()
        if isinstance(value, Mapping):
            children: Collection[Any] = value.values()
        elif isinstance(value, (list, tuple)):
            children = value
        else:
            continue
        if depth > MAX_DEPTH:
            raise ScenarioError(
                label, "<root>", f"mappings and lists nested deeper than {MAX_DEPTH} levels")
        seen += len(children)
        if seen > MAX_NODES:
            raise ScenarioError(label, "<root>", f"more than {MAX_NODES} values")
        stack.extend((child, depth + 1) for child in children)


# --------------------------------------------------------------------------------------------
# Validation


#: Longer names and keys are cut short in messages and fields: a message stays readable.
SHOWN_CHARS = 40


def _short(text: str) -> str:
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "..."


def _shown(value: Any) -> str:
    """``value`` as a message quotes it: ``repr``, a long string cut short (``'abc...'``)."""
    if isinstance(value, str):
        return repr(_short(value))
    return _short(repr(value))


def _join(path: str, key: Any) -> str:
    name = _short(key if isinstance(key, str) else repr(key))
    return f"{path}.{name}" if path else name


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, (list, tuple)):
        return "a list"
    return f"a {type(value).__name__}"


def _plain(value: Any) -> Any:
    """A deep copy of a validated value with plain dicts and lists."""
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def _options(options: Iterable[str]) -> str:
    return ", ".join(_short(option) for option in options)


@dataclass(frozen=True, slots=True)
class _At:
    """Where a value is: its dotted path and its line (the nearest known)."""

    path: str
    line: int | None

    def key(self, parent: Any, key: Any) -> _At:
        lines = getattr(parent, "key_lines", None)
        line = lines.get(key, self.line) if lines else self.line
        return _At(_join(self.path, key), line)

    def item(self, parent: Any, index: int) -> _At:
        lines = getattr(parent, "item_lines", None)
        line = lines[index] if lines is not None and index < len(lines) else self.line
        return _At(f"{self.path}[{index}]", line)


class _Checker:
    """Validates one scenario and builds its :class:`Scenario`.

    The setup is read in a fixed order (players, battlefields, units, hands); checks that a name
    refers to a known unit or battlefield are deferred to the end of the setup, since effects may
    name units that a later card or ``play_unit`` creates. Steps are checked against all ids.
    """

    def __init__(self, label: str) -> None:
        self.label = label
        self.ids: dict[str, str] = {}  # every id -> the field that defined it
        self.players: tuple[str, ...] = ()
        self.teams: tuple[tuple[str, ...], ...] | None = None
        self.battlefields: set[str] = set()
        self.units: set[str] = set()  # ids that can be a unit: setup units, unit cards, play_unit
        self.cards: set[str] = set()
        self.deferred: list[Callable[[], None]] | None = []

    # ---- basics --------------------------------------------------------------------------

    def fail(self, at: _At, message: str) -> NoReturn:
        raise ScenarioError(self.label, at.path or "<root>", message, at.line)

    def mapping(self, value: Any, at: _At) -> Mapping:
        if not isinstance(value, Mapping):
            self.fail(at, f"expected a mapping, got {_kind(value)}")
        return value

    def sequence(self, value: Any, at: _At) -> list | tuple:
        if not isinstance(value, (list, tuple)):
            self.fail(at, f"expected a list, got {_kind(value)}")
        return value

    def keys(self, mapping: Mapping, at: _At, required: Iterable[str] = (),
             optional: Iterable[str] = ()) -> None:
        """Refuse unknown keys, then missing required keys."""
        required = tuple(required)
        allowed = (*required, *optional)
        for key in mapping:
            if key not in allowed:
                self.fail(at.key(mapping, key),
                          f"unknown key {_shown(key)}; expected one of: {_options(allowed)}")
        for key in required:
            if key not in mapping:
                self.fail(at.key(mapping, key), "required key missing")

    def one_key(self, value: Any, at: _At, what: str, options: tuple[str, ...]
                ) -> tuple[Mapping, Any, Any, _At]:
        """A mapping with exactly one key, as an effect and a step are: the mapping, its key,
        that key's value and where it is. ``what`` and ``options`` only word the error; the
        caller checks the key."""
        entry = self.mapping(value, at)
        if len(entry) != 1:
            self.fail(at, f"{what} has exactly one key (one of: {_options(options)}), "
                          f"got {len(entry)}")
        ((key, item),) = entry.items()
        return entry, key, item, at.key(entry, key)

    def field(self, mapping: Mapping, key: str, at: _At) -> tuple[Any, _At]:
        return mapping.get(key), at.key(mapping, key)

    def string(self, value: Any, at: _At) -> str:
        if not isinstance(value, str):
            self.fail(at, f"expected a string, got {_kind(value)}")
        return value

    def optional_name(self, mapping: Mapping, at: _At) -> str | None:
        """A display name: absent or null for none, else a string with more than spaces (D15:
        an empty name is refused, as the scenario's is)."""
        value, where = self.field(mapping, "name", at)
        return None if value is None else self.name(value, where)

    def name(self, value: Any, at: _At) -> str:
        text = self.string(value, at)
        if not text.strip():
            self.fail(at, "the name must not be empty")
        return text

    def boolean(self, value: Any, at: _At) -> bool:
        if not isinstance(value, bool):
            self.fail(at, f"expected true or false, got {_kind(value)}")
        return value

    def integer(self, value: Any, at: _At, low: int = 0, high: int = MAX_INT) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(at, f"expected an integer, got {_kind(value)}")
        if not low <= value <= high:
            self.fail(at, f"must be from {low} to {high}")
        return value

    def choice(self, value: Any, at: _At, options: tuple[str, ...]) -> str:
        if not isinstance(value, str) or value not in options:
            shown = _shown(value) if isinstance(value, str) else _kind(value)
            self.fail(at, f"expected one of: {_options(options)}; got {shown}")
        return value

    def each(self, value: Any, at: _At, check: Callable[[Any, _At], T]) -> tuple[T, ...]:
        """A list whose every item passes ``check`` (at its own place in the file)."""
        items = self.sequence(value, at)
        return tuple(check(item, at.item(items, index)) for index, item in enumerate(items))

    def distinct(self, items: list | tuple, at: _At, check: Callable[[Any, _At], str]
                 ) -> tuple[str, ...]:
        """A list of values passing ``check``, each at most once."""
        result: list[str] = []
        for index, item in enumerate(items):
            where = at.item(items, index)
            value = check(item, where)
            if value in result:
                self.fail(where, f"{_shown(value)} is listed twice")
            result.append(value)
        return tuple(result)

    # ---- ids -----------------------------------------------------------------------------

    def id_text(self, value: Any, at: _At) -> str:
        if not isinstance(value, str):
            self.fail(at, f"an id must be a string, got {_kind(value)} (quote it)")
        if not value.strip():
            self.fail(at, "an id must not be empty or only spaces" if value else
                      "an id must not be empty")
        if value in RESERVED_IDS:
            self.fail(at, f"{_shown(value)} is reserved and cannot be an id")
        if ":" in value:
            self.fail(at, f"an id must not contain ':' ({_shown(value)})")
        return value

    def new_id(self, value: Any, at: _At) -> str:
        ident = self.id_text(value, at)
        if ident in self.ids:
            self.fail(at, f"duplicate id {_shown(ident)} (already used at {self.ids[ident]})")
        self.ids[ident] = at.path
        return ident

    def check_ref(self, ident: str, at: _At, known: Callable[[str], bool], what: str) -> None:
        def check() -> None:
            if not known(ident):
                self.fail(at, f"unknown {what} {_shown(ident)}")

        if self.deferred is None:
            check()
        else:
            self.deferred.append(check)

    def player(self, value: Any, at: _At) -> str:
        ident = self.id_text(value, at)
        if ident not in self.players:
            self.fail(at, f"unknown player {_shown(ident)}; players are: {_options(self.players)}")
        return ident

    def player_or_null(self, value: Any, at: _At) -> str | None:
        return None if value is None else self.player(value, at)

    def battlefield(self, value: Any, at: _At) -> str:
        ident = self.id_text(value, at)
        self.check_ref(ident, at, self.battlefields.__contains__, "battlefield")
        return ident

    def destination(self, value: Any, at: _At) -> str:
        """A battlefield id or ``base``."""
        if value == "base":
            return "base"
        return self.battlefield(value, at)

    def unit(self, value: Any, at: _At) -> str:
        ident = self.id_text(value, at)
        self.check_ref(ident, at, self.units.__contains__, "unit")
        return ident

    def unit_refs(self, value: Any, at: _At) -> tuple[str, ...]:
        """Units a step names: each a known unit; whether the list is empty or names one twice
        is for the rules to judge (the step is refused), not a fault of the file."""
        return self.each(value, at, self.unit)

    def units_list(self, value: Any, at: _At, *, allow_empty: bool = False) -> tuple[str, ...]:
        items = self.sequence(value, at)
        if not items and not allow_empty:
            self.fail(at, "expected at least one unit")
        return self.distinct(items, at, self.unit)

    # ---- setup ---------------------------------------------------------------------------

    def scenario(self, data: Any) -> Scenario:
        """Validate the whole scenario ``data`` and build it."""
        root = _At("", getattr(data, "line", None))
        top = self.mapping(data, root)
        self.keys(top, root, required=("name", "players", "battlefields"), optional=(
            "rules", "teams", "turn_player", "victory_score", "manual_damage", "scores", "deck",
            "units", "hands", "steps"))
        name = self.name(*self.field(top, "name", root))
        rules = self.optional(top, "rules", root, "seed",
                              lambda value, at: self.choice(value, at, PROFILES))
        self.players = self.read_players(*self.field(top, "players", root))
        self.teams = self.optional(top, "teams", root, None, self.read_teams)
        turn_player = self.optional(top, "turn_player", root, self.players[0], self.player)
        default_victory = DEFAULT_TEAM_VICTORY_SCORE if self.teams else DEFAULT_VICTORY_SCORE
        victory_score = self.optional(top, "victory_score", root, default_victory,
                                      lambda value, at: self.integer(value, at, low=1))
        manual_damage = self.optional(top, "manual_damage", root, False, self.boolean)
        scores = self.per_player(top, "scores", root, 0)
        deck = self.per_player(top, "deck", root, DEFAULT_DECK)
        battlefields = self.read_battlefields(*self.field(top, "battlefields", root))
        units = self.optional(top, "units", root, (), self.read_units)
        hands = self.optional(top, "hands", root, {}, self.read_hands)

        deferred, self.deferred = self.deferred or [], None
        for check in deferred:
            check()
        if units:
            self.check_occupancy(top, root, units)
            self.check_teammate_battlefields(top, root, units, battlefields)

        steps = self.optional(top, "steps", root, (), self.read_steps)
        return Scenario(
            path=self.label, name=name, rules=rules, players=self.players, teams=self.teams,
            turn_player=turn_player, victory_score=victory_score, manual_damage=manual_damage,
            scores=scores, deck=deck, battlefields=battlefields, units=units,
            hands={player: hands.get(player, ()) for player in self.players}, steps=steps)

    def optional(self, mapping: Mapping, key: str, at: _At, default: Any,
                 read: Callable[[Any, _At], Any]) -> Any:
        """``read`` the value of an optional key, or ``default`` when absent or null."""
        value, where = self.field(mapping, key, at)
        return default if value is None else read(value, where)

    def read_players(self, value: Any, at: _At) -> tuple[str, ...]:
        items = self.sequence(value, at)
        if not 2 <= len(items) <= 4:
            self.fail(at, f"expected 2 to 4 players, got {len(items)}")
        return tuple(self.new_id(item, at.item(items, index)) for index, item in enumerate(items))

    def read_teams(self, value: Any, at: _At) -> tuple[tuple[str, ...], ...]:
        teams = self.sequence(value, at)
        if len(self.players) != 4:
            self.fail(at, "teams need exactly four players")
        if len(teams) != 2:
            self.fail(at, f"expected two teams, got {len(teams)}")
        result = []
        for index, team in enumerate(teams):
            where = at.item(teams, index)
            members = self.sequence(team, where)
            if len(members) != 2:
                self.fail(where, f"a team has two players, got {len(members)}")
            result.append(self.distinct(members, where, self.player))
        wanted = {frozenset(self.players[0::2]), frozenset(self.players[1::2])}
        if {frozenset(team) for team in result} != wanted:
            first, second = self.players[0::2], self.players[1::2]
            self.fail(at, "teams must alternate in turn order: "
                          f"[[{_options(first)}], [{_options(second)}]]")
        return tuple(result)

    def per_player(self, mapping: Mapping, key: str, at: _At, default: int) -> dict[str, int]:
        value, where = self.field(mapping, key, at)
        result = dict.fromkeys(self.players, default)
        if value is None:
            return result
        given = self.mapping(value, where)
        for player, amount in given.items():
            self.player(player, where.key(given, player))
            result[player] = self.integer(amount, where.key(given, player))
        return result

    def read_battlefields(self, value: Any, at: _At) -> tuple[BattlefieldSpec, ...]:
        items = self.sequence(value, at)
        if not 1 <= len(items) <= 4:
            self.fail(at, f"expected 1 to 4 battlefields, got {len(items)}")
        for index, item in enumerate(items):  # register every id first: abilities may name them
            where = at.item(items, index)
            entry = self.mapping(item, where)
            self.keys(entry, where, required=("id",),
                      optional=("name", "controller", "scored_this_turn", "abilities"))
            self.battlefields.add(self.new_id(*self.field(entry, "id", where)))
        result = []
        for index, entry in enumerate(items):
            where = at.item(items, index)
            scored = self.optional(entry, "scored_this_turn", where, (), self.player_list)
            result.append(BattlefieldSpec(
                id=entry["id"], name=self.optional_name(entry, where),
                controller=self.player_or_null(*self.field(entry, "controller", where)),
                scored_this_turn=scored,
                abilities=self.optional(entry, "abilities", where, (), self.read_triggers)))
        return tuple(result)

    def read_units(self, value: Any, at: _At) -> tuple[UnitSpec, ...]:
        items = self.sequence(value, at)
        result = []
        for index, item in enumerate(items):
            where = at.item(items, index)
            entry = self.mapping(item, where)
            self.keys(entry, where, required=("id", "controller", "might", "at"), optional=(
                "name", "exhausted", "stunned", "damage", "keywords", "triggers"))
            ident = self.new_id(*self.field(entry, "id", where))
            self.units.add(ident)
            result.append(UnitSpec(
                id=ident, name=self.optional_name(entry, where),
                controller=self.player(*self.field(entry, "controller", where)),
                might=self.integer(*self.field(entry, "might", where)),
                at=self.destination(*self.field(entry, "at", where)),
                exhausted=self.optional(entry, "exhausted", where, False, self.boolean),
                stunned=self.optional(entry, "stunned", where, False, self.boolean),
                damage=self.optional(entry, "damage", where, 0, self.integer),
                keywords=self.optional(entry, "keywords", where, (), self.read_keywords),
                triggers=self.optional(entry, "triggers", where, (), self.read_triggers)))
        return tuple(result)

    def check_occupancy(self, top: Mapping, root: _At, units: tuple[UnitSpec, ...]) -> None:
        """Refuse units of two players (opponents or teammates) at one battlefield."""
        items = top["units"]
        where = root.key(top, "units")
        present: dict[str, list[str]] = {}
        first_conflict: dict[str, int] = {}
        for index, unit in enumerate(units):
            if unit.at == "base":
                continue
            controllers = present.setdefault(unit.at, [])
            if unit.controller not in controllers:
                controllers.append(unit.controller)
                if len(controllers) == 2:
                    first_conflict[unit.at] = index
        for battlefield, index in first_conflict.items():
            at = where.item(items, index).key(items[index], "at")
            controllers = present[battlefield]
            if len(controllers) >= 3:
                self.fail(at, f"units of three players at {_shown(battlefield)}")
            if self.teams and any(set(controllers) <= set(team) for team in self.teams):
                self.fail(at, f"teammates' units at {_shown(battlefield)}: "
                              f"{_shown(controllers[0])} and {_shown(controllers[1])}")
            self.fail(at, f"units of two opposing players at {_shown(battlefield)}: "
                          f"{_shown(controllers[0])} and {_shown(controllers[1])}")

    def check_teammate_battlefields(self, top: Mapping, root: _At, units: tuple[UnitSpec, ...],
                                    battlefields: tuple[BattlefieldSpec, ...]) -> None:
        """Refuse a unit at a battlefield its controller's teammate controls: no game reaches
        it, as a teammate's battlefield is never a destination (rules.md 8, D36)."""
        if not self.teams:
            return
        holder = {b.id: b.controller for b in battlefields}
        items = top["units"]
        where = root.key(top, "units")
        for index, unit in enumerate(units):
            owner = holder.get(unit.at)
            if owner is None or owner == unit.controller:
                continue
            if any({owner, unit.controller} <= set(team) for team in self.teams):
                at = where.item(items, index).key(items[index], "at")
                self.fail(at, f"{_shown(unit.id)} of {_shown(unit.controller)} at "
                              f"{_shown(unit.at)}, which teammate {_shown(owner)} controls")

    def read_keywords(self, value: Any, at: _At) -> tuple[str, ...]:
        return self.distinct(self.sequence(value, at), at,
                             lambda item, where: self.choice(item, where, KEYWORDS))

    def read_hands(self, value: Any, at: _At) -> dict[str, tuple[CardSpec, ...]]:
        hands = self.mapping(value, at)
        result = {}
        for player, cards in hands.items():
            where = at.key(hands, player)
            self.player(player, where)
            items = self.sequence(cards, where)
            result[player] = tuple(self.read_card(card, where.item(items, index))
                                   for index, card in enumerate(items))
        return result

    def read_card(self, value: Any, at: _At) -> CardSpec:
        entry = self.mapping(value, at)
        self.keys(entry, at, required=("id", "type"), optional=("name", "timing", "effect", "unit"))
        ident = self.new_id(*self.field(entry, "id", at))
        self.cards.add(ident)
        card_type = self.choice(*self.field(entry, "type", at), CARD_TYPES)
        timing = self.optional(entry, "timing", at, "none",
                               lambda value, where: self.choice(value, where, TIMINGS))
        effect = template = None
        # a key the card's type does not use may be given as null, as any optional key (D33)
        if card_type == "spell":
            if entry.get("unit") is not None:
                self.fail(at.key(entry, "unit"), "only a unit card has 'unit'")
            if entry.get("effect") is None:
                self.fail(at.key(entry, "effect"), "a spell needs an effect")
            effect = self.effect(*self.field(entry, "effect", at))
        else:
            if entry.get("effect") is not None:
                self.fail(at.key(entry, "effect"), "only a spell has 'effect' (use unit.triggers)")
            if entry.get("unit") is None:
                self.fail(at.key(entry, "unit"), "a unit card needs 'unit: {might: N}'")
            self.units.add(ident)
            template = self.read_template(*self.field(entry, "unit", at))
        return CardSpec(id=ident, name=self.optional_name(entry, at), type=card_type,
                        timing=timing, effect=effect, unit=template)

    def read_template(self, value: Any, at: _At) -> UnitTemplate:
        entry = self.mapping(value, at)
        self.keys(entry, at, required=("might",), optional=("keywords", "triggers"))
        return UnitTemplate(
            might=self.integer(*self.field(entry, "might", at)),
            keywords=self.optional(entry, "keywords", at, (), self.read_keywords),
            triggers=self.optional(entry, "triggers", at, (), self.read_triggers))

    # ---- triggers and effects ------------------------------------------------------------

    def read_triggers(self, value: Any, at: _At) -> tuple[TriggerSpec, ...]:
        return self.each(value, at, self.read_trigger)

    def read_trigger(self, value: Any, at: _At) -> TriggerSpec:
        entry = self.mapping(value, at)
        self.keys(entry, at, required=("when", "effect"), optional=("targets",))
        when = self.choice(*self.field(entry, "when", at), EVENTS)
        effect = self.effect(*self.field(entry, "effect", at))
        targets, where = self.field(entry, "targets", at)
        if targets is not None and not isinstance(targets, (list, tuple)):
            if not isinstance(targets, str) or targets not in SELECTORS:
                self.fail(where, f"expected {_options(SELECTORS)} or a list of unit ids")
        elif targets is not None:
            targets = self.units_list(targets, where, allow_empty=True)
        return TriggerSpec(when=when, effect=effect, targets=targets)

    def effect(self, value: Any, at: _At) -> dict[str, Any]:
        """Validate an effect; return it as a plain dict tree."""
        entry, kind, argument, where = self.one_key(value, at, "an effect", EFFECTS)
        if kind not in EFFECTS:
            self.fail(where, f"unknown effect {_shown(kind)}; expected one of: {_options(EFFECTS)}")
        if kind == "move":
            argument = self.mapping(argument, where)
            self.keys(argument, where, optional=("units", "to"))
            self.optional(argument, "units", where, (), self.units_list)
            self.optional(argument, "to", where, None, self.destination)
        elif kind in TARGETED_EFFECTS:
            argument = self.mapping(argument, where)
            self.keys(argument, where, optional=("units",))
            self.optional(argument, "units", where, (), self.units_list)
        elif kind in AMOUNT_EFFECTS:
            self.integer(argument, where)
        elif kind == "play_unit":
            argument = self.mapping(argument, where)
            self.keys(argument, where, required=("id", "might"),
                      optional=("name", "keywords", "triggers", "to"))
            self.units.add(self.new_id(*self.field(argument, "id", where)))
            self.optional_name(argument, where)
            self.integer(*self.field(argument, "might", where))
            self.optional(argument, "keywords", where, (), self.read_keywords)
            self.optional(argument, "triggers", where, (), self.read_triggers)
            self.optional(argument, "to", where, None, self.destination)
        else:  # sequence
            items = self.sequence(argument, where)
            for index, item in enumerate(items):
                self.effect(item, where.item(items, index))
        return _plain(entry)

    # ---- steps ---------------------------------------------------------------------------

    def read_steps(self, value: Any, at: _At) -> tuple[Step, ...]:
        items = self.sequence(value, at)
        if len(items) > MAX_STEPS:
            self.fail(at, f"more than {MAX_STEPS} steps ({len(items)})")
        return tuple(self.step(item, at.item(items, index), index + 1)
                     for index, item in enumerate(items))

    def step(self, value: Any, at: _At, index: int, nested: bool = False) -> Step:
        kinds = tuple(kind for kind in STEP_KINDS
                      if not nested or kind not in ("expect", "expect_error"))
        _, kind, payload, where = self.one_key(value, at, "a step", kinds)
        if kind not in kinds:
            problem = ("expect_error holds one action step" if kind in STEP_KINDS
                       else f"unknown step {_shown(kind)}")
            self.fail(where, f"{problem}; expected one of: {_options(kinds)}")
        args: Any
        if kind in PLAYER_STEPS:
            args = self.player(payload, where)
        elif kind == "move":
            move = self.mapping(payload, where)
            self.keys(move, where, required=("player", "units", "to"))
            args = {"player": self.player(*self.field(move, "player", where)),
                    "units": self.unit_refs(*self.field(move, "units", where)),
                    "to": self.destination(*self.field(move, "to", where))}
        elif kind == "play":
            play = self.mapping(payload, where)
            self.keys(play, where, required=("player", "card"), optional=("targets", "to"))
            card, card_at = self.field(play, "card", where)
            args = {"player": self.player(*self.field(play, "player", where)),
                    "card": self.card_ref(card, card_at),
                    "targets": self.optional(play, "targets", where, (), self.unit_refs),
                    "to": self.optional(play, "to", where, None, self.destination)}
        elif kind == "choose":
            choose = self.mapping(payload, where)
            self.keys(choose, where, required=("player", "battlefield"))
            args = {"player": self.player(*self.field(choose, "player", where)),
                    "battlefield": self.battlefield(*self.field(choose, "battlefield", where))}
        elif kind == "assign":
            assign = self.mapping(payload, where)
            self.keys(assign, where, required=("player", "damage"))
            args = {"player": self.player(*self.field(assign, "player", where)),
                    "damage": self.unit_amounts(*self.field(assign, "damage", where))}
        elif kind == "expect":
            args = self.expect(payload, where)
        else:  # expect_error
            args = self.step(payload, where, index, nested=True)
        return Step(kind=kind, args=args, line=at.line, index=index)

    def card_ref(self, value: Any, at: _At) -> str:
        """A card to play: a card in a hand, or a unit (units return to hands)."""
        ident = self.id_text(value, at)
        if ident not in self.cards and ident not in self.units:
            self.fail(at, f"unknown card {_shown(ident)}")
        return ident

    def unit_amounts(self, value: Any, at: _At) -> dict[str, int]:
        amounts = self.mapping(value, at)
        result = {}
        for unit, amount in amounts.items():
            where = at.key(amounts, unit)
            result[self.unit(unit, where)] = self.integer(amount, where)
        return result

    # ---- expect --------------------------------------------------------------------------

    def expect(self, value: Any, at: _At) -> dict[str, Any]:
        """Validate an expected (partial) state view; return it as plain dicts and lists."""
        entry = self.mapping(value, at)
        self.keys(entry, at, optional=EXPECT_KEYS)
        for key, item in entry.items():
            where = at.key(entry, key)
            if key == "state":
                self.choice(item, where, GAME_STATES)
            elif key == "showdown":
                if item is not None:
                    self.expect_showdown(item, where)
            elif key in ("focus", "priority", "winner"):
                self.player_or_null(item, where)
            elif key == "chain":
                chain = self.sequence(item, where)
                for index, link in enumerate(chain):
                    self.chain_item(link, where.item(chain, index))
            elif key in ("control", "contested"):
                self.keyed(item, where, self.battlefield, self.player_or_null)
            elif key == "staged":
                self.keyed(item, where, self.battlefield, self.expected_staged)
            elif key in ("score", "hand"):
                self.keyed(item, where, self.player, self.integer)
            elif key == "scored_this_turn":
                self.keyed(item, where, self.battlefield, self.expected_players)
            elif key == "units":
                self.keyed(item, where, self.unit, self.expect_unit)
            elif key == "pending_choice":
                if item is not None:
                    self.expect_choice(item, where)
            else:  # turn
                turn = self.mapping(item, where)
                self.keys(turn, where, optional=("player", "phase"))
                if "player" in turn:
                    self.player(*self.field(turn, "player", where))
                if "phase" in turn:
                    self.choice(*self.field(turn, "phase", where), PHASES)
        return _plain(entry)

    def keyed(self, value: Any, at: _At, check_key: Callable[[Any, _At], Any],
              check_value: Callable[[Any, _At], Any]) -> None:
        """A mapping whose keys pass ``check_key`` and values pass ``check_value``."""
        entry = self.mapping(value, at)
        for key, item in entry.items():
            where = at.key(entry, key)
            check_key(key, where)
            check_value(item, where)

    def player_list(self, value: Any, at: _At) -> tuple[str, ...]:
        return self.distinct(self.sequence(value, at), at, self.player)

    # An expected list may name a value twice: it is compared whole with the view, which never
    # repeats one, so such an expect fails (exit 1) rather than making the file invalid.
    def expected_players(self, value: Any, at: _At) -> tuple[str, ...]:
        return self.each(value, at, self.player)

    def expected_staged(self, value: Any, at: _At) -> tuple[str, ...]:
        return self.each(value, at, lambda item, where: self.choice(item, where, STAGED_KINDS))

    def expect_showdown(self, value: Any, at: _At) -> None:
        showdown = self.mapping(value, at)
        self.keys(showdown, at, optional=("at", "kind", "attacker", "defender"))
        if "at" in showdown:
            self.battlefield(*self.field(showdown, "at", at))
        if "kind" in showdown:
            self.choice(*self.field(showdown, "kind", at), SHOWDOWN_KINDS)
        for side in ("attacker", "defender"):
            if side in showdown:
                self.player_or_null(*self.field(showdown, side, at))

    def chain_item(self, value: Any, at: _At) -> None:
        """A card or unit id, ``SOURCE:EVENT`` or ``add:PLAYER``."""
        item = self.string(value, at)
        source, colon, rest = item.partition(":")
        if not colon:
            if item not in self.cards and item not in self.units:
                self.fail(at, f"unknown card {_shown(item)} on the chain")
        elif source == "add" and rest in self.players:
            pass
        elif source in self.units or source in self.battlefields or source in self.cards:
            if rest not in EVENTS:
                self.fail(at, f"unknown event {_shown(rest)}; expected one of: {_options(EVENTS)}")
        else:
            self.fail(at, f"expected CARD, SOURCE:EVENT or add:PLAYER with known ids, "
                          f"got {_shown(item)}")

    def expect_unit(self, value: Any, at: _At) -> None:
        unit = self.mapping(value, at)
        self.keys(unit, at, optional=UNIT_STATE_KEYS)
        for key, item in unit.items():
            where = at.key(unit, key)
            if key == "at":
                if item not in ("base", "hand", "trash"):
                    self.battlefield(item, where)
            elif key == "controller":
                self.player_or_null(item, where)
            elif key in ("exhausted", "stunned"):
                self.boolean(item, where)
            elif key in ("damage", "might"):
                self.integer(item, where)
            else:  # designation
                if item is not None:
                    self.choice(item, where, DESIGNATIONS)

    def expect_choice(self, value: Any, at: _At) -> None:
        choice = self.mapping(value, at)
        # total: the damage to assign, which the view shows beside the contract's keys
        self.keys(choice, at, optional=("player", "kind", "options", "total"))
        if "total" in choice:
            self.integer(*self.field(choice, "total", at))
        if "player" in choice:
            self.player(*self.field(choice, "player", at))
        kind = None
        if "kind" in choice:
            kind = self.choice(*self.field(choice, "kind", at), CHOICE_KINDS)
        if "options" in choice:
            options, where = self.field(choice, "options", at)

            def option(item: Any, at: _At) -> str:
                ident = self.id_text(item, at)
                fits_battlefield = kind != "damage" and ident in self.battlefields
                fits_unit = kind != "battlefield" and ident in self.units
                if not (fits_battlefield or fits_unit):
                    what = {"battlefield": "battlefield", "damage": "unit"}.get(
                        kind or "", "battlefield or unit")
                    self.fail(at, f"unknown {what} {_shown(ident)}")
                return ident

            self.each(options, where, option)  # a repeated option fails, as a list does
