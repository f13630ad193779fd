"""Node shapes and labels as written in Mermaid: reading one shape token, writing one back.

Reading and writing share the tables below, and the writer checks its output with the reader,
so a label is written unquoted only when reading it back gives the same shape and label.
Labels are stored as a person reads them (spec decision 16): surrounding quotes are removed;
entity codes (`#quot;`), `<br/>` and markdown backticks are kept verbatim. A markdown string
`"`**x**`"` keeps its backticks in the label, which is how the exporter knows to quote it again.
"""

from __future__ import annotations

import re
from typing import Final

from nereid.model.shapes import BRACKET_SHAPES
from nereid.model.writable import flow_label_problem

__all__ = [
    "LabelError",
    "check_quotable",
    "decode_edge_label",
    "decode_quoted",
    "decode_shape",
    "encode_edge_label",
    "encode_shape",
    "encode_title",
]


class LabelError(ValueError):
    """A shape or label that cannot be read or written; the message says why."""


# Same order as the SHAPE terminal in flowchart.lark: longest opener first.
_SHAPE_ORDER: Final = (
    "double_circle",
    "circle",
    "stadium",
    "round",
    "subroutine",
    "cylindrical",
    "parallelogram",
    "trapezoid",
    "parallelogram_alt",
    "trapezoid_alt",
    "rect",
    "hexagon",
    "diamond",
    "asymmetric",
)

#: Characters Mermaid reads as syntax inside unquoted text: such labels are written quoted.
_SPECIAL: Final = frozenset("[](){}|;")

_QUOTED: Final = re.compile(r'\s*"([^"]*)"\s*', re.DOTALL)


def _inner_pattern(closer: str) -> str:
    if closer in ("/]", "\\]"):
        # Mermaid's trapezoid text: a `/` or `\\` counts as text unless a `]` follows.
        return r'(?:[^"\]/\\]|[/\\](?!\]))*'
    return r"[^" + re.escape(closer[0]) + r'"]*'


_SHAPE_RES: Final = tuple(
    (
        name,
        re.compile(
            re.escape(BRACKET_SHAPES[name][0])
            + r'(\s*"[^"]*"\s*|'
            + _inner_pattern(BRACKET_SHAPES[name][1])
            + r")"
            + re.escape(BRACKET_SHAPES[name][1]),
            re.DOTALL,
        ),
    )
    for name in _SHAPE_ORDER
)


def decode_quoted(text: str) -> str | None:
    """The content of a quoted string (quotes removed, nothing else), or None if not quoted."""
    match = _QUOTED.fullmatch(text)
    return None if match is None else match.group(1)


def _label_of(inner: str, opener: str = "") -> str:
    """The label of a shape's (or pipe label's) inner text.

    A blank label is kept as written (`A(( ))` is labelled " ", as Mermaid reads it); only
    an empty one is refused, as Mermaid does.
    """
    quoted = decode_quoted(inner)
    if quoted is not None:
        label = quoted
    else:
        label = inner.strip() or inner
        if len(label) >= 2 and label.startswith("`") and label.endswith("`"):
            raise LabelError('a markdown string must be quoted: write "`...`"')
        if "\n" in label:
            raise LabelError("a label over several lines must be quoted")
        if '"' in label:
            raise LabelError("a '\"' inside a label must be written as #quot;")
        if opener == "[" and label[:1] in ("/", "\\"):
            raise LabelError(
                f"'[{label[0]}' opens a parallelogram or trapezoid, which ends with '/]' or "
                f"'\\]'; quote the label to start it with '{label[0]}'"
            )
    if not label:
        raise LabelError("empty label")
    problem = flow_label_problem(label)
    if problem is not None:
        raise LabelError(problem)
    return label


def decode_shape(token: str) -> tuple[str, str]:
    """Shape name and label of a bracket token such as `((Hub))` or `["a [b]"]`."""
    for name, pattern in _SHAPE_RES:
        match = pattern.fullmatch(token)
        if match is not None:
            return name, _label_of(match.group(1), BRACKET_SHAPES[name][0])
    raise LabelError(f"not a node shape: {token}")


def _needs_quotes(label: str) -> bool:
    return (
        label != label.strip()
        or label[:1] in ("/", "\\")
        or "\n" in label
        or any(char in label for char in _SPECIAL)
        or (label.startswith("`") and label.endswith("`") and len(label) >= 2)
    )


def check_quotable(label: str) -> None:
    """Raise LabelError unless `label` may be written (quoted): the model's label rule."""
    problem = flow_label_problem(label)
    if problem is not None:
        raise LabelError(problem)


def encode_shape(shape: str, label: str) -> str:
    """The bracket form of a node shape with its label (quoted only where needed)."""
    opener, closer = BRACKET_SHAPES[shape]
    if not _needs_quotes(label):
        plain = f"{opener}{label}{closer}"
        try:
            if decode_shape(plain) == (shape, label):
                return plain
        except LabelError:
            pass
    check_quotable(label)
    quoted = f'{opener}"{label}"{closer}'
    if decode_shape(quoted) != (shape, label):
        raise LabelError("cannot be written back unchanged")
    return quoted


def encode_edge_label(label: str) -> str:
    """`|label|`, or `|"label"|` where the plain form would read back differently."""
    if not _needs_quotes(label) and "|" not in label and label.strip():
        quoted = decode_quoted(label)
        if quoted is None:
            return f"|{label}|"
    check_quotable(label)
    return f'|"{label}"|'


def decode_edge_label(inner: str) -> str:
    """The label of a pipe label's inner text (between the `|`)."""
    return _label_of(inner)


def encode_title(title: str) -> str:
    """A subgraph title as ` [title]` or `["title"]`."""
    if not _needs_quotes(title) and not any(c in title for c in '[]"') and title.strip():
        return f"[{title}]"
    check_quotable(title)
    return f'["{title}"]'
