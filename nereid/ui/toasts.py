"""The status line's messages and the help overlay's message log (tui.md §4.6, §16.9).

One message shows at a time: the newest transient one until it expires, else the sticky
error (kept until the person deals with it or presses Esc). Only `Toasts`' own methods
change them; the app listens for new messages to plan the repaint that expires them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = ["LOG_SIZE", "TOAST_SECONDS", "Message", "Toasts"]

#: Seconds a transient message shows (an error three times as long).
TOAST_SECONDS = 2.0
#: Messages kept for the help overlay's log.
LOG_SIZE = 50


@dataclass(frozen=True)
class Message:
    text: str
    error: bool
    at: float
    sticky: bool = False


class Toasts:
    """The message log, the sticky error and the expiry of the newest transient message."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._messages: list[Message] = []
        self._sticky: str | None = None
        self._listener: Callable[[], None] | None = None

    @property
    def messages(self) -> Sequence[Message]:
        """The log, oldest first (at most `LOG_SIZE`)."""
        return tuple(self._messages)

    @property
    def sticky_error(self) -> str | None:
        return self._sticky

    def listen(self, callback: Callable[[], None] | None) -> None:
        """Call `callback` after every new message (the app's repaint timer)."""
        self._listener = callback

    def show(self, text: str, *, error: bool = False, sticky: bool = False) -> None:
        """Show a message on the status line; sticky ones stay until dealt with (or Esc)."""
        self._messages.append(Message(text, error, self._clock(), sticky))
        del self._messages[:-LOG_SIZE]
        if sticky:
            self._sticky = text
        if self._listener is not None:
            self._listener()

    def dismiss_sticky(self) -> None:
        """The person dealt with the kept error (or pressed Esc)."""
        self._sticky = None

    def expiry(self) -> float | None:
        """When the newest transient message stops showing (None: nothing to expire)."""
        if not self._messages or self._messages[-1].sticky:
            return None
        last = self._messages[-1]
        return last.at + TOAST_SECONDS * (3 if last.error else 1)

    def current(self) -> Message | None:
        """The live transient message, else the sticky error, else None."""
        expiry = self.expiry()
        if expiry is not None and self._clock() <= expiry:
            return self._messages[-1]
        if self._sticky is not None:
            return Message(self._sticky, True, 0.0, True)
        return None
