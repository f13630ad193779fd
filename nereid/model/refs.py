"""ObjectRef: the canonical reference to one object inside one diagram (model.md §3).

`d:<diagram id>/<category segments...>/<object id>`. Parsing reproduces the spec's error
precedence exactly; ordering is by (diagram id, category tuple, object id), not by the string.
"""

from __future__ import annotations

from typing import Final

import msgspec

from nereid.model.ids import IdError, check_id

__all__ = [
    "CATEGORIES",
    "FLOW_EDGE",
    "FLOW_NODE",
    "FLOW_NOTE",
    "FLOW_SUBGRAPH",
    "ObjectRef",
    "ObjectRefError",
    "SEQ_ACTIVATION",
    "SEQ_BLOCK",
    "SEQ_MESSAGE",
    "SEQ_NOTE",
    "SEQ_PARTICIPANT",
    "SEQ_SECTION",
    "STATE_STATE",
    "STATE_TRANSITION",
    "parse_ref",
    "ref_sort_key",
]

SEQ_PARTICIPANT: Final = ("seq", "participant")
SEQ_MESSAGE: Final = ("seq", "message")
SEQ_BLOCK: Final = ("seq", "block")
SEQ_SECTION: Final = ("seq", "section")
SEQ_NOTE: Final = ("seq", "note")
SEQ_ACTIVATION: Final = ("seq", "activation")
FLOW_NODE: Final = ("flow", "node")
FLOW_EDGE: Final = ("flow", "edge")
FLOW_SUBGRAPH: Final = ("flow", "subgraph")
FLOW_NOTE: Final = ("flow", "note")
STATE_STATE: Final = ("state", "state")
STATE_TRANSITION: Final = ("state", "transition")

#: Resolvable categories and the diagram kind they belong to. `seq/note`, `seq/activation` and
#: `flow/subgraph` are Nereid's additions (see docs/model.md); `flow/note` stays render-only.
CATEGORIES: Final[dict[tuple[str, ...], str]] = {
    SEQ_PARTICIPANT: "sequence",
    SEQ_MESSAGE: "sequence",
    SEQ_BLOCK: "sequence",
    SEQ_SECTION: "sequence",
    SEQ_NOTE: "sequence",
    SEQ_ACTIVATION: "sequence",
    FLOW_NODE: "flowchart",
    FLOW_EDGE: "flowchart",
    FLOW_SUBGRAPH: "flowchart",
    STATE_STATE: "state",
    STATE_TRANSITION: "state",
}


class ObjectRefError(ValueError):
    """A string that is not an ObjectRef; `kind` names the first rule it broke."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


class ObjectRef(msgspec.Struct, frozen=True, order=False):
    """One object of one diagram. Equality is field-wise; use `sort_key()` for ordering."""

    diagram_id: str
    category: tuple[str, ...]
    object_id: str

    def __str__(self) -> str:
        return f"d:{self.diagram_id}/{'/'.join(self.category)}/{self.object_id}"

    def format(self) -> str:
        """The canonical text form (parse(format(r)) == r)."""
        return str(self)

    def sort_key(self) -> tuple[str, tuple[str, ...], str]:
        """The canonical ordering (model.md §3.3)."""
        return (self.diagram_id, self.category, self.object_id)

    def __lt__(self, other: ObjectRef) -> bool:
        return self.sort_key() < other.sort_key()

    @classmethod
    def of(cls, diagram_id: str, category: tuple[str, ...], object_id: str) -> ObjectRef:
        """Build a ref from parts, validating the ids."""
        check_id(diagram_id)
        check_id(object_id)
        if not category or any(seg == "" for seg in category):
            raise ObjectRefError(
                "InvalidCategory",
                "invalid category path: category path must not contain empty segments",
            )
        return cls(diagram_id=diagram_id, category=tuple(category), object_id=object_id)


def ref_sort_key(ref: ObjectRef) -> tuple[str, tuple[str, ...], str]:
    """Key function for sorting refs canonically."""
    return ref.sort_key()


def parse_ref(text: str) -> ObjectRef:
    """Parse an ObjectRef, reporting the first broken rule exactly as model.md §3.2 orders them."""
    if not text.startswith("d:"):
        raise ObjectRefError("MissingPrefix", "object ref must start with 'd:'")
    rest = text[2:]
    diagram_id, slash, right = rest.partition("/")
    if not slash:
        raise ObjectRefError("MissingCategory", "object ref is missing category path")
    if diagram_id == "":
        raise ObjectRefError("MissingDiagramId", "object ref is missing diagram id")
    try:
        check_id(diagram_id)
    except IdError as err:  # pragma: no cover - a slash cannot be in the left part
        raise ObjectRefError("InvalidDiagramId", f"invalid diagram id: {err}") from None
    if right == "":
        raise ObjectRefError("MissingCategory", "object ref is missing category path")
    category_text, slash, object_id = right.rpartition("/")
    if not slash:
        raise ObjectRefError("MissingObjectId", "object ref is missing object id")
    if category_text == "":
        raise ObjectRefError("MissingCategory", "object ref is missing category path")
    if object_id == "":
        raise ObjectRefError("MissingObjectId", "object ref is missing object id")
    segments = tuple(category_text.split("/"))
    if any(seg == "" for seg in segments):
        raise ObjectRefError(
            "InvalidCategory",
            "invalid category path: category path must not contain empty segments",
        )
    try:
        check_id(object_id)
    except IdError as err:  # pragma: no cover - rpartition leaves no slash on the right
        raise ObjectRefError("InvalidObjectId", f"invalid object id: {err}") from None
    return ObjectRef(diagram_id=diagram_id, category=segments, object_id=object_id)
