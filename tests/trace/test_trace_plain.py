"""`nereid trace FILE --plain`: the timeline, every filter, `--stats`, malformed lines, follow."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from fnmatch import fnmatchcase
from io import StringIO
from pathlib import Path
from typing import Any

import pytest

from nereid.cli import main
from nereid.commands.trace import follow_plain, run
from nereid.trace.calls import follow_calls
from nereid.trace.filters import TraceFilter, parse_time
from nereid.trace.reader import TraceLogReader, read_trace_file
from nereid.trace.records import TraceEntry
from tests.trace.trace_testkit import SCRIPT_CORRELATIONS

Event = dict[str, Any]


def plain(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    code = run([*argv, "--plain"])
    captured = capsys.readouterr()
    return code, captured.out.splitlines(), captured.err


def columns(row: str) -> tuple[str, str, str]:
    """(time, event, actor) of a timeline row."""
    clock, event, actor = row.split()[:3]
    return clock, event, actor


def expected_rows(events: list[Event], keep: Any) -> list[tuple[str, str, str]]:
    def clock(wall: float) -> str:
        moment = datetime.fromtimestamp(wall, UTC)
        return moment.strftime("%H:%M:%S.") + f"{moment.microsecond // 1000:03d}"

    return [(clock(e["wall"]), e["event"], e["actor"]) for e in events if keep(e)]


def test_the_script_recorded_every_kind_of_event(raw_events: list[Event]) -> None:
    kinds = {e["event"] for e in raw_events}
    assert {"spawn", "send", "receive", "reply", "error", "crash", "restart", "timeout"} <= kinds
    assert {e.get("correlation_id") for e in raw_events} >= set(SCRIPT_CORRELATIONS)


def test_plain_timeline_has_one_row_per_line_in_file_order(
    recorded: Path, raw_events: list[Event], capsys: pytest.CaptureFixture[str]
) -> None:
    code, rows, err = plain(capsys, str(recorded))
    assert (code, err) == (0, "")
    assert [columns(row) for row in rows] == expected_rows(raw_events, lambda e: True)
    crash = next(row for row in rows if " crash " in row and "RuntimeError" in row)
    assert "RuntimeError: boom second line" in crash  # the newline is flattened
    assert " c=req-boom " in crash
    sends = [row for row in rows if " send " in row]
    assert any("Add call from session" in row for row in sends)
    assert any("Edit call from (outside)" in row for row in sends)


def test_the_cli_dispatcher_reaches_the_command(
    recorded: Path, raw_events: list[Event], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["trace", str(recorded), "--plain", "--errors"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == sum(
        e["event"] in ("error", "crash", "restart", "timeout") for e in raw_events
    )


@pytest.mark.parametrize("pattern", ["diagram:*", "persister", "session", "nobody"])
def test_actor_filter_keeps_events_at_or_sent_by_the_actor(
    pattern: str, recorded: Path, raw_events: list[Event], capsys: pytest.CaptureFixture[str]
) -> None:
    code, rows, _err = plain(capsys, str(recorded), "--actor", pattern)

    def keep(e: Event) -> bool:
        return fnmatchcase(e["actor"], pattern) or fnmatchcase(e.get("sender") or "", pattern)

    assert code == 0
    assert [columns(row) for row in rows] == expected_rows(raw_events, keep)
    if pattern == "persister":
        assert rows and all("persister" in row for row in rows)


def test_type_filter(
    recorded: Path, raw_events: list[Event], capsys: pytest.CaptureFixture[str]
) -> None:
    _code, rows, _err = plain(capsys, str(recorded), "--type", "Add")
    assert [columns(row) for row in rows] == expected_rows(
        raw_events, lambda e: e.get("msg_type") == "Add"
    )
    assert len(rows) == 2 * 3  # two Add calls: send, receive, reply each


@pytest.mark.parametrize("correlation_id", SCRIPT_CORRELATIONS)
def test_correlation_filter(
    correlation_id: str,
    recorded: Path,
    raw_events: list[Event],
    capsys: pytest.CaptureFixture[str],
) -> None:
    _code, rows, _err = plain(capsys, str(recorded), "--corr", correlation_id)
    assert rows
    assert all(f" c={correlation_id}" in row for row in rows)
    assert [columns(row) for row in rows] == expected_rows(
        raw_events, lambda e: e.get("correlation_id") == correlation_id
    )


def test_errors_filter_keeps_failures_and_restarts(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _code, rows, _err = plain(capsys, str(recorded), "--errors")
    assert [columns(row)[1] for row in rows] == [
        "error",
        "crash",
        "restart",
        "timeout",
        "crash",
        "restart",
    ]
    assert "InjectedCrash" in rows[4]


def test_filters_combine(recorded: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _code, rows, _err = plain(
        capsys, str(recorded), "--errors", "--corr", "req-boom", "--type", "Boom"
    )
    assert [columns(row)[1] for row in rows] == ["crash"]


def test_since_and_until_cut_the_time_window(
    recorded: Path, raw_events: list[Event], capsys: pytest.CaptureFixture[str]
) -> None:
    _code, rows, _err = plain(capsys, str(recorded), "--since", "1h")
    assert len(rows) == len(raw_events)
    _code, rows, _err = plain(capsys, str(recorded), "--since", "2999-01-01T00:00:00")
    assert rows == []
    walls = [e["wall"] for e in raw_events]
    gap = next(i for i in range(1, len(walls)) if walls[i] - walls[i - 1] > 0.01)  # the timeout
    middle = (walls[gap - 1] + walls[gap]) / 2  # microsecond ISO rounding cannot cross it
    iso = datetime.fromtimestamp(middle, UTC).isoformat()
    _code, rows, _err = plain(capsys, str(recorded), "--since", iso)
    assert 0 < len(rows) < len(raw_events)
    assert [columns(row) for row in rows] == expected_rows(
        raw_events, lambda e: e["wall"] >= middle
    )
    _code, rows, _err = plain(capsys, str(recorded), "--until", iso)
    assert [columns(row) for row in rows] == expected_rows(
        raw_events, lambda e: e["wall"] <= middle
    )


def test_parse_time_forms() -> None:
    assert parse_time("10s", now=1000.0) == 990.0
    assert parse_time("5m", now=1000.0) == 700.0
    assert parse_time("250ms", now=1000.0) == 999.75
    assert parse_time("1970-01-01T00:01:00", now=0.0) == 60.0
    assert parse_time("1970-01-01T01:01:00+01:00", now=0.0) == 60.0
    with pytest.raises(ValueError, match="invalid time 'soon'"):
        parse_time("soon", now=0.0)


def nearest_rank(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[max(1, math.ceil(pct / 100 * len(ordered))) - 1]


def test_stats_per_actor(
    recorded: Path, raw_events: list[Event], capsys: pytest.CaptureFixture[str]
) -> None:
    _code, rows, _err = plain(capsys, str(recorded), "--stats")
    assert rows[0].split() == [
        "actor",
        "messages",
        "p50",
        "p99",
        "errors",
        "crashes",
        "restarts",
    ]
    table = {row.split()[0]: row.split()[1:] for row in rows[1:]}
    assert sorted(table) == ["diagram:auth", "persister", "session"]
    for actor, (messages, p50, p99, errors, crashes, restarts) in table.items():
        mine = [e for e in raw_events if e["actor"] == actor]
        count = {name: sum(e["event"] == name for e in mine) for name in ("receive", "error")}
        assert int(messages) == count["receive"]
        assert int(errors) == count["error"]
        assert int(crashes) == sum(e["event"] == "crash" for e in mine)
        assert int(restarts) == sum(e["event"] == "restart" for e in mine)
        handled = [e["duration_ms"] for e in mine if e["event"] in ("reply", "error")]
        for shown, pct in ((p50, 50), (p99, 99)):
            value = nearest_rank(handled, pct)
            assert shown.endswith(("ms", "s"))
            number = float(shown.removesuffix("ms")) if shown.endswith("ms") else 0.0
            if shown.endswith("ms"):
                assert abs(number - value) <= 0.06 * max(value, 0.1)
    auth = table["diagram:auth"]
    assert (auth[0], auth[3], auth[4], auth[5]) == ("5", "1", "2", "2")


def test_stats_respect_filters(recorded: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _code, rows, _err = plain(capsys, str(recorded), "--stats", "--corr", "req-edit")
    table = {row.split()[0]: row.split()[1] for row in rows[1:]}
    assert table == {"diagram:auth": "1", "persister": "1", "session": "1"}


def corrupt_copy(recorded: Path, tmp_path: Path, bad_at: list[int], tail: bytes) -> Path:
    lines = recorded.read_bytes().splitlines(keepends=True)
    for number in sorted(bad_at):
        lines.insert(number - 1, b'{"mono": 1.0, "wall": "not a number", "event": "send"}\n')
    path = tmp_path / "broken.jsonl"
    path.write_bytes(b"".join(lines) + tail)
    return path


def test_malformed_and_truncated_lines_are_skipped_and_reported(
    recorded: Path, raw_events: list[Event], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = corrupt_copy(recorded, tmp_path, [3, 10], b'{"mono": 12.5, "wall": 17')
    code, rows, err = plain(capsys, str(path))
    assert code == 0
    assert len(rows) == len(raw_events)
    total = len(raw_events) + 3
    assert f"skipped 3 malformed lines (line 3, 10, {total})" in err
    assert err.count("\n") == 1


def test_the_report_names_the_first_five_lines_only(
    recorded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = corrupt_copy(recorded, tmp_path, [1, 2, 3, 4, 5, 6, 7], b"")
    code, _rows, err = plain(capsys, str(path), "--stats")
    assert code == 0
    assert "skipped 7 malformed lines (line 1, 2, 3, 4, 5, ...)" in err
    assert "$.wall" in err  # the first problem says where


def test_unknown_keys_and_events_are_tolerated(tmp_path: Path) -> None:
    path = tmp_path / "future.jsonl"
    lines = [
        {"mono": 1.0, "wall": 2.0, "event": "migrate", "actor": "store", "new_key": [1, 2]},
        {"mono": 1.0, "wall": 2.0, "event": "send", "actor": "a", "duration_ms": "slow"},
        {"mono": 1.0, "wall": 2.0, "actor": "a"},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines) + "\n")
    entries, skipped = read_trace_file(path)
    assert [(e.event, e.actor, e.line) for e in entries] == [("migrate", "store", 1)]
    assert (skipped.count, skipped.first_lines) == (2, [2, 3])


def test_bad_command_lines(recorded: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run([str(recorded), "--since", "soon"]) == 2
    assert "invalid time 'soon'" in capsys.readouterr().err
    assert run([str(recorded), "--stats", "--mermaid"]) == 2
    assert run([str(recorded), "--stats", "--follow"]) == 2
    assert run(["--frobnicate", str(recorded)]) == 2
    assert run([str(recorded.parent / "missing.jsonl"), "--plain"]) == 1
    assert "missing.jsonl: No such file or directory" in capsys.readouterr().err
    assert run(["--help"]) == 0
    assert "--mermaid" in capsys.readouterr().out


def test_request_path_in_plain_text(recorded: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, rows, _err = plain(capsys, str(recorded), "--request", "req-edit")
    assert code == 0
    texts = [row.split(" ", 1)[1] for row in rows]
    assert texts[0] == "→ session Edit (call from (outside))"
    assert "  → diagram:auth Add (call from session)" in texts
    assert "    → persister PersistDiagram (cast from diagram:auth)" in texts
    # the last reply; the persister may handle its cast before or after it
    assert [t for t in texts if t.startswith("←")][-1].startswith("← session Edit ok to (outside)")
    code, rows, _err = plain(capsys, str(recorded), "--request", "req-boom")
    assert any("CRASH diagram:auth in Boom: RuntimeError" in row for row in rows)
    assert "RESTART diagram:auth" in rows[-1]
    assert run([str(recorded), "--request", "nope"]) == 1


def test_follow_prints_lines_as_they_are_written(recorded: Path, tmp_path: Path) -> None:
    lines = recorded.read_bytes().splitlines(keepends=True)
    path = tmp_path / "live.jsonl"
    path.write_bytes(b"".join(lines[:5]))
    reader = TraceLogReader(path)
    out = StringIO()
    chunks = [
        b"".join(lines[5:10]) + lines[10][:7],  # the last line arrives in two pieces
        lines[10][7:] + b"".join(lines[11:]),
    ]
    polls: list[int] = []

    def write_more(_seconds: float) -> None:
        polls.append(len(out.getvalue().splitlines()))
        if chunks:
            with path.open("ab") as handle:
                handle.write(chunks.pop(0))

    follow_plain(
        reader,
        TraceFilter(),
        out,
        keep_going=lambda: len(polls) < 3,
        sleep=write_more,
    )
    assert polls == [5, 10, len(lines)]
    assert len(out.getvalue().splitlines()) == len(lines)
    assert reader.skipped.count == 0


def test_reader_restarts_after_rotation(recorded: Path, tmp_path: Path) -> None:
    lines = recorded.read_bytes().splitlines(keepends=True)
    path = tmp_path / "rotating.jsonl"
    path.write_bytes(b"".join(lines[:20]))
    reader = TraceLogReader(path)
    assert len(reader.read_new(final=False)) == 20
    path.replace(tmp_path / "rotating.jsonl.1")
    path.write_bytes(b"".join(lines[20:23]))
    fresh = reader.read_new(final=False)
    assert [e.line for e in fresh] == [1, 2, 3]
    assert fresh[0].mono == json.loads(lines[20])["mono"]


def test_follow_waits_for_a_file_that_is_being_replaced(recorded: Path, tmp_path: Path) -> None:
    lines = recorded.read_bytes().splitlines(keepends=True)
    path = tmp_path / "live.jsonl"
    reader = TraceLogReader(path)
    out = StringIO()
    polls: list[int] = []

    def appear(_seconds: float) -> None:
        polls.append(len(out.getvalue().splitlines()))
        path.write_bytes(b"".join(lines[:4]))

    follow_plain(reader, TraceFilter(), out, keep_going=lambda: len(polls) < 2, sleep=appear)
    assert polls == [0, 4]


def test_pending_casts_do_not_nest_their_siblings() -> None:
    def at(event: str, actor: str, msg: str, sender: str | None = None) -> TraceEntry:
        return TraceEntry(
            mono=0.0,
            wall=0.0,
            event=event,
            actor=actor,
            sender=sender,
            kind="cast" if msg.startswith("Cast") else "call",
            msg_type=msg,
            correlation_id="r",
        )

    script = [
        at("send", "a", "Go"),
        at("receive", "a", "Go"),
        at("send", "b", "CastB", "a"),
        at("send", "c", "CastC", "a"),
        at("send", "d", "Ask", "a"),
        at("receive", "b", "CastB"),
        at("send", "e", "Deeper", "b"),
        at("receive", "e", "Deeper"),
        at("reply", "e", "Deeper"),
        at("reply", "b", "CastB"),
        at("receive", "d", "Ask"),
        at("reply", "d", "Ask"),
        at("reply", "a", "Go"),
        at("receive", "c", "CastC"),
        at("reply", "c", "CastC"),
    ]
    steps = follow_calls(script)
    assert [(s.entry.event, s.entry.actor, s.depth, s.caller) for s in steps] == [
        ("send", "a", 0, None),
        ("receive", "a", 0, None),
        ("send", "b", 1, "a"),
        ("send", "c", 1, "a"),
        ("send", "d", 1, "a"),
        ("receive", "b", 1, "a"),
        ("send", "e", 2, "b"),
        ("receive", "e", 2, "b"),
        ("reply", "e", 2, "b"),
        ("reply", "b", 1, "a"),
        ("receive", "d", 1, "a"),
        ("reply", "d", 1, "a"),
        ("reply", "a", 0, None),
        ("receive", "c", 1, "a"),
        ("reply", "c", 1, "a"),
    ]
