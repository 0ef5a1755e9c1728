"""The embedding documentation tells the truth: its example and examples/embed.py both run.

If either stops running, a reader copying it would hit the failure first, so these tests
run them exactly as shipped rather than a paraphrase.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import ModuleType

from engine import Game, IllegalAction, Pass, ScenarioError
from tests.conftest import ROOT
from tests.helpers import load_script, python_blocks

EXAMPLE = ROOT / "examples" / "embed.py"
DOC = ROOT / "docs" / "embedding.md"


def _load_example() -> ModuleType:
    """examples/ is not a package: load the script as a module from its path."""
    return load_script("riftchart_embed_example", EXAMPLE)


def test_example_plays_to_a_winner():
    outcome = _load_example().main(verbose=False)
    assert outcome.winner in ("P1", "P2"), f"the example game did not end: {outcome}"
    assert outcome.trace, "the example game produced no trace"
    assert 0 < outcome.actions < 500
    # the observer saw transitions of more than one chart
    assert sum(outcome.transitions.values()) > 0 and len(outcome.transitions) >= 2
    assert outcome.resumed_identically, "the mid-game JSON snapshot did not resume identically"


def test_example_is_deterministic():
    module = _load_example()
    first, second = module.main(verbose=False), module.main(verbose=False)
    assert first.trace == second.trace and first.winner == second.winner


def test_example_runs_as_a_script():
    done = subprocess.run(
        [sys.executable, str(EXAMPLE)], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    assert "winner: P" in done.stdout
    assert "refused:" in done.stdout  # the illegal-action demonstration ran
    assert "ends the same way: True" in done.stdout


def test_the_documented_example_runs(capsys):
    blocks = python_blocks(DOC.read_text(encoding="utf-8"))
    assert blocks, "docs/embedding.md has no ```python block"
    namespace: dict[str, object] = {"__name__": "embedding_doc"}
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), namespace)  # noqa: S102 - our own document
    printed = capsys.readouterr().out
    assert "winner: P1" in printed


def test_the_readme_example_runs(capsys, monkeypatch):
    readme = ROOT / "README.md"
    section = readme.read_text(encoding="utf-8").split("## Embedding", 1)[1]
    blocks = python_blocks(section)
    assert blocks, "README's Embedding section has no python block"
    monkeypatch.chdir(ROOT)
    exec(compile(blocks[0], str(readme), "exec"), {"__name__": "readme"})  # noqa: S102
    printed = capsys.readouterr().out
    assert "P1 conquers A and scores 1 point" in printed
    assert "winner: P1 {'P1': 1, 'P2': 0}" in printed
    assert "CR 467 the game is over" in printed


def test_documented_errors_carry_their_fields():
    """The attributes docs/embedding.md promises on both errors."""
    try:
        Game.from_scenario({"name": "bad", "players": ["P1"], "battlefields": [{"id": "A"}]})
    except ScenarioError as error:
        assert error.file == "<scenario>"
        assert error.field == "players"
        assert error.line is None
        assert error.message and "\n" not in str(error)
    else:
        raise AssertionError("a one-player scenario was accepted")

    game = Game.from_scenario(
        {"name": "ok", "players": ["P1", "P2"], "battlefields": [{"id": "A"}]}
    )
    try:
        game.apply(Pass("P2"))
    except IllegalAction as refused:
        assert refused.rule and refused.message
        assert str(refused) == f"{refused.message} ({refused.rule})"
    else:
        raise AssertionError("P2 passed without Priority")


def test_scenario_error_names_the_yaml_line(tmp_path: Path):
    path = tmp_path / "bad.yaml"
    path.write_text(
        "name: bad\nplayers: [P1, P2]\nbattlefields: [{id: A}]\nunits:\n"
        "  - {id: U1, controller: P1, might: -1, at: base}\n",
        encoding="utf-8",
    )
    try:
        Game.from_scenario(path)
    except ScenarioError as error:
        assert error.file == str(path)
        assert error.field == "units[0].might"
        assert error.line == 5
    else:
        raise AssertionError("a negative might was accepted")


def test_documented_exports_are_written(tmp_path: Path):
    for fmt, suffix in (("scxml", ".scxml"), ("graphml", ".graphml"), ("json", ".json")):
        out = tmp_path / fmt
        done = subprocess.run(
            [sys.executable, "-m", "engine.cli", "export", "--format", fmt, "--out", str(out)],
            capture_output=True, text=True, timeout=120, cwd=ROOT,
        )
        assert done.returncode == 0, done.stderr
        written = sorted(p.name for p in out.iterdir())
        charts = ("battlefield", "focus", "priority", "scheduler", "turn")
        assert written == sorted(f"{chart}{suffix}" for chart in charts)


def test_a_program_using_the_api_type_checks_strictly(tmp_path: Path) -> None:
    """The package is typed (py.typed): a user's program that drives a game and turns actions
    into scenario steps passes ``mypy --strict``, run from outside the checkout so that engine
    is found as the installed package is; so do the examples the docs ship."""
    program = tmp_path / "user_program.py"
    program.write_text(
        "import engine.actions\n"
        "from engine import Game, Move\n\n"
        "game = Game.from_scenario({'name': 'x', 'players': ['P1', 'P2'],\n"
        "                           'battlefields': [{'id': 'A'}],\n"
        "                           'units': [{'id': 'U1', 'controller': 'P1', 'might': 2,\n"
        "                                      'at': 'base'}]})\n"
        "steps = [engine.actions.to_step(a) for a in game.legal_actions()]\n"
        "step = engine.actions.to_step(Move('P1', ('U1',), 'A'))\n"
        "back = engine.actions.from_step('pass', 'P1')\n"
        "lines: list[str] = game.apply(back) if False else []\n"
        # the package's lazily loaded names are typed as they are: a str, a runtime class
        "version: str = engine.__version__\n"
        "checked = engine.runtime.CheckedRuntime()\n",
        encoding="utf-8")
    # and what users copy from: examples/embed.py and every python block of the docs
    shipped = [EXAMPLE.name]
    (tmp_path / EXAMPLE.name).write_text(EXAMPLE.read_text(encoding="utf-8"), encoding="utf-8")
    for doc in (ROOT / "README.md", DOC, ROOT / "docs" / "model-checking.md"):
        for number, block in enumerate(python_blocks(doc.read_text(encoding="utf-8"))):
            name = f"{doc.stem.lower().replace('-', '_')}_{number}.py"
            (tmp_path / name).write_text(block, encoding="utf-8")
            shipped.append(name)
    assert len(shipped) >= 5, shipped
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental",
                           program.name, *shipped], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


def test_observe_refuses_what_it_cannot_call() -> None:
    game = Game.from_scenario(ROOT / "scenarios" / "001_flow_empty_battlefield_conquer.yaml")
    for not_a_callback in (None, 5, "print"):
        try:
            game.observe(not_a_callback)  # type: ignore[arg-type]
        except TypeError as refused:
            assert "callable" in str(refused)
        else:
            raise AssertionError(f"observe({not_a_callback!r}) was accepted")
    assert game.legal_actions() and game.apply(game.legal_actions()[0])  # still usable


def test_legal_actions_refuses_a_bound_that_is_not_a_count_of_targets() -> None:
    game = Game.from_scenario(ROOT / "scenarios" / "001_flow_empty_battlefield_conquer.yaml")
    for wrong, error in (("2", TypeError), (None, TypeError), (2.5, TypeError),
                         (True, TypeError), (0, ValueError), (-1, ValueError)):
        try:
            game.legal_actions(max_targets=wrong)  # type: ignore[arg-type]
        except error as refused:
            assert "max_targets" in str(refused)
        else:
            raise AssertionError(f"max_targets={wrong!r} was accepted")
    assert game.legal_actions(max_targets=3)


def test_tables_in_the_docs_are_not_split_by_a_paragraph() -> None:
    """A Markdown table ends at its first line that is not a row: a row after a paragraph
    shows as a stray line of pipes."""
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        lines = doc.read_text(encoding="utf-8").splitlines()
        in_code = False
        for number, (before, line) in enumerate(zip(["", *lines], lines, strict=False), 1):
            if line.startswith("```"):
                in_code = not in_code
            if not in_code and line.startswith("|") and before.strip() and \
                    not before.startswith("|"):
                raise AssertionError(f"{doc.name}:{number}: a table row after a paragraph")
