"""Nereid: a live, shared workspace for Mermaid diagrams (people and AI agents).

`__version__` is looked up on first use: `importlib.metadata` costs tens of milliseconds
that `nereid render` / `nereid check` and the stdio server's start-up should not pay.
The native finder goes in first, before any submodule is imported (docs/native.md).
"""

from __future__ import annotations

import os as _os

from nereid import _native

_native.install(_os.path.dirname(_os.path.dirname(__file__)))

__all__ = ["__version__"]


def __getattr__(name: str) -> str:
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("nereid")
    except PackageNotFoundError:  # pragma: no cover - running from a bare source tree
        found = "0.0.0"
    globals()["__version__"] = found
    return found
