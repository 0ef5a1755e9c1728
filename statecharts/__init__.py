"""riftchart's charts: python-statemachine definitions, and nothing else.

This package imports nothing from ``engine``; the engine reads these definitions.
"""

from .base import RiftChart, cite
from .battlefield import Battlefield
from .focus import Focus
from .priority import Priority
from .scheduler import Scheduler
from .turn import Turn

#: Every chart, by the name the exporters and the engine use for it.
CHARTS: dict[str, type[RiftChart]] = {
    "battlefield": Battlefield,
    "focus": Focus,
    "priority": Priority,
    "scheduler": Scheduler,
    "turn": Turn,
}

#: The charts a game runs once (the battlefield chart runs once per battlefield), in the order
#: a game keeps them
GAME_WIDE_CHARTS: tuple[str, ...] = ("focus", "priority", "scheduler", "turn")

__all__ = [
    "CHARTS", "GAME_WIDE_CHARTS", "Battlefield", "Focus", "Priority", "RiftChart", "Scheduler",
    "Turn", "cite",
]
