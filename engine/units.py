"""Every unit the game has made, by id, wherever it is (board, hand, trash): a dict that
keeps what it was asked.

It lives apart from ``state`` because it subclasses ``dict``: a compiled build (mypyc, see
docs/model-checking.md) compiles ``state`` and leaves this module as it is.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from .state import Unit

T = TypeVar("T")


class Units(dict):
    """The units by id: a dict that also keeps answers worked out from its entries.

    Cleanup's guards and the legality checks ask "who is at this battlefield?" many times
    between two changes to the units, and the model checker asks for the units' part of a
    state's key; the answers are kept here and dropped by every method that changes an entry
    (a dict has no other way to change), so they are never stale.
    """

    __slots__ = ("_answers",)

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._answers: dict[Hashable, Any] = {}

    def players_at(self, where: str, players: tuple[str, ...]) -> tuple[str, ...]:
        """Players (of ``players``, in that order) who control units at ``where``."""
        asked = (where, players)
        found = self._answers.get(asked)
        if found is None:
            present = {u.controller for u in self.values() if u.at == where}
            found = self._answers[asked] = tuple(p for p in players if p in present)
        return found

    def derived(self, compute: Callable[[Units], T]) -> T:
        """``compute(self)``, kept until an entry changes: ``compute`` must read the units
        only, and be a module-level function (it names its answer)."""
        found = self._answers.get(compute)
        if found is None:
            found = self._answers[compute] = compute(self)
        return found

    def copy(self) -> Units:
        """A copy with the same answers (its entries are the same until one changes)."""
        new = Units.__new__(Units)  # not __init__: its answers are these
        dict.update(new, self)
        new._answers = self._answers.copy()
        return new

    def __reduce__(self) -> tuple:
        return Units, (dict(self),)

    # --- every way to change an entry drops the answers ------------------------------------

    def __setitem__(self, uid: str, unit: Unit) -> None:
        self._answers.clear()
        super().__setitem__(uid, unit)

    def __delitem__(self, uid: str) -> None:
        self._answers.clear()
        super().__delitem__(uid)

    def __ior__(self, other: Any) -> Units:  # type: ignore[misc]  # like dict's own
        self._answers.clear()
        return super().__ior__(other)

    def clear(self) -> None:
        self._answers.clear()
        super().clear()

    def pop(self, *args: Any) -> Any:
        self._answers.clear()
        return super().pop(*args)

    def popitem(self) -> tuple[str, Unit]:
        self._answers.clear()
        return super().popitem()

    def setdefault(self, *args: Any) -> Any:
        self._answers.clear()
        return super().setdefault(*args)

    def update(self, *args: Any, **kwargs: Any) -> None:
        self._answers.clear()
        super().update(*args, **kwargs)
