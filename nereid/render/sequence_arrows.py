"""What a sequence message's arrow token looks like, and how a message's line is drawn.

Mermaid's tokens (mermaid.md §5.4): `->` solid, no head; `-->` dashed, no head; `->>` / `-->>`
filled arrowhead; `-x` / `--x` a cross; `-)` / `--)` an open (async) head; `<<->>` / `<<-->>`
heads at both ends. Two dashes mean a dashed line.

`draw_message_line` is the one definition of a (non-self) message row: the canvas painter
(`sequence.py`) and the row painter (`sequence_rows.py`) both call it, on a canvas or on one
row of cells.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Literal, Protocol

import msgspec

from nereid.model.refs import ObjectRef
from nereid.model.sequence import SeqMessage
from nereid.render.glyphs import STYLE_DOTTED, STYLE_LIGHT, GlyphSet
from nereid.render.text import text_width

if TYPE_CHECKING:
    from nereid.render.sequence_layout import HeadPlan, MessagePlan

__all__ = [
    "ArrowLook",
    "HeadKind",
    "LineSurface",
    "arrow_look",
    "draw_message_line",
    "head_glyph",
    "label_room",
    "token_look",
]

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


class LineSurface(Protocol):
    """The drawing calls a message line needs (`Canvas` has them; so has one row of cells)."""

    def hline(
        self,
        row: int,
        col_start: int,
        col_end: int,
        style: int = STYLE_LIGHT,
        owner: ObjectRef | None = None,
    ) -> None: ...

    def put_text(self, row: int, col: int, text: str, owner: ObjectRef | None = None) -> int: ...

    def put_char(self, row: int, col: int, char: str, owner: ObjectRef | None = None) -> None: ...

    def claim(self, owner: ObjectRef, row: int, col_start: int, col_end: int) -> None: ...


def head_glyph(glyphs: GlyphSet, kind: HeadKind, direction: str) -> str:
    """The glyph of an arrow end of `kind` reached travelling `direction`."""
    if kind == "arrow":
        return glyphs.arrow[direction]
    if kind == "cross":
        return glyphs.cross
    if glyphs.name == "ascii":  # Mermaid's own async mark reads better than `>`
        return ")" if direction == "right" else "("
    return glyphs.hollow_arrow[direction]


def label_room(plan: MessagePlan, heads: Sequence[HeadPlan]) -> tuple[int, int]:
    """The cells a label may take: between the message's ends (heads excluded, one line
    cell kept each side); for a message passing other lifelines, the sender's gap only, so
    the label stays by its sender and never covers a lifeline."""
    look = plan.look
    sx, tx = plan.from_x, plan.to_x
    step = 1 if tx > sx else -1
    first = sx + step * (2 if look.tail != "none" else 1)
    if abs(plan.from_index - plan.to_index) > 1:
        last = heads[plan.from_index + step].x - step
    else:
        last = tx - step * (2 if look.head != "none" else 1)
    return min(first, last) + 1, max(first, last) - 1


def draw_message_line(
    surface: LineSurface,
    row: int,
    ends: tuple[int, int],
    look: ArrowLook,
    label: str | None,
    room: tuple[int, int],
    glyphs: GlyphSet,
    owner: ObjectRef,
) -> None:
    """The arrow row of a message between two lifelines (`ends`: the sender's column, the
    target's): the line (dashed or not), the last label line in a gap of it (a blank cell
    either side, centred in `room`, see `label_room`), and the heads."""
    style = STYLE_DOTTED if look.dashed else STYLE_LIGHT
    sx, tx = ends
    step = 1 if tx > sx else -1
    start = sx + step if look.tail != "none" else sx
    end = tx - step if look.head != "none" else tx
    if label is not None:
        lo, hi = room
        width = text_width(label)
        col = lo + (hi - lo + 1 - width - 2) // 2 + 1
        left, right = min(start, end), max(start, end)
        surface.hline(row, left, col - 2, style, owner)
        surface.hline(row, col + width + 1, right, style, owner)
        surface.put_text(row, col, label)
        surface.claim(owner, row, col - 1, col + width)
    else:
        surface.hline(row, start, end, style, owner)
    if look.head != "none":
        direction = "right" if step > 0 else "left"
        surface.put_char(row, tx - step, head_glyph(glyphs, look.head, direction), owner)
    if look.tail != "none":
        direction = "left" if step > 0 else "right"
        surface.put_char(row, sx + step, head_glyph(glyphs, look.tail, direction), owner)
