"""The one error type of Mermaid import and export, and the shared lexical pre-pass.

Every parse problem is a `MermaidError` carrying the line (1-based, physical), the column
(1-based, or None when the whole line is meant), the offending text and what was expected;
`str()` is the spec's message text (mermaid.md §9), so `nereid check` can print
`file:line:col: message`. It is an `InvalidParams` (-32602) whose data says where
(`error_kind`, `line`, `column`, `text`, `expected`): actors and tools let it through.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from nereid.errors import InvalidParams
from nereid.model.writable import mermaid_text_problem

__all__ = ["MermaidError", "MermaidExportError", "check_encodable", "iter_lines", "kept_lines"]


class MermaidError(InvalidParams, ValueError):
    """A Mermaid text that cannot be imported. Raised by the parsers and kind detection.

    Data (our addition, the contract sends none): `error_kind` and, when known, `line`,
    `column`, `text`, `expected`.
    """

    def __init__(
        self,
        kind: str,
        message: str,
        *,
        line: int | None = None,
        column: int | None = None,
        text: str | None = None,
        expected: str | None = None,
    ) -> None:
        self.kind = kind
        self.line = line
        self.column = column
        self.text = text
        self.expected = expected
        super().__init__(message, self._where())

    def _where(self) -> dict[str, Any]:
        data: dict[str, Any] = {"error_kind": self.kind}
        for key in ("line", "column", "text", "expected"):
            value = getattr(self, key)
            if value is not None:
                data[key] = value
        return data

    def __str__(self) -> str:
        return self.message

    def location(self) -> str:
        """`line:col` (col 1 when unknown), or `1:1` for errors without a line (header, EOF)."""
        return f"{self.line or 1}:{self.column or 1}"

    def in_diagram(self, diagram_kind: str) -> InvalidParams:
        """The refusal of a text meant as a `diagram_kind` diagram (mcp-tools.md §5.2):
        `cannot parse Mermaid <kind> diagram: <reason>`, with the same data."""
        return InvalidParams(
            f"cannot parse Mermaid {diagram_kind} diagram: {self.message}", self.data
        )


class MermaidExportError(ValueError):
    """An AST that cannot be written as Mermaid text (mermaid.md §9, export errors)."""

    def __init__(self, kind: str, message: str, *, object_id: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.object_id = object_id

    def __reduce__(self) -> Any:
        """Pickle with the keyword argument too (an export may run in a worker process)."""
        return (_export_error, (self.kind, self.message, self.object_id))


def _export_error(kind: str, message: str, object_id: str | None) -> MermaidExportError:
    return MermaidExportError(kind, message, object_id=object_id)


def check_encodable(text: str) -> None:
    """Refuse a text that could not be saved as UTF-8 (a lone surrogate), with where."""
    problem = mermaid_text_problem(text)
    if problem is not None:
        line, column, reason = problem
        raise MermaidError(
            "InvalidCharacter",
            f"invalid character on line {line}: the text {reason}",
            line=line,
            column=column,
            text=text.split("\n")[line - 1],
            expected="text that can be saved as UTF-8",
        )


def iter_lines(text: str) -> Iterator[tuple[int, str, str]]:
    """Yield `(line_no, raw_line, trimmed)` for every kept line (mermaid.md §3).

    Splits on `\\n` only (never `str.splitlines`), strips one trailing `\\r`, drops one leading
    BOM, and skips blank and `%%` lines, while counting every physical line.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    return kept_lines(enumerate(text.split("\n"), start=1))


def kept_lines(numbered: Iterator[tuple[int, str]]) -> Iterator[tuple[int, str, str]]:
    """`iter_lines` over `(line_no, physical line)` pairs, for a parser that reads some
    lines itself from the same iterator."""
    for index, raw in numbered:
        if raw.endswith("\r"):
            raw = raw[:-1]
        trimmed = raw.strip()
        if not trimmed or trimmed.startswith("%%"):
            continue
        yield index, raw, trimmed
