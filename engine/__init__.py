"""riftchart's engine: game state, rules procedures, runtimes, exporters and command line.

The stable API for other programs::

    from engine import Game, IllegalAction, ScenarioError

The names below are loaded when first used (PEP 562), not when ``engine`` is imported: the
``riftchart`` command's entry point (:mod:`engine.cli`) is inside this package, and it must
start before the engine loads to be able to answer Ctrl-C during the load.
"""

import importlib as _importlib
import typing as _typing

if _typing.TYPE_CHECKING:  # what type checkers and editors see: the same names, loaded at once
    from .actions import Action, Add, Assign, Choose, EndTurn, Move, Pass, Play
    from .errors import ActionInProgress, IllegalAction, RiftchartError, ScenarioError
    from .game import Game

    __version__: str

#: each name of the API, and the module that defines it
_HOMES = {
    **dict.fromkeys(("Action", "Add", "Assign", "Choose", "EndTurn", "Move", "Pass", "Play"),
                    "actions"),
    **dict.fromkeys(("ActionInProgress", "IllegalAction", "RiftchartError", "ScenarioError"),
                    "errors"),
    "Game": "game",
}

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


if not _typing.TYPE_CHECKING:  # hidden from type checkers, which see the names above

    def __getattr__(name: str) -> object:
        if name == "__version__":
            value = _version()
        elif name in _HOMES:
            value = getattr(_importlib.import_module(f".{_HOMES[name]}", __name__), name)
        else:
            # a module of the package (``engine.actions.from_step`` after ``import engine``,
            # as when the package loaded its modules at once)
            try:
                value = _importlib.import_module(f".{name}", __name__)
            except ModuleNotFoundError as missing:
                if missing.name != f"{__name__}.{name}":
                    raise  # the module is there, and what it imports is not
                raise AttributeError(
                    f"module {__name__!r} has no attribute {name!r}") from None
        globals()[name] = value  # found directly from now on
        return value


def _version() -> str:
    """The installed distribution's version (reading it costs most of what importing
    ``engine`` would otherwise cost, so it too waits until asked)."""
    from importlib import metadata

    try:
        return metadata.version("riftchart")
    except metadata.PackageNotFoundError:  # the sources on sys.path, not installed
        return "unknown"


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, "__version__"})
