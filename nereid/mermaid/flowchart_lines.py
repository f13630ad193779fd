"""Flowchart pre-pass: physical lines → statements (mermaid.md §3, §10).

Handles what must happen before any statement grammar sees the text: the BOM, YAML front
matter, the header line, comments, `;` statement separators and quoted strings that run over
several physical lines (Mermaid markdown strings do). Each statement keeps the physical line
and 1-based column where it starts, so every later error can point at it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from nereid.mermaid.accessibility import ACC_START
from nereid.mermaid.errors import MermaidError
from nereid.mermaid.preamble import take_preamble

__all__ = ["Header", "Statement", "split_flowchart", "split_statements"]

_DIRECTIONS: Final = frozenset({"TD", "TB", "BT", "LR", "RL"})
_OPEN_CLOSE: Final = {"[": "]", "(": ")", "{": "}"}


@dataclass(frozen=True, slots=True)
class Statement:
    """One statement: trimmed text, the physical line and column (1-based) it starts at."""

    text: str
    line: int
    column: int


@dataclass(frozen=True, slots=True)
class Header:
    """What precedes the statements: front matter text (None if absent), the directives and
    the direction."""

    front_matter: str | None
    direction: str | None
    line: int
    directives: tuple[str, ...] = ()


def _physical_lines(text: str) -> list[str]:
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    return [raw[:-1] if raw.endswith("\r") else raw for raw in lines]


def _parse_header(trimmed: str, line_no: int) -> tuple[str | None, str]:
    """Check `flowchart|graph [DIR]`; return the direction and any text after a `;`."""
    head, sep, rest = trimmed.partition(";")
    tokens = head.split()
    if not tokens or tokens[0] not in ("flowchart", "graph"):
        raise MermaidError(
            "MissingHeader",
            "expected 'flowchart' as the first non-empty line",
            line=line_no,
            column=1,
            text=trimmed,
            expected="'flowchart' or 'graph'",
        )
    direction: str | None = None
    if len(tokens) >= 2:
        direction = tokens[1]
        if direction not in _DIRECTIONS:
            raise MermaidError(
                "InvalidDirection",
                f"invalid flowchart direction on line {line_no}: {direction} "
                "(expected TD/TB/LR/RL/BT)",
                line=line_no,
                column=trimmed.find(direction) + 1,
                text=direction,
                expected="TD, TB, LR, RL or BT",
            )
    if len(tokens) >= 3:
        raise MermaidError(
            "UnsupportedSyntax",
            f"unsupported Mermaid syntax on line {line_no}: {trimmed}",
            line=line_no,
            column=trimmed.find(tokens[2]) + 1,
            text=trimmed,
            expected="'flowchart [direction]' alone on the header line",
        )
    return direction, rest if sep else ""


def split_statements(text: str) -> Iterator[tuple[int, str]]:
    """Split at `;` outside quotes, brackets and pipe labels; yield (offset, piece)."""
    start = 0
    quote = False
    closers: list[str] = []
    pipe = False
    for index, char in enumerate(text):
        if char == '"':
            quote = not quote
        elif quote:
            continue
        elif char in _OPEN_CLOSE:
            closers.append(_OPEN_CLOSE[char])
        elif closers and char == closers[-1]:
            closers.pop()
        elif char == "|" and not closers:
            pipe = not pipe
        elif char == ";" and not closers and not pipe:
            yield start, text[start:index]
            start = index + 1
    yield start, text[start:]


def _open_quote(text: str) -> bool:
    return text.count('"') % 2 == 1


def split_flowchart(text: str) -> tuple[Header, list[Statement]]:
    """Split a flowchart text into its header and statements (raises MermaidError)."""
    preamble = take_preamble(text)
    lines = _physical_lines(preamble.text)
    front_matter, index = preamble.front_matter, 0
    header: Header | None = None
    statements: list[Statement] = []
    while index < len(lines):
        line_no = index + 1
        raw = lines[index]
        index += 1
        trimmed = raw.strip()
        if not trimmed or trimmed.startswith("%%"):
            continue
        column = len(raw) - len(raw.lstrip()) + 1
        if header is None:
            direction, rest = _parse_header(trimmed, line_no)
            header = Header(front_matter, direction, line_no, preamble.directives)
            if not rest.strip():
                continue
            column += len(trimmed) - len(rest)
            trimmed = rest
        acc = ACC_START.match(trimmed)
        if acc is not None:
            # accTitle/accDescr run to the end of the line (`;` included), `accDescr {` to '}'.
            while acc.group(2) == "{" and "}" not in trimmed and index < len(lines):
                trimmed += "\n" + lines[index].strip()
                index += 1
            statements.append(Statement(trimmed, line_no, column))
            continue
        # A quoted string may continue on the next physical lines (markdown strings do).
        while _open_quote(trimmed) and index < len(lines):
            trimmed = trimmed + "\n" + lines[index].strip()
            index += 1
        if _open_quote(trimmed):
            raise MermaidError(
                "UnclosedString",
                f"unclosed string on line {line_no}: {trimmed.splitlines()[0]}",
                line=line_no,
                column=column + trimmed.find('"'),
                text=trimmed,
                expected="a closing '\"'",
            )
        if ";" not in trimmed:
            statements.append(Statement(trimmed, line_no, column))
            continue
        for offset, piece in split_statements(trimmed):
            stripped = piece.strip()
            if stripped:
                lead = len(piece) - len(piece.lstrip())
                statements.append(Statement(stripped, line_no, column + offset + lead))
    if header is None:
        raise MermaidError(
            "MissingHeader",
            "expected 'flowchart' as the first non-empty line",
            expected="'flowchart' or 'graph'",
        )
    return header, statements
