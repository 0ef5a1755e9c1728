"""``--workers N``: the explorer's levels shared among worker processes (forked; spawned
where the system has no fork).

Level-synchronous, and a state stays in the worker process that found it: a worker answers a
level with keys and small references (worker, handle), the parent decides which children are
new, and tells each worker which of its children to keep and under which node. Only the states
that move to even out the load between workers, and the start, are ever pickled. The parent
merges results in the level's order, so any number of workers explores exactly as one does
(docs/model-checking.md, "Workers").
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import pickle
import signal
import traceback
from collections import deque
from collections.abc import Callable, Iterator
from functools import partial
from multiprocessing.connection import Connection, wait
from multiprocessing.reduction import ForkingPickler
from typing import Any, NoReturn, cast

from .expansion import Expanded, Expansion, Keep
from .state import GameState

_RESULTS_PER_MESSAGE = 64  # a worker's results go to the parent in messages of this many states
# the workers start at the first level this large: the parent expands the small levels before
# it on its own, and the workers, forked then, begin with what it has learnt (the charts'
# plans, Cleanup's fixed points) instead of each learning it again
PARALLEL_FROM = 4 * _RESULTS_PER_MESSAGE
_BALANCE_SLACK = 8  # a worker may hold this many states (or 5%) above its share of a level
# a worker that has finished its share takes half of what another still owes, if that is more
# than this many states (moving a state costs about a fifth of expanding it)
_STEAL_ABOVE = 2 * _RESULTS_PER_MESSAGE
_DRAIN_EVERY = 16  # while merging, the parent reads what the workers have sent every so often


def _worker_main(line: Connection, index: int, expansion: Expansion,
                 parent_ends: list[Connection]) -> None:
    """A worker process: holds states by node, expands the ones the parent names, and keeps
    the children the parent says are new. Requests are served in the order they come.
    ``expansion`` is the parent's, as it was when the worker started."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    # the fork copied the parent's ends of this worker's pipe and of the earlier workers':
    # held here, they would keep every pipe open after the parent is gone (killed), and the
    # workers would wait on each other for ever instead of seeing the end of their pipe (where
    # processes are spawned rather than forked, these are copies made for the purpose)
    for end in parent_ends:
        end.close()
    gc.disable()  # see engine.explore.Explorer.run
    conn = _Parent(line)
    held: dict[int, GameState] = {}  # node -> state, until it is expanded or given away
    found: list[GameState] = []  # this level's children, by handle
    handles: dict[Any, int] = {}  # their keys: a child found twice is kept once
    # the keys of the children of earlier levels: all are nodes by now, or were refused past
    # --max-states (the parent has then marked the search incomplete; a transition to one is
    # only counted, as it would be in one process), except the ones the parent called
    # unsettled: states of the next turn, which a shorter path may yet reach
    known: set[bytes] = set()

    def keep(key: Any, child: GameState) -> tuple[int, int] | None:
        if key in known:
            return None
        handle = handles.get(key)
        if handle is None:
            handle = handles[key] = len(found)
            found.append(child)
        return index, handle

    try:
        while True:
            request, *args = conn.recv()
            if request == "stop":
                return
            if request == "keep":  # the previous level's new nodes this worker found
                kept, dropped, unsettled = args
                for node in dropped:  # reached by a shorter path: kept again, maybe elsewhere
                    del held[node]
                for handle, node in kept:
                    held[node] = found[handle]
                unsure = set(unsettled)
                known.update(key for key, handle in handles.items() if handle not in unsure)
                found.clear()
                handles.clear()
            elif request == "adopt":
                for node, data in args[0]:
                    held[node] = pickle.loads(data)
            elif request == "give":
                conn.send([(node, _pickled(held.pop(node))) for node in args[0]])
            elif request == "expand":
                nodes, expand = args
                _expand_share(conn, deque(nodes), held, partial(_expand_one, expansion, held,
                                                                 expand, keep))
            elif request == "steal":  # too late: this worker's share is done
                conn.send(_Given([]))
    except _ParentGone:
        return  # nobody is left to tell
    except Exception as error:  # the parent raises it, as it would have in one process
        with contextlib.suppress(_ParentGone):
            conn.send(_WorkerError(error))


def _expand_one(expansion: Expansion, held: dict[int, GameState], expand: bool, keep: Keep,
                node: int) -> Expanded:
    """A state's result, without the transitions the parent needs nothing of: those to a
    state this worker found in an earlier level (the parent already made it a node, or,
    past --max-states, expands nothing more) with no failure, unless a graph is drawn. The
    parent only counts them: most transitions go to known states, and this halves what
    workers send and what the parent merges."""
    result = expansion.process(node, held.pop(node), expand, keep)
    if expansion.graph:
        return result
    listed = [step._replace(action=_one_of_each(step.action)) for step in result.successors
              if step.child is not None or step.failures]
    return result._replace(successors=listed,
                           unlisted=len(result.successors) - len(listed))


_actions: dict[Any, Any] = {}


def _one_of_each(action: Any) -> Any:
    """The same object for equal actions: pickle then writes an action met before in a message
    as a reference to it (a few dozen actions occur in thousands of transitions), which saves
    the parent about a sixth of its time on the 1v1 model."""
    return _actions.setdefault(action, action)


def _expand_share(conn: _Parent, todo: deque[int], held: dict[int, GameState],
                  process: Callable[[int], tuple]) -> None:
    """Expand a worker's share of a level in order, sending the results every few states;
    between two messages, if the parent asks (another worker has run out of work), give it
    the last half of what is left to do."""
    while todo:
        part = [todo.popleft() for _ in range(min(_RESULTS_PER_MESSAGE, len(todo)))]
        conn.send([process(node) for node in part])
        if todo and conn.poll():
            request = conn.recv()
            assert request == ("steal",), request
            given = [todo.pop() for _ in range(len(todo) // 2)]
            conn.send(_Given([(node, _pickled(held.pop(node))) for node in reversed(given)]))


class _ParentGone(Exception):
    """The parent's end of the pipe is closed: it has stopped the search, or was killed."""


class _Parent:
    """A worker's end of its pipe to the parent. The parent gone (the end of the pipe, a broken
    pipe) is :class:`_ParentGone`, told apart from an ``OSError`` of the search itself (an
    invariant of the user's reading a file), which goes to the parent like any other error."""

    def __init__(self, conn: Connection):
        self._conn = conn

    def recv(self) -> Any:
        try:
            return self._conn.recv()
        except (EOFError, OSError):
            raise _ParentGone() from None

    def send(self, message: Any) -> None:
        # pickled first, as Connection.send would: an error in making the bytes is the
        # search's, and only the writing of them can find the parent gone
        data = ForkingPickler.dumps(message)
        try:
            self._conn.send_bytes(data)
        except OSError:
            raise _ParentGone() from None

    def poll(self) -> bool:
        try:
            return self._conn.poll()
        except (EOFError, OSError):
            raise _ParentGone() from None


class _Given:
    """A worker's answer to "steal": (node, pickled state) pairs, in order; maybe none."""

    def __init__(self, states: list[tuple[int, bytes]]):
        self.states = states


class _WorkerError:
    """An exception raised in a worker, carried to the parent with the worker's traceback as
    text (the frames themselves cannot cross). An exception that pickle cannot carry, or
    cannot make again (a class whose ``__init__`` takes other arguments than it keeps), comes
    as a RuntimeError that names its type and says what it said."""

    def __init__(self, error: Exception):
        self.trace = "".join(traceback.format_exception(error))
        try:
            pickle.loads(pickle.dumps(error))
            self.error: Exception = error
        except Exception:
            self.error = RuntimeError(f"{type(error).__qualname__}: {error} (raised in a worker "
                                      "process, whose traceback is this error's cause)")
            for note in getattr(error, "__notes__", ()):  # which invariant raised it
                self.error.add_note(note)

    def raise_it(self) -> NoReturn:
        raise self.error from WorkerTraceback(self.trace)


class WorkerTraceback(Exception):
    """The traceback of an exception raised in a worker process, as the worker formatted it:
    the cause of the exception the parent raises again."""

    def __str__(self) -> str:
        return "\n\n" + str(self.args[0]).rstrip("\n")


def _pickled(state: GameState) -> bytes:
    return pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)


def _check_picklable(expansion: Expansion) -> None:
    """A worker that is spawned (where the system has no fork) receives the expansion pickled,
    the invariants with it: one that cannot be is named before any worker starts."""
    for invariant in (*expansion.state_checks, *expansion.transition_checks):
        try:
            ForkingPickler.dumps(invariant)
        except (pickle.PicklingError, AttributeError, TypeError) as error:
            raise ValueError(
                f"invariant {invariant.name} cannot go to the worker processes, which are "
                "spawned on this system (it has no fork) and receive the invariants pickled: "
                "its functions must be functions of a module, not lambdas or functions "
                "defined inside others") from error


class Workers:
    """N worker processes that keep the states they find (see the module docstring): forked,
    or spawned where the system has no fork."""

    def __init__(self, count: int, expansion: Expansion):
        # forked where possible so that they start at once and share the parent's compiled
        # charts and what its expansion has learnt (and any patched rules, which the mutation
        # tests rely on)
        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if "fork" in methods else None)
        if context.get_start_method() != "fork":
            _check_picklable(expansion)
        self.conns: list[Connection] = []
        self.processes: list[Any] = []
        for index in range(count):
            mine, theirs = context.Pipe()
            process = context.Process(target=_worker_main, daemon=True,
                                      args=(theirs, index, expansion, [*self.conns, mine]))
            process.start()
            theirs.close()
            self.conns.append(mine)
            self.processes.append(process)
        # per worker, the children it found this level that became nodes: (handle, node);
        # the nodes it holds that a shorter path has reached since; the handles of children
        # whose keys it must not take as settled (see Explorer._tell_if_unsettled)
        self.kept: list[list[tuple[int, int]]] = [[] for _ in self.conns]
        self.dropped: list[list[int]] = [[] for _ in self.conns]
        self.unsure: list[list[int]] = [[] for _ in self.conns]
        self.stealing: tuple[int, int] | None = None  # (victim, thief) of an open "steal"

    def close(self) -> None:
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            process.join()

    def found(self, node: int, child: tuple[int, int]) -> None:
        """A child a worker found is new: that worker keeps it as ``node``."""
        worker, handle = child
        self.kept[worker].append((handle, node))

    def moved(self, node: int, before: Any, child: tuple[int, int]) -> None:
        """``node`` is now the state ``child``: the worker that holds it as it was, if any (a
        state found before the workers started is the parent's), lets it go."""
        if not isinstance(before, GameState):
            self.dropped[before[0]].append(node)
        self.found(node, child)

    def unsettled(self, child: tuple[int, int]) -> None:
        """The worker that found ``child`` is to send it again when it meets it again."""
        worker, handle = child
        self.unsure[worker].append(handle)

    def expand(self, level: list[tuple[int, Any]], expand: bool) -> Iterator[Expanded]:
        """The results for a level's states, in the level's order."""
        for worker, conn in enumerate(self.conns):
            _send(conn, ("keep", self.kept[worker], self.dropped[worker], self.unsure[worker]))
        self.kept = [[] for _ in self.conns]
        self.dropped = [[] for _ in self.conns]
        self.unsure = [[] for _ in self.conns]
        shares = self._shares(level)
        self._balance(shares)
        for worker, nodes in enumerate(shares):
            _send(self.conns[worker], ("expand", nodes, expand))
        yield from self._in_order([node for node, _ in level], shares, expand)

    def _shares(self, level: list[tuple[int, Any]]) -> list[list[int]]:
        """Each worker's nodes of the level, in order: the ones it holds, and the states the
        parent holds (found before the workers started), dealt out in even runs."""
        shares: list[list[int]] = [[] for _ in self.conns]
        held = [(node, where) for node, where in level if isinstance(where, GameState)]
        dealt: list[list[tuple[int, bytes]]] = [[] for _ in self.conns]
        for i, (node, state) in enumerate(held):
            dealt[i * len(self.conns) // len(held)].append((node, _pickled(state)))
        for worker, states in enumerate(dealt):
            if states:
                _send(self.conns[worker], ("adopt", states))
                shares[worker].extend(node for node, _ in states)
        for node, where in level:
            if not isinstance(where, GameState):
                shares[where[0]].append(node)
        for nodes in shares:
            # nodes are numbered as they are found: nearly the level's order (a node a
            # shorter path moved keeps its number), and the parent merges in the level's own
            nodes.sort()
        return shares

    def _balance(self, shares: list[list[int]]) -> None:
        """Move states from workers holding more than their share of the level to workers
        holding less. A move costs a pickle and an unpickle, so only the excess moves; the
        states moved are spread over the giver's part of the level, so that both keep
        answering all along the level's order."""
        total = sum(map(len, shares))
        fair = -(-total // len(shares))
        slack = max(_BALANCE_SLACK, fair // 20)
        moving: list[tuple[int, bytes]] = []
        for worker, nodes in enumerate(shares):
            excess = len(nodes) - fair
            if excess > slack:
                step = len(nodes) / excess
                chosen = {nodes[int(i * step)] for i in range(excess)}
                _send(self.conns[worker], ("give", sorted(chosen)))
                moving += self._receive(self.conns[worker])
                shares[worker] = [n for n in nodes if n not in chosen]
        for worker, nodes in enumerate(shares):
            room = fair - len(nodes)
            if room > 0 and moving:
                taken, moving = moving[:room], moving[room:]
                _send(self.conns[worker], ("adopt", taken))
                nodes.extend(node for node, _ in taken)
                nodes.sort()
        assert not moving, "every state moved has found a worker"

    def _in_order(self, order: list[int], shares: list[list[int]],
                  expand: bool) -> Iterator[Expanded]:
        """Yield the results in ``order``, reading whichever worker has answered meanwhile
        (so that no worker waits on a full pipe while the parent waits on another), and
        letting a worker that has finished its share take over part of another's."""
        owed = [len(nodes) for nodes in shares]  # results each worker still owes
        ready: dict[int, Expanded] = {}
        for merged, node in enumerate(order):
            while node not in ready:
                self._read(owed, ready, expand)
            if merged % _DRAIN_EVERY == 0:
                # a worker that sends while the parent merges waits until it is read: read
                # what has come meanwhile, so that none waits long
                self._read(owed, ready, expand, timeout=0)
            yield ready.pop(node)
        while self.stealing:  # the answer to a late "steal" is empty: read it
            self._read(owed, ready, expand)

    def _read(self, owed: list[int], ready: dict[int, Expanded], expand: bool,
              timeout: float | None = None) -> None:
        """Take in the messages the workers have sent (waiting for one unless ``timeout``),
        then maybe ask a worker with much left to do to give half of it to one that has
        nothing left."""
        victim = self.stealing[0] if self.stealing else None
        busy = [conn for worker, conn in enumerate(self.conns) if owed[worker] or worker == victim]
        for answered in wait(busy, timeout):
            conn = cast(Connection, answered)  # wait() gives back what it was given
            worker = self.conns.index(conn)
            message = self._receive(conn)
            if isinstance(message, _Given):
                assert self.stealing is not None, "a worker gives only when asked to"
                thief = self.stealing[1]
                self.stealing = None
                if message.states:
                    moved = len(message.states)
                    owed[worker] -= moved
                    owed[thief] += moved
                    _send(self.conns[thief], ("adopt", message.states))
                    _send(self.conns[thief], ("expand", [n for n, _ in message.states], expand))
            else:
                owed[worker] -= len(message)
                ready.update((result.node, result) for result in message)
        idle = [worker for worker, left in enumerate(owed) if not left]
        victim = max(range(len(owed)), key=owed.__getitem__)
        if idle and not self.stealing and owed[victim] > _STEAL_ABOVE:
            _send(self.conns[victim], ("steal",))
            self.stealing = (victim, idle[0])

    @staticmethod
    def _receive(conn: Connection) -> Any:
        try:
            message = conn.recv()
        except (EOFError, OSError):  # it closed its end, or was killed (connection reset)
            raise WorkerLost() from None
        if isinstance(message, _WorkerError):
            message.raise_it()
        return message


def _send(conn: Connection, message: Any) -> None:
    """Send a request to a worker: one that is gone is a :class:`WorkerLost`."""
    try:
        conn.send(message)
    except OSError:  # a broken pipe, or the connection reset
        raise WorkerLost() from None


class WorkerLost(RuntimeError):
    """A worker process ended in the middle of a search (killed, or out of memory): the
    search cannot finish. Its other workers are stopped with it."""

    def __init__(self) -> None:
        super().__init__("a worker process ended unexpectedly; the search stopped")
