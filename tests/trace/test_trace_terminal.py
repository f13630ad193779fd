"""`nereid trace FILE` in a real pseudo-terminal, and the sink the `--trace` wiring opens."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pexpect

from nereid.commands.trace import open_trace_sink
from nereid.runtime import Tracer
from nereid.trace.reader import read_trace_file


def test_viewer_opens_in_a_terminal_and_q_quits(recorded: Path) -> None:
    env = {**os.environ, "TERM": "xterm-256color"}
    child = pexpect.spawn(
        sys.executable,
        ["-m", "nereid", "trace", str(recorded)],
        env=env,
        dimensions=(40, 140),
        timeout=20,
        encoding="utf-8",
    )
    try:
        child.expect("nereid trace ")
        child.expect("events")
        child.expect("spawn")
        child.expect(r"\? help")
        child.send("q")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0


def test_open_trace_sink_rotates_at_the_cap_without_tearing_lines(tmp_path: Path) -> None:
    path = tmp_path / "run.trace"
    tracer = Tracer(open_trace_sink(path, max_bytes=2_000, backups=2))
    for index in range(200):
        tracer.record("send", "diagram:a", kind="call", msg_type="Get", correlation_id=f"c{index}")
    tracer.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.trace", "run.trace.1", "run.trace.2"]
    for name in ("run.trace", "run.trace.1", "run.trace.2"):
        assert (tmp_path / name).stat().st_size <= 2_000
        entries, skipped = read_trace_file(tmp_path / name)
        assert skipped.count == 0 and entries
    newest, _skipped = read_trace_file(path)
    assert newest[-1].correlation_id == "c199"
