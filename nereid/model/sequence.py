"""The sequence AST (model.md §6, extended as spec decision 3 asks).

Participants keep declaration / first-appearance order (decision 4). The timeline is the
messages, notes and activation statements merged by `(order_key, id)`; blocks group messages
and notes into sections (a section's `message_ids` / `note_ids` include those of nested
blocks); activation statements belong to no section.

The item Structs are `gc=False`, as the flowchart's (`nereid.model.flowchart`).
"""

from __future__ import annotations

from typing import Final, Literal

import msgspec

__all__ = [
    "ARROW_KINDS",
    "BLOCK_KINDS",
    "CANONICAL_ARROW",
    "PARTICIPANT_ROLES",
    "SECTION_KINDS",
    "MessageKind",
    "SeqActivation",
    "SeqAutonumber",
    "SeqAutonumberChange",
    "SeqBlock",
    "SeqBox",
    "SeqMessage",
    "SeqNote",
    "SeqParticipant",
    "SeqSection",
    "SequenceAst",
    "arrow_kind",
]

MessageKind = Literal["sync", "async", "return"]
NotePlacement = Literal["left_of", "right_of", "over"]

#: Every Mermaid arrow token -> the message kind it makes (mermaid.md §5.4).
ARROW_KINDS: Final[dict[str, MessageKind]] = {
    "->>": "sync",
    "->": "sync",
    "-->": "sync",
    "<<->>": "sync",
    "-x": "sync",
    "--x": "sync",
    "-)": "async",
    "--)": "async",
    "-->>": "return",
    "<<-->>": "return",
    # Mermaid 11 half arrows: a half head on the top or bottom side of the line, solid
    # (`|`) or open stick; reversed (`/|-`) puts the head at the sender's end.
    "-|\\": "sync",
    "-|/": "sync",
    "-\\\\": "sync",
    "-//": "sync",
    "/|-": "sync",
    "\\|-": "sync",
    "//-": "sync",
    "\\\\-": "sync",
    "--|\\": "return",
    "--|/": "return",
    "--\\\\": "return",
    "--//": "return",
    "/|--": "return",
    "\\|--": "return",
    "//--": "return",
    "\\\\--": "return",
}
CANONICAL_ARROW: Final[dict[str, str]] = {"sync": "->>", "async": "-)", "return": "-->>"}

#: `None` is a plain participant; the rest are `actor` and Mermaid v11 participant types.
PARTICIPANT_ROLES: Final = (
    "actor",
    "boundary",
    "control",
    "entity",
    "database",
    "collections",
    "queue",
)
BLOCK_KINDS: Final = ("alt", "opt", "loop", "par", "par_over", "critical", "break", "rect")
#: Section kinds: the first section of a block is `main`; then `else` (alt), `and` (par, par_over),
#: `option` (critical).
SECTION_KINDS: Final = ("main", "else", "and", "option")


class SeqParticipant(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """A participant: `mermaid_name` is the name in the text, `alias` the label people see."""

    mermaid_name: str
    alias: str | None = None
    role: str | None = None
    note: str | None = None
    #: Menu entries `(label, url)` from Mermaid's `link` / `links` statements, in order.
    links: tuple[tuple[str, str], ...] = ()
    #: `create participant X`: the message (its target is X) at which X's lifeline starts.
    created_by: str | None = None
    #: `destroy X`: the message (from or to X) at which X's lifeline ends.
    destroyed_by: str | None = None


class SeqMessage(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One message. `arrow` is the written token when it is not the kind's canonical one."""

    message_id: str
    from_participant_id: str
    to_participant_id: str
    kind: MessageKind
    text: str
    order_key: int
    arrow: str | None = None
    activation: Literal["+", "-"] | None = None
    #: Mermaid 11 central connections: `A()->>B` (from the centre of A's activation) and
    #: `A->>()B` (to the centre of B's).
    from_central: bool = False
    to_central: bool = False
    #: `wrap:` (True) / `nowrap:` (False) written before the text; None when neither.
    wrap: bool | None = None

    @property
    def token(self) -> str:
        """The arrow token to write (without activation marker)."""
        return self.arrow if self.arrow is not None else CANONICAL_ARROW[self.kind]

    @property
    def raw_arrow(self) -> str | None:
        """The contract's `arrow` field: the written token plus its activation marker."""
        if self.arrow is None and self.activation is None:
            return None
        return self.token + (self.activation or "")


class SeqNote(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """`Note left of|right of|over A[,B]: text`, placed in the timeline by `order_key`."""

    note_id: str
    placement: NotePlacement
    participant_ids: tuple[str, ...]
    text: str
    order_key: int
    #: `wrap:` (True) / `nowrap:` (False) written before the text; None when neither.
    wrap: bool | None = None


class SeqActivation(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """An explicit `activate X` / `deactivate X` statement, placed by `order_key`."""

    activation_id: str
    participant_id: str
    active: bool
    order_key: int


class SeqAutonumber(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """`autonumber [start [step]]`: messages are numbered from `start` by `step`."""

    start: int = 1
    step: int = 1


class SeqAutonumberChange(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """An `autonumber` statement after the first one: it takes effect at `message_id`.

    `on` False is `autonumber off`; otherwise numbering is shown again, restarting at `start`
    and counting by `step` where given. `message_id` None means after the last message (it
    then changes nothing Mermaid shows, but is kept as written).
    """

    message_id: str | None
    on: bool = True
    start: int | None = None
    step: int | None = None


class SeqSection(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One run of a block (`main`, then `else` / `and` / `option`).

    `message_ids` and `note_ids` are the messages and notes written inside the section,
    nested blocks included, in timeline order. Notes are members so that a note written as
    the first or last statement of a section (or as its only one) stays inside it.
    """

    section_id: str
    kind: str
    header: str | None = None
    message_ids: tuple[str, ...] = ()
    note_ids: tuple[str, ...] = ()

    @property
    def member_ids(self) -> tuple[str, ...]:
        """Messages, then notes: every timeline item the section holds."""
        return self.message_ids + self.note_ids


class SeqBlock(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    block_id: str
    kind: str
    header: str | None = None
    sections: tuple[SeqSection, ...] = ()
    blocks: tuple[SeqBlock, ...] = ()


class SeqBox(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """`box [colour] [label]` ... `end`: a frame around participants declared inside it.

    Its participants are consecutive in participant order (the importer makes sure of it); a
    box is not an object of its own (no id, no category), it belongs to the diagram.
    """

    participant_ids: tuple[str, ...] = ()
    color: str | None = None
    label: str | None = None


class SequenceAst(msgspec.Struct, frozen=True, kw_only=True):
    """A whole sequence diagram. `messages` are kept sorted by `(order_key, message_id)`."""

    participants: dict[str, SeqParticipant] = msgspec.field(default_factory=dict)
    messages: tuple[SeqMessage, ...] = ()
    notes: tuple[SeqNote, ...] = ()
    activations: tuple[SeqActivation, ...] = ()
    blocks: tuple[SeqBlock, ...] = ()
    autonumber: SeqAutonumber | None = None
    title: str | None = None
    #: Participant boxes in text order (Mermaid `box ... end`), none by default.
    boxes: tuple[SeqBox, ...] = ()
    #: Later `autonumber` statements (`off`, restarts), in text order.
    autonumber_changes: tuple[SeqAutonumberChange, ...] = ()
    #: `accTitle: ...` and `accDescr: ...` / `accDescr { ... }` (may hold line breaks).
    acc_title: str | None = None
    acc_descr: str | None = None
    #: YAML front matter (`---` ... `---` before the header) kept verbatim, None if absent.
    front_matter: str | None = None
    #: `%%{init: ...}%%` directives, verbatim, in text order; written back before the header.
    directives: tuple[str, ...] = ()


def arrow_kind(token: str) -> MessageKind | None:
    """The message kind an arrow token makes, or None if it is not a Mermaid arrow."""
    return ARROW_KINDS.get(token)
