"""One node/edge statement → a chain of node groups and links (mermaid.md §4.3-4.7).

`flowchart.lark` is the grammar; it is loaded once per process. The common one-hop forms
(`a[Label] --> b`, `a -->|x| b`) take a regular-expression fast path that yields exactly what
the grammar yields (a test compares both on generated statements); everything else goes
through Lark. Lark failures are turned into `MermaidError`s with the spec's kinds.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:  # Lark is imported on first use: most statements take the fast path
    import lark

from nereid.mermaid.errors import MermaidError
from nereid.mermaid.flowchart_attrs import AttrError, split_attr_pairs
from nereid.mermaid.flowchart_labels import (
    LabelError,
    decode_edge_label,
    decode_shape,
)
from nereid.model.flowchart import LinkSpec, parse_connector
from nereid.model.ids import node_ident_problem
from nereid.model.writable import flow_label_problem

__all__ = ["Chain", "LinkRef", "NodeRef", "attr_error", "parse_chain", "parse_chain_lark"]


@dataclass(frozen=True, slots=True)
class NodeRef:
    """A node as mentioned in a statement: explicit shape/label only where written.

    An attribute block (`@{ ... }`) is kept as its raw `attrs` pairs: whether it describes a
    node or an edge (`e1@{ animate: true }`) depends on what the id names, which the
    statement builder knows. `attrs_text` / `attrs_column` locate it for error messages.
    """

    mermaid_id: str
    shape: str | None
    label: str | None
    classes: tuple[str, ...]
    column: int
    attrs: tuple[tuple[str, str], ...] | None = None
    attrs_text: str = ""
    attrs_column: int = 0


@dataclass(frozen=True, slots=True)
class LinkRef:
    """A link between two node groups; `reverse` means the text points right to left."""

    spec: LinkSpec
    label: str | None
    reverse: bool
    column: int
    #: The v11 edge id written before the link (`A e1@--> B`), None when there is none.
    mermaid_id: str | None = None


@dataclass(frozen=True, slots=True)
class Chain:
    """`group link group link group ...`; a standalone node is one group and no link."""

    groups: tuple[tuple[NodeRef, ...], ...]
    links: tuple[LinkRef, ...]


@functools.cache
def _parser() -> lark.Lark:
    """The statement parser, built on first use (once per process), as for sequences."""
    from importlib import resources  # (and tempfile): only for the slow path

    import lark

    grammar = resources.files("nereid.mermaid").joinpath("flowchart.lark").read_text("utf-8")
    return lark.Lark(grammar, parser="lalr", lexer="contextual")


_END_HEAD_OF_START: Final = {"<": ">", "o": "o", "x": "x"}
_INLINE: Final = re.compile(
    r"([<ox]?)(--|==|-\.)(.*?)(-{2,}[>ox]|-{3,}|={2,}[>ox]|={3,}|\.+-[>ox]?)", re.DOTALL
)
_BRACKETED: Final = re.compile(r'\[[^\]]*\]|\([^)]*\)|\{[^}]*\}|\|[^|]*\||"[^"]*"')
_LINK_SEARCH: Final = re.compile(r"[<ox]?(?:-{2,}|={2,}|-\.+-|~{3,})[>ox]?")
_EDGE_ID: Final = re.compile(r"[A-Za-z0-9_]+@[-=.~<ox]")


class _Fail(Exception):
    """A problem at a column of the statement (0-based offset), turned into MermaidError."""

    def __init__(self, kind: str, offset: int, detail: str, text: str, expected: str) -> None:
        super().__init__(detail)
        self.kind = kind
        self.offset = offset
        self.detail = detail
        self.text = text
        self.expected = expected


def _link_spec(token: str, offset: int) -> tuple[LinkSpec, bool]:
    """Read a link token; a start head without an end head is a reversed link (`<--`)."""
    reverse = False
    written = token
    has_end = len(token) > 1 and token[-1] in ">ox" and token[-2] in "-=."
    if token[0] in _END_HEAD_OF_START and token[1:2] in ("-", "=") and not has_end:
        reverse = True
        token = token[1:] + _END_HEAD_OF_START[token[0]]
    try:
        return parse_connector(token), reverse
    except ValueError as error:
        raise _Fail("InvalidLink", offset, str(error), written, "a Mermaid link") from None


def _inline_link(token: str, offset: int) -> LinkRef:
    match = _INLINE.fullmatch(token)
    if match is None:  # pragma: no cover - the grammar only lets matching tokens through
        raise _Fail("InvalidLink", offset, "not a labelled link", token, "a Mermaid link")
    head, opening, text, closing = match.groups()
    if opening == "-.":
        body = head + "-" + closing
    else:
        body = head + closing
    if opening[0] != closing[0] and not (opening == "-." and closing[0] == "."):
        raise _Fail(
            "InvalidLink", offset, "the link opens and closes with different strokes", token,
            "matching strokes, e.g. '-- text -->'",
        )  # fmt: skip
    spec, reverse = _link_spec(body, offset)
    return LinkRef(spec, _edge_label(text, token, offset), reverse, offset)


def _edge_label(inner: str, token: str, offset: int) -> str:
    try:
        return decode_edge_label(inner)
    except LabelError as error:
        kind = "EmptyEdgeLabel" if str(error) == "empty label" else "InvalidEdgeLabel"
        raise _Fail(kind, offset, str(error), token, "a non-empty edge label") from None


def _node(tree: lark.Tree[lark.Token]) -> NodeRef:
    import lark

    ident = tree.children[0]
    assert isinstance(ident, lark.Token)
    offset = ident.start_pos or 0
    shape: str | None = None
    label: str | None = None
    classes: tuple[str, ...] = ()
    attrs: tuple[tuple[str, str], ...] | None = None
    attrs_text = ""
    attrs_column = 0
    for child in tree.children[1:]:
        assert isinstance(child, lark.Token)
        if child.type == "SHAPE":
            try:
                shape, label = decode_shape(str(child))
            except LabelError as error:
                kind = "EmptyNodeLabel" if str(error) == "empty label" else "InvalidNodeLabel"
                token = str(ident) + str(child)
                raise _Fail(kind, offset, str(error), token, "a node label") from None
        elif child.type == "ATTRS":
            attrs_column = child.start_pos or 0
            attrs_text = str(ident) + str(child)
            try:
                attrs = split_attr_pairs(str(child)[2:-1])
            except AttrError as error:
                raise _Fail(
                    error.kind, attrs_column, error.detail, attrs_text, error.expected
                ) from None
        else:  # CLASS_REF
            classes = (str(child)[3:],)
    return NodeRef(str(ident), shape, label, classes, offset, attrs, attrs_text, attrs_column)


def _link(tree: lark.Tree[lark.Token]) -> LinkRef:
    import lark

    children = list(tree.children)
    edge_id: str | None = None
    first = children[0]
    assert isinstance(first, lark.Token)
    if first.type == "EDGE_ID":
        edge_id = str(first)[:-1]
        children = children[1:]
    token = children[0]
    assert isinstance(token, lark.Token)
    offset = token.start_pos or 0
    if token.type == "INLINE_LINK":
        ref = _inline_link(str(token), offset)
        return LinkRef(ref.spec, ref.label, ref.reverse, ref.column, edge_id)
    spec, reverse = _link_spec(str(token), offset)
    label: str | None = None
    if len(children) > 1:
        pipe = str(children[1])
        label = _edge_label(pipe[1:-1], pipe, offset)
    return LinkRef(spec, label, reverse, offset, edge_id)


def _word_at(text: str, offset: int) -> str:
    start = offset
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    end = offset
    while end < len(text) and not text[end].isspace():
        end += 1
    return text[start:end]


def _has_link(prefix: str) -> bool:
    return _LINK_SEARCH.search(_BRACKETED.sub(" ", prefix)) is not None


def _syntax_failure(text: str, offset: int, expected: set[str]) -> _Fail:
    """Map a Lark failure at `offset` to the spec's error kinds (mermaid.md §4.3-4.6)."""
    if offset >= len(text):
        return _Fail(
            "UnsupportedSyntax", offset, text, "it ends where a node should follow the link",
            "a node after the link",
        )  # fmt: skip
    char = text[offset]
    word = _word_at(text, offset)
    if _EDGE_ID.match(word):
        return _Fail(
            "UnsupportedSyntax", offset, f"edge ids ('{word.split('@')[0]}@') are not supported",
            text, "a link without an id",
        )  # fmt: skip
    if char == "|":
        return _Fail("UnsupportedSyntax", offset, "unclosed '|' label", text, "'|label|'")
    if "NODE_ID" in expected:
        problem = node_ident_problem(word) or f"contains invalid character: '{char}'"
        return _Fail(
            "InvalidNodeId",
            offset,
            problem,
            word,
            "a node id (letters, digits, _, single - . : between them)",
        )
    if char in "[({>":
        start = offset
        while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_ \t"):
            start -= 1
        token = text[start:].strip()
        return _Fail(
            "InvalidNodeLabelSyntax", offset, "no matching closing bracket", token,
            "'<id>[<label>]', '<id>(<label>)', '<id>{<label>}' or another Mermaid shape",
        )  # fmt: skip
    if char in "-=.<~" and _has_link(text[:offset]):
        return _Fail("UnsupportedSyntax", offset, "invalid link", text, "a Mermaid link")
    if char in "-=.<~" or char.isspace():
        problem = node_ident_problem(text) or "not a node reference"
        return _Fail(
            "InvalidNodeId",
            0,
            problem,
            text,
            "a node id (letters, digits, _, single - . : between them)",
        )
    problem = node_ident_problem(word) or f"contains invalid character: '{char}'"
    return _Fail(
        "InvalidNodeId",
        offset,
        problem,
        word,
        "a node id (letters, digits, _, single - . : between them)",
    )


def _raise(fail: _Fail, line: int, column: int, statement: str) -> MermaidError:
    at = f"line {line}"
    messages = {
        "UnsupportedSyntax": f"unsupported Mermaid syntax on {at}: {fail.text}",
        "InvalidNodeId": f"invalid node id on {at}: {fail.text} ({fail.detail})",
        "InvalidNodeLabelSyntax": (
            f"invalid node label syntax on {at}: {fail.text} (expected '<id>[<label>]', "
            "'<id>(<label>)', or '<id>{<label>}')"
        ),
        "EmptyNodeLabel": f"empty node label on {at}: {fail.text}",
        "EmptyEdgeLabel": f"empty edge label on {at}: {statement}",
    }
    message = messages.get(fail.kind)
    if message is None:
        described = {
            "InvalidLink": "invalid link",
            "InvalidNodeLabel": "invalid node label",
            "InvalidEdgeLabel": "invalid edge label",
            "UnknownShape": "unknown node shape",
            "InvalidNodeAttributes": "invalid node attributes",
            "UnsupportedNodeAttribute": "unsupported node attribute",
            "UnsupportedEdgeAttribute": "unsupported edge attribute",
        }.get(fail.kind, "unsupported Mermaid syntax")
        message = f"{described} on {at}: {fail.text} ({fail.detail})"
    elif fail.kind == "UnsupportedSyntax" and fail.detail:
        message = f"{message} ({fail.detail})"
    return MermaidError(
        fail.kind,
        message,
        line=line,
        column=column + fail.offset,
        text=fail.text,
        expected=fail.expected,
    )


def attr_error(error: AttrError, ref: NodeRef, line: int, column: int) -> MermaidError:
    """The MermaidError for an attribute block that the builder could not accept."""
    fail = _Fail(error.kind, ref.attrs_column, error.detail, ref.attrs_text, error.expected)
    return _raise(fail, line, column, ref.attrs_text)


def parse_chain_lark(text: str, line: int, column: int) -> Chain:
    """Parse one statement with the grammar (the reference path)."""
    import lark

    try:
        try:
            tree = _parser().parse(text)
        except lark.exceptions.UnexpectedCharacters as error:
            raise _syntax_failure(
                text, error.pos_in_stream or 0, set(error.allowed or ())
            ) from None
        except lark.exceptions.UnexpectedToken as error:
            offset = error.token.start_pos if error.token.type != "$END" else len(text)
            raise _syntax_failure(text, offset or 0, set(error.expected or ())) from None
        except lark.exceptions.UnexpectedEOF:
            raise _syntax_failure(text, len(text), set()) from None
        groups: list[tuple[NodeRef, ...]] = []
        links: list[LinkRef] = []
        for child in tree.children:
            assert isinstance(child, lark.Tree)
            if child.data == "group":
                groups.append(tuple(_node(node) for node in child.children))  # type: ignore[arg-type]
            else:
                links.append(_link(child))
        return Chain(tuple(groups), tuple(links))
    except _Fail as fail:
        raise _raise(fail, line, column, text) from None


_ID: Final = r"([A-Za-z0-9_]+)"
_RECT: Final = r"(?:[ \t]*\[([^\]\"\[(/\\`\s][^\]\"\n]*)\])?"
_FAST: Final = re.compile(
    _ID + _RECT + r"[ \t]*(-->|---)(?![ox])[ \t]*(?:\|([^|\"\n`]*)\|)?[ \t]*" + _ID + _RECT
)
_SPECS: Final = {"-->": parse_connector("-->"), "---": parse_connector("---")}


_FAST_NODE: Final = re.compile(_ID + _RECT)
#: `a(Label)` / `a{Label}` with a label of plain words: how Nereid saves round and diamond
#: nodes, so a saved folder loads without Lark (the grammar still reads every other label).
_FAST_ROUND_OR_DIAMOND: Final = re.compile(
    _ID + r"(?:\(([A-Za-z0-9 _,:!?']+)\)|\{([A-Za-z0-9 _,:!?']+)\})"
)


def _fast(text: str) -> Chain | None:
    """The one-hop `a[Label] --> b` forms and a lone `a` / `a[Label]` (how Nereid saves its
    nodes) without Lark; None when the text is anything else."""
    match = _FAST.fullmatch(text)
    if match is None:
        node = _FAST_NODE.fullmatch(text)
        if node is None:
            return _fast_round_or_diamond(text)
        name, label = node.groups()
        if label is not None and flow_label_problem(label.strip()) is not None:
            return None  # blank or unwritable: the grammar path reads or refuses it precisely
        ref = NodeRef(name, "rect" if label else None, label.strip() if label else None, (), 0)
        return Chain(((ref,),), ())
    a, a_label, op, pipe, b, b_label = match.groups()
    if (a_label is not None and not a_label.strip()) or (
        b_label is not None and not b_label.strip()
    ):
        return None
    if pipe is not None and not pipe.strip():
        return None
    label = pipe.strip() if pipe is not None else None
    for text_label in (a_label, label, b_label):
        if text_label is not None and flow_label_problem(text_label.strip()) is not None:
            return None  # the grammar path says precisely what is wrong with it
    first = NodeRef(a, "rect" if a_label else None, a_label.strip() if a_label else None, (), 0)
    second = NodeRef(
        b, "rect" if b_label else None, b_label.strip() if b_label else None, (), match.start(5)
    )
    link = LinkRef(_SPECS[op], label, False, match.start(3))
    return Chain(((first,), (second,)), (link,))


def _fast_round_or_diamond(text: str) -> Chain | None:
    match = _FAST_ROUND_OR_DIAMOND.fullmatch(text)
    if match is None:
        return None
    name, round_label, diamond_label = match.groups()
    shape, label = ("round", round_label) if round_label is not None else ("diamond", diamond_label)
    label = label.strip()
    if not label or flow_label_problem(label) is not None:
        return None  # the grammar path reads or refuses it precisely
    return Chain(((NodeRef(name, shape, label, (), 0),),), ())


def parse_chain(text: str, line: int, column: int) -> Chain:
    """Parse one node/edge statement (fast path first, grammar otherwise)."""
    return _fast(text) or parse_chain_lark(text, line, column)
