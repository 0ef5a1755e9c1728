"""The checks every part of a scenario file is read with: the kinds of values, names, ids and
references to players, battlefields and units. Each fails with a
:class:`~engine.errors.ScenarioError` naming the field as a dotted path and its line."""

from __future__ import annotations

import datetime
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, NoReturn, TypeVar

from engine.errors import ScenarioError
from engine.scenario_model import (
    MAX_INT,
    RESERVED_IDS,
    cut_short,
    decimal_digits_readable,
    join_path,
    quoted,
)

T = TypeVar("T")

#: a number in exponent form that YAML 1.1 reads as a string: without a point, or without a
#: sign to its exponent (``1E1``, ``1e0``, ``2.5e3``; JSON reads each as a number)
_EXPONENT_FORM = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)[eE][-+]?\d+\Z")


def kind_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        # shown: YAML reads some numbers as strings ('1e0', '0x1g'), which "a string" hides
        if _EXPONENT_FORM.match(value):  # a number to JSON and to YAML 1.2, text to YAML 1.1
            return f"a string, {quoted(value)} (YAML 1.1 reads this exponent form as text)"
        return f"a string, {quoted(value)}"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, (list, tuple)):
        return "a list"
    return f"a {type(value).__name__}"


def plain(value: Any, drop_nulls: bool = False) -> Any:
    """A deep copy of a value with plain dicts, lists, strings and numbers; ``drop_nulls``
    leaves out the keys given as null, which are keys not given (D33).

    A subclass of str or int (a ``class Id(str, Enum)`` member, an ``IntEnum``) becomes the
    str or int it holds: it compares equal to that, so it would pass every check, but it
    formats as itself (``Id.A``), and riftchart makes names of ids (``battlefield:A``).
    """
    if isinstance(value, Mapping):
        return {plain(key): plain(item, drop_nulls) for key, item in value.items()
                if not (drop_nulls and item is None)}
    if isinstance(value, (list, tuple)):
        return [plain(item, drop_nulls) for item in value]
    kind = type(value)
    if kind is str or kind is int or kind is bool or kind is float or value is None:
        return value
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, float):
        return float.__float__(value)
    return value


def listed(options: Iterable[str]) -> str:
    return ", ".join(cut_short(option) for option in options)


@dataclass(frozen=True, slots=True)
class At:
    """Where a value is: its dotted path and its line (the nearest known)."""

    path: str
    line: int | None

    def key(self, parent: Any, key: Any) -> At:
        lines = getattr(parent, "key_lines", None)
        line = lines.get(key, self.line) if lines else self.line
        return At(join_path(self.path, key), line)

    def item(self, parent: Any, index: int) -> At:
        lines = getattr(parent, "item_lines", None)
        line = lines[index] if lines is not None and index < len(lines) else self.line
        return At(f"{self.path}[{index}]", line)


class FieldChecks:
    """The field checks, and the ids a scenario has defined so far (which references are
    checked against)."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.ids: dict[str, str] = {}  # every id -> the field that defined it
        self.players: tuple[str, ...] = ()
        self.teams: tuple[tuple[str, ...], ...] | None = None
        self.battlefields: dict[str, None] = {}  # in setup order, as messages list them
        self.units: set[str] = set()  # ids that can be a unit: setup units, unit cards, play_unit
        self.cards: set[str] = set()
        self.deferred: list[Callable[[], None]] | None = []

    # ---- basics --------------------------------------------------------------------------

    def fail(self, at: At, message: str) -> NoReturn:
        raise ScenarioError(self.label, at.path or "<root>", message, at.line)

    def mapping(self, value: Any, at: At, keys: Iterable[str] = ()) -> Mapping:
        """``value``, which must be a mapping; ``keys``, if given, are named in the error."""
        if not isinstance(value, Mapping):
            of = f" of {', '.join(keys)}" if keys else ""
            self.fail(at, f"expected a mapping{of}, got {kind_of(value)}")
        return value

    def sequence(self, value: Any, at: At) -> list | tuple:
        if not isinstance(value, (list, tuple)):
            self.fail(at, f"expected a list, got {kind_of(value)}")
        return value

    def keys(self, mapping: Mapping, at: At, required: Iterable[str] = (),
             optional: Iterable[str] = ()) -> None:
        """Refuse unknown keys, then missing required keys."""
        required = tuple(required)
        allowed = (*required, *optional)
        for key in mapping:
            if key not in allowed:
                self.fail(at.key(mapping, key),
                          f"unknown key {quoted(key)}; expected one of: {listed(allowed)}")
        missing = [key for key in required if key not in mapping]
        if missing:  # all of them at once, so that one fix does not meet the next refusal
            also = f"; also missing: {', '.join(missing[1:])}" if missing[1:] else ""
            self.fail(at.key(mapping, missing[0]), f"required key missing{also}")

    def one_key(self, value: Any, at: At, what: str, options: tuple[str, ...]
                ) -> tuple[Mapping, Any, Any, At]:
        """A mapping with exactly one key, as an effect and a step are: the mapping, its key,
        that key's value and where it is. ``what`` and ``options`` only word the error; the
        caller checks the key."""
        entry = self.mapping(value, at)
        if len(entry) != 1:
            self.fail(at, f"{what} has exactly one key (one of: {listed(options)}), "
                          f"got {len(entry)}")
        ((key, item),) = entry.items()
        return entry, key, item, at.key(entry, key)

    def field(self, mapping: Mapping, key: str, at: At) -> tuple[Any, At]:
        return mapping.get(key), at.key(mapping, key)

    def optional(self, mapping: Mapping, key: str, at: At, default: Any,
                 read: Callable[[Any, At], Any]) -> Any:
        """``read`` the value of an optional key, or ``default`` when absent or null."""
        value, where = self.field(mapping, key, at)
        return default if value is None else read(value, where)

    def string(self, value: Any, at: At) -> str:
        if not isinstance(value, str):
            self.fail(at, f"expected a string, got {kind_of(value)}")
        return value

    def optional_name(self, mapping: Mapping, at: At) -> str | None:
        """A display name: absent or null for none, else a string with more than spaces (D15:
        an empty name is refused, as the scenario's is)."""
        value, where = self.field(mapping, "name", at)
        return None if value is None else self.name(value, where)

    def name(self, value: Any, at: At) -> str:
        text = self.string(value, at)
        if not text.strip():
            self.fail(at, "the name must not be empty")
        return text

    def boolean(self, value: Any, at: At) -> bool:
        if not isinstance(value, bool):
            self.fail(at, f"expected true or false, got {kind_of(value)}")
        return value

    def integer(self, value: Any, at: At, low: int = 0, high: int = MAX_INT) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(at, f"expected an integer, got {kind_of(value)}")
        if not low <= value <= high:
            self.fail(at, f"must be from {low} to {high}")
        return value

    def expected_count(self, value: Any, at: At) -> int:
        """A count in an ``expect``: any integer from 0, as the game's counts can grow past the
        setup's limit (points gained, cards drawn, damage dealt as it runs)."""
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(at, f"expected an integer, got {kind_of(value)}")
        if value < 0:
            self.fail(at, "must be 0 or more")
        if not decimal_digits_readable(value):  # the report could not write it
            self.fail(at, f"a number of more than {sys.get_int_max_str_digits():,} decimal "
                      "digits is out of range")
        return value

    def choice(self, value: Any, at: At, options: tuple[str, ...], or_null: bool = False) -> str:
        """One of ``options``; ``or_null``: the caller takes null too, and the message says so."""
        if not isinstance(value, str) or value not in options:
            shown = quoted(value) if isinstance(value, str) else kind_of(value)
            either = (*options, "null") if or_null else options
            self.fail(at, f"expected one of: {listed(either)}; got {shown}")
        return value

    def each(self, value: Any, at: At, check: Callable[[Any, At], T]) -> tuple[T, ...]:
        """A list whose every item passes ``check`` (at its own place in the file)."""
        items = self.sequence(value, at)
        return tuple(check(item, at.item(items, index)) for index, item in enumerate(items))

    def distinct(self, items: list | tuple, at: At, check: Callable[[Any, At], str]
                 ) -> tuple[str, ...]:
        """A list of values passing ``check``, each at most once."""
        result: list[str] = []
        for index, item in enumerate(items):
            where = at.item(items, index)
            value = check(item, where)
            if value in result:
                self.fail(where, f"{quoted(value)} is listed twice")
            result.append(value)
        return tuple(result)

    # ---- ids -----------------------------------------------------------------------------

    def id_text(self, value: Any, at: At) -> str:
        if not isinstance(value, str):
            # YAML reads an unquoted 12, yes or 2024-01-01 as a number, boolean or date
            hint = " (quote it)" if isinstance(value, int | float | datetime.date) else ""
            self.fail(at, f"an id must be a string, got {kind_of(value)}{hint}")
        if not value.strip():
            self.fail(at, "an id must not be empty or only spaces" if value else
                      "an id must not be empty")
        if value in RESERVED_IDS:
            self.fail(at, f"{quoted(value)} is reserved and cannot be an id "
                          f"({RESERVED_IDS[value]})")
        if ":" in value:
            self.fail(at, f"an id must not contain ':' ({quoted(value)})")
        return value

    def new_id(self, value: Any, at: At) -> str:
        ident = self.id_text(value, at)
        if ident in self.ids:
            self.fail(at, f"duplicate id {quoted(ident)} (already used at {self.ids[ident]})")
        self.ids[ident] = at.path
        return ident

    def check_ref(self, ident: str, at: At, known: Callable[[str], bool], what: str,
                  allowed: Callable[[], Iterable[str]] | None = None) -> None:
        """Refuse ``ident`` unless ``known``; the message lists ``allowed()`` where it is
        given (asked when the check runs: after the setup, every id is known)."""
        def check() -> None:
            if not known(ident):
                why = self.not_a(what, ident)
                self.fail(at, f"{why}; expected one of: {listed(allowed())}" if allowed else why)

        if self.deferred is None:
            check()
        else:
            self.deferred.append(check)

    def not_a(self, what: str, ident: str) -> str:
        """Why ``ident`` names no WHAT: no such id, or it is the id of something else (a
        battlefield given as a unit's target), said with the field that defined it."""
        if ident in self.ids:
            return f"{quoted(ident)} is not a {what}: it is the id at {self.ids[ident]}"
        return f"unknown {what} {quoted(ident)}"

    def player(self, value: Any, at: At) -> str:
        ident = self.id_text(value, at)
        if ident not in self.players:
            self.fail(at, f"unknown player {quoted(ident)}; players are: {listed(self.players)}")
        return ident

    def player_or_null(self, value: Any, at: At) -> str | None:
        return None if value is None else self.player(value, at)

    def battlefield(self, value: Any, at: At, words: tuple[str, ...] = ()) -> str:
        """A battlefield id, or one of ``words`` (the places that are not battlefields, where a
        unit may be: ``base``...); a wrong one is refused with every value it could be."""
        if value in words:
            return value
        ident = self.id_text(value, at)
        self.check_ref(ident, at, self.battlefields.__contains__, "battlefield",
                       lambda: (*words, *self.battlefields))
        return ident

    def destination(self, value: Any, at: At) -> str:
        """A battlefield id or ``base``."""
        return self.battlefield(value, at, ("base",))

    def unit(self, value: Any, at: At) -> str:
        ident = self.id_text(value, at)
        self.check_ref(ident, at, self.units.__contains__, "unit")
        return ident

    def units_list(self, value: Any, at: At, *, allow_empty: bool = False) -> tuple[str, ...]:
        items = self.sequence(value, at)
        if not items and not allow_empty:
            self.fail(at, "expected at least one unit")
        return self.distinct(items, at, self.unit)
