"""Run the TUI on the in-memory demo session (no MCP): what the pty tests drive.

`python tests/ui/tui_launcher.py` — the same `run_tui` the CLI calls, over the real actor tree.
"""

from __future__ import annotations

import sys

import trio

from nereid.actors.tree import open_session
from nereid.store import load_demo_session
from nereid.ui import run_tui


async def main() -> int:
    async with open_session(load_demo_session(), files=None, durable=False) as handle:
        return await run_tui(handle, mcp_url=None)


if __name__ == "__main__":
    sys.exit(trio.run(main))
