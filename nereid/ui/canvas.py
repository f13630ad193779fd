"""Rows of styled runs → urwid canvases, plus boxes with titles (the panes' frames).

Every pane paints a list of rows, each a list of `(style, text)` runs; these helpers clip and
pad them to an exact cell width and turn them into a `urwid.TextCanvas`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Hashable, Iterator
from typing import Literal

import urwid
from urwid.util import apply_target_encoding

from nereid.render.text import split_cells

__all__ = [
    "BandedCanvas",
    "Run",
    "Rows",
    "clip_runs",
    "frame",
    "rows_canvas",
    "runs_width",
    "wrap_runs",
]

Run = tuple[str, str]
Rows = list[list[Run]]


# Printable ASCII, box drawing, block and geometric shapes (but the two wide squares).
_NARROW = re.compile("[\x20-\x7e\u2500-\u25fc\u25ff]*")


@functools.lru_cache(maxsize=4096)
def _width(text: str) -> int:
    """Cells `text` takes (memoised: a repaint measures the same runs as the one before)."""
    if _NARROW.fullmatch(text):
        return len(text)
    return sum(w for _c, w in split_cells(text))


def runs_width(runs: list[Run]) -> int:
    return sum(_width(text) for _s, text in runs)


def clip_runs(runs: list[Run], width: int, fill: str = "default") -> list[Run]:
    """Cut runs to `width` cells (a wide char that would straddle becomes a space) and pad."""
    out: list[Run] = []
    used = 0
    for style, text in runs:
        if used >= width:
            break
        w = _width(text)
        if used + w <= width:
            out.append((style, text))
            used += w
            continue
        kept = []
        for cluster, cw in split_cells(text):
            if used + cw > width:
                if used < width:
                    kept.append(" " * (width - used))
                    used = width
                break
            kept.append(cluster)
            used += cw
        out.append((style, "".join(kept)))
    if used < width:
        out.append((fill, " " * (width - used)))
    return out


def rows_canvas(rows: Rows, width: int, height: int, fill: str = "default") -> urwid.TextCanvas:
    """A canvas of exactly `width`×`height` cells from the rows (extra rows dropped)."""
    texts: list[bytes] = []
    attrs: list[list[tuple[Hashable, int]]] = []
    charsets: list[list[tuple[Literal["0", "U"] | None, int]]] = []
    blank: tuple[Run, ...] = ()
    for index in range(height):
        line, attr, cs = _encoded_row(
            tuple(rows[index]) if index < len(rows) else blank, width, fill
        )
        texts.append(line)
        attrs.append(list(attr))
        charsets.append(list(cs))
    # Every line is exactly `width` cells (`clip_runs`): urwid need not measure them again.
    return urwid.TextCanvas(text=texts, attr=attrs, cs=charsets, maxcol=width, check_width=False)


BAND_ROWS = 8
"""Rows per canvas band of a pane (`BandedCanvas`)."""


class BandedCanvas:
    """One pane's framed canvas (`frame` + `rows_canvas`) as its border rows and bands of
    `BAND_ROWS` content rows, each kept until its rows change: a repaint after a mark moved
    (a spotlight, the cursor) clips, frames and encodes only the bands it touched, and
    urwid stacks the rest as they were (the same cells either way). Bands can also be made
    ahead (`bands_ahead`, one per event-loop step) for a repaint that will show them."""

    __slots__ = ("_ahead", "_parts")

    def __init__(self) -> None:
        self._parts: dict[tuple[object, ...], tuple[object, urwid.TextCanvas]] = {}
        # Bands made ahead for the next frame, by key (the next `framed` drops them).
        self._ahead: dict[tuple[object, ...], tuple[object, urwid.TextCanvas]] = {}

    def framed(
        self, title: list[Run], inner: Rows, width: int, height: int, border: str
    ) -> urwid.Canvas:
        """`rows_canvas(frame(title, inner, width, height, border), width, height)`."""
        if width < 2 or height < 3:
            return rows_canvas(frame(title, inner, width, height, border), width, height)
        parts: dict[tuple[object, ...], tuple[object, urwid.TextCanvas]] = {}

        def part(key: tuple[object, ...], source: object, rows: Callable[[], Rows]) -> None:
            for old in self._kept(key):
                if old is not None and old[0] == source:
                    parts[key] = old
                    return
            made = rows()
            parts[key] = (source, rows_canvas(made, width, len(made)))

        inner_width = width - 2
        part(("top", width, border), title, lambda: [_frame_top(title, inner_width, border)])
        for top, size in _bands(height):
            band = _band(inner, top, size)
            framed = functools.partial(_framed_band, band, inner_width, border)
            part(("band", top, width, size, border), band, framed)
        bottom = [[(border, "└" + "─" * inner_width + "┘")]]
        part(("bottom", width, border), None, lambda: bottom)
        self._parts, self._ahead = parts, {}
        return urwid.CanvasCombine([(canvas, None, False) for _key, canvas in parts.values()])

    def _kept(
        self, key: tuple[object, ...]
    ) -> tuple[tuple[object, urwid.TextCanvas] | None, tuple[object, urwid.TextCanvas] | None]:
        """The part of `key` painted last and the one made ahead (None: none)."""
        return self._parts.get(key), self._ahead.get(key)

    def bands_ahead(
        self, rows: Callable[[int, int], Rows], width: int, height: int, border: str
    ) -> Iterator[None]:
        """Make the content bands of a frame `framed` will be asked for (`rows(top, size)`:
        the content rows `top .. top+size-1` it will get), yielding after each band made:
        a repaint that shows a whole pane of new rows (the camera moved) then finds them
        made, and takes each one whose rows are still what it paints."""
        if width < 2 or height < 3:
            return
        inner_width = width - 2
        for top, size in _bands(height):
            band = _band(rows(top, size), 0, size)
            key = ("band", top, width, size, border)
            if any(old is not None and old[0] == band for old in self._kept(key)):
                continue  # painted last, or made ahead already (an earlier event's)
            made = _framed_band(band, inner_width, border)
            self._ahead[key] = (band, rows_canvas(made, width, len(made)))
            yield


def _bands(height: int) -> Iterator[tuple[int, int]]:
    """(first content row, rows) of each band of a pane `height` rows high (with its border)."""
    for top in range(0, height - 2, BAND_ROWS):
        yield top, min(BAND_ROWS, height - 2 - top)


def _band(inner: Rows, top: int, size: int) -> Rows:
    """Content rows `top .. top+size-1`, empty past the end of `inner`."""
    band = inner[top : top + size]
    return band + [[]] * (size - len(band))


def _framed_band(band: Rows, inner_width: int, border: str) -> Rows:
    return [[(border, "│"), *clip_runs(content, inner_width), (border, "│")] for content in band]


def _frame_top(title: list[Run], inner_width: int, border: str) -> list[Run]:
    title_runs = clip_runs(title, max(min(runs_width(title), inner_width - 1), 0), border)
    used = runs_width(title_runs)
    return [(border, "┌─"), *title_runs, (border, "─" * max(inner_width - 1 - used, 0) + "┐")]


ROW_MEMO_SIZE = 4096
"""Encoded rows kept: a repaint mostly draws the rows of the one before (several screens)."""


@functools.lru_cache(maxsize=ROW_MEMO_SIZE)
def _encoded_row(
    runs: tuple[Run, ...], width: int, fill: str
) -> tuple[
    bytes, tuple[tuple[Hashable, int], ...], tuple[tuple[Literal["0", "U"] | None, int], ...]
]:
    """One row clipped to `width` cells and encoded for the terminal, with its attribute
    and character-set runs. Memoised: clipping and urwid's per-run encoding were most of
    a repaint, and nearly every row of a repaint is one the previous repaint drew."""
    line = b""
    attr: list[tuple[Hashable, int]] = []
    cs: list[tuple[Literal["0", "U"] | None, int]] = []
    for style, text in clip_runs(list(runs), width, fill):
        encoded, run_cs = apply_target_encoding(text)
        if not encoded:
            continue
        line += encoded
        attr.append((style, len(encoded)))
        cs.extend(run_cs)
    return line, tuple(attr), tuple(cs)


def frame(title: list[Run], inner: Rows, width: int, height: int, border: str) -> Rows:
    """Rows of a single-line box with `title` at the left of the top border."""
    if width < 2 or height < 2:
        return [[(border, "")]] * height
    inner_width = width - 2
    rows: Rows = [_frame_top(title, inner_width, border)]
    for index in range(height - 2):
        content = inner[index] if index < len(inner) else []
        rows.append([(border, "│"), *clip_runs(content, inner_width), (border, "│")])
    rows.append([(border, "└" + "─" * inner_width + "┘")])
    return rows


def wrap_runs(text: str, style: str, width: int) -> Rows:
    """Plain text wrapped at `width` cells (words kept when they fit)."""
    rows: Rows = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split(" "):
            candidate = f"{line} {word}" if line else word
            if _width(candidate) <= width or not line:
                line = candidate
            else:
                rows.append([(style, line)])
                line = word
            while _width(line) > width > 0:
                rows.append([(style, line[:width])])
                line = line[width:]
        rows.append([(style, line)])
    return rows
