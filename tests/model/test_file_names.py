"""File-name encoding and path safety (session-folder.md §2; issue: path safety)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.model.file_names import (
    MAX_NAME_BYTES,
    StorePathError,
    check_relative_path,
    decode_stem,
    diagram_paths,
    encode_stem,
    needs_encoding,
    render_path,
    sidecar_path,
    walkthrough_path,
)


@pytest.mark.parametrize(
    ("identifier", "stem"),
    [
        ("flow", "flow"),
        ("demo-seq", "demo-seq"),
        ("d:1", "~643a31"),
        ("w:1", "~773a31"),
        ("nul.txt", "~6e756c2e747874"),
        ("flow:v2", "~666c6f773a7632"),
    ],
)
def test_spec_examples(identifier: str, stem: str) -> None:
    assert encode_stem(identifier) == stem


@pytest.mark.parametrize(
    "identifier",
    [
        "..", ".", "~x", "a.", "a ", "CON", "con", "Nul", "PRN.txt", "aux. .x", "aux.", "COM1", "lpt9",
        "a/b", "a\\b", "a\x00b", "a\x1fb", "a\x7fb", "a<b", "a>b", 'a"b', "a|b", "a?b", "a*b",
    ],
)  # fmt: skip
def test_unsafe_ids_are_encoded(identifier: str) -> None:
    stem = encode_stem(identifier)
    assert stem.startswith("~")
    assert set(stem[1:]) <= set("0123456789abcdef")
    assert decode_stem(stem) == identifier


@pytest.mark.parametrize(
    "identifier", ["COM0", "CONSOLE", "LPT10", "café", "日本語", "n_a-b", "a..b"]
)
def test_safe_ids_stay_raw(identifier: str) -> None:
    assert not needs_encoding(identifier)
    assert encode_stem(identifier) == identifier


def test_long_ids_are_refused_not_truncated() -> None:
    fits = "a" * (MAX_NAME_BYTES - len(".meta.json"))
    assert encode_stem(fits) == fits
    with pytest.raises(StorePathError, match="too long"):
        encode_stem(fits + "a")
    with pytest.raises(StorePathError, match="too long"):
        encode_stem(":" * 200)  # short id, long encoding
    with pytest.raises(StorePathError, match="too long"):
        encode_stem("é" * 200)  # 400 UTF-8 bytes


def test_empty_and_surrogate_ids_are_refused() -> None:
    with pytest.raises(StorePathError, match="empty"):
        encode_stem("")
    with pytest.raises(StorePathError, match="not valid Unicode"):
        encode_stem("a\ud800")


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=1, max_size=60))
def test_every_encodable_id_is_one_safe_component(identifier: str) -> None:
    try:
        stem = encode_stem(identifier)
    except StorePathError:
        return
    assert stem not in ("", ".", "..")
    assert not any(ch in stem for ch in "/\\\x00:")
    assert check_relative_path(f"diagrams/{stem}.mmd") == f"diagrams/{stem}.mmd"
    mmd, side, ascii_ = diagram_paths(identifier)
    assert mmd.count("/") == side.count("/") == ascii_.count("/") == 1
    if stem.startswith("~"):
        assert decode_stem(stem) == identifier


def test_file_paths() -> None:
    assert diagram_paths("order-flow") == (
        "diagrams/order-flow.mmd",
        "diagrams/order-flow.meta.json",
        "diagrams/order-flow.ascii.txt",
    )
    assert sidecar_path("x/y.z.mmd") == "x/y.z.meta.json"
    assert sidecar_path("x/.hidden") == "x/.hidden.meta.json"
    assert render_path("plain") == "plain.ascii.txt"
    assert walkthrough_path("w:1") == "walkthroughs/~773a31.wt.json"
    assert walkthrough_path("w:1", legacy=True) == "walkthroughs/w:1.wt.json"
    with pytest.raises(StorePathError):
        walkthrough_path("..", legacy=True)
    with pytest.raises(StorePathError):
        walkthrough_path("a\\b", legacy=True)


@pytest.mark.parametrize(
    "path",
    ["", "/etc/passwd", "\\x", "C:x", "c:\\x", "../x", "a/../../x", "a\\..\\x", "a\x00b", ".", "./", "a/" + "b" * 300],
)  # fmt: skip
def test_bad_relative_paths(path: str) -> None:
    with pytest.raises(StorePathError):
        check_relative_path(path)


def test_relative_paths_are_normalised() -> None:
    assert check_relative_path("./diagrams/./x.mmd") == "diagrams/x.mmd"
    assert check_relative_path("diagrams\\x.mmd") == "diagrams/x.mmd"
    assert check_relative_path("a..b/c") == "a..b/c"
