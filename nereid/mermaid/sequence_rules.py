"""What participant names and texts may hold in a Nereid sequence diagram, and `;` splitting.

Shared by the importer, the exporter and (through `nereid.mermaid`) the ops layer, so that a
value is refused when it is set (decision 9), not when the file is written.

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

__all__ = [
    "KEYWORDS",
    "acc_text_problem",
    "leading_keyword",
    "participant_name_problem",
    "sequence_text_problem",
    "split_statements",
    "strip_comment",
]

#: Mermaid's statement keywords, lower case (they are matched ignoring case). Each counts when
#: the next character is not a letter, digit or `_` (`alt-svc` is `alt`, `alternative` is not).
KEYWORDS: Final = frozenset(
    {
        "participant",
        "actor",
        "alt",
        "else",
        "opt",
        "loop",
        "par",
        "par_over",
        "and",
        "critical",
        "option",
        "break",
        "rect",
        "end",
        "note",
        "activate",
        "deactivate",
        "autonumber",
        "box",
        "create",
        "destroy",
        "over",
        "off",
        "sequencediagram",
    }
)
#: Keywords that count only when whitespace follows (`link A: ...`, `title Text`); a message
#: from a participant named `link` is still a message.
SPACED_KEYWORDS: Final = frozenset({"link", "links", "properties", "details", "title"})
_LEAD_WORD: Final = re.compile(r"[A-Za-z0-9_]*")

_FORBIDDEN_NAME_CHARS: Final = frozenset(':,;+<>=#@{}|"/')
_ARROW_PIECES: Final = ("--", "->", "-x", "-)", "<<", "-\\", "\\-", "()")
_STATEMENT_SPLIT: Final = re.compile(r"#\w+;|;")
_COMMENT: Final = re.compile(r"#\w+;|#")
_WRAP_PREFIX: Final = re.compile(r":?(?:no)?wrap:")


def leading_keyword(statement: str) -> str | None:
    """The Mermaid keyword (lower case) a statement starts with, or None for a message.

    `accTitle`/`accDescr` count before `:` or `{`, `title` before `:` or whitespace, the menu
    keywords before whitespace; the rest before any character that is not a word character.
    """
    lead = _LEAD_WORD.match(statement)
    word = lead.group().lower() if lead else ""
    after = statement[len(word) :]
    if word in KEYWORDS:
        return word
    if word in ("acctitle", "accdescr") and after.lstrip()[:1] in (":", "{"):
        return word
    if word == "title" and after[:1] == ":":
        return word
    if word in SPACED_KEYWORDS and after[:1] in (" ", "\t"):
        return word
    if word in ("left", "right") and re.match(r"[ \t]+of\b", after, re.IGNORECASE):
        return word
    return None


def strip_comment(line: str) -> str:
    """`line` up to a `#` that is not an entity code (`#59;`), right-trimmed (Mermaid's
    lexer skips `#...` to the end of the line)."""
    if "#" not in line:
        return line
    for match in _COMMENT.finditer(line):
        if match.group() == "#":
            return line[: match.start()].rstrip()
    return line


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
    if name[0] in "()\\":
        return f"must not start with '{name[0]}'"
    for piece in _ARROW_PIECES:
        if piece in name:
            what = "a central connection" if piece == "()" else "an arrow"
            return f"must not contain '{piece}' (it reads as {what})"
    if name.startswith("%%"):
        return "must not start with '%%' (it reads as a comment)"
    keyword = leading_keyword(name)
    if keyword is not None:
        return (
            f"must not start with the keyword '{name[: len(keyword)]}' (Mermaid reads a statement)"
        )
    words = name.split()
    if len(words) > 1 and "as" in (word.lower() for word in words):
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
    for match in _COMMENT.finditer(text):
        if match.group() == "#":
            return "contains '#' (Mermaid reads the rest of the line as a comment; write '#35;')"
    for match in _STATEMENT_SPLIT.finditer(text):
        if match.group() == ";":
            return "contains ';' (Mermaid reads it as a statement break; write '#59;')"
    if _WRAP_PREFIX.match(text):
        return "must not start with 'wrap:' or 'nowrap:' (Mermaid reads it as the wrap flag)"
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


def acc_text_problem(text: str) -> str | None:
    """Why `text` cannot be an `accTitle`/`accDescr` value, or None.

    One line is written `accDescr: text`; several lines `accDescr {` ... `}`, whose lines are
    read trimmed and without blank or `%%` lines, and which ends at the first `}`.
    """
    if text != text.strip():
        return "must not start or end with whitespace"
    bad = _BAD_CHARS.search(text.replace("\n", " "))
    if bad is not None:
        return f"contains a control character: {bad.group()!r}"
    if "\n" in text:
        if "}" in text:
            return "a text over several lines must not contain '}'"
        for line in text.split("\n"):
            if not line or line != line.strip() or line.startswith("%%"):
                return "its lines must be non-empty, trimmed and not start with '%%'"
    return None
