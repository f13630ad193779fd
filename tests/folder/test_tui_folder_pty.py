"""The person's TUI (a real `nereid DIR` in a pty) with an agent over MCP on the same folder.

The person edits a diagram in `$EDITOR` (a scripted editor program) while the agent changes
the same node over MCP: nothing is lost and nothing is applied behind anyone's back — the
re-opened file shows both versions with inline `%%` markers, and once the person resolves
them their edit is merged with the agent's. A file broken by hand shows on the status line.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import pexpect
import trio
from mcp import Client
from mcp_types import Implementation

from nereid.store.folder_lock import read_owner
from tests.ui.pty_screen import PtyScreen

REPO = Path(__file__).resolve().parents[2]

EDITOR = """#!/bin/sh
# A person at their editor: the first edit takes a while (the agent works meanwhile);
# the second one resolves the conflict by keeping their version (drops the %% lines).
n=$(( $(cat "$EDIT_DIR/count" 2>/dev/null || echo 0) + 1 )); echo $n > "$EDIT_DIR/count"
cp "$1" "$EDIT_DIR/seen-$n.mmd"
if [ "$n" = 1 ]; then
  touch "$EDIT_DIR/editing"
  i=0; while [ ! -f "$EDIT_DIR/go" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done
  sed 's/Hello/Hello from the person/' "$EDIT_DIR/seen-1.mmd" > "$1"
  printf '  mine[Person node]\\n' >> "$1"
else
  grep -v '^%%' "$EDIT_DIR/seen-$n.mmd" > "$1"
fi
"""


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "NEREID_TRACE")}
    env.update({"TERM": "xterm-256color", "PYTHONPATH": str(REPO), "LANG": "C.UTF-8"})
    env.update(extra)
    return env


def _wait_file(path: Path, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.05)


async def _ok(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error and result.structured_content is not None, (tool, result)
    return result.structured_content


async def test_editor_merge_and_a_broken_file_in_a_real_terminal(tmp_path: Path) -> None:
    folder = tmp_path / "proj"
    edits = tmp_path / "edits"
    edits.mkdir()
    editor = tmp_path / "fake-editor"
    editor.write_text(EDITOR)
    editor.chmod(0o755)
    env = _env(EDITOR=str(editor), VISUAL="", EDIT_DIR=str(edits))
    tui = PtyScreen(
        [sys.executable, "-m", "nereid", str(folder), "--mcp-http-port", "0"],
        cols=110,
        rows=30,
        env=env,
    )
    try:
        tui.wait_for("Hello")
        owner = read_owner(folder)
        assert owner is not None and owner.url is not None
        tui.send("e")
        await trio.to_thread.run_sync(_wait_file, edits / "editing")
        client = Client(owner.url, client_info=Implementation(name="agent", version="1"))
        async with client:
            rev = (await _ok(client, "diagram.stat", {"diagram_id": "flow"}))["rev"]
            await _ok(
                client,
                "diagram.apply_ops",
                {
                    "diagram_id": "flow",
                    "base_rev": rev,
                    "ops": [
                        {"type": "flow_update_node", "node_id": "n:hello", "label": "Hi agent"},
                        {"type": "flow_add_node", "node_id": "n:agent", "label": "Agent node"},
                    ],
                },
            )
            (edits / "go").touch()
            tui.wait_for("conflict")
            # Nothing of the person's edit was applied; the agent's change stands.
            read = await _ok(client, "diagram.read", {"diagram_id": "flow"})
            assert "Hi agent" in read["mermaid"] and "Person node" not in read["mermaid"]
            tui.send("e")  # re-open: both versions, marked in place
            tui.wait_for("Person node")
            second = (edits / "seen-2.mmd").read_text()
            lines = second.splitlines()
            opened = next(i for i, line in enumerate(lines) if "<<<<<<< nereid conflict 1" in line)
            assert lines[opened + 1].startswith("%%") and "Hi agent" in lines[opened + 1]
            assert "Hello from the person" in lines[opened + 3]
            assert not lines[opened + 3].lstrip().startswith("%%")
            assert "Agent node" in second  # the agent's addition is in the re-opened text
            read = await _ok(client, "diagram.read", {"diagram_id": "flow"})
            text = read["mermaid"]
            assert "Hello from the person" in text and "Agent node" in text
            assert "Person node" in text and "Hi agent" not in text

            # A broken edit by hand: the status line says where; the file is left alone.
            mmd = folder / "diagrams" / "flow.mmd"
            mmd.write_text("flowchart TD\n  hello[Hello -->\n", encoding="utf-8")
            tui.wait_for("diagrams/flow.mmd:2: does not parse")
            listed = await _ok(client, "diagram.list", {})
            (entry,) = listed["diagrams"]
            assert entry["file_error"]["line"] == 2
        tui.send("q")
        tui.child.expect(pexpect.EOF, timeout=20)
        tui.child.close()
        assert mmd.read_text(encoding="utf-8") == "flowchart TD\n  hello[Hello -->\n"
    finally:
        tui.close()
