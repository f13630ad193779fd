"""What a Mermaid text may carry besides its statements, kept verbatim for export: YAML front
matter (`---` ... `---` before the header) and `%%{init: ...}%%` directives.

`take_preamble` lifts both out of the text and leaves blank lines in their place, so the
diagram parsers see only statements and every line number stays what it was.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from nereid.mermaid.errors import MermaidError, MermaidExportError
from nereid.model.writable import directive_problem, front_matter_problem

__all__ = ["Preamble", "preamble_lines", "take_preamble"]

_OPEN: Final = "%%{"
_CLOSE: Final = "}%%"


class Preamble(NamedTuple):
    text: str
    front_matter: str | None
    directives: tuple[str, ...]


def take_preamble(text: str) -> Preamble:
    """Front matter and directives out of `text` (raises MermaidError if one is unclosed)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if _OPEN not in text and not text.lstrip("\r\n").startswith("---"):
        return Preamble(text, None, ())
    lines = text.split("\n")
    front: str | None = None
    if lines and lines[0].rstrip("\r").strip() == "---":
        for index in range(1, len(lines)):
            if lines[index].rstrip("\r").strip() == "---":
                front = "\n".join(line.rstrip("\r") for line in lines[1:index])
                problem = front_matter_problem(front)
                if problem is not None:
                    raise MermaidError(
                        "InvalidFrontMatter",
                        f"invalid front matter on line 1: {problem}",
                        line=1, column=1, text="---", expected="front matter Nereid can keep",
                    )  # fmt: skip
                lines[: index + 1] = [""] * (index + 1)
                break
        else:
            raise MermaidError(
                "UnclosedFrontMatter",
                "unclosed front matter on line 1: missing the closing '---'",
                line=1, column=1, text="---", expected="a line '---' closing the front matter",
            )  # fmt: skip
    directives: list[str] = []
    index = 0
    while index < len(lines):
        trimmed = lines[index].rstrip("\r").strip()
        if not trimmed.startswith(_OPEN):
            index += 1
            continue
        first = index
        parts = [trimmed]
        while _CLOSE not in parts[-1]:
            index += 1
            if index == len(lines):
                raise MermaidError(
                    "UnclosedDirective",
                    f"unclosed directive on line {first + 1}: missing '}}%%'",
                    line=first + 1, column=1, text=trimmed, expected="'}%%'",
                )  # fmt: skip
            parts.append(lines[index].rstrip("\r").strip())
        directive = "\n".join(part for part in parts if part)
        if not directive.endswith(_CLOSE):
            raise MermaidError(
                "InvalidDirective",
                f"invalid directive on line {first + 1}: nothing may follow '}}%%'",
                line=first + 1, column=1, text=trimmed, expected="'}%%' at the end of the line",
            )  # fmt: skip
        problem = directive_problem(directive)
        if problem is not None:
            raise MermaidError(
                "InvalidDirective",
                f"invalid directive on line {first + 1}: {problem}",
                line=first + 1, column=1, text=trimmed, expected="'%%{ ... }%%'",
            )  # fmt: skip
        directives.append(directive)
        lines[first : index + 1] = [""] * (index + 1 - first)
        index += 1
    return Preamble("\n".join(lines), front, tuple(directives))


def preamble_lines(front_matter: str | None, directives: tuple[str, ...]) -> list[str]:
    """The lines that write front matter and directives back (before the header)."""
    lines: list[str] = []
    if front_matter is not None:
        problem = front_matter_problem(front_matter)
        if problem is not None:
            raise MermaidExportError("InvalidFrontMatter", f"cannot export front matter: {problem}")
        lines += ["---", *front_matter.split("\n"), "---"] if front_matter else ["---", "---"]
    for directive in directives:
        problem = directive_problem(directive)
        if problem is not None:
            raise MermaidExportError(
                "InvalidDirective", f"cannot export directive {directive!r}: {problem}"
            )
        lines += directive.split("\n")
    return lines
