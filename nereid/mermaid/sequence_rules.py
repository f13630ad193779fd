"""What participant names and texts may hold in a Nereid sequence diagram, and `;` splitting.

The name and text rules are `nereid.model.writable`'s, shared with the ops layer so that a
value is refused when it is set (decisions 9 and 18), not when the file is written; they are
re-exported here for the importer and the exporter.

Names follow Mermaid, which allows spaces, hyphens, parentheses and Unicode
(`Alice Smith->>Bob: hi`, `Web (UI)->>API: go`), but only as far as the name can be written
back and read again as the same name: no character Mermaid gives a meaning
(`: , ; + < > = # @ { } | "`), no `/` (ids are `p:<name>`), no arrow inside (`-x`, `--`,
`->`, `-)`, `-\\`, `\\-`) and no `()` (a central connection), no leading `(`, `)`, `\\` or
`-` and no trailing `-`. Mermaid's keywords are case-insensitive and end at the first
character that is not a letter, digit or `_`, so a name may not start with one (`alt-svc`
and `End` read as block statements); a name with spaces may not contain the word `as`.

`;` separates statements, as in Mermaid (`A->>B: hi; B->>A: ho` is two messages), except
inside an entity code such as `#59;`, which is how a text holds a semicolon; any other `#`
starts a comment that runs to the end of the line (Mermaid's lexer), except in `accTitle` and
`accDescr` values. Texts are kept verbatim otherwise: entity codes, `<br/>`, quotes and
backslashes are not decoded.
"""

from __future__ import annotations

import re
from typing import Final

from nereid.model.writable import (
    COMMENT_OR_ENTITY,
    SEQUENCE_KEYWORDS,
    SEQUENCE_SPACED_KEYWORDS,
    leading_keyword,
    participant_name_problem,
    sequence_text_problem,
)

__all__ = [
    "KEYWORDS",
    "leading_keyword",
    "participant_name_problem",
    "sequence_text_problem",
    "split_statements",
    "strip_comment",
]

_STATEMENT_SPLIT: Final = re.compile(r"#\w+;|;")

#: The name and text rules live in the model, shared with the ops (spec decision 18).
KEYWORDS: Final = SEQUENCE_KEYWORDS
SPACED_KEYWORDS: Final = SEQUENCE_SPACED_KEYWORDS


def strip_comment(line: str) -> str:
    """`line` up to a `#` that is not an entity code (`#59;`), right-trimmed (Mermaid's
    lexer skips `#...` to the end of the line)."""
    if "#" not in line:
        return line
    for match in COMMENT_OR_ENTITY.finditer(line):
        if match.group() == "#":
            return line[: match.start()].rstrip()
    return line


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
