"""What every riftchart chart shares: strict python-statemachine settings and rule citations."""

from __future__ import annotations

from statemachine import StateChart
from statemachine.transition_list import TransitionList


class RiftChart(StateChart):
    """A chart that refuses to hide problems.

    python-statemachine's defaults turn a failing guard into an event and ignore an event that
    nothing handles; a rules simulator must do neither, so both are switched off here. The
    engine decides what is legal before it sends an event.
    """

    catch_errors_as_events = False
    allow_event_without_transition = False


def cite(rule: str, transitions: TransitionList) -> TransitionList:
    """Attach a rule citation (``S 184.3.a``, ``CR 345``) to every transition in the list.

    A transition has no slot of its own for it, so the citation rides as an attribute that
    the compiler, the exporters and the trace read back.
    """
    for transition in transitions.transitions:
        transition.rule = rule  # type: ignore[attr-defined]  # an attribute of our own
    return transitions
