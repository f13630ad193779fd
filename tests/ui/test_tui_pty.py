"""The TUI in a real pseudo-terminal: keys, resize, the `$EDITOR` round trip, quitting."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pexpect
import pytest

from .pty_screen import PtyScreen

LAUNCHER = str(Path(__file__).with_name("tui_launcher.py"))
ROOT = str(Path(__file__).resolve().parents[2])


def launch(env_extra: dict[str, str] | None = None, cols: int = 100, rows: int = 30) -> PtyScreen:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "NEREID_TUI_PALETTE")}
    env.update({"TERM": "xterm-256color", "PYTHONPATH": ROOT, "LANG": "C.UTF-8"})
    env.update(env_extra or {})
    return PtyScreen([sys.executable, LAUNCHER], cols=cols, rows=rows, env=env)


@pytest.fixture
def tui() -> object:
    screen = launch()
    yield screen
    screen.close()


def test_keys_panes_help_and_quit(tui: PtyScreen) -> None:
    tui.wait_for("Diagram [3/8] index")
    tui.send("2")
    tui.wait_for("[2]─ Objects")
    tui.send("?")
    tui.wait_for("--- Global ---")
    tui.send("\x1b")
    tui.wait_for(lambda t: "--- Global ---" not in t)
    tui.send("]")
    tui.wait_for("Diagram [4/8] order-flow")
    tui.send("q")
    tui.child.expect(pexpect.EOF, timeout=30)
    tui.child.close()
    assert tui.child.exitstatus == 0


def test_resize_relayouts(tui: PtyScreen) -> None:
    tui.wait_for("Diagram [3/8] index")
    tui.send("2")
    tui.wait_for("[2]─ Objects")
    tui.resize(80, 24)
    # Narrow: the sidebar goes below the diagram, the Objects title starts a row.
    tui.wait_for(lambda t: any(line.startswith("┌─[2]─ Objects") for line in t.splitlines()))
    tui.resize(140, 40)
    tui.wait_for(lambda t: "[2]─ Objects" in t.splitlines()[0])


def test_editor_round_trip_keeps_a_broken_edit(tmp_path: Path) -> None:
    script = tmp_path / "editor.sh"
    script.write_text(
        """#!/bin/sh
n=$(cat "$EDIT_DIR/count" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$EDIT_DIR/count"
cp "$1" "$EDIT_DIR/seen-$n.mmd"
if [ "$n" = 1 ]; then printf 'flowchart TD\\n  A -->\\n' > "$1"
else sed 's/Browse the catalog/Browse the shop/' "$EDIT_DIR/seen-1.mmd" > "$1"; fi
"""
    )
    script.chmod(0o755)
    tui = launch({"EDITOR": str(script), "VISUAL": "", "EDIT_DIR": str(tmp_path)})
    try:
        tui.wait_for("Diagram [3/8] index")
        tui.send("e")
        text = tui.wait_for("not applied")
        assert "Browse the catalog" in text  # the diagram is unchanged
        tui.send("e")
        tui.wait_for("Browse the shop")
        text = tui.wait_for("r2")
        second = (tmp_path / "seen-2.mmd").read_text()
        assert second.startswith("%% nereid: ")  # the error, as a comment header
        assert "A -->" in second  # the person's broken text was kept, not lost
        assert "Browse the catalog" in (tmp_path / "seen-1.mmd").read_text()
    finally:
        tui.close()


def test_sigterm_restores_the_terminal_and_exits(tui: PtyScreen) -> None:
    tui.wait_for("Diagram [3/8] index")
    tui.child.kill(signal.SIGTERM)
    tui.child.expect(pexpect.EOF, timeout=30)
    tui.stream.feed(tui.child.before or b"")
    tui.child.close()
    assert tui.child.exitstatus == 128 + signal.SIGTERM
    # The alternate screen was left: the normal buffer (blank here) is back.
    assert "Diagram [3/8]" not in tui.text()
