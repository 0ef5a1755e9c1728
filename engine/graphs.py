"""Each chart as a networkx graph, read from the compiled tables of its definition.

Nodes are state ids; edges are transitions. Two transitions often join the same pair of
states (``holding -> holding`` three times in the Focus chart, told apart only by event,
guard and rule), so the graph is a :class:`networkx.MultiDiGraph`. That is still a
:class:`networkx.DiGraph` subclass, so directed-graph algorithms and ``isinstance`` checks
keep working, and no transition is lost by being folded into another.

Every attribute is a string, a bool or an int so that GraphML, which has no list type, and
node-link JSON carry exactly the same data. GraphML booleans are written ``true``/``false``,
the only spellings (with ``1``/``0``) that XML Schema allows: networkx alone writes ``True``.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from xml.etree.ElementTree import Element

import networkx as nx
from networkx.readwrite.graphml import GraphMLWriter

from engine.runtime import CompiledChart, Transition, compiled
from engine.scxml import chart_scxml
from engine.writable import write_whole
from statecharts import CHARTS

#: File suffix of every format :func:`write_exports` knows.
EXPORT_SUFFIXES = {"graphml": ".graphml", "json": ".json", "scxml": ".scxml"}


def chart_graph(name: str) -> nx.MultiDiGraph:
    """The chart ``name`` as a graph: one node per state, one edge per transition target.

    Node attributes: ``parent`` (``''`` at the top), ``kind`` (atomic, compound, parallel),
    ``region`` (the nearest state, itself included, that is a child of a parallel state, or
    ``''``), ``initial`` (entering its parent enters it: the initial child of a compound state,
    every region of a parallel one), ``order`` (document order).

    Edge attributes: ``event``, ``guard`` (``a and not b``, ``''`` if none), ``rule``,
    ``actions`` (space separated), ``internal``, ``targets`` (space separated: one edge is
    drawn per target of a multi-target transition) and ``order``. Edge keys are ``t<order>``
    (``t<order>.<i>`` for the i-th target of a multi-target transition), unique in the
    graph, so they also serve as GraphML edge ids.
    """
    chart = compiled(name)
    graph = nx.MultiDiGraph(chart=name, initial=" ".join(chart.in_order(chart.initial)))
    for info in sorted(chart.states.values(), key=lambda s: s.order):
        graph.add_node(
            info.id,
            parent=info.parent or "",
            kind=info.kind,
            region=region_of(chart, info.id),
            initial=chart.entered_with_parent(info.id),
            order=info.order,
        )
    for transition in chart.transitions:
        for index, target in enumerate(transition.drawn_targets):
            graph.add_edge(
                transition.source,
                target,
                key=_edge_key(transition, index),
                **_edge_attributes(transition),
            )
    return graph


def region_of(chart: CompiledChart, state_id: str) -> str:
    """The orthogonal region ``state_id`` lives in: the innermost ancestor-or-self whose
    parent is a parallel state, or ``''`` outside any parallel state."""
    for state in chart.ancestors(state_id):
        if chart.in_parallel(state):
            return state
    return ""


def write_graphml(name: str, path: str | Path) -> Path:
    """Write the chart's graph as GraphML to ``path`` and return the path.

    Always the same bytes for the same chart. Read it back with
    ``nx.read_graphml(path, force_multigraph=True)``: without it networkx makes a DiGraph of
    a chart that has no two transitions between the same states (the turn chart).
    """
    path = Path(path)
    path.write_bytes(graphml_bytes(chart_graph(name)))
    return path


def graphml_bytes(graph: nx.MultiDiGraph) -> bytes:
    """``graph`` as GraphML, UTF-8: the same bytes for the same graph, whatever is installed."""
    # networkx's own writer, not nx.write_graphml: that one switches to lxml when lxml is
    # installed, and the bytes would then depend on what else is installed
    writer = _GraphMLWriter(encoding="utf-8", prettyprint=True)
    writer.add_graph_element(graph)
    written = io.BytesIO()
    writer.dump(written)
    return written.getvalue()


class _GraphMLWriter(GraphMLWriter):
    """networkx's GraphML writer, with booleans spelt as XML Schema spells them."""

    def add_data(
        self, name: str, element_type: type, value: object, scope: str = "all",
        default: object = None,
    ) -> Element:
        element = super().add_data(name, element_type, value, scope, default)
        if element_type is bool:
            # networkx hands over str(value) ("True"), or the bool itself in other versions
            element.text = str(value).lower()
        return element


def node_link_json(name: str) -> str:
    """The chart's graph as node-link JSON, with sorted keys so the text is reproducible."""
    data = nx.node_link_data(chart_graph(name), edges="edges")
    return json.dumps(data, sort_keys=True, indent=2) + "\n"


def write_exports(out_dir: str | Path, fmt: str) -> list[Path]:
    """Write ``<chart>.<fmt>`` for every chart, in the order of their names, into ``out_dir``
    (made if missing); return the paths. Formats: ``graphml`` (:func:`write_graphml`),
    ``json`` (:func:`node_link_json`) and ``scxml`` (:func:`engine.scxml.chart_scxml`); a
    ValueError for any other."""
    if fmt not in EXPORT_SUFFIXES:
        raise ValueError(f"unknown export format {fmt!r}; known: {', '.join(EXPORT_SUFFIXES)}")
    out = Path(out_dir)
    exports: dict[Path, str | bytes] = {
        out / f"{name}{EXPORT_SUFFIXES[fmt]}": _export(name, fmt) for name in sorted(CHARTS)}
    write_whole(out, exports)
    return list(exports)


def _export(name: str, fmt: str) -> str | bytes:
    if fmt == "graphml":
        return graphml_bytes(chart_graph(name))
    return node_link_json(name) if fmt == "json" else chart_scxml(name)


def _edge_key(transition: Transition, index: int) -> str:
    if len(transition.drawn_targets) == 1:
        return f"t{transition.order}"
    return f"t{transition.order}.{index}"


def _edge_attributes(transition: Transition) -> dict[str, str | bool | int]:
    return {
        "event": transition.event,
        "guard": transition.guard_text(),
        "rule": transition.rule,
        "actions": " ".join(transition.actions),
        "internal": transition.internal,
        "targets": " ".join(transition.targets),
        "order": transition.order,
    }
