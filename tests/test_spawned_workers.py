"""``--workers`` where the system has no fork (Windows): the workers are spawned, and receive
the search's expansion, its invariants with it, pickled. Run here by hiding fork from a child
interpreter, which then spawns its workers as such a system does."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from benchmarks.compiled_build import without_timings
from tests.conftest import ROOT

FFA = ROOT / "models" / "ffa_three_players.yaml"

# Hides fork, counts the worker processes spawned, then runs what follows it.
NO_FORK = """\
import multiprocessing, multiprocessing.context, sys
everything = multiprocessing.get_all_start_methods
multiprocessing.get_all_start_methods = lambda: [m for m in everything() if m != "fork"]
multiprocessing.set_start_method("spawn", force=True)
spawned = []
spawn_start = multiprocessing.context.SpawnProcess.start
def counted(process):
    spawned.append(process)
    spawn_start(process)
multiprocessing.context.SpawnProcess.start = counted
"""


def _run(tmp_path: Path, body: str) -> subprocess.CompletedProcess:
    script = tmp_path / "no_fork.py"
    script.write_text(NO_FORK + "if __name__ == '__main__':\n" + body)
    return subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


def _report(text: str) -> dict:
    return without_timings(json.loads(text))


def test_check_with_spawned_workers_reports_what_forked_ones_do(tmp_path: Path) -> None:
    args = [str(FFA), "--workers", "2", "--max-states", "6000", "--json", "--out",
            str(tmp_path / "out")]
    spawned = _run(tmp_path, (
        "    from engine import cli\n"
        f"    code = cli.main(['check', *{args!r}])\n"
        "    print(len(spawned), file=sys.stderr)\n"
        "    sys.exit(code)\n"))
    assert spawned.returncode == 0, spawned.stderr
    assert spawned.stderr == "2\n"  # the two workers were spawned, not forked
    forked = subprocess.run([sys.executable, "-m", "engine.cli", "check", *args], cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert forked.returncode == 0, forked.stderr
    assert _report(spawned.stdout) == _report(forked.stdout)


def test_an_own_invariant_of_a_module_goes_to_spawned_workers(tmp_path: Path) -> None:
    """Its violation, found by spawned workers, is the one a single process finds."""
    (tmp_path / "house_rules.py").write_text(
        "def nobody_scores(view):\n"
        "    return all(score == 0 for score in view['score'].values())\n")
    found = _run(tmp_path, (
        f"    sys.path.insert(0, {str(tmp_path)!r})\n"
        "    import house_rules\n"
        "    from engine.explore import Settings, explore, prepare\n"
        "    from engine.invariants import view_invariant\n"
        "    mine = view_invariant('nobody_scores', 'house rule 1', house_rules.nobody_scores,\n"
        "                          shows=['score'])\n"
        f"    start = prepare({str(FFA)!r}).start\n"
        "    for workers in (1, 2):\n"
        "        report = explore(start, Settings([mine], workers=workers))\n"
        "        violation = report.violations['nobody_scores']\n"
        "        print(report.states, violation.path, violation.witness)\n"
        "    print(len(spawned))\n"))
    assert found.returncode == 0, found.stderr
    one, two, spawned = found.stdout.splitlines()
    assert one == two and spawned == "2"
    assert "'score'" in one


def test_an_own_invariant_that_cannot_be_pickled_is_named(tmp_path: Path) -> None:
    """A lambda cannot go to a spawned worker: the search says which invariant, before any
    worker starts, rather than failing in multiprocessing."""
    refused = _run(tmp_path, (
        "    from engine.explore import Settings, explore, prepare\n"
        "    from engine.invariants import all_invariants, view_invariant\n"
        "    mine = view_invariant('p2_scoreless', 'house rule 1',\n"
        "                          lambda view: view['score']['P2'] == 0)\n"
        f"    start = prepare({str(FFA)!r}).start\n"
        "    try:\n"
        "        explore(start, Settings([*all_invariants(), mine], workers=2))\n"
        "    except ValueError as error:\n"
        "        print(error)\n"
        "    print(len(spawned))\n"))
    assert refused.returncode == 0, refused.stderr
    message, spawned = refused.stdout.splitlines()
    assert message.startswith("invariant p2_scoreless cannot go to the worker processes")
    assert "not lambdas" in message and spawned == "0"
