"""The TUI over the demo session saved to a folder whose disk is full for `argv[1]` seconds.

What `test_tui_save_status.py` drives in a real terminal: the status line must say the
folder is behind while saves fail, and clear by itself once they succeed again.
"""

from __future__ import annotations

import errno
import sys

import trio

from nereid.actors.tree import open_session
from nereid.store import load_demo_session
from nereid.store.faults import Fault, FaultPlan
from nereid.store.files import MemoryFiles
from nereid.ui import run_tui


async def main(full_for: float) -> int:
    plan = FaultPlan()
    plan.inject(Fault(errno=errno.ENOSPC, paths="diagrams/*"))
    files = MemoryFiles(faults=plan)
    async with open_session(
        load_demo_session(), files=files, durable=False, unsaved=True
    ) as handle:
        async with trio.open_nursery() as nursery:

            async def space_returns() -> None:
                await trio.sleep(full_for)
                plan.clear()

            nursery.start_soon(space_returns)
            code = await run_tui(handle, mcp_url=None)
            nursery.cancel_scope.cancel()
            return code


if __name__ == "__main__":
    sys.exit(trio.run(main, float(sys.argv[1])))
