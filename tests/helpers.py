"""Small helpers shared by several test modules (not itself a test module)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml


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


def write_yaml(tmp_path: Path, data: dict[str, Any], name: str = "model.yaml") -> Path:
    """``data`` written as YAML to ``tmp_path / name`` (a model or scenario file); its path."""
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path
