"""Load and validate scenario files, format version 1 (the contract:
``shared/docs/scenario-format.md``; a guide: ``docs/scenarios.md``).

The work is shared by five modules: :mod:`engine.scenario_model` (the format's vocabulary, its
limits and the validated dataclasses), :mod:`engine.scenario_yaml` (safe YAML with lines),
:mod:`engine.scenario_fields` (the checks of values, names, ids and references),
:mod:`engine.scenario_steps` (the steps checked) and :mod:`engine.scenario_checks` (the setup
checked and the :class:`Scenario` built); this one reads the file and is the entry point.

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
  damage) is an integer (not a boolean) from 0 to 1,000,000; victory_score from 1; a count in
  an ``expect`` is any integer from 0 (the game's counts can grow past the setup's limit);
- ``MAX_DEPTH`` holds for what aliases build too (an alias inside its own anchor is refused
  by it), and a mapping merged with ``<<`` counts one level deeper than the one that merges
  it, so chains of merges are bounded as nesting is;
- a number in base 60 is refused by its length, before it is read, when written with more
  than 4,300 characters (PyYAML reads base 60 in time that grows as the square of its
  length), and a number in any base by its value when it has more than 4,300 decimal digits
  (Python could not write it in a report). These two are ``scenario_yaml``'s; the constants
  are defined in ``scenario_model``.

An optional setup key given as ``null`` takes its default (a battlefield's ``controller: null``
means nobody, a play step's ``to: null`` means no destination, a unit card's ``effect: null`` and
a spell's ``unit: null`` mean the key is not given, as does a null key inside an effect, and a
player's ``null`` entry in ``hands``, ``scores`` or ``deck`` takes the default; D33). A name
given is a string with more than spaces, and an id is not empty or only spaces (D15).
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Mapping
from typing import Any, BinaryIO

from engine.errors import ScenarioError
from engine.scenario_checks import Checker
from engine.scenario_fields import plain
from engine.scenario_model import (
    DICT_LABEL,
    MAX_DEPTH,
    MAX_FILE_BYTES,
    MAX_INT,
    MAX_NODES,
    MAX_STEPS,
    BattlefieldSpec,
    CardSpec,
    Scenario,
    Step,
    TriggerSpec,
    UnitSpec,
    UnitTemplate,
)
from engine.scenario_yaml import check_shape, parse_yaml

__all__ = ["MAX_DEPTH", "MAX_FILE_BYTES", "MAX_INT", "MAX_NODES", "MAX_STEPS", "BattlefieldSpec",
           "CardSpec", "Scenario", "Step", "TriggerSpec", "UnitSpec", "UnitTemplate",
           "STDIN", "STDIN_LABEL", "load_scenario", "load_scenario_document",
           "load_scenario_stream", "load_scenario_text"]


STDIN = "-"  # the file name that stands for standard input, as on the command line
STDIN_LABEL = "<stdin>"  # how errors name a scenario read from standard input


def load_scenario(source: str | os.PathLike | Mapping, *, label: str | None = None) -> Scenario:
    """Load a scenario from a file path (``-``: standard input), or validate one given as a
    dict.

    ``label`` is how errors and :attr:`Scenario.path` name the source (default: the path as
    given, ``<stdin>``, or ``<scenario>`` for a dict). Raises :class:`ScenarioError` for
    anything invalid.
    """
    if isinstance(source, (str, os.PathLike)):
        path = os.fsdecode(source)
        return load_scenario_document(path, label)[0]
    name = DICT_LABEL if label is None else label
    check_shape(source, name)
    # plain data from here: check_shape bounds the copy, and an id given as a str subclass
    # becomes the str it holds (see plain)
    return Checker(name).scenario(plain(source))


def load_scenario_document(path: str, label: str | None = None) -> tuple[Scenario, Any]:
    """:func:`load_scenario` of the file ``path`` (``-``: standard input), and the file's data
    as it was parsed (before any default is filled in), for a caller that keeps what the file
    said: the model checker copies a counterexample's setup from it."""
    name = label if label is not None else STDIN_LABEL if path == STDIN else path
    text = _read_stream(_standard_input(name), name) if path == STDIN else _read_file(path, name)
    data = _parsed(text, name)
    return Checker(name).scenario(data), data


def load_scenario_text(text: str, label: str) -> Scenario:
    """Parse and validate YAML (or JSON) ``text``; errors name the source ``label``."""
    return Checker(label).scenario(_parsed(text, label))


def _parsed(text: str, label: str) -> Any:
    if not isinstance(text, str):
        raise ScenarioError(label, "<file>", "a scenario text must be a str")
    if len(text) > MAX_FILE_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_FILE_BYTES:
        raise ScenarioError(label, "<file>", f"larger than {MAX_FILE_BYTES} bytes")
    return parse_yaml(text, label)


def load_scenario_stream(stream: BinaryIO, label: str = STDIN_LABEL) -> Scenario:
    """Read a scenario from a binary stream (``riftchart run -`` gives standard input's);
    errors name the source ``label``."""
    return load_scenario_text(_read_stream(stream, label), label)


def _standard_input(label: str) -> BinaryIO:
    """Standard input's bytes; a process started with it closed (``<&-``) has none."""
    if sys.stdin is None:
        raise ScenarioError(label, "<file>", "cannot read: standard input is closed")
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is None:  # a text stream put in its place (a test harness's io.StringIO)
        text = sys.stdin.read(MAX_FILE_BYTES + 1)
        return io.BytesIO(text.encode("utf-8", "surrogatepass"))
    return buffer


def _read_file(path: str, label: str) -> str:
    if "\0" in path:  # open() would raise ValueError: no file has such a name
        raise ScenarioError(label, "<file>", "cannot read: a path cannot hold a NUL character")
    try:
        with open(path, "rb") as stream:
            return _read_stream(stream, label)
    except OSError as error:
        raise _unreadable(label, error) from None


def _read_stream(stream: BinaryIO, label: str) -> str:
    """The stream's text, UTF-8 (a byte order mark is dropped), at most MAX_FILE_BYTES."""
    try:
        raw = stream.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        raise _unreadable(label, error) from None
    if len(raw) > MAX_FILE_BYTES:
        raise ScenarioError(label, "<file>", f"larger than {MAX_FILE_BYTES} bytes")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise ScenarioError(label, "<file>", "not valid UTF-8", line) from None


def _unreadable(label: str, error: OSError) -> ScenarioError:
    return ScenarioError(label, "<file>", f"cannot read: {error.strerror or error}")
