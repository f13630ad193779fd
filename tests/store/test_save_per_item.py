"""Saving is per item: one diagram or walkthrough that cannot be saved never stops the others.

Covers the causes the issue names (export error, a directory or symlink where the file
should be, EACCES, EIO, ENOSPC), exceptions of any type, meta entries sharing files, and
deletes that must leave other entries' files alone.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.model import Diagram, FlowchartAst, FlowNode, Session, Walkthrough
from nereid.store import diagram_files
from nereid.store.faults import Fault, FaultPlan
from nereid.store.files import FolderFiles, MemoryFiles
from nereid.store.schema import StoreFileError
from nereid.store.session_io import load_session, save_session
from tests.store.store_testkit import EXCEPTION_TYPES


def flow(diagram_id: str, rev: int = 1, label: str = "A") -> Diagram:
    ast = FlowchartAst(nodes={"n:a": FlowNode(label=label)})
    return Diagram(diagram_id=diagram_id, name=diagram_id, kind="flowchart", ast=ast, rev=rev)


def session_of(*diagram_ids: str, rev: int = 1) -> Session:
    return Session(
        session_id="s:t",
        diagrams={d: flow(d, rev, label=f"{d}{rev}") for d in diagram_ids},
        walkthroughs={"w": Walkthrough(walkthrough_id="w", title="T", rev=rev)},
        active_diagram_id=diagram_ids[0],
    )


def test_exception_types_cover_the_hostile_ones() -> None:
    assert {RecursionError, MemoryError, OSError, KeyError, AssertionError} <= set(EXCEPTION_TYPES)


@settings(max_examples=40, deadline=None)
@given(
    error_type=st.sampled_from(EXCEPTION_TYPES),
    bad=st.sampled_from(["a", "b", "c"]),
    rev=st.integers(min_value=1, max_value=5),
)
def test_any_exception_of_one_item_leaves_the_others_saved(
    error_type: type[Exception], bad: str, rev: int
) -> None:
    files = MemoryFiles()
    save_session(files, session_of("a", "b", "c"))
    real = diagram_files.encode_diagram

    def failing(diagram: Diagram) -> tuple[str, str]:
        if diagram.diagram_id == bad:
            raise error_type("injected")
        return real(diagram)

    session = session_of("a", "b", "c", rev=rev + 1)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(diagram_files, "encode_diagram", failing)
        report = save_session(files, session)
    assert list(report.failed) == [f"diagram:{bad}"]
    assert (
        error_type.__name__ in report.failed[f"diagram:{bad}"]
        or "injected" in (report.failed[f"diagram:{bad}"])
    )
    assert f"diagram:{bad}" not in report.on_disk and "meta" in report.on_disk
    loaded = load_session(files)
    assert loaded.issues == ()
    for diagram_id, diagram in loaded.session.diagrams.items():
        expected = 1 if diagram_id == bad else rev + 1
        assert diagram.rev == expected, diagram_id  # the failed one stays as it was on disk
    assert loaded.session.walkthroughs["w"].rev == rev + 1
    # The next save (nothing failing any more) catches up.
    report = save_session(files, session, rewrite=[f"diagram:{bad}"])
    assert report.failed == {}
    assert load_session(files).session.diagrams[bad].rev == rev + 1


def test_a_new_item_that_fails_is_not_listed_so_the_folder_still_loads() -> None:
    files = MemoryFiles()
    save_session(files, session_of("a"))
    plan = FaultPlan()
    files.faults = plan
    plan.inject(Fault(errno=errno.EIO, paths="diagrams/new.*"))
    session = session_of("a", "new", rev=2)
    report = save_session(files, session)
    assert list(report.failed) == ["diagram:new"] and "I/O error" in report.failed["diagram:new"]
    loaded = load_session(files)
    assert loaded.issues == () and sorted(loaded.session.diagrams) == ["a"]
    assert loaded.session.diagrams["a"].rev == 2


@pytest.mark.parametrize("obstacle", ["directory", "symlink", "EACCES", "EIO", "ENOSPC", "EROFS"])
def test_real_folder_obstacles_stop_only_their_item(tmp_path: Path, obstacle: str) -> None:
    root = tmp_path / "session"
    plan = FaultPlan()
    files = FolderFiles(root, durable=True, faults=plan)
    save_session(files, session_of("a", "b"))
    outside = tmp_path / "outside.txt"
    outside.write_text("keep")
    target = root / "diagrams" / "b.mmd"
    if obstacle == "directory":
        target.unlink()
        target.mkdir()
    elif obstacle == "symlink":
        target.unlink()
        target.symlink_to(outside)
    else:
        plan.inject(Fault(errno=getattr(errno, obstacle), paths="diagrams/b.*"))
    report = save_session(files, session_of("a", "b", rev=2))
    assert list(report.failed) == ["diagram:b"]
    assert report.on_disk == {"meta", "diagram:a", "walkthrough:w"}
    assert outside.read_text() == "keep"
    plan.clear()
    loaded = load_session(FolderFiles(root))
    assert loaded.session.diagrams["a"].rev == 2 and loaded.session.walkthroughs["w"].rev == 2
    if obstacle in ("directory", "symlink"):
        assert [i.diagram_id for i in loaded.issues] == ["b"]  # reported, never followed
    else:
        assert loaded.issues == () and loaded.session.diagrams["b"].rev == 1
    assert not [p for p in root.rglob(".nereid.tmp.*")]


def test_a_failed_walkthrough_and_a_failed_meta_are_reported_alone() -> None:
    plan = FaultPlan()
    files = MemoryFiles(faults=plan)
    save_session(files, session_of("a"))
    plan.inject(Fault(errno=errno.ENOSPC, paths="walkthroughs/*"))
    report = save_session(files, session_of("a", rev=2))
    assert (
        list(report.failed) == ["walkthrough:w"] and "disk full" in report.failed["walkthrough:w"]
    )
    assert report.on_disk == {"meta", "diagram:a"}
    plan.clear()
    plan.inject(Fault(errno=errno.EROFS, paths="nereid-session.meta.json"))
    report = save_session(files, session_of("a", rev=3))
    assert list(report.failed) == ["meta"] and "read-only folder" in report.failed["meta"]
    # The diagram's files are enough: the meta on disk lists it, its side-car has the rev.
    assert report.on_disk == {"diagram:a", "walkthrough:w"}
    plan.clear()
    assert load_session(files).session.diagrams["a"].rev == 3


def test_a_meta_whose_entries_share_a_file_is_refused() -> None:
    files = MemoryFiles()
    save_session(files, session_of("a", "b"))
    shared = (
        b'{"session_id": "s", "diagrams": ['
        b'{"diagram_id": "a", "name": "a", "kind": "flowchart", "mmd_path": "diagrams/a.mmd"},'
        b'{"diagram_id": "b", "name": "b", "kind": "flowchart", "mmd_path": "diagrams/a.txt"}]}'
    )
    files.files["nereid-session.meta.json"] = shared
    with pytest.raises(
        StoreFileError,
        match=r"diagrams\[1\] and diagrams\[0\] share the file "
        r"diagrams/a\.meta\.json",
    ):
        load_session(files)
    files.files["nereid-session.meta.json"] = (
        b'{"session_id": "s", "diagrams": [{"diagram_id": "a", "name": "a", '
        b'"kind": "flowchart", "mmd_path": "nereid-session.meta.json"}]}'
    )
    with pytest.raises(StoreFileError, match="share the file nereid-session.meta.json"):
        load_session(files)


def test_deleting_never_removes_files_another_entry_owns() -> None:
    files = MemoryFiles()
    save_session(files, session_of("a", "b"))
    # "old" was listed with a custom path that is b's file; b is still in the session.
    files.files["nereid-session.meta.json"] = (
        b'{"session_id": "s:t", "walkthrough_ids": ["w"], "diagrams": ['
        b'{"diagram_id": "a", "name": "a", "kind": "flowchart", "mmd_path": "diagrams/a.mmd"},'
        b'{"diagram_id": "b", "name": "b", "kind": "flowchart", "mmd_path": "diagrams/b.mmd"},'
        b'{"diagram_id": "old", "name": "o", "kind": "flowchart", "mmd_path": "diagrams/o.mmd"}]}'
    )
    files.files["diagrams/o.mmd"] = b"flowchart\n  x\n"
    session = session_of("a", "b")
    report = save_session(files, session, deleted_diagram_ids=["old", "b"])
    assert "diagrams/o.mmd" in report.removed
    assert "diagrams/b.mmd" in files.files  # "b" is deleted only once it leaves the session
    tricky = MemoryFiles()
    save_session(tricky, session_of("a", "b"))
    tricky.files["nereid-session.meta.json"] = (
        b'{"session_id": "s:t", "walkthrough_ids": ["w"], "diagrams": ['
        b'{"diagram_id": "a", "name": "a", "kind": "flowchart", "mmd_path": "diagrams/a.mmd"},'
        b'{"diagram_id": "gone", "name": "g", "kind": "flowchart", "mmd_path": "diagrams/b.mmd"}]}'
    )
    report = save_session(tricky, session_of("a", "b"), deleted_diagram_ids=["gone"])
    assert "diagrams/b.mmd" in tricky.files and "diagrams/b.meta.json" in tricky.files
    assert load_session(tricky).session.diagrams["b"].rev == 1


def test_a_planted_symlink_never_exposes_an_outside_file(tmp_path: Path) -> None:
    root = tmp_path / "session"
    save_session(FolderFiles(root), session_of("a", "b"))
    secret = tmp_path / "secret.mmd"
    secret.write_text("flowchart\n  secret[TOP SECRET]\n")
    os.replace(root / "diagrams" / "b.mmd", tmp_path / "b.mmd.bak")
    (root / "diagrams" / "b.mmd").symlink_to(secret)
    loaded = load_session(FolderFiles(root))
    assert "b" not in loaded.session.diagrams
    assert [(i.diagram_id, "symlink refused" in i.problem) for i in loaded.issues] == [("b", True)]
    assert "SECRET" not in repr(loaded.session)
