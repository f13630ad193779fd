"""Which style each visible diagram cell gets (tui.md §11, with §16's overlap rule).

`DiagramCells` turns a `Rendered` into rows of cells once per render; `Marks` says who looks at
what; `styled_row(...)` resolves one visible row into (style, text) runs. Only visible rows are
resolved, so a repaint costs O(viewport), not O(diagram).

Overlap rule (deterministic): human cursor + any agent → `both`; else cursor → `human` (or
`agent_owner` while an agent moved the cursor); else the agent with the lowest slot → `agent<i>`;
else selection → `selected`; else decorations. Selection + cursor → `selected_hot`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import compress, groupby
from typing import TypeVar

from nereid.model.diagram import Ast
from nereid.model.refs import (
    FLOW_EDGE,
    FLOW_NOTE,
    SEQ_BLOCK,
    SEQ_NOTE,
    SEQ_SECTION,
    STATE_TRANSITION,
    ObjectRef,
)
from nereid.render import Rendered, Span
from nereid.render.display import Emphasis
from nereid.render.text import split_cells, text_width
from nereid.ui.emphasis import emphasis_cells

__all__ = [
    "CellRows",
    "DiagramCells",
    "Marks",
    "fill_gaps",
    "one_cell_each",
    "styled_row",
    "styled_rows",
    "warm_rows",
]

VERTICAL_BOX = set("│┌┐└┘├┤┬┴┼┃")
BOX = set("─│┌┐└┘├┤┬┴┼╭╮╰╯━┃═║┄┆▶◀▲▼○✕")
Interval = tuple[int, int]
_S = TypeVar("_S")
_EMPHASIS_STYLE: dict[Emphasis, str] = {
    "bold": "em_bold",
    "italic": "em_italic",
    "bold italic": "em_bold_italic",
}
# Printable ASCII, box drawing, block and geometric shapes: one cell per character.
_NARROW = re.compile("[\x20-\x7e\u2500-\u25fc\u25ff]*")


@dataclass(frozen=True)
class Marks:
    """Who looks at what, for one repaint."""

    cursor: ObjectRef | None = None
    cursor_by_agent: bool = False
    selection: frozenset[ObjectRef] = frozenset()
    spotlights: tuple[tuple[int, ObjectRef], ...] = ()  # (style slot 0-5, ref)
    hints: dict[tuple[int, int], tuple[str, str]] = field(default_factory=dict)
    # (row, col) → (char, style): hint tags painted over everything else


_UNMARKED = Marks()


class DiagramCells:
    """A rendered diagram as rows of cells plus per-object intervals (after gap filling)."""

    def __init__(
        self,
        rendered: Rendered,
        diagram_id: str,
        ast: Ast | None = None,
        *,
        patch_of: DiagramCells | None = None,
        changed_rows: Iterable[int] = (),
    ) -> None:
        """`patch_of`: the drawing `rendered` is a label patch of (`nereid.ui.label_patch`),
        which changed only `changed_rows` and no note, block or bold/italic cell: the rest
        is taken from it instead of worked out again over the whole drawing."""
        self.rendered = rendered
        self.diagram_id = diagram_id
        self.ast = ast  # what it was drawn from (None: not known)
        self.width = rendered.width
        self.height = rendered.height
        self._intervals: dict[ObjectRef, dict[int, list[Interval]]] = {}
        # (row, x0, width, dim) → the runs of a row nothing marks (`styled_rows`)
        self._plain: dict[tuple[int, int, int, bool], list[tuple[str, str]]] = {}
        self.rows: CellRows
        self.emphasis: dict[tuple[int, int], Emphasis]  # bold/italic cells of markdown labels
        self.emphasis_rows: frozenset[int]
        self.note_rows: dict[int, list[Interval]]
        self.block_rows: dict[int, list[Interval]]
        if patch_of is not None:
            changed_rows = frozenset(changed_rows)
            self.rows = patch_of.rows.patched(rendered.lines, changed_rows)
            self._plain = {k: v for k, v in patch_of._plain.items() if k[0] not in changed_rows}
            self.emphasis = patch_of.emphasis
            self.emphasis_rows = patch_of.emphasis_rows
            self.note_rows = patch_of.note_rows
            self.block_rows = patch_of.block_rows
            return
        self.rows = CellRows(rendered.lines)
        self.emphasis = (
            emphasis_cells(rendered, ast, diagram_id, self.rows) if ast is not None else {}
        )
        self.emphasis_rows = frozenset(row for row, _ in self.emphasis)
        self.note_rows = {}
        self.block_rows = {}
        spans = rendered.spans
        for ref in spans:  # only these objects' spans are made (a packed map keeps the rest)
            if ref.category in (FLOW_NOTE, SEQ_NOTE):
                _add(self.note_rows, spans[ref])
            elif ref.category in (SEQ_BLOCK, SEQ_SECTION):
                _add(self.block_rows, spans[ref])

    def intervals(self, ref: ObjectRef) -> dict[int, list[Interval]]:
        """Row → flagged column intervals of one object, gap-filled (cached)."""
        cached = self._intervals.get(ref)
        if cached is not None:
            return cached
        by_row: dict[int, list[Interval]] = {}
        for span in self.rendered.spans.get(ref, ()):
            by_row.setdefault(span.row, []).append((span.col_start, span.col_end))
        bridge = None if ref.category in (FLOW_EDGE, STATE_TRANSITION) else 1
        result = {
            row: fill_gaps(self.rows[row], sorted(ivs), bridge) for row, ivs in by_row.items()
        }
        self._intervals[ref] = result
        return result

    def bounds(self, ref: ObjectRef) -> tuple[int, int, int, int] | None:
        """(top, left, bottom, right) of an object's cells, or None if it is not drawn."""
        spans = self.rendered.spans.get(ref)
        if not spans:
            return None
        return (
            min(s.row for s in spans),
            min(s.col_start for s in spans),
            max(s.row for s in spans),
            max(s.col_end for s in spans),
        )


class CellRows:
    """The drawing's lines, each indexable by cell (`_cells`), worked out when first read:
    a repaint reads the rows it shows, so a new drawing costs nothing per line up front."""

    __slots__ = ("_lines", "_made")

    def __init__(self, lines: list[str], made: dict[int, str | list[str]] | None = None) -> None:
        self._lines = lines
        self._made = made if made is not None else {}

    def __len__(self) -> int:
        return len(self._lines)

    def __getitem__(self, row: int) -> str | list[str]:
        made = self._made.get(row)
        if made is None:
            made = self._made[row] = _cells(self._lines[row])
        return made

    def patched(self, lines: list[str], changed: Iterable[int]) -> CellRows:
        """The rows of `lines`, which differ from these only on the `changed` rows."""
        made = dict(self._made)
        for row in changed:
            made.pop(row, None)
        return CellRows(lines, made)


def one_cell_each(line: str) -> bool:
    """Every character of `line` takes one cell (so columns are string indexes)."""
    return _NARROW.fullmatch(line) is not None or text_width(line) == len(line)


def _cells(line: str) -> str | list[str]:
    """A line indexable by cell: the string itself when every character is one cell wide."""
    if one_cell_each(line):
        return line
    cells: list[str] = []
    for cluster, width in split_cells(line):
        cells.append(cluster)
        cells.extend([""] * (width - 1))
    return cells


def _add(into: dict[int, list[Interval]], spans: Iterable[Span]) -> None:
    for span in spans:
        into.setdefault(span.row, []).append((span.col_start, span.col_end))


def fill_gaps(
    cells: str | list[str], intervals: list[Interval], bridge: int | None
) -> list[Interval]:
    """Join runs across short gaps: box crossings (≤ `bridge`, None = any) and label spaces."""
    if not intervals:
        return []
    merged = [intervals[0]]
    for start, end in intervals[1:]:
        last_start, last_end = merged[-1]
        gap = cells[last_end + 1 : start]
        join = start <= last_end + 1
        if not join and gap:
            if all(c in VERTICAL_BOX for c in gap) and (bridge is None or len(gap) <= bridge):
                join = True
            elif (
                len(gap) <= 3
                and all(c == " " for c in gap)
                and _is_text(cells, last_end)
                and _is_text(cells, start)
            ):
                join = True
        if join:
            merged[-1] = (last_start, max(last_end, end))
        else:
            merged.append((start, end))
    return merged


def _is_text(cells: str | list[str], x: int) -> bool:
    return 0 <= x < len(cells) and cells[x] not in ("", " ") and cells[x] not in BOX


def _paint(row: list[_S], intervals: list[Interval], x0: int, value: _S) -> None:
    """Set the cells of `intervals` (diagram columns; the row starts at column `x0`)."""
    width = len(row)
    for start, end in intervals:
        lo, hi = max(start - x0, 0), min(end - x0, width - 1)
        if hi >= lo:
            row[lo : hi + 1] = [value] * (hi - lo + 1)


_MARKERS = re.compile("([▾▴]+)")


def _plain_runs(chars: list[str], style: str) -> list[tuple[str, str]]:
    """The runs of a row with nothing marked on it: `style`, xref markers as `marker`."""
    text = "".join(chars)  # the "" after a wide character vanish
    if "▾" not in text and "▴" not in text:
        return [(style, text)] if text else []
    return [("marker" if part[0] in "▾▴" else style, part) for part in _MARKERS.split(text) if part]


PLAIN_ROWS_KEPT = 512
"""Unmarked rows kept per drawing for the next repaint (several screens of rows)."""


def styled_rows(
    cells: DiagramCells, marks: Marks, rows: range, x0: int, width: int, dim: bool
) -> list[list[tuple[str, str]]]:
    """`styled_row` of each of `rows`. A row that no mark touches (cursor, selection,
    spotlight, hint) is the same in every repaint of the drawing at this pan and width: it
    is kept and handed back as the same list, so a repaint after a mark moved re-styles
    only the rows the mark was and is on (and the canvas built from them can tell)."""
    marked: set[int] = {row for row, _col in marks.hints}
    refs = [ref for ref in marks.selection if ref.diagram_id == cells.diagram_id]
    refs += [ref for _slot, ref in marks.spotlights]
    if marks.cursor is not None:
        refs.append(marks.cursor)
    for ref in refs:
        marked.update(cells.intervals(ref))
    plain = cells._plain
    if len(plain) > PLAIN_ROWS_KEPT:
        plain.clear()
    out: list[list[tuple[str, str]]] = []
    for row in rows:
        if row in marked:
            out.append(styled_row(cells, marks, row, x0, width, dim))
            continue
        key = (row, x0, width, dim)
        runs = plain.get(key)
        if runs is None:
            runs = plain[key] = styled_row(cells, _UNMARKED, row, x0, width, dim)
        out.append(runs)
    return out


def warm_rows(cells: DiagramCells, rows: range, x0: int, width: int, dim: bool) -> Iterator[None]:
    """Style `rows` of a drawing not shown yet as unmarked rows for `styled_rows`, a band of
    `WARM_ROWS` rows at a time (yielding between), so that the repaint which first shows
    the drawing finds them made: the app does this between event-loop steps."""
    plain = cells._plain
    for count, row in enumerate(rows, 1):
        key = (row, x0, width, dim)
        if key not in plain:
            plain[key] = styled_row(cells, _UNMARKED, row, x0, width, dim)
        if count % WARM_ROWS == 0:
            yield


WARM_ROWS = 16
"""Rows `warm_rows` styles per event-loop step."""


def styled_row(
    cells: DiagramCells, marks: Marks, row: int, x0: int, width: int, dim: bool
) -> list[tuple[str, str]]:
    """(style, text) runs for diagram row `row`, columns `x0 .. x0+width-1` (may be outside)."""
    line = cells.rows[row] if 0 <= row < cells.height else ""
    lo, hi = max(x0, 0), min(x0 + width, len(line))
    chars = [" "] * (lo - x0) + list(line[lo:hi]) if hi > lo else []
    chars += [" "] * (width - len(chars))
    # A wide character cut by either edge becomes a blank cell.
    if chars and chars[0] == "":
        chars[0] = " "
    if chars and chars[-1] != "" and 0 <= x0 + width < len(line) and line[x0 + width] == "":
        chars[-1] = " "
    blocks, notes = cells.block_rows.get(row, []), cells.note_rows.get(row, [])
    selected = [
        ivs
        for ref in marks.selection
        if ref.diagram_id == cells.diagram_id and (ivs := cells.intervals(ref).get(row))
    ]
    spotted = [
        (slot, ivs)
        for slot, ref in sorted(marks.spotlights, key=lambda s: -s[0])
        if (ivs := cells.intervals(ref).get(row))
    ]
    cursor = cells.intervals(marks.cursor).get(row, []) if marks.cursor is not None else []
    if not (blocks or notes or selected or spotted or cursor or marks.hints) and (
        row not in cells.emphasis_rows
    ):
        return _plain_runs(chars, "dim" if dim else "default")  # most rows: one style
    # Painted in layers of rising priority (slices, not a loop over every cell): the base,
    # blocks and notes, markers and emphasis, selection, agents (the lowest slot last),
    # then the cursor, whose style depends on what else is under it.
    styles: list[str] = ["dim" if dim else "default"] * width
    _paint(styles, blocks, x0, "block")
    _paint(styles, notes, x0, "note")
    if cells.emphasis and row in cells.emphasis_rows:
        for x in range(width):
            emphasis = cells.emphasis.get((row, x0 + x))
            if emphasis and styles[x] == "default":
                styles[x] = _EMPHASIS_STYLE[emphasis]
    if "▾" in line or "▴" in line:
        for x, ch in enumerate(chars):
            if ch in ("▾", "▴"):
                styles[x] = "marker"
    for ivs in selected:
        _paint(styles, ivs, x0, "selected")
    for slot, ivs in spotted:
        _paint(styles, ivs, x0, f"agent{slot}")
    if cursor:
        on_cursor: list[bool] = [False] * width
        _paint(on_cursor, cursor, x0, True)
        agent: list[bool] = [False] * width
        for _slot, ivs in spotted:
            _paint(agent, ivs, x0, True)
        sel: list[bool] = [False] * width
        for ivs in selected:
            _paint(sel, ivs, x0, True)
        own = "agent_owner" if marks.cursor_by_agent else "human"
        for x in compress(range(width), on_cursor):
            styles[x] = "both" if agent[x] else "selected_hot" if sel[x] else own
    if marks.hints:
        for x in range(width):
            tag = marks.hints.get((row, x0 + x))
            if tag is not None:
                chars[x], styles[x] = tag
    runs: list[tuple[str, str]] = []
    at = 0
    for style, group in groupby(styles):
        count = len(list(group))
        text = "".join(chars[at : at + count])  # the "" after a wide character vanish
        at += count
        if not text:
            continue
        if runs and runs[-1][0] == style:
            runs[-1] = (style, runs[-1][1] + text)
        else:
            runs.append((style, text))
    return runs
