"""What a sequence message's arrow token looks like: line style and the ends it draws.

Mermaid's tokens (mermaid.md §5.4): `->` solid, no head; `-->` dashed, no head; `->>` / `-->>`
filled arrowhead; `-x` / `--x` a cross; `-)` / `--)` an open (async) head; `<<->>` / `<<-->>`
heads at both ends. Two dashes mean a dashed line.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

import msgspec

from nereid.model.sequence import SeqMessage

__all__ = ["ArrowLook", "HeadKind", "arrow_look", "token_look"]

HeadKind = Literal["none", "arrow", "open", "cross"]


class ArrowLook(msgspec.Struct, frozen=True, kw_only=True):
    """How to draw one message: dashed or solid, the head at the target and at the sender."""

    dashed: bool
    head: HeadKind
    tail: HeadKind


def arrow_look(message: SeqMessage) -> ArrowLook:
    """The look of `message`, from its written token (the kind's canonical one if none)."""
    return token_look(message.token)


@lru_cache(maxsize=64)
def token_look(token: str) -> ArrowLook:
    """The look of an arrow token (`->>`, `--x`, `<<-->>`, `-|\\`, `//--`, ...)."""
    half = _half_arrow(token)
    if half is not None:
        return half
    both = token.startswith("<<")
    body = token[2:] if both else token
    dashed = body.startswith("--")
    head: HeadKind
    if body.endswith(">>"):
        head = "arrow"
    elif body.endswith(")"):
        head = "open"
    elif body.endswith("x"):
        head = "cross"
    else:
        head = "none"
    return ArrowLook(dashed=dashed, head=head, tail=head if both else "none")


def _half_arrow(token: str) -> ArrowLook | None:
    """Mermaid 11 half arrows, drawn with a whole head of the same family: `|` a filled
    head, a stick (`\\\\`, `//`) an open one; reversed (`/|-`) at the sender's end."""
    if token[:1] in ("/", "\\"):
        head: HeadKind = "arrow" if token[1] == "|" else "open"
        return ArrowLook(dashed=token.endswith("--"), head="none", tail=head)
    if token[-1:] in ("/", "\\"):
        head = "arrow" if token[-2] == "|" else "open"
        return ArrowLook(dashed=token.startswith("--"), head=head, tail="none")
    return None
