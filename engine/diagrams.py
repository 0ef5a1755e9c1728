"""Diagrams of the charts, drawn from the compiled tables of their definitions.

Nothing here is written by hand or taken from python-statemachine's ``DotGraphMachine``,
whose DOT names nodes by ``id()`` and so changes from run to run. States are visited in
document order (``StateInfo.order``) and transitions in ``Transition.order``, and every
name comes from a state id, so the same definitions always give the same DOT and Mermaid
text, byte for byte. That is what the drift test of ``diagrams/`` compares; SVG and PNG
depend on the installed Graphviz (its version is in an SVG comment) and are not compared.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from pathlib import Path
from typing import TypeVar

import graphviz

from engine.runtime import CompiledChart, Transition, compiled
from engine.wording import escaped_controls
from engine.writable import write_whole
from statecharts import CHARTS

#: Fill and border of a lit (active) state, and the colour of a taken transition.
ACTIVE_FILL = "#ffd966"
ACTIVE_CLUSTER_FILL = "#fff2cc"
ACTIVE_BORDER = "#bf9000"
TAKEN_COLOUR = "#c00000"

#: File suffix of every format :func:`write_diagrams` knows.
SUFFIXES = {"dot": ".dot", "svg": ".svg", "png": ".png", "mermaid": ".mmd", "scxml": ".scxml"}

INDENT = "  "


# --- shared -------------------------------------------------------------------------------


def transition_label(transition: Transition, chart: CompiledChart | None = None) -> str:
    """``event [guard] (rule)``: how a transition reads in every diagram.

    Given its chart, a transition that an earlier one of the same state and event goes before
    reads ``[else]`` or ``[else if guard]``: a chart takes the first of them, in document order,
    whose guards hold, so a picture that drew the later one's guard alone would say it can
    fire where the earlier one does.
    """
    parts = [transition.event, guard_label(transition, chart)]
    if transition.rule:
        parts.append(f"({transition.rule})")
    return " ".join(part for part in parts if part)


def guard_label(transition: Transition, chart: CompiledChart | None = None) -> str:
    """``[guard]``, ``[else]`` or ``[else if guard]`` (see :func:`transition_label`), or ""
    for an unguarded transition that no other of its state and event goes before."""
    later = chart is not None and any(
        t.order < transition.order and t.source == transition.source
        and t.event == transition.event for t in chart.transitions)
    if later:
        return f"[else if {transition.guard_text()}]" if transition.guards else "[else]"
    return f"[{transition.guard_text()}]" if transition.guards else ""


Item = TypeVar("Item")


def _same_ends(edges: Iterable[tuple[tuple, Item]]) -> list[tuple[tuple, list[Item]]]:
    """Edges with the same ends, to be drawn as one whose label has a line per transition, in
    document order: Mermaid draws only one of several loops on a state (mermaid-js/mermaid
    #6132), and Graphviz sets the labels of several edges between two states (loops most of
    all) over each other."""
    grouped: dict[tuple, list[Item]] = {}
    for ends, item in edges:
        grouped.setdefault(ends, []).append(item)
    return list(grouped.items())


def _children(chart: CompiledChart, state_id: str | None) -> list[str]:
    """Children in document order; ``None`` stands for the chart itself."""
    if state_id is None:
        return list(chart.root_ids)
    return list(chart.states[state_id].children)


# --- DOT ----------------------------------------------------------------------------------


def chart_dot(
    name: str,
    active: frozenset[str] = frozenset(),
    taken: Collection[Transition] = (),
) -> str:
    """Graphviz DOT text of chart ``name``, with the states in ``active`` lit and the
    transitions in ``taken`` highlighted; a ValueError for a name that is not a chart's.

    Compound and parallel states are nested clusters; the regions of a parallel state are
    dashed clusters labelled ``region``. A small point marks each initial state. Graphviz
    cannot draw an edge to a cluster, so an edge to or from a compound or parallel state is
    drawn to a representative node inside it and clipped at the cluster's border
    (``lhead``/``ltail`` with ``compound=true``).

    A transition from an atomic state to itself is a line inside the state, under a rule,
    marked ↻, rather than a loop: Graphviz leaves a loop's label out of the frame of the
    region around it, so loops in the battlefield's regions laid their labels over the
    frames and over other loops.
    """
    chart = compiled(name)
    taken_set = frozenset(taken)
    ends = [(_dot_ends(chart, t.source, target), t)
            for t in chart.transitions for target in t.drawn_targets]
    loops = [(end, t) for end, t in ends if _is_atomic_loop(chart, end, t)]
    loop_ends = {end for end, _ in loops}
    lines = [
        f"digraph {dot_string(name)} {{",
        # nodesep: room between the states of a region for the labels of the edges between
        f"{INDENT}graph [compound=true, rankdir=LR, nodesep=0.8, fontname=Helvetica, "
        f"label={dot_string(name)}, labelloc=t];",
        f"{INDENT}node [shape=box, style=rounded, fontname=Helvetica];",
        f"{INDENT}edge [fontname=Helvetica, fontsize=10];",
    ]
    lines += _dot_initial_marker(chart, None, 1)
    for root in chart.root_ids:
        lines += _dot_state(chart, root, active, _loop_lines(chart, loops, taken_set), 1)
    for (tail, head, clips), transitions in _same_ends(ends):
        if (tail, head, clips) not in loop_ends:
            lines.append(_dot_edge(chart, tail, head, clips, transitions, taken_set))
    lines.append("}")
    return "\n".join(lines) + "\n"


def _is_atomic_loop(chart: CompiledChart, end: tuple, transition: Transition) -> bool:
    """Whether an edge is drawn inside its state: an atomic state's to itself."""
    tail, head, _ = end
    return tail == head == transition.source and not _is_cluster(chart, transition.source)


def _loop_lines(chart: CompiledChart, loops: list[tuple[tuple, Transition]],
                taken: frozenset[Transition]) -> dict[str, list[str]]:
    """Each looping state's lines, ``↻ event [guard] (rule)`` in document order, the taken
    ones in the taken colour."""
    lines: dict[str, list[str]] = {}
    for _, t in loops:
        line = f"&#8635; {_html(transition_label(t, chart))}"
        if t in taken:
            line = f'<font color="{TAKEN_COLOUR}">{line}</font>'
        lines.setdefault(t.source, []).append(line)
    return lines


def _dot_state(
    chart: CompiledChart, state_id: str, active: frozenset[str],
    loop_lines: dict[str, list[str]], depth: int,
) -> list[str]:
    info = chart.states[state_id]
    pad = INDENT * depth
    attributes = _atomic_attributes(state_id, state_id in active, loop_lines)
    node = f"{dot_string(state_id)} [{attributes}];"
    if info.kind == "atomic" and not chart.in_parallel(state_id):
        return [pad + node]
    lines = [f"{pad}subgraph {dot_string('cluster_' + state_id)} {{"]
    lines += [f"{pad}{INDENT}{attr};" for attr in _cluster_attributes(chart, state_id, active)]
    if info.kind == "atomic":
        # an atomic region still gets its dashed frame; the state itself sits inside it
        lines.append(pad + INDENT + node)
    else:
        lines += _dot_initial_marker(chart, state_id, depth + 1)
        for child in info.children:
            lines += _dot_state(chart, child, active, loop_lines, depth + 1)
    lines.append(f"{pad}}}")
    return lines


def _atomic_attributes(state_id: str, lit: bool, loop_lines: dict[str, list[str]]) -> str:
    style = (f'style="rounded,filled,bold", fillcolor="{ACTIVE_FILL}", penwidth=2' if lit
             else 'style="rounded"')
    if state_id not in loop_lines:
        return style
    # the state's name, a rule, then its loops: a table without borders inside the box
    rows = "<br/>".join(loop_lines[state_id])
    return (f'{style}, label=<<table border="0" cellborder="0" cellspacing="0">'
            f"<tr><td>{_html(state_id)}</td></tr><hr/>"
            f'<tr><td align="left" balign="left"><font point-size="10">{rows}</font></td></tr>'
            "</table>>")


def _cluster_attributes(chart: CompiledChart, state_id: str, active: frozenset[str]) -> list[str]:
    info = chart.states[state_id]
    label = state_id
    if info.kind == "parallel":
        label = f"{state_id} (parallel)"
    style = ["rounded", "filled"]
    if chart.in_parallel(state_id):
        # the orthogonal regions of a parallel state: dashed frames, named as regions
        label = f"region: {state_id}"
        style.append("dashed")
    lit = state_id in active
    if lit:
        style.append("bold")
    # every attribute is set on every cluster: a subgraph inherits its parent's attributes,
    # and an inactive cluster must not show a lit ancestor's colours (hence the white fill)
    return [
        f"label={dot_string(label)}",
        f"style={dot_string(','.join(style))}",
        f"fillcolor={dot_string(ACTIVE_CLUSTER_FILL if lit else 'white')}",
        f"color={dot_string(ACTIVE_BORDER if lit else 'black')}",
        f"penwidth={2 if lit else 1}",
    ]


def _dot_initial_marker(chart: CompiledChart, parent: str | None, depth: int) -> list[str]:
    """The small point that marks the initial child of ``parent`` (of the chart if None)."""
    if parent is not None and chart.states[parent].kind != "compound":
        return []  # a parallel state enters every region; an atomic one has no children
    initial = chart.initial_child(parent)
    assert initial is not None, "a chart and each of its compound states have an initial child"
    marker = _marker_id(parent)
    pad = INDENT * depth
    edge = [f"lhead={dot_string('cluster_' + initial)}"] if _is_cluster(chart, initial) else []
    return [
        f'{pad}{dot_string(marker)} [shape=point, width=0.12, label=""];',
        f"{pad}{dot_string(marker)} -> {dot_string(_representative(chart, initial))}"
        + (f" [{', '.join(edge)}]" if edge else "")
        + ";",
    ]


def _marker_id(parent: str | None) -> str:
    # '#' cannot occur in a state id (a Python identifier), so this never collides with one
    return "initial#" if parent is None else f"initial#{parent}"


def _is_cluster(chart: CompiledChart, state_id: str) -> bool:
    return chart.states[state_id].kind != "atomic" or chart.in_parallel(state_id)


def _representative(chart: CompiledChart, state_id: str) -> str:
    """The node an edge to or from ``state_id`` attaches to.

    A compound state is represented by its initial marker (entering it goes there), a
    parallel state by its first region's representative, an atomic state by itself.
    """
    info = chart.states[state_id]
    if info.kind == "compound":
        return _marker_id(state_id)
    if info.kind == "parallel":
        return _representative(chart, info.children[0])
    return state_id


def _dot_ends(chart: CompiledChart, source: str, target: str) -> tuple[str, str, tuple[str, ...]]:
    """The nodes an edge joins, and its clipping at the clusters' borders."""
    clips = []
    # clip at a cluster's border, except when one end lies inside the other's cluster, which
    # Graphviz rejects (and which would hide the edge)
    if _is_cluster(chart, target) and not chart.is_descendant(source, target):
        clips.append(f"lhead={dot_string('cluster_' + target)}")
    if _is_cluster(chart, source) and not chart.is_descendant(target, source):
        clips.append(f"ltail={dot_string('cluster_' + source)}")
    return _representative(chart, source), _representative(chart, target), tuple(clips)


def _dot_edge(chart: CompiledChart, tail: str, head: str, clips: tuple[str, ...],
              transitions: list[Transition], taken: frozenset[Transition]) -> str:
    if len(transitions) == 1:
        label = f"label={dot_string(transition_label(transitions[0], chart))}"
    else:  # a line each, the taken ones in the taken colour
        lines = [_html(transition_label(t, chart)) for t in transitions]
        lines = [f'<font color="{TAKEN_COLOUR}">{line}</font>' if t in taken else line
                 for line, t in zip(lines, transitions, strict=True)]
        label = "label=<" + "".join(f'{line}<br align="left"/>' for line in lines) + ">"
    attributes = [label, *clips]
    if any(t in taken for t in transitions):
        attributes += [f"color={dot_string(TAKEN_COLOUR)}", "penwidth=2.5"]
        if len(transitions) == 1:  # a shared edge colours its taken lines only, above
            attributes.append(f"fontcolor={dot_string(TAKEN_COLOUR)}")
    return f"{INDENT}{dot_string(tail)} -> {dot_string(head)} [{', '.join(attributes)}];"


def _html(text: str) -> str:
    """Text for a Graphviz HTML-like label."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def dot_string(text: str) -> str:
    """A DOT double-quoted string (a line break is DOT's centred ``\\n``). Another control
    character (a carriage return in an id) is drawn as its code, ``\\x0d``: given to DOT as
    it is, it would be dropped or passed on unseen. Other characters, UTF-8 as DOT reads
    them, are written as they are."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return '"' + escaped_controls(escaped, backslash="\\\\") + '"'


# --- Mermaid ------------------------------------------------------------------------------


def chart_mermaid(name: str, active: frozenset[str] = frozenset()) -> str:
    """Mermaid ``stateDiagram-v2`` text of chart ``name``; states in ``active`` are lit. A
    ValueError for a name that is not a chart's.

    Composite states nest; the regions of a parallel state are separated by ``--``. Mermaid
    cannot reliably draw a transition declared outside the composite state that holds both
    its ends, so each transition is declared in the innermost state containing both; nor one
    between states of different composite states, so an end nested deeper is drawn at its
    composite state there, and the label names it (``open_combat (CR 455) (into combat)``).
    """
    chart = compiled(name)
    placed = _transitions_by_scope(chart)
    lines = ["stateDiagram-v2"]
    lines += _mermaid_body(chart, None, placed, 1)
    lit = chart.atomic_states(active)
    if lit:
        lines.append(f"{INDENT}classDef active fill:{ACTIVE_FILL},font-weight:bold")
        lines.append(f"{INDENT}class {','.join(lit)} active")
    return "\n".join(lines) + "\n"


def _mermaid_body(
    chart: CompiledChart,
    parent: str | None,
    placed: dict[str | None, list[Transition]],
    depth: int,
) -> list[str]:
    pad = INDENT * depth
    lines = []
    if parent is None or chart.states[parent].kind == "compound":
        lines.append(f"{pad}[*] --> {chart.initial_child(parent)}")
    for index, child in enumerate(_children(chart, parent)):
        if index and chart.in_parallel(child):  # the regions of a parallel state
            lines.append(f"{pad}--")
        lines += _mermaid_state(chart, child, placed, depth)
    edges = []
    for transition in placed.get(parent, ()):
        source = _in_scope(chart, transition.source, parent)
        for target in transition.drawn_targets:
            label = transition_label(transition, chart)
            if source != transition.source:
                label += f" (from {transition.source})"
            drawn_to = _in_scope(chart, target, parent)
            if drawn_to != target:
                label += f" (into {target})"
            edges.append(((source, drawn_to), _mermaid_text(label)))
    for (source, drawn_to), labels in _same_ends(edges):
        lines.append(f"{pad}{source} --> {drawn_to} : {'<br/>'.join(labels)}")
    return lines


def _in_scope(chart: CompiledChart, state_id: str, scope: str | None) -> str:
    """The state, or its ancestor, that is declared directly in ``scope``: an edge to a state
    nested deeper would make Mermaid move that state out to the edge's scope."""
    for ancestor in chart.ancestors(state_id):
        if chart.states[ancestor].parent == scope:
            return ancestor
    return state_id


def _mermaid_state(
    chart: CompiledChart,
    state_id: str,
    placed: dict[str | None, list[Transition]],
    depth: int,
) -> list[str]:
    pad = INDENT * depth
    if chart.states[state_id].kind == "atomic":
        # a bare name declares a simple state: Mermaid 11.17 misreads `state X` followed by
        # `state Y {` as one state named across the line break
        return [f"{pad}{state_id}"]
    return [
        f"{pad}state {state_id} {{",
        *_mermaid_body(chart, state_id, placed, depth + 1),
        f"{pad}}}",
    ]


def _transitions_by_scope(chart: CompiledChart) -> dict[str | None, list[Transition]]:
    """Transitions grouped by the innermost non-atomic state that holds source and targets.

    A parallel state's body is split by ``--`` into regions, so a transition is never
    declared directly in it: it goes to the region (or further out) instead.
    """
    placed: dict[str | None, list[Transition]] = {}
    for transition in chart.transitions:
        scope = _common_scope(chart, (transition.source, *transition.drawn_targets))
        placed.setdefault(scope, []).append(transition)
    return placed


def _common_scope(chart: CompiledChart, states: Iterable[str]) -> str | None:
    states = list(states)
    for candidate in chart.ancestors(states[0])[1:]:
        if chart.states[candidate].kind != "compound":
            continue
        if all(chart.is_descendant(s, candidate) and s != candidate for s in states):
            return candidate
    return None


def _mermaid_text(text: str) -> str:
    """Label text that cannot end a Mermaid statement early (entity codes for : ; #)."""
    text = " ".join(text.split())
    return text.replace("#", "#35;").replace(":", "#58;").replace(";", "#59;")


# --- rendering ----------------------------------------------------------------------------


def render_svg(dot_text: str) -> str:
    """Render DOT text to SVG with Graphviz's ``dot``.

    The SVG is kept as Graphviz writes it, version comment included: it carries no time or
    path, and drift is checked on the DOT text, not on SVG bytes.
    """
    return graphviz.Source(dot_text).pipe(format="svg").decode("utf-8")


def render_png(dot_text: str) -> bytes:
    """Render DOT text to PNG with Graphviz's ``dot``."""
    return graphviz.Source(dot_text).pipe(format="png")


def write_diagrams(
    out_dir: str | Path, formats: Collection[str] = ("dot", "svg", "mermaid")
) -> list[Path]:
    """Write ``<chart>.<suffix>`` for every chart and every format; return the paths, sorted.

    Formats: ``dot``, ``svg``, ``png``, ``mermaid`` (``.mmd``) and ``scxml``.
    """
    unknown = sorted(set(formats) - set(SUFFIXES))
    if unknown:
        raise ValueError(f"unknown diagram format(s) {unknown}; known: {sorted(SUFFIXES)}")
    out = Path(out_dir)
    # everything is drawn before anything is written: a failure (no Graphviz) leaves no half set
    contents = {out / f"{name}{SUFFIXES[fmt]}": _render(name, fmt)
                for name in sorted(CHARTS) for fmt in formats}
    write_whole(out, contents)
    return sorted(contents)


def _render(name: str, fmt: str) -> str | bytes:
    if fmt == "dot":
        return chart_dot(name)
    if fmt == "svg":
        return render_svg(chart_dot(name))
    if fmt == "png":
        return render_png(chart_dot(name))
    if fmt == "mermaid":
        return chart_mermaid(name)
    from engine.scxml import chart_scxml  # only this format needs the SCXML exporter

    return chart_scxml(name)
