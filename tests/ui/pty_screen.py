"""Drive a real TUI process in a pseudo-terminal and read its screen (pexpect + pyte)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence

import pexpect
import pyte

__all__ = ["PtyScreen"]


class PtyScreen:
    """A child process on a pty of `cols`×`rows`, its output fed into a pyte screen."""

    def __init__(
        self, argv: Sequence[str], *, cols: int = 100, rows: int = 30, env: dict[str, str]
    ) -> None:
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.child = pexpect.spawn(
            argv[0], list(argv[1:]), env=env, dimensions=(rows, cols), cwd=os.getcwd()
        )

    def pump(self, timeout: float = 0.05) -> None:
        """Feed whatever output is available (waiting up to `timeout` for the first bytes)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                data = self.child.read_nonblocking(
                    65536, timeout=max(deadline - time.monotonic(), 0)
                )
            except pexpect.TIMEOUT:
                return
            except pexpect.EOF:
                return
            self.stream.feed(data)
            timeout = 0.01
            deadline = time.monotonic() + timeout

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def wait_for(self, predicate: Callable[[str], bool] | str, timeout: float = 60.0) -> str:
        """Pump until the screen satisfies `predicate` (or contains the string)."""
        check = (lambda text: predicate in text) if isinstance(predicate, str) else predicate
        deadline = time.monotonic() + timeout
        while True:
            self.pump()
            text = self.text()
            if check(text):
                return text
            if time.monotonic() > deadline:
                raise AssertionError(f"screen never matched; last screen:\n{text}")

    def send(self, keys: str) -> None:
        self.child.send(keys)

    def resize(self, cols: int, rows: int) -> None:
        self.screen.resize(rows, cols)
        self.child.setwinsize(rows, cols)

    def close(self) -> int | None:
        if self.child.isalive():
            self.child.terminate(force=True)
        self.child.close()
        return self.child.exitstatus
