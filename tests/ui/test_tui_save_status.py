"""A real terminal shows when the folder is behind: `not saved: disk full`, then recovery."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pexpect

from .pty_screen import PtyScreen

LAUNCHER = str(Path(__file__).with_name("tui_disk_full_launcher.py"))
ROOT = str(Path(__file__).resolve().parents[2])


def test_the_status_line_says_not_saved_until_space_returns() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "NEREID_TUI_PALETTE")}
    env.update({"TERM": "xterm-256color", "PYTHONPATH": ROOT, "LANG": "C.UTF-8"})
    screen = PtyScreen([sys.executable, LAUNCHER, "6"], cols=120, rows=30, env=env)
    try:
        text = screen.wait_for("not saved: disk full")
        assert "more)" in text  # every demo diagram is behind, not only one
        screen.wait_for(lambda t: "not saved" not in t and "Saved again" in t, timeout=30)
        screen.send("q")
        screen.child.expect(pexpect.EOF, timeout=30)
    finally:
        screen.close()
