"""The lasting part of an actor (its cell) and the address callers hold.

A cell outlives the actor instances that run in it: it keeps the name, the
mailbox (a bounded trio memory channel) and the committed snapshot, so an
`Address` stays valid across restarts, and messages queued while an actor
restarts are handled by the next instance.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, Generic, Literal, NoReturn, final

import trio

from ..errors import ActorError, ActorRestarted, CallTimeout, MailboxClosed, NereidError
from ._actor import Actor, StateT
from ._correlation import _Origin, _origin, new_correlation_id
from ._messages import Message, ReplyT, Request
from ._reply import Envelope, PendingReply, ReplySlot
from ._util import NoPublicConstructor

if TYPE_CHECKING:
    from ._runtime import Runtime
    from ._supervisor import Supervisor

__all__ = ["DEFAULT_CALL_TIMEOUT", "ActorCell", "ActorStatus", "Address"]

DEFAULT_CALL_TIMEOUT = 10.0
"""Seconds a `call` or `cast` may wait (queueing, restart and handling) by default."""

_BURST = 8
"""Queued messages an actor takes one after another before it lets other tasks run."""

_yield_turn: Final = trio.lowlevel.cancel_shielded_checkpoint
"""How a mailbox-skipping call yields when its task is due to (`FairTurns`): never raises."""

_READ, _NOTE, _INLINE = 0, 1, 2
"""Which of an actor's sync-path tables `ActorCell._handler_now` looks in."""


@final
class _InlineRun:
    """A request an idle actor's caller handles in its own task (`ActorCell.call_now`):
    the actor is held until `done`; `scope` shields the handler from the caller's
    cancellation, and the actor's end (kill, stop, crash) cancels it."""

    __slots__ = ("done", "scope")

    def __init__(self) -> None:
        self.scope = trio.CancelScope(shield=True)
        self.done = trio.Event()


class ActorStatus(enum.Enum):
    """Where an actor is in its life; only the runtime changes it.

    STOPPED: no instance runs — stopped for good (mailbox closed), or its task ended
    because its supervisor stopped (e.g. gave up); a restart of that supervisor starts
    it again. Callers that must not wait for nothing (a final save) check it.
    """

    STARTING = "starting"
    RUNNING = "running"
    RESTARTING = "restarting"
    STOPPED = "stopped"
    FAILED = "failed"


@final
class Address(metaclass=NoPublicConstructor):
    """A handle to a named actor; valid across its restarts, closed once it is stopped.

    Get one from `Supervisor.spawn` or `Registry.lookup`; there is no public
    constructor.
    """

    __slots__ = ("_cell",)

    def __init__(self, cell: ActorCell[Any]) -> None:
        self._cell = cell

    @property
    def name(self) -> str:
        """The registry name, e.g. ``diagram:auth``."""
        return self._cell.name

    @property
    def status(self) -> ActorStatus:
        """The actor's current lifecycle status."""
        return self._cell.status

    def __repr__(self) -> str:
        return f"<Address {self._cell.name} {self._cell.status.value}>"

    def _stamp(self, message: Message, kind: Literal["call", "cast"]) -> tuple[str | None, float]:
        """The correlation id and send time for an outgoing message; traces the send.

        With tracing off the id is the current chain's (possibly None) and the time 0.
        """
        origin = _origin.get()
        correlation_id = origin.correlation_id
        tracer = self._cell.tracer
        if tracer is None:
            return correlation_id, 0.0
        if correlation_id is None:
            correlation_id = new_correlation_id()
        tracer.record(
            "send",
            self._cell.name,
            sender=origin.actor,
            kind=kind,
            msg_type=type(message).__name__,
            correlation_id=correlation_id,
        )
        return correlation_id, time.monotonic()

    async def call(
        self,
        message: Request[ReplyT],
        *,
        timeout: float = DEFAULT_CALL_TIMEOUT,  # noqa: ASYNC109 - every call has a deadline
    ) -> ReplyT:
        """Send `message` and wait for the reply; everything is bounded by `timeout` seconds.

        Blocks while the mailbox is full (back-pressure), while the actor
        restarts, and while it handles the message. Cancel-safe: if the
        caller is cancelled before the actor took the message, the actor
        skips it. An inline request (``@on(..., inline=True)``) to an idle
        actor is handled in the caller's task (`ActorCell.call_now`). Raises what the handler raised (a `NereidError`),
        `ActorRestarted` if the actor crashed meanwhile (retryable),
        `CallTimeout` at the deadline, `MailboxClosed` if the actor was
        stopped, `ActorDown` if it failed for good.
        """
        cell = self._cell
        answered = cell.read_now(message)
        if answered is not None:
            if cell.turns.due():
                await _yield_turn()
            result_now: ReplyT = answered.result()
            return result_now
        found = cell._handler_now(message, _INLINE)
        if found is not None:
            result_inline: ReplyT = await cell.call_now(found[0], found[1], message, timeout)
            return result_inline
        correlation_id, sent_at = self._stamp(message, "call")
        reply = ReplySlot()
        envelope = Envelope(message, reply, correlation_id, sent_at)
        with trio.move_on_after(timeout):
            try:
                cell.send.send_nowait(envelope)
            except trio.WouldBlock:
                try:
                    await cell.send.send(envelope)
                except (trio.ClosedResourceError, trio.BrokenResourceError):
                    cell.raise_closed(correlation_id)
            except (trio.ClosedResourceError, trio.BrokenResourceError):
                cell.raise_closed(correlation_id)
            result: ReplyT = await reply.wait()
            return result
        reply.abandon()
        cell.raise_timeout("call", message, correlation_id, timeout, sent_at)

    def send_request(
        self,
        message: Request[ReplyT],
        *,
        timeout: float = DEFAULT_CALL_TIMEOUT,  # noqa: ASYNC109 - every call has a deadline
    ) -> PendingReply[ReplyT]:
        """Send `message` now; await the returned handle's `reply()` for the answer later.

        Erlang's ``gen_server:send_request``: the caller asks other actors meanwhile, so
        the actors work at once instead of in turn (each call to an idle actor otherwise
        costs the caller two passes of the scheduler). Sync; never blocks: if the mailbox
        is full, `reply()` does the whole call then. `reply()` gives what `call` would,
        its deadline counted from now. Raises `MailboxClosed` / `ActorDown` at once if
        the actor is gone. A reply nobody awaits is dropped.
        """
        cell = self._cell
        answered = cell.read_now(message)
        if answered is not None:
            return PendingReply(self, message, answered, timeout, 0.0, None)
        correlation_id, sent_at = self._stamp(message, "call")
        reply = ReplySlot()
        try:
            cell.send.send_nowait(Envelope(message, reply, correlation_id, sent_at))
        except trio.WouldBlock:
            return PendingReply(self, message, None, timeout, sent_at, correlation_id)
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            cell.raise_closed(correlation_id)
        return PendingReply(self, message, reply, timeout, sent_at, correlation_id)

    async def _wait(self, pending: PendingReply[ReplyT]) -> ReplyT:
        """`PendingReply.reply`: the answer of a `send_request`."""
        reply = pending.slot
        if reply is None:  # the mailbox was full: the whole call now
            left = max(0.0, pending.deadline - trio.current_time())
            result: ReplyT = await self.call(pending.message, timeout=left)
            return result
        if reply.settled and not reply.abandoned:
            if self._cell.turns.due():  # answered meanwhile (or at once): no wait
                await _yield_turn()
            settled: ReplyT = reply.result()
            return settled
        with trio.move_on_at(pending.deadline):
            answer: ReplyT = await reply.wait()
            return answer
        reply.abandon()
        self._cell.raise_timeout(
            "call", pending.message, pending.correlation_id, pending.timeout, pending.sent_at
        )

    def offer(self, message: Message) -> bool:
        """Queue `message` if the mailbox has room now; False (nothing sent) if it is full.

        For full-state messages whose sender keeps the latest and offers it again later,
        so a busy receiver never holds the sender up. Raises like `cast` if the actor is
        gone. A note to an idle actor is handled at once, as by `cast`.
        """
        cell = self._cell
        if cell.note_now(message):
            return True
        if cell.send.statistics().current_buffer_used >= cell.send.statistics().max_buffer_size:
            return False
        correlation_id, sent_at = self._stamp(message, "cast")
        try:
            cell.send.send_nowait(Envelope(message, None, correlation_id, sent_at))
        except trio.WouldBlock:  # pragma: no cover - room was checked just above
            return False
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            cell.raise_closed(correlation_id)
        return True

    async def cast(
        self,
        message: Message,
        *,
        timeout: float = DEFAULT_CALL_TIMEOUT,  # noqa: ASYNC109 - every cast has a deadline
    ) -> None:
        """Queue `message` without waiting for it to be handled.

        Blocks only while the mailbox is full, at most `timeout` seconds
        (then `CallTimeout`). Errors the handler raises are traced, not
        returned. Raises `MailboxClosed` / `ActorDown` if the actor is gone.
        With room in the mailbox it returns at once, without a pass of the
        scheduler: the receiver runs in the next pass anyway, and yielding
        would only delay the sender (and the reply an agent waits for).
        """
        cell = self._cell
        if cell.note_now(message):
            if cell.turns.due():
                await _yield_turn()
            return
        correlation_id, sent_at = self._stamp(message, "cast")
        envelope = Envelope(message, None, correlation_id, sent_at)
        try:
            # Fast path: room in the mailbox needs no deadline scope (the common case).
            cell.send.send_nowait(envelope)
        except trio.WouldBlock:
            pass
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            cell.raise_closed(correlation_id)
        else:
            return
        with trio.move_on_after(timeout):
            try:
                await cell.send.send(envelope)
            except (trio.ClosedResourceError, trio.BrokenResourceError):
                cell.raise_closed(correlation_id)
            return
        cell.raise_timeout("cast", message, correlation_id, timeout, sent_at)


class ActorCell(Generic[StateT]):
    """Name, mailbox and committed snapshot of one actor; runs its instances.

    Owned by the `Supervisor` that spawned it; nothing outside the runtime
    touches it (callers hold its `Address`).
    """

    def __init__(
        self,
        name: str,
        factory: Callable[[], Actor[StateT, Any]],
        initial: StateT,
        mailbox_size: int,
        runtime: Runtime,
        supervisor: Supervisor,
    ) -> None:
        if mailbox_size < 1:
            raise ValueError(f"mailbox_size of {name!r} must be >= 1, got {mailbox_size}")
        self.name = name
        self.factory = factory
        self.snapshot: StateT = initial
        self.runtime = runtime
        self.supervisor = supervisor
        tracer = runtime.tracer
        #: The tracer of this actor's messages (None: off, or it traces lives only).
        self.tracer = tracer if tracer is not None and tracer.messages else None
        self.turns = runtime.turns
        self.send, self.receive = trio.open_memory_channel[Envelope](mailbox_size)
        self.status = ActorStatus.STARTING
        self.in_flight: Envelope | None = None
        #: The instance serving the mailbox (None between incarnations), for `read_now`.
        self.serving: Actor[StateT, Any] | None = None
        #: A request a caller is handling in its own task (`call_now`), else None.
        self.inline: _InlineRun | None = None
        #: Mail the actor's task took while `inline` ran: handled next, even after a restart.
        self.held: Envelope | None = None
        self._closed_as: tuple[type[ActorError], str] | None = None
        self.address: Address = Address._create(self)

    # -- caller side -------------------------------------------------------

    def raise_closed(self, correlation_id: str | None) -> NoReturn:
        """Raise the error that says why this mailbox no longer takes messages."""
        error_type, reason = self._closed_as or (MailboxClosed, "mailbox closed")
        error = error_type(f"actor {self.name} is gone: {reason}", actor=self.name)
        error.correlation_id = correlation_id
        raise error

    def raise_timeout(
        self,
        kind: str,
        message: Message,
        correlation_id: str | None,
        timeout: float,
        sent_at: float,
    ) -> NoReturn:
        """Trace and raise the `CallTimeout` of a call or cast that ran out of time."""
        if self.tracer is not None:
            self.tracer.record(
                "timeout",
                self.name,
                sender=_origin.get().actor,
                kind="call" if kind == "call" else "cast",
                msg_type=type(message).__name__,
                correlation_id=correlation_id,
                duration_ms=(time.monotonic() - sent_at) * 1000.0,
            )
        error = CallTimeout(
            f"{kind} {type(message).__name__} to {self.name} got no "
            f"{'reply' if kind == 'call' else 'mailbox space'} within {timeout} s",
            actor=self.name,
            data={"timeout_s": timeout},
        )
        error.correlation_id = correlation_id
        raise error

    def _handler_now(
        self, message: Message, table: int
    ) -> tuple[Actor[Any, Any], Callable[[Any, Any], Any]] | None:
        """The actor and its handler for `message` in `table` (`_READ`: ``@on_read``,
        `_NOTE`: ``@on_note``, `_INLINE`: ``@on(..., inline=True)``) if the sender's task
        may run it now, else None: the actor waits in `receive` on an empty mailbox
        (nothing sent before is still to be handled, no handler is half-way, no caller is
        running one inline), `Actor.reads_now`, and nothing is traced (every message then
        shows in the trace). The actor's own task would handle it the same way now."""
        actor = self.serving
        if actor is None or self.tracer is not None or self.inline is not None:
            return None
        tables = (actor._reads, actor._notes, actor._inline)
        handler = tables[table].get(type(message))
        # The actor's task waits in `receive`: the channel's own list of waiting receivers
        # (`statistics().tasks_waiting_receive` without building the statistics, 20x
        # dearer). A sender's hand-off and a cancellation (kill, stop) take it off at once.
        if handler is None or not self.receive._state.receive_tasks:
            return None
        if not actor.reads_now():
            return None
        return actor, handler

    def read_now(self, message: Message) -> ReplySlot | None:
        """`message` answered at once in the caller's task, or None: send it.

        Only a read (``@on_read``), and only when `_handler_now` allows it. A read that
        raises other than a `NereidError` is a bug: None, so the actor meets it in its own
        task.
        """
        found = self._handler_now(message, _READ)
        if found is None:
            return None
        actor, read = found
        slot = ReplySlot()
        try:
            slot.resolve(read(actor, message))
        except NereidError as error:
            if error.actor is None:
                error.actor = self.name
            if error.correlation_id is None:
                error.correlation_id = _origin.get().correlation_id
            slot.fail(error)
        except Exception:
            return None
        return slot

    def note_now(self, message: Message) -> bool:
        """Handle a note (``@on_note``) at once in the sender's task; False: send it.

        Only when `_handler_now` allows it. A `NereidError` it raises is
        dropped, as the actor's task drops a cast's refusal when not tracing; any other
        error sends the message on, so the actor meets it in its own task (a crash).
        """
        found = self._handler_now(message, _NOTE)
        if found is None:
            return False
        actor, note = found
        token = _origin.set(_Origin(_origin.get().correlation_id, self.name))
        try:
            note(actor, message)
        except NereidError:
            pass
        except Exception:
            return False
        finally:
            _origin.reset(token)
        return True

    async def call_now(
        self,
        actor: Actor[Any, Any],
        handler: Callable[[Any, Any], Any],
        message: Request[ReplyT],
        timeout: float,  # noqa: ASYNC109 - the call's deadline
    ) -> ReplyT:
        """Handle an inline request in the caller's task, as the actor's task would now.

        `_handler_now` found the actor idle; it is held from here (`inline`) until the
        handler ends: what is sent meanwhile is queued, the actor's task takes it only
        after, and reads and notes wait too, so there is one writer and nothing
        overtakes. The handler is shielded from the caller's cancellation (a cancelled
        caller never leaves it half-way; the caller is cancelled once it ends), while
        the actor's end cancels it (`run_incarnation`): kill or stop, then the caller gets
        `ActorRestarted` / `MailboxClosed` as for a request in flight. A bug in it
        crashes the actor (`Supervisor._crash`), which restarts from its last commit and
        fails this call with `ActorRestarted`. Past `timeout`, `CallTimeout` as for a
        queued call (the handler's work stands, as it does then). Like a read answered at
        once, a handler that never waits makes the call no checkpoint, unless its task is
        due to yield (`FairTurns`)."""
        deadline = trio.current_time() + timeout
        correlation_id = _origin.get().correlation_id
        reply = ReplySlot()
        envelope = Envelope(message, reply, correlation_id, 0.0)
        run = _InlineRun()
        self.inline = run
        token = _origin.set(_Origin(correlation_id, self.name))
        crash: Exception | None = None
        try:
            with run.scope:
                result = await handler(actor, message)
                reply.resolve(result)
        except NereidError as error:
            if error.actor is None:
                error.actor = self.name
            if error.correlation_id is None:
                error.correlation_id = correlation_id
            reply.fail(error)
        except Exception as error:
            crash = error
        finally:
            _origin.reset(token)
            self.inline = None
            if not reply.settled:  # killed, stopped or crashed: the actor's end answers it
                self.in_flight = envelope
                if crash is not None:  # before the actor's task goes on (`_serve`)
                    self.supervisor._crash(self, crash)
            run.done.set()
        if not reply.settled:
            with trio.move_on_at(deadline):
                answer: ReplyT = await reply.wait()
                return answer
            reply.abandon()
            self.raise_timeout("call", message, correlation_id, timeout, 0.0)
        if self.turns.due():
            await _yield_turn()
        if trio.current_time() <= deadline:
            settled: ReplyT = reply.result()
            return settled
        self.raise_timeout("call", message, correlation_id, timeout, 0.0)

    # -- actor side --------------------------------------------------------

    async def run_incarnation(self, started: Callable[[], None], restarted: bool) -> None:
        """Run one actor instance: `init` from the snapshot, then handle messages.

        Returns when the mailbox is closed; raises whatever crashed the
        instance. A restarted incarnation first fails the request the last
        one died on with `ActorRestarted`.
        """
        if restarted:
            self.status = ActorStatus.RESTARTING
            self.fail_in_flight(ActorRestarted, "crashed while handling this request")
        actor = self.factory()
        actor._cell = self
        await actor.init(self.snapshot)
        self.status = ActorStatus.RUNNING
        started()
        self.serving = actor
        try:
            await self._serve(actor)
        finally:
            self.serving = None
            run = self.inline
            if run is not None:  # a caller's inline run of this instance ends with it
                run.scope.cancel()
                with trio.CancelScope(shield=True):
                    await run.done.wait()

    async def _serve(self, actor: Actor[StateT, Any]) -> None:
        # The hot loop: local names, one `is None` test when tracing is off.
        receive = self.receive.receive
        receive_nowait = self.receive.receive_nowait
        handle = actor.handle
        tracer = self.tracer
        name = self.name
        burst = 0
        while True:
            held = self.held
            if held is None:
                try:
                    # A message already queued is taken at once, without a pass of the
                    # scheduler (its sender is waiting); after `_BURST` in a row, or when
                    # the mailbox is empty, `receive` checkpoints, so one busy actor cannot
                    # hold the loop. A cancelled actor (stopped, killed) takes nothing more.
                    if burst < _BURST:
                        await trio.lowlevel.checkpoint_if_cancelled()
                        try:
                            envelope = receive_nowait()
                            burst += 1
                        except trio.WouldBlock:
                            envelope = await receive()
                            burst = 0
                    else:
                        envelope = await receive()
                        burst = 0
                except trio.EndOfChannel:
                    return
                run = self.inline
                if run is not None:  # a caller is handling a request inline: after it
                    self.held = envelope
                    await run.done.wait()
                    await trio.lowlevel.checkpoint_if_cancelled()  # its crash: held kept
            else:
                envelope = held
            self.held = None
            reply = envelope.reply
            if reply is not None and reply.abandoned:
                if tracer is not None:
                    tracer.record(
                        "expired",
                        name,
                        kind="call",
                        msg_type=type(envelope.message).__name__,
                        correlation_id=envelope.correlation_id,
                    )
                continue
            self.in_flight = envelope
            token = _origin.set(_Origin(envelope.correlation_id, name))
            started_at = 0.0
            if tracer is not None:
                started_at = time.monotonic()
                tracer.record(
                    "receive",
                    name,
                    kind="call" if reply is not None else "cast",
                    msg_type=type(envelope.message).__name__,
                    correlation_id=envelope.correlation_id,
                    duration_ms=(started_at - envelope.sent_at) * 1e3,
                )
            try:
                result = await handle(envelope.message)
            except NereidError as error:
                self.in_flight = None
                if error.actor is None:
                    error.actor = name
                if error.correlation_id is None:
                    error.correlation_id = envelope.correlation_id
                if reply is not None:
                    reply.fail(error)
                if tracer is not None:
                    tracer.record(
                        "error",
                        name,
                        kind="call" if reply is not None else "cast",
                        msg_type=type(envelope.message).__name__,
                        correlation_id=envelope.correlation_id,
                        duration_ms=(time.monotonic() - started_at) * 1e3,
                        outcome=type(error).__name__,
                        detail=str(error),
                    )
            else:
                self.in_flight = None
                if reply is not None:
                    reply.resolve(result)
                if tracer is not None:
                    tracer.record(
                        "reply",
                        name,
                        kind="call" if reply is not None else "cast",
                        msg_type=type(envelope.message).__name__,
                        correlation_id=envelope.correlation_id,
                        duration_ms=(time.monotonic() - started_at) * 1e3,
                        outcome="ok",
                    )
            finally:
                _origin.reset(token)

    # -- teardown ------------------------------------------------------------

    def fail_in_flight(self, error_type: type[ActorError], reason: str) -> None:
        """Fail the request being handled, if any, with `error_type` (sync)."""
        envelope, self.in_flight = self.in_flight, None
        if envelope is not None and envelope.reply is not None:
            error = error_type(
                f"{type(envelope.message).__name__} to {self.name}: {reason}", actor=self.name
            )
            error.correlation_id = envelope.correlation_id
            envelope.reply.fail(error)

    def close(self, error_type: type[ActorError], reason: str) -> None:
        """Close the mailbox for good: fail the request in flight, every queued call
        and every blocked sender with `error_type`. Sync; idempotent. The cell's
        task must have exited (or never run)."""
        if self._closed_as is not None:
            return
        self._closed_as = (error_type, reason)
        self.status = ActorStatus.STOPPED if error_type is MailboxClosed else ActorStatus.FAILED
        self.send.close()
        self.fail_in_flight(error_type, reason)
        self.in_flight, self.held = self.held, None
        self.fail_in_flight(error_type, reason)
        while True:
            try:
                envelope = self.receive.receive_nowait()
            except (trio.WouldBlock, trio.EndOfChannel):
                break
            self.in_flight = envelope
            self.fail_in_flight(error_type, reason)
        self.receive.close()
        self.runtime.registry._forget(self)
