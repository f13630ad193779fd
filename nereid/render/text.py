"""Text measurement in terminal cells: width, wrapping and truncation (render.md §4, §18 #19).

Widths are terminal cells (East Asian wide and emoji = 2, combining marks = 0), so boxes line
up in a real terminal. Control characters count as one cell: renderers never emit them, and a
label holding one must still take space rather than vanish.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from nereid.render.display import split_breaks

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
    from wcwidth import wcwidth  # its tables load in ~30 ms: only for non-ASCII text

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

    Breaks at spaces when it can. A word longer than a line breaks after `.` `/` `_` `-` or
    a wide (CJK) character; a word without such a place, or whose first one is further, grows
    its line up to twice `width` rather than being cut mid-word; only a longer word is split
    between cells. Explicit line breaks (`\\n`, and Mermaid's `<br>` forms) are kept. An
    empty text is one empty line.
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
            hard = False
            while word_w > width:
                head, rest = _split_at(word, width) if hard else _split_word(word, width)
                if not rest:
                    break
                hard = hard or text_width(head) == width and head[-1] not in _BREAK_AFTER
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
    return split_breaks(text)


_BREAK_AFTER: Final = frozenset("./_-\\:")


def _split_word(word: str, width: int) -> tuple[str, str]:
    """A too-long word as (head, rest): after the last break place within `width` cells,
    else after the first one within `2 * width`, else the whole word if it fits there, else
    cut at `width` cells."""
    clusters = split_cells(word)
    used = 0
    cut = 0
    last_fit = 0  # string index after the last break place within width
    first_far = 0  # ... after the first break place past width (within 2 * width)
    for k, (cluster, w) in enumerate(clusters):
        used += w
        cut += len(cluster)
        if k == len(clusters) - 1:
            break
        if cluster[0] in _BREAK_AFTER or w == 2 or clusters[k + 1][1] == 2:
            if used <= width:
                last_fit = cut
            elif used <= 2 * width and not first_far:
                first_far = cut
    if last_fit:
        return word[:last_fit], word[last_fit:]
    if first_far:
        return word[:first_far], word[first_far:]
    if text_width(word) <= 2 * width:
        return word, ""
    return _split_at(word, width)


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
