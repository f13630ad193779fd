"""Mermaid state-diagram import (`stateDiagram-v2` / `stateDiagram`, spec decision 24).

A hand parser, one physical line at a time (Mermaid's state lexer is line-oriented too):
front matter, the header, then statements. What Mermaid reads is kept; what it refuses
raises a `MermaidError` with the line, column, text and what was expected. Comments: `%%`
lines, and a `%%` before any `: text` of a statement.

What the statements build (see `nereid.model.state` for ids and orders):

- `id`, `id : description`, `id:::class`, `state id`, `state "name" as id`,
  `state id <<choice>>` / `<<fork>>` / `<<join>>` (also `[[fork]]`...);
- `state id {` ... `}` (also `state "name" as id {`), with `direction` and `--` regions
  inside; a state belongs to the scope of its first mention;
- `a --> b` / `a --> b : label`, where `[*]` is the start (on the left) or end (on the
  right) of the current scope;
- `note left of id : text`, `note right of id` ... `end note` (several per state);
- `note "text" as N1` (a floating note, the text may span lines): the state `s:N1` of kind
  `note`, which transitions may link (`N1 --> S`);
- `classDef name css`, `class a,b name`, `style a,b css`, `accTitle:`, `accDescr:`,
  `accDescr {` ... `}`, `direction TB|BT|LR|RL`, and at the top level
  `hide empty description`, `scale <n> width` and `click id href "url"` /
  `click id "url" "tooltip"` (the last click of a state wins, as in Mermaid).
"""

from __future__ import annotations

import re
from typing import Final, Literal

import msgspec

from nereid.mermaid.errors import MermaidError, check_encodable
from nereid.mermaid.flowchart_lines import _physical_lines
from nereid.mermaid.preamble import take_preamble
from nereid.model.state import (
    PSEUDO_KINDS,
    STATE_DIRECTIONS,
    STATE_HEADERS,
    Scope,
    StateAst,
    StateKind,
    StateLink,
    StateNode,
    StateNote,
    StateTransition,
    canonical,
    mermaid_name,
    order_problem,
    pseudo_id,
    state_object_id,
)
from nereid.model.writable import acc_text_problem
from nereid.model.writable_state import (
    COMMENT_LINE,
    DIRECTION_ANYWHERE,
    MAX_STATE_DEPTH,
    class_name_problem,
    state_class_def_problem,
    state_floating_note_problem,
    state_id_problem,
    state_label_problem,
    state_link_problem,
    state_note_problem,
    state_text_problem,
)

__all__ = ["parse_state"]

_KEYWORD: Final = re.compile(
    r"(?i)(state|note|classDef|class|accTitle|accDescr|hide|scale|style|click)\b"
)
_SPECIAL: Final = re.compile(r"(?i)\s*(<<(choice|fork|join)>>|\[\[(choice|fork|join)\]\])\s*$")
_TRANSITION_NUMBER: Final = "t:{:04d}"


class _Line(msgspec.Struct, frozen=True):
    no: int
    column: int
    text: str
    #: The physical line went on in whitespace after `text`: Mermaid reads `s1 : ` (a blank
    #: description, no description at all) but refuses `s1 :`.
    padded: bool = False


def _error(
    kind: str, message: str, line: _Line, offset: int = 0, expected: str = ""
) -> MermaidError:
    return MermaidError(
        kind,
        f"{message} on line {line.no}",
        line=line.no,
        column=line.column + offset,
        text=line.text,
        expected=expected or None,
    )


def _first_colon(text: str, or_comment: bool = False) -> int | None:
    """Where `: text` starts (a `:` that is not part of `:::`), or where a `%%` before it
    starts when `or_comment`; None when there is neither. A quoted name (`state "a %% b"`)
    is text: neither starts inside it."""
    index = 0
    while index < len(text):
        if text.startswith(":::", index):
            index += 3
            continue
        if text[index] == '"':
            closing = text.find('"', index + 1)
            if closing < 0:
                return None
            index = closing + 1
            continue
        if text[index] == ":" or (or_comment and text.startswith("%%", index)):
            return index
        index += 1
    return None


def _strip_comment(text: str) -> str:
    """Cut a `%%` comment that starts before any `: text` part (Mermaid keeps it there)."""
    index = _first_colon(text, or_comment=True)
    return text[:index].rstrip() if index is not None and text[index] == "%" else text


class _Builder:
    def __init__(self) -> None:
        self.states: dict[str, StateNode] = {}
        self.transitions: dict[str, StateTransition] = {}
        self.class_defs: dict[str, str] = {}
        self.direction: str | None = None
        self.acc_title: str | None = None
        self.acc_descr: str | None = None
        self.hide_empty_description = False
        self.scale: str | None = None
        #: Open composite blocks: (state id, current region, line opened on).
        self.stack: list[list[object]] = []
        #: The line each state was first named on and each transition was written on
        #: (transitions by their final, numbered id once `build` ran): for errors.
        self.lines: dict[str, int] = {}

    @property
    def scope(self) -> Scope:
        if not self.stack:
            return (None, 0)
        state_id, region, _line = self.stack[-1]
        assert isinstance(state_id, str) and isinstance(region, int)
        return (state_id, region)

    # -- states ----------------------------------------------------------------------------

    def mention(self, name: str, line: _Line, offset: int) -> str:
        """The id of the state `name` (created in the current scope on first mention)."""
        problem = state_id_problem(name)
        if problem is not None:
            raise _error(
                "InvalidStateId",
                f"invalid state id {name!r}: {problem}",
                line,
                offset,
                "a state id (letters, digits, '_' and '.')",
            )
        state_id = state_object_id(name)
        if state_id not in self.states:
            parent, region = self.scope
            self.states[state_id] = StateNode(parent=parent, region=region)
            self.lines[state_id] = line.no
        return state_id

    def pseudo(self, kind: Literal["start", "end"]) -> str:
        state_id = pseudo_id(kind, self.scope)
        if state_id not in self.states:
            parent, region = self.scope
            self.states[state_id] = StateNode(kind=kind, parent=parent, region=region)
        return state_id

    def update(self, state_id: str, **changes: object) -> None:
        self.states[state_id] = msgspec.structs.replace(self.states[state_id], **changes)

    def add_class(self, state_id: str, name: str, line: _Line, offset: int) -> None:
        problem = class_name_problem(name)
        if problem is not None:
            raise _error(
                "InvalidClassName", f"invalid class name {name!r}: {problem}", line, offset
            )
        state = self.states[state_id]
        self.update(state_id, classes=(*state.classes, name))

    def end_ref(self, text: str, line: _Line, offset: int, side: Literal["start", "end"]) -> str:
        """One end of a transition: `[*]` or `id`, with an optional `:::class`."""
        name, sep, cls = text.partition(":::")
        name = name.strip()
        if name == "[*]":
            state_id = self.pseudo(side)
        else:
            state_id = self.mention(name, line, offset)
        if sep:
            self.add_class(state_id, cls.strip(), line, offset + text.index(":::") + 3)
        return state_id

    def set_kind(self, state_id: str, kind: StateKind, line: _Line) -> None:
        state = self.states[state_id]
        if state.kind != "state" and state.kind != kind:
            raise _error(
                "ConflictingStateKind",
                f"state {state_id[2:]!r} is already a {state.kind}",
                line,
            )
        if state.label is not None and kind != "state":
            raise _error(
                "ConflictingStateKind",
                f"a named state cannot be a {kind} (Mermaid reads the name as its id)",
                line,
            )
        if state.composite and kind != "state":
            raise _error(
                "ConflictingStateKind", f"composite state {state_id[2:]!r} cannot be a {kind}", line
            )
        self.update(state_id, kind=kind)

    def check_group_text(self, state_id: str, line: _Line) -> None:
        """Mermaid refuses a composite showing more than one text (name and descriptions)."""
        state = self.states[state_id]
        if state.composite and len(state.descriptions) + (state.label is not None) > 1:
            raise _error(
                "InvalidState",
                f"composite state {state_id[2:]!r} has a name and a description, or two "
                "descriptions (Mermaid: group nodes can only have a label)",
                line,
            )

    def check_text(self, text: str, line: _Line, offset: int, what: str) -> str:
        problem = state_text_problem(text)
        if problem is not None:
            raise _error("InvalidText", f"invalid {what} {text!r}: {problem}", line, offset)
        return text

    # -- statements ------------------------------------------------------------------------

    def statement(self, line: _Line) -> None:
        text = line.text
        if text == "}":
            self.close(line)
            return
        if text == "--":
            if not self.stack:
                raise _error(
                    "UnexpectedConcurrency",
                    "'--' (a concurrency region) outside a composite state",
                    line,
                    expected="'--' inside 'state X { ... }'",
                )
            region = self.stack[-1][1]
            assert isinstance(region, int)
            self.stack[-1][1] = region + 1
            return
        if DIRECTION_ANYWHERE.search(text) and re.match(r"(?i)direction\b", text) is None:
            raise _error(
                "UnsupportedSyntax",
                "a line holding 'direction <dir>' is read by Mermaid as a direction statement",
                line,
                DIRECTION_ANYWHERE.search(text).start(),  # type: ignore[union-attr]
                "'direction X' alone on its line",
            )
        if re.match(r"(?i)direction\b", text):
            self.direction_statement(line)
            return
        keyword = _KEYWORD.match(text)
        if keyword is not None:
            word = keyword.group(1).lower()
            rest = text[keyword.end() :]
            if word == "acctitle" or word == "accdescr":
                self.acc(line, word, rest)
                return
            if rest[:1].isspace():
                getattr(self, f"_{word}")(line, rest, keyword.end())
                return
        if "-->" in text:
            self.transition(line)
            return
        self.plain(line)

    def direction_statement(self, line: _Line) -> None:
        parts = line.text.split()
        if len(parts) != 2 or parts[1].upper() not in STATE_DIRECTIONS:
            raise _error(
                "InvalidDirection",
                f"invalid state diagram direction: {line.text[9:].strip() or '(none)'}",
                line,
                min(10, len(line.text)),
                "TB, BT, LR or RL",
            )
        value = parts[1].upper()
        if self.stack:
            state_id = self.stack[-1][0]
            assert isinstance(state_id, str)
            self.update(state_id, direction=value)
        else:
            self.direction = value

    def acc(self, line: _Line, word: str, rest: str) -> None:
        stripped = rest.lstrip()
        if not stripped.startswith(":"):
            raise _error(
                "UnsupportedSyntax",
                f"expected ':' after {word}",
                line,
                len(line.text) - len(stripped),
                f"'{'accTitle' if word == 'acctitle' else 'accDescr'}: text'",
            )
        value = stripped[1:].strip()
        problem = acc_text_problem(value) if value else "must not be empty"
        if problem is not None:
            raise _error("InvalidText", f"invalid {word} text: {problem}", line)
        if word == "acctitle":
            self.acc_title = value
        else:
            self.acc_descr = value

    def top_level_only(self, line: _Line, what: str) -> None:
        if self.stack:
            raise _error(
                "UnsupportedSyntax",
                f"'{what}' inside a composite state: Mermaid reads it only at the top level "
                "(inside, each word would become a state)",
                line,
                expected="a statement of a composite state",
            )

    def _hide(self, line: _Line, rest: str, offset: int) -> None:
        if re.fullmatch(r"(?i)hide empty description", line.text) is None:
            raise _error(
                "UnsupportedSyntax",
                f"unsupported state diagram syntax: {line.text}",
                line,
                expected="'hide empty description' alone on its line",
            )
        self.top_level_only(line, "hide empty description")
        self.hide_empty_description = True

    def _scale(self, line: _Line, rest: str, offset: int) -> None:
        match = re.fullmatch(r"\s+([0-9]+)\s+width", rest, re.IGNORECASE)
        if match is None:
            raise _error(
                "InvalidScale",
                f"invalid scale statement: {line.text}",
                line,
                offset,
                "scale <n> width",
            )
        self.top_level_only(line, "scale")
        self.scale = match.group(1)

    def _click(self, line: _Line, rest: str, offset: int) -> None:
        match = re.fullmatch(r'\s*(\S+)\s+(?:(?i:href)\s*"([^"]*)"|"([^"]*)"\s*"([^"]*)")\s*', rest)
        if match is None:
            raise _error(
                "InvalidClick",
                "invalid click statement",
                line,
                offset,
                'click id href "url" or click id "url" "tooltip"',
            )
        self.top_level_only(line, "click")
        state_id = self.mention(match.group(1), line, offset + match.start(1))
        url = match.group(2) if match.group(2) is not None else match.group(3)
        tooltip = match.group(4)
        for text in (url, tooltip):
            problem = None if text is None else state_link_problem(text)
            if problem is not None:
                raise _error(
                    "InvalidClick", f"invalid click text {text!r}: {problem}", line, offset
                )
        self.update(state_id, link=StateLink(url=url, tooltip=tooltip))

    def _style(self, line: _Line, rest: str, offset: int) -> None:
        match = re.fullmatch(r"(\s*)(\w+(?:,\w+)*)\s+(\S.*)", rest, re.ASCII)
        if match is None:
            raise _error(
                "InvalidStyle",
                "invalid style statement",
                line,
                offset,
                "style id1,id2 css",
            )
        style = match.group(3).strip()
        problem = state_class_def_problem(style)
        if problem is not None:
            raise _error(
                "InvalidStyle", f"invalid style {style!r}: {problem}", line, offset + match.start(3)
            )
        for name in match.group(2).split(","):
            state_id = self.mention(name, line, offset + match.start(2))
            state = self.states[state_id]
            self.update(state_id, styles=(*state.styles, style))

    def _classdef(self, line: _Line, rest: str, offset: int) -> None:
        parts = rest.strip().split(maxsplit=1)
        if len(parts) != 2:
            raise _error(
                "InvalidClassDef",
                "classDef needs a name and styles",
                line,
                expected="classDef name css",
            )
        name, style = parts[0], parts[1].strip()
        problem = None if name.lower() == "default" else class_name_problem(name)
        problem = problem or state_class_def_problem(style)
        if problem is not None:
            raise _error("InvalidClassDef", f"invalid classDef {name!r}: {problem}", line, offset)
        self.class_defs["default" if name.lower() == "default" else name] = style

    def _class(self, line: _Line, rest: str, offset: int) -> None:
        match = re.fullmatch(r"\s*(\w+(?:\s*,\s*\w+)*)\s+(\S+)\s*", rest, re.ASCII)
        if match is None:
            raise _error(
                "InvalidClass",
                "invalid class statement",
                line,
                offset,
                "class id1,id2 className",
            )
        for name in match.group(1).split(","):
            state_id = self.mention(name.strip(), line, offset + match.start(1))
            self.add_class(state_id, match.group(2), line, offset + match.start(2))

    def _note(self, line: _Line, rest: str, offset: int) -> None:
        match = re.match(r"\s*(left of|right of)\s+([^:\s]+)\s*", rest, re.IGNORECASE)
        if match is None:
            raise _error(
                "InvalidNote",
                "invalid note",
                line,
                offset,
                'note left of|right of <state> : text, or note "text" as <id>',
            )
        state_id = self.note_target(match.group(2), line, offset + match.start(2))
        tail = rest[match.end() :]
        if not tail.startswith(":"):
            raise _error(
                "InvalidNote", "expected ':' and the note text", line, offset + match.end()
            )
        self.set_note(state_id, match.group(1).lower(), tail[1:].strip(), line, one_line=True)

    def note_target(self, name: str, line: _Line, offset: int) -> str:
        """The state a `note left of|right of` names; `[*]` is the scope's start (Mermaid)."""
        return self.pseudo("start") if name == "[*]" else self.mention(name, line, offset)

    def set_note(self, state_id: str, side: str, text: str, line: _Line, *, one_line: bool) -> None:
        problem = state_note_problem(text)
        if problem is None and one_line and (":" in text or ";" in text):
            problem = "contains ':' or ';' (write the note over several lines)"
        if problem is not None:
            raise _error("InvalidNote", f"invalid note text: {problem}", line)
        state = self.states[state_id]
        note = StateNote(text=text, side="left of" if side == "left of" else "right of")
        self.update(state_id, notes=(*state.notes, note))

    def floating_note(self, text: str, name: str, line: _Line, offset: int) -> None:
        """`note "text" as N1`: the state `s:N1` becomes (or is created as) a floating note."""
        problem = state_floating_note_problem(text)
        if problem is not None:
            raise _error("InvalidNote", f"invalid floating note text: {problem}", line)
        state_id = self.mention(name, line, offset)
        state = self.states[state_id]
        if state.kind != "state" or state.label or state.descriptions or state.composite:
            raise _error(
                "ConflictingStateKind",
                f"state {name!r} is already a {'composite ' if state.composite else ''}"
                f"{state.kind}{' with a name or text' if state.label or state.descriptions else ''}"
                "; a floating note needs an id of its own",
                line,
                offset,
            )
        self.update(state_id, kind="note", label=text)

    def _state(self, line: _Line, rest: str, offset: int) -> None:
        body = rest.strip()
        start = offset + (len(rest) - len(rest.lstrip()))
        opens = False
        if body.endswith("{"):
            opens = True
            body = body[:-1].rstrip()
        elif body.endswith("}") and body[:-1].rstrip().endswith("{"):
            body = body[:-1].rstrip()[:-1].rstrip()
            state_id = self.state_head(body, line, start)
            self.make_composite(state_id, line)
            return
        special = _SPECIAL.search(body)
        if special is not None and not opens:
            name = body[: special.start()].strip()
            state_id = self.mention(name, line, start)
            kind = (special.group(2) or special.group(3)).lower()
            self.set_kind(state_id, kind, line)  # type: ignore[arg-type]
            return
        state_id = self.state_head(body, line, start)
        if opens:
            self.make_composite(state_id, line)
            self.stack.append([state_id, 0, line.no])
            if len(self.stack) > MAX_STATE_DEPTH:
                raise _error(
                    "TooDeep", f"composite states nest deeper than {MAX_STATE_DEPTH} levels", line
                )

    def state_head(self, body: str, line: _Line, offset: int) -> str:
        """`"name" as id`, `id`: the state, its name set."""
        if body.startswith('"'):
            close = body.find('"', 1)
            match = re.match(r'"([^"]*)"\s+as\s+([^\s:]+)\s*(:.*)?$', body)
            if close < 0 or match is None:
                raise _error(
                    "InvalidState",
                    "invalid state declaration",
                    line,
                    offset,
                    'state "name" as id',
                )
            label = "\n".join(part.strip() for part in match.group(1).strip().split("\n"))
            name = match.group(2)
            problem = state_label_problem(label)
            if problem is not None:
                raise _error(
                    "InvalidText", f"invalid state name {label!r}: {problem}", line, offset
                )
            description = (
                None if match.group(3) is None else _text_after(body, match.start(3), line)
            )
            state_id = self.mention(name, line, offset + match.start(2))
            if self.states[state_id].kind != "state":
                raise _error(
                    "ConflictingStateKind",
                    f"a {self.states[state_id].kind} state cannot have a name",
                    line,
                    offset,
                )
            self.update(state_id, label=label)
            self.check_group_text(state_id, line)
            if description is not None:
                self.add_description(state_id, description, line, offset)
            return state_id
        if not body or len(body.split()) != 1:
            raise _error("InvalidState", "invalid state declaration", line, offset, "state id")
        return self.mention(body, line, offset)

    def make_composite(self, state_id: str, line: _Line) -> None:
        if self.states[state_id].kind != "state":
            raise _error(
                "ConflictingStateKind",
                f"a {self.states[state_id].kind} state cannot be composite",
                line,
            )
        scope_ids = [entry[0] for entry in self.stack]
        if state_id in scope_ids:
            raise _error("InvalidState", f"state {state_id[2:]!r} cannot contain itself", line)
        self.update(state_id, composite=True)
        self.check_group_text(state_id, line)

    def close(self, line: _Line) -> None:
        if not self.stack:
            raise _error(
                "UnexpectedBrace",
                "unexpected '}' outside a composite state",
                line,
                expected="a statement",
            )
        self.stack.pop()

    def add_description(self, state_id: str, text: str, line: _Line, offset: int) -> None:
        self.check_text(text, line, offset, "description")
        state = self.states[state_id]
        if state.kind == "note":
            raise _error(
                "ConflictingStateKind",
                f"{state_id[2:]!r} is a floating note; it has no description",
                line,
                offset,
            )
        self.update(state_id, descriptions=(*state.descriptions, text))
        self.check_group_text(state_id, line)

    def transition(self, line: _Line) -> None:
        text = line.text
        arrow = text.index("-->")
        left, right = text[:arrow], text[arrow + 3 :]
        label: str | None = None
        colon = _description_colon(right)
        if colon is not None:
            label = _text_after(right, colon, line)
            right = right[:colon]
        if not left.strip() or not right.strip():
            raise _error(
                "InvalidTransition",
                "a transition needs a state on both sides of '-->'",
                line,
                arrow,
                "a --> b",
            )
        if "-->" in right:
            raise _error(
                "InvalidTransition",
                "one transition per line",
                line,
                arrow + 3 + right.index("-->"),
                "a --> b",
            )
        source = self.end_ref(left, line, 0, "start")
        target = self.end_ref(right, line, arrow + 3 + (len(right) - len(right.lstrip())), "end")
        if label is not None:
            self.check_text(label, line, arrow + 3 + (colon or 0), "transition label")
        transition_id = _TRANSITION_NUMBER.format(len(self.transitions) + 1)
        self.transitions[transition_id] = StateTransition(
            from_state_id=source, to_state_id=target, label=label
        )
        self.lines[transition_id] = line.no

    def plain(self, line: _Line) -> None:
        text = line.text
        colon = _description_colon(text)
        head = text if colon is None else text[:colon]
        if not head.strip() or len(head.split()) != 1:
            raise _error(
                "UnsupportedSyntax",
                f"unsupported state diagram syntax: {text}",
                line,
                expected="a state, a transition 'a --> b' or a statement",
            )
        state_id = self.end_ref(head.strip(), line, 0, "start")
        description = None if colon is None else _text_after(text, colon, line)
        if colon is not None and self.states[state_id].kind in PSEUDO_KINDS:
            raise _error("UnsupportedSyntax", "'[*]' has no description", line, colon)
        if description is not None:
            self.add_description(state_id, description, line, (colon or 0) + 1)

    def build(self, header: str, front_matter: str | None) -> StateAst:
        """The AST in canonical order, transitions numbered in that order."""
        ast = canonical(
            StateAst(
                header=header,
                direction=self.direction,
                states=self.states,
                transitions=self.transitions,
                class_defs=self.class_defs,
                acc_title=self.acc_title,
                acc_descr=self.acc_descr,
                front_matter=front_matter,
                hide_empty_description=self.hide_empty_description,
                scale=self.scale,
            )
        )
        numbered = {
            _TRANSITION_NUMBER.format(index): transition
            for index, transition in enumerate(ast.transitions.values(), start=1)
        }
        written = {
            key: self.lines.get(old) for key, old in zip(numbered, ast.transitions, strict=True)
        }
        self.lines.update({key: no for key, no in written.items() if no is not None})
        return msgspec.structs.replace(ast, transitions=numbered)


def _text_after(text: str, colon: int, line: _Line) -> str | None:
    """The text of `: text` at `colon`, trimmed; None for a blank one that Mermaid reads as
    no text (`s1 : `, whitespace after the colon), "" (refused later) for `s1 :`."""
    after = text[colon + 1 :].strip()
    if not after and (text[colon + 1 :] or line.padded):
        return None
    return after


def _description_colon(text: str) -> int | None:
    """Where `: text` starts (a `:` that is not part of `:::`), or None."""
    return _first_colon(text)


def _header(trimmed: str, line_no: int) -> str:
    if trimmed in STATE_HEADERS:
        return trimmed
    raise MermaidError(
        "MissingHeader",
        f"expected 'stateDiagram-v2' or 'stateDiagram' as the first non-empty line (line {line_no})",
        line=line_no,
        column=1,
        text=trimmed,
        expected="'stateDiagram-v2' or 'stateDiagram' alone on its line",
    )


def parse_state(text: str) -> StateAst:
    """Import a Mermaid state diagram (raises MermaidError, and nothing else, on any input)."""
    check_encodable(text)
    preamble = take_preamble(text)
    lines = _physical_lines(preamble.text)
    front_matter, index = preamble.front_matter, 0
    header: str | None = None
    builder = _Builder()
    while index < len(lines):
        raw = lines[index]
        line_no = index + 1
        index += 1
        trimmed = raw.strip()
        if not trimmed or trimmed.startswith("%%"):
            continue
        if header is None:
            header = _header(_strip_comment(trimmed), line_no)
            continue
        column = len(raw) - len(raw.lstrip()) + 1
        if re.match(r'(?i)note\s+"', trimmed):
            index = _floating_note(builder, lines, index, _Line(line_no, column, trimmed))
            continue
        if re.match(r'(?i)state\s+"[^"]*$', trimmed):  # a quoted name runs to its `"`
            index, line = _multi_line_name(lines, index, _Line(line_no, column, trimmed))
            builder.statement(line)
            continue
        statement = _strip_comment(trimmed)
        if not statement:
            continue
        line = _Line(line_no, column, statement, padded=raw.rstrip() != raw)
        if ";" in statement and not re.match(
            r"(?i)(classDef\s|style\s|accTitle\s*:|accDescr\s*:)", statement
        ):
            raise _error(
                "UnsupportedSyntax",
                "';' is not a statement separator in a state diagram",
                line,
                statement.index(";"),
                "one statement per line",
            )
        note = re.fullmatch(r"(?i)note\s+(left of|right of)\s+([^:\s]+)", statement)
        if note is not None:
            index = _multi_line_note(builder, lines, index, line, note.group(1), note.group(2))
            continue
        descr = re.fullmatch(r"(?i)accDescr\s*\{(.*)", statement)
        if descr is not None:
            index = _multi_line_descr(builder, lines, index, line, descr.group(1))
            continue
        builder.statement(line)
    if header is None:
        raise MermaidError(
            "MissingHeader",
            "expected 'stateDiagram-v2' or 'stateDiagram' as the first non-empty line",
            expected="'stateDiagram-v2' or 'stateDiagram'",
        )
    if builder.stack:
        opened = builder.stack[-1][2]
        raise MermaidError(
            "UnclosedState",
            f"composite state opened on line {opened} is not closed",
            line=int(opened),  # type: ignore[call-overload]
            column=1,
            expected="'}'",
        )
    ast = msgspec.structs.replace(
        builder.build(header, front_matter), directives=preamble.directives
    )
    misplaced = order_problem(ast)
    if misplaced is not None:  # what the text says could not be written back as it reads
        object_id, why = misplaced
        where = builder.lines.get(object_id, len(lines))
        raise MermaidError(
            "Unwritable",
            f"cannot keep this state diagram: {_described(ast, object_id)}: {why} (line {where})",
            line=where,
            column=1,
            expected="each composite's states and its [*] transitions in one block",
        )
    return ast


def _described(ast: StateAst, object_id: str) -> str:
    """`the transition 'a --> [*]'` / `the state 'x'` for an error message."""
    transition = ast.transitions.get(object_id)
    if transition is None:
        return f"the state {mermaid_name(object_id)!r}"
    ends = (transition.from_state_id, transition.to_state_id)
    names = ["[*]" if ast.states[end].kind in PSEUDO_KINDS else mermaid_name(end) for end in ends]
    return f"the transition '{names[0]} --> {names[1]}'"


def _multi_line_note(
    builder: _Builder, lines: list[str], index: int, line: _Line, side: str, name: str
) -> int:
    collected: list[str] = []
    while index < len(lines):
        raw = lines[index]
        index += 1
        lowered = raw.lower()
        position = lowered.find("end note")
        if position >= 0:
            before = raw[:position].strip()
            if before:
                collected.append(before)
            after = raw[position + len("end note") :].strip()
            if after and not after.startswith("%%"):
                raise _error(
                    "UnsupportedSyntax",
                    f"text after 'end note' on line {index}",
                    line,
                    expected="'end note' at the end of its line",
                )
            state_id = builder.note_target(name, line, line.text.lower().find(name.lower()))
            while collected and not collected[0]:
                collected.pop(0)
            while collected and not collected[-1]:
                collected.pop()
            builder.set_note(state_id, side.lower(), "\n".join(collected), line, one_line=False)
            return index
        collected.append(raw.strip())
    raise _error("UnclosedNote", "note is not closed", line, expected="'end note'")


def _multi_line_name(lines: list[str], index: int, line: _Line) -> tuple[int, _Line]:
    """`state "a long` / `name" as s1`: Mermaid reads a quoted name up to its closing `"`."""
    collected = [line.text]
    raw = lines[index - 1]
    while '"' not in collected[-1] or len(collected) == 1:
        if index >= len(lines):
            raise _error("InvalidState", "the quoted state name is not closed", line, 0, "'\"'")
        raw = lines[index]
        index += 1
        if COMMENT_LINE.match(raw):  # Mermaid drops these before it reads the quotes
            continue
        collected.append(raw.strip())
    last, quote, tail = collected[-1].partition('"')
    collected[-1] = last + quote + _strip_comment(tail)
    return index, _Line(line.no, line.column, "\n".join(collected), padded=raw.rstrip() != raw)


def _floating_note(builder: _Builder, lines: list[str], index: int, line: _Line) -> int:
    """`note "text" as N1`, the text possibly over several lines (Mermaid reads to the `"`)."""
    opening = line.text.index('"')
    collected = [line.text[opening + 1 :]]
    while '"' not in collected[-1]:
        if index >= len(lines):
            raise _error("UnclosedNote", "floating note text is not closed", line, opening, "'\"'")
        collected.append(lines[index])
        index += 1
    last, _quote, tail = collected[-1].partition('"')
    collected[-1] = last
    parts = [part.strip() for part in collected]
    while parts and not parts[0]:
        parts.pop(0)
    while parts and not parts[-1]:
        parts.pop()
    tail = _strip_comment(tail.strip())
    alias = re.fullmatch(r"(?i)as\s*(\S+)", tail)
    where = line if len(collected) == 1 else _Line(line.no + len(collected) - 1, 1, tail)
    if alias is None:
        raise _error(
            "InvalidNote",
            "a floating note needs 'as <id>' after its text",
            where,
            expected='note "text" as N1',
        )
    builder.floating_note("\n".join(parts), alias.group(1), line, opening)
    return index


def _multi_line_descr(
    builder: _Builder, lines: list[str], index: int, line: _Line, first: str
) -> int:
    collected: list[str] = [first]
    while True:
        closing = collected[-1].find("}")
        if closing >= 0:
            collected[-1] = collected[-1][:closing]
            break
        if index >= len(lines):
            raise _error("UnclosedAccDescr", "accDescr { is not closed", line, expected="'}'")
        collected.append(lines[index])
        index += 1
    kept = [
        part.strip() for part in collected if part.strip() and not part.strip().startswith("%%")
    ]
    value = "\n".join(kept)
    problem = acc_text_problem(value) if value else "must not be empty"
    if problem is not None:
        raise _error("InvalidText", f"invalid accDescr text: {problem}", line)
    builder.acc_descr = value
    return index
