"""A person's edit taken in under `--durable-writes` while the disk refuses the save: the
import is refused and rolled back, the person's file is never overwritten by the
rolled-back state, and the edit is taken in once the disk is writable again."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import trio

from nereid.actors import protocol as p
from nereid.actors.folder_watch import FolderSynced, watch_folder
from nereid.actors.persister import RETRY_MAX
from nereid.actors.tree import open_session
from nereid.commands.session import load_or_seed
from nereid.model import FlowchartAst
from nereid.store.faults import Fault, FaultPlan
from nereid.store.files import FolderFiles
from nereid.store.recording import RecordingFiles

_TEXT = "flowchart TD\n  a[Alpha] --> b[Beta]\n"


def _save_like_vim(path: Path, text: str) -> None:
    temp = path.with_name(f".{path.name}.swp-new")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)


async def test_an_edit_refused_by_a_full_disk_is_kept_and_taken_in_later(tmp_path: Path) -> None:
    folder = tmp_path / "proj"
    plan = FaultPlan()
    files = RecordingFiles(FolderFiles(folder, durable=True, faults=plan))
    result, _ = load_or_seed(folder, files)
    files.adopt_reads()
    async with open_session(result.session, files=files, durable=True, unsaved=True) as handle:
        await handle.flush()
        async with trio.open_nursery() as nursery:
            await nursery.start(watch_folder, handle, folder, files)
            mmd = folder / "diagrams" / "flow.mmd"
            with handle.bus.subscribe(p.DiagramChanged) as events:
                _save_like_vim(mmd, _TEXT)
                with trio.fail_after(20):
                    await events.__anext__()
            await handle.flush()
            actor = handle.registry.lookup("diagram:flow")
            rev = (await actor.call(p.GetDiagram())).rev
            plan.inject(Fault(errno=errno.ENOSPC, points=frozenset({"write", "fsync"})))
            edited = _TEXT.replace("Beta", "Beta by hand")
            with handle.bus.subscribe(FolderSynced) as synced:
                _save_like_vim(mmd, edited)
                with trio.fail_after(20):
                    await synced.__anext__()
            assert (await actor.call(p.GetDiagram())).rev == rev  # refused: not applied
            plan.clear()
            with trio.fail_after(30):
                while True:  # taken in once the disk is writable again, by nobody's write
                    diagram = await actor.call(p.GetDiagram())
                    if diagram.rev > rev:
                        break
                    await trio.sleep(0.1)
            assert isinstance(diagram.ast, FlowchartAst)
            assert [n.label for n in diagram.ast.nodes.values()] == ["Alpha", "Beta by hand"]
            await trio.sleep(RETRY_MAX + 0.5)  # any save the retry timer had in store is done
            await handle.flush()
            assert mmd.read_text(encoding="utf-8") == edited  # the person's text, untouched
            nursery.cancel_scope.cancel()
