"""Tracer: JSON lines that parse, carry correlation chains, and record crashes."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from nereid.errors import ActorRestarted, ResourceNotFound
from nereid.runtime import (
    TRACE_EVENTS,
    FileSink,
    RingSink,
    Tracer,
    TraceRecord,
    correlation_scope,
    current_correlation_id,
    decode_trace_line,
    open_runtime,
)
from tests.runtime.actor_testkit import Add, Boom, Counter, Fail, Forward, Knobs


async def test_actor_to_actor_call_carries_the_correlation_chain() -> None:
    sink = RingSink()
    async with open_runtime(tracer=Tracer(sink)) as runtime:
        await runtime.root.spawn("session", lambda: Counter(Knobs()), initial=0)
        await runtime.root.spawn("diagram:a", lambda: Counter(Knobs()), initial=0)
        session = runtime.registry.lookup("session")
        with correlation_scope("req-42") as correlation_id:
            assert current_correlation_id() == "req-42"
            assert await session.call(Forward(target="diagram:a", amount=2)) == 2
        assert current_correlation_id() is None
        assert correlation_id == "req-42"
    records = [decode_trace_line(line) for line in sink.lines()]
    chain = [
        (r.event, r.actor, r.sender, r.msg_type)
        for r in records
        if r.event in ("send", "receive", "reply")
    ]
    assert chain == [
        ("send", "session", None, "Forward"),
        ("receive", "session", None, "Forward"),
        ("send", "diagram:a", "session", "Add"),
        ("receive", "diagram:a", None, "Add"),
        ("reply", "diagram:a", None, "Add"),
        ("reply", "session", None, "Forward"),
    ]
    assert {r.correlation_id for r in records if r.event != "spawn"} == {"req-42"}
    replies = [r for r in records if r.event == "reply"]
    assert all(r.outcome == "ok" and r.duration_ms is not None for r in replies)
    assert all(r.wall > 1e9 and r.mono > 0 for r in records)


async def test_calls_outside_a_scope_get_a_fresh_correlation_id_each() -> None:
    sink = RingSink()
    async with open_runtime(tracer=Tracer(sink)) as runtime:
        counter = await runtime.root.spawn("counter", lambda: Counter(Knobs()), initial=0)
        await counter.call(Add(amount=1))
        await counter.call(Add(amount=1))
    sends = [r for r in sink.records() if r.event == "send"]
    assert len(sends) == 2
    assert sends[0].correlation_id and sends[1].correlation_id
    assert sends[0].correlation_id != sends[1].correlation_id


async def test_errors_crashes_and_restarts_are_traced() -> None:
    sink = RingSink()
    async with open_runtime(tracer=Tracer(sink)) as runtime:
        counter = await runtime.root.spawn("counter", lambda: Counter(Knobs()), initial=0)
        with pytest.raises(ResourceNotFound):
            await counter.call(Fail(what="node"))
        with correlation_scope("req-crash"), pytest.raises(ActorRestarted):
            await counter.call(Boom())
        await counter.call(Add(amount=1))
    by_event = {r.event: r for r in sink.records()}
    assert by_event["error"].outcome == "ResourceNotFound"
    assert by_event["error"].detail == "node not found [actor counter]"
    crash = by_event["crash"]
    assert (crash.actor, crash.outcome, crash.detail) == ("counter", "RuntimeError", "boom")
    assert (crash.msg_type, crash.correlation_id) == ("Boom", "req-crash")
    assert by_event["restart"].actor == "counter"
    assert by_event["restart"].sender == "root"
    assert set(by_event) <= set(TRACE_EVENTS)


def test_lines_are_compact_json_objects_with_the_documented_keys() -> None:
    sink = RingSink(capacity=2)
    tracer = Tracer(sink)
    for index in range(3):
        tracer.record("send", f"actor-{index}", kind="call", msg_type="Get")
    lines = sink.lines()
    assert len(lines) == 2 and all(line.endswith(b"\n") for line in lines)
    raw = msgspec.json.decode(lines[-1])
    assert set(raw) == {"mono", "wall", "event", "actor", "kind", "msg_type"}
    assert raw["actor"] == "actor-2"
    with pytest.raises(msgspec.ValidationError):
        decode_trace_line(b'{"mono":1.0,"wall":2.0,"event":"nope","actor":"a"}')


def test_file_sink_rotates_at_the_size_cap(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    tracer = Tracer(FileSink(path, max_bytes=1000, backups=2))
    for index in range(100):
        tracer.record("receive", "diagram:a", msg_type="Get", correlation_id=f"c{index}")
    tracer.close()
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["trace.jsonl", "trace.jsonl.1", "trace.jsonl.2"]
    records: list[TraceRecord] = []
    for name in ("trace.jsonl.2", "trace.jsonl.1", "trace.jsonl"):
        data = (tmp_path / name).read_bytes()
        assert len(data) <= 1000
        records.extend(decode_trace_line(line) for line in data.splitlines())
    ids = [int(r.correlation_id[1:]) for r in records if r.correlation_id]
    assert ids == list(range(ids[0], 100))  # the newest lines, in order, none torn
