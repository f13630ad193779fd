"""Reading a trace log: whole, or incrementally while the runtime is still writing it.

Malformed or truncated lines are never fatal: they are skipped and counted in `SkippedLines`
(the count and the first few line numbers), which the command reports on standard error.
A file being written may end in half a line (the runtime flushes in chunks); the reader holds
that tail until its newline arrives, or counts it as truncated when told the file is final.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import msgspec

from .records import TraceEntry, decode_entry

__all__ = ["MAX_REPORTED_LINES", "SkippedLines", "TraceLogReader", "read_trace_file"]

#: How many line numbers of skipped lines a report names.
MAX_REPORTED_LINES: Final = 5


@dataclass
class SkippedLines:
    """Lines that could not be decoded: how many, the first few numbers, the first reason."""

    count: int = 0
    first_lines: list[int] = field(default_factory=list)
    first_reason: str | None = None

    def add(self, line: int, reason: str) -> None:
        self.count += 1
        if len(self.first_lines) < MAX_REPORTED_LINES:
            self.first_lines.append(line)
        if self.first_reason is None:
            self.first_reason = reason

    def describe(self, path: str) -> str:
        """One line for standard error, e.g. `trace.jsonl: skipped 2 malformed lines (3, 9): ...`."""
        numbers = ", ".join(str(n) for n in self.first_lines)
        more = ", ..." if self.count > len(self.first_lines) else ""
        plural = "line" if self.count == 1 else "lines"
        return (
            f"{path}: skipped {self.count} malformed {plural} "
            f"(line {numbers}{more}); first problem: {self.first_reason}"
        )


class TraceLogReader:
    """Reads the lines appended to `path` since the previous `read_new` call.

    Not thread-safe; does blocking file I/O (small reads, fine for a viewer's timer). If the
    file shrinks or is replaced (the runtime rotated it), reading restarts at its beginning.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.skipped = SkippedLines()
        self._offset = 0
        self._line = 0
        self._tail = b""
        self._identity: tuple[int, int] | None = None

    def read_new(self, *, final: bool = True) -> list[TraceEntry]:
        """Decode the complete lines added since the last call (raises `OSError` if unreadable).

        With `final`, a last line without a newline is counted as truncated; without it, the
        line is kept until the rest of it is written.
        """
        with open(self.path, "rb") as handle:
            stat = os.fstat(handle.fileno())
            identity = (stat.st_dev, stat.st_ino)
            if identity != self._identity or stat.st_size < self._offset:
                self._identity = identity
                self._offset = 0
                self._line = 0
                self._tail = b""
            handle.seek(self._offset)
            data = handle.read()
        self._offset += len(data)
        data = self._tail + data
        lines = data.split(b"\n")
        self._tail = lines.pop()
        entries = [entry for raw in lines if (entry := self._decode(raw)) is not None]
        if final and self._tail:
            tail, self._tail = self._tail, b""
            entry = self._decode(tail, truncated_reason="truncated last line (no newline)")
            if entry is not None:
                entries.append(entry)
        return entries

    def _decode(self, raw: bytes, truncated_reason: str | None = None) -> TraceEntry | None:
        self._line += 1
        if not raw.strip():
            return None
        try:
            return decode_entry(raw, self._line)
        except (msgspec.DecodeError, msgspec.ValidationError) as err:
            self.skipped.add(self._line, truncated_reason or str(err))
            return None


def read_trace_file(path: str | os.PathLike[str]) -> tuple[list[TraceEntry], SkippedLines]:
    """Every decodable entry of a finished log, in file order, and what was skipped."""
    reader = TraceLogReader(path)
    entries = reader.read_new(final=True)
    return entries, reader.skipped
