"""Small helpers shared by several test modules (not itself a test module)."""

from __future__ import annotations

import dataclasses
import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml

from engine.runner import run_file
from engine.state import GameState


def load_script(name: str, path: Path) -> ModuleType:
    """A script outside the packages (benchmarks/, examples/, tools/) loaded as module ``name``,
    registered in ``sys.modules`` first: dataclasses resolve string annotations through it."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def step_block(text: str, index: int) -> list[str]:
    """The lines `format_comparison` (`riftchart compare`) prints for one step after the
    parting, its header excluded."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"step {index}:"))
    block = []
    for line in lines[start + 1:]:
        if line.startswith(("step ", "The profiles part")):
            break
        block.append(line)
    return block


def python_blocks(markdown: str) -> list[str]:
    """The ```python blocks of a document, in order (the docs' examples the tests run)."""
    return re.findall(r"^```python\n(.*?)^```", markdown, flags=re.S | re.M)


def trace_lines(path: Path, rules: str | None = None) -> list[str]:
    """Every trace line a scenario's run prints, all steps together."""
    return [line for step in run_file(path, rules=rules).steps for line in step.lines]


def write_yaml(tmp_path: Path, data: dict[str, Any], name: str = "model.yaml") -> Path:
    """``data`` written as YAML to ``tmp_path / name`` (a model or scenario file); its path."""
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def twin_moved(start: GameState, twin: str, other: str, to: str = "B") -> GameState:
    """``start`` with ``twin`` at ``to``, first of the two twins in board order: called with
    the twins each way round, it gives two states that are each other's renaming, board order
    included (what --symmetry merges)."""
    state = start.copy()
    first, second = sorted((state.units[twin], state.units[other]), key=lambda u: u.order)
    state.units[twin] = dataclasses.replace(state.units[twin], at=to, order=first.order)
    state.units[other] = dataclasses.replace(state.units[other], order=second.order)
    return state
