"""The importer's plain-message path reads a line exactly as the statement path does.

`_Importer.plain_message` takes whole lines such as `Alice->>Bob: hi` without the statement
path's checks. A `;` at the end of a line changes nothing in Mermaid (it ends an empty
statement) but keeps the line off the plain path, so a diagram and its copy with `;` after
every line must give equal ASTs, or equal errors, over generated and hostile lines.
"""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from nereid.mermaid import MermaidError, parse_sequence
from nereid.mermaid.sequence import _Importer, message_id_of
from nereid.model.sequence import ARROW_KINDS, SequenceAst

from .test_sequence_roundtrip import diagram

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])

PLAIN_NAMES = ["A", "Bob", "x_1", "9", "Zed"]
NAMES = [
    "A", "Bob", "x_1", "9", "End", "end", "NOTE", "note", "title", "Title", "links", "link",
    "Alt", "par_over", "left", "right", "activate", "box", "create", "destroy", "autonumber",
    "accTitle", "accDescr", "participant", "Actor", "over", "off", "sequenceDiagram", "details",
    "rect", "and", "else", "option", "properties", "Ω", "a b",
]  # fmt: skip
TEXTS = [
    "", " ", "hi", "message 7", "wrap: x", "nowrap:y", ":wrap: z", "wrap:", "n", "w", ":",
    "tab\there", "ctl\x01x", "nbsp\u00a0", "\u3000lead", "trail\u2028", "x\u0085y", "données",
    "emoji 🚆", "a:b", "a, b", "->> arrow", "+", "-", "end", "a<br/>b", "\x1c",
]  # fmt: skip
SPACES = ["", " ", "\t", "  "]


@st.composite
def plain_message(draw: st.DrawFn) -> str:
    """Mostly lines the plain path takes, now and then one with a hostile name or text."""
    space = st.sampled_from(SPACES)
    source = draw(st.sampled_from(PLAIN_NAMES if draw(st.integers(0, 15)) else NAMES))
    target = draw(st.sampled_from(PLAIN_NAMES if draw(st.integers(0, 5)) else NAMES))
    text = st.sampled_from(["hi", "message 7", "a:b"] if draw(st.integers(0, 3)) else TEXTS)
    return (
        f"{source}{draw(space)}{draw(st.sampled_from(sorted(ARROW_KINDS)))}"
        f"{draw(st.sampled_from(['', '+', '-']))}{draw(space)}{target}"
        f"{draw(space)}:{draw(space)}{draw(text)}"
    )


#: Statements that change how the next message is read (boxes, lifelines, numbering).
OTHER_LINES = [
    ["participant A"], ["participant Bob as B"], ["actor x_1"], ["box Aqua Team"], ["end"],
    ["alt cond"], ["else"], ["create participant New", "A->>New: hi"], ["create actor Bob"],
    ["destroy A"], ["destroy Bob"], ["autonumber"], ["autonumber off"], ["Note over A: t"],
    ["activate A"], ["deactivate Bob"], ["box Team", "participant Zed", "end"],
]  # fmt: skip


@st.composite
def hostile_diagram(draw: st.DrawFn) -> str:
    lines = ["sequenceDiagram"]
    for _ in range(draw(st.integers(1, 12))):
        if draw(st.integers(0, 2)):
            lines.append(draw(plain_message()))
        else:
            lines += draw(st.sampled_from(OTHER_LINES))
    # Lines are read raw first (`PLAIN_LINE`): lead and trail them with any whitespace.
    lead = st.sampled_from(["", " ", "\t", "  \t", "\x0b", "\u3000", "\ufeff", " \u00a0"])
    trail = st.sampled_from(["", "", " ", "\t", "\r", " \r", "\x0c", "\u2028", "\u3000 "])
    return "\n".join(draw(lead) + line + draw(trail) for line in lines)


def _with_semicolons(text: str) -> str:
    """Every line but the header and the accessibility statements (whose values run to the
    end of the line, or to `}`), ended by `;`."""
    out = []
    in_block = False
    for index, line in enumerate(text.split("\n")):
        bare = line.rstrip("\r")
        if bare.strip().lower().startswith("acc"):
            in_block = "{" in bare and "}" not in bare
            out.append(line)
        elif in_block or index == 0:
            in_block = in_block and "}" not in bare
            out.append(line)
        else:
            out.append(bare + ";" + line[len(bare) :])
    return "\n".join(out)


def _outcome(text: str) -> SequenceAst | tuple[object, ...]:
    try:
        return parse_sequence(text)
    except MermaidError as err:
        return (err.kind, str(err), err.line, err.column, err.text, err.expected)


@SETTINGS
@given(hostile_diagram())
@example("sequenceDiagram\nA->>End: hi")
@example("sequenceDiagram\nA->>B: ctl\x01x")
@example("sequenceDiagram\nA->>B: nowrap:hi")
@example("sequenceDiagram\nA->>B:")
@example("sequenceDiagram\nbox Team\nA->>B: hi\nend")
@example("sequenceDiagram\nA->>B: hi\ncreate participant C\nA->>C: hi")
@example("sequenceDiagram\nA->>B: hi\ndestroy B\nA->>B: bye")
@example("sequenceDiagram\nA->>B: hi\nautonumber 5\nA->>B: hi\nalt x\nB->>A: ok\nend")
@example("sequenceDiagram\nA->>B: hi\nbox Team\nA->>B: hi\nend")  # a known route, in a box
@example("sequenceDiagram\n  A->>B: one\nA->>B: two\n\tA ->>B: 3\n  A->>B:\n  A->>+B: x")
@example("sequenceDiagram\nA->>B: hi\ncreate participant C\nA->>B: no\nA->>C: yes")
def test_plain_lines_read_as_statements_do(text: str) -> None:
    assert _outcome(text) == _outcome(_with_semicolons(text)), text


@settings(SETTINGS, max_examples=60)
@given(diagram())
def test_generated_diagrams_read_the_same_without_the_plain_path(text: str) -> None:
    assert _outcome(text) == _outcome(_with_semicolons(text)), text


def test_the_plain_path_takes_the_common_lines() -> None:
    """The lines the plain path exists for give the statement path's messages."""
    text = "sequenceDiagram\n  Alice->>Bob: hi there\n  Bob-->>+Alice: ok 2\n  Alice-xBob:bye"
    importer = _Importer()
    ast = importer.run(text)
    assert len(ast.messages) == 3 and importer.unproven == []
    assert ast == parse_sequence(_with_semicolons(text))
    assert [m.text for m in ast.messages] == ["hi there", "ok 2", "bye"]
    assert ast.messages[1].activation == "+"


@settings(SETTINGS, max_examples=60)
@given(st.integers(1, 30_000))
def test_message_ids_are_the_formatted_numbers(number: int) -> None:
    """The shared ids (`message_id_of`) are the numbers formatted, also past the shared ones."""
    assert message_id_of(number) == f"m:{number:04d}"
    assert message_id_of(9_999) == "m:9999" and message_id_of(10_000) == "m:10000"
