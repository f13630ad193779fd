"""The urwid viewer without a terminal: keys in, `render(size).text` out."""

from __future__ import annotations

from pathlib import Path

import pytest
import urwid

from nereid.trace.keys import KEY_BINDINGS
from nereid.trace.reader import TraceLogReader, read_trace_file
from nereid.trace.records import TraceEntry
from nereid.trace.viewer import TraceViewer

SIZE = (120, 50)


def screen(viewer: TraceViewer, size: tuple[int, int] = SIZE) -> list[str]:
    return [line.decode().rstrip() for line in viewer.render(size, focus=True).text]


def press(viewer: TraceViewer, *keys: str) -> None:
    for key in keys:
        viewer.keypress(SIZE, key)


def type_text(viewer: TraceViewer, text: str) -> None:
    press(viewer, *text)


@pytest.fixture
def entries(recorded: Path) -> list[TraceEntry]:
    found, skipped = read_trace_file(recorded)
    assert skipped.count == 0
    return found


@pytest.fixture
def viewer(entries: list[TraceEntry]) -> TraceViewer:
    return TraceViewer(entries, title="session.jsonl")


def body(viewer: TraceViewer) -> list[str]:
    lines = screen(viewer)
    return [line for line in lines[1:-1] if line]


def test_timeline_shows_every_event(viewer: TraceViewer, entries: list[TraceEntry]) -> None:
    lines = screen(viewer)
    total = len(entries)
    assert lines[0].startswith(f"nereid trace session.jsonl | {total}/{total} events | no filter")
    assert "spawn    persister" in lines[1]
    assert lines[-1].startswith("? help  q quit")
    assert len(body(viewer)) == total


def test_errors_key_toggles_the_problem_filter(
    viewer: TraceViewer, entries: list[TraceEntry]
) -> None:
    press(viewer, "e")
    rows = body(viewer)
    assert [row.split()[1] for row in rows] == [
        "error",
        "crash",
        "restart",
        "timeout",
        "crash",
        "restart",
    ]
    assert f"6/{len(entries)} events | errors" in screen(viewer)[0]
    press(viewer, "e")
    assert len(body(viewer)) == len(entries)


def test_actor_and_type_prompts_filter_and_x_clears(
    viewer: TraceViewer, entries: list[TraceEntry]
) -> None:
    press(viewer, "a")
    type_text(viewer, "persister")
    assert screen(viewer)[-1] == "actor (glob): persister"
    press(viewer, "enter")
    rows = body(viewer)
    assert rows and all("persister" in row for row in rows)
    assert "actor=persister" in screen(viewer)[0]
    press(viewer, "t")
    type_text(viewer, "Persist*")
    press(viewer, "enter")
    assert [row.split()[1] for row in body(viewer)] == ["send", "receive", "reply"] * 2
    press(viewer, "x")
    assert len(body(viewer)) == len(entries)


def test_escape_cancels_a_prompt(viewer: TraceViewer, entries: list[TraceEntry]) -> None:
    press(viewer, "a")
    type_text(viewer, "session")
    press(viewer, "esc")
    assert len(body(viewer)) == len(entries)
    assert screen(viewer)[-1].startswith("? help")


def test_correlation_prompt_is_prefilled_from_the_focused_row(viewer: TraceViewer) -> None:
    press(viewer, "down", "down", "down")  # the first send, of req-edit
    press(viewer, "c")
    assert screen(viewer)[-1] == "correlation id: req-edit"
    press(viewer, "enter")
    rows = body(viewer)
    assert len(rows) == 9
    assert all(" c=req-edit" in row for row in rows)


def test_bad_time_window_says_why_and_keeps_the_filter(
    viewer: TraceViewer, entries: list[TraceEntry]
) -> None:
    press(viewer, "w")
    type_text(viewer, "later")
    press(viewer, "enter")
    assert "invalid time 'later'" in screen(viewer)[-1]
    assert len(body(viewer)) == len(entries)
    press(viewer, "w")
    type_text(viewer, "2999-01-01..")
    press(viewer, "enter")
    assert body(viewer) == ["no events match: x clears the filters"]
    press(viewer, "w")
    type_text(viewer, "1h")
    press(viewer, "enter")
    assert len(body(viewer)) == len(entries)


def test_request_view_shows_the_whole_path_and_esc_returns(
    viewer: TraceViewer, entries: list[TraceEntry]
) -> None:
    press(viewer, "down", "down", "down", "enter")
    lines = screen(viewer)
    assert lines[0].endswith("request req-edit: 9 events (esc: back)")
    texts = [line.split(" ", 1)[1] for line in body(viewer)]
    assert texts[0] == "→ session Edit (call from (outside))"
    assert "    → persister PersistDiagram (cast from diagram:auth)" in texts
    # the last reply; the persister may handle its cast before or after it
    assert [t for t in texts if t.startswith("←")][-1].startswith("← session Edit ok to (outside)")
    press(viewer, "e")  # filters belong to the timeline
    assert "esc returns to the timeline" in screen(viewer)[-1]
    press(viewer, "esc")
    assert len(body(viewer)) == len(entries)


def test_request_view_of_a_crash_includes_the_restart(viewer: TraceViewer) -> None:
    press(viewer, "e", "down", "r")  # the crash row of req-boom
    texts = [line.split(" ", 1)[1] for line in body(viewer)]
    assert texts[-2] == "‼ CRASH diagram:auth in Boom: RuntimeError — boom second line"
    assert texts[-1].startswith("↻ RESTART diagram:auth after")


def test_rows_without_correlation_id_cannot_open_a_request(viewer: TraceViewer) -> None:
    press(viewer, "enter")  # a spawn row
    assert screen(viewer)[-1] == "this row has no correlation id"
    assert viewer.request is None


def test_crashes_and_restarts_stand_out(viewer: TraceViewer) -> None:
    canvas = viewer.render(SIZE, focus=True)
    attrs: dict[str, set[object]] = {}
    for row in canvas.content():
        text = b"".join(chunk for _attr, _cs, chunk in row).decode()
        parts = text.split()
        if len(parts) > 1:
            attrs.setdefault(parts[1], set()).update(attr for attr, _cs, _chunk in row)
    assert attrs["crash"] == {"crash"}
    assert attrs["restart"] == {"restart"}
    assert attrs["error"] == {"error"}
    assert attrs["timeout"] == {"error"}
    assert "crash" not in attrs["send"] and "restart" not in attrs["reply"]


def test_help_overlay_lists_every_key_and_any_key_closes_it(viewer: TraceViewer) -> None:
    press(viewer, "?")
    text = "\n".join(screen(viewer))
    for binding in KEY_BINDINGS:
        assert binding.help in text
    press(viewer, "j")
    assert not viewer.help_visible
    assert "keys" not in screen(viewer)[0]


def test_q_quits(viewer: TraceViewer) -> None:
    with pytest.raises(urwid.ExitMainLoop):
        press(viewer, "q")
    press(viewer, "?")
    with pytest.raises(urwid.ExitMainLoop):
        press(viewer, "q")


def test_follow_mode_appends_new_lines_and_stays_at_the_end(recorded: Path, tmp_path: Path) -> None:
    lines = recorded.read_bytes().splitlines(keepends=True)
    path = tmp_path / "live.jsonl"
    path.write_bytes(b"".join(lines[:4]))
    reader = TraceLogReader(path)
    viewer = TraceViewer(reader.read_new(final=False), title="live", reader=reader)
    small = (120, 8)
    assert len(viewer.shown_entries) == 4
    with path.open("ab") as handle:
        handle.write(b"".join(lines[4:20]) + lines[20][:10])
    assert "follow" not in screen(viewer, small)[0]
    viewer.keypress(small, "f")  # turning follow on reads what arrived
    shown = screen(viewer, small)
    assert shown[0].endswith("20/20 events | no filter | follow")
    assert shown[-2].split()[1:3] == ["send", "diagram:auth"]  # lines[19], the newest, in view
    with path.open("ab") as handle:
        handle.write(lines[20][10:] + b"not json\n")
    assert viewer.poll() == 1
    shown = screen(viewer, small)
    assert "21/21 events" in shown[0] and "1 malformed lines skipped" in shown[0]
    assert shown[-2].split()[1:3] == ["receive", "diagram:auth"]  # lines[20], completed
    viewer.keypress(small, "f")
    with path.open("ab") as handle:
        handle.write(lines[21])
    assert "follow" not in screen(viewer, small)[0]


def test_long_logs_scroll_to_either_end() -> None:
    many = [
        TraceEntry(mono=i, wall=1.7e9 + i, event="send", actor=f"a{i}", msg_type="Get", line=i)
        for i in range(1, 5001)
    ]
    viewer = TraceViewer(many, title="many")
    assert body(viewer)[0].split()[2] == "a1"
    press(viewer, "end")
    assert body(viewer)[-1].split()[2] == "a5000"
    press(viewer, "g")
    assert body(viewer)[0].split()[2] == "a1"


def test_the_focused_event_stays_focused_when_a_filter_changes(viewer: TraceViewer) -> None:
    press(viewer, "e", "down")  # the first crash
    press(viewer, "e")  # back to everything: the crash is still the focused row
    press(viewer, "enter")
    assert viewer.request == "req-boom"


def test_follow_survives_the_file_vanishing_while_it_rotates(
    recorded: Path, tmp_path: Path
) -> None:
    lines = recorded.read_bytes().splitlines(keepends=True)
    path = tmp_path / "live.jsonl"
    path.write_bytes(b"".join(lines[:3]))
    reader = TraceLogReader(path)
    viewer = TraceViewer(reader.read_new(final=False), title="live", reader=reader, follow=True)
    path.replace(tmp_path / "live.jsonl.1")
    assert viewer.poll() == 0
    assert "cannot read live: No such file or directory" in screen(viewer)[-1]
    path.write_bytes(b"".join(lines[3:5]))
    assert viewer.poll() == 2
    assert "5/5 events" in screen(viewer)[0]
