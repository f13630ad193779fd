"""Loading and saving whole session folders (session-folder.md §6, §8, §14; decision 14)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import msgspec
import pytest

from nereid.model import (
    Diagram,
    FlowchartAst,
    FlowNode,
    ObjectRef,
    Session,
    Walkthrough,
    parse_ref,
)
from nereid.store.files import FolderFiles, MemoryFiles
from nereid.store.schema import StoreFileError
from nereid.store.session_io import (
    Kept,
    SessionNotFound,
    load_session,
    save_session,
)

REFERENCE = Path(__file__).parent / "fixtures" / "reference-session"


def test_reference_folder_loads(reference_files: MemoryFiles) -> None:
    result = load_session(reference_files)
    assert result.issues == ()
    session = result.session
    assert session.session_id == "s:library"
    assert (session.active_diagram_id, session.active_walkthrough_id) == ("loan-flow", "wt-tour")
    assert session.selected_object_refs == (
        parse_ref("d:checkout-seq/seq/participant/p:desk"),
        parse_ref("d:loan-flow/flow/node/n:lend"),
    )
    assert sorted(session.diagrams) == ["checkout-seq", "loan-flow", "return:v1"]
    flow = session.diagrams["loan-flow"]
    assert (flow.name, flow.kind, flow.rev) == ("Loan life cycle", "flowchart", 3)
    assert isinstance(flow.ast, FlowchartAst)
    assert list(flow.ast.nodes) == [
        "n:request", "n:available", "n:lend", "n:hold", "n:due", "n:fine", "n:shelved",
    ]  # fmt: skip
    assert flow.ast.nodes["n:fine"].note == "fees are capped at the price of the book"
    edges = {(e.from_node_id, e.to_node_id, e.label): k for k, e in flow.ast.edges.items()}
    assert edges[("n:request", "n:available", None)] == "e:ask"
    assert edges[("n:available", "n:lend", "yes")] == "e:yes"
    assert edges[("n:due", "n:fine", "no")] == "e:late"
    assert edges[("n:fine", "n:shelved", None)] == "e:0009"
    assert flow.ast.edges["e:late"].style == "stroke:#c00"
    seq = session.diagrams["checkout-seq"]
    assert seq.rev == 7
    ids = {m.text: m.message_id for m in seq.ast.messages}  # type: ignore[union-attr]
    assert ids["hand over card and book"] == "m:hand"
    assert ids["issue loan"] == "m:issue"
    assert ids["look up copy"] != "m:0002"  # a side-car id is never recycled
    assert session.diagrams["return:v1"].rev == 0
    walkthrough = session.walkthroughs["wt-tour"]
    assert walkthrough.rev == 1_000_000
    assert walkthrough.nodes[1].body_md is None and walkthrough.nodes[1].tags == ()
    assert set(session.xrefs) == {"x:lend", "x:gone"}


def test_save_then_load_is_identity_and_writes_our_format(reference_files: MemoryFiles) -> None:
    loaded = load_session(reference_files).session
    target = MemoryFiles()
    report = save_session(target, loaded)
    assert report.written[-1] == "nereid-session.meta.json"
    assert sorted(target.files) == [
        "diagrams/checkout-seq.meta.json",
        "diagrams/checkout-seq.mmd",
        "diagrams/loan-flow.meta.json",
        "diagrams/loan-flow.mmd",
        "diagrams/~72657475726e3a7631.meta.json",
        "diagrams/~72657475726e3a7631.mmd",
        "nereid-session.meta.json",
        "walkthroughs/wt-tour.wt.json",
    ]
    again = load_session(target)
    assert again.issues == ()
    assert again.session == loaded
    meta = json.loads(target.files["nereid-session.meta.json"])
    assert meta["walkthrough_ids"] == ["wt-tour"]
    assert [x["status"] for x in meta["xrefs"]] == ["dangling_from", "ok"]  # x:gone, x:lend
    assert meta["diagrams"][2]["mmd_path"] == "diagrams/~72657475726e3a7631.mmd"
    sidecar = json.loads(target.files["diagrams/loan-flow.meta.json"])
    assert sidecar["rev"] == 3 and len(sidecar["mmd_sha256"]) == 64
    assert sidecar["flow_node_notes"] == {"n:fine": "fees are capped at the price of the book"}


def test_unchanged_diagrams_are_not_rewritten(reference_files: MemoryFiles) -> None:
    files = reference_files
    session = load_session(files).session
    save_session(files, session)  # first save rewrites: the legacy layout had no side-cars
    files.log.clear()
    save_session(files, session)
    assert list(files.writes()) == ["nereid-session.meta.json"]
    bumped = msgspec.structs.replace(session.diagrams["loan-flow"], rev=4)
    session = msgspec.structs.replace(session, diagrams={**session.diagrams, "loan-flow": bumped})
    files.log.clear()
    save_session(files, session)
    assert list(files.writes()) == [
        "diagrams/loan-flow.mmd",
        "diagrams/loan-flow.meta.json",
        "nereid-session.meta.json",
    ]


def test_deleting_a_diagram_deletes_its_files(reference_files: MemoryFiles) -> None:
    files = reference_files
    session = load_session(files).session
    save_session(files, session)
    files.files["diagrams/loan-flow.ascii.txt"] = b"rendering"
    diagrams = {k: v for k, v in session.diagrams.items() if k != "loan-flow"}
    report = save_session(
        files,
        msgspec.structs.replace(session, diagrams=diagrams),
        deleted_diagram_ids=["loan-flow"],
    )
    assert sorted(report.removed) == [
        "diagrams/loan-flow.ascii.txt",
        "diagrams/loan-flow.meta.json",
        "diagrams/loan-flow.mmd",
    ]
    assert not any("loan-flow" in path for path in files.files)
    assert "loan-flow" not in load_session(files).session.diagrams


def test_removed_walkthroughs_are_collected(reference_files: MemoryFiles) -> None:
    files = reference_files
    session = load_session(files).session
    files.files["walkthroughs/stray.ascii.txt"] = b"x"
    files.files["walkthroughs/keep-me.txt"] = b"not ours"
    extra = Walkthrough(walkthrough_id="w:2", title="second")
    save_session(files, msgspec.structs.replace(session, walkthroughs={"w:2": extra}))
    assert files.list_files("walkthroughs") == ["keep-me.txt", "~773a32.wt.json"]


def _broken(files: MemoryFiles, path: str, data: bytes | None) -> MemoryFiles:
    if data is None:
        del files.files[path]
    else:
        files.files[path] = data
    return files


@pytest.mark.parametrize(
    ("path", "data", "fragment"),
    [
        ("diagrams/loan-flow.mmd", None, "listed in the session meta but missing"),
        ("diagrams/loan-flow.mmd", b"graph LR\n  a[unclosed\n", "does not parse"),
        ("diagrams/loan-flow.mmd", b"sequenceDiagram\nA->>B: hi\n", "does not parse"),
        ("diagrams/loan-flow.mmd", b"graph LR\n a\xff\n", "not UTF-8"),
        ("diagrams/loan-flow.meta.json", b'{"diagram_id": "loan-flow",', "invalid JSON"),
        ("diagrams/loan-flow.meta.json", b'{"diagram_id": "a/b", "mmd_path": "x"}', "diagram_id"),
    ],
)
def test_a_broken_diagram_is_reported_and_kept(
    reference_files: MemoryFiles, path: str, data: bytes | None, fragment: str
) -> None:
    files = _broken(reference_files, path, data)
    before = dict(files.files)
    result = load_session(files)
    assert [issue.path for issue in result.issues] == [path]
    assert fragment in result.issues[0].problem
    assert result.issues[0].diagram_id == "loan-flow"
    assert "loan-flow" not in result.session.diagrams
    assert sorted(result.session.diagrams) == ["checkout-seq", "return:v1"]
    assert [e.diagram_id for e in result.kept.diagram_entries] == ["loan-flow"]
    save_session(files, result.session, kept=result.kept)
    for name in ("diagrams/loan-flow.mmd", "diagrams/loan-flow.meta.json"):
        assert files.files.get(name) == before.get(name)  # untouched, not overwritten
    meta = json.loads(files.files["nereid-session.meta.json"])
    assert "loan-flow" in [entry["diagram_id"] for entry in meta["diagrams"]]
    assert load_session(files).kept == result.kept


def test_a_broken_walkthrough_is_reported_and_kept(reference_files: MemoryFiles) -> None:
    files = _broken(reference_files, "walkthroughs/wt-tour.wt.json", b'{"walkthrough_id": 1}')
    result = load_session(files)
    assert [(i.path, i.walkthrough_id) for i in result.issues] == [
        ("walkthroughs/wt-tour.wt.json", "wt-tour")
    ]
    assert result.session.walkthroughs == {}
    save_session(files, result.session, kept=result.kept)
    assert files.files["walkthroughs/wt-tour.wt.json"] == b'{"walkthrough_id": 1}'
    assert json.loads(files.files["nereid-session.meta.json"])["walkthrough_ids"] == ["wt-tour"]


def test_broken_meta_fails_load_and_save_writes_nothing(reference_files: MemoryFiles) -> None:
    files = _broken(reference_files, "nereid-session.meta.json", b'{"session_id": ')
    with pytest.raises(StoreFileError, match=r"^nereid-session\.meta\.json: invalid JSON"):
        load_session(files)
    with pytest.raises(StoreFileError):
        save_session(files, Session(session_id="s:new"))
    assert files.log == []


def test_missing_meta_and_legacy_meta(reference_files: MemoryFiles) -> None:
    with pytest.raises(SessionNotFound):
        load_session(MemoryFiles())
    files = reference_files
    files.files["session.meta.json"] = files.files.pop("nereid-session.meta.json")
    session = load_session(files).session
    assert session.session_id == "s:library"
    save_session(files, session)
    assert "session.meta.json" not in files.files and "nereid-session.meta.json" in files.files


def test_scan_mode_and_legacy_walkthrough_names() -> None:
    wt = b'{"walkthrough_id": "w:1", "title": "legacy"}'
    files = MemoryFiles(
        {
            "nereid-session.meta.json": b'{"session_id": "s:old", "walkthrough_ids": null}',
            "walkthroughs/w:1.wt.json": wt,
            "walkthroughs/broken.wt.json": b"[",
            "walkthroughs/notes.txt": b"ignored",
        }
    )
    result = load_session(files)
    assert list(result.session.walkthroughs) == ["w:1"]
    assert [i.walkthrough_id for i in result.issues] == ["broken"]
    save_session(files, result.session, kept=result.kept)
    assert files.list_files("walkthroughs") == [
        "broken.wt.json",
        "notes.txt",
        "w:1.wt.json",  # the raw name is kept by the collector (§8.6)
        "~773a31.wt.json",
    ]
    listed = MemoryFiles(
        {
            "nereid-session.meta.json": b'{"session_id": "s", "walkthrough_ids": ["w:1"]}',
            "walkthroughs/w:1.wt.json": wt,
        }
    )
    assert load_session(listed).session.walkthroughs["w:1"].title == "legacy"


def test_listed_walkthrough_takes_the_listed_id() -> None:
    files = MemoryFiles(
        {
            "nereid-session.meta.json": b'{"session_id": "s", "walkthrough_ids": ["wt-a"]}',
            "walkthroughs/wt-a.wt.json": b'{"walkthrough_id": "other", "title": "t"}',
        }
    )
    assert load_session(files).session.walkthroughs["wt-a"].walkthrough_id == "wt-a"


def _flow(diagram_id: str, rev: int = 1) -> Diagram:
    ast = FlowchartAst(nodes={"n:a": FlowNode(label="A")})
    return Diagram(diagram_id=diagram_id, name=diagram_id, kind="flowchart", ast=ast, rev=rev)


@pytest.mark.parametrize(
    "diagram_id", ["..", ".. ", "a\\b", "..\\..\\x", "x\x00y", "CON", "com1.txt", "日本", "~tilde"]
)
def test_hostile_ids_stay_inside_the_folder(tmp_path: Path, diagram_id: str) -> None:
    root = tmp_path / "session"
    save_session(
        FolderFiles(root), Session(session_id="s", diagrams={diagram_id: _flow(diagram_id)})
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["session"]
    names = [p.name for p in (root / "diagrams").iterdir()]
    assert len(names) == 2 and all(name.count(".") >= 1 for name in names)
    assert (
        load_session(FolderFiles(root)).session.diagrams[diagram_id].ast.nodes["n:a"].label == "A"
    )


def test_an_unstorable_item_is_reported_and_the_others_saved() -> None:
    files = MemoryFiles()
    long_id = "b" * 300
    session = Session(
        session_id="s",
        diagrams={"a": _flow("a"), long_id: _flow(long_id), "../x": _flow("../x")},
        walkthroughs={"w/1": Walkthrough(walkthrough_id="w/1", title="T")},
    )
    report = save_session(files, session)
    assert sorted(report.failed) == sorted(
        [f"diagram:{long_id}", "diagram:../x", "walkthrough:w/1"]
    )
    assert "too long" in report.failed[f"diagram:{long_id}"]
    assert "must not contain '/'" in report.failed["diagram:../x"]
    assert report.on_disk == {"diagram:a", "meta"}
    loaded = load_session(files)
    assert loaded.issues == () and sorted(loaded.session.diagrams) == ["a"]


def test_interrupted_save_never_pairs_new_content_with_an_old_rev() -> None:
    files = MemoryFiles()
    save_session(files, Session(session_id="s", diagrams={"d": _flow("d", rev=5)}))
    # The .mmd of rev 6 reached the disk, its side-car and the meta did not.
    newer = msgspec.structs.replace(
        _flow("d", rev=6), ast=FlowchartAst(nodes={"n:b": FlowNode(label="B")})
    )
    from nereid.store.diagram_files import encode_diagram

    files.files["diagrams/d.mmd"] = encode_diagram(newer)[0].encode()
    loaded = load_session(files).session.diagrams["d"]
    assert "n:b" in loaded.ast.nodes
    assert loaded.rev == 6  # not 5: rev 5 named other content
    # The side-car of rev 6 also arrived: its rev is taken over the meta's.
    files.files["diagrams/d.meta.json"] = encode_diagram(newer)[1].encode()
    assert load_session(files).session.diagrams["d"].rev == 6


def test_real_folder_round_trip(tmp_path: Path) -> None:
    root = tmp_path / "copy"
    shutil.copytree(REFERENCE, root)
    files = FolderFiles(root, durable=True)
    session = load_session(files).session
    save_session(files, session)
    assert load_session(files).session == session
    leftovers = [p.name for p in root.rglob(".nereid.tmp.*")]
    assert leftovers == []


def test_kept_without() -> None:
    kept = Kept(walkthrough_ids=("a", "b"))
    assert kept.without([], ["a"]).walkthrough_ids == ("b",)


def test_selection_is_written_sorted_and_unique() -> None:
    refs = (
        parse_ref("d:b/flow/node/n:x"),
        parse_ref("d:a/flow/node/n:y"),
        parse_ref("d:b/flow/node/n:x"),
    )
    files = MemoryFiles()
    save_session(files, Session(session_id="s", selected_object_refs=refs))
    meta = json.loads(files.files["nereid-session.meta.json"])
    assert meta["selected_object_refs"] == ["d:a/flow/node/n:y", "d:b/flow/node/n:x"]
    assert isinstance(refs[0], ObjectRef)


def test_the_spec_examples_load_and_save_back_unchanged() -> None:
    """The examples of session-folder.md §3.2, §4.2, §5.1, §7, assembled into one folder."""
    examples = Path(__file__).parent / "fixtures" / "spec-examples"
    texts = {p.name: p.read_bytes() for p in examples.iterdir()}
    files = MemoryFiles(
        {
            "nereid-session.meta.json": texts["meta.json"],
            "diagrams/order-flow.mmd": texts["order-flow.mmd"],
            "diagrams/order-flow.meta.json": texts["order-flow.meta.json"],
            "diagrams/checkout-seq.mmd": texts["checkout-seq.mmd"],
            "diagrams/checkout-seq.meta.json": texts["checkout-seq.meta.json"],
            "walkthroughs/wt-onboarding.wt.json": texts["wt-onboarding.wt.json"],
        }
    )
    result = load_session(files)
    assert result.issues == ()
    flow = result.session.diagrams["order-flow"].ast
    assert isinstance(flow, FlowchartAst)
    assert list(flow.nodes) == ["n:cart", "n:fail", "n:pay", "n:ship"]
    assert flow.nodes["n:pay"].note == "calls the payment provider"
    assert sorted(flow.edges) == ["e:0001", "e:0003", "e:ok"]
    seq = result.session.diagrams["checkout-seq"].ast
    assert [m.message_id for m in seq.messages] == ["m:submit", "m:charge", "m:0003", "m:notify"]  # type: ignore[union-attr]
    assert seq.participants["p:psp"].note == "external provider"  # type: ignore[union-attr]
    target = MemoryFiles()
    save_session(target, result.session)
    assert target.files["nereid-session.meta.json"] == texts["meta.json"]
    assert target.files["walkthroughs/wt-onboarding.wt.json"] == texts["wt-onboarding.wt.json"]
    for name in ("order-flow.meta.json", "checkout-seq.meta.json"):
        ours = json.loads(target.files[f"diagrams/{name}"])
        assert set(ours) - set(json.loads(texts[name])) == {"rev", "mmd_sha256"}
        for extra in ("rev", "mmd_sha256"):
            del ours[extra]
        assert ours == json.loads(texts[name])
