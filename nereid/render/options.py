"""Render options and the result every renderer returns (render.md §1, §2, §11)."""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from nereid.model.refs import ObjectRef
from nereid.render.canvas import Canvas
from nereid.render.spans import Span
from nereid.render.text import text_width

__all__ = ["Rendered", "RenderOptions", "Span"]


class RenderOptions(msgspec.Struct, frozen=True, kw_only=True):
    """One record of switches; the defaults are what MCP `diagram.render_text` uses.

    - `ascii`: draw with the pure ASCII glyph set instead of Unicode box drawing.
    - `show_notes`: boxes grow a row showing the object's note (render.md §1).
    - `prefix_object_labels`: prefix node labels, participant names and message texts with `▴ `.
    - `flowchart_extra_col_gap`: extra cells between flowchart layers (the TUI uses 2).
    - `max_label_width`: labels longer than this many cells wrap onto more lines (never cut).
    """

    ascii: bool = False
    show_notes: bool = False
    prefix_object_labels: bool = False
    flowchart_extra_col_gap: int = msgspec.field(default=0)
    max_label_width: int = 30

    def __post_init__(self) -> None:
        if self.flowchart_extra_col_gap < 0:
            raise ValueError(
                f"flowchart_extra_col_gap must be >= 0, got {self.flowchart_extra_col_gap}"
            )
        if self.max_label_width < 4:
            raise ValueError(f"max_label_width must be >= 4, got {self.max_label_width}")


class Rendered(msgspec.Struct, frozen=True, kw_only=True):
    """A rendered diagram: text, its lines, and the span map (cell columns, inclusive).

    `text == "\\n".join(lines)`; lines are right-trimmed; `width` is the widest line in cells,
    `height == len(lines)`. Every span lies on an existing line; spans of one object are sorted
    and do not overlap.
    """

    text: str
    lines: list[str]
    spans: Mapping[ObjectRef, tuple[Span, ...]]  # read-only: a canvas's is a `PackedSpans`
    width: int
    height: int

    @classmethod
    def from_canvas(cls, canvas: Canvas) -> Rendered:
        """The canvas as a result. Canvas spans only cover drawn cells, so none is clipped."""
        lines = canvas.to_lines()
        if canvas.has_wide:
            width = max((text_width(line) for line in lines), default=0)
        else:
            width = max((len(line) for line in lines), default=0)
        return cls(
            text="\n".join(lines),
            lines=lines,
            spans=canvas.spans.build(),
            width=width,
            height=len(lines),
        )

    @classmethod
    def from_lines(
        cls, lines: list[str], spans: Mapping[ObjectRef, tuple[Span, ...]], *, clip: bool = True
    ) -> Rendered:
        """Build the result from canvas lines, dropping span parts past the trimmed lines.

        `clip=False` skips that step for callers whose spans only cover drawn cells.
        """
        widths = [text_width(line) for line in lines]
        if not clip:
            return cls(
                text="\n".join(lines),
                lines=lines,
                spans=spans,
                width=max(widths, default=0),
                height=len(lines),
            )
        kept: dict[ObjectRef, tuple[Span, ...]] = {}
        for ref, ref_spans in spans.items():
            clipped = []
            for span in ref_spans:
                if span.row >= len(lines) or span.col_start >= widths[span.row]:
                    continue
                end = min(span.col_end, widths[span.row] - 1)
                clipped.append(Span(span.row, span.col_start, end))
            if clipped:
                kept[ref] = tuple(clipped)
        return cls(
            text="\n".join(lines),
            lines=lines,
            spans=kept,
            width=max(widths, default=0),
            height=len(lines),
        )
