"""riftchart's engine: game state, rules procedures, runtimes, exporters and command line.

The stable API for other programs::

    from engine import Game, IllegalAction, ScenarioError
"""

from importlib import metadata as _metadata

from .actions import Action, Add, Assign, Choose, EndTurn, Move, Pass, Play
from .errors import ActionInProgress, IllegalAction, RiftchartError, ScenarioError
from .game import Game

try:
    __version__ = _metadata.version("riftchart")
except _metadata.PackageNotFoundError:  # the sources on sys.path, not installed
    __version__ = "unknown"

__all__ = [
    "Action",
    "ActionInProgress",
    "Add",
    "Assign",
    "Choose",
    "EndTurn",
    "Game",
    "IllegalAction",
    "Move",
    "Pass",
    "Play",
    "RiftchartError",
    "ScenarioError",
]
