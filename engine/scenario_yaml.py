"""Reading a scenario's YAML safely, keeping the line of every mapping, key and item (the
limits are described in :mod:`engine.scenario`)."""

from __future__ import annotations

import re
import sys
from collections.abc import Collection, Mapping
from typing import Any, NoReturn

import yaml

from engine.errors import ScenarioError
from engine.scenario_model import (
    MAX_DEPTH,
    MAX_NODES,
    decimal_digits_readable,
    join_path,
    quoted,
)


class _Map(dict):
    """A mapping read from YAML, with its line and the line of each key."""

    __slots__ = ("line", "key_lines")

    def __init__(self, line: int | None) -> None:
        super().__init__()
        self.line = line
        self.key_lines: dict[Any, int | None] = {}


class _List(list):
    """A list read from YAML, with its line and the line of each item."""

    __slots__ = ("line", "item_lines")

    def __init__(self, line: int | None) -> None:
        super().__init__()
        self.line = line
        self.item_lines: list[int | None] = []


_TAG = "tag:yaml.org,2002:"
_MAP_TAG = _TAG + "map"
_MERGE_TAG = _TAG + "merge"
_INT_TAG = _TAG + "int"
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

    def stale_possible_simple_keys(self) -> None:
        """Forget the places a key might have begun once the line has ended there. YAML also
        gives up on a key after 1,024 characters, but JSON has no such limit, and a JSON file
        (which is valid YAML, says the contract) may name a long id as a key."""
        for level, key in list(self.possible_simple_keys.items()):
            if key.line != self.line:
                if key.required:
                    raise yaml.scanner.ScannerError("while scanning a simple key", key.mark,
                                                    "could not find expected ':'",
                                                    self.get_mark())
                del self.possible_simple_keys[level]

    def fetch_flow_collection_start(self, token_class: Any) -> None:
        """Refuse flow nesting past MAX_DEPTH as it is scanned: the scanner keeps a possible
        key per flow level until its line ends, and on one line of ten thousand ``[`` they
        would cost time that grows as the square of the line (the depth would be refused
        anyway, later, when the nodes are composed)."""
        if self.flow_level >= MAX_DEPTH:
            self.fail("<yaml>", f"mappings and lists nested deeper than {MAX_DEPTH} levels",
                      _line(self.get_mark()))
        super().fetch_flow_collection_start(token_class)

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
        limit = sys.get_int_max_str_digits()
        if node.tag == _INT_TAG and limit and len(node.value) > limit and ":" in node.value:
            # before PyYAML reads it: it reads base 60 (1:2:3) in time that grows as the square
            # of its length (the other bases in time that grows as it does)
            self.fail(path, f"a number in base 60 written with {len(node.value):,} characters "
                      f"is out of range (at most {limit:,} are read)", line)
        try:
            value = self.yaml_constructors[node.tag](self, node)
        except Exception:  # e.g. `!!int ''` or `!!bool x` break PyYAML's builders
            kind, text = node.tag.removeprefix(_TAG), str(node.value)
            digits = sum(c.isdigit() for c in text)
            if kind == "int" and limit and _DECIMAL.fullmatch(text) and digits > limit:
                # Python reads no longer decimal number from text
                self.fail(path, f"a number of {digits:,} digits is out of range (at most "
                          f"{limit:,} digits are read)", line)
            self.fail(path, f"unreadable {kind} {quoted(node.value)}", line)
        if isinstance(value, int) and not decimal_digits_readable(value):
            # 0xfff... : a number the trace and the messages could not write in decimal
            self.fail(path, f"a number of more than {limit:,} decimal digits is out of range",
                      line)
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
        merge_seen = False  # a mapping has one merge key (`<<: []` merges nothing, but is one)
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                self.fail(path, "a mapping key must be a plain value", _line(key_node.start_mark))
            if key_node.tag == _MERGE_TAG:
                if merge_seen:  # a second << is a key given twice
                    self.fail(join_path(path, "<<"), "duplicate key '<<' (merge several "
                              "mappings with one: <<: [*a, *b])", _line(key_node.start_mark))
                merge_seen = True
                sources = value_node.value if isinstance(value_node, yaml.SequenceNode) else [
                    value_node]
                merged += sources
                continue
            key = self.build(key_node, path, depth + 1)
            key_path = join_path(path, key)
            key_line = _line(key_node.start_mark)
            if key in mapping:
                self.fail(key_path, f"duplicate key {quoted(key)}", key_line)
            mapping.key_lines[key] = key_line
            mapping[key] = self.build(value_node, key_path, depth + 1)
        for source in merged:
            if not isinstance(source, yaml.MappingNode):
                self.fail(path, "a merge key (<<) names mappings only", _line(source.start_mark))
            # a merged mapping counts as one level deeper, so a chain of merges (or one that
            # merges itself) is bounded as nesting is; built again for each merge, its keys
            # and values count each time
            if depth >= MAX_DEPTH:
                self.fail(path, f"merge keys (<<) chained more than {MAX_DEPTH} deep",
                          _line(source.start_mark))
            given = self.build_mapping(source, path, depth + 1)
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
            self.fail(path, f"YAML tag {quoted(node.tag)} is not allowed", _line(node.start_mark))


def _describe_yaml_error(error: BaseException) -> str:
    if isinstance(error, yaml.MarkedYAMLError):
        parts = [error.context, error.problem]
        return "; ".join(part for part in parts if part) or type(error).__name__
    return str(error) or type(error).__name__


_SURROGATE = re.compile("[\ud800-\udfff]")
_DECIMAL = re.compile(r"[-+]?[0-9_]+")  # a decimal int as YAML 1.1 writes one


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


def parse_yaml(text: str, label: str) -> Any:
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
            return parse_yaml(relaxed, label)
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


def check_shape(data: Any, label: str) -> None:
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
