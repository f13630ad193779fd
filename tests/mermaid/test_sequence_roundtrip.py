"""Property tests: round trip on generated diagrams, no stray exceptions, fast path == grammar."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nereid.mermaid import MermaidError, export_sequence, parse_sequence
from nereid.mermaid.sequence_grammar import (
    fast_declaration,
    fast_message,
    lark_declaration,
    lark_message,
)
from nereid.mermaid.sequence_parts import StatementSyntaxError
from nereid.mermaid.sequence_rules import participant_name_problem
from nereid.model.sequence import ARROW_KINDS

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

NAMES = [
    "A", "Bob", "svc_1", "Alice Smith", "api-gw", "Zoë", "endpoint", "Web (UI)", "x2", "Big Co 3",
]  # fmt: skip
TEXTS = [
    "hi",
    "ratio 1:2",
    "a<br/>b",
    "I #9829; you",
    "semi #59; colon",
    '"quoted"',
    "->> looks like an arrow",
    "end",
    "Zürich 🚆",
    "issue #35; fixed",
]
ARROWS = sorted(ARROW_KINDS)

names = st.sampled_from(NAMES)
texts = st.sampled_from(TEXTS)


@st.composite
def message(draw: st.DrawFn, source: str | None = None, target: str | None = None) -> str:
    source = source or draw(names)
    target = target or draw(names)
    arrow = draw(st.sampled_from(ARROWS))
    activation = draw(st.sampled_from(["", "+", "-"]))
    space = draw(st.sampled_from(["", " "]))
    start = draw(st.sampled_from(["", "", "()"]))
    end = draw(st.sampled_from(["", "", "()"]))
    wrap = draw(st.sampled_from(["", "", "wrap:", "nowrap:"]))
    comment = draw(st.sampled_from(["", "", " # a comment"]))
    return (
        f"{source}{space}{start}{arrow}{activation}{space}{end}{target}{space}: "
        f"{wrap}{draw(texts)}{comment}"
    )


@st.composite
def timeline_item(draw: st.DrawFn, known: list[str]) -> list[str]:
    choice = draw(st.integers(0, 8))
    if choice == 0:
        placement = draw(st.sampled_from(["left of", "right of", "over"]))
        who = draw(names)
        if placement == "over" and draw(st.booleans()):
            who += "," + draw(names)
        keyword = draw(st.sampled_from(["Note", "note", "NOTE"]))
        wrap = draw(st.sampled_from(["", "wrap:"]))
        return [f"{keyword} {placement} {who}: {wrap}{draw(texts)}"]
    alive = [name for name in known if not name.startswith("gone:")]
    if choice == 1 and alive:
        return [
            f"{draw(st.sampled_from(['activate', 'Deactivate']))} {draw(st.sampled_from(alive))}"
        ]
    if choice == 2:
        return [
            draw(
                st.sampled_from(["autonumber", "autonumber off", "Autonumber 7", "autonumber 2 3"])
            )
        ]
    if choice == 3:
        made = f"Made {draw(st.integers(0, 10**6))}"
        if made in known or f"gone:{made}" in known:  # Mermaid never re-creates a name
            return []
        known.append(made)
        keyword = draw(st.sampled_from(["participant", "actor", "Participant"]))
        alias = draw(st.sampled_from(["", " as New one"]))
        return [f"create {keyword} {made}{alias}", draw(message(target=made))]
    if choice == 4 and alive:
        who = draw(st.sampled_from(alive))
        known.remove(who)  # destroyed once
        known.append(f"gone:{who}")
        ends = draw(st.sampled_from([{"source": who}, {"target": who}]))
        return [f"destroy {who}", draw(message(**ends))]
    return [draw(message())]


@st.composite
def body(draw: st.DrawFn, depth: int, known: list[str]) -> list[str]:
    """Statements where every block section holds at least one message or note."""
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 4))):
        if depth < 3 and draw(st.integers(0, 4)) == 0:
            kind = draw(
                st.sampled_from(
                    ["alt", "opt", "loop", "par", "par_over", "critical", "break", "rect"]
                )
            )
            header = draw(st.sampled_from(["", " guard", " rgb(1, 2, 3)"]))
            if kind == "rect" and not header:
                header = " blue"
            lines.append(draw(st.sampled_from([kind, kind.upper()])) + header)
            lines += draw(body(depth + 1, known)) + [draw(message())]
            extra = {"alt": "else", "par": "and", "par_over": "and", "critical": "option"}.get(kind)
            for _ in range(draw(st.integers(0, 2)) if extra else 0):
                lines.append(extra + draw(st.sampled_from(["", " other"])))
                lines += [draw(st.sampled_from([draw(message()), f"Note over A: {draw(texts)}"]))]
            lines.append(draw(st.sampled_from(["end", "End"])))
        else:
            lines += draw(timeline_item(known))
    return lines


@st.composite
def diagram(draw: st.DrawFn) -> str:
    lines = ["sequenceDiagram"]
    if draw(st.booleans()):
        lines.append("title " + draw(texts))
    if draw(st.booleans()):
        lines.append(draw(st.sampled_from(["autonumber", "autonumber 5", "autonumber 3 2"])))
    if draw(st.booleans()):
        lines.append(draw(st.sampled_from(["accTitle: Who calls whom", "accTitle : a; b # c"])))
    if draw(st.booleans()):
        lines += draw(
            st.sampled_from([["accDescr: one line"], ["accDescr {", "  two", "  lines", "}"]])
        )
    declared = draw(st.lists(names, max_size=4))
    unique = list(dict.fromkeys(declared))
    boxed = draw(st.integers(0, len(unique)))
    split = draw(st.integers(0, boxed))
    for group in (unique[:split], unique[split:boxed]):
        if group:
            header = draw(
                st.sampled_from(["", " Purple Alice & John", " Another Group", " aqua",
                                 " rgb(1, 2, 3) Team", " transparent"])
            )  # fmt: skip
            lines += [f"box{header}", *(f"participant {name}" for name in group), "end"]
    for name in declared:
        keyword = draw(st.sampled_from(["participant", "actor", "Participant", "ACTOR"]))
        meta = draw(
            st.sampled_from(
                ["", '@{ "type": "database" }', '@{ "alias": "Al" }', ' @{type: queue}',
                 "@{ 'type' : 'entity' }", '@{"type":"control","alias":"Ctl"}']
            )
        )  # fmt: skip
        alias = draw(st.sampled_from(["", " as The Alias", " as x<br/>y"]))
        lines.append(f"{keyword} {name}{meta}{alias}")
    for name in draw(st.lists(st.sampled_from(declared), max_size=2)) if declared else []:
        label = draw(st.sampled_from(["Wiki", "Dash board", "Wiki"]))
        if draw(st.booleans()):
            lines.append(f"link {name}: {label} @ https://example.org/{name}")
        else:
            lines.append(f'links {name}: {{"{label}": "https://x.org/a", "Other": "u"}}')
    lines += draw(body(0, list(unique)))
    separator = draw(st.sampled_from(["\n", "\r\n", "\n  %% comment\n"]))
    return separator.join(lines)


@SETTINGS
@given(diagram())
def test_generated_diagrams_round_trip(text: str) -> None:
    ast = parse_sequence(text)
    exported = export_sequence(ast)
    again = parse_sequence(exported)
    assert again == ast
    assert export_sequence(again) == exported


FRAGMENTS = st.sampled_from(
    [
        "sequenceDiagram",
        "\n",
        "A",
        " ",
        "->>",
        "-->>",
        "-x",
        "+",
        "-",
        ":",
        ",",
        ";",
        "#59;",
        "alt",
        "else",
        "end",
        "par",
        "and",
        "Note over ",
        "participant ",
        "actor ",
        " as ",
        "@{",
        "}",
        '"type"',
        "activate ",
        "link A: ",
        "links A: ",
        " @ ",
        "{}",
        "autonumber",
        "title",
        "box",
        "%%",
        "\r",
        "(",
        "é",
    ]
)


@SETTINGS
@given(st.lists(FRAGMENTS, max_size=30).map("".join))
def test_fragment_soup_raises_only_mermaid_errors(text: str) -> None:
    try:
        ast = parse_sequence(text)
    except MermaidError as err:
        assert err.kind and str(err)
        return
    exported = export_sequence(ast)
    assert parse_sequence(exported) == ast


@SETTINGS
@given(st.text(max_size=200))
def test_arbitrary_text_raises_only_mermaid_errors(text: str) -> None:
    for candidate in (text, "sequenceDiagram\n" + text):
        try:
            parse_sequence(candidate)
        except MermaidError:
            pass


LINE_PIECES = st.sampled_from(
    [
        "A",
        "b_2",
        "Big Co",
        "x",
        " ",
        "\t",
        "->>",
        "-->>",
        "-x",
        "--x",
        "-)",
        "->",
        "<<->>",
        "+",
        "-",
        ":",
        "::",
        "hi",
        "-a",
    ]
)


@SETTINGS
@given(st.lists(LINE_PIECES, min_size=1, max_size=10).map("".join))
def test_fast_message_path_agrees_with_grammar(statement: str) -> None:
    statement = statement.strip()
    fast = fast_message(statement)
    if fast is None:
        return
    assert lark_message(statement) == fast


@SETTINGS
@given(
    st.sampled_from(["participant", "actor"]),
    st.text(alphabet="ab_9", min_size=1, max_size=6),
)
def test_fast_declaration_path_agrees_with_grammar(keyword: str, name: str) -> None:
    statement = f"{keyword}  {name}"
    fast = fast_declaration(statement)
    assert fast is not None
    assert lark_declaration(statement) == fast


@SETTINGS
@given(st.text(max_size=12))
def test_valid_names_survive_a_message_round_trip(name: str) -> None:
    if participant_name_problem(name) is not None:
        return
    ast = parse_sequence(f"sequenceDiagram\n{name}->>{name}: t")
    assert list(ast.participants) == [f"p:{name}"]


def test_grammar_errors_carry_offsets() -> None:
    try:
        lark_message("A->>B hi")
    except StatementSyntaxError as err:
        assert err.offset == 8
        assert "':'" in err.expected
    else:
        raise AssertionError("expected a syntax error")
