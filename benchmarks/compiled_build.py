"""The compiled build (``RIFTCHART_COMPILE=1``, see setup.py) made in a folder of its own,
beside the editable pure-Python install, and riftchart run on either: the benchmark measures
both on the same models and ``tests/test_compiled.py`` checks that they behave the same.

    .venv/bin/python benchmarks/compiled_build.py DIR    # build into DIR; prints its PYTHONPATH
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: what a wheel is built from
SOURCES = ("engine", "statecharts", "setup.py", "pyproject.toml", "README.md")


def compiled_modules() -> list[str]:
    """The modules setup.py compiles, as dotted names (read from its COMPILED list)."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.AnnAssign | ast.Assign):
            target = node.target if isinstance(node, ast.AnnAssign) else node.targets[0]
            if isinstance(target, ast.Name) and target.id == "COMPILED":
                paths = ast.literal_eval(node.value)
                return [p.removesuffix(".py").replace("/", ".") for p in paths]
    raise LookupError("setup.py has no COMPILED list")


def build(into: Path) -> Path:
    """Compile riftchart with mypyc into ``into`` (a copy of the sources, the wheel, and the
    installed package); return the folder to put on PYTHONPATH. Takes about half a minute."""
    src, wheels, site = into / "src", into / "wheel", into / "site"
    for folder in (src, wheels, site):
        shutil.rmtree(folder, ignore_errors=True)
    src.mkdir(parents=True)
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, src / name,
                            ignore=shutil.ignore_patterns("__pycache__", "*.so"))
        else:
            shutil.copy2(ROOT / name, src / name)
    pip = [sys.executable, "-m", "pip", "-q", "--disable-pip-version-check"]
    _run(pip + ["wheel", "--no-build-isolation", "--no-deps", "-w", str(wheels), str(src)])
    (wheel,) = wheels.glob("riftchart-*.whl")
    _run(pip + ["install", "--no-deps", "--target", str(site), str(wheel)])
    return site


def _run(command: list[str]) -> None:
    done = subprocess.run(command, env={**os.environ, "RIFTCHART_COMPILE": "1"},
                          capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"{' '.join(command[2:5])} failed:\n{done.stdout}{done.stderr}")


def without_timings(report: dict[str, Any]) -> dict[str, Any]:
    """A ``check --json`` report without what differs from run to run (its times, the plain
    search's among them with --symmetry)."""
    kept = {key: value for key, value in report.items()
            if key not in ("seconds", "states_per_second")}
    if kept.get("symmetry"):
        kept["symmetry"] = {key: value for key, value in kept["symmetry"].items()
                            if key != "seconds_without"}
    return kept


def riftchart(site: Path | None, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``riftchart ARGS`` on the compiled build in ``site``, or on the sources if None.

    ``cwd`` should be a folder without an ``engine`` package: ``python -m`` looks there first.
    """
    env = {**os.environ, "PYTHONPATH": str(site or ROOT)}
    return subprocess.run([sys.executable, "-m", "engine.cli", *args], env=env, cwd=cwd,
                          capture_output=True, text=True)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    print(build(Path(sys.argv[1]).resolve()))
