"""Mermaid sequence diagrams: text -> `SequenceAst` (this module) and back (`export_sequence`).

The importer is a line classifier in front of the Lark grammar (`sequence.lark`): each kept
line (mermaid.md §3) is split into statements at `;` (as Mermaid does, see
`sequence_rules`), the first token picks the statement kind, and only messages, declarations
and notes are parsed by the grammar (with a fast path for the common message form). Ids are
derived as in mermaid.md §6.1, plus `note:NNNN` and `act:NNNN` (docs/model.md); every
timeline item gets `order_key = 1000 × position`.

Participant boxes (`box [colour] [label]` ... `end`) hold participant declarations only, are
not nested and are not inside blocks; a participant is declared in at most one box, and not
mentioned before its box (so every box's participants are consecutive, as the exporter writes
them).

Keywords are matched ignoring case, as Mermaid's lexer does (`Participant`, `NOTE`, `End`);
`#` starts a comment except in an entity code (`#59;`). `create participant|actor X` marks the
next message (which must go to X) as the one that creates X (`SeqParticipant.created_by`);
`destroy X` marks the next message involving X as the one that ends it (`destroyed_by`). The
first `autonumber` before any message is `SequenceAst.autonumber`; later ones (`off`,
restarts) are `autonumber_changes` anchored to the next message. `wrap:`/`nowrap:` before a
message or note text is the item's `wrap` flag; `A()->>B` / `A->>()B` set `from_central` /
`to_central`.

Everything Mermaid allows that the model cannot hold (`properties`, `details`) is refused with
a `MermaidError` that names the line, the column and the construct; nothing is dropped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Final, Literal, NoReturn, cast

import msgspec

from nereid.mermaid.accessibility import ACC_START, read_accessibility
from nereid.mermaid.errors import MermaidError, check_encodable, kept_lines
from nereid.mermaid.preamble import take_preamble
from nereid.mermaid.sequence_box import parse_box_header
from nereid.mermaid.sequence_export import export_sequence
from nereid.mermaid.sequence_grammar import (
    FAST_MESSAGE,
    PLAIN_LINE,
    lark_note,
    parse_declaration,
    parse_message,
)
from nereid.mermaid.sequence_parts import DeclarationParts, StatementSyntaxError
from nereid.mermaid.sequence_rules import (
    KEYWORDS,
    SPACED_KEYWORDS,
    leading_keyword,
    participant_name_problem,
    sequence_text_problem,
    split_statements,
    strip_comment,
)
from nereid.model.sequence import (
    ARROW_KINDS,
    CANONICAL_ARROW,
    PARTICIPANT_ROLES,
    MessageKind,
    SeqActivation,
    SeqAutonumber,
    SeqAutonumberChange,
    SeqBlock,
    SeqBox,
    SeqMessage,
    SeqNote,
    SeqParticipant,
    SeqSection,
    SequenceAst,
)
from nereid.model.writable import link_problem, sequence_problem

__all__ = ["MAX_BLOCK_DEPTH", "export_sequence", "parse_sequence"]

MAX_BLOCK_DEPTH: Final = 8
HEADER: Final = "sequenceDiagram"

_BLOCK_OPENERS: Final = frozenset(
    {"alt", "opt", "loop", "par", "par_over", "critical", "break", "rect"}
)
#: Section keyword (also the section kind) -> (block kinds it belongs to, error kind).
_SECTION_KEYWORDS: Final = {
    "else": (("alt",), "ElseOutsideAlt"),
    "and": (("par", "par_over"), "AndOutsidePar"),
    "option": (("critical",), "OptionOutsideCritical"),
}
_UNSUPPORTED: Final = {
    "properties": "participant 'properties' are not supported by Nereid",
    "details": "participant 'details' are not supported by Nereid",
    "over": "'over' only follows 'Note'",
    "off": "'off' only follows 'autonumber'",
    "sequencediagram": "the header 'sequenceDiagram' appears only once",
}
_ANY_ARROW: Final = re.compile(r"->|-x|-\)|-\|[\\/]|-//|-\\\\|[\\/][|\\/]-")
_WRAP: Final = re.compile(r":?(no)?wrap:")
#: Words a plain message's names must not be (in any case) to skip the statement path: a
#: keyword starts another statement, or makes the name invalid.
_NAME_KEYWORDS: Final = KEYWORDS | SPACED_KEYWORDS
_ARROW_TOKENS_LONGEST_FIRST: Final = sorted(ARROW_KINDS, key=len, reverse=True)
#: The arrows `FAST_MESSAGE` reads -> (kind, the written token if not the kind's own).
_PLAIN_ARROWS: Final = {
    token: (kind, None if CANONICAL_ARROW[kind] == token else token)
    for token, kind in ARROW_KINDS.items()
}
_ACTIVATION_MARKS: Final[dict[str, Literal["+", "-"] | None]] = {"": None, "+": "+", "-": "-"}
_META_KEY: Final = re.compile(r"""\s*(?:"([^"]*)"|'([^']*)'|([A-Za-z_]+))\s*:\s*(.*?)\s*""")
_DECL_EXPECTED: Final = '\'{kw} <name> [@{{ "type": "<type>" }}] [as <alias>]\''
_NOTE_EXPECTED: Final = "'Note left of|right of|over <participant>[,<participant>]: <text>'"
_MESSAGE_EXPECTED: Final = "'<from><arrow><to>: <text>'"


def parse_sequence(text: str) -> SequenceAst:
    """Import a Mermaid sequence diagram. Raises MermaidError (and nothing else) on bad text."""
    check_encodable(text)
    return _Importer().run(text)


@dataclass(slots=True)
class _OpenSection:
    section_id: str
    kind: str
    header: str | None
    message_ids: list[str] = field(default_factory=list)
    note_ids: list[str] = field(default_factory=list)


@dataclass
class _OpenBlock:
    index: int
    kind: str
    header: str | None
    line: int
    sections: list[_OpenSection] = field(default_factory=list)
    children: list[SeqBlock] = field(default_factory=list)

    @property
    def block_id(self) -> str:
        return f"b:{self.index:04d}"

    def open_section(self, kind: str, header: str | None) -> None:
        section_id = f"sec:{self.index:04d}:{len(self.sections):02d}"
        self.sections.append(_OpenSection(section_id, kind, header))

    def freeze(self) -> SeqBlock:
        return SeqBlock(
            block_id=self.block_id,
            kind=self.kind,
            header=self.header,
            sections=tuple(
                SeqSection(
                    section_id=s.section_id,
                    kind=s.kind,
                    header=s.header,
                    message_ids=tuple(s.message_ids),
                    note_ids=tuple(s.note_ids),
                )
                for s in self.sections
            ),
            blocks=tuple(self.children),
        )


#: `message_id_of(n)` for n below `_SHARED_IDS`, made as they are first needed: a message
#: id is a formatted number, dearer than its message's other fields together.
_MESSAGE_IDS: Final[list[str]] = []
_SHARED_IDS: Final = 10_000


def message_id_of(number: int) -> str:
    """The id of the `number`th message (1-based): `m:0001` (mermaid.md §6.1)."""
    if number >= len(_MESSAGE_IDS) and number < _SHARED_IDS:
        more = range(len(_MESSAGE_IDS), min(max(2 * number, 256), _SHARED_IDS))
        _MESSAGE_IDS.extend([f"m:{n:04d}" for n in more])
    return _MESSAGE_IDS[number] if number < _SHARED_IDS else f"m:{number:04d}"


#: A plain message's participant ids, kind, written arrow and activation mark.
_Route = tuple[str, str, MessageKind, str | None, Literal["+", "-"] | None]


@dataclass(slots=True)
class _Statement:
    """One statement: its text, physical line, and the column (1-based) of its first char."""

    text: str
    line: int
    column: int

    def col(self, offset: int) -> int:
        return self.column + offset


class _Importer:
    """Builds one SequenceAst; single use."""

    def __init__(self) -> None:
        self.participants: dict[str, SeqParticipant] = {}
        self.messages: list[SeqMessage] = []
        self.notes: list[SeqNote] = []
        self.activations: list[SeqActivation] = []
        self.open_blocks: list[_OpenBlock] = []
        self.root_blocks: list[SeqBlock] = []
        self.block_count = 0
        self.timeline = 0
        self.autonumber: SeqAutonumber | None = None
        self.autonumber_line: int | None = None
        self.title: str | None = None
        self.title_line: int | None = None
        self.boxes: list[SeqBox] = []
        #: The open box: (its `box` statement, colour, label, participant ids so far).
        self.open_box: tuple[_Statement, str | None, str | None, list[str]] | None = None
        self.autonumber_changes: list[SeqAutonumberChange] = []
        #: `autonumber` statements waiting for the next message (their anchor).
        self.pending_numbering: list[SeqAutonumberChange] = []
        self.acc_title: str | None = None
        self.acc_descr: str | None = None
        #: `create ...` / `destroy X` waiting for their message: (participant id, statement).
        self.pending_create: tuple[str, _Statement] | None = None
        self.pending_destroy: tuple[str, _Statement] | None = None
        #: Messages the statement path took: `plain_message`'s have names and a text that
        #: are writable by construction.
        self.unproven: list[SeqMessage] = []
        #: What `plain_message` read from the names, arrow and activation mark of the lines
        #: it took: (from id, to id, kind, written arrow, activation).
        self.routes: dict[str, _Route] = {}

    # ---- driver -------------------------------------------------------------------------

    def run(self, text: str) -> SequenceAst:
        preamble = take_preamble(text)
        body = preamble.text
        if body.startswith("\ufeff"):
            body = body[1:]
        # The lines as `iter_lines` gives them; the loop below reads most of them raw first.
        numbered = enumerate(body.split("\n"), start=1)
        lines = kept_lines(numbered)
        first = next(lines, None)
        if first is None or first[2] != HEADER:
            line_no = first[0] if first is not None else None
            raise MermaidError(
                "MissingHeader",
                "expected 'sequenceDiagram' as the first non-empty line",
                line=line_no,
                column=1 if first is not None else None,
                text=first[2] if first is not None else None,
                expected=HEADER,
            )
        plain_line = PLAIN_LINE.fullmatch
        plain_message = self.plain_message
        for line_no, raw in numbered:
            # A whole plain message line (as trimmed it would match FAST_MESSAGE alike).
            match = plain_line(raw)
            if match is not None and "#" not in raw and ";" not in raw and plain_message(match):
                continue
            if raw.endswith("\r"):  # the rest of `kept_lines`
                raw = raw[:-1]
            trimmed = raw.strip()
            if not trimmed or trimmed.startswith("%%"):
                continue
            whole = "#" not in trimmed and ";" not in trimmed  # one statement, no comment
            # PLAIN_LINE read the trimmed line already unless other whitespace leads it.
            if whole and match is None and not raw.lstrip(" \t").startswith(trimmed):
                match = FAST_MESSAGE.fullmatch(trimmed)
                if match is not None and plain_message(match):
                    continue
            indent = len(raw) - len(raw.lstrip())
            if ACC_START.match(trimmed):
                self.accessibility(_Statement(trimmed, line_no, indent + 1), lines)
                continue
            if whole:
                self.statement(_Statement(trimmed, line_no, indent + 1))
                continue
            for offset, statement in split_statements(strip_comment(trimmed)):
                if statement.startswith("%%"):
                    continue
                self.statement(_Statement(statement, line_no, indent + offset + 1))
        for pending, what in ((self.pending_create, "create"), (self.pending_destroy, "destroy")):
            if pending is not None:
                pid, where = pending
                raise MermaidError(
                    "MissingLifelineMessage",
                    f"'{what}' on line {where.line} has no message after it: the "
                    f"{'created' if what == 'create' else 'destroyed'} participant "
                    f"{pid[2:]} needs one",
                    line=where.line,
                    column=where.column,
                    text=where.text,
                    expected="a message to the created participant"
                    if what == "create"
                    else "a message from or to the destroyed participant",
                )
        self.autonumber_changes.extend(self.pending_numbering)
        if self.open_box is not None:
            opened = self.open_box[0]
            raise MermaidError(
                "UnclosedBox",
                f"unclosed box: missing 'end' for the box opened on line {opened.line}",
                line=opened.line,
                column=opened.column,
                text=opened.text,
                expected="end",
            )
        if self.open_blocks:
            block = self.open_blocks[-1]
            raise MermaidError(
                "UnclosedBlock",
                f"unclosed '{block.kind}' block {block.block_id}: missing 'end' for block "
                f"opened on line {block.line}",
                line=block.line,
                column=1,
                text=block.kind,
                expected="end",
            )
        ast = SequenceAst(
            participants=self.participants,
            messages=tuple(self.messages),
            notes=tuple(self.notes),
            activations=tuple(self.activations),
            blocks=tuple(self.root_blocks),
            autonumber=self.autonumber,
            title=self.title,
            boxes=tuple(self.boxes),
            autonumber_changes=tuple(self.autonumber_changes),
            acc_title=self.acc_title,
            acc_descr=self.acc_descr,
            front_matter=preamble.front_matter,
            directives=preamble.directives,
        )
        # Every value but those proven writable: the texts of the messages `plain_message`
        # took, and the block and section headers (`open_block` / `open_section` checked
        # each with the rule `sequence_problem` applies; blocks are checked last there).
        checked = msgspec.structs.replace(ast, messages=tuple(self.unproven), blocks=())
        unwritable = sequence_problem(checked)
        if unwritable is not None:  # a value no statement check refused (a bug)
            raise MermaidError("UnwritableValue", unwritable.describe(), text=unwritable.value)
        return ast

    def statement(self, st: _Statement) -> None:
        keyword = leading_keyword(st.text)
        rest = st.text[len(keyword) :].strip() if keyword is not None else ""
        if keyword == "title" and st.text[len(keyword) :].startswith(":"):
            rest = rest[1:].strip()  # `title: x` (Mermaid's legacy form); `title :x` is ":x"
        if self.open_box is not None and keyword not in ("participant", "actor", "end", "box"):
            self.unsupported(st, "only participant declarations go inside a box")
        if keyword is None:
            self.message(st)
        elif keyword in _BLOCK_OPENERS:  # the common statements first
            self.open_block(st, keyword, rest)
        elif keyword in _SECTION_KEYWORDS:
            self.open_section(st, keyword, rest)
        elif keyword == "end" and self.open_box is None:
            self.close_block(st)
        elif keyword == "box":
            self.box(st, rest)
        elif keyword == "end" and self.open_box is not None:
            self.close_box(st)
        elif keyword in ("participant", "actor"):
            self.declaration(st)
        elif keyword == "create":
            self.create(st, rest)
        elif keyword == "destroy":
            self.destroy(st, rest)
        elif keyword == "note":
            self.note(st)
        elif keyword in ("activate", "deactivate"):
            self.activation(st, keyword, rest)
        elif keyword == "autonumber":
            self.autonumber_statement(st, rest)
        elif keyword == "title":
            self.title_statement(st, rest)
        elif keyword in ("link", "links"):
            self.link_statement(st, keyword, rest)
        else:
            self.unsupported(st, _UNSUPPORTED[keyword])

    def accessibility(self, st: _Statement, lines: Iterator[tuple[int, str, str]]) -> None:
        """`accTitle: text`, `accDescr: text` or `accDescr { ... }` (the last one wins)."""
        text = st.text
        start = ACC_START.match(text)
        if start is not None and start.group(2) == "{":
            while "}" not in text:
                following = next(lines, None)
                if following is None:
                    break
                text += "\n" + following[2]
        kind, value = read_accessibility(text, st.line, st.column)
        if kind == "title":
            self.acc_title = value
        else:
            self.acc_descr = value

    # ---- errors -------------------------------------------------------------------------

    def unsupported(self, st: _Statement, why: str | None = None) -> NoReturn:
        suffix = f" ({why})" if why else ""
        raise MermaidError(
            "UnsupportedSyntax",
            f"unsupported Mermaid syntax on line {st.line}: {st.text}{suffix}",
            line=st.line,
            column=st.column,
            text=st.text,
            expected=why,
        )

    def check_text(self, st: _Statement, what: str, value: str, offset: int) -> None:
        problem = sequence_text_problem(value)
        if problem is not None:
            raise MermaidError(
                "InvalidText",
                f"invalid {what} on line {st.line}: {value!r} ({problem})",
                line=st.line,
                column=st.col(offset),
                text=value,
            )

    # ---- participants -------------------------------------------------------------------

    def touch(self, name: str, st: _Statement, offset: int, kind: str) -> str:
        """The id of participant `name`, creating it on first mention (after validation)."""
        participant_id = "p:" + name
        if participant_id in self.participants:
            return participant_id
        problem = participant_name_problem(name)
        if problem is not None:
            what = {
                "InvalidMessageParticipant": "message participant",
                "InvalidParticipantName": "participant name",
                "InvalidNoteParticipant": "note participant",
            }[kind]
            raise MermaidError(
                kind,
                f"invalid {what} on line {st.line}: {name} ({problem})",
                line=st.line,
                column=st.col(offset),
                text=name,
                expected="a participant name",
            )
        self.participants[participant_id] = SeqParticipant(mermaid_name=name)
        return participant_id

    def create(self, st: _Statement, rest: str) -> None:
        """`create participant|actor X ...`: declare X; the next message must go to X."""
        offset = len(st.text) - len(rest)
        inner = _Statement(rest, st.line, st.col(offset))
        if leading_keyword(rest) not in ("participant", "actor"):
            self.unsupported(st, "'create' is followed by 'participant' or 'actor'")
        if self.pending_create is not None:
            self.unsupported(
                st,
                f"the participant created on line {self.pending_create[1].line} has no "
                "creating message yet",
            )
        before = set(self.participants)
        participant_id = self.declaration(inner)
        if participant_id in before:
            raise MermaidError(
                "InvalidCreate",
                f"invalid 'create' on line {st.line}: participant {participant_id[2:]} already "
                "appears above (a created participant starts at its creating message)",
                line=st.line,
                column=inner.column,
                text=st.text,
                expected="a participant not mentioned before",
            )
        self.pending_create = (participant_id, st)

    def destroy(self, st: _Statement, name: str) -> None:
        """`destroy X`: the next message from or to X ends X's lifeline."""
        participant_id = self.touch(name, st, len(st.text) - len(name), "InvalidParticipantName")
        if self.participants[participant_id].destroyed_by is not None or (
            self.pending_destroy is not None and self.pending_destroy[0] == participant_id
        ):
            self.unsupported(st, f"participant {name} is already destroyed")
        if self.pending_destroy is not None:
            self.unsupported(
                st,
                f"the participant destroyed on line {self.pending_destroy[1].line} has no "
                "destroying message yet",
            )
        self.pending_destroy = (participant_id, st)

    def lifeline_events(self, st: _Statement, message: SeqMessage) -> None:
        """Tie a pending `create` / `destroy` to `message` (Mermaid checks the same)."""
        if self.pending_create is not None:
            pid, where = self.pending_create
            if message.to_participant_id != pid:
                raise _lifeline_error(st, pid, where, "created", "to")
            self.participants[pid] = msgspec.structs.replace(
                self.participants[pid], created_by=message.message_id
            )
            self.pending_create = None
        elif self.pending_destroy is not None:
            pid, where = self.pending_destroy
            if pid not in (message.from_participant_id, message.to_participant_id):
                raise _lifeline_error(st, pid, where, "destroyed", "from or to")
            self.participants[pid] = msgspec.structs.replace(
                self.participants[pid], destroyed_by=message.message_id
            )
            self.pending_destroy = None

    def declaration(self, st: _Statement) -> str:
        keyword = st.text.split(maxsplit=1)[0].lower()
        expected = _DECL_EXPECTED.format(kw=keyword)
        try:
            parts = parse_declaration(st.text)
        except StatementSyntaxError as err:
            raise MermaidError(
                "InvalidParticipantDecl",
                f"invalid participant declaration on line {st.line}: {st.text} "
                f"(expected {expected})",
                line=st.line,
                column=st.col(err.offset),
                text=err.found or st.text,
                expected=expected,
            ) from None
        if parts.has_as and parts.alias is None:
            raise MermaidError(
                "InvalidParticipantDecl",
                f"invalid participant declaration on line {st.line}: {st.text} "
                f"(missing alias after 'as')",
                line=st.line,
                column=st.col(len(st.text)),
                text=st.text,
                expected="an alias after 'as'",
            )
        role: str | None = "actor" if parts.keyword.lower() == "actor" else None
        alias = parts.alias
        if parts.meta is not None:
            meta_role, meta_alias = self.metadata(st, parts)
            role = meta_role or role
            if alias is None:
                alias = meta_alias
        if alias is not None:
            self.check_text(st, "participant alias", alias, len(st.text) - len(alias))
        if self.open_box is not None:
            self.box_member(st, parts.name, parts.name_offset)
        participant_id = self.touch(parts.name, st, parts.name_offset, "InvalidParticipantName")
        current = self.participants[participant_id]
        self.participants[participant_id] = msgspec.structs.replace(
            current,
            alias=alias if alias is not None else current.alias,
            role=role if role is not None else current.role,
        )
        return participant_id

    # ---- boxes --------------------------------------------------------------------------

    def box(self, st: _Statement, rest: str) -> None:
        where = "inside another box" if self.open_box is not None else "inside a block"
        if self.open_box is not None or self.open_blocks:
            raise MermaidError(
                "InvalidBox",
                f"invalid box on line {st.line}: a box cannot be opened {where}",
                line=st.line,
                column=st.column,
                text=st.text,
                expected="'box' at the top level",
            )
        color, label = parse_box_header(rest)
        if label is not None:
            self.check_text(st, "box label", label, len(st.text) - len(label))
        self.open_box = (st, color, label, [])

    def box_member(self, st: _Statement, name: str, offset: int) -> None:
        assert self.open_box is not None
        participant_id = "p:" + name
        members = self.open_box[3]
        if participant_id in members:
            return
        if participant_id in self.participants:
            raise MermaidError(
                "InvalidBox",
                f"invalid box on line {st.line}: participant {name} was declared or used "
                "before this box (a box declares its participants first)",
                line=st.line,
                column=st.col(offset),
                text=name,
                expected="a participant not mentioned before",
            )
        members.append(participant_id)

    def close_box(self, st: _Statement) -> None:
        assert self.open_box is not None
        if st.text.lower() != "end":
            self.unsupported(st)
        opened, color, label, members = self.open_box
        if not members:
            raise MermaidError(
                "InvalidBox",
                f"invalid box on line {opened.line}: it declares no participant",
                line=opened.line,
                column=opened.column,
                text=opened.text,
                expected="participant declarations between 'box' and 'end'",
            )
        self.boxes.append(SeqBox(participant_ids=tuple(members), color=color, label=label))
        self.open_box = None

    def metadata(self, st: _Statement, parts: DeclarationParts) -> tuple[str | None, str | None]:
        """`@{ "type": ..., "alias": ... }` -> (role, alias)."""
        assert parts.meta is not None
        body = parts.meta[1:]

        def fail(reason: str) -> MermaidError:
            return MermaidError(
                "InvalidParticipantMetadata",
                f"invalid participant metadata on line {st.line}: {parts.meta} ({reason})",
                line=st.line,
                column=st.col(parts.meta_offset),
                text=parts.meta,
                expected='@{ "type": "<type>", "alias": "<alias>" }',
            )

        values = _read_metadata(body)
        if values is None:
            raise fail("expected a JSON or YAML mapping")
        role: str | None = None
        alias: str | None = None
        for key, value in values.items():
            if key == "type":
                if value not in PARTICIPANT_ROLES or value == "actor":
                    allowed = ", ".join(r for r in PARTICIPANT_ROLES if r != "actor")
                    raise fail(f"unknown type {value!r}; expected one of {allowed}")
                role = value
            elif key == "alias":
                alias = value.strip()
            else:
                raise fail(f"key {key!r} is not supported; expected 'type' or 'alias'")
        return role, alias

    # ---- messages -----------------------------------------------------------------------

    def plain_message(self, match: re.Match[str]) -> bool:
        """Take a line that `FAST_MESSAGE` or `PLAIN_LINE` matched (no `#`, no `;`), if nothing
        in it needs the statement path's checks, and do what `message` would do for it. False
        (and nothing changed) sends the line down the statement path."""
        text = match.group(5).strip()  # as fast_message reads it
        if (
            not text
            or self.open_box is not None
            or self.pending_create is not None
            or self.pending_destroy is not None
            or (text[0] in ":wn" and _WRAP.match(text) is not None)
            or (not (text.isascii() and text.isprintable()) and sequence_text_problem(text))
        ):
            return False
        # The line up to the target's name: the same for every message of one route.
        key = match.string[: match.end(4)]
        route = self.routes.get(key)
        if route is None:
            route = self.plain_route(key, *match.group(1, 2, 3, 4))
            if route is None:
                return False
        from_id, to_id, kind, written, activation = route
        messages = self.messages
        number = len(messages) + 1
        message_id = _MESSAGE_IDS[number] if number < len(_MESSAGE_IDS) else message_id_of(number)
        self.timeline += 1
        messages.append(
            SeqMessage(
                message_id=message_id,
                from_participant_id=from_id,
                to_participant_id=to_id,
                kind=kind,
                text=text,
                order_key=1000 * self.timeline,
                arrow=written,
                activation=activation,
            )
        )
        if self.pending_numbering:
            for change in self.pending_numbering:
                self.autonumber_changes.append(
                    msgspec.structs.replace(change, message_id=message_id)
                )
            self.pending_numbering.clear()
        for block in self.open_blocks:
            block.sections[-1].message_ids.append(message_id)
        return True

    def plain_route(
        self, key: str, from_name: str, arrow: str, mark: str, to_name: str
    ) -> _Route | None:
        """What a plain message with these names, arrow and activation mark reads as (kept as
        the route of the lines that start as `key`), creating its participants; None (and
        nothing changed) if a name is a keyword."""
        if from_name.lower() in _NAME_KEYWORDS or to_name.lower() in _NAME_KEYWORDS:
            return None
        from_id = "p:" + from_name
        if from_id not in self.participants:
            self.participants[from_id] = SeqParticipant(mermaid_name=from_name)
        to_id = "p:" + to_name
        if to_id not in self.participants:
            self.participants[to_id] = SeqParticipant(mermaid_name=to_name)
        kind, written = _PLAIN_ARROWS[arrow]
        route = self.routes[key] = (
            from_id,
            to_id,
            kind,
            written,
            _ACTIVATION_MARKS[mark],
        )
        return route

    def message(self, st: _Statement) -> None:
        if _ANY_ARROW.search(st.text) is None:
            self.unsupported(st)
        try:
            parts = parse_message(st.text)
        except StatementSyntaxError as err:
            raise _diagnose_message(st, err) from None
        from_id = self.touch(parts.from_name, st, parts.from_offset, "InvalidMessageParticipant")
        to_id = self.touch(parts.to_name, st, parts.to_offset, "InvalidMessageParticipant")
        if not parts.text:
            raise MermaidError(
                "MissingMessageText",
                f"missing message text on line {st.line}: {st.text}",
                line=st.line,
                column=st.col(len(st.text)),
                text=st.text,
                expected="text after ':'",
            )
        wrap, text = self.wrapped(st, "message", parts.text)
        kind = ARROW_KINDS[parts.arrow]
        message_id = message_id_of(len(self.messages) + 1)
        message = SeqMessage(
            message_id=message_id,
            from_participant_id=from_id,
            to_participant_id=to_id,
            kind=kind,
            text=text,
            order_key=self.next_order_key(),
            arrow=None if CANONICAL_ARROW[kind] == parts.arrow else parts.arrow,
            activation=cast(
                "Literal['+', '-'] | None", parts.activation
            ),  # a string: no per-call typing cost
            from_central=parts.from_central,
            to_central=parts.to_central,
            wrap=wrap,
        )
        self.messages.append(message)
        self.unproven.append(message)
        self.lifeline_events(st, message)
        for change in self.pending_numbering:
            self.autonumber_changes.append(msgspec.structs.replace(change, message_id=message_id))
        self.pending_numbering.clear()
        for block in self.open_blocks:
            block.sections[-1].message_ids.append(message_id)

    def wrapped(self, st: _Statement, what: str, text: str) -> tuple[bool | None, str]:
        """Split Mermaid's `wrap:` / `nowrap:` prefix off a text; check what remains."""
        wrap: bool | None = None
        prefix = _WRAP.match(text)
        if prefix is not None:
            wrap = prefix.group(1) is None
            text = text[prefix.end() :].strip()
            if not text:
                raise MermaidError(
                    "MissingMessageText" if what == "message" else "MissingNoteText",
                    f"missing {what} text on line {st.line}: {st.text}",
                    line=st.line,
                    column=st.col(len(st.text)),
                    text=st.text,
                    expected=f"text after '{prefix.group()}'",
                )
        self.check_text(st, f"{what} text", text, len(st.text) - len(text))
        return wrap, text

    def next_order_key(self) -> int:
        self.timeline += 1
        return 1000 * self.timeline

    # ---- notes and activations ----------------------------------------------------------

    def note(self, st: _Statement) -> None:
        try:
            parts = lark_note(st.text)
        except StatementSyntaxError as err:
            raise MermaidError(
                "InvalidNote",
                f"invalid note on line {st.line}: {st.text} (expected {_NOTE_EXPECTED})",
                line=st.line,
                column=st.col(err.offset),
                text=err.found or st.text,
                expected=_NOTE_EXPECTED,
            ) from None
        if parts.placement != "over" and len(parts.names) != 1:
            raise MermaidError(
                "InvalidNote",
                f"invalid note on line {st.line}: {st.text} "
                f"('{parts.placement.replace('_', ' ')}' takes one participant)",
                line=st.line,
                column=st.col(parts.names[1][1]),
                text=parts.names[1][0],
                expected=_NOTE_EXPECTED,
            )
        ids = tuple(
            self.touch(name, st, offset, "InvalidNoteParticipant") for name, offset in parts.names
        )
        if not parts.text:
            raise MermaidError(
                "MissingNoteText",
                f"missing note text on line {st.line}: {st.text}",
                line=st.line,
                column=st.col(len(st.text)),
                text=st.text,
                expected="text after ':'",
            )
        wrap, text = self.wrapped(st, "note", parts.text)
        note_id = f"note:{len(self.notes) + 1:04d}"
        for block in self.open_blocks:
            block.sections[-1].note_ids.append(note_id)
        self.notes.append(
            SeqNote(
                note_id=note_id,
                placement=cast("Literal['left_of', 'right_of', 'over']", parts.placement),
                participant_ids=ids,
                text=text,
                order_key=self.next_order_key(),
                wrap=wrap,
            )
        )

    def activation(self, st: _Statement, keyword: str, name: str) -> None:
        offset = len(st.text) - len(name)
        participant_id = "p:" + name
        if participant_id not in self.participants:
            problem = participant_name_problem(name)
            reason = problem or "no participant of that name is declared or used before"
            raise MermaidError(
                "UnknownParticipant",
                f"invalid '{keyword}' on line {st.line}: {name or st.text} ({reason})",
                line=st.line,
                column=st.col(offset) if name else st.column,
                text=name or st.text,
                expected="the name of a declared participant",
            )
        self.activations.append(
            SeqActivation(
                activation_id=f"act:{len(self.activations) + 1:04d}",
                participant_id=participant_id,
                active=keyword == "activate",
                order_key=self.next_order_key(),
            )
        )

    # ---- participant menus ------------------------------------------------------------

    def link_statement(self, st: _Statement, keyword: str, rest: str) -> None:
        """`link A: label @ url` or `links A: {"label": "url", ...}` (menu entries of A)."""
        expected = (
            "'link <participant>: <label> @ <url>'"
            if keyword == "link"
            else '\'links <participant>: {"<label>": "<url>", ...}\''
        )
        name, colon, payload = rest.partition(":")
        name, payload = name.strip(), payload.strip()

        def fail(reason: str, offset: int) -> MermaidError:
            return MermaidError(
                "InvalidLink",
                f"invalid '{keyword}' on line {st.line}: {st.text} ({reason}; expected {expected})",
                line=st.line,
                column=st.col(offset),
                text=st.text,
                expected=expected,
            )

        if not colon:
            raise fail("missing ':'", len(st.text))
        participant_id = "p:" + name
        if participant_id not in self.participants:
            raise fail(f"no participant {name!r} is declared or used before", len(keyword) + 1)
        payload_offset = len(st.text) - len(payload)
        entries: list[tuple[str, str]] = []
        if keyword == "link":
            label, at, url = payload.partition("@")
            if not at or not label.strip() or not url.strip():
                raise fail("expected '<label> @ <url>'", payload_offset)
            entries.append((label.strip(), url.strip()))
        else:
            try:
                value = json.loads(payload)
            except ValueError:
                value = None
            if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
                raise fail("expected a JSON object of label -> url strings", payload_offset)
            entries.extend(value.items())
        for label, url in entries:
            problem = link_problem(label) or link_problem(url)
            if problem is not None:
                raise fail(f"label {label!r} or url {url!r} {problem}", payload_offset)
        current = self.participants[participant_id]
        links = dict(current.links)
        links.update(entries)
        self.participants[participant_id] = msgspec.structs.replace(
            current, links=tuple(links.items())
        )

    # ---- autonumber, title --------------------------------------------------------------

    def autonumber_statement(self, st: _Statement, rest: str) -> None:
        """`autonumber [start [step]]` or `autonumber off`, as often as wanted.

        The first one before any message is the diagram's numbering; every other one takes
        effect at the next message (`autonumber_changes`).
        """
        numbers = rest.split()
        off = [word.lower() for word in numbers] == ["off"]
        if not off and (len(numbers) > 2 or not all(n.isascii() and n.isdigit() for n in numbers)):
            self.unsupported(
                st,
                "expected 'autonumber', 'autonumber off', 'autonumber <start>' or "
                "'autonumber <start> <step>' with whole numbers",
            )
        start = int(numbers[0]) if numbers and not off else None
        step = int(numbers[1]) if len(numbers) > 1 else None
        if self.autonumber is None and not off and not self.messages and not self.pending_numbering:
            self.autonumber = SeqAutonumber(
                start=start if start is not None else 1, step=step if step is not None else 1
            )
            self.autonumber_line = st.line
            return
        self.pending_numbering.append(
            SeqAutonumberChange(message_id=None, on=not off, start=start, step=step)
        )

    def title_statement(self, st: _Statement, rest: str) -> None:
        # As in Mermaid, a later title replaces an earlier one.
        self.check_text(st, "title", rest, len(st.text) - len(rest))
        self.title = rest
        self.title_line = st.line

    # ---- blocks -------------------------------------------------------------------------

    def open_block(self, st: _Statement, kind: str, header: str) -> None:
        if len(self.open_blocks) >= MAX_BLOCK_DEPTH:
            raise MermaidError(
                "BlockNestingTooDeep",
                f"block nesting too deep on line {st.line}: max supported depth is "
                f"{MAX_BLOCK_DEPTH}",
                line=st.line,
                column=st.column,
                text=st.text,
                expected=f"at most {MAX_BLOCK_DEPTH} nested blocks",
            )
        if kind == "rect" and not header:
            self.unsupported(st, "'rect' needs a colour, e.g. 'rect rgb(191, 223, 255)'")
        if header:
            self.check_text(st, f"'{kind}' header", header, len(st.text) - len(header))
        self.block_count += 1
        block = _OpenBlock(self.block_count, kind, header or None, st.line)
        block.open_section("main", None)
        self.open_blocks.append(block)

    def open_section(self, st: _Statement, keyword: str, header: str) -> None:
        block_kinds, error_kind = _SECTION_KEYWORDS[keyword]
        block_kind = block_kinds[0]
        if not self.open_blocks or self.open_blocks[-1].kind not in block_kinds:
            raise MermaidError(
                error_kind,
                f"invalid '{keyword}' on line {st.line}: only valid inside an open "
                f"'{block_kind}' block: {st.text}",
                line=st.line,
                column=st.column,
                text=st.text,
                expected=f"an open '{block_kind}' block",
            )
        block = self.open_blocks[-1]
        self.check_section_not_empty(st, block)
        if header:
            self.check_text(st, f"'{keyword}' header", header, len(st.text) - len(header))
        block.open_section(keyword, header or None)

    def close_block(self, st: _Statement) -> None:
        if st.text.lower() != "end":
            self.unsupported(st)
        if not self.open_blocks:
            raise MermaidError(
                "UnmatchedEnd",
                f"unmatched 'end' on line {st.line}: no block is currently open",
                line=st.line,
                column=st.column,
                text=st.text,
            )
        block = self.open_blocks[-1]
        self.check_section_not_empty(st, block)
        self.open_blocks.pop()
        frozen = block.freeze()
        if self.open_blocks:
            self.open_blocks[-1].children.append(frozen)
        else:
            self.root_blocks.append(frozen)

    def check_section_not_empty(self, st: _Statement, block: _OpenBlock) -> None:
        section = block.sections[-1]
        if not section.message_ids and not section.note_ids:
            raise MermaidError(
                "EmptyBlockSection",
                # the spec's text (mermaid.md §9); a note alone makes a section non-empty
                f"empty block section on line {st.line}: {section.section_id} contains no messages",
                line=st.line,
                column=st.column,
                text=st.text,
                expected="at least one message or note in every block section",
            )


def _read_metadata(body: str) -> dict[str, str] | None:
    """Read the `{...}` of `@{...}` as JSON, else as a flat YAML flow mapping; None if neither."""
    try:
        value = json.loads(body)
    except ValueError:
        value = None
    if isinstance(value, dict):
        if all(isinstance(v, str) for v in value.values()):
            return {str(k): v for k, v in value.items()}
        return None
    inner = body.strip()[1:-1].strip()
    result: dict[str, str] = {}
    if not inner:
        return result
    for item in inner.split(","):
        match = _META_KEY.fullmatch(item)
        if match is None:
            return None
        key = match.group(1) or match.group(2) or match.group(3)
        raw = match.group(4)
        if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'":
            raw = raw[1:-1]
        result[key] = raw
    return result


def _diagnose_message(st: _Statement, err: StatementSyntaxError) -> MermaidError:
    """Explain a message the grammar rejected, with mermaid.md §5.4's error kinds.

    Re-reads the statement the way §5.4 describes (earliest arrow, longest on a tie; optional
    activation marker; first ':' ends the target) so the error says what is wrong.
    """
    text = st.text
    position, token = min(
        ((text.find(t), t) for t in _ARROW_TOKENS_LONGEST_FIRST if t in text),
        key=lambda item: (item[0], -len(item[1])),
    )
    after = position + len(token)
    remainder = text[after:].lstrip()
    rest_offset = len(text) - len(remainder)
    if remainder[:1] in ("+", "-"):
        remainder = remainder[1:]
        rest_offset += 1
    colon = remainder.find(":")
    if colon < 0:
        return MermaidError(
            "InvalidMessageLine",
            f"invalid message syntax on line {st.line}: {text} (expected {_MESSAGE_EXPECTED})",
            line=st.line,
            column=st.col(err.offset),
            text=err.found or text,
            expected=_MESSAGE_EXPECTED,
        )
    for name, offset in (
        (text[:position], 0),
        (remainder[:colon], rest_offset),
    ):
        stripped = name.strip()
        problem = participant_name_problem(stripped)
        if problem is not None:
            return MermaidError(
                "InvalidMessageParticipant",
                f"invalid message participant on line {st.line}: {stripped} ({problem})",
                line=st.line,
                column=st.col(offset + len(name) - len(name.lstrip())),
                text=stripped,
                expected="a participant name",
            )
    return MermaidError(
        "InvalidMessageLine",
        f"invalid message syntax on line {st.line}: {text} (expected {_MESSAGE_EXPECTED})",
        line=st.line,
        column=st.col(err.offset),
        text=err.found or text,
        expected=", ".join(err.expected) or _MESSAGE_EXPECTED,
    )


def _lifeline_error(
    st: _Statement, pid: str, where: _Statement, verb: str, ends: str
) -> MermaidError:
    """A `create`/`destroy` whose next message does not touch the participant (as Mermaid)."""
    need = "go to it" if ends == "to" else "come from or go to it"
    return MermaidError(
        "MissingLifelineMessage",
        f"invalid message on line {st.line}: the participant {pid[2:]} {verb} on "
        f"line {where.line} needs the next message to {need}",
        line=st.line,
        column=st.column,
        text=st.text,
        expected=f"a message {ends} {pid[2:]}",
    )
