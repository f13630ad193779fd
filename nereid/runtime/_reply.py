"""The envelope a message travels in and the one-shot slot its reply comes back in.

The reply slot parks the caller with trio's low-level `wait_task_rescheduled`
and is settled exactly once: by the actor's reply, by the actor's typed error,
or by the runtime (crash, stop). A caller that gives up (deadline, cancel)
marks it abandoned, so a late reply is dropped and a message not yet taken
from the mailbox is skipped instead of handled.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generic

import outcome
import trio

from ._messages import Message, ReplyT, Request

if TYPE_CHECKING:
    from ._cell import Address

__all__ = ["Envelope", "PendingReply", "ReplySlot"]


class ReplySlot:
    """Where one call's reply lands; owned by the calling task."""

    __slots__ = ("_outcome", "_waiter", "abandoned")

    def __init__(self) -> None:
        self._outcome: outcome.Outcome[Any] | None = None
        self._waiter: trio.lowlevel.Task | None = None
        self.abandoned = False

    @property
    def settled(self) -> bool:
        """True once a reply or error arrived or the caller gave up."""
        return self._outcome is not None or self.abandoned

    def resolve(self, value: object) -> None:
        """Deliver the reply. Sync, never blocks; a no-op if already settled."""
        self._settle(outcome.Value(value))

    def fail(self, error: BaseException) -> None:
        """Deliver an error, raised in the caller. Sync; a no-op if already settled."""
        self._settle(outcome.Error(error))

    def result(self) -> Any:
        """The reply (or raise the error) of a settled, not abandoned slot. Sync."""
        assert self._outcome is not None, "result() of an unsettled reply slot"
        return self._outcome.unwrap()

    def abandon(self) -> None:
        """The caller no longer wants the reply (deadline passed)."""
        if self._outcome is None:
            self.abandoned = True

    def _settle(self, result: outcome.Outcome[Any]) -> None:
        if self._outcome is not None or self.abandoned:
            return
        self._outcome = result
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            trio.lowlevel.reschedule(waiter, result)

    async def wait(self) -> Any:
        """Block until settled; return the reply or raise the error.

        Cancel-safe: a cancelled wait abandons the slot, so nothing is lost
        that anyone could still use.
        """
        if self._outcome is not None:
            await trio.lowlevel.checkpoint()
            return self._outcome.unwrap()
        self._waiter = trio.lowlevel.current_task()

        def abort(_: object) -> trio.lowlevel.Abort:
            self._waiter = None
            self.abandoned = True
            return trio.lowlevel.Abort.SUCCEEDED

        return await trio.lowlevel.wait_task_rescheduled(abort)


class Envelope:
    """A message in a mailbox: the body, its reply slot (None for a cast), and trace data."""

    __slots__ = ("correlation_id", "message", "reply", "sent_at")

    def __init__(
        self,
        message: Message,
        reply: ReplySlot | None,
        correlation_id: str | None,
        sent_at: float,
    ) -> None:
        self.message = message
        self.reply = reply
        self.correlation_id = correlation_id
        self.sent_at = sent_at


class PendingReply(Generic[ReplyT]):
    """A request sent by `Address.send_request`, its reply still to come: `await reply()`."""

    __slots__ = ("_address", "correlation_id", "deadline", "message", "sent_at", "slot", "timeout")

    def __init__(
        self,
        address: Address,
        message: Request[ReplyT],
        slot: ReplySlot | None,
        timeout: float,  # noqa: ASYNC109 - the deadline of the whole call
        sent_at: float,
        correlation_id: str | None,
    ) -> None:
        self._address = address
        self.message = message
        self.slot = slot
        self.timeout = timeout
        #: When the call runs out of time (trio's clock): `timeout` after the send.
        self.deadline = trio.current_time() + timeout
        self.sent_at = sent_at
        self.correlation_id = correlation_id

    async def reply(self) -> ReplyT:
        """The reply, or what the actor raised; `CallTimeout` at the deadline. Waits only
        if the answer has not come yet (then it is a checkpoint)."""
        return await self._address._wait(self)
