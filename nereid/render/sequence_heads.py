"""Participant heads: the box (or figure) at the top of each lifeline, one look per role.

A plain `participant` is a box. The roles Mermaid knows get a frame of their own so a reader
tells them apart without colour: `actor` a stick figure with the name under it, `database` a
cylinder, `collections` a stacked box, `queue` a rounded box, `entity` a rounded box with a
double floor, `control` a rounded box with an arrow in its roof, `boundary` a box with double
walls. Heads are bottom-aligned; the lifeline starts at the head's last row (joining the box
border as `┬`) or under an actor's name.
"""

from __future__ import annotations

import msgspec

from nereid.model.refs import ObjectRef
from nereid.render.canvas import Canvas
from nereid.render.glyphs import (
    DOWN,
    STYLE_DOUBLE,
    STYLE_LIGHT,
    STYLE_ROUND,
)
from nereid.render.text import text_width

__all__ = ["HeadShape", "draw_head", "head_shape"]

#: Roles drawn as a box one row taller than the label (a rim or a shadow row).
_TALL_ROLES = ("database", "collections")
_ROUND_ROLES = ("queue", "entity", "control", "database")
_ACTOR_FIGURE = (" o ", "/|\\", "/ \\")


class HeadShape(msgspec.Struct, frozen=True, kw_only=True):
    """Size of one participant head. `left`/`right` are offsets from the lifeline column."""

    role: str | None
    lines: tuple[str, ...]
    height: int
    left: int
    right: int


def head_shape(role: str | None, lines: tuple[str, ...]) -> HeadShape:
    """Measure the head for `role` holding `lines` (the name, wrapped, and maybe a note)."""
    label_width = max((text_width(line) for line in lines), default=0)
    if role == "actor":
        total = max(label_width, 3)
        total += 1 - total % 2
        return HeadShape(
            role=role, lines=lines, height=len(lines) + 3, left=-(total // 2), right=total // 2
        )
    inner = max(label_width + 2, 3)
    total = inner + 2
    total += 1 - total % 2
    height = len(lines) + 2 + (1 if role in _TALL_ROLES else 0)
    right = total // 2 + (1 if role == "collections" else 0)
    return HeadShape(role=role, lines=lines, height=height, left=-(total // 2), right=right)


def draw_head(canvas: Canvas, shape: HeadShape, top: int, x: int, owner: ObjectRef) -> int:
    """Draw `shape` with its first row at `top`, centred on column `x`; return the row where
    the lifeline starts."""
    if shape.role == "actor":
        return _draw_actor(canvas, shape, top, x, owner)
    left = x + shape.left
    right = x + (-shape.left)  # the main box is symmetric; a shadow sticks out to the right
    bottom = top + shape.height - 1
    box_bottom = bottom - 1 if shape.role == "collections" else bottom
    style = STYLE_ROUND if shape.role in _ROUND_ROLES else STYLE_LIGHT
    first_text_row = top + 1
    if shape.role == "entity":
        canvas.hline(box_bottom, left + 1, right - 1, STYLE_DOUBLE)
    if shape.role == "boundary":
        canvas.vline(left, top + 1, box_bottom - 1, STYLE_DOUBLE)
        canvas.vline(right, top + 1, box_bottom - 1, STYLE_DOUBLE)
    canvas.box(top, left, box_bottom, right, style, owner)
    for row in range(top + 1, box_bottom):
        canvas.claim(owner, row, left + 1, right - 1)
    if shape.role == "database":
        canvas.hline(top + 1, left, right, style, owner)
        first_text_row = top + 2
    if shape.role == "control":
        canvas.put_char(top, x, canvas.glyphs.hollow_arrow["left"], owner)
    if shape.role == "collections":
        canvas.hline(top + 1, right, right + 1, STYLE_LIGHT, owner)
        canvas.vline(right + 1, top + 1, bottom, STYLE_LIGHT, owner)
        canvas.hline(bottom, left + 1, right + 1, STYLE_LIGHT, owner)
        canvas.vline(left + 1, box_bottom, bottom, STYLE_LIGHT, owner)
    inner = right - left - 1
    for index, line in enumerate(shape.lines):
        col = left + 1 + (inner - text_width(line)) // 2
        canvas.put_text(first_text_row + index, col, line, owner)
    canvas.add_arms(bottom, x, DOWN)
    return bottom


def _draw_actor(canvas: Canvas, shape: HeadShape, top: int, x: int, owner: ObjectRef) -> int:
    for index, part in enumerate(_ACTOR_FIGURE):
        canvas.put_text(top + index, x - 1, part)
        canvas.claim(
            owner, top + index, x - 1 + (1 if index == 0 else 0), x + (0 if index == 0 else 1)
        )
    width = shape.right - shape.left + 1
    for index, line in enumerate(shape.lines):
        row = top + 3 + index
        col = x + shape.left + (width - text_width(line) + 1) // 2
        canvas.put_text(row, col, line)
        if line:
            canvas.claim(owner, row, col, col + text_width(line) - 1)
    return top + shape.height
