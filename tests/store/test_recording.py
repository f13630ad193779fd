"""A file a person changed is never overwritten by a save until it was taken in; a person's
`.mmd` that was taken in is kept as written while it still reads back as the revision."""

from __future__ import annotations

from pathlib import Path

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.mermaid import parse_flowchart
from nereid.model import Session
from nereid.store.contents import seed_session
from nereid.store.files import FolderFiles
from nereid.store.recording import RecordingFiles
from nereid.store.session_io import diagram_key, load_session, save_session


def _loaded(folder: Path) -> tuple[RecordingFiles, Session]:
    files = RecordingFiles(FolderFiles(folder))
    result = load_session(files)
    files.adopt_reads()
    return files, result.session


def _new_folder(folder: Path) -> None:
    save_session(FolderFiles(folder), seed_session("p"))


def _bumped(session: Session, mermaid: str, rev: int) -> Session:
    diagram = session.diagrams["flow"]
    changed = msgspec.structs.replace(diagram, ast=parse_flowchart(mermaid), rev=rev)
    return msgspec.structs.replace(session, diagrams={"flow": changed})


def test_a_foreign_edit_is_never_overwritten_and_the_other_items_still_save(
    tmp_path: Path,
) -> None:
    _new_folder(tmp_path)
    files, session = _loaded(tmp_path)
    mmd = tmp_path / "diagrams" / "flow.mmd"
    mmd.write_text("flowchart TD\n  a[broken -->\n", encoding="utf-8")  # the person's edit
    report = save_session(files, _bumped(session, "flowchart TD\n  x --> y\n", 1))
    assert diagram_key("flow") in report.failed
    assert "changed outside nereid" in report.failed[diagram_key("flow")]
    assert mmd.read_text(encoding="utf-8") == "flowchart TD\n  a[broken -->\n"
    assert "meta" not in report.failed
    # Taken in (the watcher imported it): now a save may replace it.
    files.remember("diagrams/flow.mmd", mmd.read_bytes(), imported=True)
    report = save_session(files, _bumped(session, "flowchart TD\n  x --> y\n", 1))
    assert not report.failed
    assert "x --> y" in mmd.read_text(encoding="utf-8")


_LABELS = st.text(alphabet="abcXYZ 019_", min_size=1, max_size=8).map(str.strip).filter(bool)


@settings(max_examples=25, deadline=None)
@given(
    labels=st.lists(_LABELS, min_size=1, max_size=4),
    indent=st.sampled_from(["", "  ", "\t", "      "]),
    blank=st.booleans(),
)
def test_a_taken_in_text_is_kept_as_written_and_reads_back_equal(
    tmp_path_factory: object, labels: list[str], indent: str, blank: bool
) -> None:
    folder = tmp_path_factory.mktemp("kept")  # type: ignore[attr-defined]
    _new_folder(folder)
    files, session = _loaded(folder)
    lines = ["graph TD"] + [f"{indent}n{i}[{label}]" for i, label in enumerate(labels)]
    if blank:
        lines.insert(1, "")
    lines += [f"{indent}n{i} --> n{i + 1}" for i in range(len(labels) - 1)]
    text = "\n".join(lines) + "\n"
    mmd = folder / "diagrams" / "flow.mmd"
    mmd.write_text(text, encoding="utf-8")
    files.remember("diagrams/flow.mmd", text.encode(), imported=True)
    edited = _bumped(session, text, 1)
    report = save_session(files, edited)
    assert not report.failed
    assert mmd.read_text(encoding="utf-8") == text  # not reformatted
    assert "diagrams/flow.mmd" not in report.written
    assert load_session(FolderFiles(folder)).session.diagrams["flow"] == edited.diagrams["flow"]
    # Someone else changes it next: the text no longer is the revision, so it is rewritten.
    again = _bumped(edited, text + f"{indent}extra[Extra]\n", 2)
    report = save_session(files, again)
    assert not report.failed and "diagrams/flow.mmd" in report.written
    assert load_session(FolderFiles(folder)).session.diagrams["flow"] == again.diagrams["flow"]


def test_own_texts_are_the_recent_mmd_contents_nereid_wrote_or_took_in(tmp_path: Path) -> None:
    """The watcher's merge bases: loaded and written `.mmd` texts, newest last, bounded;
    what the watcher reads afterwards (a person's edit) is not one until imported."""
    _new_folder(tmp_path)
    files, session = _loaded(tmp_path)
    path = "diagrams/flow.mmd"
    loaded = (tmp_path / path).read_bytes()
    assert files.own_texts(path) == (loaded,)
    save_session(files, _bumped(session, "flowchart TD\n  a --> b\n", 1))
    written = (tmp_path / path).read_bytes()
    assert files.own_texts(path) == (loaded, written)
    (tmp_path / path).write_bytes(b"flowchart TD\n  x --> y\n")
    assert files.read(path) == b"flowchart TD\n  x --> y\n"
    assert files.own_texts(path) == (loaded, written)  # a read is not taken in
    files.remember(path, loaded, imported=True)  # taken in again: the newest now
    assert files.own_texts(path) == (written, loaded)
    for k in range(20):
        files.remember(path, f"flowchart TD\n  n{k}\n".encode())
    assert len(files.own_texts(path)) == 8 and files.own_texts(path)[-1].endswith(b"n19\n")
    files.remove(path)
    assert files.own_texts(path) == ()
