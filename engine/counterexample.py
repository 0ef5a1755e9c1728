"""What the model checker writes: counterexample scenarios and the state graph.

A counterexample is an ordinary scenario file, so ``riftchart run`` replays it: the source
scenario's setup (every key but ``name`` and ``steps``), its action steps, the actions of the
shortest path found, and a final ``expect`` holding the keys of the state view that show the
violation. Under rules where the invariant holds, that expect fails (the game never gets there);
under the rules that were checked, it passes.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from .actions import to_step
from .diagrams import dot_string
from .runner import describe
from .scenario import STDIN
from .wording import counted
from .writable import write_whole

if TYPE_CHECKING:
    from .explore import Report, Violation
    from .prepared import Prepared


def scenario_for(
    source: str | Path, prefix: list[dict[str, Any]], violation: Violation,
    profile: str | None = None, document: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The counterexample as scenario data (a dict ready for YAML). ``profile`` is the one the
    search ran under: the file names it (``rules:``) when it is not the source's own, so that
    it replays under the rules that were checked. The setup is copied from ``document``, the
    source as it was read for the search (:attr:`Prepared.document`), else from the file."""
    original = document if document is not None else (
        yaml.safe_load(Path(source).read_text(encoding="utf-8-sig")) or {})
    setup = {k: v for k, v in original.items() if k not in ("name", "steps")}
    if profile and profile != (original.get("rules") or "seed"):
        setup["rules"] = profile
    invariant = violation.invariant
    name = f"Counterexample: {invariant.name} ({invariant.rule}) in {original.get('name', source)}"
    steps = [*prefix, *(to_step(a) for a in violation.path), {"expect": violation.witness}]
    if invariant.refusals:
        steps += [{"expect_error": step} for step in invariant.refusals(violation.witness)]
    return {"name": name, **setup, "steps": steps}


def write(
    source: str | Path,
    prefix: list[dict[str, Any]],
    violation: Violation,
    out_dir: Path,
    profile: str | None = None,
) -> Path:
    """Write one counterexample as ``OUT/<source stem>.<invariant>.yaml``, whole or not at all;
    returns its path (``profile`` as for :func:`scenario_for`)."""
    path = path_for(source, violation.invariant.name, out_dir)
    write_whole(out_dir, {path: text_for(source, prefix, violation, profile)})
    return path


def text_for(
    source: str | Path, prefix: list[dict[str, Any]], violation: Violation,
    profile: str | None = None, document: Mapping[str, Any] | None = None,
) -> str:
    """The counterexample file's text: a comment saying what fails, then the scenario
    (``profile`` and ``document`` as for :func:`scenario_for`)."""
    data = scenario_for(source, prefix, violation, profile, document)
    invariant = violation.invariant
    beyond = f", after the file's own {len(prefix)}," if prefix else ""
    header = (
        f"# Written by riftchart's model checker: invariant {invariant.name} ({invariant.rule}) "
        "fails\n"
        f"# {counted(violation.depth, 'step')}{beyond} from the start of {_shown(source)}.\n"
        + (f"# {invariant.doc}\n" if invariant.doc else "") +
        "# The final expect shows the violation: it holds under the rules that were checked\n"
        "# and fails (exit 1) under rules that keep the invariant.\n"
    )
    steps = data.pop("steps")
    body = yaml.safe_dump(data, sort_keys=False, default_flow_style=None, width=100)
    return _wrap_comment(header) + body + _steps_yaml(steps)


def path_for(source: str | Path, invariant: str, out_dir: Path) -> Path:
    """Where the counterexample of ``invariant`` for the scenario ``source`` is written."""
    stem = "stdin" if str(source) == STDIN else Path(source).stem
    return out_dir / f"{stem}.{invariant}.yaml"


def _shown(source: str | Path) -> str:
    return "standard input" if str(source) == STDIN else Path(source).name


def _steps_yaml(steps: list[dict[str, Any]]) -> str:
    """One action step per line, in flow style, as people write scenarios; the final expect
    as a block, one view key per line."""
    lines = ["steps:"]
    for step in steps:
        flow = "expect" not in step
        text = yaml.safe_dump(step, sort_keys=False, default_flow_style=True if flow else None,
                              width=10_000)
        first, *rest = text.rstrip("\n").split("\n")
        lines.append(f"  - {first}")
        lines += [f"    {line}" for line in rest]
    return "\n".join(lines) + "\n"


def _wrap_comment(text: str, width: int = 98) -> str:
    lines = []
    for line in text.splitlines():
        words, current = line[2:].split(), "#"
        for word in words:
            if len(current) + 1 + len(word) > width:
                lines.append(current)
                current = "#"
            current += " " + word
        lines.append(current)
    return "\n".join(lines) + "\n"


def write_all(
    source: str | Path, prepared: Prepared, report: Report, out_dir: Path,
) -> dict[str, Path]:
    """Every violation of ``report`` written, all files or none (an ``OSError`` names the
    file); invariant name -> file. Each file names the profile ``prepared`` was set up under
    (``--rules``) when it is not the source's own."""
    paths = {name: path_for(source, name, out_dir) for name in report.violations}
    if paths:
        write_whole(out_dir, {
            paths[name]: text_for(source, prepared.prefix, violation, prepared.scenario.rules,
                                  prepared.document)
            for name, violation in report.violations.items()
        })
    return paths


# --- the state graph ---------------------------------------------------------------------------


def write_graph(path: Path, report: Report) -> None:
    """The explored states and transitions as GraphML (networkx) or DOT, by the file's suffix;
    whole or not at all."""
    content = _graphml(report) if path.suffix.lower() == ".graphml" else _dot(report)
    write_whole(path.parent, {path: content})


def _edge_label(action: Any) -> str:
    return describe(to_step(action))


def _graphml(report: Report) -> bytes:
    import networkx as nx

    from .graphs import graphml_bytes

    graph = nx.MultiDiGraph(complete=report.complete)
    for node in sorted(report.nodes):
        graph.add_node(f"s{node}", **report.nodes[node])
    # keyed e0, e1... in the order found: unique in the file, so they serve as GraphML edge
    # ids (without keys every edge's id would be 0, and viewers keep one edge of them all)
    for index, (source, target, action) in enumerate(report.edges):
        graph.add_edge(f"s{source}", f"s{target}", key=f"e{index}", action=_edge_label(action))
    return graphml_bytes(graph)


def _dot(report: Report) -> str:
    lines = ["digraph states {", "  node [shape=box, fontsize=10];"]
    for node in sorted(report.nodes):
        attrs = report.nodes[node]
        label = [f"s{node}", f"{attrs['state']}, turn {attrs['turn']}"]
        label += [f"{key} {attrs[key]}" for key in ("focus", "chain", "winner") if attrs[key]]
        lines.append(f"  s{node} [label={dot_string(chr(10).join(label))}];")
    for source, target, action in report.edges:
        lines.append(f"  s{source} -> s{target} [label={dot_string(_edge_label(action))}];")
    lines.append("}")
    return "\n".join(lines) + "\n"
