"""Text as a reader sees it: what Mermaid shows for a stored label (render.md §18, issue 17).

Labels are stored as written (spec decision 16): a markdown string keeps its backticks and
`**`/`_` marks, entity codes stay `#quot;`, icons stay `fa:fa-user`, line breaks stay `<br/>`.
Mermaid draws none of that syntax, so neither do we: this module is the one place that turns
a stored text into display text, shared by the renderers, the TUI and the queries.

- a markdown string (`` `...` ``) loses its backticks; `**bold**`/`__bold__` and
  `*italic*`/`_italic_` lose their marks (`display_runs` says which characters were marked);
  its line breaks are kept, each line's indentation dropped;
- `#name;` (HTML5 entity names) and `#123;` (decimal code points) are decoded, as Mermaid
  does; an unknown name stays as written;
- `fa:fa-name` (and `fab:`, `fak:`, `fal:`, `far:`, `fas:`) icon tokens show as `:name:`;
- `<br>` with optional spaces and slash inside (`<br >`, `<BR/>`, `<br />`) is a line
  break, exactly Mermaid's `<br\\s*/?>`; `< br>` is text.
"""

from __future__ import annotations

import html.entities
import re
from functools import lru_cache
from typing import Final, Literal

__all__ = [
    "Emphasis",
    "display_line",
    "display_runs",
    "display_text",
    "is_markdown",
    "split_breaks",
]

Emphasis = Literal["", "bold", "italic", "bold italic"]

LINE_BREAK: Final = re.compile(r"<br\s*/?>", re.IGNORECASE)
_ENTITY: Final = re.compile(r"#(\w+);")
_ICON: Final = re.compile(r"\bfa[bklrs]?:fa-([\w-]+)")
# Markdown emphasis: **x** / __x__ (bold), *x* / _x_ (italic), ***x*** / ___x___ (both);
# `_` only at word edges, so identifiers such as snake_case_name keep their underscores. The
# inside of a pair never holds its own closing mark, so a failed search stops at the next
# mark: linear in the label, whatever it holds (no request may stall on a hostile label).
_BOLD: Final = re.compile(
    r"\*\*(?=\S)((?:[^*]|\*(?!\*))+?)(?<=\S)\*\*"
    r"|(?<!\w)__(?=\S)((?:[^_]|_(?!_))+?)(?<=\S)__(?!\w)"
)
_ITALIC: Final = re.compile(
    r"\*(?=[^\s*])([^*]+?)(?<=[^\s*])\*|(?<!\w)_(?=[^\s_])([^_]+?)(?<=[^\s_])_(?!\w)"
)
_BOTH: Final = re.compile(
    r"\*\*\*(?=\S)((?:[^*]|\*(?!\*\*))+?)(?<=\S)\*\*\*"
    r"|(?<!\w)___(?=\S)((?:[^_]|_(?!__))+?)(?<=\S)___(?!\w)"
)
#: (pattern, bold, italic), tried in this order where two start at one place.
_MARKS: Final = ((_BOTH, True, True), (_BOLD, True, False), (_ITALIC, False, True))


def split_breaks(text: str) -> list[str]:
    """`text` split at its line breaks: newlines and Mermaid's `<br>` forms."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return LINE_BREAK.sub("\n", text).split("\n")


def is_markdown(text: str) -> bool:
    """A Mermaid markdown string: the stored text is wrapped in backticks."""
    return len(text) >= 2 and text.startswith("`") and text.endswith("`")


def display_line(text: str) -> str:
    """`display_text` on one line (breaks as spaces): for lists, status lines, query rows."""
    return " ".join(part.strip() for part in display_text(text).split("\n") if part.strip())


@lru_cache(maxsize=8192)
def display_text(text: str) -> str:
    """What a reader sees for the stored `text` (module docstring); line breaks as `\\n`."""
    return "".join(part for part, _ in display_runs(text))


@lru_cache(maxsize=4096)
def display_runs(text: str) -> tuple[tuple[str, Emphasis], ...]:
    """`display_text` as runs of (text, emphasis); joined, the texts equal `display_text`."""
    markdown = is_markdown(text)
    if markdown:
        text = text[1:-1]
    text = "\n".join(split_breaks(text))
    if markdown:
        text = "\n".join(line.strip() for line in text.split("\n"))
    if "#" in text:
        text = _ENTITY.sub(_entity, text)
    if ":fa-" in text:
        text = _ICON.sub(lambda m: f":{m.group(1)}:", text)
    if not markdown:
        return ((text, ""),)
    return tuple(_emphasis(text))


def _entity(match: re.Match[str]) -> str:
    name = match.group(1)
    if name.isdigit():
        code = int(name)
        if 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF and _printable(chr(code)):
            return chr(code)
        return match.group(0)
    decoded = html.entities.html5.get(name + ";")
    return decoded if decoded is not None and _printable(decoded) else match.group(0)


def _printable(text: str) -> bool:
    """No control characters: a drawing never holds one (an entity for one stays raw)."""
    return all(ch >= " " and not "\x7f" <= ch <= "\x9f" for ch in text)


def _emphasis(text: str, bold: bool = False, italic: bool = False) -> list[tuple[str, Emphasis]]:
    """Runs of a markdown string's text with its emphasis marks taken out: the earliest mark
    pair wins (`***x***` before `**x**` before `*x*` at one place), its inside is read again,
    so `_**x**_` and `**_x_**` are both bold italic."""
    runs: list[tuple[str, Emphasis]] = []
    pos = 0
    # Each pattern's next match, searched again only once the text before it is used up (a
    # pattern that found nothing finds nothing later either): linear in the number of marks.
    nexts = [pattern.search(text) for pattern, _, _ in _MARKS]
    while True:
        for k, (pattern, _, _) in enumerate(_MARKS):
            ahead = nexts[k]
            if ahead is not None and ahead.start() < pos:
                nexts[k] = pattern.search(text, pos)
        candidates = [(m.start(), k, m) for k, m in enumerate(nexts) if m is not None]
        if not candidates:
            break
        _, k, match = min(candidates, key=lambda c: (c[0], c[1]))
        _, b, i = _MARKS[k]
        _append(runs, text[pos : match.start()], bold, italic)
        inner = match.group(1) if match.group(1) is not None else match.group(2)
        for part, style in _emphasis(inner, bold or b, italic or i):
            _append(runs, part, "bold" in style, "italic" in style)
        pos = match.end()
    _append(runs, text[pos:], bold, italic)
    return runs or [("", "")]


def _append(runs: list[tuple[str, Emphasis]], part: str, bold: bool, italic: bool) -> None:
    style: Emphasis = (
        "bold italic" if bold and italic else "bold" if bold else "italic" if italic else ""
    )
    if not part:
        return
    if runs and runs[-1][1] == style:
        runs[-1] = (runs[-1][0] + part, style)
    else:
        runs.append((part, style))
