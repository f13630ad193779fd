"""Identifier rules (model.md §2): the generic id rule and the stricter Mermaid identifier rule.

Ids are plain strings; these checks run at every boundary where an id enters the program.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = [
    "IdError",
    "check_id",
    "check_mermaid_ident",
    "mermaid_ident_problem",
    "node_ident_problem",
    "subgraph_id_problem",
]

#: A flowchart node id as Mermaid reads it and Nereid can write back: letters (any script),
#: digits and `_`, with single `-`, `.` or `:` between them (`api-gw`, `a.b`, `x:y`, `2fa`).
NODE_IDENT: Final = r"\w+(?:[-.:]\w+)*"
_NODE_IDENT: Final = re.compile(NODE_IDENT)


class IdError(ValueError):
    """An id that breaks the generic rule; `str()` is the spec's message text."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


def check_id(value: str) -> str:
    """Validate an id of any kind (model.md §2.1); return it unchanged or raise IdError."""
    if value == "":
        raise IdError("Empty", "id must not be empty")
    if "/" in value:
        raise IdError("ContainsSlash", "id must not contain '/'")
    return value


def mermaid_ident_problem(name: str) -> str | None:
    """Why `name` is not a Mermaid identifier (model.md §2.3), or None when it is one."""
    if name == "":
        return "must not be empty"
    if any(ch.isspace() for ch in name):
        return "must not contain whitespace"
    if "/" in name:
        return "must not contain '/'"
    for ch in name:
        if not (ch.isascii() and (ch.isalnum() or ch == "_")):
            return f"contains invalid character: '{ch}'"
    return None


def subgraph_id_problem(name: str) -> str | None:
    """Why `name` cannot be written as the id of `subgraph <id>`, or None.

    Mermaid reads the header word as the id when it holds no whitespace, so ids may carry
    letters of any script, digits, `_`, `-` and `.` (`subgraph Über-1.x`). Other punctuation
    is refused: it either starts other syntax (`[`, `"`, `:::`) or cannot be an object id (`/`).
    """
    if name == "":
        return "must not be empty"
    for ch in name:
        if ch.isspace():
            return "must not contain whitespace"
        if not (ch.isalnum() or ch in "_-."):
            return f"contains invalid character: '{ch}'"
    return None


def check_mermaid_ident(name: str) -> str:
    """Return `name` if it is a Mermaid identifier (`^[A-Za-z0-9_]+$`), else raise ValueError."""
    problem = mermaid_ident_problem(name)
    if problem is not None:
        raise ValueError(problem)
    return name


def node_ident_problem(name: str) -> str | None:
    """Why `name` is not a flowchart node id (`NODE_IDENT`), or None when it is one.

    Mermaid reads more (`a!`, `$x`), but these are the ids that read back as one id: a `-`
    next to another `-`, `.` or `>` starts a link, `:::` a class, and a trailing separator
    would join the link that follows.
    """
    if _NODE_IDENT.fullmatch(name):
        return None
    if name == "":
        return "must not be empty"
    if any(ch.isspace() for ch in name):
        return "must not contain whitespace"
    if "/" in name:
        return "must not contain '/'"
    for ch in name:
        if not (ch.isalnum() or ch in "_-.:"):
            return f"contains invalid character: '{ch}'"
    if name[0] in "-.:" or name[-1] in "-.:":
        return f"must not start or end with '{name[0] if name[0] in '-.:' else name[-1]}'"
    return "must not have two of '-', '.', ':' in a row (they read as a link or a class)"
