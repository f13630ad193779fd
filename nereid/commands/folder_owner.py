"""Who may open a session folder (spec decision 19), for the commands that open one.

- `claim(folder, mode, prog)`: own the folder (`FolderLock`), saying so on stderr when a
  stale lock of a dead owner was taken over; raises `FolderOwned` for a live owner.
- `refusal(owned)`: the one line `nereid DIR` / `nereid serve DIR` print when the folder
  is owned by a live Nereid, naming the owner and what to do.
- `run_bridge(folder, owned)`: `nereid --mcp DIR` on an owned folder relays stdio to the
  owner's HTTP endpoint (`nereid.mcp.bridge`) until the client or the owner goes away.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path
from typing import Final
from urllib.parse import urlencode

import trio

from nereid.mcp.bridge import bridge_stdio
from nereid.mcp.endpoint import TOOL_NAMES_QUERY
from nereid.store.folder_lock import (
    FolderLock,
    FolderOwned,
    LockInfo,
    OwnerMode,
    read_owner,
    read_token,
)
from nereid.tool_names import ToolNames

__all__ = ["claim", "refusal", "run_bridge"]

#: Seconds a bridge waits for a just-started owner to publish its MCP URL.
_URL_PATIENCE: Final = 15.0
#: Seconds between checks that the owner is still there.
_OWNER_POLL: Final = 0.5
_EXIT_OWNER_GONE: Final = 1


def claim(folder: Path, mode: OwnerMode) -> FolderLock:
    """Own `folder`; raises `FolderOwned` (a live owner) or OSError (cannot write the lock)."""
    lock = FolderLock.acquire(folder, mode)
    if lock.recovered is not None:
        print(
            f"nereid: took over the stale lock of {folder} left by {lock.recovered.describe()}, "
            "which is no longer running",
            file=sys.stderr,
            flush=True,
        )
    return lock


def refusal(owned: FolderOwned) -> str:
    """One line: who owns the folder and what to do instead."""
    return (
        f"nereid: {owned}; use that session (an agent joins it with "
        f"`nereid --mcp {owned.folder}`), or quit it first"
    )


def _wait_for_url(folder: Path, info: LockInfo | None) -> LockInfo | None:
    """The owner's record once it names its MCP URL (an owner may still be starting)."""
    deadline = time.monotonic() + _URL_PATIENCE
    while info is None or info.url is None:
        if time.monotonic() > deadline:
            return info
        time.sleep(0.05)
        info = read_owner(folder)
        if info is None:  # the owner left while starting
            return None
    return info


def _token_for(folder: Path) -> str | None:
    """The bearer token: the lock's companion file, else NEREID_TOKEN."""
    token = read_token(folder)
    if token is None:
        token = os.environ.get("NEREID_TOKEN") or None
    return token


async def _watch_owner(folder: Path, owner: LockInfo) -> None:
    """Exit the process when the owner is gone (the stdin reader cannot be cancelled)."""
    while True:
        await trio.sleep(_OWNER_POLL)
        now = await trio.to_thread.run_sync(read_owner, folder)
        if now is None or now.pid != owner.pid or now.host != owner.host:
            print(
                f"nereid: the session owner (pid {owner.pid}) has exited; the bridge is closed "
                f"(start `nereid --mcp {folder}` again to own the folder)",
                file=sys.stderr,
                flush=True,
            )
            os._exit(_EXIT_OWNER_GONE)


async def _bridge_main(folder: Path, owner: LockInfo, url: str, token: str | None) -> int:
    with trio.open_signal_receiver(signal.SIGTERM) as signals:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_watch_owner, folder, owner)

            async def stop_on_sigterm() -> None:
                async for signum in signals:
                    sys.stderr.flush()
                    os._exit(128 + signum)

            nursery.start_soon(stop_on_sigterm)
            await bridge_stdio(url, token=token)
            nursery.cancel_scope.cancel()
    return 0


def run_bridge(folder: Path, owned: FolderOwned, tool_names: ToolNames = "dotted") -> int:
    """`nereid --mcp DIR` on an owned folder: relay stdio to the owner; the exit status.

    The owner lists tools in the spelling this process was asked for (`?tool_names=`).
    """
    info = _wait_for_url(folder, owned.info)
    if info is None:
        print(
            f"nereid: {folder} was owned by another nereid that has just exited; start again",
            file=sys.stderr,
        )
        return 1
    if info.url is None:
        print(
            f"nereid: {folder} is open in another nereid, {info.describe()}, that serves no "
            "MCP endpoint to join; quit it first",
            file=sys.stderr,
        )
        return 1
    try:
        token = _token_for(folder)
    except (OSError, UnicodeDecodeError) as err:
        print(f"nereid: cannot read the session owner's token: {err}", file=sys.stderr)
        return 1
    if info.needs_token and token is None:
        print(
            f"nereid: the session owner, {info.describe()}, needs a bearer token and none was "
            "found: set NEREID_TOKEN",
            file=sys.stderr,
        )
        return 1
    print(
        f"nereid: {folder} is open in another nereid, {info.describe()}: "
        "bridging this MCP client to that live session",
        file=sys.stderr,
        flush=True,
    )
    try:
        url = f"{info.url}?{urlencode({TOOL_NAMES_QUERY: tool_names})}"
        return trio.run(_bridge_main, folder, info, url, token)
    except KeyboardInterrupt:
        return 130
