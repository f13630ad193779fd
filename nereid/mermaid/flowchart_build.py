"""Statements → FlowchartAst: keyword statements, node merging, subgraphs, linkStyle.

Mermaid semantics kept here (mermaid.md §4, extended by spec decision 3):
- a node mentioned again with a label or shape takes that label or shape (the last
  declaration wins, as in Mermaid); a bare mention keeps what it had;
- `A & B --> C & D` makes A→C, A→D, B→C, B→D (Mermaid's order, which `linkStyle` counts);
- subgraph membership as Mermaid computes it: a node belongs to the first subgraph to *close*
  whose body mentions it (so inner subgraphs win over outer ones). A subgraph is a member the
  same way: its parent's body mentions it, by nesting or by naming it in a statement
  (Mermaid's flowDb does not tell the two apart); a mention that would nest a subgraph in
  itself or in its own descendant is only a reference;
- a subgraph id may stand wherever a node id may (spec decision 23): as an edge end, in
  `style`, `class` and `sg:::cls`. A name used as a node before its `subgraph` line becomes
  that subgraph, as in Mermaid, provided it got no label, shape, attributes or click (those
  would be dropped);
- the header forms: `subgraph id`, `subgraph id [title]`, `subgraph id["title"]`,
  `subgraph "title"` and `subgraph some words` (an id is generated, `subGraph<n>`, numbered
  in closing order as Mermaid does, when the title holds whitespace); ids may hold letters
  of any script, `-` and `.`;
- a keyword (`class`, `style`, `end`, ...) starts a keyword statement only when followed by
  whitespace and not by a link, so `class --> x` is an edge (QUIRK Q5 fixed);
- a node whose id is `end` is refused (Mermaid itself cannot read it back);
- v11 edge ids (`A e1@--> B`) name one edge each; a later `e1@{ ... }` sets that edge's
  attributes and `class e1 name` its classes. An edge id must not also name a node or a
  subgraph, and must not be digits only (its object id `e:<id>` would look like a numbered one).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Final

import msgspec

from nereid.mermaid.accessibility import ACC_START, read_accessibility
from nereid.mermaid.errors import MermaidError
from nereid.mermaid.flowchart_attrs import AttrError, read_edge_attrs, read_node_attrs
from nereid.mermaid.flowchart_labels import LabelError, decode_quoted
from nereid.mermaid.flowchart_lines import Header, Statement
from nereid.mermaid.flowchart_syntax import Chain, LinkRef, NodeRef, attr_error, parse_chain
from nereid.model.flowchart import DIRECTIONS, FlowchartAst, FlowEdge, FlowNode, FlowSubgraph
from nereid.model.ids import node_ident_problem, subgraph_id_problem
from nereid.model.shapes import ATTRIBUTE_SHAPES
from nereid.model.writable import (
    MAX_SUBGRAPH_DEPTH,
    click_problem,
    flowchart_problem,
    style_problem,
    subgraph_title_problem,
)

__all__ = ["KEYWORDS", "build_flowchart", "generated_subgraph_title"]

#: Words that open a keyword statement when followed by whitespace (and no link).
KEYWORDS: Final = frozenset(
    {"subgraph", "end", "direction", "classDef", "class", "style", "linkStyle", "click",
     "accTitle", "accDescr", "accTitle:", "accDescr:"}
)  # fmt: skip
_LINK_START: Final = re.compile(r"\s*(?:(?:[A-Za-z0-9_]+@)?[<ox]?(?:--|==|-\.|~~~)|&|:::)")
_IDENT: Final = re.compile(r"[A-Za-z0-9_]+")
_CLASS_NAME: Final = re.compile(r"[A-Za-z0-9_-]+")
_SUBGRAPH_TITLED: Final = re.compile(r"([^\s\[\]\"]+)\s*\[(.*)\]", re.DOTALL)
_SUBGRAPH_WORD: Final = re.compile(r"[^\s\[\]\"]+")
_INDEX_LIST: Final = re.compile(r"\d+(?:,\d+)*")
_DIGITS: Final = re.compile(r"\d+")


@dataclass
class _NodeState:
    label: str
    shape: str
    classes: list[str] = field(default_factory=list)
    style: str | None = None
    click: str | None = None
    attrs: dict[str, str] | None = None


@dataclass
class _OpenSubgraph:
    #: None: Mermaid generates the id when the subgraph closes (`subgraph "two words"`).
    mermaid_id: str | None
    title: str | None
    stmt: Statement
    direction: str | None = None
    mentions: list[str] = field(default_factory=list)


@dataclass
class _ClosedSubgraph:
    title: str | None
    direction: str | None
    stmt: Statement


def _error(kind: str, message: str, stmt: Statement, text: str, expected: str) -> MermaidError:
    return MermaidError(
        kind, message, line=stmt.line, column=stmt.column, text=text, expected=expected
    )


class _Builder:
    def __init__(self, header: Header) -> None:
        self.header = header
        self.direction = header.direction
        self.acc_title: str | None = None
        self.acc_descr: str | None = None
        self.nodes: dict[str, _NodeState] = {}
        self.edges: list[FlowEdge] = []
        self.class_defs: dict[str, str] = {}
        self.stack: list[_OpenSubgraph] = []
        #: Closed subgraphs in closing order (Mermaid's order), by Mermaid id.
        self.closed: dict[str, _ClosedSubgraph] = {}
        #: Every subgraph id declared so far (open ones with an explicit id, and closed ones).
        self.subgraph_names: set[str] = set()
        #: Opening order of the subgraphs (final ids; generated ones are filled in at close).
        self.opening: list[_OpenSubgraph] = []
        #: Name → the subgraph that claimed it (first to close whose body mentions it), and
        #: each subgraph's claimed members in mention order.
        self.claimed: dict[str, str] = {}
        self.members: dict[str, list[str]] = {}
        self.link_styles: list[tuple[Statement, str, str]] = []
        self.default_style: str | None = None
        #: Edge ids (`e1@-->`) → the edge's index in `edges`.
        self.edge_names: dict[str, int] = {}
        #: `click` statements, resolved once every node is known.
        self.clicks: list[tuple[Statement, str, str]] = []

    # ---- nodes -------------------------------------------------------------------------

    def mention(self, ref: NodeRef, stmt: Statement) -> None:
        name = ref.mermaid_id
        if name == "end":
            raise MermaidError(
                "InvalidNodeId",
                f"invalid node id on line {stmt.line}: end ('end' closes a subgraph; "
                "capitalise it, e.g. 'End')",
                line=stmt.line,
                column=stmt.column + ref.column,
                text=name,
                expected="a node id other than 'end'",
            )
        if name in self.subgraph_names and (ref.shape or ref.label or ref.attrs) is not None:
            raise MermaidError(
                "SubgraphAsNode",
                f"unsupported Mermaid syntax on line {stmt.line}: {name} is a subgraph id; "
                "a subgraph takes no node shape, label or attributes (Mermaid drops them)",
                line=stmt.line,
                column=stmt.column + ref.column,
                text=name,
                expected=f"{name} alone (or {name}:::class)",
            )
        if name in self.edge_names:
            raise MermaidError(
                "EdgeIdAsNode",
                f"unsupported Mermaid syntax on line {stmt.line}: {name} is an edge id; "
                "it cannot also name a node",
                line=stmt.line,
                column=stmt.column + ref.column,
                text=name,
                expected="a node id that is not an edge id",
            )
        extra: dict[str, str] | None = None
        if ref.attrs is not None:
            try:
                shape, label, extra = read_node_attrs(ref.attrs, name)
            except AttrError as error:
                raise attr_error(error, ref, stmt.line, stmt.column) from None
            ref = replace(ref, shape=shape, label=label)
        state = self.nodes.get(name)
        if state is None:
            state = _NodeState(label=ref.label or name, shape=ref.shape or "rect", attrs=extra)
            self.nodes[name] = state
        else:
            self._merge(state, ref, stmt)
            if extra is not None:
                state.attrs = extra  # the last declaration wins, attributes included
            elif ref.shape is not None and ref.shape not in ATTRIBUTE_SHAPES:
                state.attrs = None
        for cls in ref.classes:
            if cls not in state.classes:
                state.classes.append(cls)
        self._mention_in_body(name)

    def _mention_in_body(self, name: str) -> None:
        """Record a mention for membership; a subgraph named inside itself stays a reference."""
        if self.stack and all(open_.mermaid_id != name for open_ in self.stack):
            self.stack[-1].mentions.append(name)

    def _merge(self, state: _NodeState, ref: NodeRef, stmt: Statement) -> None:
        """A node mentioned again: a label or shape written here replaces the earlier one
        (Mermaid's addVertex: the last declaration wins); a bare mention changes nothing."""
        del stmt
        if ref.label is not None:
            state.label = ref.label
        if ref.shape is not None:
            state.shape = ref.shape

    def subgraph_ids(self) -> set[str]:
        return self.subgraph_names

    # ---- statements ----------------------------------------------------------------------

    def chain(self, chain: Chain, stmt: Statement) -> None:
        if len(chain.groups) == 1 and len(chain.groups[0]) == 1:
            ref = chain.groups[0][0]
            if ref.mermaid_id in self.edge_names and ref.attrs is not None and not ref.classes:
                self.edge_attrs(ref, stmt)
                return
        for group in chain.groups:
            for ref in group:
                self.mention(ref, stmt)
        for index, link in enumerate(chain.links):
            sources, targets = chain.groups[index], chain.groups[index + 1]
            if link.mermaid_id is not None:
                self.name_edge(link, len(sources) * len(targets), stmt)
            for source in sources:
                for target in targets:
                    a, b = source.mermaid_id, target.mermaid_id
                    if link.reverse:
                        a, b = b, a
                    spec = link.spec
                    self.edges.append(
                        FlowEdge(
                            from_node_id=f"n:{a}",
                            to_node_id=f"n:{b}",
                            label=link.label,
                            line=spec.line,
                            head_start=spec.head_start,
                            head_end=spec.head_end,
                            length=spec.length,
                            mermaid_id=link.mermaid_id,
                        )
                    )

    def name_edge(self, link: LinkRef, count: int, stmt: Statement) -> None:
        """Check a v11 edge id (`A e1@--> B`) and record it for the edge about to be added."""
        name = link.mermaid_id
        assert name is not None
        problem: tuple[str, str, str] | None = None
        if count != 1:
            problem = (
                "InvalidEdgeId",
                f"an edge id names one edge, but this link makes {count} ('&' groups)",
                "a link between single nodes",
            )
        elif name in self.edge_names:
            problem = ("DuplicateEdgeId", f"edge id '{name}' is used twice", "a new edge id")
        elif name in self.nodes or name in self.subgraph_ids() or name == "end":
            problem = (
                "InvalidEdgeId",
                f"edge id '{name}' already names a node or subgraph",
                "an id no node or subgraph has",
            )
        elif _DIGITS.fullmatch(name):
            problem = (
                "InvalidEdgeId",
                f"edge id '{name}' is digits only (its object id would look like a numbered "
                "edge's)",
                "an edge id with a letter or '_'",
            )
        if problem is not None:
            kind, detail, expected = problem
            raise MermaidError(
                kind,
                f"invalid edge id on line {stmt.line}: {name}@ ({detail})",
                line=stmt.line,
                column=stmt.column + link.column - len(name) - 1,
                text=name,
                expected=expected,
            )
        self.edge_names[name] = len(self.edges)

    def edge_attrs(self, ref: NodeRef, stmt: Statement) -> None:
        """`e1@{ animate: true }` on an edge id declared above: merge into that edge."""
        assert ref.attrs is not None
        try:
            attrs = read_edge_attrs(ref.attrs, ref.mermaid_id)
        except AttrError as error:
            raise attr_error(error, ref, stmt.line, stmt.column) from None
        index = self.edge_names[ref.mermaid_id]
        edge = self.edges[index]
        merged = {**(edge.attrs or {}), **attrs}
        self.edges[index] = msgspec.structs.replace(edge, attrs=merged or None)

    def statement(self, stmt: Statement) -> None:
        text = stmt.text
        if ACC_START.match(text):
            kind, value = read_accessibility(text, stmt.line, stmt.column)
            if kind == "title":
                self.acc_title = value
            else:
                self.acc_descr = value
            return
        word, _, rest = text.partition(" ")
        if "\t" in word:
            word, _, tail = word.partition("\t")
            rest = tail + " " + rest
        rest = rest.strip()
        if text == "end":
            self.close(stmt)
            return
        if word in KEYWORDS and rest and not _LINK_START.match(rest):
            getattr(self, "kw_" + word.rstrip(":"))(stmt, rest)
            return
        self.chain(parse_chain(text, stmt.line, stmt.column), stmt)

    def _unsupported(self, stmt: Statement, what: str, expected: str) -> MermaidError:
        return _error(
            "UnsupportedSyntax",
            f"unsupported Mermaid syntax on line {stmt.line}: {stmt.text} ({what})",
            stmt,
            stmt.text,
            expected,
        )

    def kw_end(self, stmt: Statement, rest: str) -> None:
        """`end` closes a subgraph and stands alone: text after it is refused, not guessed."""
        raise _error(
            "UnexpectedText",
            f"unexpected text after 'end' on line {stmt.line}: {rest!r} "
            "(put the next statement on its own line or after ';')",
            stmt,
            rest,
            "a line break or ';' after 'end'",
        )

    def _acc_without_colon(self, stmt: Statement, rest: str) -> None:
        word = stmt.text.split(maxsplit=1)[0].rstrip(":")
        raise _error(
            "UnsupportedSyntax",
            f"{word} on line {stmt.line} needs ':' before its text"
            + (" (or '{ ... }' around it)" if word == "accDescr" else "")
            + f": {stmt.text!r}",
            stmt,
            rest,
            f"{word}: text",
        )

    kw_accTitle = _acc_without_colon
    kw_accDescr = _acc_without_colon

    def kw_subgraph(self, stmt: Statement, rest: str) -> None:
        mermaid_id, title = self._subgraph_header(stmt, rest)
        opened = _OpenSubgraph(mermaid_id, title, stmt)
        if mermaid_id is not None:
            self._check_new_subgraph(mermaid_id, stmt)
            self.subgraph_names.add(mermaid_id)
        if len(self.stack) >= MAX_SUBGRAPH_DEPTH:
            raise _error(
                "SubgraphTooDeep",
                f"subgraph nesting too deep on line {stmt.line}: at most "
                f"{MAX_SUBGRAPH_DEPTH} levels are supported",
                stmt,
                mermaid_id or title or "",
                f"at most {MAX_SUBGRAPH_DEPTH} nested subgraphs",
            )
        self.opening.append(opened)
        self.stack.append(opened)

    def _check_new_subgraph(self, mermaid_id: str, stmt: Statement) -> None:
        if mermaid_id in self.subgraph_names:
            raise _error(
                "DuplicateSubgraph",
                f"duplicate subgraph id on line {stmt.line}: {mermaid_id}",
                stmt,
                mermaid_id,
                "a subgraph id not used before",
            )
        if mermaid_id in self.edge_names:
            raise _error(
                "InvalidSubgraph",
                f"invalid subgraph id on line {stmt.line}: {mermaid_id} is already an edge id",
                stmt,
                mermaid_id,
                "a subgraph id that is not an edge id",
            )
        state = self.nodes.get(mermaid_id)
        if state is not None and (
            state.label != mermaid_id
            or state.shape != "rect"
            or state.attrs is not None
            or state.click is not None
        ):
            raise _error(
                "SubgraphAsNode",
                f"unsupported Mermaid syntax on line {stmt.line}: {mermaid_id} is already a "
                "node with a label, shape, attributes or click; as a subgraph it would lose "
                "them",
                stmt,
                mermaid_id,
                "a subgraph id that no node with a label, shape or click has",
            )

    def _subgraph_header(self, stmt: Statement, rest: str) -> tuple[str | None, str | None]:
        """(id or None when Mermaid generates it, title or None when the id is the title)."""
        if (
            _SUBGRAPH_WORD.fullmatch(rest)
            and decode_quoted(rest) is None
            and subgraph_id_problem(rest) is None
            and rest not in KEYWORDS
        ):
            return rest, None
        titled = _SUBGRAPH_TITLED.fullmatch(rest)
        title: str | None
        if titled is not None:
            mermaid_id, inner = titled.groups()
            self._check_subgraph_id(stmt, mermaid_id)
            title = decode_quoted(inner)
            if title is None:
                title = inner.strip()
                if '"' in title or "[" in title or "]" in title:
                    raise self._bad_title(stmt, rest)
            if "\r" in title or (title.strip() and "\n" in title and not inner.strip()):
                raise self._bad_title(stmt, rest)
            # Mermaid trims titles: a blank one (`[ ]`) is the empty title.
            self._writable(stmt, "subgraph title", title.strip(), subgraph_title_problem)
            return mermaid_id, title.strip()
        title = decode_quoted(rest)
        if title is None:
            if any(c in rest for c in '"[](){}|'):
                raise self._bad_title(stmt, rest)
            title = rest
        title = title.strip()
        if not title:
            raise self._bad_title(stmt, rest)
        self._writable(stmt, "subgraph title", title, subgraph_title_problem)
        if generated_subgraph_title(title):
            return None, title
        return title, title

    def _check_subgraph_id(self, stmt: Statement, mermaid_id: str) -> None:
        problem = subgraph_id_problem(mermaid_id)
        if problem is None and mermaid_id in KEYWORDS:
            problem = "is a Mermaid keyword"
        if problem is not None:
            raise _error(
                "InvalidSubgraph",
                f"invalid subgraph id on line {stmt.line}: {mermaid_id} ({problem})",
                stmt,
                mermaid_id,
                "letters, digits, '_', '-' or '.'",
            )

    def _bad_title(self, stmt: Statement, rest: str) -> MermaidError:
        return _error(
            "InvalidSubgraph",
            f"invalid subgraph header on line {stmt.line}: {rest} "
            "(expected 'subgraph <id>', 'subgraph <id> [<title>]' or 'subgraph \"<title>\"')",
            stmt,
            rest,
            "'subgraph <id>', 'subgraph <id> [<title>]' or 'subgraph \"<title>\"'",
        )

    def close(self, stmt: Statement) -> None:
        if not self.stack:
            raise _error(
                "UnmatchedEnd",
                f"unmatched 'end' on line {stmt.line}: no subgraph is open",
                stmt,
                "end",
                "a 'subgraph' before 'end'",
            )
        done = self.stack.pop()
        if done.mermaid_id is None:
            # Mermaid numbers generated ids by how many subgraphs closed before this one.
            done.mermaid_id = f"subGraph{len(self.closed)}"
            self._check_new_subgraph(done.mermaid_id, done.stmt)
            self.subgraph_names.add(done.mermaid_id)
        name = done.mermaid_id
        members: list[str] = []
        for member in done.mentions:
            if member not in self.claimed and member != name and not self._inside(name, member):
                self.claimed[member] = name
                members.append(member)
        self.members[name] = members
        self.closed[name] = _ClosedSubgraph(done.title, done.direction, done.stmt)
        if self.stack:
            # Mentions inside a nested subgraph are mentions inside its parent, too; the
            # nested subgraph itself is one (Mermaid's subgraph statement yields its id).
            self.stack[-1].mentions.extend(done.mentions)
            self.stack[-1].mentions.append(name)

    def _inside(self, name: str, other: str) -> bool:
        """Whether subgraph `name` is already (transitively) a member of `other`."""
        seen: set[str] = set()
        current: str | None = name
        while current is not None and current not in seen:
            if current == other:
                return True
            seen.add(current)
            current = self.claimed.get(current)
        return False

    def kw_direction(self, stmt: Statement, rest: str) -> None:
        if rest not in DIRECTIONS:
            raise _error(
                "InvalidDirection",
                f"invalid flowchart direction on line {stmt.line}: {rest} "
                "(expected TD/TB/LR/RL/BT)",
                stmt,
                rest,
                "TD, TB, LR, RL or BT",
            )
        if self.stack:
            self.stack[-1].direction = rest
        else:
            # Outside any subgraph it sets the diagram's direction (the last one wins).
            self.direction = rest

    def _split_style(self, stmt: Statement, rest: str, what: str) -> tuple[str, str]:
        targets, _, style = rest.partition(" ")
        if "\t" in targets:
            targets, _, more = targets.partition("\t")
            style = more + " " + style
        style = style.strip()
        if not style:
            raise self._unsupported(
                stmt, f"{what} needs a target and a style", f"'{what} <target> <style>'"
            )
        if what in ("classDef", "style"):
            self._writable(stmt, what, style, style_problem)
        return targets, style

    def _writable(
        self, stmt: Statement, what: str, value: str, rule: Callable[[str], str | None]
    ) -> None:
        """Refuse a value that could not be written back (the model's rule, decision 18)."""
        problem = rule(value)
        if problem is not None:
            raise MermaidError(
                "UnwritableValue",
                f"invalid {what} on line {stmt.line}: {value!r} ({problem})",
                line=stmt.line,
                column=stmt.column + max(stmt.text.find(value), 0),
                text=value,
                expected=f"a {what} value Mermaid can hold on one line",
            )

    def kw_classDef(self, stmt: Statement, rest: str) -> None:
        names, style = self._split_style(stmt, rest, "classDef")
        for name in names.split(","):
            if not _CLASS_NAME.fullmatch(name):
                raise self._unsupported(stmt, f"invalid class name '{name}'", "[A-Za-z0-9_-]+")
            old = self.class_defs.get(name)
            self.class_defs[name] = style if old is None else f"{old},{style}"

    def _known_node(self, stmt: Statement, name: str, what: str) -> _NodeState:
        state = self.nodes.get(name)
        if state is None:
            target = "unknown node"
            if name in self.subgraph_ids():
                target = "subgraph"
            elif name in self.edge_names:
                target = "edge"
            raise _error(
                "UnknownNode",
                f"unsupported Mermaid syntax on line {stmt.line}: {what} names {target} "
                f"'{name}' (only nodes declared {'in the diagram' if what == 'click' else 'above'} "
                "can be targeted)",
                stmt,
                name,
                "a node declared on an earlier line",
            )
        return state

    def kw_class(self, stmt: Statement, rest: str) -> None:
        targets, cls = self._split_style(stmt, rest, "class")
        for name in cls.split(","):
            if not _CLASS_NAME.fullmatch(name):
                raise self._unsupported(stmt, f"invalid class name '{name}'", "[A-Za-z0-9_-]+")
        for target in targets.split(","):
            if target in self.edge_names:
                index = self.edge_names[target]
                edge = self.edges[index]
                added = tuple(name for name in cls.split(",") if name not in edge.classes)
                self.edges[index] = msgspec.structs.replace(edge, classes=edge.classes + added)
                continue
            state = self._styled(stmt, target, "class")
            for name in cls.split(","):
                if name not in state.classes:
                    state.classes.append(name)

    def _styled(self, stmt: Statement, name: str, what: str) -> _NodeState:
        """The node, or the closed subgraph, a `class` line targets."""
        if name in self.closed and name not in self.nodes:
            # Kept with the name's node state; `finish` hands it to the subgraph.
            self.nodes[name] = _NodeState(label=name, shape="rect")
        if name in self.subgraph_names and name not in self.closed and name not in self.nodes:
            raise _error(
                "UnknownNode",
                f"unsupported Mermaid syntax on line {stmt.line}: {what} names subgraph "
                f"'{name}' before its 'end' (Mermaid ignores it there)",
                stmt,
                name,
                "a node declared above or a subgraph closed above",
            )
        return self._known_node(stmt, name, what)

    def kw_style(self, stmt: Statement, rest: str) -> None:
        target, style = self._split_style(stmt, rest, "style")
        if target in self.subgraph_names:
            state = self.nodes.setdefault(target, _NodeState(label=target, shape="rect"))
            state.style = style if state.style is None else f"{state.style},{style}"
            return
        problem = node_ident_problem(target)
        if problem is not None:
            raise _error(
                "InvalidNodeId",
                f"invalid node id on line {stmt.line}: {target} ({problem})",
                stmt,
                target,
                "a node id (letters, digits, _, single - . : between them)",
            )
        # Mermaid creates the node a `style` line names (flowDb.addVertex).
        self.mention(NodeRef(target, None, None, (), 0), stmt)
        state = self.nodes[target]
        state.style = style if state.style is None else f"{state.style},{style}"

    def kw_click(self, stmt: Statement, rest: str) -> None:
        """`click id callback|call f()|href "url"|"url" ["tooltip"] [_blank]`, kept as written.

        As in Mermaid the node may be declared further down (it is resolved at the end) and a
        later `click` for the same node replaces an earlier one.
        """
        target, action = self._split_style(stmt, rest, "click")
        self._writable(stmt, "click", action, click_problem)
        if target in self.nodes and target not in self.subgraph_names:
            self.nodes[target].click = action
        else:
            self.clicks.append((stmt, target, action))

    def kw_linkStyle(self, stmt: Statement, rest: str) -> None:
        targets, style = rest.partition(" ")[0], rest.partition(" ")[2].strip()
        if "\t" in targets:
            targets, _, more = targets.partition("\t")
            style = (more + " " + style).strip()
        if not style or not (targets == "default" or _INDEX_LIST.fullmatch(targets)):
            raise _error(
                "UnsupportedSyntax",
                f"unsupported Mermaid syntax on line {stmt.line}: {stmt.text}",
                stmt,
                stmt.text,
                "'linkStyle default|<i>[,<j>...] <style>'",
            )
        self._writable(stmt, "linkStyle", style, style_problem)
        self.link_styles.append((stmt, targets, style))

    # ---- result --------------------------------------------------------------------------

    def finish(self) -> FlowchartAst:
        if self.stack:
            top = self.stack[-1]
            shown = top.mermaid_id or top.title or ""
            raise MermaidError(
                "UnclosedSubgraph",
                f"unclosed subgraph {shown}: missing 'end' for subgraph opened on "
                f"line {top.stmt.line}",
                line=top.stmt.line,
                column=1,
                text=shown,
                expected="'end'",
            )
        for stmt, target, action in self.clicks:
            if target in self.subgraph_names:
                raise _error(
                    "UnknownNode",
                    f"unsupported Mermaid syntax on line {stmt.line}: click names subgraph "
                    f"'{target}' (Mermaid binds clicks to nodes only)",
                    stmt,
                    target,
                    "a node of the diagram",
                )
            self._known_node(stmt, target, "click").click = action
        styles: dict[int, str] = {}
        for stmt, targets, style in self.link_styles:
            if targets == "default":
                self.default_style = style
                continue
            for item in targets.split(","):
                index = int(item)
                if index >= len(self.edges):
                    raise MermaidError(
                        "InvalidLinkStyleIndex",
                        f"invalid flowchart linkStyle on line {stmt.line}: index {index} is out "
                        f"of bounds (max {max(len(self.edges) - 1, 0)})",
                        line=stmt.line,
                        column=stmt.column,
                        text=item,
                        expected=f"an index below {len(self.edges)}",
                    )
                styles[index] = style
        width = 4
        edges: dict[str, FlowEdge] = {}
        for index, edge in enumerate(self.edges):
            if index in styles:
                edge = msgspec.structs.replace(edge, style=styles[index])
            edge = msgspec.structs.replace(
                edge,
                from_node_id=self._end_id(edge.from_node_id),
                to_node_id=self._end_id(edge.to_node_id),
            )
            if edge.mermaid_id is not None:
                edges[f"e:{edge.mermaid_id}"] = edge
            else:
                edges[f"e:{index + 1:0{width}d}"] = edge
        subgraphs = self._subgraphs()
        nodes = {
            f"n:{name}": FlowNode(
                label=state.label,
                shape=state.shape,
                mermaid_id=name,
                classes=tuple(state.classes),
                style=state.style,
                click=state.click,
                attrs=state.attrs,
            )
            for name, state in self.nodes.items()
            if name not in self.subgraph_names
        }
        ast = FlowchartAst(
            direction=self.direction,
            nodes=nodes,
            edges=edges,
            subgraphs=subgraphs,
            class_defs=dict(self.class_defs),
            default_edge_style=self.default_style,
            front_matter=self.header.front_matter,
            acc_title=self.acc_title,
            acc_descr=self.acc_descr,
            directives=self.header.directives,
        )
        unwritable = flowchart_problem(ast)
        if unwritable is not None:  # a value no statement check above refused (a bug)
            raise MermaidError("UnwritableValue", unwritable.describe(), text=unwritable.value)
        return ast

    def _end_id(self, node_id: str) -> str:
        """`n:<name>` as parsed, or `sg:<name>` when the name turned out to be a subgraph."""
        name = node_id[2:]
        return f"sg:{name}" if name in self.subgraph_names else node_id

    def _subgraphs(self) -> dict[str, FlowSubgraph]:
        """Every subgraph, parents before children (the order the exporter writes them)."""
        order: list[str] = []

        def visit(name: str) -> None:
            order.append(name)
            for member in self.members[name]:
                if member in self.subgraph_names:
                    visit(member)

        for opened in self.opening:
            assert opened.mermaid_id is not None
            if opened.mermaid_id not in self.claimed:
                visit(opened.mermaid_id)
        result: dict[str, FlowSubgraph] = {}
        for name in order:
            closed = self.closed[name]
            state = self.nodes.get(name)
            result[f"sg:{name}"] = FlowSubgraph(
                mermaid_id=name,
                title=closed.title,
                direction=closed.direction,
                node_ids=tuple(
                    f"n:{m}" for m in self.members[name] if m not in self.subgraph_names
                ),
                subgraph_ids=tuple(
                    f"sg:{m}" for m in self.members[name] if m in self.subgraph_names
                ),
                classes=tuple(state.classes) if state is not None else (),
                style=state.style if state is not None else None,
            )
        return result


def generated_subgraph_title(title: str) -> bool:
    """Whether `subgraph <title>` (quoted or not) gets a generated id rather than the title.

    Mermaid generates one for a title with whitespace; Nereid also for a title that cannot be
    an id (`subgraph "`**Two**`"`), where Mermaid would keep an id no statement can name.
    """
    return (
        any(c.isspace() for c in title)
        or subgraph_id_problem(title) is not None
        or title in KEYWORDS
    )


def build_flowchart(header: Header, statements: list[Statement]) -> FlowchartAst:
    """Run every statement in order and return the AST (raises MermaidError)."""
    builder = _Builder(header)
    try:
        for stmt in statements:
            builder.statement(stmt)
    except LabelError as error:  # pragma: no cover - labels are checked in flowchart_syntax
        raise MermaidError("InvalidNodeLabel", str(error)) from None
    return builder.finish()
