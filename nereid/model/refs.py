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
    "make_ref",
    "parse_ref",
    "ref_dec_hook",
    "ref_from_text",
    "ref_enc_hook",
    "ref_schema_hook",
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
    """A string that is not an ObjectRef; `kind` names the first rule it broke, `text` is the
    string (when it came from one: `parse_ref`)."""

    def __init__(self, kind: str, message: str, text: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.text = text


_new_str: Final = str.__new__
_set: Final = object.__setattr__
_text: Final = str.__str__


class ObjectRef(str):
    """One object of one diagram, which IS its canonical text (`d:<diagram>/<category>/<id>`).

    A `str` so that every msgspec codec carries it as that text (`ref_enc_hook` /
    `ref_dec_hook`, `ref_schema_hook`: a JSON string) and it needs no text twin on the wire.
    Equality and hashing are the text's: for ids without `/` (`check_id`), text and parts
    determine each other, so that is the field-wise equality. Ordering is by `sort_key()`
    (diagram id, category tuple, object id), never by the text. Immutable.
    """

    diagram_id: str
    category: tuple[str, ...]
    object_id: str

    def __new__(cls, diagram_id: str, category: tuple[str, ...], object_id: str) -> ObjectRef:
        return make_ref(diagram_id, category, object_id)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("immutable type: 'ObjectRef'")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("immutable type: 'ObjectRef'")

    def __reduce__(self) -> tuple[type[ObjectRef], tuple[str, tuple[str, ...], str]]:
        return (ObjectRef, (self.diagram_id, self.category, self.object_id))

    def __repr__(self) -> str:
        return (
            f"ObjectRef(diagram_id={self.diagram_id!r}, category={self.category!r}, "
            f"object_id={self.object_id!r})"
        )

    def __str__(self) -> str:
        return _text(self)

    def format(self) -> str:  # type: ignore[override]  # str.format: ours takes no arguments
        """The canonical text form (parse(format(r)) == r)."""
        return _text(self)

    def sort_key(self) -> tuple[str, tuple[str, ...], str]:
        """The canonical ordering (model.md §3.3)."""
        return (self.diagram_id, self.category, self.object_id)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, ObjectRef):
            return NotImplemented
        return self.sort_key() < other.sort_key()

    def __le__(self, other: object) -> bool:
        if not isinstance(other, ObjectRef):
            return NotImplemented
        return self.sort_key() <= other.sort_key()

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, ObjectRef):
            return NotImplemented
        return self.sort_key() > other.sort_key()

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, ObjectRef):
            return NotImplemented
        return self.sort_key() >= other.sort_key()

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
        return cls(diagram_id, tuple(category), object_id)


_KNOWN_CATEGORIES: Final = {"/".join(c): c for c in (*CATEGORIES, FLOW_NOTE)}


def _category(text: str) -> tuple[str, ...]:
    """The category tuple of its text: the module's own for a known one, so that refs share
    it (an untracked constant: a ref's parts then hold nothing the collector must walk)."""
    known = _KNOWN_CATEGORIES.get(text)
    return known if known is not None else tuple(text.split("/"))


def ref_from_text(text: str) -> ObjectRef:
    """The ref whose canonical text `text` is, unchecked: only for text that was a ref's (a
    worker's encoding of refs it made), where `parse_ref` would only repeat the checks."""
    diagram_id, _, right = text[2:].partition("/")
    category, _, object_id = right.rpartition("/")
    return _make(text, diagram_id, _category(category), object_id)


def make_ref(diagram_id: str, category: tuple[str, ...], object_id: str) -> ObjectRef:
    """`ObjectRef(diagram_id, category, object_id)` without the class call, which goes through
    `type.__call__` and a Python `__new__`: about half the cost, for renderers that make a
    ref per drawn object. The same object; unchecked, as the constructor is."""
    return _make(
        f"d:{diagram_id}/{'/'.join(category)}/{object_id}", diagram_id, category, object_id
    )


def _make(text: str, diagram_id: str, category: tuple[str, ...], object_id: str) -> ObjectRef:
    ref: ObjectRef = _new_str(ObjectRef, text)
    _set(ref, "__dict__", {"diagram_id": diagram_id, "category": category, "object_id": object_id})
    return ref


def ref_sort_key(ref: ObjectRef) -> tuple[str, tuple[str, ...], str]:
    """Key function for sorting refs canonically."""
    return ref.sort_key()


def parse_ref(text: str) -> ObjectRef:
    """Parse an ObjectRef, reporting the first broken rule exactly as model.md §3.2 orders them
    (the `ObjectRefError` carries `text`)."""
    try:
        return _parse(text)
    except ObjectRefError as err:
        err.text = text
        raise


def _parse(text: str) -> ObjectRef:
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
    segments = _category(category_text)
    if any(seg == "" for seg in segments):
        raise ObjectRefError(
            "InvalidCategory",
            "invalid category path: category path must not contain empty segments",
        )
    try:
        check_id(object_id)
    except IdError as err:  # pragma: no cover - rpartition leaves no slash on the right
        raise ObjectRefError("InvalidObjectId", f"invalid object id: {err}") from None
    return _make(text, diagram_id, segments, object_id)


def ref_enc_hook(value: object) -> str:
    """msgspec's `enc_hook` for every codec that may meet a ref: an ObjectRef is its text."""
    if isinstance(value, ObjectRef):
        return _text(value)
    raise NotImplementedError(f"Encoding objects of type {type(value).__name__} is unsupported")


def ref_dec_hook(kind: type, value: object) -> object:
    """msgspec's `dec_hook` (decode and `convert`): a string as the ObjectRef it is (`parse_ref`;
    its ValueError becomes msgspec's "<message> - at `$.path`"); another value is refused with
    msgspec's own `Expected `str`, got ...`."""
    if kind is ObjectRef:
        if isinstance(value, str):
            return parse_ref(value)
        try:
            msgspec.convert(value, str, strict=True)
        except msgspec.ValidationError as err:  # msgspec's own text; as TypeError it adds where
            raise TypeError(str(err)) from None
    raise NotImplementedError(f"Decoding objects of type {kind.__name__} is unsupported")


def ref_schema_hook(kind: type) -> dict[str, object]:
    """msgspec's `schema_hook`: an ObjectRef is a JSON string."""
    if kind is ObjectRef:
        return {"type": "string"}
    raise NotImplementedError(f"No JSON schema for {kind.__name__}")
