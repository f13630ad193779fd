"""Text measurement in terminal cells: width, wrapping and truncation (render.md §4, §18 #19).

Widths are terminal cells (East Asian wide and emoji = 2, combining marks = 0), so boxes line
up in a real terminal. Control characters count as one cell: renderers never emit them, and a
label holding one must still take space rather than vanish.
"""

from __future__ import annotations

from functools import lru_cache

from wcwidth import wcwidth

__all__ = [
    "char_width",
    "slice_cells",
    "split_cells",
    "text_width",
    "truncate",
    "wrap_text",
]


@lru_cache(maxsize=4096)
def char_width(ch: str) -> int:
    """Cells one code point takes: 0 (combining), 1 or 2 (wide/emoji)."""
    if " " <= ch < "\x7f":
        return 1
    width = wcwidth(ch)
    if width < 0:
        return 1
    return width


def text_width(text: str) -> int:
    """Cells `text` takes on one terminal line."""
    if text.isascii() and text.isprintable():
        return len(text)
    return sum(char_width(ch) for ch in text)


def split_cells(text: str) -> list[tuple[str, int]]:
    """`text` as (cluster, width) pairs: each starts with a spacing character and carries the
    zero-width marks that follow it, so a cluster always lands in one cell (or two, if wide)."""
    clusters: list[tuple[str, int]] = []
    for ch in text:
        width = char_width(ch)
        if width == 0 and clusters:
            cluster, w = clusters[-1]
            clusters[-1] = (cluster + ch, w)
        elif width == 0:
            clusters.append((ch, 1))  # a stray mark at the start: give it a cell of its own
        else:
            clusters.append((ch, width))
    return clusters


def truncate(text: str, width: int, ellipsis: str = "…") -> str:
    """`text` cut to at most `width` cells, ending with `ellipsis` when something was cut."""
    if width <= 0:
        return ""
    if text_width(text) <= width:
        return text
    room = width - text_width(ellipsis)
    out: list[str] = []
    used = 0
    for cluster, w in split_cells(text):
        if used + w > room:
            break
        out.append(cluster)
        used += w
    return "".join(out) + ellipsis if room >= 0 else ellipsis[:width]


def wrap_text(text: str, width: int) -> list[str]:
    """Wrap `text` into lines of at most `width` cells, never dropping a character.

    Breaks at spaces when it can; a word longer than a line is split between cells. Explicit
    line breaks (`\\n`, and Mermaid's `<br>` forms) are kept. An empty text is one empty line.
    """
    width = max(width, 1)
    lines: list[str] = []
    for paragraph in _paragraphs(text):
        words = paragraph.split()
        if not words:
            lines.append("")
            continue
        current = ""
        current_w = 0
        for word in words:
            word_w = text_width(word)
            if current and current_w + 1 + word_w <= width:
                current += " " + word
                current_w += 1 + word_w
                continue
            if current:
                lines.append(current)
                current, current_w = "", 0
            while word_w > width:
                head, rest = _split_at(word, width)
                lines.append(head)
                word = rest
                word_w = text_width(word)
            current, current_w = word, word_w
        lines.append(current)
    return lines


def slice_cells(line: str, col_start: int, col_end: int) -> str:
    """The characters of `line` in cell columns `col_start..col_end` (inclusive).

    Spans are in cell columns; this maps them back onto a rendered line's string.
    """
    out: list[str] = []
    col = 0
    for cluster, w in split_cells(line):
        if col > col_end:
            break
        if col + w - 1 >= col_start:
            out.append(cluster)
        col += w
    return "".join(out)


def _paragraphs(text: str) -> list[str]:
    for token in ("<br/>", "<br />", "<br>", "\r\n", "\r"):
        text = text.replace(token, "\n")
    return text.split("\n")


def _split_at(word: str, width: int) -> tuple[str, str]:
    used = 0
    cut = 0
    clusters = split_cells(word)
    for cluster, w in clusters:
        if used + w > width and cut > 0:
            break
        used += w
        cut += len(cluster)
    return word[:cut], word[cut:]
