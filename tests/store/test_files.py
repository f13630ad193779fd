"""The file seam: atomic writes, symlink refusal, path safety (session-folder.md §10)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from nereid.store.files import FolderFiles, MemoryFiles, SessionFiles, SymlinkRefused
from nereid.store.naming import StorePathError


@pytest.fixture(params=["folder", "folder-durable", "memory"])
def files(request: pytest.FixtureRequest, tmp_path: Path) -> SessionFiles:
    if request.param == "memory":
        return MemoryFiles()
    return FolderFiles(tmp_path / "session", durable=request.param == "folder-durable")


def test_write_read_list_remove(files: SessionFiles) -> None:
    files.write("diagrams/a.mmd", b"one")
    files.write("diagrams/a.mmd", b"two")
    files.write("diagrams/b.mmd", b"")
    files.write("top.json", b"{}")
    assert files.read("diagrams/a.mmd") == b"two"
    assert files.is_file("diagrams/b.mmd") and not files.is_file("diagrams/c.mmd")
    assert files.list_files("diagrams") == ["a.mmd", "b.mmd"]
    assert files.list_files("walkthroughs") == []
    assert files.remove("diagrams/a.mmd") is True
    assert files.remove("diagrams/a.mmd") is False
    with pytest.raises(FileNotFoundError):
        files.read("diagrams/a.mmd")


@pytest.mark.parametrize("path", ["../escape", "a/../../escape", "/abs", "a\x00b", "C:x", ""])
def test_paths_outside_the_folder_are_refused(files: SessionFiles, path: str) -> None:
    with pytest.raises(StorePathError):
        files.write(path, b"x")
    with pytest.raises(StorePathError):
        files.read(path)
    with pytest.raises(StorePathError):
        files.remove(path)


def test_real_writes_leave_no_temp_files(tmp_path: Path) -> None:
    files = FolderFiles(tmp_path, durable=True)
    for index in range(5):
        files.write("diagrams/x.mmd", str(index).encode())
    assert sorted(os.listdir(tmp_path / "diagrams")) == ["x.mmd"]
    assert (tmp_path / "diagrams" / "x.mmd").read_text() == "4"


def test_symlinked_target_is_refused_and_untouched(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("keep")
    root = tmp_path / "session"
    (root / "diagrams").mkdir(parents=True)
    (root / "diagrams" / "x.mmd").symlink_to(outside)
    files = FolderFiles(root)
    with pytest.raises(SymlinkRefused, match="symlink refused"):
        files.write("diagrams/x.mmd", b"evil")
    assert outside.read_text() == "keep"
    assert files.read("diagrams/x.mmd") == b"keep"  # reads do not check links
    assert os.listdir(root / "diagrams") == ["x.mmd"]


def test_symlinked_directory_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    root = tmp_path / "session"
    root.mkdir()
    (root / "diagrams").symlink_to(elsewhere, target_is_directory=True)
    files = FolderFiles(root)
    with pytest.raises(SymlinkRefused):
        files.write("diagrams/x.mmd", b"evil")
    with pytest.raises(SymlinkRefused):
        files.remove("diagrams/x.mmd")
    assert os.listdir(elsewhere) == []


def test_the_session_folder_itself_may_be_a_link(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    FolderFiles(link).write("diagrams/x.mmd", b"ok")
    assert (real / "diagrams" / "x.mmd").read_bytes() == b"ok"


def test_a_file_where_a_directory_should_be(tmp_path: Path) -> None:
    (tmp_path / "diagrams").write_text("not a dir")
    with pytest.raises(NotADirectoryError):
        FolderFiles(tmp_path).write("diagrams/x.mmd", b"x")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "x").mkdir()
    with pytest.raises(IsADirectoryError):
        FolderFiles(tmp_path).write("d/x", b"x")


def test_long_target_names_get_a_short_temp_name(tmp_path: Path) -> None:
    name = "a" * 250
    FolderFiles(tmp_path).write(name, b"x")
    assert os.listdir(tmp_path) == [name]


def test_memory_files_log_writes() -> None:
    files = MemoryFiles({"a": b"1"})
    files.write("b/c", b"2")
    files.remove("a")
    assert files.log == [("write", "b/c"), ("remove", "a")]
    assert list(files.writes()) == ["b/c"]
    with pytest.raises(IsADirectoryError):
        files.write("b", b"x")
