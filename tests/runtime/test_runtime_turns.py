"""Fair turns: a task looping on calls that skip the mailbox cannot starve the others.

Reads and notes answered at once and inline requests that never wait make no checkpoint
(`test_runtime_reads.py`, `test_runtime_notes.py`, `test_runtime_inline.py` pin that for a
few calls in a row); a loop of them still lets every other task run (`FairTurns`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
import trio
import trio.testing

from nereid.runtime import Actor, Address, Message, Request, on, on_note, on_read, open_runtime
from nereid.runtime._turns import MIN_CALLS


class Tick(Request[int], frozen=True):
    """Inline: count one, reply with the count."""


class Ticks(Request[int], frozen=True):
    """A read: the count."""


class TickNote(Message, frozen=True):
    """A note: count one."""


class Ticker(Actor[int, Tick | Ticks | TickNote]):
    @on(Tick, inline=True)
    async def _tick(self, message: Tick) -> int:
        self.commit(self.state + 1)
        return self.state

    @on_read(Ticks)
    def _ticks(self, message: Ticks) -> int:
        return self.state

    @on_note(TickNote)
    def _note(self, message: TickNote) -> None:
        self.commit(self.state + 1)


async def _inline(ticker: Address) -> None:
    await ticker.call(Tick())


async def _read(ticker: Address) -> None:
    await ticker.call(Ticks())


async def _read_later(ticker: Address) -> None:
    await ticker.send_request(Ticks()).reply()


async def _note(ticker: Address) -> None:
    await ticker.cast(TickNote())


PATHS: dict[str, Callable[[Address], Awaitable[None]]] = {
    "inline request": _inline,
    "read": _read,
    "send_request read": _read_later,
    "note": _note,
}

_CAP = 200_000
"""Calls the looping task makes at most (far more than a time slice's worth)."""


@pytest.mark.parametrize("path", list(PATHS))
async def test_a_loop_of_calls_that_skip_the_mailbox_lets_other_tasks_run(path: str) -> None:
    """Another task, ready all along, runs while the loop is still going, and keeps
    getting turns: the loop yields every time slice, not once."""
    call = PATHS[path]
    async with open_runtime() as runtime:
        ticker = await runtime.root.spawn("ticker", Ticker, initial=0)
        await trio.testing.wait_all_tasks_blocked()
        turns: list[int] = []  # how many calls the loop had made each time the other ran
        made = 0

        async def other() -> None:
            while made < _CAP and len(set(turns)) < 3:
                turns.append(made)
                await trio.lowlevel.checkpoint()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(other)  # ready: it runs as soon as this task yields
            while len(set(turns)) < 3 and made < _CAP:
                await call(ticker)
                made += 1
            made = _CAP  # the other task's loop ends too
        slices = sorted(set(turns) - {_CAP})
        assert len(slices) == 3, f"the other task ran in {len(slices)} pauses of {made} calls"
        assert MIN_CALLS <= slices[0] and slices[2] < _CAP


async def test_a_few_calls_in_a_row_still_make_no_checkpoint() -> None:
    """The common handler (a few idle actors asked) pays no pass of the scheduler."""
    async with open_runtime() as runtime:
        ticker = await runtime.root.spawn("ticker", Ticker, initial=0)
        await trio.testing.wait_all_tasks_blocked()
        with trio.testing.assert_no_checkpoints():
            for call in list(PATHS.values())[: MIN_CALLS - 1]:
                await call(ticker)
        assert await ticker.call(Ticks()) == 1


async def test_a_call_that_yields_its_turn_still_returns_its_answer_when_cancelled() -> None:
    """The turn's yield is cancel-shielded: a loop cancelled meanwhile gets every answer it
    asked for (others still get turns), and meets the cancellation at its next checkpoint."""
    async with open_runtime() as runtime:
        ticker = await runtime.root.spawn("ticker", Ticker, initial=0)
        await trio.testing.wait_all_tasks_blocked()
        answers: list[int] = []
        turns = 0

        async def other() -> None:
            nonlocal turns
            while True:
                turns += 1
                await trio.lowlevel.checkpoint()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(other)
            with trio.CancelScope() as scope:
                scope.cancel()
                while len(answers) < 5000:
                    answers.append(await ticker.call(Tick()))
                ran = turns  # while the loop went on
                await trio.lowlevel.checkpoint()
            nursery.cancel_scope.cancel()
        assert scope.cancelled_caught and ran > 0
        assert answers == list(range(1, 5001))
        assert await ticker.call(Ticks()) == 5000
