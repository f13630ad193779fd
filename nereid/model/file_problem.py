"""Why a session file cannot be taken in: a value the store finds and everyone shows.

The store reports it when a `.mmd`, side-car or walkthrough file does not load; the actors
keep it beside the last good state, and the tools and the TUI show it. It lives in the model
so that those readers need nothing of the store.
"""

from __future__ import annotations

import msgspec

__all__ = ["FileProblem"]


class FileProblem(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """Why a session file cannot be taken in: the file, where (1-based, None when the
    whole file is meant) and what; shown in `diagram.list` / `diagram.stat` and the TUI."""

    file: str
    message: str
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        where = "" if self.line is None else f":{self.line}:{self.column or 1}"
        return f"{self.file}{where}: {self.message}"
