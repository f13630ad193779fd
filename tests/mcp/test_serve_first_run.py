"""`nereid serve` as a newcomer meets it: one-line errors, a port-clash hint, tracing.

Real processes: what the person sees on stderr is what is checked.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

from tests.mcp.session_kit import REPO


def _serve(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nereid", "serve", *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


def test_a_folder_it_cannot_open_gets_one_line_not_a_traceback(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "shopping.txt").write_text("milk\n")
    result = _serve(str(folder), "--port", "0")
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert str(folder) in lines[0] and "shopping.txt" in lines[0]


def test_a_taken_port_fails_with_a_hint(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = _serve(str(tmp_path / "s"), "--port", str(port))
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert f"127.0.0.1:{port}" in result.stderr and "--port" in result.stderr


def test_an_unwritable_trace_file_is_one_line(tmp_path: Path) -> None:
    result = _serve("--demo", "--port", "0", "--trace", str(tmp_path / "missing" / "t.jsonl"))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "cannot open the trace file" in result.stderr


def _run_until_listening(args: list[str], env: dict[str, str]) -> None:
    """Start `nereid serve`, wait for its URL line, then stop it with SIGINT."""
    process = subprocess.Popen(
        [sys.executable, "-m", "nereid", "serve", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env={**os.environ, **env},
    )
    try:
        assert process.stderr is not None
        for line in process.stderr:
            if "MCP listening on" in line:
                break
        else:
            raise AssertionError("nereid serve exited before listening")
        process.send_signal(signal.SIGINT)
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
        with process:  # closes its stderr pipe and reaps it
            process.wait()


def test_trace_flag_and_env_both_record_in_serve_mode(tmp_path: Path) -> None:
    by_flag = tmp_path / "flag.jsonl"
    by_env = tmp_path / "env.jsonl"
    env = {k: v for k, v in os.environ.items() if k != "NEREID_TRACE"}
    _run_until_listening(["--demo", "--port", "0", "--trace", str(by_flag)], env)
    _run_until_listening(["--demo", "--port", "0"], {**env, "NEREID_TRACE": str(by_env)})
    for path in (by_flag, by_env):
        events = [json.loads(line) for line in path.read_text().splitlines() if line]
        assert any(e.get("event") == "spawn" for e in events), path
