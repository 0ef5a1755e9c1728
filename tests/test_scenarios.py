"""Every bundled scenario passes, on both runtimes, with the charts agreeing with the view."""

from __future__ import annotations

import re

import pytest

from engine.errors import RuntimeDisagreement
from engine.game import Game
from engine.runner import OK, StepRecord, _run_step, run_file
from engine.runtime import CheckedRuntime, FastRuntime, compiled
from engine.scenario import load_scenario
from tests.chart_agreement import data_disagreements, disagreements
from tests.conftest import ROOT, SCENARIOS


def test_there_are_scenarios():
    assert len(SCENARIOS) >= 30


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario_passes_and_charts_agree(path):
    problems: list[str] = []

    def check(rec: StepRecord) -> None:
        problems.extend(f"step {rec.index}: {d}" for d in disagreements(rec.state, rec.configs))

    runtime = CheckedRuntime()
    result = run_file(path, runtime=runtime, on_step=check)
    assert result.code == OK, result.message
    assert not problems, problems
    assert runtime.events_checked > 0


def test_a_transition_the_compiled_tables_lack_is_a_disagreement(monkeypatch) -> None:
    """The checked runtime hears every event, even one the compiled tables have no transition
    for: tables that lost a transition python-statemachine has are caught at that event, not
    later by an ``expect`` that happens to look (or not at all)."""
    chart = compiled("battlefield")
    lost = [key for key in chart._by_state_event if key[1] == "check_stale_contest"]
    assert lost
    for key in lost:
        monkeypatch.setitem(chart._by_state_event, key, [])
    monkeypatch.setattr(chart, "_plans", {})  # what was worked out from the whole tables
    monkeypatch.setattr(chart, "_outcomes", {})
    with pytest.raises(RuntimeDisagreement, match="check_stale_contest from"):
        run_file(ROOT / "scenarios" / "026_cleanup_stale_contested_reapplied.yaml",
                 runtime=CheckedRuntime())


class RecordingRuntime:
    """The fast runtime, remembering every configuration it wrote, to catch anyone else writing
    one (around it rather than a subclass: the compiled build's classes have none)."""

    def __init__(self) -> None:
        self.fast = FastRuntime()
        self.written: dict[str, frozenset[str]] = {}

    def send(self, host, key, chart, event, model):  # noqa: ANN001
        chosen = self.fast.send(host, key, chart, event, model)
        self.written[key] = host.configs[key]
        return chosen


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_configurations_change_only_by_events(path):
    runtime = RecordingRuntime()
    initial: dict[str, frozenset[str]] = {}
    stray: list[str] = []

    def check(rec: StepRecord) -> None:
        if rec.index == 0:
            initial.update({k: v for k, v in rec.configs.items() if k not in runtime.written})
        for key, config in rec.configs.items():
            expected = runtime.written.get(key, initial.get(key))
            if config != expected:
                stray.append(f"step {rec.index}: {key} changed without an event")

    assert run_file(path, runtime=runtime, on_step=check).code == OK
    assert not stray, stray


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_the_games_data_agrees_with_its_charts_after_every_step(path):
    """Data that outlived what it describes shows in snapshots, and would make the model
    checker count one position as two (its key holds the data). The view hides it: it reads
    the applier only while Contested, and never whether the attackers were recalled (a
    mutation audit found the clearing of each pinned by nothing)."""
    scenario = load_scenario(path)
    game = Game.from_scenario(scenario)
    wrong = [f"setup: {w}" for w in data_disagreements(game.state)]
    for step in scenario.steps:
        _, failure, _ = _run_step(game, step)
        assert failure is None, failure
        wrong += [f"step {step.index}: {w}" for w in data_disagreements(game.state)]
    assert not wrong, wrong


def test_a_refusal_that_changed_the_state_fails_the_scenario(tmp_path, monkeypatch):
    """expect_error asks for the step to be refused with nothing changed; the runner compares
    the state before and after, so a refusal that leaves a change behind is caught, also deep
    inside what a copy of the state shares (a pending choice's options)."""
    from engine import actions
    from engine.errors import IllegalAction
    from engine.runner import FAILED
    from tests.helpers import write_yaml

    rules = actions.check

    def refuse_after_a_change(s, action):
        s.scores["P1"] += 1  # the kind of bug the check is there for
        raise IllegalAction("refused", "CR 000")

    def refuse_after_a_deep_change(s, action):
        if not s.pending:
            return rules(s, action)
        s.pending["options"].append("ghost")
        raise IllegalAction("refused", "CR 000")

    path = write_yaml(tmp_path, {"name": "refusal", "players": ["P1", "P2"],
                                 "battlefields": [{"id": "A"}],
                                 "steps": [{"expect_error": {"pass": "P2"}}]})
    (manual,) = [p for p in SCENARIOS if p.name.startswith("042_")]  # damage choices
    for broken, scenario in ((refuse_after_a_change, path),
                             (refuse_after_a_deep_change, manual)):
        monkeypatch.setattr(actions, "check", broken)
        result = run_file(scenario)
        assert result.code == FAILED and "the refused step changed the state" in result.message


def test_rule_coverage_lists_every_bundled_scenario():
    """docs/rule-coverage.md ends with a table of every scenario file, in order."""
    text = (ROOT / "docs" / "rule-coverage.md").read_text(encoding="utf-8")
    listed = re.findall(r"^\| `(\d{3}_[^`]+\.yaml)` \|", text, flags=re.MULTILINE)
    assert listed == sorted(p.name for p in SCENARIOS)


def test_rule_coverage_maps_every_bundled_scenario_to_a_rule():
    """Every scenario is named in at least one row of a rule or decision, not only in the file
    list at the end (the README says the page maps each rule to the scenarios that show it)."""
    text = (ROOT / "docs" / "rule-coverage.md").read_text(encoding="utf-8")
    rows = text.split("\n## Files", 1)[0]
    named: set[str] = set()
    for cell in re.findall(r"^\|[^|\n]*\| ([^\n]*) \|$", rows, flags=re.MULTILINE):
        for first, last in re.findall(r"\b(\d{3})(?:-(\d{3}))?\b", cell):
            named.update(f"{n:03d}" for n in range(int(first), int(last or first) + 1))
    assert sorted(p.name[:3] for p in SCENARIOS if p.name[:3] not in named) == []


def _coverage_rows() -> list[tuple[str, str]]:
    """(what, scenarios) of each row of docs/rule-coverage.md before its list of files."""
    text = (ROOT / "docs" / "rule-coverage.md").read_text(encoding="utf-8")
    rows = text.split("\n## Files", 1)[0]
    return re.findall(r"^\| ([^|\n]*) \| ([^\n]*) \|$", rows, flags=re.MULTILINE)


def test_rule_coverage_has_a_row_for_every_decision():
    decisions = (ROOT / "docs" / "decisions.md").read_text(encoding="utf-8")
    recorded = {int(n) for n in re.findall(r'<a id="d(\d+)"></a>', decisions)}
    covered: set[int] = set()
    for what, _ in _coverage_rows():
        for first, last in re.findall(r"\[D(\d+)\]\(decisions\.md#d\d+\)(?:-\[D(\d+)\])?", what):
            covered.update(range(int(first), int(last or first) + 1))
    assert len(recorded) >= 30
    assert sorted(recorded - covered) == []


def test_a_row_naming_a_cr_1_4_scenario_says_so():
    """The page says every scenario runs in profile seed unless its row says cr-1.4."""
    cr14 = {p.name[:3] for p in SCENARIOS
            if re.search(r"^rules: cr-1\.4\b", p.read_text(encoding="utf-8"), re.MULTILINE)}
    assert len(cr14) >= 5
    unsaid = [(what[:60], number) for what, cell in _coverage_rows()
              for number in sorted(cr14 & set(re.findall(r"\b\d{3}\b", cell)))
              if "cr-1.4" not in what + cell]
    assert unsaid == []
