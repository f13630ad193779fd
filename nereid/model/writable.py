"""What each string field of a diagram may hold: the "can it be written back" rules.

Spec decision 18: whatever an import or an op batch accepts is exported to Mermaid and read
back equal. These rules are that promise, one per kind of field, shared by the importer (it
refuses on read, with the line), the ops (they refuse on apply, with the field) and the
exporter (its own guard). `flowchart_problem` / `sequence_problem` run every rule over a
whole AST (or only the objects a batch touched), so a value that no rule was asked about at
its entry point is still caught before it is accepted, never when the file is written.

Each `*_problem` function returns why a value cannot be written back, or None when it can.
A rule may refuse more than Mermaid strictly needs (a `;` anywhere in a style, say), never
less: the hostile round-trip property tests (`tests/mermaid/test_hostile_roundtrip.py`)
hold the exporter to every value the rules let through.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from typing import Final, TypeVar

import msgspec

from nereid.model.flowchart import FlowchartAst, FlowEdge, FlowNode, FlowSubgraph
from nereid.model.refs import (
    FLOW_EDGE,
    FLOW_NODE,
    FLOW_SUBGRAPH,
    SEQ_BLOCK,
    SEQ_MESSAGE,
    SEQ_NOTE,
    SEQ_PARTICIPANT,
    SEQ_SECTION,
)
from nereid.model.sequence import SeqBlock, SequenceAst

__all__ = [
    "DIAGRAM_META",
    "MAX_SUBGRAPH_DEPTH",
    "acc_text_problem",
    "acc_title_problem",
    "attribute_problem",
    "COMMENT_OR_ENTITY",
    "SEQUENCE_KEYWORDS",
    "SEQUENCE_SPACED_KEYWORDS",
    "ObjectKey",
    "Unwritable",
    "click_problem",
    "flow_label_problem",
    "directive_problem",
    "flowchart_problem",
    "front_matter_problem",
    "leading_keyword",
    "link_problem",
    "mermaid_text_problem",
    "note_problem",
    "participant_name_problem",
    "sequence_problem",
    "sequence_text_problem",
    "style_problem",
    "subgraph_title_problem",
]

#: How deep subgraphs may nest. Export and import walk any depth without recursion, but
#: people do not nest a hundred frames, and the layout's cost grows with the depth.
MAX_SUBGRAPH_DEPTH: Final = 100

#: The pseudo-category of diagram-wide fields (title, class definitions, default styles).
DIAGRAM_META: Final = "diagram"

#: Characters no one-line field may hold: C0 controls but tab (so line feed and carriage
#: return too), DEL, C1 controls (U+0085 is a line break to many readers), the Unicode line
#: and paragraph separators and lone surrogates (they cannot be encoded in a UTF-8 file).
_ONE_LINE_BAD: Final = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
#: The same for fields that may span lines (quoted flowchart labels): line feed allowed.
_MULTI_LINE_BAD: Final = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
_SURROGATE: Final = re.compile("[\ud800-\udfff]")


class Unwritable(msgspec.Struct, frozen=True, kw_only=True):
    """A field that cannot be written back: which object, which field, the value and why."""

    category: str
    object_id: str
    field: str
    value: str
    reason: str

    def describe(self) -> str:
        """`<field> of <object>: <reason>`, the common core of every refusal message."""
        where = "the diagram" if self.category == DIAGRAM_META else self.object_id
        return f"{self.field} of {where} cannot be written back as Mermaid: {self.reason}"


def _bad_char(pattern: re.Pattern[str], text: str) -> str | None:
    bad = pattern.search(text)
    if bad is None:
        return None
    return f"contains a line break or control character: {bad.group()!r} at {bad.start()}"


# -- flowchart fields ------------------------------------------------------------------------


def flow_label_problem(label: str) -> str | None:
    """A node or edge label or subgraph title; written quoted where Mermaid needs it.

    It may span lines (a quoted string does), but Mermaid trims continuation lines, so
    spaces next to a line break cannot be kept; it holds `"` only as the entity `#quot;`.
    A blank label (`A(( ))`, `A[" "]`) is kept as Mermaid reads it; only "" is refused.
    """
    if label == "":
        return "must not be empty"
    problem = _bad_char(_MULTI_LINE_BAD, label)
    if problem is not None:
        return problem
    if '"' in label:
        return "contains '\"' (write it as #quot;)"
    parts = label.split("\n")
    if len(parts) > 1 and (
        parts[0] != parts[0].rstrip()
        or parts[-1] != parts[-1].lstrip()
        or any(part != part.strip() for part in parts[1:-1])
    ):
        return "has spaces next to a line break (Mermaid trims them)"
    return None


def subgraph_title_problem(title: str) -> str | None:
    """A subgraph title: a label, or the empty title `[ ]`; Mermaid trims titles."""
    if title == "":
        return None
    if title != title.strip():
        return "must not start or end with whitespace (Mermaid trims titles)"
    return flow_label_problem(title)


def _statement_tail_problem(text: str) -> str | None:
    """The rest of a one-line statement after its keyword and target (style, click)."""
    if not text.strip():
        return "must not be empty"
    if text != text.strip():
        return "must not start or end with whitespace (Mermaid trims it)"
    return _bad_char(_ONE_LINE_BAD, text)


def style_problem(style: str) -> str | None:
    """A `style` / `classDef` / `linkStyle` payload such as `fill:#f9f,stroke:#333`.

    `;` ends a Mermaid statement (also inside an entity such as `#59;`), and an unbalanced
    `"` would swallow the lines after it, so neither can be written.
    """
    problem = _statement_tail_problem(style)
    if problem is None and ";" in style:
        problem = "contains ';' (it ends a Mermaid statement)"
    if problem is None and style.count('"') % 2:
        problem = "contains an unbalanced '\"'"
    return problem


def click_problem(action: str) -> str | None:
    """A `click` action (`href "url" "tooltip"`, `callback`, `call fn()`).

    Quoted strings must be balanced and a `;` is only kept inside one. A quoted tooltip may
    run over several lines, as Mermaid reads it; continuation lines are read trimmed, so no
    spaces may sit next to such a line break.
    """
    if not action.strip():
        return "must not be empty"
    if action != action.strip():
        return "must not start or end with whitespace (Mermaid trims it)"
    problem = _bad_char(_MULTI_LINE_BAD, action)
    if problem is not None:
        return problem
    if action.count('"') % 2:
        return "contains an unbalanced '\"'"
    outside = action.split('"')[::2]
    if any(";" in part for part in outside):
        return "contains ';' outside quotes (it ends a Mermaid statement)"
    if any("\n" in part for part in outside):
        return "a line break is only allowed inside a quoted string"
    if any(part != part.strip() for part in action.split("\n")):
        return "has spaces next to a line break (Mermaid trims them)"
    return None


def attribute_problem(raw: str) -> str | None:
    """A v11 attribute value as written (`curve: linear`, `icon: "fa:user"`): one line."""
    return _bad_char(_ONE_LINE_BAD, raw)


def mermaid_text_problem(text: str) -> tuple[int, int, str] | None:
    """(line, column, why) if a whole Mermaid text cannot be stored as UTF-8, else None.

    Only lone surrogates are refused here (a text read from a file or JSON has none); what
    each field may hold is decided by the field rules.
    """
    bad = _SURROGATE.search(text)
    if bad is None:
        return None
    line = text.count("\n", 0, bad.start()) + 1
    column = bad.start() - (text.rfind("\n", 0, bad.start()) + 1) + 1
    return line, column, f"contains a lone surrogate {bad.group()!r} (not valid in UTF-8)"


def front_matter_problem(text: str) -> str | None:
    """YAML front matter as kept (the lines between the two `---`), or None when writable."""
    if "\r" in text or any(line.strip() == "---" for line in text.split("\n")):
        return "must not contain a carriage return or a '---' line (it ends the front matter)"
    return _bad_char(_MULTI_LINE_BAD, text)


def directive_problem(text: str) -> str | None:
    """A `%%{init: ...}%%` directive as kept: its trimmed, non-empty lines joined by `\\n`."""
    parts = text.split("\n")
    if not text.startswith("%%{") or not text.endswith("}%%") or "}%%" in text[:-3]:
        return "must be '%%{ ... }%%' with '}%%' only at its end"
    if any(not part or part != part.strip() for part in parts):
        return "its lines must be non-empty and trimmed"
    if any(part.startswith("%%{") for part in parts[1:]):
        return "a line after the first must not open another directive"
    return _bad_char(_MULTI_LINE_BAD, text)


def note_problem(note: str) -> str | None:
    """A side-car note (JSON, not Mermaid): anything a UTF-8 file can hold."""
    return _bad_char(_SURROGATE, note)


# -- sequence fields -------------------------------------------------------------------------

#: Mermaid's statement keywords, lower case (they are matched ignoring case). Each counts when
#: the next character is not a letter, digit or `_` (`alt-svc` is `alt`, `alternative` is not).
SEQUENCE_KEYWORDS: Final = frozenset(
    {
        "participant",
        "actor",
        "alt",
        "else",
        "opt",
        "loop",
        "par",
        "par_over",
        "and",
        "critical",
        "option",
        "break",
        "rect",
        "end",
        "note",
        "activate",
        "deactivate",
        "autonumber",
        "box",
        "create",
        "destroy",
        "over",
        "off",
        "sequencediagram",
    }
)
#: Keywords that count only when whitespace follows (`link A: ...`, `title Text`); a message
#: from a participant named `link` is still a message.
SEQUENCE_SPACED_KEYWORDS: Final = frozenset({"link", "links", "properties", "details", "title"})
_LEAD_WORD: Final = re.compile(r"[A-Za-z0-9_]*")

_FORBIDDEN_NAME_CHARS: Final = frozenset(':,;+<>=#@{}|"/')
_ARROW_PIECES: Final = ("--", "->", "-x", "-)", "<<", "-\\", "\\-", "()")
_SEQ_STATEMENT_SPLIT: Final = re.compile(r"#\w+;|;")
#: A `#` outside an entity code starts a comment in a sequence line (Mermaid's lexer).
COMMENT_OR_ENTITY: Final = re.compile(r"#\w+;|#")
_WRAP_PREFIX: Final = re.compile(r":?(?:no)?wrap:")


def leading_keyword(statement: str) -> str | None:
    """The Mermaid keyword (lower case) a statement starts with, or None for a message.

    `accTitle`/`accDescr` count before `:` or `{`, `title` before `:` or whitespace, the menu
    keywords before whitespace; the rest before any character that is not a word character.
    """
    lead = _LEAD_WORD.match(statement)
    word = lead.group().lower() if lead else ""
    after = statement[len(word) :]
    if word in SEQUENCE_KEYWORDS:
        return word
    if word in ("acctitle", "accdescr") and after.lstrip()[:1] in (":", "{"):
        return word
    if word == "title" and after[:1] == ":":
        return word
    if word in SEQUENCE_SPACED_KEYWORDS and after[:1] in (" ", "\t"):
        return word
    if word in ("left", "right") and re.match(r"[ \t]+of\b", after, re.IGNORECASE):
        return word
    return None


def participant_name_problem(name: str) -> str | None:
    """Why `name` cannot be a participant name (Mermaid-writable), or None when it can."""
    if name == "":
        return "must not be empty"
    if name != name.strip():
        return "must not start or end with whitespace"
    if "/" in name:
        return "must not contain '/'"
    bad = _ONE_LINE_BAD.search(name)
    if bad is not None:
        return f"contains invalid character: {bad.group()!r}"
    for ch in name:
        if ch in _FORBIDDEN_NAME_CHARS:
            return f"contains invalid character: '{ch}'"
    if name.startswith("-") or name.endswith("-"):
        return "must not start or end with '-'"
    if name[0] in "()\\":
        return f"must not start with '{name[0]}'"
    for piece in _ARROW_PIECES:
        if piece in name:
            what = "a central connection" if piece == "()" else "an arrow"
            return f"must not contain '{piece}' (it reads as {what})"
    if name.startswith("%%"):
        return "must not start with '%%' (it reads as a comment)"
    keyword = leading_keyword(name)
    if keyword is not None:
        return (
            f"must not start with the keyword '{name[: len(keyword)]}' (Mermaid reads a statement)"
        )
    words = name.split()
    if len(words) > 1 and "as" in (word.lower() for word in words):
        return "must not contain the word 'as' (it reads as an alias)"
    return None


def sequence_text_problem(text: str) -> str | None:
    """Why `text` cannot be written as a message/note text, alias, title or block header."""
    if text.strip() == "":
        return "must not be empty"
    if text != text.strip():
        return "must not start or end with whitespace"
    problem = _bad_char(_ONE_LINE_BAD, text)
    if problem is not None:
        return problem
    if "#" in text and any(m.group() == "#" for m in COMMENT_OR_ENTITY.finditer(text)):
        return "contains '#' (Mermaid reads the rest of the line as a comment; write '#35;')"
    if ";" in text and any(m.group() == ";" for m in _SEQ_STATEMENT_SPLIT.finditer(text)):
        return "contains ';' (Mermaid reads it as a statement break; write '#59;')"
    if _WRAP_PREFIX.match(text):
        return "must not start with 'wrap:' or 'nowrap:' (Mermaid reads it as the wrap flag)"
    return None


def acc_text_problem(text: str) -> str | None:
    """Why `text` cannot be an `accTitle`/`accDescr` value, or None.

    One line is written `accDescr: text`; several lines `accDescr {` ... `}`, whose lines are
    read trimmed and without blank or `%%` lines, and which ends at the first `}`.
    """
    if text != text.strip():
        return "must not start or end with whitespace"
    bad = _ONE_LINE_BAD.search(text.replace("\n", " "))
    if bad is not None:
        return f"contains a control character: {bad.group()!r}"
    if "\n" in text:
        if "}" in text:
            return "a text over several lines must not contain '}'"
        for line in text.split("\n"):
            if not line or line != line.strip() or line.startswith("%%"):
                return "its lines must be non-empty, trimmed and not start with '%%'"
    return None


def acc_title_problem(text: str) -> str | None:
    """An `accTitle` value: an accessibility text on one line."""
    if "\n" in text:
        return "an accTitle is one line"
    return acc_text_problem(text)


def link_problem(text: str) -> str | None:
    """A participant menu entry's label or url, written inside `links A: {...}` JSON.

    JSON escapes quotes and C0 controls, but the line must still hold one statement.
    """
    if not text.strip():
        return "must not be empty"
    problem = _bad_char(_ONE_LINE_BAD, text)
    if problem is None and any(m.group() == ";" for m in _SEQ_STATEMENT_SPLIT.finditer(text)):
        problem = "contains ';' (Mermaid reads it as a statement break; write '#59;')"
    return problem


# -- whole diagrams --------------------------------------------------------------------------

_T = TypeVar("_T")
_Rule = Callable[[str], str | None]
_Fields = Iterable[tuple[str, str | None, _Rule]]
#: An object of a diagram as the ops record it: (category, object id).
ObjectKey = tuple[tuple[str, ...], str]


def _first(category: tuple[str, ...], object_id: str, fields: _Fields) -> Unwritable | None:
    for field, value, rule in fields:
        if value is None:
            continue
        reason = rule(value)
        if reason is not None:
            return Unwritable(
                category="/".join(category),
                object_id=object_id,
                field=field,
                value=value,
                reason=reason,
            )
    return None


def _attribute_fields(attrs: dict[str, str] | None) -> _Fields:
    for key, raw in (attrs or {}).items():
        yield f"attrs.{key}", raw, attribute_problem


def _node_fields(node: FlowNode) -> _Fields:
    yield "label", node.label, flow_label_problem
    yield "style", node.style, style_problem
    yield "click", node.click, click_problem
    yield "note", node.note, note_problem
    yield from _attribute_fields(node.attrs)


def _edge_fields(edge: FlowEdge) -> _Fields:
    yield "label", edge.label, flow_label_problem
    yield "style", edge.style, style_problem
    yield from _attribute_fields(edge.attrs)


def _subgraph_fields(subgraph: FlowSubgraph) -> _Fields:
    return (
        ("title", subgraph.title, subgraph_title_problem),
        ("style", subgraph.style, style_problem),
    )


def _preamble_fields(
    front_matter: str | None,
    directives: tuple[str, ...],
    acc_title: str | None,
    acc_descr: str | None,
) -> _Fields:
    """The fields both kinds keep verbatim around their statements."""
    yield "front_matter", front_matter, front_matter_problem
    for index, directive in enumerate(directives):
        yield f"directives[{index}]", directive, directive_problem
    yield "acc_title", acc_title, acc_title_problem
    yield "acc_descr", acc_descr, acc_text_problem


def _flow_meta_fields(ast: FlowchartAst) -> _Fields:
    yield "default_edge_style", ast.default_edge_style, style_problem
    for name, style in ast.class_defs.items():
        yield f"class_defs.{name}", style, style_problem
    yield from _preamble_fields(ast.front_matter, ast.directives, ast.acc_title, ast.acc_descr)


def _chosen(
    objects: Mapping[str, _T], category: tuple[str, ...], keys: Collection[ObjectKey] | None
) -> Iterator[tuple[str, _T]]:
    if keys is None:
        yield from objects.items()
        return
    for key_category, object_id in keys:
        if key_category == category and object_id in objects:
            yield object_id, objects[object_id]


def flowchart_problem(
    ast: FlowchartAst, keys: Collection[ObjectKey] | None = None
) -> Unwritable | None:
    """The first field of `ast` that cannot be written back (only `keys`' objects if given).

    Diagram-wide fields (class definitions, the default edge style) are always checked.
    """
    found = _first((DIAGRAM_META,), "meta", _flow_meta_fields(ast))
    for node_id, node in _chosen(ast.nodes, FLOW_NODE, keys):
        found = found or _first(FLOW_NODE, node_id, _node_fields(node))
    for edge_id, edge in _chosen(ast.edges, FLOW_EDGE, keys):
        found = found or _first(FLOW_EDGE, edge_id, _edge_fields(edge))
    for subgraph_id, subgraph in _chosen(ast.subgraphs, FLOW_SUBGRAPH, keys):
        found = found or _first(FLOW_SUBGRAPH, subgraph_id, _subgraph_fields(subgraph))
    if found is None and (keys is None or any(c == FLOW_SUBGRAPH for c, _ in keys)):
        found = _too_deep(ast)
    return found


def _too_deep(ast: FlowchartAst) -> Unwritable | None:
    """The first subgraph nested deeper than MAX_SUBGRAPH_DEPTH (walked without recursion)."""
    children = {child for sg in ast.subgraphs.values() for child in sg.subgraph_ids}
    stack = [(sg_id, 1) for sg_id in ast.subgraphs if sg_id not in children]
    seen: set[str] = set()
    while stack:
        sg_id, depth = stack.pop()
        subgraph = ast.subgraphs.get(sg_id)
        if subgraph is None or sg_id in seen:
            continue  # a dangling or shared child: the exporter names it
        seen.add(sg_id)
        if depth > MAX_SUBGRAPH_DEPTH:
            return Unwritable(
                category="/".join(FLOW_SUBGRAPH),
                object_id=sg_id,
                field="subgraph_ids",
                value=sg_id,
                reason=f"subgraphs nest deeper than {MAX_SUBGRAPH_DEPTH} levels",
            )
        stack.extend((child, depth + 1) for child in subgraph.subgraph_ids)
    return None


def _link_fields(links: tuple[tuple[str, str], ...]) -> _Fields:
    for index, (label, url) in enumerate(links):
        yield f"links[{index}].label", label, link_problem
        yield f"links[{index}].url", url, link_problem


def _blocks(blocks: tuple[SeqBlock, ...]) -> Iterator[SeqBlock]:
    """Every block of a tree, pre-order, without recursion."""
    stack = list(reversed(blocks))
    while stack:
        block = stack.pop()
        yield block
        stack.extend(reversed(block.blocks))


def sequence_problem(
    ast: SequenceAst, keys: Collection[ObjectKey] | None = None
) -> Unwritable | None:
    """The first field of `ast` that cannot be written back (only `keys`' objects if given).

    The title, box labels and blocks are always checked (blocks are few and small).
    """
    wanted = None if keys is None else {object_id for _category, object_id in keys}
    meta: list[tuple[str, str | None, _Rule]] = [
        ("title", ast.title, sequence_text_problem),
        *_preamble_fields(ast.front_matter, ast.directives, ast.acc_title, ast.acc_descr),
    ]
    meta += [(f"boxes[{i}].label", b.label, sequence_text_problem) for i, b in enumerate(ast.boxes)]
    found = _first((DIAGRAM_META,), "meta", meta)
    for pid, participant in ast.participants.items():
        if found is None and (wanted is None or pid in wanted):
            found = _first(
                SEQ_PARTICIPANT,
                pid,
                (
                    ("mermaid_name", participant.mermaid_name, participant_name_problem),
                    ("alias", participant.alias, sequence_text_problem),
                    ("note", participant.note, note_problem),
                    *_link_fields(participant.links),
                ),
            )
    for message in ast.messages:
        if found is None and (wanted is None or message.message_id in wanted):
            found = _first(
                SEQ_MESSAGE, message.message_id, (("text", message.text, sequence_text_problem),)
            )
    for note in ast.notes:
        if found is None and (wanted is None or note.note_id in wanted):
            found = _first(SEQ_NOTE, note.note_id, (("text", note.text, sequence_text_problem),))
    for block in _blocks(ast.blocks):
        if found is not None:
            return found
        found = _first(
            SEQ_BLOCK, block.block_id, (("header", block.header, sequence_text_problem),)
        )
        for section in block.sections:
            if found is None:
                found = _first(
                    SEQ_SECTION,
                    section.section_id,
                    (("header", section.header, sequence_text_problem),),
                )
    return found
