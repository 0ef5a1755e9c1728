"""Each chart as a W3C SCXML document, written from the compiled tables of its definition.

python-statemachine loads SCXML (``statemachine.io.load``) but cannot write it, so this is
the exporter; the tests load its output back and compare it with the definition.

Guards are written as ``cond`` expressions of plain names joined by ``and`` and ``not``
(``a and not b``): that is the Python-dialect expression python-statemachine's restricted
evaluator accepts, where each name is read from the model (a method is called). What SCXML
has no slot for, the rule citation and the engine's action names, rides in attributes of
our own namespace (``rift:rule``, ``rift:actions``), which SCXML processors ignore.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from engine.runtime import CompiledChart, Transition, compiled

SCXML_NS = "http://www.w3.org/2005/07/scxml"
RIFT_NS = "https://riftchart.invalid/ns"

INDENT = "  "

#: Entities beyond & < > that an attribute value needs: its quote, and the whitespace an
#: XML parser would otherwise turn into plain spaces.
_ATTRIBUTE_ENTITIES = {'"': "&quot;", "\n": "&#10;", "\t": "&#9;"}


def chart_scxml(name: str) -> str:
    """The chart ``name`` as an SCXML document (text, ending in a newline); a ValueError
    for a name that is not a chart's."""
    chart = compiled(name)
    root_attributes = {
        "xmlns": SCXML_NS,
        "xmlns:rift": RIFT_NS,
        "version": "1.0",
        "name": name,
        "initial": chart.initial_root,
    }
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f"<!-- The riftchart chart {escape(name)}, written from its definition. -->",
        f"<scxml{_attributes(root_attributes)}>",
    ]
    for root in chart.root_ids:
        lines += _state(chart, root, 1)
    lines.append("</scxml>")
    return "\n".join(lines) + "\n"


def _state(chart: CompiledChart, state_id: str, depth: int) -> list[str]:
    info = chart.states[state_id]
    pad = INDENT * depth
    tag = "parallel" if info.kind == "parallel" else "state"
    attributes = {"id": state_id}
    if info.kind == "compound":
        attributes["initial"] = info.initial or ""
    body = [_transition(t, depth + 1) for t in chart.transitions if t.source == state_id]
    for child in info.children:
        body += _state(chart, child, depth + 1)
    if not body:
        return [f"{pad}<{tag}{_attributes(attributes)}/>"]
    return [f"{pad}<{tag}{_attributes(attributes)}>", *body, f"{pad}</{tag}>"]


def _transition(transition: Transition, depth: int) -> str:
    attributes = {"event": transition.event}
    if transition.targets:  # SCXML: a transition without a target leaves the states as they are
        attributes["target"] = " ".join(transition.targets)
    if transition.guards:
        attributes["cond"] = transition.guard_text()
    if transition.internal:
        attributes["type"] = "internal"
    if transition.rule:
        attributes["rift:rule"] = transition.rule
    if transition.actions:
        attributes["rift:actions"] = " ".join(transition.actions)
    return f"{INDENT * depth}<transition{_attributes(attributes)}/>"


def _attributes(attributes: dict[str, str]) -> str:
    """Attributes in the given order, each value XML-escaped inside double quotes."""
    return "".join(
        f' {key}="{escape(value, _ATTRIBUTE_ENTITIES)}"' for key, value in attributes.items()
    )
