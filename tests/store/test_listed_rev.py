"""`listed_rev` reads a side-car's tail instead of decoding it, and answers as a decode does;
`listed_read` also says whether the file is as Nereid saved it (it loads for sure).

The reference is the rule itself: decode the side-car's `rev` / `mmd_sha256`
(`diagram_files.loaded_rev`), and a side-car that does not decode lists at the meta's rev
(`nereid.commands.session.list_probed`). Hostile side-cars: repeated keys, values of the
wrong type or out of range, broken JSON before a well-formed tail, strings that hold a
tail, truncation.
"""

from __future__ import annotations

import json

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.mermaid import detect_kind
from nereid.mermaid.errors import MermaidError
from nereid.store import diagram_files
from nereid.store.schema import MAX_REV, DiagramEntry
from nereid.store.session_io import DiagramRead, ListedRead, decoded_rev, listed_read, listed_rev

MMD = b"flowchart TD\n  a --> b\n"
DIGEST = diagram_files.mmd_digest(MMD)


def _read(sidecar: bytes | None, meta_rev: int) -> DiagramRead:
    entry = DiagramEntry(
        diagram_id="d", name="d", kind="flowchart", mmd_path="diagrams/d.mmd", rev=meta_rev
    )
    return DiagramRead(entry, MMD, sidecar, "diagrams/d.mmd", "diagrams/d.meta.json")


def _as_listed(read: DiagramRead, rev_of: object) -> int:
    try:
        return rev_of(read)  # type: ignore[operator, no-any-return]
    except msgspec.DecodeError:
        return read.entry.rev


def _tail(rev: object, digest: object, space: str) -> str:
    return f',{space}"rev":{space}{json.dumps(rev)},{space}"mmd_sha256": {json.dumps(digest)}{space}}}\n'


_revs = st.one_of(
    st.integers(min_value=0, max_value=8),
    st.just(MAX_REV),
    st.just(MAX_REV + 1),
    st.just(-1),
)
_digests = st.sampled_from([DIGEST, "0" * 64, DIGEST.upper(), "", None])
_values = st.one_of(
    st.none(),
    st.integers(-2, 10),
    st.text(max_size=6),
    st.lists(st.integers(0, 3), max_size=3),
    st.sampled_from([DIGEST, "}", '"', "\\", '", "rev": 7, "mmd_sha256": "']),
)
_keys = st.sampled_from(["rev", "mmd_sha256", "stable_id_map", "x"])
_junk = st.sampled_from(["", "{", "}", "[", '"', "\\", ",", '"rev": 3', "\x00", " "])


@st.composite
def _sidecars(draw: st.DrawFn) -> bytes:
    members = draw(st.lists(st.tuples(_keys, _values), max_size=5))
    body = "{" + ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in members)
    if not members:
        body += '"diagram_id": "d"'
    space = draw(st.sampled_from(["", " ", "\n  ", "\t"]))
    text = body + _tail(draw(_revs), draw(_digests), space)
    if draw(st.booleans()):  # break it somewhere before the tail
        at = draw(st.integers(0, len(body)))
        text = text[:at] + draw(_junk) + text[at:]
    if draw(st.booleans()):  # or hide the tail in a string
        text = '{"note": ' + json.dumps(text) + "}"
    if draw(st.integers(0, 4)) == 0:  # or cut it short
        text = text[: draw(st.integers(0, len(text)))]
    return text.encode()


@settings(max_examples=400, deadline=None)
@given(sidecar=_sidecars(), meta_rev=st.integers(0, 9))
def test_the_tail_gives_what_a_decode_gives(sidecar: bytes, meta_rev: int) -> None:
    read = _read(sidecar, meta_rev)
    assert _as_listed(read, listed_rev) == _as_listed(read, decoded_rev)


def test_a_side_car_as_nereid_writes_it_is_not_decoded() -> None:
    sidecar = (
        '{\n  "diagram_id": "d",\n  "stable_id_map": {"rev": "n:rev"},\n'
        f'  "rev": 4,\n  "mmd_sha256": "{DIGEST}"\n}}\n'
    ).encode()
    assert listed_rev(_read(sidecar, 4)) == 4
    broken = sidecar.replace(b'"d",', b'"d" "', 1)  # not JSON: lists at the meta's rev
    assert listed_rev(_read(broken, 4)) == 4
    assert _as_listed(_read(broken, 2), listed_rev) == 2  # decoded (and failed)
    assert listed_rev(_read(sidecar, 2)) == 4  # a newer side-car: decoded
    edited = _read(sidecar, 4)._replace(mmd=MMD + b"  b --> c\n")
    assert listed_rev(edited) == 5  # the .mmd changed since: a new rev
    assert listed_rev(_read(None, 3)) == 3


def _saved_sidecar(mmd: bytes, rev: int = 4) -> bytes:
    digest = diagram_files.mmd_digest(mmd)
    return f'{{\n  "diagram_id": "d",\n  "rev": {rev},\n  "mmd_sha256": "{digest}"\n}}\n'.encode()


def test_a_file_as_nereid_saved_it_loads_for_sure_and_an_edited_one_needs_its_parse() -> None:
    read = _read(_saved_sidecar(MMD), 4)
    assert listed_read(read) == ListedRead(4, as_saved=True)
    edited = read._replace(mmd=MMD + b"  b --> c[[[\n")
    assert listed_read(edited) == ListedRead(5, as_saved=False)
    assert listed_read(_read(None, 3)) == ListedRead(3, as_saved=False)  # no side-car
    other_kind = read._replace(entry=msgspec.structs.replace(read.entry, kind="sequence"))
    assert listed_read(other_kind).as_saved is False  # the meta's kind was changed by hand
    decoded = _read(_saved_sidecar(MMD, rev=6), 4)  # a newer side-car: decoded for its rev
    assert listed_read(decoded) == ListedRead(6, as_saved=True)
    later = _saved_sidecar(MMD).replace(b"\n}", b',\n  "state_transitions": []\n}')
    assert listed_read(_read(later, 4)) == ListedRead(4, as_saved=True)  # decoded: the same
    assert listed_read(_read(later, 4)._replace(mmd=MMD + b"x")) == ListedRead(5, as_saved=False)


_lines = st.sampled_from(
    [
        "",
        "%% a comment",
        "%%{init: {'theme': 'dark'}}%%",
        "%%{init:",
        "}%%",
        "---",
        "title: x",
        "flowchart TD",
        "graph LR",
        "sequenceDiagram",
        "stateDiagram-v2",
        "  a --> b",
        "é" * 700,
        "\ufeff",
        "\r",
    ]
)


@settings(max_examples=300, deadline=None)
@given(
    lines=st.lists(_lines, max_size=12),
    pad=st.integers(0, 5000),
    kind=st.sampled_from(["flowchart", "sequence", "state"]),
)
def test_only_a_header_that_names_the_meta_kind_is_as_saved(
    lines: list[str], pad: int, kind: str
) -> None:
    """The header is read from the file's head where that is exact (no preamble there):
    as_saved never holds for a text whose header, read whole, names another kind or none
    (long lines, multi-byte characters cut at the head's end, front matter, directives)."""
    text = "\n".join(lines) + "\n" + "%% " + "x" * pad + "\n  a --> b\n"
    mmd = text.encode()
    read = _read(_saved_sidecar(mmd), 4)._replace(mmd=mmd)
    read = read._replace(entry=msgspec.structs.replace(read.entry, kind=kind))
    try:
        whole = detect_kind(text)
    except MermaidError:
        whole = None
    if listed_read(read).as_saved:
        assert whole == kind
    elif whole == kind and len(mmd) <= 512:
        raise AssertionError("a short file whose header names its kind is as saved")
