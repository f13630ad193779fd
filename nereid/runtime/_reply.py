"""The envelope a message travels in and the one-shot slot its reply comes back in.

The reply slot parks the caller with trio's low-level `wait_task_rescheduled`
and is settled exactly once: by the actor's reply, by the actor's typed error,
or by the runtime (crash, stop). A caller that gives up (deadline, cancel)
marks it abandoned, so a late reply is dropped and a message not yet taken
from the mailbox is skipped instead of handled.
"""

from __future__ import annotations

from typing import Any

import outcome
import trio

from ._messages import Message

__all__ = ["Envelope", "ReplySlot"]


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
