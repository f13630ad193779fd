"""Hostile values for every string field, and the "accepted means saveable" check (decision 18).

Two kinds of input are drawn from one matrix of hostile atoms (control characters, quotes,
`;`, `%%`, `#`, entity codes, brackets, Unicode separators, keywords, very long runs):

- Mermaid text: a small flowchart or sequence diagram with hostile values put into one or
  more string fields by a template per field (`mermaid_texts`);
- op batches: a few ops whose string fields hold hostile values (`flow_batches`,
  `seq_batches`), applied to a seed diagram.

`check_text` and `check_batch` judge one input: it is either refused with the invalid-params
error (-32602), or it is saved through the store (`save_session` into `MemoryFiles`) and
loads back as an equal diagram, and its export is a fixed point. Anything else (an export
error, a crash, a difference after reload) is an `AssertionError` naming what happened.
Shared by `tests/mermaid/test_hostile_roundtrip.py` (bounded examples) and
`scripts/hostile_roundtrip` (a long run).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, Literal

import msgspec
from hypothesis import strategies as st

from nereid.actors.diagram import parse_mermaid_text
from nereid.errors import INVALID_PARAMS, NereidError
from nereid.mermaid import export_ast, parse_mermaid
from nereid.model import Ast, Diagram, Session, ast_kind
from nereid.ops import apply_ops, convert_diagram_ops
from nereid.store import MemoryFiles, load_session, save_session

__all__ = [
    "ATOMS",
    "FLOW_SEED",
    "SEQ_SEED",
    "STATE_SEED",
    "Outcome",
    "check_batch",
    "check_text",
    "flow_batches",
    "hostile_values",
    "mermaid_texts",
    "seq_batches",
    "state_batches",
]

Outcome = Literal["refused", "saved"]

#: The hostile matrix: each atom is something some layer reads as syntax or cannot store.
ATOMS: Final = (
    "\x00", "\x01", "\x08", "\t", "\n", "\r", "\r\n", "\x0b", "\x0c", "\x1b", "\x1f", "\x7f",
    "\x85", "\x9f", "\u2028", "\u2029", "\ufeff", "\u200b", "\xa0", "\ud800",
    '"', "'", "`", '""', "``", ";", ";;", "%%", "%%{init: {}}%%", "#", "#quot;", "#59;",
    "#35;", "&amp;", "&#59;", "&quot;", "<br/>", "[", "]", "(", ")", "{", "}", "<", ">", "|",
    "||", ":", ",", "-->", "->>", "--", "-.", "==", "~~~", "@", "@{", ":::", "\\", "/", " ",
    "   ", "end", "subgraph", "style", "click", "classDef", "as", "Note", "loop", "else",
    "participant", "é", "中", "😀", "x" * 300, "ab" * 2500,
)  # fmt: skip
_SYNTAX: Final = "ab1 _-.:;,#&%\"`'|/\\<>()[]{}=~@*+!?é"
_WORDS: Final = ("a", "b", "hi", "two words", "x1", "A_b", "fill:#f9f", "stroke:#333")


@st.composite
def hostile_values(draw: st.DrawFn) -> str:
    """A string made of hostile atoms and plain words (sometimes padded with spaces)."""
    roll = draw(st.integers(0, 9))
    if roll == 0:
        return draw(st.text(max_size=12))
    if roll <= 3:  # printable syntax only: more of these are accepted, so the export is tried
        return draw(st.text(alphabet=_SYNTAX, min_size=1, max_size=10))
    parts = draw(st.lists(st.sampled_from(ATOMS) | st.sampled_from(_WORDS), min_size=1, max_size=4))
    value = "".join(parts)
    pad = draw(st.sampled_from(["", "", " ", "  ", "\t"]))
    side = draw(st.integers(0, 2))
    return (pad if side != 1 else "") + value + (pad if side != 0 else "")


# -- Mermaid text ----------------------------------------------------------------------------

#: `{v}` marks where a hostile value goes; `{w}` a second one.
FLOW_TEMPLATES: Final = (
    "A[{v}]", 'A["{v}"]', "A({v})", "A(({v}))", "A{{{v}}}", "A>{v}]", "A[/{v}/]", "A[({v})]",
    'A@{{ shape: doc, label: "{v}" }}', 'A@{{ icon: "{v}", label: "{w}" }}',
    'A@{{ img: "https://x/{v}.png", h: {w} }}', "A -->|{v}| B", 'A -->|"{v}"| B',
    "A -- {v} --> B", 'A -. "{v}" .-> B', "A == {v} ==> B", "{v} --> B", "A {v}@--> B",
    "subgraph {v}\nA\nend", "subgraph s [{v}]\nA\nend", 'subgraph s ["{v}"]\nA\nend',
    "subgraph s\ndirection {v}\nA\nend", "A\nstyle A {v}", "classDef c {v}\nA:::c",
    "A --> B\nlinkStyle 0 {v}", "A --> B\nlinkStyle default {v}", "A\nclick A {v}",
    'A\nclick A "{v}" "{w}"', 'A\nclick A href "{v}" "{w}"', 'A\nclick A call f("{v}")',
    "A\nclass A {v}", "A e1@--> B\ne1@{{ curve: {v} }}", "A e1@--> B\nclass e1 {v}",
    "A:::{v}", "%% {v}\nA",
    "{v}-x --> B", "a.{v} --> b:{w}", "A[{v}]\nA({w})", "A[/{v}\\]", "A[\\{v}/]", "A[/{v}/]",
    "A@{{ shape: {v} }}", "A@{{ shape: {v}, label: {w} }}", "direction {v}\nA --> B",
    'A\nclick A "{v}\n{w}"', 'click {v} href "https://x"\n{v} --> B', "accTitle: {v}",
    "accDescr: {v}", "accDescr {{\n{v}\n{w}\n}}", "A(({v}))\nA[\"{w}\"]",
    "A --.{v}--> B", "A -- {v} ---|{w}| B", "subgraph {v}-x\nA\nend\n{v}-x --> A",
)  # fmt: skip
#: Put before the header (front matter and directives).
PREAMBLES: Final = (
    "", "", "", "---\ntitle: {v}\n---\n", "%%{{init: {v}}}%%\n", "%%{{init: {{\n{v}\n}}}}%%\n",
    "---\n{v}\n{w}\n---\n%%{{init: {{}}}}%%\n",
)  # fmt: skip
SEQ_TEMPLATES: Final = (
    "participant {v}", "actor {v}", "participant A as {v}", "actor A as {v}",
    'participant A@{{ "type": "{v}" }}', "A->>B: {v}", "A-->>B: {v}", "A-)B: {v}",
    "{v}->>B: x", "A->>{v}: x", "Note over A: {v}", "Note left of A: {v}",
    "Note over A,B: {v}", "title {v}", "title: {v}", "loop {v}\nA->>B: x\nend",
    "alt {v}\nA->>B: x\nelse {w}\nB->>A: y\nend", "par {v}\nA->>B: x\nand {w}\nB->>A: y\nend",
    "critical {v}\nA->>B: x\noption {w}\nB->>A: y\nend", "opt {v}\nA->>B: x\nend",
    "break {v}\nA->>B: x\nend", "rect {v}\nA->>B: x\nend", "box {v}\nparticipant A\nend",
    "box Aqua {v}\nparticipant A\nend", "participant A\nlink A: {v} @ https://x/{w}",
    'participant A\nlinks A: {{"{v}": "https://x/{w}"}}', "autonumber {v}",
    "activate {v}", "A->>+B: {v}\nB-->>-A: {w}", "%% {v}\nA->>B: x", "accTitle: {v}",
    "accDescr: {v}", "accDescr {{\n{v}\n{w}\n}}", "A->>B: x\ncreate participant {v}\nA->>{v}: y",
    "A->>B: x # {v}", "autonumber off\nA->>B: {v}", "A-\\B: {v}", "A()->>B: {v}",
    "Participant {v}", "ACTOR {v}", "participant {v}@{{ \"type\": \"actor\" }}",
    "participant A@{{'type':'{v}'}}", "participant A @{{ type: {v} }} as {w}",
    "A-|\\B: {v}", "A-|/B: {v}", "A/|-B: {v}", "A\\|-B: {v}", "A--|\\B: {v}", "A--\\\\B: {v}",
    "A()->>()B: {v}", "A->>()B: {v}", "A->>B: wrap:{v}", "A->>B: nowrap:{v}",
    "autonumber 10 {v}\nA->>B: x\nautonumber\nB->>A: y", "par_over {v}\nA->>B: x\nend",
    "A->>B: x\ndestroy B\nA-xB: {v}", "create actor {v}\nA->>{v}: hi\ndestroy {v}\n{v}-->>A: {w}",
    "loop {v}\nNote over A: {w}\nend", "alt {v}\nA->>B: x\nelse\nNote over A: {w}\nend",
    "opt x\nA->>B: y\nNote right of B: {v}\nend", "rect rgb(0,0,0)\nNote over A: {v}\nend",
    "critical x\nNote over A: {v}\noption {w}\nNote over B: z\nend",
)  # fmt: skip


STATE_TEMPLATES: Final = (
    "{v}", "{v} --> B", "A --> {v}", "A --> B : {v}", "A --> B: {v}", "A : {v}",
    'state "{v}" as A', 'state "{v}" as A {{\nB\n}}', "state {v} <<choice>>",
    "state {v} {{\nB\n}}", "state C {{\ndirection {v}\nB\n}}", "state C {{\n{v}\n--\nB\n}}",
    "note left of A : {v}", "note right of {v} : x", "note right of A\n{v}\n{w}\nend note",
    "classDef {v} fill:#f00\nA:::x", "classDef c {v}\nclass A c", "A:::{v}", "class {v} c",
    "accTitle: {v}", "accDescr: {v}", "accDescr {{\n{v}\n{w}\n}}", "direction {v}",
    "%% {v}\nA", "A --> B %% {v}", "[*] --> {v}", "{v} --> [*]",
    "state C {{\n[*] --> {v}\n{v} --> [*]\n}}", 'note "{v}" as N1\nN1 --> A',
    'state C {{\nnote "{v}\n{w}" as N2\n}}', "note right of A : {v}\nnote left of A : {w}",
    "hide empty description\n{v}", "scale {v} width", "style A {v}", "style {v} fill:#f00",
    "[*]:::{v} --> A", "A --> [*]:::{v}", "[*]:::{v}", 'A\nclick A href "{v}"',
    'click A "{v}" "{w}"', "[*] --> A\nnote left of [*] : {v}", 'state "{v}\n{w}" as A', 'state "{v}\n{w}" as A {{\nB\n}}',
)  # fmt: skip


@st.composite
def mermaid_texts(draw: st.DrawFn) -> str:
    """A flowchart, sequence or state text with hostile values in one to three string fields."""
    kind = draw(st.sampled_from(["flowchart", "sequence", "state"]))
    templates = {"sequence": SEQ_TEMPLATES, "state": STATE_TEMPLATES}.get(kind, FLOW_TEMPLATES)
    chosen = draw(st.lists(st.sampled_from(templates), min_size=1, max_size=3))
    body = [t.format(v=draw(hostile_values()), w=draw(hostile_values())) for t in chosen]
    if kind == "sequence":
        head = draw(st.sampled_from(["sequenceDiagram", "sequenceDiagram\nparticipant A"]))
    elif kind == "state":
        head = draw(st.sampled_from(["stateDiagram-v2", "stateDiagram", "stateDiagram-v2\nA"]))
    else:
        head = draw(st.sampled_from(["flowchart", "flowchart LR", "graph TD"]))
    pre = draw(st.sampled_from(PREAMBLES)).format(
        v=draw(hostile_values()), w=draw(hostile_values())
    )
    return pre + head + "\n" + "\n".join(body) + "\n"


def nested_subgraphs(depth: int) -> str:
    """A flowchart whose subgraphs nest `depth` deep (export and import must not recurse)."""
    opening = "".join(f"subgraph s{i}\n" for i in range(depth))
    return "flowchart\n" + opening + "A\n" + "end\n" * depth


# -- op batches ------------------------------------------------------------------------------

FLOW_SEED: Final = """flowchart LR
  a[A] --> b[B]
  b --> c
  subgraph g1 [G]
    c
  end
"""
SEQ_SEED: Final = """sequenceDiagram
  participant A
  participant B
  A->>B: one
  B-->>A: two
  alt ok
    A->>B: three
  else no
    B->>A: four
  end
  Note over A: n
"""

STATE_SEED: Final = """stateDiagram-v2
  [*] --> Idle
  Idle --> Busy : go
  state Busy {
    [*] --> Work
    Work --> [*]
    --
    Side
  }
  Busy --> [*]:::done
  note right of Idle : waits
  note left of Idle : also
  note "remember" as Memo
  Memo --> Idle
  style Idle fill:#f00
  hide empty description
"""

_NODES: Final = ("n:a", "n:b", "n:c", "n:new")
_EDGES: Final = ("e:0001", "e:0002", "e:new")


def _flow_op(value: st.SearchStrategy[str]) -> st.SearchStrategy[dict[str, Any]]:
    node, edge = st.sampled_from(_NODES), st.sampled_from(_EDGES)
    b = st.builds
    return st.one_of(
        b(lambda n, v: {"type": "flow_add_node", "node_id": n, "label": v}, node, value),
        b(lambda n, v: {"type": "flow_update_node", "node_id": n, "label": v}, node, value),
        b(lambda n, v: {"type": "flow_set_node_note", "node_id": n, "note": v}, node, value),
        b(lambda n, v: {"type": "flow_set_node_style", "node_id": n, "style": v}, node, value),
        b(lambda n, v: {"type": "flow_set_node_mermaid_id", "node_id": n, "mermaid_id": v},
          node, value),
        b(lambda n, v: {"type": "flow_set_node_classes", "node_id": n, "classes": [v]},
          node, value),
        b(lambda e, v, w: {"type": "flow_add_edge", "edge_id": e, "from_node_id": "n:a",
                           "to_node_id": "n:b", "label": v, "style": w}, edge, value, value),
        b(lambda e, v: {"type": "flow_update_edge", "edge_id": e, "label": v}, edge, value),
        b(lambda e, v: {"type": "flow_update_edge", "edge_id": e, "style": v}, edge, value),
        b(lambda e, v: {"type": "flow_update_edge", "edge_id": e, "connector": v}, edge, value),
        b(lambda v: {"type": "flow_add_subgraph", "subgraph_id": "sg:new", "mermaid_id": "g2",
                     "title": v, "node_ids": ["n:a"]}, value),
        b(lambda v: {"type": "flow_add_subgraph", "subgraph_id": "sg:new", "mermaid_id": v},
          value),
        b(lambda v: {"type": "flow_update_subgraph", "subgraph_id": "sg:g1", "title": v}, value),
        b(lambda v, w: {"type": "flow_set_class_def", "name": v, "style": w}, value, value),
        b(lambda v: {"type": "flow_set_class_def", "name": "hot", "style": v}, value),
        b(lambda v: {"type": "flow_set_default_edge_style", "style": v}, value),
    )  # fmt: skip


def _seq_op(value: st.SearchStrategy[str]) -> st.SearchStrategy[dict[str, Any]]:
    participant = st.sampled_from(("p:A", "p:B", "p:new"))
    message = st.sampled_from(("m:0001", "m:0002", "m:0003", "m:new"))
    b = st.builds
    return st.one_of(
        b(lambda p, v: {"type": "seq_add_participant", "participant_id": p, "mermaid_name": v},
          participant, value),
        b(lambda v: {"type": "seq_add_participant", "participant_id": "p:C",
                     "mermaid_name": "C", "alias": v}, value),
        b(lambda p, v: {"type": "seq_update_participant", "participant_id": p, "alias": v},
          participant, value),
        b(lambda p, v: {"type": "seq_update_participant", "participant_id": p,
                        "mermaid_name": v}, participant, value),
        b(lambda p, v: {"type": "seq_set_participant_note", "participant_id": p, "note": v},
          participant, value),
        b(lambda m, v: {"type": "seq_add_message", "message_id": m, "from_participant_id": "p:A",
                        "to_participant_id": "p:B", "kind": "sync", "text": v,
                        "order_key": 99_000}, message, value),
        b(lambda m, v: {"type": "seq_update_message", "message_id": m, "text": v},
          message, value),
        b(lambda m, v: {"type": "seq_update_message", "message_id": m, "arrow": v},
          message, value),
        b(lambda v: {"type": "seq_add_note", "note_id": "note:new", "placement": "over",
                     "participant_ids": ["p:A"], "text": v, "order_key": 99_500}, value),
        b(lambda v: {"type": "seq_set_title", "title": v}, value),
        b(lambda v: {"type": "seq_add_block", "block_id": "b:new", "kind": "loop", "header": v,
                     "sections": [{"section_id": "s:new", "message_ids": ["m:0001"]}]}, value),
        b(lambda v: {"type": "seq_add_block", "block_id": "b:new", "kind": "alt",
                     "sections": [{"section_id": "s:n1", "message_ids": ["m:0001"]},
                                  {"section_id": "s:n2", "message_ids": ["m:0002"],
                                   "header": v}]}, value),
        b(lambda v: {"type": "seq_update_block", "block_id": "b:0001", "header": v}, value),
        b(lambda v: {"type": "seq_update_section", "section_id": "sec:0001:01", "header": v},
          value),
        b(lambda v: {"type": "seq_update_note", "note_id": "note:0001", "text": v}, value),
        b(lambda v, k: {"type": "seq_add_note", "note_id": "note:in", "placement": "over",
                        "participant_ids": ["p:A"], "text": v, "order_key": k},
          value, st.sampled_from((2500, 3000, 3500, 4000, 4500))),  # in, at and between sections
        b(lambda v: {"type": "seq_add_block", "block_id": "b:n", "kind": "opt", "header": v,
                     "sections": [{"section_id": "s:n", "message_ids": [],
                                   "note_ids": ["note:0001"]}]}, value),
        b(lambda v: {"type": "seq_add_section", "block_id": "b:0001", "section_id": "s:n2",
                     "header": v, "message_ids": [], "note_ids": ["note:0001"]}, value),
        b(lambda k: {"type": "seq_update_note", "note_id": "note:0001", "order_key": k},
          st.sampled_from((500, 3500, 4500))),
        b(lambda v: {"type": "seq_remove_note", "note_id": v}, st.sampled_from(("note:0001",))),
    )  # fmt: skip


def _state_op(value: st.SearchStrategy[str]) -> st.SearchStrategy[dict[str, Any]]:
    state = st.sampled_from(
        ("s:Idle", "s:Busy", "s:Work", "s:Side", "s:Memo", "s:new", "start", "end")
    )
    transition = st.sampled_from(("t:0001", "t:0002", "t:new"))
    b = st.builds
    return st.one_of(
        b(lambda s, v: {"type": "state_set_state", "state_id": s, "label": v}, state, value),
        b(lambda s, v: {"type": "state_set_state", "state_id": s, "descriptions": [v]},
          state, value),
        b(lambda v: {"type": "state_set_state", "state_id": "s:" + v}, value),
        b(lambda s, v, d: {"type": "state_set_state", "state_id": s,
                           "notes": [{"text": v, "side": d}, {"text": "two"}]},
          state, value, st.sampled_from(("left of", "right of"))),
        b(lambda s, v: {"type": "state_set_state", "state_id": s, "style": v}, state, value),
        b(lambda s, v: {"type": "state_set_state", "state_id": s, "kind": "note", "label": v},
          state, value),
        b(lambda s, v: {"type": "state_set_state", "state_id": s, "classes": [v]}, state, value),
        b(lambda s, v: {"type": "state_set_state", "state_id": s, "kind": v}, state, value),
        b(lambda s, p: {"type": "state_set_state", "state_id": s, "parent_id": p}, state, state),
        b(lambda s, v: {"type": "state_set_state", "state_id": s, "direction": v}, state, value),
        b(lambda t, v: {"type": "state_set_transition", "transition_id": t, "label": v,
                        "from_node_id": "s:Idle", "to_node_id": "s:Side"}, transition, value),
        b(lambda t, f, g: {"type": "state_set_transition", "transition_id": t,
                           "from_node_id": f, "to_node_id": g}, transition, state, state),
        b(lambda v, w: {"type": "flow_set_class_def", "name": v, "style": w}, value, value),
        b(lambda v: {"type": "flow_set_direction", "direction": v}, value),
        b(lambda s: {"type": "state_remove", "state_id": s}, state),
        b(lambda t: {"type": "state_remove", "transition_id": t}, transition),
    )  # fmt: skip


def state_batches() -> st.SearchStrategy[list[dict[str, Any]]]:
    """Batches of one to four state-diagram ops with hostile string values."""
    plain = st.sampled_from(("ok", "two words", "x1", "A_b"))
    return st.lists(_state_op(hostile_values() | plain), min_size=1, max_size=4)


def flow_batches() -> st.SearchStrategy[list[dict[str, Any]]]:
    """Batches of one to four flowchart ops with hostile string values."""
    return st.lists(_flow_op(hostile_values()), min_size=1, max_size=4)


def seq_batches() -> st.SearchStrategy[list[dict[str, Any]]]:
    """Batches of one to four sequence ops with hostile string values."""
    return st.lists(_seq_op(hostile_values()), min_size=1, max_size=4)


# -- the check -------------------------------------------------------------------------------


def _export(ast: Ast) -> str:
    return export_ast(ast)


def _saved_and_reloaded(ast: Ast, what: str) -> None:
    """Export is a fixed point, and a save then a load gives the same diagram, exactly."""
    kind = ast_kind(ast)
    text = _export(ast)
    assert _export(parse_mermaid(text)) == text, f"export is not a fixed point for {what}"
    diagram = Diagram(diagram_id="d", name="d", kind=kind, ast=ast, rev=1)
    files = MemoryFiles()
    save_session(files, Session(session_id="s:hostile", diagrams={"d": diagram}))
    result = load_session(files)
    assert not result.issues, f"reload of {what} reports {result.issues}"
    back = result.session.diagrams["d"]
    assert back == diagram, (
        f"{what} differs after save and load:\n{msgspec.to_builtins(diagram)}\n"
        f"{msgspec.to_builtins(back)}\nexported:\n{text}"
    )


def check_text(text: str) -> Outcome:
    """Import `text` as `diagram.create_from_mermaid` does; judge the outcome (see module)."""
    try:
        ast = parse_mermaid_text(text)
    except NereidError as error:
        assert error.code == INVALID_PARAMS, f"{error!r} for {text!r}"
        assert "line" in (error.data or {}) or "cannot parse" not in error.message, (
            f"refusal without a line: {error.message} for {text!r}"
        )
        return "refused"
    _saved_and_reloaded(ast, repr(text))
    return "saved"


def check_batch(seed: Ast, ops: Sequence[dict[str, Any]]) -> Outcome:
    """Apply `ops` to `seed` as `diagram.apply_ops` does; judge the outcome (see module)."""
    try:
        new, _delta = apply_ops(seed, convert_diagram_ops(list(ops)), diagram_id="d")
    except NereidError as refusal:
        assert refusal.code in (INVALID_PARAMS, -32002), f"{refusal!r} for {ops!r}"
        return "refused"
    _saved_and_reloaded(new, repr(ops))
    return "saved"


def seed_ast(text: str) -> Ast:
    """A seed diagram for the op batches (parsed once per test module)."""
    return parse_mermaid(text)
