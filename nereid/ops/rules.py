"""Value rules that keep every diagram exportable as Mermaid (spec decision 9).

Each check raises an NereidError naming the field, the value and why; text values come back
trimmed (Mermaid trims them on import, so storing them untrimmed would change on reload).
What a text may hold is decided by `nereid.model.writable`, the rules the importer and the
exporter use too (spec decision 18).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, Literal

from nereid.errors import InvalidParams
from nereid.model import (
    ARROW_KINDS,
    CANONICAL_ARROW,
    DIRECTIONS,
    PARTICIPANT_ROLES,
    LinkSpec,
    MessageKind,
    canonical_shape,
    mermaid_ident_problem,
    node_ident_problem,
    parse_connector,
)
from nereid.model.ids import subgraph_id_problem
from nereid.model.shapes import ATTRIBUTE_SHAPES, SHAPES
from nereid.model.writable import (
    Unwritable,
    flow_label_problem,
    note_problem,
    sequence_text_problem,
    style_problem,
)
from nereid.ops.errors import invalid_value

__all__ = [
    "FLOW_KEYWORDS",
    "SEQ_KEYWORDS",
    "SUBGRAPH_KEYWORDS",
    "check_direction",
    "check_note",
    "check_flow_ident",
    "node_name_problem",
    "check_role",
    "check_seq_name",
    "check_shape",
    "clean_label",
    "clean_seq_text",
    "clean_style",
    "flow_ident_problem",
    "normalize_connector",
    "parse_arrow",
    "refuse_unwritable",
    "subgraph_ident_problem",
]

#: An example value of each attribute that selects an attribute shape (for error messages).
_ATTRIBUTE_EXAMPLES: Final = {"icon": "fa:user", "img": "https://example.com/a.png"}

#: Words a flowchart line cannot start with as a node id (mermaid.md §11; case-sensitive).
FLOW_KEYWORDS: Final = frozenset(
    {"end", "subgraph", "class", "style", "link", "click", "links", "classDef", "linkStyle",
     "flowchart", "graph"}
)  # fmt: skip
#: Words a subgraph id cannot be besides FLOW_KEYWORDS: after `subgraph` they open a statement
#: of their own, so the exporter refuses them there (a node may still use them, bracketed).
SUBGRAPH_KEYWORDS: Final = FLOW_KEYWORDS | {"direction", "accTitle", "accDescr"}
#: Sequence keywords; Mermaid's sequence lexer is case-insensitive, so these are compared
#: in lower case.
SEQ_KEYWORDS: Final = frozenset(
    {"participant", "actor", "loop", "alt", "else", "opt", "par", "and", "rect", "critical",
     "option", "break", "end", "note", "activate", "deactivate", "autonumber", "title", "box",
     "create", "destroy", "link", "links", "properties", "details", "par_over", "over", "off",
     "sequencediagram"}
)  # fmt: skip


def _clean_line(field: str, value: str) -> str:
    text = value.strip()
    if text == "":
        raise invalid_value(field, value, "must not be empty")
    if "\n" in text or "\r" in text:
        raise invalid_value(field, value, "must not contain a line break")
    return text


def _checked(field: str, value: str, rule: Callable[[str], str | None]) -> str:
    """`value` trimmed, if `rule` (a `nereid.model.writable` rule) lets it be written back."""
    text = value.strip()
    problem = rule(text)
    if problem is not None:
        raise invalid_value(field, value, problem)
    return text


def clean_label(field: str, value: str) -> str:
    """A flowchart node/edge label or subgraph title (`flow_label_problem`)."""
    return _checked(field, _clean_line(field, value), flow_label_problem)


def clean_seq_text(field: str, value: str) -> str:
    """Sequence text: message, note, alias, header, title (`sequence_text_problem`)."""
    return _checked(field, value, sequence_text_problem)


def clean_style(field: str, value: str) -> str:
    """A style payload such as `fill:#f9f,stroke:#333` (`style_problem`)."""
    return _checked(field, value, style_problem)


def refuse_unwritable(problem: Unwritable | None) -> None:
    """The batch-end guard: a value no set-site check caught is still refused, not saved.

    `problem` comes from `flowchart_problem` / `sequence_problem` over the touched objects.
    """
    if problem is not None:
        raise invalid_value(
            problem.field,
            problem.value,
            problem.describe(),
            object_id=problem.object_id,
            category=problem.category,
        )


def check_note(field: str, value: str) -> str:
    """A side-car note, kept verbatim (`note_problem`)."""
    problem = note_problem(value)
    if problem is not None:
        raise invalid_value(field, value, problem)
    return value


def flow_ident_problem(name: str) -> str | None:
    """Why `name` cannot be a flowchart id (node, subgraph, class), or None."""
    problem = mermaid_ident_problem(name)
    if problem is None and name in FLOW_KEYWORDS:
        problem = "is a reserved Mermaid word"
    return problem


def node_name_problem(name: str) -> str | None:
    """Why `name` cannot be a flowchart node's Mermaid id (`api-gw`, `a.b` are fine), or None."""
    problem = node_ident_problem(name)
    if problem is None and name in FLOW_KEYWORDS:
        problem = "is a reserved Mermaid word"
    return problem


def subgraph_ident_problem(name: str) -> str | None:
    """Why `name` cannot be a subgraph's Mermaid id (`subgraph <id>`), or None.

    Wider than a node id: letters of any script, `-` and `.` are allowed (model.md §2.3).
    An edge end, a `style` or a `class` target needs a node id: see `node_name_problem`.
    """
    problem = subgraph_id_problem(name)
    if problem is None and name in SUBGRAPH_KEYWORDS:
        problem = "is a reserved Mermaid word"
    return problem


def check_flow_ident(field: str, value: str) -> str:
    """A flowchart identifier such as a class name (model.md §2.3 plus keywords)."""
    problem = flow_ident_problem(value)
    if problem is not None:
        raise invalid_value(field, value, problem)
    return value


def check_seq_name(value: str) -> str:
    """A participant's Mermaid name: an identifier that is not a sequence keyword."""
    problem = mermaid_ident_problem(value)
    if problem is None and value.lower() in SEQ_KEYWORDS:
        problem = "is a reserved Mermaid word"
    if problem is not None:
        raise invalid_value("mermaid_name", value, problem)
    return value


def check_shape(value: str) -> str:
    """The model's name for a shape (a model name or a Mermaid v11 alias).

    The attribute shapes (`icon`, `image`) are refused with the reason: such a node needs its
    `icon` / `img` attribute, which only Mermaid text can give it.
    """
    name = value.strip()
    if name in ATTRIBUTE_SHAPES:
        key = ATTRIBUTE_SHAPES[name][0]
        raise invalid_value(
            "shape",
            value,
            f"an {name} node needs its '{key}' attribute, which ops cannot set: write the node "
            f'in Mermaid text (e.g. A@{{ {key}: "{_ATTRIBUTE_EXAMPLES[key]}" }})',
        )
    shape = canonical_shape(name)
    if shape is None:
        known = ", ".join(sorted(SHAPES - frozenset(ATTRIBUTE_SHAPES)))
        raise invalid_value(
            "shape", value, f"unknown shape (one of {known}; Mermaid v11 aliases work too)"
        )
    return shape


def check_direction(value: str) -> str:
    if value not in DIRECTIONS:
        raise invalid_value("direction", value, f"must be one of {', '.join(DIRECTIONS)}")
    return value


def check_role(value: str) -> str:
    if value not in PARTICIPANT_ROLES:
        raise invalid_value("role", value, f"must be one of {', '.join(PARTICIPANT_ROLES)}")
    return value


def normalize_connector(value: str) -> LinkSpec:
    """The link of a connector string (ops.md §6.2 normalisation, then Mermaid's link grammar).

    Empty means `-->`. A left-pointing token (`<` without `>`) is turned to point right
    without swapping the endpoints, as the reference does: `<--` -> `-->`, `<--o` -> `-->o`.
    """
    text = value.strip()
    if text == "":
        return LinkSpec()
    if "<" in text and ">" not in text:
        text = text.replace("<", "")
        text = text[:-1] + ">" + text[-1] if text[-1:] in ("o", "x") else text + ">"
    try:
        return parse_connector(text)
    except ValueError as err:
        raise invalid_value("connector", value, str(err)) from None


def parse_arrow(value: str, kind: MessageKind) -> tuple[str | None, Literal["+", "-"] | None]:
    """Split the contract's `arrow` into (stored token or None if canonical, activation).

    The token must be one of Mermaid's ten sequence arrows and must make `kind`; a `+` / `-`
    right after it is the activation marker. Empty means the canonical arrow of `kind`.
    """
    text = value.strip()
    if text == "":
        return None, None
    token = text
    activation: Literal["+", "-"] | None = None
    if token not in ARROW_KINDS and token[:-1] in ARROW_KINDS:
        if token.endswith("+"):
            token, activation = token[:-1], "+"
        elif token.endswith("-"):
            token, activation = token[:-1], "-"
    arrow_kind = ARROW_KINDS.get(token)
    if arrow_kind is None:
        raise invalid_value(
            "arrow", value, f"not a Mermaid sequence arrow (one of {', '.join(ARROW_KINDS)})"
        )
    if arrow_kind != kind:
        raise InvalidParams(
            "arrow does not match message kind",
            {"arrow": value, "kind": kind, "arrow_kind": arrow_kind},
        )
    return (None if token == CANONICAL_ARROW[kind] else token), activation
