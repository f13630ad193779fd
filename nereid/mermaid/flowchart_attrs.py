"""Mermaid v11 attribute blocks `X@{ key: value, ... }`: reading them for nodes and edges.

The same block means different things by what `X` names: on a node it sets the shape and the
label (`shape:`, `label:`) or makes an icon / image node (`icon:` / `img:` with their extra
keys); on an edge id it sets edge attributes (`animate`, `animation`, `curve`). Values other
than a node's label are kept as written (quotes included), so export gives the same text back;
the writer checks every value with the reader before writing it.
"""

from __future__ import annotations

import re
from typing import Final

from nereid.mermaid.flowchart_labels import decode_quoted
from nereid.model.shapes import ATTRIBUTE_SHAPES, canonical_shape
from nereid.model.writable import attribute_problem, flow_label_problem

__all__ = [
    "EDGE_ATTRIBUTES",
    "AttrError",
    "NodeAttrs",
    "encode_edge_attrs",
    "encode_node_attrs",
    "read_edge_attrs",
    "read_node_attrs",
    "split_attr_pairs",
]

#: The keys Mermaid v11 reads on an edge id.
EDGE_ATTRIBUTES: Final = frozenset({"animate", "animation", "curve"})

_ITEM: Final = re.compile(r'\s*([A-Za-z_][\w-]*)\s*:\s*("[^"]*"|[^,"]*?)\s*(?:,|$)', re.DOTALL)
_VALUE: Final = re.compile(r'"[^"\n]*"|[^",}\s](?:[^",}\n]*[^",}\s])?')


class AttrError(ValueError):
    """An attribute block that cannot be read: the error kind, what is wrong, what is expected."""

    def __init__(self, kind: str, detail: str, expected: str) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.expected = expected


NodeAttrs = tuple[str | None, str | None, dict[str, str] | None]
"""(shape, label, extra attributes) read from a node's block; None where not given."""


def split_attr_pairs(body: str) -> tuple[tuple[str, str], ...]:
    """`key: value` pairs of a block's body (between `@{` and `}`), values as written."""
    pairs: list[tuple[str, str]] = []
    position = 0
    while position < len(body):
        match = _ITEM.match(body, position)
        if match is None or match.end() == position:
            raise AttrError(
                "InvalidNodeAttributes",
                f"cannot read '{body[position:].strip()}'",
                "'key: value' pairs separated by ','",
            )
        position = match.end()
        pairs.append((match.group(1), match.group(2).strip()))
    return tuple(pairs)


def _text(raw: str) -> str:
    quoted = decode_quoted(raw)
    return quoted if quoted is not None else raw.strip()


def _check_value(key: str, raw: str) -> None:
    if not _VALUE.fullmatch(raw):
        raise AttrError(
            "InvalidNodeAttributes",
            f"attribute '{key}' has an empty or unreadable value",
            "a value",
        )
    problem = attribute_problem(raw)
    if problem is not None:
        raise AttrError("InvalidNodeAttributes", f"attribute '{key}' {problem}", "a value")


def read_node_attrs(pairs: tuple[tuple[str, str], ...], node_id: str) -> NodeAttrs:
    """Shape, label and extra attributes of a node block (raises AttrError)."""
    keys = [key for key, _ in pairs]
    if len(set(keys)) != len(keys):
        twice = next(key for key in keys if keys.count(key) > 1)
        raise AttrError(
            "InvalidNodeAttributes", f"attribute '{twice}' is given twice", "each key once"
        )
    selected = [name for name, (key, _) in ATTRIBUTE_SHAPES.items() if key in keys]
    if len(selected) > 1 or (selected and "shape" in keys):
        raise AttrError(
            "InvalidNodeAttributes",
            f"node '{node_id}' gives more than one of 'shape', 'icon' and 'img'",
            "one of 'shape', 'icon' or 'img'",
        )
    shape: str | None = selected[0] if selected else None
    allowed = {"shape", "label"}
    if shape is not None:
        key, others = ATTRIBUTE_SHAPES[shape]
        allowed = {"label", key, *others}
    label: str | None = None
    extra: dict[str, str] = {}
    for key, raw in pairs:
        if key not in allowed:
            hint = (
                " (edge attributes go on an edge id declared above)"
                if (key in EDGE_ATTRIBUTES)
                else ""
            )
            raise AttrError(
                "UnsupportedNodeAttribute",
                f"node attribute '{key}' is not supported here{hint}",
                "one of " + ", ".join(f"'{name}'" for name in sorted(allowed)),
            )
        value = _text(raw)
        if key == "shape":
            shape = canonical_shape(value)
            if shape is None:
                raise AttrError(
                    "UnknownShape", f"unknown shape '{value}' for node '{node_id}'",
                    "a Mermaid shape name",
                )  # fmt: skip
        elif key == "label":
            if not value.strip():
                raise AttrError("EmptyNodeLabel", "empty label", "a label")
            problem = flow_label_problem(value)
            if problem is not None:
                raise AttrError("InvalidNodeLabel", problem, "a label Mermaid can hold")
            label = value
        else:
            _check_value(key, raw)
            extra[key] = raw
    return shape, label, extra or None


def read_edge_attrs(pairs: tuple[tuple[str, str], ...], edge_id: str) -> dict[str, str]:
    """The attributes of an edge block `e1@{ animate: true }` (raises AttrError)."""
    result: dict[str, str] = {}
    for key, raw in pairs:
        if key not in EDGE_ATTRIBUTES:
            raise AttrError(
                "UnsupportedEdgeAttribute",
                f"edge attribute '{key}' of edge '{edge_id}' is not supported",
                "one of " + ", ".join(f"'{name}'" for name in sorted(EDGE_ATTRIBUTES)),
            )
        _check_value(key, raw)
        result[key] = raw
    return result


def encode_node_attrs(shape: str, label: str | None, attrs: dict[str, str]) -> str:
    """`@{ icon: "fa:user", form: "square", label: "User" }` for an icon / image node.

    `label` None leaves the label out (it is the node id). Raises AttrError when a value
    would not read back unchanged or the shape's selecting key is missing.
    """
    key, others = ATTRIBUTE_SHAPES[shape]
    if key not in attrs:
        raise AttrError("InvalidNodeAttributes", f"a '{shape}' node needs '{key}'", f"'{key}'")
    items = [(key, attrs[key])]
    for name, raw in attrs.items():
        if name == key:
            continue
        if name not in others:
            raise AttrError(
                "UnsupportedNodeAttribute",
                f"attribute '{name}' does not belong to a '{shape}' node",
                ", ".join(sorted(others)),
            )
        items.append((name, raw))
    for name, raw in items:
        _check_value(name, raw)
    if label is not None:
        items.append(("label", f'"{label}"'))
    return "@{ " + ", ".join(f"{name}: {raw}" for name, raw in items) + " }"


def encode_edge_attrs(attrs: dict[str, str]) -> str:
    """`@{ animate: true, curve: linear }` (raises AttrError for unknown keys / bad values)."""
    if not attrs:
        raise AttrError("InvalidEdgeAttributes", "no attributes", "at least one attribute")
    for name, raw in attrs.items():
        if name not in EDGE_ATTRIBUTES:
            raise AttrError(
                "UnsupportedEdgeAttribute", f"edge attribute '{name}' is not supported",
                ", ".join(sorted(EDGE_ATTRIBUTES)),
            )  # fmt: skip
        _check_value(name, raw)
    return "@{ " + ", ".join(f"{name}: {raw}" for name, raw in attrs.items()) + " }"
