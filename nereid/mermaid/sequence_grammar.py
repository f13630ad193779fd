"""Statement-level parsing of sequence diagrams: the Lark grammar and the message fast path.

`sequence.lark` is loaded once per process. The fast paths cover the forms that make up
almost every real diagram (`A->>B: text`, `participant A` with plain identifiers); they
return exactly what the grammar returns for the same statement (tests check this), and
anything they do not recognise goes to Lark. Results are raw parts with 0-based offsets into
the statement; `sequence.py` validates names and builds the AST. The parts and the syntax error are in
`sequence_parts`, which both this module and the Lark transformer (`sequence_transform`)
import, so neither imports the other's module at import time.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Final

from nereid.mermaid.sequence_parts import (
    DeclarationParts,
    MessageParts,
    NoteParts,
    StatementSyntaxError,
)

if TYPE_CHECKING:  # Lark is imported on first use: most statements take the fast paths
    from lark import Lark
    from lark.exceptions import UnexpectedInput

__all__ = [
    "FAST_MESSAGE",
    "PLAIN_LINE",
    "fast_declaration",
    "fast_message",
    "lark_declaration",
    "lark_message",
    "lark_note",
    "parse_declaration",
    "parse_message",
]


_ARROWS: Final = r"<<-->>|<<->>|-->>|->>|--\)|-\)|--x|-x|-->|->"
# The fast path leaves half arrows and `()` to the grammar: a name never ends in `/`, `\`.
FAST_MESSAGE: Final = re.compile(
    rf"([A-Za-z0-9_]+)[ \t]*({_ARROWS})[ \t]*([+-]?)[ \t]*([A-Za-z0-9_]+)[ \t]*:(.*)"
)
#: `FAST_MESSAGE` on a physical line: where it matches, the trimmed line matches
#: `FAST_MESSAGE` with the same names and arrow, and a text that strips the same (spaces
#: and tabs lead, whitespace and a `\r` only trail, inside the text group).
PLAIN_LINE: Final = re.compile(rf"[ \t]*{FAST_MESSAGE.pattern}")
_FAST_DECLARATION: Final = re.compile(r"(participant|actor)[ \t]+([A-Za-z0-9_]+)")

#: Readable names for the grammar's terminals, used in "expected ..." texts.
_TERMINAL_NAMES: Final = {
    "ARROW": "an arrow such as '->>'",
    "ACTIVATION": "'+' or '-'",
    "CENTRAL": "'()'",
    "NAME": "a participant name",
    "COLON": "':'",
    "COMMA": "','",
    "TEXT": "text",
    "DECL_NAME": "a participant name",
    "META": "'@{ ... }'",
    "AS": "'as'",
    "ALIAS": "an alias",
    "LEFT_OF": "'left of'",
    "RIGHT_OF": "'right of'",
    "OVER": "'over'",
    "$END": "end of statement",
}


def fast_message(statement: str) -> MessageParts | None:
    """The common message form with plain identifiers, or None to ask the grammar."""
    match = FAST_MESSAGE.fullmatch(statement)
    if match is None:
        return None
    return MessageParts(
        match.group(1),
        match.start(1),
        match.group(2),
        match.group(3) or None,
        match.group(4),
        match.start(4),
        match.group(5).strip(),
    )


def fast_declaration(statement: str) -> DeclarationParts | None:
    """`participant X` / `actor X` with a plain identifier, or None to ask the grammar."""
    match = _FAST_DECLARATION.fullmatch(statement)
    if match is None:
        return None
    return DeclarationParts(match.group(1), match.group(2), match.start(2), None, 0, None, False)


@functools.cache
def _parser() -> Lark:
    from importlib import resources  # (and tempfile): only for the slow path

    from lark import Lark

    from nereid.mermaid.sequence_transform import ToParts

    grammar = resources.files("nereid.mermaid").joinpath("sequence.lark").read_text("utf-8")
    return Lark(
        grammar,
        parser="lalr",
        lexer="contextual",
        start=["message", "declaration", "note"],
        transformer=ToParts(),
        propagate_positions=False,
        maybe_placeholders=True,
    )


def _parse(statement: str, start: str) -> object:
    from lark.exceptions import UnexpectedInput

    try:
        return _parser().parse(statement, start=start)
    except UnexpectedInput as err:
        raise _syntax_error(statement, err) from None


def _syntax_error(statement: str, err: UnexpectedInput) -> StatementSyntaxError:
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken

    if isinstance(err, UnexpectedCharacters):
        offset = err.pos_in_stream or 0
        expected = tuple(sorted(err.allowed or ()))
        found = statement[offset : offset + 1]
    elif isinstance(err, UnexpectedToken):
        token = err.token
        expected = tuple(sorted(err.expected or ()))
        if token.type == "$END":
            offset, found = len(statement), ""
        else:
            offset, found = token.start_pos or 0, str(token)
    elif isinstance(err, UnexpectedEOF):
        offset, found = len(statement), ""
        expected = tuple(sorted(err.expected or ()))
    else:  # pragma: no cover - Lark raises only the three kinds above
        offset, found, expected = 0, statement, ()
    readable = tuple(dict.fromkeys(_TERMINAL_NAMES.get(name, name) for name in expected))
    return StatementSyntaxError(offset, found, readable)


def lark_message(statement: str) -> MessageParts:
    """Parse a message statement with the grammar (raises StatementSyntaxError)."""
    result = _parse(statement, "message")
    assert isinstance(result, MessageParts)
    return result


def lark_declaration(statement: str) -> DeclarationParts:
    """Parse a `participant`/`actor` statement with the grammar (raises StatementSyntaxError)."""
    result = _parse(statement, "declaration")
    assert isinstance(result, DeclarationParts)
    return result


def lark_note(statement: str) -> NoteParts:
    """Parse a `Note ...` statement with the grammar (raises StatementSyntaxError)."""
    result = _parse(statement, "note")
    assert isinstance(result, NoteParts)
    return result


def parse_message(statement: str) -> MessageParts:
    """Fast path first, grammar otherwise."""
    return fast_message(statement) or lark_message(statement)


def parse_declaration(statement: str) -> DeclarationParts:
    """Fast path first, grammar otherwise."""
    return fast_declaration(statement) or lark_declaration(statement)
