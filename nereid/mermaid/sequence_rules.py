"""What participant names and texts may hold in a Nereid sequence diagram, and `;` splitting.

Shared by the importer, the exporter and (through `nereid.mermaid`) the ops layer, so that a
value is refused when it is set (decision 9), not when the file is written.

Names follow Mermaid, which allows spaces, hyphens and Unicode (`Alice Smith->>Bob: hi`), but
only as far as the name can be written back and read again as the same name: no character
Mermaid gives a meaning (`: , ; + < > = # @ { } ( ) | "`), no `/` (ids are `p:<name>`), no
arrow inside (`-x`, `--`, `->`, `-)`), no leading or trailing `-`, and a name with spaces may
not start with a statement keyword nor contain the word `as`.

`;` separates statements, as in Mermaid (`A->>B: hi; B->>A: ho` is two messages), except
inside an entity code such as `#59;`, which is how a text holds a semicolon. Texts are kept
verbatim otherwise: entity codes, `<br/>`, quotes and backslashes are not decoded.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = [
    "KEYWORDS",
    "participant_name_problem",
    "sequence_text_problem",
    "split_statements",
]

#: First tokens that make a line a statement other than a message. `note` and `Note` both
#: open a note, as in Mermaid.
KEYWORDS: Final = frozenset(
    {
        "participant",
        "actor",
        "alt",
        "else",
        "opt",
        "loop",
        "par",
        "and",
        "critical",
        "option",
        "break",
        "rect",
        "end",
        "Note",
        "note",
        "activate",
        "deactivate",
        "autonumber",
        "title",
        "box",
        "create",
        "destroy",
        "link",
        "links",
        "properties",
        "details",
        "accTitle",
        "accDescr",
    }
)

_FORBIDDEN_NAME_CHARS: Final = frozenset(':,;+<>=#@{}()|"/')
_ARROW_PIECES: Final = ("--", "->", "-x", "-)", "<<")
_STATEMENT_SPLIT: Final = re.compile(r"#\w+;|;")


#: Control characters (tab excepted), line/paragraph separators and lone surrogates.
_BAD_CHARS: Final = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


def participant_name_problem(name: str) -> str | None:
    """Why `name` cannot be a participant name (Mermaid-writable), or None when it can."""
    if name == "":
        return "must not be empty"
    if name != name.strip():
        return "must not start or end with whitespace"
    if "/" in name:
        return "must not contain '/'"
    bad = _BAD_CHARS.search(name)
    if bad is not None:
        return f"contains invalid character: {bad.group()!r}"
    for ch in name:
        if ch in _FORBIDDEN_NAME_CHARS:
            return f"contains invalid character: '{ch}'"
    if name.startswith("-") or name.endswith("-"):
        return "must not start or end with '-'"
    for piece in _ARROW_PIECES:
        if piece in name:
            return f"must not contain '{piece}' (it reads as an arrow)"
    if name.startswith("%%"):
        return "must not start with '%%' (it reads as a comment)"
    words = name.split()
    if len(words) > 1:
        if words[0] in KEYWORDS:
            return f"must not start with the keyword '{words[0]}' when it contains spaces"
        if "as" in words:
            return "must not contain the word 'as' (it reads as an alias)"
    return None


def sequence_text_problem(text: str) -> str | None:
    """Why `text` cannot be written as a message/note text, alias, title or block header."""
    if text.strip() == "":
        return "must not be empty"
    if text != text.strip():
        return "must not start or end with whitespace"
    bad = _BAD_CHARS.search(text)
    if bad is not None:
        return f"contains a line break or control character: {bad.group()!r}"
    for match in _STATEMENT_SPLIT.finditer(text):
        if match.group() == ";":
            return "contains ';' (Mermaid reads it as a statement break; write '#59;')"
    return None


def split_statements(line: str) -> list[tuple[int, str]]:
    """Split one trimmed line at `;` (not inside `#code;`); return `(offset, stripped)` parts.

    Empty parts are dropped; `offset` is the 0-based index of the part's first character in
    `line`, so callers can report columns.
    """
    if ";" not in line:
        return [(0, line)]
    parts: list[tuple[int, str]] = []
    start = 0
    for match in _STATEMENT_SPLIT.finditer(line):
        if match.group() != ";":
            continue
        _append_part(parts, line, start, match.start())
        start = match.end()
    _append_part(parts, line, start, len(line))
    return parts


def _append_part(parts: list[tuple[int, str]], line: str, start: int, stop: int) -> None:
    piece = line[start:stop]
    stripped = piece.strip()
    if stripped:
        parts.append((start + (len(piece) - len(piece.lstrip())), stripped))
