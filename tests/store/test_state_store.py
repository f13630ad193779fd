"""State diagrams in the session folder: `diagrams/<id>.mmd` plus the side-car, loaded back
equal; a person's edit of the `.mmd` keeps the transition ids it still holds."""

from __future__ import annotations

from pathlib import Path

from nereid.mermaid import parse_state
from nereid.model import Diagram, Session, StateAst
from nereid.store import FolderFiles, load_session, save_session

TEXT = "stateDiagram-v2\n[*] --> A\nA --> B : go\nB --> A : back\nB --> [*]\n"


def _session(ast: StateAst) -> Session:
    diagram = Diagram(diagram_id="m", name="Machine", kind="state", ast=ast, rev=3)
    return Session(session_id="s:t", diagrams={"m": diagram}, active_diagram_id="m")


def test_saved_and_loaded_equal(tmp_path: Path) -> None:
    session = _session(parse_state(TEXT))
    save_session(FolderFiles(tmp_path), session)
    assert (
        (tmp_path / "diagrams" / "m.mmd")
        .read_text(encoding="utf-8")
        .startswith("stateDiagram-v2\n")
    )
    assert '"kind": "state"' in (tmp_path / "nereid-session.meta.json").read_text()
    loaded = load_session(FolderFiles(tmp_path))
    assert not loaded.issues
    assert loaded.session.diagrams["m"] == session.diagrams["m"]


def test_an_edit_of_the_text_keeps_transition_ids(tmp_path: Path) -> None:
    ast = parse_state(TEXT)
    renamed = {
        {"go": "t:go", "back": "t:back"}.get(t.label or "", tid): t
        for tid, t in ast.transitions.items()
    }
    session = _session(StateAst(**{**_fields(ast), "transitions": renamed}))
    save_session(FolderFiles(tmp_path), session)
    mmd = tmp_path / "diagrams" / "m.mmd"
    lines = mmd.read_text(encoding="utf-8").split("\n")
    lines.insert(1, "Z --> A")  # a new transition first: the others keep their ids
    mmd.write_text("\n".join(lines), encoding="utf-8")
    loaded = load_session(FolderFiles(tmp_path)).session.diagrams["m"].ast
    assert isinstance(loaded, StateAst)
    by_label = {t.label: tid for tid, t in loaded.transitions.items()}
    assert by_label["go"] == "t:go" and by_label["back"] == "t:back"
    assert "s:Z" in loaded.states


def _fields(ast: StateAst) -> dict[str, object]:
    return {name: getattr(ast, name) for name in ast.__struct_fields__}
