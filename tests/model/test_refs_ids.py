"""ObjectRef grammar, error precedence and ordering; id rules (model.md §2-3)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nereid.model import (
    IdError,
    ObjectRef,
    ObjectRefError,
    check_id,
    format_connector,
    mermaid_ident_problem,
    parse_connector,
    parse_ref,
)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("x:diag/seq/p/x", "MissingPrefix"),
        ("d:diag", "MissingCategory"),
        ("d:/seq/p/x", "MissingDiagramId"),
        ("d:diag/", "MissingCategory"),
        ("d:diag/seq", "MissingObjectId"),
        ("d:diag//x", "MissingCategory"),
        ("d:diag/seq//p:a", "InvalidCategory"),
        ("d:diag/seq/participant/", "MissingObjectId"),
    ],
)
def test_parse_errors(text: str, kind: str) -> None:
    with pytest.raises(ObjectRefError) as info:
        parse_ref(text)
    assert info.value.kind == kind


@pytest.mark.parametrize(
    "text",
    ["d:checkout/seq/message/m:0007", "d:d:1/flow/node/n:start", "d:lab/custom/kind/deep/o:9"],
)
def test_parse_format_round_trip(text: str) -> None:
    assert str(parse_ref(text)) == text


def test_ordering_is_by_tuple_not_string() -> None:
    a = parse_ref("d:a/flow/node/n:x")
    ab = parse_ref("d:a-b/flow/node/n:x")
    assert sorted([ab, a]) == [a, ab]
    assert str(ab) < str(a)


@given(
    st.text(min_size=1).filter(lambda s: "/" not in s),
    st.lists(st.text(min_size=1).filter(lambda s: "/" not in s), min_size=1, max_size=3),
    st.text(min_size=1).filter(lambda s: "/" not in s),
)
def test_round_trip_property(diagram: str, category: list[str], obj: str) -> None:
    ref = ObjectRef.of(diagram, tuple(category), obj)
    assert parse_ref(str(ref)) == ref


def test_id_rules() -> None:
    assert check_id("d:1 x") == "d:1 x"
    with pytest.raises(IdError, match="must not be empty"):
        check_id("")
    with pytest.raises(IdError, match="must not contain '/'"):
        check_id("a/b")
    assert mermaid_ident_problem("a_1") is None
    assert mermaid_ident_problem("a b") == "must not contain whitespace"
    assert mermaid_ident_problem("ä") == "contains invalid character: 'ä'"


@pytest.mark.parametrize(
    "token", ["-->", "---", "-.->", "-.-", "==>", "===", "<-->", "o--o", "x--x", "---->", "~~~"]
)
def test_connector_round_trip(token: str) -> None:
    assert format_connector(parse_connector(token)) == token


@pytest.mark.parametrize("token", ["--", "<--", "->", "", "-x-"])
def test_connector_errors(token: str) -> None:
    with pytest.raises(ValueError):
        parse_connector(token)
