"""A character-cell canvas with line joining and span recording (render.md §3).

Cells are terminal cells. A wide character (CJK, emoji) occupies its cell and the next one,
which holds the empty string as a continuation marker, so every row's text has exactly the
cell width of the canvas before trimming. Line cells keep an arm mask and a style and are
resolved to glyphs only in `to_lines()`: an arm is drawn only if the neighbour on that side has
the opposite arm (so a line ending next to text or a frame does not sprout a stray tee), unless
no arm connects at all, in which case the raw mask is drawn.

Storage is one byte per cell (a row is a `bytearray`: arm mask in the low four bits, line
style above it, `_TEXT` for a text cell) plus a sparse dict of the text cells per row, so a
big, mostly blank drawing costs a byte per cell and no Python object per cell: straight line
runs are filled with one slice operation, rows are decoded to text with one charmap lookup,
and the garbage collector never walks the grid. Only cells whose glyph depends on their
neighbours (ends, corners, crossings) and text cells are handled one by one.

Every drawing call may name an `owner` (an ObjectRef); the cells it paints are recorded in
`canvas.spans` for the highlight index.
"""

from __future__ import annotations

import codecs
import re
from functools import cache
from operator import ne
from typing import Final

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
_MASK: Final = 0x0F
_STYLE_SHIFT: Final = 4
_STYLE_BITS: Final = 0x07
_TEXT: Final = 0x80
"""A cell holding text (its string is in the row's text dict); never has arms."""
_JUNCTION: Final = 0x80
"""On a line cell (one with arms): its glyph depends on its neighbours (an end, a corner, a
crossing); a straight line's interior cells show their own glyph as they are."""
_NONZERO: Final = bytes([0] + [1] * 255)
"""Translation table: every non-zero byte becomes 1 (so `find(1)` finds it with memchr)."""
_TEXT_CELLS: Final = re.compile(rb"\x80")
_WORDS: Final = re.compile(r"[^ ]+")
_TEXT_CELL: Final = bytes([_TEXT])
_CELL: Final = tuple(bytes((code,)) for code in range(256))
"""Every code as a one-cell run (a line over blank cells is one of these times its length)."""
_PATCH_SPAN: Final = 16
"""Cells per patched cell below which a row is rebuilt from a list of its cells rather than
from slices between the patches (both give the same text)."""


@cache
def _fresh_table(style: int, arms: int) -> bytes:
    """Line cells gain `arms` and become junctions; any other cell becomes a `style` line cell
    with `arms` (text under a line is erased before the table is applied)."""
    fresh = (style << _STYLE_SHIFT) | arms
    return bytes((code | arms | _JUNCTION) if code & _MASK else fresh for code in range(256))


@cache
def _decode_table(lines: tuple[tuple[str, ...], ...]) -> str:
    """The glyph every cell code shows before neighbours are looked at (text: a blank)."""
    table = []
    for code in range(256):
        style, mask = (code >> _STYLE_SHIFT) & _STYLE_BITS, code & _MASK
        if not mask or style >= len(lines):
            table.append(" ")
        else:
            table.append(lines[style][mask])
    return "".join(table)


class CanvasError(ValueError):
    """A drawing call outside the canvas (a renderer bug, never a user error)."""


class Canvas:
    """A `width` × `height` grid of cells, blank at the start.

    Not thread-safe; one renderer owns one canvas. Coordinates are (row, col), 0-based.
    """

    __slots__ = (
        "_cells",
        "_joins",
        "_junction_rows",
        "_text",
        "_wide",
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
        self.spans = SpanRecorder(width)
        # One code per cell, row after row: a column is a slice with step `width`.
        self._cells = bytearray(width * height)
        self._text: list[dict[int, str]] = [{} for _ in range(height)]
        self._joins: dict[tuple[int, int], int] = {}
        # 1 for a row that may hold junction cells (flag bit set): only those are resolved.
        self._junction_rows = bytearray(height)
        self._wide = False

    # -- size -------------------------------------------------------------------------------

    def grow(self, width: int, height: int) -> None:
        """Enlarge the canvas to at least `width` × `height` (never shrinks)."""
        check_budget(
            "canvas cells", max(width, self.width) * max(height, self.height), MAX_CANVAS_CELLS
        )
        if width > self.width:
            old, cells = self.width, self._cells
            extra = bytes(width - old)
            grown = bytearray()
            for row in range(self.height):
                grown += cells[row * old : (row + 1) * old]
                grown += extra
            self._cells = grown
            self.width = width
            self.spans.widen(width)
        if height > self.height:
            self._cells.extend(bytes(self.width * (height - self.height)))
            self._text.extend({} for _ in range(height - self.height))
            self._junction_rows.extend(bytes(height - self.height))
            self.height = height

    # -- reading ----------------------------------------------------------------------------

    def in_bounds(self, row: int, col: int) -> bool:
        return 0 <= row < self.height and 0 <= col < self.width

    def is_blank(self, row: int, col: int) -> bool:
        """True if nothing was drawn in the cell (out-of-bounds cells are not blank)."""
        if not self.in_bounds(row, col):
            return False
        return not self._cells[row * self.width + col]

    def arms(self, row: int, col: int) -> int:
        """The raw arm mask of a cell (0 for text or blank cells)."""
        return self._cells[row * self.width + col] & _MASK

    def line_runs(self, col: int, top: int, bottom: int) -> list[tuple[int, int]]:
        """Runs (first, last) of the rows `top..bottom` of column `col` whose cell is a
        line cell (has arms)."""
        runs: list[tuple[int, int]] = []
        first = -1
        width = self.width
        column = self._cells[top * width + col : bottom * width + col + 1 : width]
        for row, code in enumerate(column, top):
            if code & _MASK:
                if first < 0:
                    first = row
            elif first >= 0:
                runs.append((first, row - 1))
                first = -1
        if first >= 0:
            runs.append((first, bottom))
        return runs

    def char_at(self, row: int, col: int) -> str:
        """What the cell shows: its text, its resolved line glyph, or "" for a continuation."""
        self._check(row, col)
        if self._cells[row * self.width + col] & _MASK:
            return self._glyph(row, col)
        return self._text[row].get(col, " ")

    # -- writing ----------------------------------------------------------------------------

    def put_text(self, row: int, col: int, text: str, owner: ObjectRef | None = None) -> int:
        """Write `text` from (row, col) rightwards, clipped at the right edge.

        Replaces whatever was there (line arms included). Returns the cells used. Only
        non-space cells are recorded for the owner, so spans hold exactly the visible text.
        """
        self._check(row, col)
        if text.isascii() and text.isprintable():
            # One cell per character: onto blank cells (nothing to erase or split), write
            # the characters straight into the row.
            count = min(len(text), self.width - col)
            cells = self._cells
            base = row * self.width + col
            if cells.count(0, base, base + count) == count:
                row_text = self._text[row]
                for match in _WORDS.finditer(text, 0, count):
                    start, end = match.span()
                    row_text.update(
                        zip(range(col + start, col + end), text[start:end], strict=True)
                    )
                    cells[base + start : base + end] = _TEXT_CELL * (end - start)
                    if owner is not None:
                        self.spans.add(owner, row, col + start, col + end - 1)
                return count
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
        at = row * self.width + col
        code = self._cells[at]
        if (
            (code & _MASK or not code)
            and len(char) == 1
            and char != " "
            and (row, col) not in self._joins
        ):
            # Onto a line or blank cell: no text or half a wide character to clear.
            self._text[row][col] = char
            self._cells[at] = _TEXT
        else:
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
        self._add_arms(row, col, arms, style, force_style)
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
        if not (0 <= row < self.height and 0 <= col_start and col_end < self.width):
            self._check(row, col_start)
            self._check(row, col_end)
        if col_start == col_end:
            self.add_arms(row, col_start, LEFT | RIGHT, style, owner)
            return
        if col_end - col_start > 1:
            cells = self._cells
            base = row * self.width
            first, stop = base + col_start + 1, base + col_end
            run = cells[first:stop]
            if run.count(0) != len(run):
                # Something is already there: line cells become junctions (the table),
                # text under the line is erased.
                if _TEXT in run:  # text cells (a line cell has arms besides the flag)
                    for at in [match.start() for match in _TEXT_CELLS.finditer(run)]:
                        self._set_char(row, col_start + 1 + at, " ", 1)
                    run = cells[first:stop]
                cells[first:stop] = run.translate(_fresh_table(style, LEFT | RIGHT))
                self._junction_rows[row] = 1
            else:
                cells[first:stop] = _CELL[(style << _STYLE_SHIFT) | LEFT | RIGHT] * (stop - first)
        self._add_arms(row, col_start, RIGHT, style, False)
        self._add_arms(row, col_end, LEFT, style, False)
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
        if not (0 <= row_start and row_end < self.height and 0 <= col < self.width):
            self._check(row_start, col)
            self._check(row_end, col)
        if row_start == row_end:
            self.add_arms(row_start, col, UP | DOWN, style, owner)
            return
        if row_end - row_start > 1:
            cells, width = self._cells, self.width
            first, stop = (row_start + 1) * width + col, row_end * width + col
            run = cells[first:stop:width]
            if run.count(0) != row_end - row_start - 1:
                if _TEXT in run:
                    for at in [match.start() for match in _TEXT_CELLS.finditer(run)]:
                        self._set_char(row_start + 1 + at, col, " ", 1)
                    run = cells[first:stop:width]
                cells[first:stop:width] = run.translate(_fresh_table(style, UP | DOWN))
                self._junction_rows[row_start + 1 : row_end] = b"\x01" * (row_end - row_start - 1)
            else:
                cells[first:stop:width] = _CELL[(style << _STYLE_SHIFT) | UP | DOWN] * (
                    row_end - row_start - 1
                )
        self._add_arms(row_start, col, DOWN, style, False)
        self._add_arms(row_end, col, UP, style, False)
        if owner is not None:
            self.spans.add_column(owner, col, row_start, row_end)

    def path(
        self,
        points: list[tuple[int, int]],
        style: int = STYLE_LIGHT,
        owner: ObjectRef | None = None,
    ) -> None:
        """Lines from each (row, col) point to the next, as `hline` / `vline` would draw them
        one after the other (a repeated point draws nothing); the common case, a run over
        blank cells from and to line or blank cells, without a call per run. The owner gets
        the same cells, recorded once each where a vertical run meets a horizontal one
        (fewer runs for the span map to merge)."""
        if not all(map(ne, points, points[1:])):
            points = [p for k, p in enumerate(points) if not k or p != points[k - 1]]
        if len(points) < 2:
            return
        cells, width, height, junction_rows = (
            self._cells,
            self.width,
            self.height,
            self._junction_rows,
        )
        fresh = style << _STYLE_SHIFT
        horizontal = _CELL[fresh | LEFT | RIGHT]
        vertical = _CELL[fresh | UP | DOWN]
        runs = None if owner is None else self.spans.runs_of(owner)
        layout = self.spans.layout
        row_shift, col_shift, key_bias = layout.row_shift, layout.col_shift, layout.key_bias
        row_step = layout.row_step
        last = len(points) - 2
        r0, c0 = points[0]
        after_run = False  # the previous segment was a horizontal run
        inline: int  # a truth value: the walrus chain below yields an int (mypyc checks types)
        for k in range(last + 1):
            r1, c1 = points[k + 1]
            if r0 == r1:
                low, high = (c0, c1) if c0 < c1 else (c1, c0)
                base = r0 * width
                first, stop = base + low + 1, base + high
                inline = (
                    0 <= r0 < height
                    and 0 <= low
                    and high < width
                    and ((left := cells[base + low]) & _MASK or not left)
                    and ((right := cells[base + high]) & _MASK or not right)
                )
                if inline:
                    if cells.count(0, first, stop) == stop - first:
                        cells[first:stop] = horizontal * (stop - first)
                    elif _TEXT not in (run := cells[first:stop]):
                        # Across lines, no text: they become junctions (`hline`'s table).
                        cells[first:stop] = run.translate(_fresh_table(style, LEFT | RIGHT))
                    else:
                        inline = False  # text to erase under the line: `hline` does it
                if inline:
                    # From and to line or blank cells (no text to erase at the ends).
                    cells[base + low] = (left if left else fresh) | RIGHT | _JUNCTION
                    cells[base + high] = (right if right else fresh) | LEFT | _JUNCTION
                    junction_rows[r0] = 1
                    if runs is not None:
                        runs.append((r0 << row_shift) + (low << col_shift) + high + key_bias)
                else:
                    self.hline(r0, c0, c1, style, owner)
                after_run = True
                r0, c0 = r1, c1
                continue
            down = r1 > r0
            low, high = (r0, r1) if down else (r1, r0)
            column_inside = 0 <= low and high < height and 0 <= c0 < width
            at_low, at_high = low * width + c0, high * width + c0
            if column_inside and high - low > 1:
                column = slice(at_low + width, at_high, width)
                run = cells[column]
                if run.count(0) == high - low - 1:
                    cells[column] = vertical * (high - low - 1)
                elif _TEXT not in run:
                    # Across lines, no text: they become junctions (`vline`'s table).
                    cells[column] = run.translate(_fresh_table(style, UP | DOWN))
                    junction_rows[low + 1 : high] = b"\x01" * (high - low - 1)
                else:
                    column_inside = False  # text to erase under the line: `vline` does it
            if not column_inside:
                self.vline(c0, r0, r1, style, owner)
            else:
                # The ends gain their inward arm (`_add_arms`; text there is erased).
                code = cells[at_low]
                if code & _MASK:
                    cells[at_low] = code | DOWN | _JUNCTION
                elif not code:
                    cells[at_low] = fresh | DOWN | _JUNCTION
                else:
                    self._add_arms(low, c0, DOWN, style, False)
                code = cells[at_high]
                if code & _MASK:
                    cells[at_high] = code | UP | _JUNCTION
                elif not code:
                    cells[at_high] = fresh | UP | _JUNCTION
                else:
                    self._add_arms(high, c0, UP, style, False)
                junction_rows[low] = junction_rows[high] = 1
                if runs is not None:
                    # An end a horizontal run next to it records is left to it.
                    top = (r0 + 1 if down else r0 - 1) if after_run else r0
                    end = (
                        (r1 - 1 if down else r1 + 1) if k < last and points[k + 2][0] == r1 else r1
                    )
                    low, high = (top, end) if top < end else (end, top)
                    first = (low << row_shift) + (c0 << col_shift) + c0 + key_bias
                    runs.extend(range(first, first + ((high - low + 1) << row_shift), row_step))
            after_run = False
            r0, c0 = r1, c1

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
        if owner is None and 0 <= top and bottom < self.height and 0 <= left and right < self.width:
            cells, width = self._cells, self.width
            first, last = top * width, bottom * width
            side = slice(first + width + left, last + left, width)
            other = slice(first + width + right, last + right, width)
            if not (
                cells.count(0, first + left, first + right + 1) == right - left + 1
                and cells.count(0, last + left, last + right + 1) == right - left + 1
                and not any(cells[side])
                and not any(cells[other])
            ):
                self._box_lines(top, left, bottom, right, style, owner)
                return
            # Onto blank cells: the codes the four lines would leave, written at once.
            code = style << _STYLE_SHIFT
            inner = _CELL[code | LEFT | RIGHT] * (right - left - 1)
            down, up = code | DOWN | _JUNCTION, code | UP | _JUNCTION
            cells[first + left : first + right + 1] = (
                _CELL[down | RIGHT] + inner + _CELL[down | LEFT]
            )
            cells[last + left : last + right + 1] = _CELL[up | RIGHT] + inner + _CELL[up | LEFT]
            column = _CELL[code | UP | DOWN] * (bottom - top - 1)
            cells[side] = column
            cells[other] = column
            self._junction_rows[top] = 1
            self._junction_rows[bottom] = 1
            return
        self._box_lines(top, left, bottom, right, style, owner)

    def _box_lines(
        self, top: int, left: int, bottom: int, right: int, style: int, owner: ObjectRef | None
    ) -> None:
        self.hline(top, left, right, style, owner)
        self.hline(bottom, left, right, style, owner)
        self.vline(left, top, bottom, style, owner)
        self.vline(right, top, bottom, style, owner)

    def claim(self, owner: ObjectRef, row: int, col_start: int, col_end: int) -> None:
        """Record cells for `owner` without drawing (e.g. a box's blank interior)."""
        self._check(row, col_start)
        self._check(row, col_end)
        self.spans.add(owner, row, col_start, col_end)

    def claim_rect(self, owner: ObjectRef, top: int, left: int, bottom: int, right: int) -> None:
        """Record every cell of the rectangle for `owner` (a box's rows), without drawing."""
        if bottom >= top:
            self._check(top, left)
            self._check(bottom, right)
        self.spans.add_rows(owner, top, bottom, left, right)

    # -- output -----------------------------------------------------------------------------

    def to_lines(self) -> list[str]:
        """The rows as strings, right-trimmed; trailing empty rows dropped (render.md §2).

        Each row is cut after its last drawn cell first (a blank cell decodes to a blank
        that the trim would drop), so nothing past it is decoded or looked at. A row is
        decoded in one go (every line cell as its own mask's glyph); then only the
        junction cells whose neighbours do not connect on every arm, found for the whole row
        at once with bitwise operations on the row as one integer, and the text cells are
        patched in.
        """
        lines: list[str] = []
        cells, tables = self._cells, self.glyphs.lines
        decode_table = _decode_table(tables)
        charmap_decode = codecs.charmap_decode
        width, height = self.width, self.height
        # Rows cut after their last drawn cell (the bytes past it are all blank).
        rows = [cells[row * width : (row + 1) * width].rstrip(b"\0") for row in range(height)]
        from_bytes = int.from_bytes
        ones = from_bytes(b"\x01" * width, "little")
        has_left, has_right, has_up, has_down = ones * LEFT, ones * RIGHT, ones * UP, ones * DOWN
        low = ones * _MASK
        # Rows as neighbours see them: an arrowhead's `joins` count as arms there.
        seen_rows: dict[int, bytearray] = {}
        for (row, col), arms in self._joins.items():
            if row not in seen_rows:
                seen_rows[row] = bytearray(rows[row])
            seen = seen_rows[row]
            if col >= len(seen):
                seen.extend(bytes(col + 1 - len(seen)))
            seen[col] |= arms
        # Each row as neighbours see it, as an integer (byte = cell; trailing blank cells
        # add nothing to it).
        as_int = [
            from_bytes(codes if row not in seen_rows else seen_rows[row], "little")
            for row, codes in enumerate(rows)
        ]
        junction_rows, row_texts = self._junction_rows, self._text
        for row in range(height):
            codes = rows[row]
            if not codes:
                lines.append("")
                continue
            text = row_texts[row]
            line = charmap_decode(codes, "strict", decode_table)[0]
            if not (junction_rows[row] or text):
                lines.append(line.rstrip(" "))
                continue
            patches: dict[int, str] = dict(text)
            if junction_rows[row]:
                seen_here = as_int[row]
                here = seen_here if row not in seen_rows else from_bytes(codes, "little")
                above = as_int[row - 1] if row > 0 else 0
                below = as_int[row + 1] if row + 1 < height else 0
                connected_all = (
                    (here & has_left & ((seen_here << 8) >> 1))
                    | (here & has_right & ((seen_here >> 8) << 1))
                    | (here & has_up & (above >> 1))
                    | (here & has_down & (below << 1))
                )
                # Junction cells (flag bit set) with an arm no neighbour connects to.
                junction_arms = ((here >> 7) & ones) * _MASK
                loose = (
                    (((here & low) ^ connected_all) & junction_arms)
                    .to_bytes(len(codes), "little")
                    .translate(_NONZERO)
                )
                col = loose.find(1)
                if col >= 0:
                    seen = seen_rows.get(row) or codes
                    above_row = (seen_rows.get(row - 1) or rows[row - 1]) if row > 0 else b""
                    below_row = (
                        (seen_rows.get(row + 1) or rows[row + 1]) if row + 1 < height else b""
                    )
                    # Past a row's last drawn cell every cell is blank: no arm there.
                    seen_end, above_end, below_end = len(seen), len(above_row), len(below_row)
                while col >= 0:
                    code = codes[col]
                    mask = code & _MASK
                    connected = 0
                    if mask & LEFT and col > 0 and seen[col - 1] & RIGHT:
                        connected = LEFT
                    if mask & RIGHT and col + 1 < seen_end and seen[col + 1] & LEFT:
                        connected |= RIGHT
                    if mask & UP and col < above_end and above_row[col] & DOWN:
                        connected |= UP
                    if mask & DOWN and col < below_end and below_row[col] & UP:
                        connected |= DOWN
                    if connected != mask and _ARM_COUNT[connected] < 2 and mask in _CORNERS:
                        connected = mask
                    style = (code >> _STYLE_SHIFT) & _STYLE_BITS
                    patches[col] = tables[style][connected or mask]
                    col = loose.find(1, col + 1)
            if patches:
                if len(patches) * _PATCH_SPAN > len(codes):
                    # Many patches on a short row: one list of cells, patched by index.
                    chars = list(line)
                    for col, glyph in patches.items():
                        chars[col] = glyph
                    line = "".join(chars)
                else:
                    pieces: list[str] = []
                    done = 0
                    for col in sorted(patches):
                        if col > done:
                            pieces.append(line[done:col])
                        pieces.append(patches[col])
                        done = col + 1
                    pieces.append(line[done:])
                    line = "".join(pieces)
            lines.append(line.rstrip(" "))
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

    def _add_arms(self, row: int, col: int, arms: int, style: int, force_style: bool) -> None:
        at = row * self.width + col
        cells = self._cells
        code = cells[at]
        if not code & _MASK:
            if code:
                self._set_char(row, col, " ", 1)
            code = style << _STYLE_SHIFT
        elif force_style:
            code = (style << _STYLE_SHIFT) | (code & _MASK)
        cells[at] = code | arms | _JUNCTION
        self._junction_rows[row] = 1

    def _set_char(self, row: int, col: int, char: str, width: int) -> None:
        cells, text = self._cells, self._text[row]
        base = row * self.width
        # Never leave half a wide character behind.
        if col > 0 and text.get(col) == _CONTINUATION:
            text.pop(col - 1, None)
            cells[base + col - 1] = 0
        last = col + width - 1
        if last + 1 < self.width and text.get(last + 1) == _CONTINUATION:
            del text[last + 1]
            cells[base + last + 1] = 0
        if self._joins:
            for c in range(col, last + 1):
                self._joins.pop((row, c), None)
        if char == " ":
            text.pop(col, None)
            cells[base + col] = 0
        else:
            text[col] = char
            cells[base + col] = _TEXT
        if width != 1 or len(char) != 1:
            self._wide = True
        if width == 2:
            text[col + 1] = _CONTINUATION
            cells[base + col + 1] = _TEXT

    def _glyph(self, row: int, col: int) -> str:
        cells, width = self._cells, self.width
        at = row * width + col
        code = cells[at]
        mask = code & _MASK
        joins = self._joins
        connected = 0
        if (
            mask & LEFT
            and col > 0
            and (cells[at - 1] & RIGHT or joins.get((row, col - 1), 0) & RIGHT)
        ):
            connected |= LEFT
        if (
            mask & RIGHT
            and col + 1 < width
            and (cells[at + 1] & LEFT or joins.get((row, col + 1), 0) & LEFT)
        ):
            connected |= RIGHT
        if (
            mask & UP
            and row > 0
            and (cells[at - width] & DOWN or joins.get((row - 1, col), 0) & DOWN)
        ):
            connected |= UP
        if (
            mask & DOWN
            and row + 1 < self.height
            and (cells[at + width] & UP or joins.get((row + 1, col), 0) & UP)
        ):
            connected |= DOWN
        if connected != mask and _ARM_COUNT[connected] < 2 and mask in _CORNERS:
            connected = mask  # a frame corner next to a marker or title keeps its shape
        return self.glyphs.lines[(code >> _STYLE_SHIFT) & _STYLE_BITS][connected or mask]
