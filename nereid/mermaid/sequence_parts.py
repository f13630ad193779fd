"""The raw parts of one sequence statement, and the error for a statement the grammar refuses.

Shared by the statement parsers (`sequence_grammar`: fast paths and Lark) and the Lark
transformer (`sequence_transform`); offsets are 0-based into the statement.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["DeclarationParts", "MessageParts", "NoteParts", "StatementSyntaxError"]


class MessageParts(NamedTuple):
    from_name: str
    from_offset: int
    arrow: str
    activation: str | None
    to_name: str
    to_offset: int
    text: str
    from_central: bool = False
    to_central: bool = False


class DeclarationParts(NamedTuple):
    keyword: str
    name: str
    name_offset: int
    meta: str | None
    meta_offset: int
    alias: str | None
    has_as: bool


class NoteParts(NamedTuple):
    keyword: str
    placement: str
    names: tuple[tuple[str, int], ...]
    text: str


class StatementSyntaxError(Exception):
    """A statement the grammar rejects: `offset` (0-based) of the problem, what was found there
    and which tokens would have been accepted."""

    def __init__(self, offset: int, found: str, expected: tuple[str, ...]) -> None:
        super().__init__(f"unexpected {found!r} at offset {offset}")
        self.offset = offset
        self.found = found
        self.expected = expected
