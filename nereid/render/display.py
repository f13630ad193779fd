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

__all__ = ["Emphasis", "display_runs", "display_text", "split_breaks"]

Emphasis = Literal["", "bold", "italic", "bold italic"]

LINE_BREAK: Final = re.compile(r"<br\s*/?>", re.IGNORECASE)
_ENTITY: Final = re.compile(r"#(\w+);")
_ICON: Final = re.compile(r"\bfa[bklrs]?:fa-([\w-]+)")
# Markdown emphasis: **x** / __x__ (bold), *x* / _x_ (italic); `_` only at word edges, so
# identifiers such as snake_case_name keep their underscores.
_BOLD: Final = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*|(?<!\w)__(?=\S)(.+?)(?<=\S)__(?!\w)")
_ITALIC: Final = re.compile(
    r"\*(?=[^\s*])(.+?)(?<=[^\s*])\*|(?<!\w)_(?=[^\s_])(.+?)(?<=[^\s_])_(?!\w)"
)


def split_breaks(text: str) -> list[str]:
    """`text` split at its line breaks: newlines and Mermaid's `<br>` forms."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return LINE_BREAK.sub("\n", text).split("\n")


@lru_cache(maxsize=8192)
def display_text(text: str) -> str:
    """What a reader sees for the stored `text` (module docstring); line breaks as `\\n`."""
    return "".join(part for part, _ in display_runs(text))


@lru_cache(maxsize=4096)
def display_runs(text: str) -> tuple[tuple[str, Emphasis], ...]:
    """`display_text` as runs of (text, emphasis); joined, the texts equal `display_text`."""
    markdown = len(text) >= 2 and text.startswith("`") and text.endswith("`")
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


def _emphasis(text: str) -> list[tuple[str, Emphasis]]:
    """Runs of a markdown string's text with its emphasis marks taken out."""
    runs: list[tuple[str, Emphasis]] = []
    for piece, bold in _split(text, _BOLD):
        for part, italic in _split(piece, _ITALIC):
            style: Emphasis = (
                "bold italic" if bold and italic else "bold" if bold else "italic" if italic else ""
            )
            if part:
                if runs and runs[-1][1] == style:
                    runs[-1] = (runs[-1][0] + part, style)
                else:
                    runs.append((part, style))
    return runs or [("", "")]


def _split(text: str, pattern: re.Pattern[str]) -> list[tuple[str, bool]]:
    out: list[tuple[str, bool]] = []
    pos = 0
    for match in pattern.finditer(text):
        out.append((text[pos : match.start()], False))
        out.append((match.group(1) if match.group(1) is not None else match.group(2), True))
        pos = match.end()
    out.append((text[pos:], False))
    return out
