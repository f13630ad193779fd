"""Node shapes: a distinct frame per shape family, drawn into a box rectangle.

The frame is the box border plus, for some families, marker glyphs on the sides or extra
inner lines (subroutine bars, a cylinder's lid). Edges attach to border cells; markers are
text cells, so a line ending at a marker simply stops next to it.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from nereid.model.refs import ObjectRef
from nereid.render.canvas import Canvas
from nereid.render.glyphs import (
    DOWN,
    LEFT,
    RIGHT,
    STYLE_DOUBLE,
    STYLE_HEAVY,
    STYLE_LIGHT,
    STYLE_ROUND,
    UP,
)

__all__ = ["ShapeStyle", "draw_shape", "shape_style"]


class ShapeStyle(NamedTuple):
    """How a shape family looks: line style, side markers, corner glyphs, extra geometry."""

    line: int = STYLE_LIGHT
    left: str | None = None  # marker on the left side's inner rows
    right: str | None = None
    corners: tuple[str, str, str, str] | None = None  # top-left, top-right, bottom-left, ...
    bars: bool = False  # subroutine: inner vertical bars (box 2 cells wider)
    lid: bool = False  # cylinder: a line under the top (box 1 row taller)
    frameless: bool = False  # plain text


_SLANT: Final = ("╱", "╲", "╲", "╱")
_SLANT_ASCII: Final = ("/", "\\", "\\", "/")

_STYLES: Final[dict[str, ShapeStyle]] = {
    "rect": ShapeStyle(),
    "round": ShapeStyle(line=STYLE_ROUND),
    "event": ShapeStyle(line=STYLE_ROUND),
    "stadium": ShapeStyle(line=STYLE_ROUND, left="(", right=")"),
    "circle": ShapeStyle(line=STYLE_ROUND, left="(", right=")", corners=("◜", "◝", "◟", "◞")),
    "sm-circ": ShapeStyle(line=STYLE_ROUND, left="(", right=")", corners=("◜", "◝", "◟", "◞")),
    "f-circ": ShapeStyle(line=STYLE_HEAVY, left="(", right=")", corners=("◜", "◝", "◟", "◞")),
    "cross-circ": ShapeStyle(line=STYLE_ROUND, left="⊗", right="⊗"),
    "double_circle": ShapeStyle(line=STYLE_DOUBLE, left="(", right=")"),
    "fr-circ": ShapeStyle(line=STYLE_DOUBLE, left="(", right=")"),
    "subroutine": ShapeStyle(bars=True),
    "fr-rect": ShapeStyle(bars=True),
    "cylindrical": ShapeStyle(line=STYLE_ROUND, lid=True),
    "lin-cyl": ShapeStyle(line=STYLE_ROUND, lid=True),
    "h-cyl": ShapeStyle(line=STYLE_ROUND, right=")", left="("),
    "diamond": ShapeStyle(corners=_SLANT),
    "hexagon": ShapeStyle(corners=_SLANT, left="<", right=">"),
    "asymmetric": ShapeStyle(left=">"),
    "flag": ShapeStyle(right="<"),
    "parallelogram": ShapeStyle(left="/", right="/"),
    "parallelogram_alt": ShapeStyle(left="\\", right="\\"),
    "sl-rect": ShapeStyle(left="/"),
    "trapezoid": ShapeStyle(left="/", right="\\"),
    "trapezoid_alt": ShapeStyle(left="\\", right="/"),
    "curv-trap": ShapeStyle(left="\\", right=")"),
    "notch-pent": ShapeStyle(corners=_SLANT[:2] + ("└", "┘")),
    "tri": ShapeStyle(left="/", right="\\", corners=("╱", "╲", "└", "┘")),
    "flip-tri": ShapeStyle(left="\\", right="/", corners=("┌", "┐", "╲", "╱")),
    "hourglass": ShapeStyle(left="\\", right="/", corners=("╲", "╱", "╱", "╲")),
    "notch-rect": ShapeStyle(corners=("╱", "┐", "└", "┘")),
    "delay": ShapeStyle(corners=("┌", "╮", "└", "╯")),
    "doc": ShapeStyle(corners=("┌", "┐", "╰", "╯")),
    "lin-doc": ShapeStyle(corners=("┌", "┐", "╰", "╯"), bars=True),
    "docs": ShapeStyle(line=STYLE_DOUBLE, corners=("╔", "╗", "╰", "╯")),
    "tag-doc": ShapeStyle(corners=("┌", "┐", "╰", "╱")),
    "st-rect": ShapeStyle(line=STYLE_DOUBLE),
    "lin-rect": ShapeStyle(bars=True),
    "div-rect": ShapeStyle(lid=True),
    "win-pane": ShapeStyle(lid=True, bars=True),
    "tag-rect": ShapeStyle(corners=("┌", "┐", "└", "╱")),
    "bow-rect": ShapeStyle(left=")", right="("),
    "fork": ShapeStyle(line=STYLE_HEAVY),
    "bolt": ShapeStyle(corners=("┌", "┐", "╱", "╱")),
    "brace": ShapeStyle(left="{"),
    "brace-r": ShapeStyle(right="}"),
    "braces": ShapeStyle(left="{", right="}"),
    "text": ShapeStyle(frameless=True),
    # v11 attribute shapes: the picture itself cannot be drawn, a corner glyph says which kind.
    "icon": ShapeStyle(line=STYLE_ROUND, corners=("⌂", "╮", "╰", "╯")),
    "image": ShapeStyle(corners=("▣", "┐", "└", "┘")),
}

_ASCII_MARKERS: Final = {
    "◜": ".",
    "◝": ".",
    "◟": "'",
    "◞": "'",
    "╱": "/",
    "╲": "\\",
    "⊗": "x",
    "╭": ".",
    "╮": ".",
    "╰": "'",
    "╯": "'",
    "╔": "#",
    "╗": "#",
    "┌": "+",
    "┐": "+",
    "└": "+",
    "┘": "+",
    "⌂": "*",
    "▣": "#",
}


def shape_style(shape: str) -> ShapeStyle:
    """The look of a shape; unknown names draw as rectangles."""
    return _STYLES.get(shape, _STYLES["rect"])


def draw_shape(
    canvas: Canvas,
    style: ShapeStyle,
    top: int,
    left: int,
    bottom: int,
    right: int,
    owner: ObjectRef,
    ascii: bool,
) -> None:
    """Draw the frame of one node into the rectangle and claim the whole rectangle."""
    canvas.claim_rect(owner, top, left, bottom, right)
    if style.frameless:
        return
    canvas.box(top, left, bottom, right, style.line)  # its cells are claimed above
    if style.bars and right - left >= 4:
        canvas.vline(left + 1, top, bottom, style.line)
        canvas.vline(right - 1, top, bottom, style.line)
    if style.lid and bottom - top >= 3:
        canvas.hline(top + 1, left, right, style.line)
    if style.corners is not None:
        # Corner glyphs join the border lines beside them, so a side with an edge attached
        # still reads as the box's side (`│`), not as a line through the box.
        for (row, col), glyph, joins in zip(
            ((top, left), (top, right), (bottom, left), (bottom, right)),
            style.corners,
            (RIGHT | DOWN, LEFT | DOWN, RIGHT | UP, LEFT | UP),
            strict=True,
        ):
            canvas.put_char(row, col, _ascii(glyph) if ascii else glyph, joins=joins)
    inner_top = top + (2 if style.lid and bottom - top >= 3 else 1)
    for row in range(inner_top, bottom):
        if style.left is not None:
            canvas.put_char(row, left, _ascii(style.left) if ascii else style.left)
        if style.right is not None:
            canvas.put_char(row, right, _ascii(style.right) if ascii else style.right)


def _ascii(glyph: str) -> str:
    return _ASCII_MARKERS.get(glyph, glyph)
