"""The committed diagrams/ are exactly what the chart definitions produce.

Diagrams are never drawn or edited by hand: `riftchart diagrams` writes them from the same
definitions the engine runs. When a chart changes, this test fails until diagrams/ is
regenerated with that command and committed. DOT and Mermaid text are compared byte for
byte; SVG depends on the installed Graphviz (its version is in the file), so for SVG only
its presence is checked here, and its determinism on this machine.
"""

from __future__ import annotations

import difflib
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
COMMITTED = ROOT / "diagrams"
TEXT_SUFFIXES = (".dot", ".mmd")
REGENERATE = "run `riftchart diagrams` (it writes diagrams/) and commit the result"


def _generate(out: Path) -> dict[str, bytes]:
    """Run the command a user runs, into ``out``; return its files by name."""
    done = subprocess.run(
        [sys.executable, "-m", "engine.cli", "diagrams", "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, f"riftchart diagrams failed:\n{done.stdout}{done.stderr}"
    return _read(out)


def _read(folder: Path) -> dict[str, bytes]:
    # dotfiles (.gitattributes and the like) are not diagrams
    return {
        p.name: p.read_bytes()
        for p in sorted(folder.iterdir())
        if p.is_file() and not p.name.startswith(".")
    }


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    return _generate(tmp_path_factory.mktemp("diagrams"))


def test_committed_diagrams_are_the_same_set_of_files(generated: dict[str, bytes]) -> None:
    assert COMMITTED.is_dir(), f"diagrams/ is missing: {REGENERATE}"
    committed = set(_read(COMMITTED))
    missing, extra = sorted(set(generated) - committed), sorted(committed - set(generated))
    assert not missing and not extra, (
        f"diagrams/ lacks {missing} and has {extra} that the definitions do not produce: "
        f"{REGENERATE}"
    )


@pytest.mark.parametrize("suffix", TEXT_SUFFIXES)
def test_committed_text_diagrams_match_the_definitions(
    generated: dict[str, bytes], suffix: str
) -> None:
    names = sorted(name for name in generated if name.endswith(suffix))
    assert names, f"riftchart diagrams wrote no {suffix} file"
    for name in names:
        committed_path = COMMITTED / name
        assert committed_path.exists(), f"diagrams/{name} is missing: {REGENERATE}"
        committed = committed_path.read_bytes()
        if committed != generated[name]:
            diff = "".join(
                list(
                    difflib.unified_diff(
                        committed.decode("utf-8", "replace").splitlines(keepends=True),
                        generated[name].decode("utf-8", "replace").splitlines(keepends=True),
                        f"diagrams/{name} (committed)",
                        f"{name} (from the definitions)",
                    )
                )[:40]
            )
            pytest.fail(f"diagrams/{name} differs from the chart definitions: {REGENERATE}\n"
                        f"{diff}")


def test_generating_twice_gives_the_same_bytes(
    generated: dict[str, bytes], tmp_path: Path
) -> None:
    again = _generate(tmp_path / "again")
    assert set(again) == set(generated)
    assert any(name.endswith(".svg") for name in again)
    changed = sorted(name for name in again if again[name] != generated[name])
    assert changed == [], f"riftchart diagrams is not deterministic for {changed}"
