"""A character-cell canvas with line joining and span recording (render.md §3).

Cells are terminal cells. A wide character (CJK, emoji) occupies its cell and the next one,
which holds the empty string as a continuation marker, so every row's text has exactly the
cell width of the canvas before trimming. Line cells keep an arm mask and a style and are
resolved to glyphs only in `to_lines()`: an arm is drawn only if the neighbour on that side has
the opposite arm (so a line ending next to text or a frame does not sprout a stray tee), unless
no arm connects at all, in which case the raw mask is drawn.

Every drawing call may name an `owner` (an ObjectRef); the cells it paints are recorded in
`canvas.spans` for the highlight index.
"""

from __future__ import annotations

from nereid.model.refs import ObjectRef
from nereid.render.budget import MAX_CANVAS_CELLS, check_budget
from nereid.render.glyphs import (
    DOWN,
    LEFT,
    RIGHT,
    STYLE_LIGHT,
    UNICODE,
    UP,
    GlyphSet,
)
from nereid.render.spans import SpanRecorder
from nereid.render.text import split_cells

__all__ = ["Canvas", "CanvasError"]

_CONTINUATION = ""
_ARM_COUNT = tuple(bin(mask).count("1") for mask in range(16))
_CORNERS = frozenset({RIGHT | DOWN, LEFT | DOWN, RIGHT | UP, LEFT | UP})


class CanvasError(ValueError):
    """A drawing call outside the canvas (a renderer bug, never a user error)."""


class Canvas:
    """A `width` × `height` grid of cells, blank at the start.

    Not thread-safe; one renderer owns one canvas. Coordinates are (row, col), 0-based.
    """

    __slots__ = (
        "_chars",
        "_joins",
        "_junctions",
        "_masks",
        "_wide",
        "_styles",
        "glyphs",
        "height",
        "spans",
        "width",
    )

    def __init__(self, width: int, height: int, glyphs: GlyphSet = UNICODE) -> None:
        if width < 0 or height < 0:
            raise CanvasError(f"canvas size must not be negative: {width}x{height}")
        check_budget("canvas cells", width * height, MAX_CANVAS_CELLS)
        self.width = width
        self.height = height
        self.glyphs = glyphs
        self.spans = SpanRecorder()
        self._chars: list[list[str]] = [[" "] * width for _ in range(height)]
        self._masks: list[bytearray] = [bytearray(width) for _ in range(height)]
        self._styles: list[bytearray] = [bytearray(width) for _ in range(height)]
        self._joins: dict[tuple[int, int], int] = {}
        # Line cells whose glyph depends on their neighbours (ends, corners, crossings);
        # a straight line's interior cells hold their glyph already.
        self._junctions: list[set[int]] = [set() for _ in range(height)]
        self._wide = False

    # -- size -------------------------------------------------------------------------------

    def grow(self, width: int, height: int) -> None:
        """Enlarge the canvas to at least `width` × `height` (never shrinks)."""
        check_budget(
            "canvas cells", max(width, self.width) * max(height, self.height), MAX_CANVAS_CELLS
        )
        if width > self.width:
            extra = width - self.width
            for row in range(self.height):
                self._chars[row].extend([" "] * extra)
                self._masks[row].extend(bytes(extra))
                self._styles[row].extend(bytes(extra))
            self.width = width
        while self.height < height:
            self._chars.append([" "] * self.width)
            self._masks.append(bytearray(self.width))
            self._styles.append(bytearray(self.width))
            self._junctions.append(set())
            self.height += 1

    # -- reading ----------------------------------------------------------------------------

    def in_bounds(self, row: int, col: int) -> bool:
        return 0 <= row < self.height and 0 <= col < self.width

    def is_blank(self, row: int, col: int) -> bool:
        """True if nothing was drawn in the cell (out-of-bounds cells are not blank)."""
        if not self.in_bounds(row, col):
            return False
        return self._chars[row][col] == " " and not self._masks[row][col]

    def arms(self, row: int, col: int) -> int:
        """The raw arm mask of a cell (0 for text or blank cells)."""
        return self._masks[row][col]

    def char_at(self, row: int, col: int) -> str:
        """What the cell shows: its text, its resolved line glyph, or "" for a continuation."""
        self._check(row, col)
        if self._masks[row][col]:
            return self._glyph(row, col)
        return self._chars[row][col]

    # -- writing ----------------------------------------------------------------------------

    def put_text(self, row: int, col: int, text: str, owner: ObjectRef | None = None) -> int:
        """Write `text` from (row, col) rightwards, clipped at the right edge.

        Replaces whatever was there (line arms included). Returns the cells used. Only
        non-space cells are recorded for the owner, so spans hold exactly the visible text.
        """
        self._check(row, col)
        used = 0
        run_start = -1
        for cluster, width in split_cells(text):
            c = col + used
            if c + width > self.width:
                break
            self._set_char(row, c, cluster, width)
            if owner is not None:
                if cluster == " ":
                    if run_start >= 0:
                        self.spans.add(owner, row, run_start, c - 1)
                        run_start = -1
                elif run_start < 0:
                    run_start = c
            used += width
        if owner is not None and run_start >= 0:
            self.spans.add(owner, row, run_start, col + used - 1)
        return used

    def put_char(
        self, row: int, col: int, char: str, owner: ObjectRef | None = None, *, joins: int = 0
    ) -> None:
        """Write one glyph (an arrowhead, a marker) into one cell, replacing line arms.

        `joins` names the sides a neighbouring line may connect to (an arrowhead's tail side),
        so a corner right behind an arrowhead still shows its arm towards it.
        """
        self._check(row, col)
        self._set_char(row, col, char, 1)
        if joins:
            self._joins[(row, col)] = joins
        if owner is not None and char != " ":
            self.spans.add(owner, row, col, col)

    def add_arms(
        self,
        row: int,
        col: int,
        arms: int,
        style: int = STYLE_LIGHT,
        owner: ObjectRef | None = None,
        *,
        force_style: bool = False,
    ) -> None:
        """OR line arms into a cell. A text cell becomes a line cell.

        The first style to reach a blank cell stays (a frame keeps its look where an edge
        joins it) unless `force_style`.
        """
        self._check(row, col)
        masks = self._masks[row]
        if not masks[col]:
            if self._chars[row][col] != " ":
                self._set_char(row, col, " ", 1)
            self._styles[row][col] = style
        elif force_style:
            self._styles[row][col] = style
        masks[col] |= arms
        self._junctions[row].add(col)
        if owner is not None:
            self.spans.add(owner, row, col, col)

    def hline(
        self,
        row: int,
        col_start: int,
        col_end: int,
        style: int = STYLE_LIGHT,
        owner: ObjectRef | None = None,
    ) -> None:
        """A horizontal line over the inclusive range; its ends have one inward arm each."""
        if col_end < col_start:
            col_start, col_end = col_end, col_start
        self._check(row, col_start)
        self._check(row, col_end)
        if col_start == col_end:
            self.add_arms(row, col_start, LEFT | RIGHT, style, owner)
            return
        masks, styles, chars = self._masks[row], self._styles[row], self._chars[row]
        junctions = self._junctions[row]
        straight = self.glyphs.lines[style][LEFT | RIGHT]
        for col in range(col_start + 1, col_end):
            if masks[col]:
                junctions.add(col)  # crossing or merging: resolved at output time
                masks[col] |= LEFT | RIGHT
                continue
            if chars[col] != " ":
                self._set_char(row, col, " ", 1)
            styles[col] = style
            masks[col] = LEFT | RIGHT
            chars[col] = straight  # a fresh interior cell can only ever be straight
        for col, arms in ((col_start, RIGHT), (col_end, LEFT)):
            if not masks[col]:
                if chars[col] != " ":
                    self._set_char(row, col, " ", 1)
                styles[col] = style
            masks[col] |= arms
            junctions.add(col)
        if owner is not None:
            self.spans.add(owner, row, col_start, col_end)

    def vline(
        self,
        col: int,
        row_start: int,
        row_end: int,
        style: int = STYLE_LIGHT,
        owner: ObjectRef | None = None,
    ) -> None:
        """A vertical line over the inclusive range; its ends have one inward arm each."""
        if row_end < row_start:
            row_start, row_end = row_end, row_start
        self._check(row_start, col)
        self._check(row_end, col)
        if row_start == row_end:
            self.add_arms(row_start, col, UP | DOWN, style, owner)
            return
        masks_rows, chars_rows, styles_rows = self._masks, self._chars, self._styles
        junctions = self._junctions
        straight = self.glyphs.lines[style][UP | DOWN]
        for row in range(row_start + 1, row_end):
            masks = masks_rows[row]
            if masks[col]:
                junctions[row].add(col)
                masks[col] |= UP | DOWN
                continue
            chars = chars_rows[row]
            if chars[col] != " ":
                self._set_char(row, col, " ", 1)
            styles_rows[row][col] = style
            masks[col] = UP | DOWN
            chars[col] = straight
        for row, arms in ((row_start, DOWN), (row_end, UP)):
            masks = masks_rows[row]
            if not masks[col]:
                if chars_rows[row][col] != " ":
                    self._set_char(row, col, " ", 1)
                styles_rows[row][col] = style
            masks[col] |= arms
            junctions[row].add(col)
        if owner is not None:
            self.spans.add_column(owner, col, row_start, row_end)

    def box(
        self,
        top: int,
        left: int,
        bottom: int,
        right: int,
        style: int = STYLE_LIGHT,
        owner: ObjectRef | None = None,
    ) -> None:
        """A rectangular frame with corners at (top, left) and (bottom, right), inclusive."""
        if bottom <= top or right <= left:
            raise CanvasError(f"degenerate box ({top},{left})-({bottom},{right})")
        self.hline(top, left, right, style, owner)
        self.hline(bottom, left, right, style, owner)
        self.vline(left, top, bottom, style, owner)
        self.vline(right, top, bottom, style, owner)

    def claim(self, owner: ObjectRef, row: int, col_start: int, col_end: int) -> None:
        """Record cells for `owner` without drawing (e.g. a box's blank interior)."""
        self.spans.add(owner, row, col_start, col_end)

    # -- output -----------------------------------------------------------------------------

    def to_lines(self) -> list[str]:
        """The rows as strings, right-trimmed; trailing empty rows dropped (render.md §2)."""
        lines: list[str] = []
        masks_rows, styles_rows, tables = self._masks, self._styles, self.glyphs.lines
        width, height = self.width, self.height
        empty = bytearray(width)
        # Rows as neighbours see them: an arrowhead's `joins` count as arms there.
        seen_rows: dict[int, bytearray] = {}
        for (row, col), arms in self._joins.items():
            if row not in seen_rows:
                seen_rows[row] = bytearray(masks_rows[row])
            seen_rows[row][col] |= arms
        for row in range(height):
            chars = self._chars[row]
            masked = self._junctions[row]
            if masked:
                chars = list(chars)
                masks = seen_rows.get(row) or masks_rows[row]
                above = (seen_rows.get(row - 1) or masks_rows[row - 1]) if row > 0 else empty
                below = (
                    (seen_rows.get(row + 1) or masks_rows[row + 1]) if row + 1 < height else empty
                )
                styles = styles_rows[row]
                for col in masked:
                    mask = masks_rows[row][col]
                    connected = 0
                    if mask & LEFT and col > 0 and masks[col - 1] & RIGHT:
                        connected = LEFT
                    if mask & RIGHT and col + 1 < width and masks[col + 1] & LEFT:
                        connected |= RIGHT
                    if mask & UP and above[col] & DOWN:
                        connected |= UP
                    if mask & DOWN and below[col] & UP:
                        connected |= DOWN
                    if connected != mask and _ARM_COUNT[connected] < 2 and mask in _CORNERS:
                        connected = mask
                    chars[col] = tables[styles[col]][connected or mask]
            lines.append("".join(chars).rstrip(" "))
        while lines and not lines[-1]:
            lines.pop()
        return lines

    @property
    def has_wide(self) -> bool:
        """True if a character wider than one cell (or a combining cluster) was written."""
        return self._wide

    def to_text(self) -> str:
        """One string, lines joined by newlines, no trailing newline."""
        return "\n".join(self.to_lines())

    # -- internals --------------------------------------------------------------------------

    def _check(self, row: int, col: int) -> None:
        if not (0 <= row < self.height and 0 <= col < self.width):
            raise CanvasError(f"out of bounds: ({col},{row}) for {self.width}x{self.height} canvas")

    def _set_char(self, row: int, col: int, char: str, width: int) -> None:
        chars = self._chars[row]
        # Never leave half a wide character behind.
        if chars[col] == _CONTINUATION and col > 0:
            chars[col - 1] = " "
        last = col + width - 1
        if last + 1 < self.width and chars[last + 1] == _CONTINUATION:
            chars[last + 1] = " "
        masks = self._masks[row]
        for c in range(col, last + 1):
            if self._joins:
                self._joins.pop((row, c), None)
            if masks[c]:
                masks[c] = 0
                self._junctions[row].discard(c)
        chars[col] = char
        if width != 1 or len(char) != 1:
            self._wide = True
        if width == 2:
            chars[col + 1] = _CONTINUATION

    def _glyph(self, row: int, col: int) -> str:
        masks = self._masks[row]
        mask = masks[col]
        joins = self._joins
        connected = 0
        if (
            mask & LEFT
            and col > 0
            and (masks[col - 1] & RIGHT or joins.get((row, col - 1), 0) & RIGHT)
        ):
            connected |= LEFT
        if (
            mask & RIGHT
            and col + 1 < self.width
            and (masks[col + 1] & LEFT or joins.get((row, col + 1), 0) & LEFT)
        ):
            connected |= RIGHT
        if (
            mask & UP
            and row > 0
            and (self._masks[row - 1][col] & DOWN or joins.get((row - 1, col), 0) & DOWN)
        ):
            connected |= UP
        if (
            mask & DOWN
            and row + 1 < self.height
            and (self._masks[row + 1][col] & UP or joins.get((row + 1, col), 0) & UP)
        ):
            connected |= DOWN
        if connected != mask and _ARM_COUNT[connected] < 2 and mask in _CORNERS:
            connected = mask  # a frame corner next to a marker or title keeps its shape
        return self.glyphs.lines[self._styles[row][col]][connected or mask]
