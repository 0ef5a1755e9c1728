"""riftchart's own exceptions."""

from __future__ import annotations

from .wording import one_line


class RiftchartError(Exception):
    """Base of riftchart's own errors."""


class IllegalAction(RiftchartError):
    """An action the rules forbid now. `.rule` names the rule (e.g. 'CR 312'); the game state is
    unchanged."""

    def __init__(self, message: str, rule: str) -> None:
        super().__init__(f"{message} ({rule})")
        self.rule = rule
        self.message = message

    def __reduce__(self) -> tuple:
        # pickled with both arguments, so that it crosses process boundaries (multiprocessing)
        return (type(self), (self.message, self.rule))


class ActionInProgress(RiftchartError):
    """``apply`` called on a game that is still taking an action (from an observer): the
    inner call is refused, and the outer action, which the observer's error reaches, is
    undone, so the game is as it was before both."""


class ScenarioError(RiftchartError):
    """A file that is not a valid scenario.

    Carries ``.file`` (the path as given, or ``<scenario>`` for a dict), ``.field`` (a dotted
    path like ``units[2].might`` or ``steps[3].move.to``), ``.line`` (1-based int, or None when
    unknown) and ``.message``. ``str()`` is always one line: ``FILE: FIELD: message (line N)``.
    """

    def __init__(self, file: str, field: str, message: str, line: int | None = None) -> None:
        self.file = file
        self.field = field
        self.message = message
        self.line = line
        text = f"{one_line(str(file))}: {one_line(str(field))}: {one_line(str(message))}"
        if line is not None:
            text += f" (line {line})"
        super().__init__(text)

    def __reduce__(self) -> tuple:
        return (type(self), (self.file, self.field, self.message, self.line))


class RuntimeDisagreement(AssertionError):
    """The fast runtime and python-statemachine took different transitions (raised by
    ``runtime.CheckedRuntime``)."""
