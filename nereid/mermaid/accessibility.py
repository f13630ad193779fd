"""`accTitle: ...`, `accDescr: ...` and `accDescr { ... }`: read and written the same way in
flowcharts and sequence diagrams (Mermaid's common accessibility statements).

A value runs to the end of its line (`;` and `#` included); `accDescr {` runs to the next
`}`, over several lines, which are trimmed (blank and `%%` lines are skipped by the line
pre-pass). The last statement of each kind wins, as in Mermaid.
"""

from __future__ import annotations

import re
from typing import Final

from nereid.mermaid.errors import MermaidError, MermaidExportError
from nereid.model.writable import acc_text_problem, acc_title_problem

__all__ = ["ACC_START", "acc_lines", "read_accessibility"]

#: The start of an accessibility statement: which one, and its `:` or `{`.
ACC_START: Final = re.compile(r"(?i:acc(title|descr))[ \t]*(:|\{)")


def read_accessibility(text: str, line: int, column: int) -> tuple[str, str]:
    """`("title" | "descr", value)` of one statement; `text` holds every line of a
    `accDescr { ... }` joined by `\\n`. Raises MermaidError naming the line."""
    start = ACC_START.match(text)
    assert start is not None, "callers check ACC_START first"
    kind, opener = start.group(1).lower(), start.group(2)
    value = text[start.end() :]

    def fail(kind_: str, why: str) -> MermaidError:
        first = text.split("\n", 1)[0]
        return MermaidError(
            kind_, f"invalid acc{kind.capitalize()} on line {line}: {first} ({why})",
            line=line, column=column, text=first, expected=why,
        )  # fmt: skip

    if opener == "{":
        if kind == "title":
            raise fail("UnsupportedSyntax", "'accTitle' takes ':' and one line")
        body, closed, after = value.partition("}")
        if not closed:
            raise fail("UnclosedAccDescr", "missing the closing '}'")
        if after.strip():
            raise fail("UnsupportedSyntax", "nothing may follow the '}' of 'accDescr { ... }'")
        value = "\n".join(part.strip() for part in body.split("\n") if part.strip())
    value = value.strip()
    problem = acc_text_problem(value)
    if problem is not None:
        raise fail("InvalidText", problem)
    return kind, value


def acc_lines(acc_title: str | None, acc_descr: str | None) -> list[str]:
    """The statements that write the two values back (none for None)."""
    lines: list[str] = []
    for keyword, value in (("accTitle", acc_title), ("accDescr", acc_descr)):
        if value is None:
            continue
        problem = (acc_title_problem if keyword == "accTitle" else acc_text_problem)(value)
        if problem is not None:
            raise MermaidExportError("InvalidText", f"cannot export {keyword} {value!r}: {problem}")
        if "\n" in value:
            lines += ["accDescr {", *value.split("\n"), "}"]
        else:
            lines.append(f"{keyword}: {value}".rstrip())
    return lines
