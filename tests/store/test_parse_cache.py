"""A load through the parse cache is the load without it (issue 18: start-up).

The property: whatever the folder's files hold (hand edits, torn bytes, side-car revs),
loading through a cold cache, then through the warm one, gives exactly what loading
without a cache gives: the same diagrams (rev included), the same issues, the same kept
entries. A warm load parses nothing that parsed before; a file that does not parse is
parsed, and reported, every time. The cache trusts nothing it did not write: a torn or
foreign entry, a link in an entry's place, a cache directory that is a link or that
others may write, are misses or turn the cache off, never a wrong diagram.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nereid.mcp import Tool, ToolTable
from nereid.mcp.catalog import all_tools
from nereid.model import Diagram
from nereid.store.demo import demo_files
from nereid.store.files import MemoryFiles
from nereid.store.parse_cache import CACHE_DIR_ENV, ParseCache, cached_decoder
from nereid.store.schema import StoreFileError
from nereid.store.session_io import (
    DiagramDecoder,
    DiagramRead,
    LoadResult,
    decode_here,
    load_session,
)

Edit = tuple[str, int, int, bytes]


class Counting:
    """`decode_here`, counting what it was asked to parse."""

    def __init__(self) -> None:
        self.parsed: list[str] = []

    def __call__(self, reads: Sequence[DiagramRead]) -> list[Diagram | StoreFileError]:
        self.parsed.extend(read.entry.diagram_id for read in reads)
        return decode_here(reads)


def _files(base: MemoryFiles) -> list[str]:
    return sorted(
        path for path in base.list_files("diagrams") if path.endswith((".mmd", ".meta.json"))
    )


def _apply(files: MemoryFiles, edits: Sequence[Edit]) -> None:
    for path, where, cut, data in edits:
        full = f"diagrams/{path}"
        old = files.read(full)
        if data == b"rev":  # a side-car claiming another rev (the rev rule's input)
            try:
                value = json.loads(old)
                value["rev"] = where
                files.write(full, json.dumps(value).encode())
            except (ValueError, TypeError):
                pass
            continue
        at = where % (len(old) + 1)
        files.write(full, old[:at] + data + old[at + cut :])


def _load(files: MemoryFiles, decode: DiagramDecoder) -> LoadResult:
    return load_session(files, decode)


_PATHS = _files(demo_files())
_EDITS = st.lists(
    st.tuples(
        st.sampled_from(_PATHS),
        st.integers(0, 1 << 16),
        st.integers(0, 4),
        st.one_of(
            st.just(b"rev"),
            st.just(b"\n%% a comment\n"),
            st.binary(max_size=6),
            st.sampled_from([b"[", b"}", b'"', b"\xff", b"-->", b"\n"]),
        ),
    ),
    max_size=3,
)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits=_EDITS)
def test_a_load_through_the_cache_is_the_load_without_it(edits: list[Edit]) -> None:
    files = demo_files()
    _apply(files, edits)
    plain = _load(files, decode_here)
    with tempfile.TemporaryDirectory() as tmp:
        cold, warm = Counting(), Counting()
        assert _load(files, cached_decoder(ParseCache(Path(tmp)), cold)) == plain
        assert _load(files, cached_decoder(ParseCache(Path(tmp)), warm)) == plain
    failed = sorted(issue.diagram_id or "" for issue in plain.issues if issue.diagram_id)
    # Warm: only what did not parse is parsed again (and reported again).
    assert sorted(warm.parsed) == sorted(d for d in failed if d in cold.parsed)


def test_the_demo_and_a_folder_hit_the_cache(tmp_path: Path) -> None:
    files = demo_files()
    first, again = Counting(), Counting()
    plain = _load(files, decode_here)
    assert _load(files, cached_decoder(ParseCache(tmp_path), first)) == plain
    assert len(first.parsed) == len(plain.session.diagrams) > 0
    assert _load(files, cached_decoder(ParseCache(tmp_path), again)) == plain
    assert again.parsed == []


def _entries(directory: Path) -> list[Path]:
    return sorted(p for p in directory.iterdir() if not p.name.startswith("."))


@pytest.mark.parametrize(
    "spoil",
    [
        lambda p: p.write_bytes(p.read_bytes()[:-1]),  # torn
        lambda p: p.write_bytes(p.read_bytes()[:-1] + bytes([p.read_bytes()[-1] ^ 1])),
        lambda p: p.write_bytes(b"not msgpack at all"),
    ],
    ids=["torn", "flipped", "foreign"],
)
def test_a_spoilt_entry_is_a_miss(tmp_path: Path, spoil: Callable[[Path], None]) -> None:
    files = demo_files()
    plain = _load(files, decode_here)
    _load(files, cached_decoder(ParseCache(tmp_path), decode_here))
    for entry in _entries(tmp_path):
        spoil(entry)
    again = Counting()
    assert _load(files, cached_decoder(ParseCache(tmp_path), again)) == plain
    assert len(again.parsed) == len(plain.session.diagrams)


def test_a_link_in_an_entrys_place_is_not_followed(tmp_path: Path) -> None:
    files = demo_files()
    plain = _load(files, decode_here)
    cache = tmp_path / "cache"
    _load(files, cached_decoder(ParseCache(cache), decode_here))
    for entry in _entries(cache):
        moved = tmp_path / entry.name
        entry.rename(moved)
        entry.symlink_to(moved)
    again = Counting()
    assert _load(files, cached_decoder(ParseCache(cache), again)) == plain
    assert len(again.parsed) == len(plain.session.diagrams)


def test_a_cache_directory_that_is_a_link_or_shared_is_not_used(tmp_path: Path) -> None:
    files = demo_files()
    plain = _load(files, decode_here)
    real = tmp_path / "real"
    _load(files, cached_decoder(ParseCache(real), decode_here))
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    through_link = Counting()
    assert _load(files, cached_decoder(ParseCache(link), through_link)) == plain
    assert len(through_link.parsed) == len(plain.session.diagrams)
    real.chmod(0o777)
    shared = Counting()
    assert _load(files, cached_decoder(ParseCache(real), shared)) == plain
    assert len(shared.parsed) == len(plain.session.diagrams)


def test_the_cache_keeps_at_most_its_size(tmp_path: Path) -> None:
    files = demo_files()
    _load(files, cached_decoder(ParseCache(tmp_path / "all"), decode_here))
    sizes = [p.stat().st_size for p in _entries(tmp_path / "all")]
    assert len(sizes) > 2
    small = tmp_path / "small"
    _load(files, cached_decoder(ParseCache(small, max_bytes=max(sizes)), decode_here))
    kept = [p.stat().st_size for p in _entries(small)]
    assert 1 <= len(kept) < len(sizes) and sum(kept) <= max(sizes)


def test_the_environment_names_the_cache_or_turns_it_off(tmp_path: Path) -> None:
    chosen = ParseCache.from_env({CACHE_DIR_ENV: str(tmp_path)})
    assert chosen is not None and chosen.directory.parent == tmp_path
    assert ParseCache.from_env({CACHE_DIR_ENV: ""}) is None
    xdg = ParseCache.from_env({"XDG_CACHE_HOME": str(tmp_path)})
    assert xdg is not None and xdg.directory.is_relative_to(tmp_path / "nereid")
    home = ParseCache.from_env({"XDG_CACHE_HOME": "relative/ignored"})
    assert home is not None and home.directory.is_relative_to(Path.home() / ".cache")


def test_a_kept_tool_listing_lists_the_tools_as_generating_it_does(tmp_path: Path) -> None:
    generated = all_tools().listing()
    ParseCache(tmp_path).keep_tool_listing(generated)
    kept = ParseCache(tmp_path).tool_listing()
    assert kept == generated and list(kept) == sorted(kept)
    loads: list[int] = []

    def load() -> list[Tool[Any, Any]]:
        loads.append(1)
        return list(all_tools())

    table = ToolTable.listed(load, kept)
    assert table.names() == sorted(generated) and table.listing() == generated
    assert not loads  # listing imports no tool
    assert table.get("diagram.list") is not None and loads == [1]
    assert table.listing() == generated and len(table) == len(generated)
    # A listing that names other tools (another build) is dropped once the tools load.
    other = ToolTable.listed(load, {k: v for k, v in kept.items() if k != "diagram.list"})
    other.load()
    assert other.listing() == generated
    for entry in _entries(tmp_path):
        entry.write_bytes(entry.read_bytes()[:-3])
    assert ParseCache(tmp_path).tool_listing() is None
