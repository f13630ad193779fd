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

Everything Mermaid allows that the model cannot hold (`create`/`destroy`,
`properties`, `details`, `accTitle`/`accDescr`, `autonumber off`) is refused with a
`MermaidError` that names the line, the column and the construct; nothing is dropped.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Final, Literal, NoReturn, cast

import msgspec

from nereid.mermaid.errors import MermaidError, iter_lines
from nereid.mermaid.sequence_box import parse_box_header
from nereid.mermaid.sequence_export import export_sequence
from nereid.mermaid.sequence_grammar import (
    DeclarationParts,
    StatementSyntaxError,
    lark_note,
    parse_declaration,
    parse_message,
)
from nereid.mermaid.sequence_rules import (
    KEYWORDS,
    participant_name_problem,
    sequence_text_problem,
    split_statements,
)
from nereid.model.sequence import (
    ARROW_KINDS,
    CANONICAL_ARROW,
    PARTICIPANT_ROLES,
    SeqActivation,
    SeqAutonumber,
    SeqBlock,
    SeqBox,
    SeqMessage,
    SeqNote,
    SeqParticipant,
    SeqSection,
    SequenceAst,
)

__all__ = ["MAX_BLOCK_DEPTH", "export_sequence", "parse_sequence"]

MAX_BLOCK_DEPTH: Final = 8
HEADER: Final = "sequenceDiagram"

_BLOCK_OPENERS: Final = frozenset({"alt", "opt", "loop", "par", "critical", "break", "rect"})
#: Section keyword (also the section kind) -> (block kind it belongs to, error kind).
_SECTION_KEYWORDS: Final = {
    "else": ("alt", "ElseOutsideAlt"),
    "and": ("par", "AndOutsidePar"),
    "option": ("critical", "OptionOutsideCritical"),
}
_UNSUPPORTED: Final = {
    "create": "'create' (participant creation) is not supported by Nereid",
    "destroy": "'destroy' (participant destruction) is not supported by Nereid",
    "properties": "participant 'properties' are not supported by Nereid",
    "details": "participant 'details' are not supported by Nereid",
    "accTitle": "accessibility titles are not supported by Nereid",
    "accDescr": "accessibility descriptions are not supported by Nereid",
}
_ANY_ARROW: Final = re.compile(r"->|-x|-\)")
#: Mermaid 11.12's `A()->>B` / `A->>()B` (activation-centred endpoints), not modelled.
_CENTRAL_CONNECTION: Final = re.compile(
    r"(?P<paren>\(\))[ \t]*(?:<<|-)|(?:>|x|\))[ \t]*[+-]?[ \t]*(?P<paren2>\(\))"
)
_ARROW_TOKENS_LONGEST_FIRST: Final = sorted(ARROW_KINDS, key=len, reverse=True)
_META_KEY: Final = re.compile(r"""\s*(?:"([^"]*)"|'([^']*)'|([A-Za-z_]+))\s*:\s*(.*?)\s*""")
_DECL_EXPECTED: Final = '\'{kw} <name> [@{{ "type": "<type>" }}] [as <alias>]\''
_NOTE_EXPECTED: Final = "'Note left of|right of|over <participant>[,<participant>]: <text>'"
_MESSAGE_EXPECTED: Final = "'<from><arrow><to>: <text>'"


def parse_sequence(text: str) -> SequenceAst:
    """Import a Mermaid sequence diagram. Raises MermaidError (and nothing else) on bad text."""
    return _Importer().run(text)


@dataclass
class _OpenSection:
    section_id: str
    kind: str
    header: str | None
    message_ids: list[str] = field(default_factory=list)


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
                )
                for s in self.sections
            ),
            blocks=tuple(self.children),
        )


@dataclass
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

    # ---- driver -------------------------------------------------------------------------

    def run(self, text: str) -> SequenceAst:
        lines = iter_lines(text)
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
        for line_no, raw, trimmed in lines:
            indent = len(raw) - len(raw.lstrip())
            for offset, statement in split_statements(trimmed):
                if statement.startswith("%%"):
                    continue
                self.statement(_Statement(statement, line_no, indent + offset + 1))
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
        return SequenceAst(
            participants=self.participants,
            messages=tuple(self.messages),
            notes=tuple(self.notes),
            activations=tuple(self.activations),
            blocks=tuple(self.root_blocks),
            autonumber=self.autonumber,
            title=self.title,
            boxes=tuple(self.boxes),
        )

    def statement(self, st: _Statement) -> None:
        words = st.text.split(maxsplit=1)
        keyword = words[0]
        rest = words[1] if len(words) > 1 else ""
        if keyword.endswith(":") and keyword[:-1] in ("title", "accTitle", "accDescr"):
            rest = st.text[len(keyword) :].strip()
            keyword = keyword[:-1]
        if self.open_box is not None and keyword not in ("participant", "actor", "end", "box"):
            self.unsupported(st, "only participant declarations go inside a box")
        if keyword not in KEYWORDS:
            self.message(st)
        elif keyword == "box":
            self.box(st, rest)
        elif keyword == "end" and self.open_box is not None:
            self.close_box(st)
        elif keyword in ("participant", "actor"):
            self.declaration(st)
        elif keyword in _BLOCK_OPENERS:
            self.open_block(st, keyword, rest)
        elif keyword in _SECTION_KEYWORDS:
            self.open_section(st, keyword, rest)
        elif keyword == "end":
            self.close_block(st)
        elif keyword in ("Note", "note"):
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

    def declaration(self, st: _Statement) -> None:
        keyword = st.text.split(maxsplit=1)[0]
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
        role: str | None = "actor" if parts.keyword == "actor" else None
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
        if st.text != "end":
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

    def message(self, st: _Statement) -> None:
        if _ANY_ARROW.search(st.text) is None:
            self.unsupported(st)
        central = _CENTRAL_CONNECTION.search(st.text.split(":", 1)[0])
        if central is not None:
            raise MermaidError(
                "UnsupportedSyntax",
                f"unsupported Mermaid syntax on line {st.line}: {st.text} (central connections "
                f"'()' are not supported by Nereid)",
                line=st.line,
                column=st.col(central.start("paren" if central.group("paren") else "paren2")),
                text="()",
                expected="<from><arrow><to>: <text>",
            )
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
        self.check_text(st, "message text", parts.text, len(st.text) - len(parts.text))
        kind = ARROW_KINDS[parts.arrow]
        message_id = f"m:{len(self.messages) + 1:04d}"
        self.messages.append(
            SeqMessage(
                message_id=message_id,
                from_participant_id=from_id,
                to_participant_id=to_id,
                kind=kind,
                text=parts.text,
                order_key=self.next_order_key(),
                arrow=None if CANONICAL_ARROW[kind] == parts.arrow else parts.arrow,
                activation=cast(Literal["+", "-"] | None, parts.activation),
            )
        )
        for block in self.open_blocks:
            block.sections[-1].message_ids.append(message_id)

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
        self.check_text(st, "note text", parts.text, len(st.text) - len(parts.text))
        self.notes.append(
            SeqNote(
                note_id=f"note:{len(self.notes) + 1:04d}",
                placement=cast(Literal["left_of", "right_of", "over"], parts.placement),
                participant_ids=ids,
                text=parts.text,
                order_key=self.next_order_key(),
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
        current = self.participants[participant_id]
        links = dict(current.links)
        links.update(entries)
        self.participants[participant_id] = msgspec.structs.replace(
            current, links=tuple(links.items())
        )

    # ---- autonumber, title --------------------------------------------------------------

    def autonumber_statement(self, st: _Statement, rest: str) -> None:
        numbers = rest.split()
        if len(numbers) > 2 or not all(n.isascii() and n.isdigit() for n in numbers):
            self.unsupported(
                st,
                "Nereid supports 'autonumber', 'autonumber <start>' and "
                "'autonumber <start> <step>' with whole numbers",
            )
        if self.autonumber is not None:
            self.unsupported(st, f"autonumber is already set on line {self.autonumber_line}")
        if self.timeline:
            self.unsupported(
                st,
                "autonumber must come before the first message, note or activation "
                "(Nereid numbers the whole diagram)",
            )
        start = int(numbers[0]) if numbers else 1
        step = int(numbers[1]) if len(numbers) > 1 else 1
        self.autonumber = SeqAutonumber(start=start, step=step)
        self.autonumber_line = st.line

    def title_statement(self, st: _Statement, rest: str) -> None:
        if self.title is not None:
            self.unsupported(st, f"the title is already set on line {self.title_line}")
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
        block_kind, error_kind = _SECTION_KEYWORDS[keyword]
        if not self.open_blocks or self.open_blocks[-1].kind != block_kind:
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
        if st.text != "end":
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
        if not section.message_ids:
            raise MermaidError(
                "EmptyBlockSection",
                f"empty block section on line {st.line}: {section.section_id} contains no messages",
                line=st.line,
                column=st.column,
                text=st.text,
                expected="at least one message in every block section",
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
