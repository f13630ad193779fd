"""An ObjectRef is its canonical text in every msgspec codec (JSON, msgpack, `convert` /
`to_builtins`), and keeps the field-wise equality and the canonical order it had as a Struct.

Every valid ref decodes back equal from each codec; every string `parse_ref` refuses is
refused by each codec with its own message and kind, at the path that held it.
"""

from __future__ import annotations

import copy
import pickle
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.model import ObjectRef, ObjectRefError, parse_ref
from nereid.model.refs import ref_dec_hook, ref_enc_hook, ref_from_text

_ID = st.text(min_size=1, max_size=12).filter(lambda s: "/" not in s)
REFS = st.builds(
    lambda d, c, o: ObjectRef.of(d, tuple(c), o), _ID, st.lists(_ID, min_size=1, max_size=3), _ID
)
HOSTILE = st.one_of(
    st.text(max_size=30),
    st.text(alphabet="d:/ax", max_size=12),
    st.builds(lambda s: "d:" + s, st.text(alphabet="/ab", max_size=10)),
)


def _refused(text: str) -> ObjectRefError | None:
    try:
        parse_ref(text)
    except ObjectRefError as err:
        return err
    return None


class Holder(msgspec.Struct, frozen=True):
    one: ObjectRef
    maybe: ObjectRef | None = None
    many: tuple[ObjectRef, ...] = ()
    keyed: dict[ObjectRef, int] = {}


def _codecs() -> list[tuple[str, Any, Any]]:
    json_enc = msgspec.json.Encoder(enc_hook=ref_enc_hook)
    pack_enc = msgspec.msgpack.Encoder(enc_hook=ref_enc_hook)
    return [
        (
            "json",
            json_enc.encode,
            lambda data, kind: msgspec.json.decode(data, type=kind, dec_hook=ref_dec_hook),
        ),
        (
            "msgpack",
            pack_enc.encode,
            lambda data, kind: msgspec.msgpack.decode(data, type=kind, dec_hook=ref_dec_hook),
        ),
        (
            "convert",
            lambda value: msgspec.to_builtins(value, enc_hook=ref_enc_hook),
            lambda data, kind: msgspec.convert(data, kind, strict=True, dec_hook=ref_dec_hook),
        ),
    ]


CODECS = _codecs()


def _same_parts(a: ObjectRef, b: ObjectRef) -> bool:
    return (a.diagram_id, a.category, a.object_id) == (b.diagram_id, b.category, b.object_id)


@settings(max_examples=60)
@given(REFS, st.lists(REFS, max_size=4))
def test_every_valid_ref_round_trips_through_every_codec(
    ref: ObjectRef, more: list[ObjectRef]
) -> None:
    holder = Holder(one=ref, maybe=ref, many=tuple(more), keyed={r: i for i, r in enumerate(more)})
    for name, encode, decode in CODECS:
        back = decode(encode(holder), Holder)
        assert back == holder, name
        assert type(back.one) is ObjectRef and _same_parts(back.one, ref), name
        assert all(type(r) is ObjectRef for r in (*back.many, *back.keyed)), name
        assert [r.sort_key() for r in back.many] == [r.sort_key() for r in more], name
    assert msgspec.json.decode(CODECS[0][1](holder))["one"] == str(ref)  # the text, not parts


@settings(max_examples=60)
@given(REFS)
def test_a_ref_is_its_text_and_copies_keep_its_parts(ref: ObjectRef) -> None:
    text = str(ref)
    assert type(text) is str and text == ref.format() and f"{ref}" == text
    for twin in (parse_ref(text), ref_from_text(text), pickle.loads(pickle.dumps(ref))):
        assert twin == ref and hash(twin) == hash(ref) and _same_parts(twin, ref)
    assert _same_parts(copy.deepcopy(ref), ref)
    with pytest.raises(AttributeError):
        ref.object_id = "x"  # type: ignore[misc]


@settings(max_examples=80)
@given(REFS, REFS)
def test_equality_and_order_are_those_of_the_parts(a: ObjectRef, b: ObjectRef) -> None:
    assert (a == b) == (a.sort_key() == b.sort_key())
    assert (a != b) == (a.sort_key() != b.sort_key())
    assert (a < b) == (a.sort_key() < b.sort_key())
    assert (a <= b) == (a.sort_key() <= b.sort_key())
    assert (a > b) == (a.sort_key() > b.sort_key())
    assert (a >= b) == (a.sort_key() >= b.sort_key())
    assert sorted([a, b]) == sorted([a, b], key=ObjectRef.sort_key)
    assert max(a, b).sort_key() == max(a.sort_key(), b.sort_key())


@settings(max_examples=150)
@given(HOSTILE)
def test_every_invalid_text_is_refused_as_parse_ref_refuses_it(text: str) -> None:
    err = _refused(text)
    if err is None:
        assert str(parse_ref(text)) == text
        return
    assert err.text == text
    for name, _, decode in CODECS:
        data = {"one": "d:a/b/c", "many": ["d:a/b/c", text]}
        encoded = data if name == "convert" else CODECS[0][1](data) if name == "json" else None
        if encoded is None:
            encoded = msgspec.msgpack.encode(data)
        with pytest.raises(msgspec.ValidationError) as caught:
            decode(encoded, Holder)
        assert str(caught.value) == f"{err.message} - at `$.many[1]`", name
        cause = caught.value.__cause__
        assert isinstance(cause, ObjectRefError) and cause.kind == err.kind, name
