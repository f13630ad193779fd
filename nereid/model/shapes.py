"""Flowchart node shapes: the names the model stores and how Mermaid spells them.

Classic bracket shapes use the names fixed by spec decision 16 (mermaid.md §14.2); the Mermaid
v11 `A@{ shape: ... }` catalogue maps its aliases onto those names where the shape is the same,
and keeps Mermaid's short name otherwise.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "ATTRIBUTE_SHAPES",
    "BRACKET_SHAPES",
    "SHAPES",
    "V11_ALIASES",
    "canonical_shape",
]

#: Shape name -> (opening, closing) brackets of the classic Mermaid syntax.
BRACKET_SHAPES: Final[dict[str, tuple[str, str]]] = {
    "rect": ("[", "]"),
    "round": ("(", ")"),
    "diamond": ("{", "}"),
    "circle": ("((", "))"),
    "double_circle": ("(((", ")))"),
    "stadium": ("([", "])"),
    "subroutine": ("[[", "]]"),
    "cylindrical": ("[(", ")]"),
    "hexagon": ("{{", "}}"),
    "asymmetric": (">", "]"),
    "parallelogram": ("[/", "/]"),
    "parallelogram_alt": ("[\\", "\\]"),
    "trapezoid": ("[/", "\\]"),
    "trapezoid_alt": ("[\\", "/]"),
}

#: Mermaid v11 shape names (and aliases) -> the model's shape name.
V11_ALIASES: Final[dict[str, str]] = {
    # shapes that also have a bracket form
    "rect": "rect", "proc": "rect", "process": "rect", "rectangle": "rect",
    "rounded": "round", "event": "round",
    "diam": "diamond", "decision": "diamond", "diamond": "diamond", "question": "diamond",
    "circle": "circle", "circ": "circle",
    "dbl-circ": "double_circle", "double-circle": "double_circle",
    "stadium": "stadium", "pill": "stadium", "terminal": "stadium",
    "fr-rect": "subroutine", "framed-rectangle": "subroutine", "subproc": "subroutine",
    "subprocess": "subroutine", "subroutine": "subroutine",
    "cyl": "cylindrical", "cylinder": "cylindrical", "database": "cylindrical", "db": "cylindrical",
    "hex": "hexagon", "hexagon": "hexagon", "prepare": "hexagon",
    "odd": "asymmetric",
    "lean-r": "parallelogram", "lean-right": "parallelogram", "in-out": "parallelogram",
    "lean-l": "parallelogram_alt", "lean-left": "parallelogram_alt", "out-in": "parallelogram_alt",
    "trap-b": "trapezoid", "trapezoid-bottom": "trapezoid", "priority": "trapezoid",
    "trapezoid": "trapezoid",
    "trap-t": "trapezoid_alt", "trapezoid-top": "trapezoid_alt", "inv-trapezoid": "trapezoid_alt",
    "manual": "trapezoid_alt",
    # shapes only the v11 syntax can write (kept under Mermaid's short name)
    "notch-rect": "notch-rect", "card": "notch-rect", "notched-rectangle": "notch-rect",
    "hourglass": "hourglass", "collate": "hourglass",
    "bolt": "bolt", "com-link": "bolt", "lightning-bolt": "bolt",
    "brace": "brace", "brace-l": "brace", "comment": "brace",
    "brace-r": "brace-r",
    "braces": "braces",
    "delay": "delay", "half-rounded-rectangle": "delay",
    "h-cyl": "h-cyl", "das": "h-cyl", "horizontal-cylinder": "h-cyl",
    "lin-cyl": "lin-cyl", "disk": "lin-cyl", "lined-cylinder": "lin-cyl",
    "curv-trap": "curv-trap", "curved-trapezoid": "curv-trap", "display": "curv-trap",
    "div-rect": "div-rect", "div-proc": "div-rect", "divided-process": "div-rect",
    "divided-rectangle": "div-rect",
    "doc": "doc", "document": "doc",
    "tri": "tri", "extract": "tri", "triangle": "tri",
    "fork": "fork", "join": "fork",
    "win-pane": "win-pane", "internal-storage": "win-pane", "window-pane": "win-pane",
    "f-circ": "f-circ", "filled-circle": "f-circ", "junction": "f-circ",
    "lin-doc": "lin-doc", "lined-document": "lin-doc",
    "lin-rect": "lin-rect", "lin-proc": "lin-rect", "lined-process": "lin-rect",
    "lined-rectangle": "lin-rect", "shaded-process": "lin-rect",
    "notch-pent": "notch-pent", "loop-limit": "notch-pent", "notched-pentagon": "notch-pent",
    "flip-tri": "flip-tri", "flipped-triangle": "flip-tri", "manual-file": "flip-tri",
    "sl-rect": "sl-rect", "manual-input": "sl-rect", "sloped-rectangle": "sl-rect",
    "docs": "docs", "documents": "docs", "st-doc": "docs", "stacked-document": "docs",
    "st-rect": "st-rect", "processes": "st-rect", "procs": "st-rect",
    "stacked-rectangle": "st-rect",
    "flag": "flag", "paper-tape": "flag",
    "sm-circ": "sm-circ", "small-circle": "sm-circ", "start": "sm-circ",
    "fr-circ": "fr-circ", "framed-circle": "fr-circ", "stop": "fr-circ",
    "bow-rect": "bow-rect", "bow-tie-rectangle": "bow-rect", "stored-data": "bow-rect",
    "cross-circ": "cross-circ", "crossed-circle": "cross-circ", "summary": "cross-circ",
    "tag-doc": "tag-doc", "tag-document": "tag-doc",
    "tag-rect": "tag-rect", "tag-proc": "tag-rect", "tagged-process": "tag-rect",
    "tagged-rectangle": "tag-rect",
    "text": "text",
    "datastore": "datastore",
    # Mermaid's internal aliases (older names its shape table still accepts)
    "squareRect": "rect", "roundedRect": "round", "lean_right": "parallelogram",
    "lean_left": "parallelogram_alt", "inv_trapezoid": "trapezoid_alt",
    "doublecircle": "double_circle", "stateStart": "sm-circ", "stateEnd": "fr-circ",
    "forkJoin": "fork", "rect_left_inv_arrow": "asymmetric",
    # shapes Mermaid's table holds without documenting them (kept under their own name)
    "state": "state", "choice": "choice", "note": "note", "rectWithTitle": "rectWithTitle",
    "labelRect": "labelRect", "anchor": "anchor", "kanbanItem": "kanbanItem",
    "classBox": "classBox",
}  # fmt: skip

#: Shapes Mermaid v11 selects by an attribute rather than by `shape:` (`A@{ icon: "fa:user" }`,
#: `A@{ img: "https://..." }`): shape name -> (the key that selects it, the other keys it takes
#: besides `label`). A node of these shapes keeps the attribute values in `FlowNode.attrs`.
ATTRIBUTE_SHAPES: Final[dict[str, tuple[str, frozenset[str]]]] = {
    "icon": ("icon", frozenset({"form", "pos", "h"})),
    "image": ("img", frozenset({"pos", "w", "h", "constraint"})),
}

#: Every shape name the model may hold.
SHAPES: Final[frozenset[str]] = (
    frozenset(BRACKET_SHAPES) | frozenset(V11_ALIASES.values()) | frozenset(ATTRIBUTE_SHAPES)
)


def canonical_shape(name: str) -> str | None:
    """The model's name for a shape given as a model name or a Mermaid v11 alias; None if unknown.

    The attribute shapes (`icon`, `image`) are None too: a node of those shapes is written with
    its attributes (the icon name, the image URL), so a shape name alone cannot make one.
    """
    if name in ATTRIBUTE_SHAPES:
        return None
    if name in SHAPES:
        return name
    return V11_ALIASES.get(name)
