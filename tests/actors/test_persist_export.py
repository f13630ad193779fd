"""Big diagrams are exported for saving in a worker process: same texts as in-process,
export errors come back as that item's problem, small diagrams stay here."""

from __future__ import annotations

import msgspec

from nereid.actors.persist_export import BIG_PAYLOAD, export_big_in_worker
from nereid.mermaid import parse_flowchart
from nereid.model import Diagram, FlowNode
from nereid.store.diagram_files import encode_diagram


def _flowchart(diagram_id: str, nodes: int) -> Diagram:
    text = "flowchart TD\n" + "".join(f"  n{i}[Node {i}] --> n{i + 1}\n" for i in range(nodes))
    return Diagram(
        diagram_id=diagram_id, name=diagram_id, kind="flowchart", ast=parse_flowchart(text), rev=3
    )


async def test_big_diagrams_are_exported_in_a_worker_and_small_ones_left_here() -> None:
    big, small = _flowchart("big", 1500), _flowchart("small", 5)
    assert len(msgspec.msgpack.encode(big.ast)) >= BIG_PAYLOAD
    bad_ast = msgspec.structs.replace(
        big.ast, nodes={**big.ast.nodes, "n:x": FlowNode(label="x", shape="no-such-shape")}
    )
    bad = msgspec.structs.replace(big, diagram_id="bad", ast=bad_ast)
    done = await export_big_in_worker([big, small, bad])
    assert set(done) == {"big", "bad"}
    assert done["big"] == encode_diagram(big)
    problem = done["bad"]
    assert isinstance(problem, Exception) and "no-such-shape" in str(problem)


async def test_workers_run_at_a_lower_priority_than_the_event_loop() -> None:
    """A worker takes its CPU from other background work, not from the loop's process."""
    import os

    import trio_parallel

    from nereid.offload.jobs import WORKER_NICENESS, call_encoded

    mine = os.getpriority(os.PRIO_PROCESS, 0)
    payload = msgspec.msgpack.encode(os.PRIO_PROCESS)
    theirs = await trio_parallel.run_sync(call_encoded, os.getpriority, int, payload, 0)
    assert theirs == min(19, mine + WORKER_NICENESS)
