"""`attention.human.read` tells what the person sees, whatever moved the view."""

from __future__ import annotations

from collections.abc import Callable

import trio
import urwid

from nereid.actors import protocol as p
from nereid.actors.tree import open_session
from nereid.store import load_demo_session
from nereid.ui.app import TuiApp
from nereid.ui.client import ActorClient
from nereid.ui.viewmodel import ViewModel

from .tui_helpers import ref, spotlights

PSP = ref("d:payment-seq/seq/participant/p:psp")


class _Headless(urwid.display.raw.Screen):
    """The app's screen without a terminal (the test never draws; effects are what count)."""

    def tty_signal_keys(self, *args: object, **kwargs: object) -> None:
        return None


async def _human(handle: object) -> tuple[str | None, str | None]:
    snap = await handle.attention.call(p.GetAttention())  # type: ignore[attr-defined]
    human = snap.ui.human_object_ref
    return snap.ui.human_diagram_id, None if human is None else str(human)


async def _eventually(
    handle: object, wanted: Callable[[tuple[str | None, str | None]], bool]
) -> bool:
    """Whether attention reports what `wanted` accepts within a few seconds."""
    for _ in range(500):
        if wanted(await _human(handle)):
            return True
        await trio.sleep(0.01)
    return False


async def test_follow_ai_moves_and_deleted_diagrams_are_reported() -> None:
    async with open_session(load_demo_session(), files=None, durable=False) as handle:
        client = ActorClient(handle.registry, handle.bus)
        await client.attach()
        vm = ViewModel(await client.snapshot(), mcp_url=None)
        app = TuiApp(client, vm, screen=_Headless())
        async with trio.open_nursery() as nursery:
            nursery.start_soon(app.send_effects)
            app.on_effects([vm.human_report()])
            # follow-AI moves the person's view to an agent's spotlight
            app.on_effects(vm.apply(spotlights(("agent:1", PSP, 1))))
            assert await _eventually(handle, lambda h: h == ("payment-seq", str(PSP)))
            # the viewed diagram goes: the TUI shows another one, and says so
            await handle.session.call(p.DeleteDiagram(diagram_id="payment-seq"))
            app.on_effects(vm.apply(p.DiagramDeleted(diagram_id="payment-seq")))
            shown = vm.active_id
            assert shown is not None and shown != "payment-seq"
            assert await _eventually(handle, lambda h: h[0] == shown)
            nursery.cancel_scope.cancel()
