"""Glyph sets: how line arms, arrowheads and markers look, in Unicode or pure ASCII.

A line cell is stored as a 4-bit arm mask (LEFT, RIGHT, UP, DOWN) plus a line style; the glyph
is looked up only when the canvas is turned into text, so crossing and merging lines become
`┼ ├ ┬ …` whatever order they were drawn in (render.md §3).
"""

from __future__ import annotations

from typing import Final, Literal

import msgspec

__all__ = [
    "ASCII",
    "DOWN",
    "LEFT",
    "RIGHT",
    "STYLE_DOTTED",
    "STYLE_DOUBLE",
    "STYLE_HEAVY",
    "STYLE_LIGHT",
    "STYLE_ROUND",
    "UNICODE",
    "UP",
    "Direction",
    "GlyphSet",
    "glyph_set",
]

LEFT: Final = 1
RIGHT: Final = 2
UP: Final = 4
DOWN: Final = 8

#: Line styles (a byte per cell). ROUND only changes corners; DOUBLE is for frames.
STYLE_LIGHT: Final = 0
STYLE_ROUND: Final = 1
STYLE_HEAVY: Final = 2
STYLE_DOUBLE: Final = 3
STYLE_DOTTED: Final = 4

Direction = Literal["right", "left", "up", "down"]

L, R, U, D = LEFT, RIGHT, UP, DOWN


def _table(
    h: str,
    v: str,
    rd: str,
    ld: str,
    ru: str,
    lu: str,
    udr: str,
    udl: str,
    lrd: str,
    lru: str,
    x: str,
) -> tuple[str, ...]:
    table = [" "] * 16
    for mask, glyph in {
        L: h, R: h, L | R: h, U: v, D: v, U | D: v,
        R | D: rd, L | D: ld, R | U: ru, L | U: lu,
        U | D | R: udr, U | D | L: udl, L | R | D: lrd, L | R | U: lru, L | R | U | D: x,
    }.items():  # fmt: skip
        table[mask] = glyph
    return tuple(table)


class GlyphSet(msgspec.Struct, frozen=True, kw_only=True):
    """Everything a renderer draws that is not label text.

    `lines[style][mask]` is the glyph of a line cell. Arrowheads point the way they are named
    (`arrow["right"]` is drawn at a head reached by travelling right).
    """

    name: str
    lines: tuple[tuple[str, ...], ...]
    arrow: dict[str, str]
    hollow_arrow: dict[str, str]
    circle: str
    cross: str
    ellipsis: str

    def line(self, style: int, mask: int) -> str:
        return self.lines[style][mask]


_LIGHT = _table("─", "│", "┌", "┐", "└", "┘", "├", "┤", "┬", "┴", "┼")
_ROUND = _table("─", "│", "╭", "╮", "╰", "╯", "├", "┤", "┬", "┴", "┼")
# Junctions on a heavy/double line are where a light edge meets a frame: mixed glyphs.
_HEAVY = _table("━", "┃", "┏", "┓", "┗", "┛", "┠", "┨", "┯", "┷", "┼")
_DOUBLE = _table("═", "║", "╔", "╗", "╚", "╝", "╟", "╢", "╤", "╧", "┼")
_DOTTED = _table("┄", "┆", "┌", "┐", "└", "┘", "├", "┤", "┬", "┴", "┼")

UNICODE: Final = GlyphSet(
    name="unicode",
    lines=(_LIGHT, _ROUND, _HEAVY, _DOUBLE, _DOTTED),
    arrow={"right": "▶", "left": "◀", "up": "▲", "down": "▼"},
    hollow_arrow={"right": "▷", "left": "◁", "up": "△", "down": "▽"},
    circle="○",
    cross="✕",
    ellipsis="…",
)

_A_LIGHT = _table("-", "|", "+", "+", "+", "+", "+", "+", "+", "+", "+")
_A_ROUND = _table("-", "|", ".", ".", "'", "'", "+", "+", "+", "+", "+")
_A_HEAVY = _table("=", "#", "#", "#", "#", "#", "#", "#", "#", "#", "+")
_A_DOUBLE = _table("=", "#", "#", "#", "#", "#", "#", "#", "#", "#", "+")
_A_DOTTED = _table(".", ":", "+", "+", "+", "+", "+", "+", "+", "+", "+")

ASCII: Final = GlyphSet(
    name="ascii",
    lines=(_A_LIGHT, _A_ROUND, _A_HEAVY, _A_DOUBLE, _A_DOTTED),
    arrow={"right": ">", "left": "<", "up": "^", "down": "v"},
    hollow_arrow={"right": ">", "left": "<", "up": "^", "down": "v"},
    circle="o",
    cross="x",
    ellipsis="~",
)


def glyph_set(ascii: bool) -> GlyphSet:
    """The ASCII set when asked for, else Unicode box drawing."""
    return ASCII if ascii else UNICODE
