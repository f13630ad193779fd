"""Lark parse trees of sequence statements -> the raw parts tuples (`sequence_parts`).

Apart from `sequence_grammar` so that Lark (and the `regex` module it loads) is imported only
when a statement needs the grammar, not on every start-up.
"""

from __future__ import annotations

from lark import Token, Transformer

from nereid.mermaid.sequence_parts import DeclarationParts, MessageParts, NoteParts

__all__ = ["ToParts"]


class ToParts(Transformer[Token, object]):
    """Turns parse trees into the raw parts tuples (names stripped, offsets 0-based)."""

    def message(self, children: list[Token | None]) -> MessageParts:
        tokens = [c for c in children if c is not None]
        names = [t for t in tokens if t.type == "NAME"]
        arrow = next(t for t in tokens if t.type == "ARROW")
        activation = next((t for t in tokens if t.type == "ACTIVATION"), None)
        text = next((t for t in tokens if t.type == "TEXT"), None)
        centrals = [t for t in tokens if t.type == "CENTRAL"]
        arrow_at = arrow.start_pos or 0
        return MessageParts(
            names[0].strip(),
            _start(names[0]),
            str(arrow),
            str(activation) if activation is not None else None,
            names[1].strip(),
            _start(names[1]),
            text.strip() if text is not None else "",
            any((c.start_pos or 0) < arrow_at for c in centrals),
            any((c.start_pos or 0) > arrow_at for c in centrals),
        )

    def declaration(self, children: list[Token | None]) -> DeclarationParts:
        tokens = [c for c in children if c is not None]
        keyword = tokens[0]
        name = tokens[1]
        meta = next((t for t in tokens if t.type == "META"), None)
        has_as = any(t.type == "AS" for t in tokens)
        alias = next((t for t in tokens if t.type == "ALIAS"), None)
        return DeclarationParts(
            str(keyword),
            name.strip(),
            _start(name),
            str(meta) if meta is not None else None,
            _start(meta) if meta is not None else 0,
            alias.strip() if alias is not None else None,
            has_as,
        )

    def note(self, children: list[object]) -> NoteParts:
        keyword = children[0]
        placement = children[1]
        names = tuple(
            (c.strip(), _start(c)) for c in children if isinstance(c, Token) and c.type == "NAME"
        )
        text = next(
            (c for c in children if isinstance(c, Token) and c.type == "TEXT"),
            None,
        )
        return NoteParts(
            str(keyword), str(placement), names, text.strip() if text is not None else ""
        )

    def left_of(self, _children: list[Token]) -> str:
        return "left_of"

    def right_of(self, _children: list[Token]) -> str:
        return "right_of"

    def over(self, _children: list[Token]) -> str:
        return "over"


def _start(token: Token) -> int:
    """0-based offset of a token's first non-blank character."""
    start = token.start_pos or 0
    return start + (len(token) - len(token.lstrip()))
