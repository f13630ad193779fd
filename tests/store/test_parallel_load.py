"""A folder parsed in worker processes loads exactly as one parsed here (issue 18).

`decode_in_workers` with no size threshold, so the small reference folder goes to real
worker processes: every diagram comes back equal, every broken file is the same issue,
and one broken file does not stop the others.
"""

from __future__ import annotations

from functools import partial

from nereid.offload.folder_load import decode_in_workers
from nereid.store.files import MemoryFiles
from nereid.store.session_io import load_listed, read_meta


def test_workers_load_what_this_process_loads(reference_files: MemoryFiles) -> None:
    meta = read_meta(reference_files)
    listed = {entry.diagram_id: entry.mmd_path for entry in meta.diagrams}
    # One diagram that does not parse, one whose side-car is not JSON.
    reference_files.write(listed["loan-flow"], b"flowchart TD\n  a[[[\n")
    reference_files.write(listed["return:v1"].replace(".mmd", ".meta.json"), b"{broken")
    here = load_listed(reference_files, meta)
    there = load_listed(reference_files, meta, partial(decode_in_workers, threshold=0))
    assert there == here
    assert sorted(issue.diagram_id or "" for issue in here.issues) == ["loan-flow", "return:v1"]
    assert here.issues[0].file_problem is not None  # where the parse failed
    assert sorted(here.session.diagrams) == ["checkout-seq"]
