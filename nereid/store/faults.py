"""Injected file-system faults: the seam tests and the chaos suite use to break saving.

A `FaultPlan` is handed to `FolderFiles` or `MemoryFiles` (`faults=`); both call
`plan.check(point, path)` at each fault point of their real code path, so an injected
`ENOSPC` goes through exactly the clean-up a full disk would (temp file removed, target
untouched). Points:

- ``write``: before the data of a file is written (a full disk, a read-only folder);
- ``fsync``: before a file or its directory is synced (EIO, or `delay` for a slow disk);
- ``rename``: before the temp file replaces the target;
- ``read``, ``remove``: before a file is read or deleted.

Faults match by point and `fnmatch` pattern on the relative path, may be limited to a
number of hits, and can be added and cleared from any thread while saves run.
"""

from __future__ import annotations

import errno as errno_codes
import fnmatch
import os
import threading
import time
from dataclasses import dataclass, field
from typing import Final, Literal

__all__ = ["FAULT_POINTS", "Fault", "FaultPlan", "FaultPoint", "disk_error"]

FaultPoint = Literal["write", "fsync", "rename", "read", "remove"]
FAULT_POINTS: Final[tuple[FaultPoint, ...]] = ("write", "fsync", "rename", "read", "remove")


def disk_error(code: int, path: str) -> OSError:
    """The `OSError` the system raises for `code` (`errno.ENOSPC`...) on `path`."""
    return OSError(code, os.strerror(code), path)


@dataclass(frozen=True)
class Fault:
    """Fail (`errno`) and/or stall (`delay` seconds) at `points` for paths matching `paths`.

    `times`: how many hits before the fault is used up (None: until cleared).
    """

    errno: int | None = errno_codes.ENOSPC
    points: frozenset[FaultPoint] = frozenset({"write"})
    paths: str = "*"
    delay: float = 0.0
    times: int | None = None


@dataclass
class FaultPlan:
    """The faults in force; thread-safe. `hits` counts the faults that fired, by point."""

    faults: list[Fault] = field(default_factory=list)
    hits: dict[str, int] = field(default_factory=dict)
    _used: dict[int, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def inject(self, fault: Fault) -> Fault:
        with self._lock:
            self.faults.append(fault)
        return fault

    def clear(self) -> None:
        with self._lock:
            self.faults.clear()
            self._used.clear()

    def check(self, point: FaultPoint, path: str) -> None:
        """Raise or stall if a fault is in force for `point` on `path` (else nothing)."""
        with self._lock:
            chosen: Fault | None = None
            for index, fault in enumerate(self.faults):
                if point not in fault.points or not fnmatch.fnmatchcase(path, fault.paths):
                    continue
                if fault.times is not None:
                    used = self._used.get(id(fault), 0)
                    if used >= fault.times:
                        continue
                    self._used[id(fault)] = used + 1
                chosen = self.faults[index]
                self.hits[point] = self.hits.get(point, 0) + 1
                break
        if chosen is None:
            return
        if chosen.delay > 0:
            time.sleep(chosen.delay)
        if chosen.errno is not None:
            raise disk_error(chosen.errno, path)
