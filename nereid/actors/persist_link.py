"""How the session actors hand committed state to the persister, with bounded waits.

Every state-owning actor (diagram, walkthrough, session directory, index) follows the same
rule: commit first, then tell the persister, then (durable mode) `Flush` and wait, then
publish and reply. `PersistLink` is that middle step:

- `send(key, message, item=...)` casts the message (a full-state message: the latest one
  for a key supersedes older ones) with a bounded wait; in durable mode it then calls
  `Flush(items=(item,))`, retrying once if the persister restarted meanwhile. It returns
  whether the persister confirmed that item on disk (`durable`) and never waits longer
  than `cast_timeout + 2 * flush_timeout`. With `confirm=True` (the write tools in
  durable mode) anything short of a confirmation raises `PersistFailed` (retryable), and
  the caller rolls its commit back: see `DiagramActor`.
- A message the persister could not take (mailbox full past the deadline, persister
  stopped) is kept as *unsent*, and a retry is armed: the runtime sends
  `ResendToPersister` back to the actor after `retry_delay` (`send_after`, each actor's
  on its own schedule); the actor calls `resend()`. The persister is
  looked up by name each time, so a persister that was restarted or respawned gets it.
- What the persister has taken is safe across its restarts: it commits each change as it
  receives it, its mailbox outlives its instances, and a restarted persister finishes the
  pending batch. So "acknowledged" here means "queued in the persister's mailbox".

Actors whose own restart could lose an unsent message record what the persister has
acknowledged in their committed snapshot (e.g. `persisted_rev`) and re-send in `init`.

`IndexActor` (``index``) merges the two parts of the session meta that different actors
own — xrefs (`xref`) and the active ids plus selection (`session`) — into the one
`PersistIndex` message the persister takes.

In memory-only mode (`PersistConfig(persister=None)`) every send is a no-op.
"""

from __future__ import annotations

import logging
from typing import Any

import msgspec

from nereid.actors.persister import META_KEY, Flush, PersistIndex
from nereid.actors.protocol import HandOverUnsent, ResendToPersister
from nereid.errors import ActorError, ActorRestarted, NereidError, PersistFailed
from nereid.model import ObjectRef, XRef
from nereid.runtime import Actor, ActorStatus, Message, Request, on, on_cast

__all__ = [
    "DEFAULT_CAST_TIMEOUT",
    "DEFAULT_FLUSH_TIMEOUT",
    "DEFAULT_RETRY_DELAY",
    "IndexActor",
    "IndexState",
    "PersistAck",
    "PersistConfig",
    "PersistLink",
    "StoreSessionIndex",
    "StoreXrefs",
    "not_applied",
    "store_timeout",
    "unconfirmed",
]

_log = logging.getLogger(__name__)

DEFAULT_CAST_TIMEOUT = 2.0
"""Seconds an actor waits for room in the persister's mailbox."""
DEFAULT_FLUSH_TIMEOUT = 5.0
"""Seconds an actor waits for one durable `Flush`."""
DEFAULT_RETRY_DELAY = 1.0
"""Seconds before an unsent message is offered to the persister again."""
_NOT_RUNNING = (ActorStatus.STOPPED, ActorStatus.FAILED)


class PersistConfig(msgspec.Struct, frozen=True, kw_only=True):
    """Where the persister is, and how long to wait for it.

    `persister` None: memory-only mode, nothing is written. `durable`: flush and wait for
    the disk before acknowledging (`--durable-writes`).
    """

    persister: str | None = "persister"
    durable: bool = False
    cast_timeout: float = DEFAULT_CAST_TIMEOUT
    flush_timeout: float = DEFAULT_FLUSH_TIMEOUT
    retry_delay: float = DEFAULT_RETRY_DELAY


def store_timeout(config: PersistConfig) -> float:
    """How long a caller of ``index`` may wait for a durable store: the longest
    `PersistLink.send` (one cast, two flushes) and a margin."""
    return config.cast_timeout + 2 * config.flush_timeout + 1.0


def not_applied(err: PersistFailed, current_rev: int | None = None) -> PersistFailed:
    """The error a durable write tool returns after rolling its change back (`current_rev`:
    the rev the target is back at, for the tools of revisioned targets)."""
    data: dict[str, Any] = {**(err.data or {}), "applied": False}
    if current_rev is not None:
        data["current_rev"] = current_rev
    return PersistFailed(
        f"{err.message}; the change was not applied (--durable-writes): send it again "
        "once the session folder is writable",
        data=data,
    )


def unconfirmed(err: NereidError) -> PersistFailed:
    """A confirmed store that failed for another reason (timeout, restart): not known to be
    on disk, so a durable writer treats it as not saved."""
    if isinstance(err, PersistFailed):
        return err
    return PersistFailed(f"not saved: the write was not confirmed on disk ({err})")


class PersistLink:
    """One actor's channel to the persister (lives in the actor instance; see module doc)."""

    def __init__(self, actor: Actor[Any, Any], config: PersistConfig) -> None:
        self._actor = actor
        self._config = config
        self._unsent: dict[str, Message] = {}
        self._retry_armed = False

    @property
    def config(self) -> PersistConfig:
        return self._config

    @property
    def enabled(self) -> bool:
        """False in memory-only mode."""
        return self._config.persister is not None

    @property
    def unsent(self) -> tuple[str, ...]:
        """Keys of messages the persister has not taken yet."""
        return tuple(self._unsent)

    async def send(
        self,
        key: str,
        message: Message,
        *,
        item: str | None = None,
        confirm: bool = False,
        wait: bool = True,
    ) -> bool:
        """Hand `message` to the persister; True if confirmed on disk (durable mode).

        `item`: the save-report key the message writes (``diagram:<id>``...); durable mode
        then waits until that item is on disk. Bounded; for persister trouble it logs,
        keeps the message as unsent and arms a retry. It raises only with `confirm` in
        durable mode: `PersistFailed` (retryable) when the item is not confirmed on disk.
        `wait=False`: hand it over without waiting for the disk, even in durable mode.
        """
        if not self.enabled:
            return False
        self._unsent.pop(key, None)
        durable = self._config.durable
        if not await self._cast(key, message):
            if confirm and durable:
                raise PersistFailed(
                    "not saved: the persister did not take the change (it is restarting)",
                    data={"item": item},
                )
            return False
        if not durable or not wait:
            return False
        return await self.flush(items=() if item is None else (item,), confirm=confirm)

    async def flush(self, *, items: tuple[str, ...] = (), confirm: bool = False) -> bool:
        """Ask the persister to write now and wait (bounded); True once `items` (all if
        empty) are on disk. With `confirm`, anything else raises `PersistFailed`."""
        name = self._config.persister
        if name is None:
            return False
        problem = "the persister is not running"
        for attempt in (1, 2):
            address = self._actor.runtime.registry.get(name)
            if address is None or address.status in _NOT_RUNNING:
                break  # nothing would answer: do not wait out the timeout
            try:
                await address.call(Flush(items=items), timeout=self._config.flush_timeout)
            except ActorRestarted as err:
                problem = str(err)
                if attempt == 2:
                    break
                continue  # it restarts from its commit, the change is still pending there
            except PersistFailed:
                if confirm:
                    raise
                return False
            except NereidError as err:
                _log.warning("%s: flush not confirmed: %s", self._actor.name, err)
                problem = f"the write was not confirmed on disk in time ({err})"
                break
            return True
        if confirm:
            raise PersistFailed(f"not saved: {problem}", data={"items": list(items)})
        return False

    def forget(self, key: str) -> None:
        """Drop the unsent message for `key` (its change was rolled back)."""
        self._unsent.pop(key, None)

    async def resend(self) -> None:
        """Offer every unsent message again (on `ResendToPersister`)."""
        self._retry_armed = False
        await self._send_unsent(wait=False)

    async def hand_over(self) -> bool:
        """Hand every unsent message over now, waiting (bounded) for room in the persister's
        mailbox even in default mode (`HandOverUnsent`, before the session's final save).
        True if nothing is left unsent."""
        await self._send_unsent(wait=True)
        return not self._unsent

    async def _send_unsent(self, *, wait: bool) -> None:
        pending, self._unsent = self._unsent, {}
        for key, message in pending.items():
            if key not in self._unsent:
                await self._cast(key, message, wait=wait)

    async def _cast(self, key: str, message: Message, *, wait: bool = False) -> bool:
        """Hand `message` over. Durable mode (or `wait`) waits (bounded) for room in the
        persister's mailbox; default mode never waits: while the persister is busy (a big
        export) the message is kept as unsent, superseded by later ones for its key, and
        offered again on the retry timer, so a write is never held up by the saves."""
        name = self._config.persister
        assert name is not None
        address = self._actor.runtime.registry.get(name)
        try:
            if address is None:
                raise LookupError(f"no persister named {name!r}")
            if not self._config.durable and not wait:
                if address.offer(message):
                    return True
                self._unsent[key] = message
                self._arm_retry()
                return False
            await address.cast(message, timeout=self._config.cast_timeout)
        except (ActorError, LookupError) as err:
            _log.warning(
                "%s: persister did not take %s (%s); will retry",
                self._actor.name,
                type(message).__name__,
                err,
            )
            self._unsent[key] = message
            self._arm_retry()
            return False
        return True

    def _arm_retry(self) -> None:
        if not self._retry_armed:
            self._actor.send_after(self._config.retry_delay, ResendToPersister())
            self._retry_armed = True


# -- the index: the session meta's parts, merged -------------------------------------------


class PersistAck(msgspec.Struct, frozen=True, kw_only=True):
    """`durable`: the persister confirmed the write on disk before this reply."""

    durable: bool


class StoreXrefs(Request[PersistAck], frozen=True):
    """From `xref`: the complete xref map after a change.

    `confirm` (a write tool's change): in durable mode the reply waits for the meta on
    disk, and if it is not, the index goes back to its previous parts and the call
    fails with `PersistFailed`, so the sender rolls back too.
    """

    xrefs: dict[str, XRef]
    confirm: bool = False


class StoreSessionIndex(Request[PersistAck], frozen=True):
    """From `session`: the active ids and the selection after a change (`confirm` as in
    `StoreXrefs`)."""

    active_diagram_id: str | None
    active_walkthrough_id: str | None
    selected_object_refs: tuple[ObjectRef, ...]
    confirm: bool = False


class IndexState(msgspec.Struct, frozen=True, kw_only=True):
    """The merged meta parts; `acknowledged` False: the persister may not have them yet."""

    xrefs: dict[str, XRef] = msgspec.field(default_factory=dict)
    active_diagram_id: str | None = None
    active_walkthrough_id: str | None = None
    selected_object_refs: tuple[ObjectRef, ...] = ()
    acknowledged: bool = True

    def message(self) -> PersistIndex:
        return PersistIndex(
            xrefs=dict(self.xrefs),
            active_diagram_id=self.active_diagram_id,
            active_walkthrough_id=self.active_walkthrough_id,
            selected_object_refs=self.selected_object_refs,
        )


IndexMessage = StoreXrefs | StoreSessionIndex | ResendToPersister | HandOverUnsent


class IndexActor(Actor[IndexState, IndexMessage]):
    """Owns nothing but the merge: commits each part, then sends the whole index."""

    def __init__(self, config: PersistConfig) -> None:
        self._link = PersistLink(self, config)

    async def init(self, snapshot: IndexState) -> None:
        if not snapshot.acknowledged:
            await self._persist()

    @on(StoreXrefs)
    async def _store_xrefs(self, message: StoreXrefs) -> PersistAck:
        previous = self.state
        changed = msgspec.structs.replace(previous, xrefs=dict(message.xrefs), acknowledged=False)
        return await self._store(previous, changed, confirm=message.confirm)

    @on(StoreSessionIndex)
    async def _store_session_index(self, message: StoreSessionIndex) -> PersistAck:
        previous = self.state
        changed = msgspec.structs.replace(
            previous,
            active_diagram_id=message.active_diagram_id,
            active_walkthrough_id=message.active_walkthrough_id,
            selected_object_refs=message.selected_object_refs,
            acknowledged=False,
        )
        return await self._store(previous, changed, confirm=message.confirm)

    @on_cast(ResendToPersister)
    async def _resend(self, message: ResendToPersister) -> None:
        await self._link.resend()
        if not self._link.unsent and not self.state.acknowledged:
            self._acknowledge()

    @on(HandOverUnsent)
    async def _hand_over(self, message: HandOverUnsent) -> bool:
        done = await self._link.hand_over()
        if done and not self.state.acknowledged:
            self._acknowledge()
        return done

    async def _store(
        self, previous: IndexState, changed: IndexState, *, confirm: bool
    ) -> PersistAck:
        self.commit(changed)
        try:
            return PersistAck(durable=await self._persist(confirm=confirm))
        except PersistFailed:
            # Durable mode, not on disk: back to the parts the meta on disk has, and the
            # persister with them, so memory equals disk; the sender rolls back as well.
            self.commit(msgspec.structs.replace(previous, acknowledged=False))
            await self._persist(wait=False)
            raise

    async def _persist(self, *, confirm: bool = False, wait: bool = True) -> bool:
        durable = await self._link.send(
            "index", self.state.message(), item=META_KEY, confirm=confirm, wait=wait
        )
        if not self._link.unsent:
            self._acknowledge()
        return durable

    def _acknowledge(self) -> None:
        self.commit(msgspec.structs.replace(self.state, acknowledged=True))
