"""The exporters (networkx graph, DOT, Mermaid, SCXML, GraphML, node-link JSON) say exactly
what the chart definitions say, and say it the same way every time."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter

import networkx as nx
import pytest
from statemachine.io import load

from engine.diagrams import (
    TAKEN_COLOUR,
    _mermaid_text,
    chart_dot,
    chart_mermaid,
    dot_string,
    render_svg,
    transition_label,
    write_diagrams,
)
from engine.graphs import chart_graph, node_link_json, write_exports, write_graphml
from engine.runtime import compiled
from engine.scxml import chart_scxml
from statecharts import CHARTS
from tests.conftest import ROOT

NAMES = sorted(CHARTS)
EMBEDDING_DOC = ROOT / "docs" / "embedding.md"


# --- python-statemachine's own view of a chart class -------------------------------------


def _walk(states):
    for state in states:
        yield state
        yield from _walk(state.states)


def _kind(state) -> str:
    if state.parallel:
        return "parallel"
    return "compound" if list(state.states) else "atomic"


def definition_states(cls) -> dict[str, tuple[str, str]]:
    """State id -> (parent id or '', kind), read from the class itself."""
    found = {}
    for state in _walk(cls.states):
        parent = state.parent.id if state.parent is not None else ""
        found[state.id] = (parent, _kind(state))
    return found


def _guard_text(transition) -> str:
    # ``unless`` guards come back as '!name' with expected_value False
    return " and ".join(
        str(spec) if spec.expected_value else f"not {str(spec).lstrip('!')}"
        for spec in transition.cond
    )


def _transitions(cls, guard_text, with_rule: bool) -> Counter:
    """A multiset of (source, targets, event, guard[, rule]) read from a chart class."""
    found: Counter = Counter()
    for state in _walk(cls.states):
        for transition in state.transitions:
            if transition.initial:
                continue
            targets = tuple(target.id for target in transition.targets)
            rule = (getattr(transition, "rule", ""),) if with_rule else ()
            for event in transition.events:
                found[(state.id, targets, str(event), guard_text(transition), *rule)] += 1
    return found


def definition_transitions(cls) -> Counter:
    """(source, targets, event, guard, rule) read from the class itself."""
    return _transitions(cls, _guard_text, with_rule=True)


# --- (1) the networkx graph ----------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_graph_has_exactly_the_states_of_the_definition(name):
    graph = chart_graph(name)
    expected = definition_states(CHARTS[name])
    assert set(graph.nodes) == set(expected) == set(CHARTS[name].states_map)
    for state_id, (parent, kind) in expected.items():
        assert graph.nodes[state_id]["parent"] == parent
        assert graph.nodes[state_id]["kind"] == kind


@pytest.mark.parametrize("name", NAMES)
def test_graph_has_exactly_the_transitions_of_the_definition(name):
    graph = chart_graph(name)
    assert isinstance(graph, nx.DiGraph)  # a MultiDiGraph is one
    edges: Counter = Counter()
    for source, target, data in graph.edges(data=True):
        targets = tuple(data["targets"].split())
        assert target in targets
        edges[(source, targets, data["event"], data["guard"], data["rule"])] += 1
    assert edges == definition_transitions(CHARTS[name])
    assert all(rule for (_, _, _, _, rule) in edges), "every transition cites a rule"


def test_graph_node_attributes_on_the_battlefield():
    graph = chart_graph("battlefield")
    assert graph.nodes["battlefield"]["region"] == ""
    assert graph.nodes["control"]["region"] == "control"
    assert graph.nodes["resolution"]["region"] == "contest"
    assert graph.nodes["kill_and_recall"]["initial"] is True
    assert graph.nodes["decide_result"]["initial"] is False
    assert graph.nodes["battlefield"]["initial"] is True
    check = graph.get_edge_data("controlled", "uncontrolled")
    guards = sorted(data["guard"] for data in check.values())
    assert guards == [
        "controller_has_no_units_here and open_with_no_contest_here and not seed_rules",
        "nobody_has_units_here",
        "seed_rules and controller_has_no_units_here and not contested_here",
    ]


# --- (2) deterministic DOT and Mermaid -----------------------------------------------------


def _renderings() -> dict[str, list[str]]:
    return {name: [chart_dot(name), chart_mermaid(name)] for name in NAMES}


def test_dot_and_mermaid_are_identical_in_a_fresh_process():
    script = (
        "import json, sys\n"
        "from engine.diagrams import chart_dot, chart_mermaid\n"
        "from statecharts import CHARTS\n"
        "names = sorted(CHARTS)\n"
        "json.dump({n: [chart_dot(n), chart_mermaid(n)] for n in names}, sys.stdout)\n"
    )
    # a different hash seed changes set and dict-of-set iteration orders, which must not leak
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, env=env
    )
    assert json.loads(result.stdout) == _renderings()


def test_a_dot_string_draws_what_it_is_given():
    """Quotes and backslashes stay what they are, a line break breaks the line, and another
    control character (an id may hold one) is drawn as its code, not dropped by DOT."""
    text = 'U\r1 "x" \\ \x01\nline two'
    svg = subprocess.run(["dot", "-Tsvg"], input=f"digraph {{ a [label={dot_string(text)}]; }}",
                         capture_output=True, text=True, check=True).stdout
    lines = [t.text for t in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}text")]
    assert lines == ['U\\x0d1 "x" \\ \\x01', "line two"]


def test_labels_show_event_guard_and_rule():
    dot = chart_dot("battlefield")
    mermaid = chart_mermaid("battlefield")
    label = ("check_control [seed_rules and controller_has_no_units_here and not contested_here]"
             " (S 184.4.c)")
    # the first of three transitions from controlled to uncontrolled: one edge, a line each
    assert f'label=<{label}<br align="left"/>check_control [else if' in dot
    assert f"controlled --> uncontrolled : {label}<br/>check_control [else if" in mermaid
    assert 'label="chain_created (CR 309.1)"' in dot  # alone between its states
    assert "0x" not in dot  # no memory addresses


@pytest.mark.parametrize("name", NAMES)
def test_a_transition_that_an_earlier_one_goes_before_reads_else(name):
    """A chart takes the first transition of a state and event, in document order, whose
    guards hold: a later one is labelled [else] or [else if guard] in DOT and Mermaid, so the
    picture does not say it can fire where the earlier one does."""
    chart = compiled(name)
    dot, mermaid = chart_dot(name), chart_mermaid(name)
    seen: set[tuple[str, str]] = set()
    for transition in chart.transitions:
        label = transition_label(transition, chart)
        later = (transition.source, transition.event) in seen
        seen.add((transition.source, transition.event))
        if later:
            guard = f"[else if {transition.guard_text()}]" if transition.guards else "[else]"
            assert f"{transition.event} {guard}" in label
        else:
            assert "[else" not in label
        assert label in dot and _mermaid_text(label) in mermaid, (name, label)


@pytest.mark.parametrize("name", NAMES)
def test_each_pair_of_states_is_joined_by_one_edge(name):
    """Several transitions between the same two states are one edge with a line each:
    Mermaid draws only one of several loops on a state, and Graphviz laid their labels over
    each other."""
    dot_edges = re.findall(r'^\s*("[^"]+" -> "[^"]+")', chart_dot(name), re.MULTILINE)
    assert len(dot_edges) == len(set(dot_edges))
    _, edges = _mermaid_scopes(chart_mermaid(name))
    ends = [(scope, source, target) for scope, source, target, _ in edges]
    assert len(ends) == len(set(ends))


def test_a_taken_transition_is_coloured_in_its_line_of_a_shared_edge():
    chart = compiled("focus")
    emptied = [t for t in chart.transitions if t.event == "chain_emptied"]
    dot = chart_dot("focus", active=chart.initial, taken=emptied[1:])
    (edge,) = [line for line in dot.splitlines() if "chain_emptied [else]" in line]
    assert f'<font color="{TAKEN_COLOUR}">chain_emptied [else] (CR 346.1)</font>' in edge
    assert "chain_emptied [chain_begun_by_card] (CR 346)<br" in edge and "penwidth=2.5" in edge
    # only that line is in the taken colour: the edge's own font colour would paint them all
    drawn = _svg_texts(render_svg(dot))
    assert f'fill="{TAKEN_COLOUR}"' in drawn["chain_emptied [else] (CR 346.1)"]
    assert "fill=" not in drawn["chain_emptied [chain_begun_by_card] (CR 346)"]


def _svg_texts(svg: str) -> dict[str, str]:
    """Each text an SVG draws, with its attributes."""
    return {text: attributes
            for attributes, text in re.findall(r"<text ([^>]*)>([^<]*)</text>", svg)}


def test_a_loop_is_a_line_inside_its_state_coloured_when_taken():
    """A transition from an atomic state to itself is listed inside the state (↻ and its
    label), not drawn as a loop, and a taken one is in the taken colour."""
    chart = compiled("focus")
    converted = [t for t in chart.transitions if t.event == "converted"]
    dot = chart_dot("focus", active=chart.initial, taken=converted[1:])
    assert '"holding" -> "holding"' not in dot
    (node,) = [line for line in dot.splitlines() if line.strip().startswith('"holding" [')]
    assert ("<tr><td>holding</td></tr><hr/>" in node
            and "&#8635; converted [seed_keeps_focus] (seed 000)<br/>" in node)
    drawn = _svg_texts(render_svg(dot))
    loop = "\N{CLOCKWISE OPEN CIRCLE ARROW}"
    assert f'fill="{TAKEN_COLOUR}"' in drawn[f"{loop} converted [else] (CR 459.2.c)"]
    assert "fill=" not in drawn[f"{loop} pass_focus [else] (CR 347)"]


def _mermaid_scopes(text: str) -> tuple[dict[str, str], list[tuple[str, str, str, str]]]:
    """Where each state of a Mermaid chart is declared (the enclosing ``state X {``, or
    ``root``), and each edge with the scope it is written in and its label."""
    declared: dict[str, str] = {}
    edges: list[tuple[str, str, str, str]] = []
    scopes = ["root"]
    for line in text.splitlines()[1:]:
        line = line.strip()
        if line.startswith("state ") and line.endswith("{"):
            declared[line.split()[1]] = scopes[-1]
            scopes.append(line.split()[1])
        elif line == "}":
            scopes.pop()
        elif " --> " in line:
            ends, _, label = line.partition(" : ")
            source, target = ends.split(" --> ")
            edges.append((scopes[-1], source, target, label))
        elif line and line != "--" and not line.startswith(("classDef", "class ")):
            declared[line] = scopes[-1]
    return declared, edges


@pytest.mark.parametrize("name", NAMES)
def test_mermaid_edges_join_states_of_their_own_scope(name):
    """Mermaid moves a state named in an edge into the edge's scope: every edge must join
    states declared in the scope it is written in, or the picture nests states wrongly. An
    edge drawn at a composite state names the state it really leaves or enters."""
    chart = compiled(name)
    declared, edges = _mermaid_scopes(chart_mermaid(name))
    assert set(declared) == set(chart.states)
    drawn = 0
    for scope, source, target, label in edges:
        for end in (source, target):
            assert end == "[*]" or declared[end] == scope, (name, source, target, scope)
        drawn += len(label.split("<br/>")) if source != "[*]" else 0
    assert drawn == sum(len(t.targets) for t in chart.transitions)
    for transition in chart.transitions:
        for target in transition.targets:
            if target not in declared or declared[target] == declared.get(transition.source):
                continue
            assert any(f"(into {target})" in label or f"(from {transition.source})" in label
                       for _, _, _, label in edges), (name, transition.source, target)


def test_mermaid_separates_parallel_regions():
    mermaid = chart_mermaid("battlefield")
    assert mermaid.startswith("stateDiagram-v2\n")
    regions = compiled("battlefield").states["battlefield"].children
    assert mermaid.count("\n    --\n") == len(regions) - 1


def test_active_states_and_taken_transitions_are_marked():
    chart = compiled("battlefield")
    opened = next(
        t for t in chart.transitions if t.event == "open_combat" and t.source == "neutral"
    )
    config = chart.apply(chart.initial, [opened])
    dot = chart_dot("battlefield", active=config, taken=[opened])
    assert dot != chart_dot("battlefield")
    assert '"combat_showdown" [style="rounded,filled,bold"' in dot
    assert '"neutral" [style="rounded"]' in dot
    taken_lines = [line for line in dot.splitlines() if "penwidth=2.5" in line]
    assert len(taken_lines) == 1 and "open_combat" in taken_lines[0]


# --- (3) Graphviz renders every chart ------------------------------------------------------


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot is not installed")
@pytest.mark.parametrize("name", NAMES)
def test_dot_renders_without_errors_or_warnings(name):
    chart = compiled(name)
    for text in (chart_dot(name), chart_dot(name, chart.initial, chart.transitions[:1])):
        result = subprocess.run(["dot", "-Tsvg"], input=text, capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        assert result.stderr == ""
        assert "<svg" in result.stdout


#: a low estimate of Helvetica's mean character width, in ems
_EM_PER_CHARACTER = 0.45
_SVG = "{http://www.w3.org/2000/svg}"


def _svg_frames_and_texts(svg: str) -> tuple[dict[str, tuple[float, ...]], dict[str, list]]:
    """The box of each cluster's frame, and the spans (left, right, baseline) of the texts of
    each node and edge, by their titles (``state``, ``initial#parent``, ``tail->head``)."""
    frames: dict[str, tuple[float, ...]] = {}
    texts: dict[str, list] = {}
    for group in ET.fromstring(svg).iter(f"{_SVG}g"):
        title = group.findtext(f"{_SVG}title")
        if group.get("class") == "cluster":
            (outline,) = [e for e in group if e.tag in (f"{_SVG}path", f"{_SVG}polygon")]
            numbers = [float(n) for n in re.findall(r"-?[\d.]+", outline.get("d")
                                                    or outline.get("points") or "")]
            xs, ys = numbers[0::2], numbers[1::2]
            frames[title] = (min(xs), min(ys), max(xs), max(ys))
        elif group.get("class") in ("node", "edge"):
            for text in group.iter(f"{_SVG}text"):
                width = _EM_PER_CHARACTER * float(text.get("font-size")) * len(text.text)
                left = float(text.get("x")) - {"start": 0, "middle": width / 2,
                                               "end": width}[text.get("text-anchor")]
                texts.setdefault(title, []).append((left, left + width, float(text.get("y"))))
    return frames, texts


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot is not installed")
@pytest.mark.parametrize("name", NAMES)
def test_every_text_inside_a_state_or_region_lies_inside_its_frame(name):
    """The states inside a compound state or a region, and the labels of the transitions
    between them, are drawn inside its frame: Graphviz leaves a loop's label out of the
    frame, which is why a loop is a line inside its state."""
    chart = compiled(name)
    frames, texts = _svg_frames_and_texts(render_svg(chart_dot(name)))

    def state_of(node: str) -> str | None:  # an initial marker lies inside its parent
        return node.removeprefix("initial#") or None if node.startswith("initial#") else node

    checked = 0
    for cluster, (left, top, right, bottom) in frames.items():
        frame = cluster.removeprefix("cluster_")
        for title, spans in texts.items():
            ends = [state_of(node) for node in title.split("->")]
            if all(end is not None and (end == frame or chart.is_descendant(end, frame))
                   for end in ends):
                for x0, x1, y in spans:
                    assert left <= x0 and x1 <= right and top <= y <= bottom, (cluster, title)
                    checked += 1
    assert checked or not frames


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot is not installed")
def test_render_svg_and_write_diagrams(tmp_path):
    assert "<svg" in render_svg(chart_dot("turn"))
    written = write_diagrams(tmp_path, formats=("dot", "mermaid", "svg", "png", "scxml"))
    assert written == sorted(written)
    assert {p.name for p in written} == {
        f"{name}.{suffix}" for name in NAMES for suffix in ("dot", "mmd", "svg", "png", "scxml")
    }
    assert (tmp_path / "focus.dot").read_text() == chart_dot("focus")
    assert (tmp_path / "focus.png").read_bytes().startswith(b"\x89PNG")
    with pytest.raises(ValueError, match="unknown diagram format"):
        write_diagrams(tmp_path, formats=("gif",))


# --- (4) SCXML loads back into the same chart ---------------------------------------------


def loaded_class(name: str):
    return load(chart_scxml(name), format="scxml")


def _loaded_transitions(cls) -> Counter:
    """(source, targets, event, cond) of a class loaded from SCXML (its conds are the
    SCXML expressions, read back as written)."""
    return _transitions(
        cls, lambda t: " and ".join(str(spec) for spec in t.cond), with_rule=False
    )


@pytest.mark.parametrize("name", NAMES)
def test_scxml_loads_back_with_the_same_states(name):
    cls = loaded_class(name)
    assert definition_states(cls) == definition_states(CHARTS[name])
    initials = {s.id for s in _walk(cls.states) if s.initial}
    assert initials == {s.id for s in _walk(CHARTS[name].states) if s.initial}


@pytest.mark.parametrize("name", NAMES)
def test_scxml_loads_back_with_the_same_transitions(name):
    expected = Counter()
    for (source, targets, event, guard, _rule), count in definition_transitions(
        CHARTS[name]
    ).items():
        expected[(source, targets, event, guard)] += count
    assert _loaded_transitions(loaded_class(name)) == expected


@pytest.mark.parametrize("name", NAMES)
def test_scxml_keeps_rule_citations(name):
    text = chart_scxml(name)
    assert 'xmlns:rift="https://riftchart.invalid/ns"' in text
    for transition in compiled(name).transitions:
        assert f'rift:rule="{transition.rule}"' in text


class _Model:
    """Guards as fixed booleans; the chart's actions do nothing."""

    def __init__(self, guards: dict[str, bool], actions: set[str]):
        for guard, value in guards.items():
            setattr(self, guard, value)
        for action in actions:
            setattr(self, action, lambda *args, **kwargs: None)


@pytest.mark.parametrize("name", NAMES)
def test_scxml_guards_behave_like_the_definition(name):
    """The ``cond`` text is evaluated by python-statemachine as the definition's guards are:
    random walks take the loaded class and the definition to the same configurations."""
    chart = compiled(name)
    guard_names = sorted({g for t in chart.transitions for g, _ in t.guards})
    actions = {a for t in chart.transitions for a in t.actions}
    loaded = loaded_class(name)
    rng = random.Random(name)
    for _ in range(20):
        guards = {g: rng.random() < 0.5 for g in guard_names}
        original = CHARTS[name](model=_Model(guards, actions))
        copy = loaded(model=_Model(guards, set()))
        for _ in range(25):
            enabled = sorted(e.id for e in original.enabled_events())
            if not enabled:
                break
            event = rng.choice(enabled)
            original.send(event)
            copy.send(event)
            assert {s.id for s in copy.configuration} == {s.id for s in original.configuration}


# --- (5) GraphML and node-link JSON round trips --------------------------------------------


def _edge_set(graph) -> set:
    return {
        (u, v, str(k), tuple(sorted(d.items()))) for u, v, k, d in graph.edges(keys=True, data=True)
    }


@pytest.mark.parametrize("name", NAMES)
def test_graphml_round_trip(name, tmp_path):
    graph = chart_graph(name)
    path = write_graphml(name, tmp_path / f"{name}.graphml")
    back = nx.read_graphml(path, force_multigraph=True)
    assert back.is_directed()
    assert dict(back.nodes(data=True)) == dict(graph.nodes(data=True))
    assert _edge_set(back) == _edge_set(graph)


@pytest.mark.parametrize("name", NAMES)
def test_node_link_json_round_trip(name):
    text = node_link_json(name)
    assert text == node_link_json(name)
    back = nx.node_link_graph(json.loads(text), edges="edges")
    graph = chart_graph(name)
    assert back.is_directed() and back.is_multigraph()
    assert dict(back.nodes(data=True)) == dict(graph.nodes(data=True))
    assert _edge_set(back) == _edge_set(graph)
    assert back.graph == graph.graph


def test_graphml_round_trip_keeps_booleans_as_booleans(tmp_path):
    back = nx.read_graphml(write_graphml("battlefield", tmp_path / "b.graphml"),
                           force_multigraph=True)
    assert {type(data["initial"]) for _, data in back.nodes(data=True)} == {bool}
    assert {type(data["internal"]) for _, _, data in back.edges(data=True)} == {bool}


#: What XML Schema allows in a GraphML data element of each attr.type networkx writes.
_SCHEMA_VALUE = {
    "boolean": lambda text: text in ("true", "false", "1", "0"),
    "long": lambda text: text.lstrip("-").isdigit(),
    "int": lambda text: text.lstrip("-").isdigit(),
    "string": lambda text: True,
}


@pytest.mark.parametrize("name", NAMES)
def test_graphml_data_values_are_valid_for_their_declared_types(name, tmp_path):
    """Strict GraphML readers check each value against its key's attr.type: an XML Schema
    boolean is true, false, 1 or 0, never Python's True or False."""
    namespace = {"g": "http://graphml.graphdrawing.org/xmlns"}
    root = ET.parse(write_graphml(name, tmp_path / f"{name}.graphml")).getroot()
    types = {key.get("id"): key.get("attr.type") for key in root.findall("g:key", namespace)}
    assert "boolean" in types.values()
    for data in root.iter(f"{{{namespace['g']}}}data"):
        text = data.text or ""
        assert _SCHEMA_VALUE[types[data.get("key")]](text), (data.get("key"), text)


def test_graphml_is_the_same_bytes_every_time(tmp_path):
    script = (
        "import sys\n"
        "from engine.graphs import write_graphml\n"
        "for name in sys.argv[2:]:\n"
        "    write_graphml(name, f'{sys.argv[1]}/{name}.graphml')\n"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    (tmp_path / "fresh").mkdir()
    subprocess.run([sys.executable, "-c", script, str(tmp_path / "fresh"), *NAMES],
                   check=True, env=env, cwd=ROOT)
    for name in NAMES:
        first = write_graphml(name, tmp_path / f"{name}.1.graphml").read_bytes()
        second = write_graphml(name, tmp_path / f"{name}.2.graphml").read_bytes()
        assert first == second == (tmp_path / "fresh" / f"{name}.graphml").read_bytes()


@pytest.mark.parametrize("name", NAMES)
def test_graphml_read_as_documented_is_a_multidigraph(name, tmp_path):
    """Without force_multigraph networkx makes a DiGraph of a chart with no parallel
    transitions (the turn chart); docs/embedding.md tells readers to pass it."""
    assert "force_multigraph=True" in EMBEDDING_DOC.read_text(encoding="utf-8")
    back = nx.read_graphml(write_graphml(name, tmp_path / f"{name}.graphml"),
                           force_multigraph=True)
    assert type(back) is nx.MultiDiGraph
    assert back.number_of_edges() == chart_graph(name).number_of_edges()


@pytest.mark.parametrize("name", NAMES)
def test_node_link_json_has_the_documented_keys_and_reads_back_as_documented(name):
    """The file's keys are those docs/embedding.md lists, and the call it gives (which works
    from networkx 3.4, where edges were still "links" by default) reads every chart back."""
    assert 'nx.node_link_graph(data, edges="edges")' in EMBEDDING_DOC.read_text(encoding="utf-8")
    data = json.loads(node_link_json(name))
    assert set(data) == {"directed", "multigraph", "graph", "nodes", "edges"}
    assert (data["directed"], data["multigraph"]) == (True, True)
    assert set(data["graph"]) == {"chart", "initial"}
    node_keys = {"id", "parent", "kind", "region", "initial", "order"}
    assert all(set(node) == node_keys for node in data["nodes"])
    edge_keys = {"source", "target", "key", "event", "guard", "rule", "actions", "internal",
                 "targets", "order"}
    assert all(set(edge) == edge_keys for edge in data["edges"])
    back = nx.node_link_graph(data, edges="edges")
    assert type(back) is nx.MultiDiGraph
    assert _edge_set(back) == _edge_set(chart_graph(name))


def test_write_exports_writes_every_chart_in_one_format(tmp_path):
    """What `riftchart export` writes, callable from Python: one file per chart, in the order
    of the charts' names, with the exporters' text and "\n" line ends on every platform."""
    for fmt, text in (("json", node_link_json), ("scxml", chart_scxml)):
        written = write_exports(tmp_path / fmt, fmt)
        assert written == [tmp_path / fmt / f"{name}.{fmt}" for name in NAMES]
        for name, path in zip(NAMES, written, strict=True):
            assert path.read_bytes() == text(name).encode("utf-8")
    written = write_exports(tmp_path / "graphml", "graphml")
    assert written == [tmp_path / "graphml" / f"{name}.graphml" for name in NAMES]
    for name, path in zip(NAMES, written, strict=True):
        assert path.read_bytes() == write_graphml(name, tmp_path / "one.graphml").read_bytes()
    with pytest.raises(ValueError, match="unknown export format 'dot'"):
        write_exports(tmp_path / "dot", "dot")
    assert not (tmp_path / "dot").exists()


# --- (6) unknown chart names -----------------------------------------------------------------


@pytest.mark.parametrize("export", [
    chart_scxml, chart_graph, node_link_json, lambda name: write_graphml(name, os.devnull),
    chart_dot, chart_mermaid,
], ids=["chart_scxml", "chart_graph", "node_link_json", "write_graphml", "chart_dot",
        "chart_mermaid"])
def test_an_unknown_chart_name_is_a_value_error_listing_the_charts(export):
    with pytest.raises(ValueError, match="unknown chart 'nope'") as refused:
        export("nope")
    assert all(name in str(refused.value) for name in NAMES)
    for name in (["battlefield"], None, 3):  # not a name at all, even one that does not hash
        with pytest.raises(ValueError, match=re.escape(f"unknown chart {name!r}")):
            export(name)


@pytest.mark.parametrize("name", sorted(CHARTS))
def test_the_nodes_marked_initial_are_the_states_a_chart_starts_in(name: str) -> None:
    """A node's ``initial`` says entering its parent enters it (every region of a parallel
    state): following the marks down from the top gives the graph's ``initial``."""
    graph = chart_graph(name)
    marked = {n for n, data in graph.nodes(data=True) if data["initial"]}

    def entered(node: str) -> bool:
        parent = graph.nodes[node]["parent"]
        return node in marked and (not parent or entered(parent))

    assert {n for n in graph.nodes if entered(n)} == set(graph.graph["initial"].split())
