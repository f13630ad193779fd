"""Model values ⇄ file records: walkthroughs round-trip, seed session (§7, §12)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.model import ObjectRef, Walkthrough, WalkthroughEdge, WalkthroughNode
from nereid.store.contents import seed_session, walkthrough_file, walkthrough_from_file
from nereid.store.files import MemoryFiles
from nereid.store.schema import decode_walkthrough, encode_walkthrough
from nereid.store.session_io import load_session, save_session

ids = st.text(min_size=1, max_size=12).filter(lambda s: "/" not in s)
texts = st.text(max_size=30)
refs = st.builds(
    ObjectRef,
    diagram_id=ids,
    category=st.sampled_from([("flow", "node"), ("seq", "message"), ("flow", "edge")]),
    object_id=ids,
)
nodes = st.builds(
    WalkthroughNode,
    node_id=ids,
    title=texts,
    body_md=st.none() | texts,
    refs=st.lists(refs, max_size=3).map(tuple),
    tags=st.lists(texts, max_size=3).map(tuple),
    status=st.none() | texts,
)
edges = st.builds(
    WalkthroughEdge, from_node_id=ids, to_node_id=ids, kind=texts, label=st.none() | texts
)
walkthroughs = st.builds(
    Walkthrough,
    walkthrough_id=ids,
    title=texts,
    rev=st.integers(0, 1_000_000),
    nodes=st.lists(nodes, max_size=4).map(tuple),
    edges=st.lists(edges, max_size=4).map(tuple),
    source=st.none() | texts,
)


@settings(max_examples=100, deadline=None)
@given(walkthroughs)
def test_walkthrough_round_trip(walkthrough: Walkthrough) -> None:
    text = encode_walkthrough(walkthrough_file(walkthrough))
    assert walkthrough_from_file(decode_walkthrough(text.encode(), "w")) == walkthrough


def test_seed_session() -> None:
    seed = seed_session("my-project")
    assert seed.session_id == "s:my-project" and seed.active_diagram_id == "flow"
    assert seed_session("..").session_id == "s:session"
    files = MemoryFiles()
    save_session(files, seed)
    assert files.files["diagrams/flow.mmd"].startswith(b"flowchart")
    loaded = load_session(files).session.diagrams["flow"]
    assert loaded.ast.nodes["n:hello"].label == "Hello"  # type: ignore[union-attr]
