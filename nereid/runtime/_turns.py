"""Fair turns for the calls that skip the mailbox.

A read or note answered at once (`ActorCell.read_now` / `note_now`) and an inline request
that never waits (`ActorCell.call_now`) run in the caller's task with no checkpoint at all,
which is what makes them cheap: a handler that asks a few idle actors costs no pass of the
scheduler. But a task that loops on such calls would then never yield, and every other
task (other agents' requests, the TUI, saves) would wait for its loop to end. So each of
these calls counts itself in its runtime's `FairTurns`: once the same task has made
`MIN_CALLS` of them and run `SLICE` seconds since it last yielded, the call yields once
(cancel-shielded: it still returns its answer; a pending cancellation is met at the
caller's next checkpoint). The common call, the first few after a wait, never yields.
"""

from __future__ import annotations

import time
from typing import Final, final

import trio

__all__ = ["MIN_CALLS", "SLICE", "FairTurns"]

MIN_CALLS: Final = 4
"""Calls in a row that never yield: a handler asking a few actors is never slowed."""

SLICE: Final = 0.002
"""Seconds a task may keep running on such calls before one of them yields."""

_clock: Final = time.perf_counter


@final
class FairTurns:
    """The current streak of mailbox-skipping calls: whose task, since when, how many.

    A task has not yielded since the streak began while its count of schedule points
    (trio's own, as `trio.testing.assert_no_checkpoints` reads it) is unchanged; only the
    task that runs can make calls, so one streak per runtime is enough.
    """

    __slots__ = ("_calls", "_points", "_since", "_task")

    def __init__(self) -> None:
        self._task: trio.lowlevel.Task | None = None
        self._points = -1
        self._calls = 0
        self._since = 0.0

    def due(self) -> bool:
        """Count one call answered without a yield; True if it should yield now."""
        task = trio.lowlevel.current_task()
        points = task._schedule_points
        if task is not self._task or points != self._points:
            self._task, self._points, self._calls, self._since = task, points, 1, _clock()
            return False
        self._calls += 1
        return self._calls >= MIN_CALLS and _clock() - self._since >= SLICE
