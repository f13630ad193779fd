"""Supervisors: a nursery of children restarted one-for-one, within an intensity limit.

Like an OTP `supervisor` with the `one_for_one` strategy: when a child
crashes (an unexpected exception, or `kill`), only that child is restarted,
from its last committed snapshot. If more than `max_restarts` restarts
happen within `within_s` seconds, the supervisor gives up: it stops all its
children and fails with `RestartIntensityExceeded`, which its own parent
treats as a crash of this supervisor (escalation). The root supervisor's
failure ends `open_runtime`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, final

import msgspec
import trio

from ..errors import ActorError, ActorNotFound, MailboxClosed
from ._actor import Actor, InjectedCrash, StateT
from ._cell import ActorCell, ActorStatus, Address
from ._util import NoPublicConstructor

if TYPE_CHECKING:
    from ._runtime import Runtime

__all__ = [
    "DEFAULT_MAILBOX_SIZE",
    "RestartIntensity",
    "RestartIntensityExceeded",
    "Supervisor",
]

DEFAULT_MAILBOX_SIZE = 64
"""Messages an actor's mailbox holds before senders block."""


class RestartIntensity(msgspec.Struct, frozen=True, kw_only=True):
    """At most `max_restarts` restarts within any `within_s` seconds, else escalate."""

    max_restarts: int = 3
    within_s: float = 5.0


class RestartIntensityExceeded(Exception):
    """A supervisor gave up restarting its children; raised into its parent.

    `__cause__` is the last child failure.
    """

    def __init__(self, supervisor: str, child: str, intensity: RestartIntensity) -> None:
        super().__init__(
            f"supervisor {supervisor}: child {child} crashed more than "
            f"{intensity.max_restarts} times within {intensity.within_s} s"
        )
        self.supervisor = supervisor
        self.child = child
        self.intensity = intensity


class _Supervised(Protocol):
    """What a supervisor runs: an actor cell or a nested supervisor."""

    name: str

    async def run_incarnation(self, started: Callable[[], None], restarted: bool) -> None: ...

    def close(self, error_type: type[ActorError], reason: str) -> None: ...


class _Child:
    """Bookkeeping for one supervised child: how to cancel it, whether it was killed."""

    __slots__ = ("exited", "failure", "kill_requested", "running", "scope", "unit")

    def __init__(self, unit: _Supervised) -> None:
        self.unit = unit
        self.scope: trio.CancelScope | None = None
        self.kill_requested = False
        #: What crashed it from outside its task (`Supervisor._crash`), else a kill.
        self.failure: Exception | None = None
        self.running = False
        self.exited = trio.Event()


@final
class Supervisor(metaclass=NoPublicConstructor):
    """A nursery of supervised children, spawned and stopped at runtime.

    Get the root from `Runtime.root` and nested ones from `spawn_supervisor`
    (no public constructor). Methods must be called from inside the
    runtime's `trio.run`.
    """

    def __init__(
        self, name: str, runtime: Runtime, intensity: RestartIntensity | None = None
    ) -> None:
        self.name = name
        self.runtime = runtime
        self.intensity = intensity or RestartIntensity()
        self._children: dict[str, _Child] = {}
        #: Children that start on first use (`spawn_on_use`) and have not started yet.
        self._on_use: dict[str, None] = {}
        self._nursery: trio.Nursery | None = None
        self._restart_times: deque[float] = deque()
        self._escalation: RestartIntensityExceeded | None = None

    def __repr__(self) -> str:
        return f"<Supervisor {self.name} children={list(self._children)}>"

    @property
    def children(self) -> list[str]:
        """Names of the current children, in spawn order; then those not started yet
        (`spawn_on_use`)."""
        return [*self._children, *self._on_use]

    # -- public API ----------------------------------------------------------

    async def spawn(
        self,
        name: str,
        factory: Callable[[], Actor[StateT, Any]],
        *,
        initial: StateT,
        mailbox_size: int = DEFAULT_MAILBOX_SIZE,
    ) -> Address:
        """Start an actor named `name` and return its address once `init` finished.

        `factory()` makes a fresh instance for each (re)start; `initial` is
        the snapshot of the first start, later ones use the last `commit`.
        The name is registered at once, so calls sent during `init` wait.
        Raises `ValueError` if the name is taken, `RuntimeError` if this
        supervisor is not running, and whatever `init` raised on the first
        start (then nothing is left behind).
        """
        nursery = self._require_nursery()
        self._check_free(name)
        cell: ActorCell[StateT] = ActorCell(
            name, factory, initial, mailbox_size, self.runtime, self
        )
        self.runtime.registry._add(cell)
        child = _Child(cell)
        self._children[name] = child
        try:
            await nursery.start(self._supervise, child, False)
        except BaseException:
            if self._children.get(name) is child:
                del self._children[name]
            cell.close(MailboxClosed, "failed to start")
            raise
        self._trace_lifecycle("spawn", name)
        return cell.address

    def spawn_on_use(
        self,
        name: str,
        factory: Callable[[], Actor[StateT, Any]],
        *,
        initial: StateT,
        mailbox_size: int = DEFAULT_MAILBOX_SIZE,
    ) -> None:
        """Register `name` now and start its actor on first use: the first
        `Registry.lookup` / `get` of the name starts it as `spawn` would, without waiting
        for its `init` (messages sent meanwhile wait in its mailbox), and returns its
        address. For many actors of which few may be used (a folder's diagrams). Once
        started it is supervised as any child; an `init` that fails is a crash (restarted),
        not an error of whoever used the name. `stop` forgets a name not started yet.
        Raises `ValueError` if the name is taken.
        """
        self._check_free(name)
        self._on_use[name] = None
        self.runtime.registry._add_on_use(
            name, lambda: self._start_on_use(name, factory, initial, mailbox_size)
        )

    def _start_on_use(
        self,
        name: str,
        factory: Callable[[], Actor[StateT, Any]],
        initial: StateT,
        mailbox_size: int,
    ) -> Address:
        del self._on_use[name]
        cell: ActorCell[StateT] = ActorCell(
            name, factory, initial, mailbox_size, self.runtime, self
        )
        self.runtime.registry._add(cell)
        child = _Child(cell)
        self._children[name] = child
        if self._nursery is not None:  # else this supervisor's next start starts it
            self._nursery.start_soon(self._supervise, child, False, True)
        self._trace_lifecycle("spawn", name)
        return cell.address

    async def spawn_supervisor(
        self, name: str, *, intensity: RestartIntensity | None = None
    ) -> Supervisor:
        """Start a nested supervisor; its escalations count as its crashes here."""
        nursery = self._require_nursery()
        self._check_free(name)
        supervisor: Supervisor = Supervisor._create(name, self.runtime, intensity)
        child = _Child(supervisor)
        self._children[name] = child
        try:
            await nursery.start(self._supervise, child, False)
        except BaseException:
            if self._children.get(name) is child:
                del self._children[name]
            raise
        self._trace_lifecycle("spawn", name)
        return supervisor

    async def stop(self, name: str) -> None:
        """Stop child `name` (an actor or a nested supervisor) for good.

        The request in flight, queued calls and later calls through old
        addresses fail with `MailboxClosed`; the name is unregistered and
        may be spawned again. Blocks until the child's task has exited
        (cancellation is immediate). Raises `ActorNotFound` for an unknown name.
        """
        if name in self._on_use:  # never started: nothing runs
            del self._on_use[name]
            self.runtime.registry._forget_on_use(name)
            self._trace_lifecycle("stop", name)
            return
        child = self._children.pop(name, None)
        if child is None:
            raise ActorNotFound(f"supervisor {self.name} has no child {name!r}", actor=name)
        if child.running:
            if child.scope is not None:
                child.scope.cancel(reason=f"stop {name}")
            await child.exited.wait()
        child.unit.close(MailboxClosed, "stopped")
        self._trace_lifecycle("stop", name)

    def kill(self, name: str) -> None:
        """Fault injection: crash child `name` now, exactly as an unexpected exception would.

        The handler it is running is cancelled, the caller gets
        `ActorRestarted`, and the crash counts toward the restart intensity.
        Sync; raises `ActorNotFound` for an unknown name.
        """
        child = self._children.get(name)
        if child is None:
            raise ActorNotFound(f"supervisor {self.name} has no child {name!r}", actor=name)
        if child.running and child.scope is not None:
            child.kill_requested = True
            child.scope.cancel(reason=f"fault injection: kill {name}")

    def _crash(self, cell: ActorCell[Any], failure: Exception) -> None:
        """Crash `cell`'s actor with `failure`, a bug met outside its task (a handler its
        caller ran inline, `ActorCell.call_now`): restarted, traced and counted exactly as
        if its own task had raised it. Sync."""
        child = self._children.get(cell.name)
        if child is not None and child.unit is cell and child.running and child.scope:
            child.kill_requested = True
            child.failure = failure
            child.scope.cancel(reason=f"{cell.name} crashed: {type(failure).__name__}")

    # -- as a supervised unit ----------------------------------------------

    async def run_incarnation(self, started: Callable[[], None], restarted: bool) -> None:
        """Run all children in a fresh nursery until cancelled or escalation."""
        self._escalation = None
        self._restart_times.clear()
        try:
            async with trio.open_nursery() as nursery:
                self._nursery = nursery
                for child in list(self._children.values()):
                    await nursery.start(self._supervise, child, restarted)
                started()
                await trio.sleep_forever()
        finally:
            self._nursery = None
        if self._escalation is not None:
            raise self._escalation

    def close(self, error_type: type[ActorError], reason: str) -> None:
        """Close every descendant's mailbox (sync; the nursery must have exited), and
        forget the children not started yet."""
        for child in self._children.values():
            child.unit.close(error_type, reason)
        for name in self._on_use:
            self.runtime.registry._forget_on_use(name)
        self._on_use.clear()

    # -- internals -----------------------------------------------------------

    def _require_nursery(self) -> trio.Nursery:
        if self._nursery is None:
            raise RuntimeError(f"supervisor {self.name} is not running")
        return self._nursery

    def _check_free(self, name: str) -> None:
        if name in self._children or name in self._on_use or name in self.runtime.registry:
            raise ValueError(f"supervisor {self.name}: name {name!r} is already in use")

    def _trace_lifecycle(self, event: Any, name: str) -> None:
        tracer = self.runtime.tracer
        if tracer is not None:
            tracer.record(event, name, sender=self.name)

    async def _supervise(
        self,
        child: _Child,
        restarted: bool,
        on_use: bool = False,
        *,
        task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        """Run `child`, restarting it after each crash until stopped or escalation.

        A failure before the first successful start propagates to whoever
        started it (`spawn`, or this supervisor's own start); `on_use`
        (`spawn_on_use`): nobody waits for the start, so it is a crash.
        """
        unit = child.unit
        if on_use and self._children.get(unit.name) is not child:
            return  # stopped before its task ran
        has_started = on_use
        crashed_at = 0.0

        def started() -> None:
            nonlocal has_started
            if not has_started:
                has_started = True
                task_status.started()
            tracer = self.runtime.tracer
            if restarted_now and tracer is not None:
                tracer.record(
                    "restart",
                    unit.name,
                    sender=self.name,
                    duration_ms=(trio.current_time() - crashed_at) * 1e3,
                )

        restarted_now = restarted
        child.running = True
        child.exited = trio.Event()
        try:
            while True:
                failure: BaseException | None = None
                with trio.CancelScope() as scope:
                    child.scope = scope
                    try:
                        await unit.run_incarnation(started, restarted_now)
                    except Exception as error:
                        if not has_started:
                            raise
                        failure = error
                    else:
                        return
                child.scope = None
                if failure is None:
                    if not child.kill_requested:
                        return  # stopped from outside
                    failure = child.failure or InjectedCrash(
                        f"{unit.name} killed by fault injection"
                    )
                child.kill_requested = False
                child.failure = None
                crashed_at = trio.current_time()
                self._trace_crash(unit, failure)
                if not self._note_restart(crashed_at):
                    self._escalate(unit.name, failure)
                    return
                restarted_now = True
        finally:
            child.running = False
            child.scope = None
            if isinstance(unit, ActorCell) and unit.status is not ActorStatus.FAILED:
                unit.status = ActorStatus.STOPPED  # no instance runs until a restart
            child.exited.set()

    def _note_restart(self, now: float) -> bool:
        """Count a restart; False if that exceeds the intensity limit."""
        times = self._restart_times
        times.append(now)
        horizon = now - self.intensity.within_s
        while times and times[0] <= horizon:
            times.popleft()
        return len(times) <= self.intensity.max_restarts

    def _trace_crash(self, unit: _Supervised, failure: BaseException) -> None:
        tracer = self.runtime.tracer
        if tracer is None:
            return
        in_flight = unit.in_flight if isinstance(unit, ActorCell) else None
        tracer.record(
            "crash",
            unit.name,
            sender=self.name,
            kind=None if in_flight is None else ("call" if in_flight.reply else "cast"),
            msg_type=None if in_flight is None else type(in_flight.message).__name__,
            correlation_id=None if in_flight is None else in_flight.correlation_id,
            outcome=type(failure).__name__,
            detail=str(failure),
        )

    def _escalate(self, child_name: str, failure: BaseException) -> None:
        """Give up: remember why, and cancel every child; `run_incarnation` raises it."""
        escalation = RestartIntensityExceeded(self.name, child_name, self.intensity)
        escalation.__cause__ = failure
        self._escalation = escalation
        tracer = self.runtime.tracer
        if tracer is not None:
            tracer.record(
                "escalate",
                self.name,
                outcome=type(failure).__name__,
                detail=str(escalation),
            )
        if self._nursery is not None:
            self._nursery.cancel_scope.cancel(reason=str(escalation))
