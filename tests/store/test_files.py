"""The file seam: atomic writes, symlink refusal, path safety (session-folder.md §10)."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from nereid.model.file_names import StorePathError
from nereid.store.faults import Fault, FaultPlan, FaultPoint
from nereid.store.files import FolderFiles, MemoryFiles, SessionFiles, SymlinkRefused


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
    with pytest.raises(SymlinkRefused, match="never read through links"):
        files.read("diagrams/x.mmd")
    assert not files.is_file("diagrams/x.mmd") and files.list_files("diagrams") == []
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


def test_nothing_is_read_through_a_symlinked_directory(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "x.mmd").write_text("secret")
    root = tmp_path / "session"
    root.mkdir()
    (root / "diagrams").symlink_to(elsewhere, target_is_directory=True)
    files = FolderFiles(root)
    with pytest.raises(SymlinkRefused, match="symlink refused"):
        files.read("diagrams/x.mmd")
    assert not files.is_file("diagrams/x.mmd")
    assert files.list_files("diagrams") == []


def test_a_fifo_or_directory_is_not_read(tmp_path: Path) -> None:
    (tmp_path / "d" / "dir").mkdir(parents=True)
    os.mkfifo(tmp_path / "d" / "pipe")  # opening it blocking would hang the reader forever
    files = FolderFiles(tmp_path)
    with pytest.raises(OSError, match="not a regular file"):
        files.read("d/pipe")
    with pytest.raises(IsADirectoryError):
        files.read("d/dir")
    assert not files.is_file("d/pipe") and files.list_files("d") == []


@pytest.mark.parametrize("point", ["write", "fsync", "rename"])
@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS, errno.EIO])
def test_an_injected_fault_leaves_every_file_of_the_item_as_it_was(
    tmp_path: Path, point: FaultPoint, code: int
) -> None:
    plan = FaultPlan()
    files = FolderFiles(tmp_path, durable=True, faults=plan)
    files.write_many([("d/a", b"old a"), ("d/b", b"old b")])
    # Staging (write, fsync) fails on the last file; a rename can only fail on the first
    # (a rename failing after another succeeded leaves that one replaced: see diagram_files).
    failing = "d/a" if point == "rename" else "d/b"
    plan.inject(Fault(errno=code, points=frozenset({point}), paths=failing))
    with pytest.raises(OSError) as caught:
        files.write_many([("d/a", b"new a"), ("d/b", b"new b")])
    assert caught.value.errno == code and caught.value.filename == failing
    assert (files.read("d/a"), files.read("d/b")) == (b"old a", b"old b")
    assert sorted(os.listdir(tmp_path / "d")) == ["a", "b"]  # no temp file left behind
    plan.clear()
    files.write_many([("d/a", b"new a"), ("d/b", b"new b")])
    assert (files.read("d/a"), files.read("d/b")) == (b"new a", b"new b")


def test_fault_plan_counts_limits_and_delays() -> None:
    plan = FaultPlan()
    files = MemoryFiles(faults=plan)
    plan.inject(Fault(errno=errno.EIO, points=frozenset({"read"}), paths="x*", times=1))
    plan.inject(Fault(errno=None, points=frozenset({"write"}), delay=0.01))
    files.write("x1", b"1")
    with pytest.raises(OSError, match="Input/output error"):
        files.read("x1")
    assert files.read("x1") == b"1"  # used up
    assert plan.hits == {"write": 1, "read": 1}
