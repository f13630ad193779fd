"""Shared helpers of the store tests."""

from __future__ import annotations

import builtins

#: Every built-in exception type that can be raised with one message argument: what a
#: save may throw at the persister, RecursionError and MemoryError included.
EXCEPTION_TYPES: list[type[Exception]] = sorted(
    (
        t
        for t in vars(builtins).values()
        if isinstance(t, type)
        and issubclass(t, Exception)
        and not issubclass(t, (UnicodeError, ExceptionGroup))
    ),
    key=lambda t: t.__name__,
)
