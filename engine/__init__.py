"""riftchart's engine: game state, rules procedures, runtimes, exporters and command line.

The stable API for other programs::

    from engine import Game, IllegalAction, ScenarioError
"""

from .actions import Action, Add, Assign, Choose, EndTurn, Move, Pass, Play
from .errors import IllegalAction, RiftchartError, ScenarioError
from .game import Game

__all__ = [
    "Action",
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
