"""Cost of one `Address.call` through the actor runtime vs a bare trio channel round trip.

All variants run side by side in one `trio.run`, interleaved run by run:
  bare channel       request + one-shot reply channel over a memory channel
  runtime, trace off `await address.call(...)` with tracing disabled
  runtime, ring      ... tracing to an in-memory RingSink
  runtime, /dev/null ... tracing to a FileSink on /dev/null (encode + write)
Targets: runtime/bare <= 2.0 with tracing off; tracing adds <= 30%.
"""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable

import trio

from nereid.runtime import Actor, Address, FileSink, Request, RingSink, Tracer, on, open_runtime

from ._common import Timing, print_table, ratio, time_async

DESCRIPTION = "actor runtime: call round trip vs bare trio channel, tracing off/on"


class Increment(Request[int], frozen=True):
    value: int


class Echo(Actor[int, Increment]):
    """Declares its handler as the session actors do (`@on`: the handler table's dispatch)."""

    @on(Increment)
    async def _increment(self, message: Increment) -> int:
        return message.value + 1


async def _bare_server(
    receive: trio.MemoryReceiveChannel[tuple[Increment, trio.MemorySendChannel[int]]],
) -> None:
    async for request, reply in receive:
        reply.send_nowait(request.value + 1)


async def _measure(runs: int, inner: int) -> list[tuple[str, Timing]]:
    samples: dict[str, list[float]] = {}
    calls: dict[str, Callable[[], Awaitable[object]]] = {}
    ring_sink = RingSink(capacity=10_000)
    null_sink = FileSink("/dev/null")
    async with trio.open_nursery() as nursery:
        send, receive = trio.open_memory_channel[tuple[Increment, trio.MemorySendChannel[int]]](64)
        nursery.start_soon(_bare_server, receive)
        message = Increment(value=1)

        async def bare_call() -> int:
            reply_send, reply_receive = trio.open_memory_channel[int](1)
            await send.send((message, reply_send))
            return await reply_receive.receive()

        calls["bare channel"] = bare_call
        async with (
            open_runtime() as plain,
            open_runtime(tracer=Tracer(ring_sink)) as ringed,
            open_runtime(tracer=Tracer(null_sink)) as filed,
        ):
            for label, runtime in (
                ("runtime, trace off", plain),
                ("runtime, trace ring", ringed),
                ("runtime, trace /dev/null", filed),
            ):
                address = await runtime.root.spawn("echo", Echo, initial=0)

                async def runtime_call(address: Address = address) -> int:
                    return await address.call(message)

                calls[label] = runtime_call
            for call in calls.values():  # warm up
                for _ in range(inner // 10 + 1):
                    await call()
            for _ in range(runs):
                for name, call in calls.items():
                    timing = await time_async(call, runs=1, inner=inner)
                    samples.setdefault(name, []).append(timing.best_ms)
        send.close()
    null_sink.close()
    return [(name, Timing.from_samples(values)) for name, values in samples.items()]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="scripts/bench actors", description=__doc__)
    parser.add_argument("--runs", type=int, default=9, help="runs per variant (default 9)")
    parser.add_argument("--inner", type=int, default=5000, help="calls per run (default 5000)")
    args = parser.parse_args(argv)
    rows = trio.run(_measure, args.runs, args.inner)
    print_table("actors: one call round trip (ms per call)", rows, baseline="bare channel")
    timings = dict(rows)
    off = ratio(timings["runtime, trace off"], timings["bare channel"])
    ring = ratio(timings["runtime, trace ring"], timings["runtime, trace off"])
    null = ratio(timings["runtime, trace /dev/null"], timings["runtime, trace off"])
    print(f"runtime / bare, tracing off: {off:.2f} (target <= 2.00)")
    print(f"tracing overhead, ring: {(ring - 1) * 100:+.0f}%  /dev/null: {(null - 1) * 100:+.0f}%")
    print("(target: <= +30%)")
    return 0
