"""Fault injection: kill random actors at random moments, within the restart intensity.

`FaultInjector.run` kills (``Registry.crash``, exactly as an unexpected exception would)
a random actor of the chosen kinds every random interval (exponential, mean 1/rate). Each
supervisor allows `max_restarts` restarts within `within_s` seconds before it escalates;
the injector keeps its own sliding window per supervisor group and never spends more than
`max_restarts - 1` of it, so a chaos run checks the restart path, not the give-up path
(that one has its own test). Nor does it kill an actor again within `min_gap` seconds (it
may still be restarting, and a kill then does nothing, so counts would not match). A kill
the budget does not allow is skipped and counted.

`SaveFaultInjector.run` breaks the disk instead: at random moments it injects a full disk
(ENOSPC), a read-only folder (EROFS), an I/O error (EIO) or a slow fsync into the
session's `FaultPlan` for a short random spell, then clears it.

`RestartCounter` is a `TraceSink` that counts ``crash``, ``restart`` and ``escalate``
records and drops the rest (cheap enough to leave on under load).
"""

from __future__ import annotations

import errno
import random
from collections import Counter, deque
from dataclasses import dataclass, field

import trio

from nereid.errors import ActorNotFound
from nereid.runtime import Registry, RestartIntensity
from nereid.store.faults import Fault, FaultPlan

__all__ = [
    "FAULT_KINDS",
    "SAVE_FAULTS",
    "FaultInjector",
    "RestartCounter",
    "SaveFaultInjector",
    "supervisor_group",
]

SAVE_FAULTS: dict[str, Fault] = {
    "ENOSPC": Fault(errno=errno.ENOSPC, points=frozenset({"write"})),
    "EROFS": Fault(errno=errno.EROFS, points=frozenset({"write", "remove"})),
    "EIO": Fault(errno=errno.EIO, points=frozenset({"write", "fsync", "rename"})),
    "slow-fsync": Fault(errno=None, points=frozenset({"fsync"}), delay=0.05),
}
"""The disk faults a chaos run injects (slow fsync only bites with durable writes)."""

FAULT_KINDS: tuple[str, ...] = ("diagram", "walkthrough", "attention", "xref", "persister")
"""The kinds of actor a chaos run kills (``diagram:<id>``, ``walkthrough:<id>``, singletons)."""


def supervisor_group(name: str) -> str:
    """Which supervisor restarts actor `name` in the session tree (`nereid.actors.tree`)."""
    if name.startswith("diagram:"):
        return "diagrams"
    if name.startswith("walkthrough:"):
        return "walkthroughs"
    return "root"


def _kind(name: str) -> str:
    return name.split(":", 1)[0]


class RestartCounter:
    """A trace sink counting crash / restart / escalate events (by actor for crashes)."""

    def __init__(self) -> None:
        self.crashes: Counter[str] = Counter()
        self.restarts = 0
        self.escalations: list[bytes] = []

    def write(self, line: bytes) -> None:
        if b'"event":"restart"' in line:
            self.restarts += 1
        elif b'"event":"crash"' in line:
            start = line.find(b'"actor":"') + 9
            self.crashes[line[start : line.find(b'"', start)].decode()] += 1
        elif b'"event":"escalate"' in line:
            self.escalations.append(line)

    def close(self) -> None:
        """Nothing to release."""


@dataclass
class FaultInjector:
    """Kills random actors of `kinds` at rate `rate` per second (seeded by `rng`)."""

    registry: Registry
    rng: random.Random
    rate: float
    intensity: RestartIntensity = field(default_factory=RestartIntensity)
    kinds: tuple[str, ...] = FAULT_KINDS
    min_gap: float = 0.05
    killed: Counter[str] = field(default_factory=Counter)
    skipped: int = 0
    _windows: dict[str, deque[float]] = field(default_factory=dict)
    _last_kill: dict[str, float] = field(default_factory=dict)

    @property
    def injected(self) -> int:
        return sum(self.killed.values())

    def _allowed(self, group: str, now: float) -> bool:
        window = self._windows.setdefault(group, deque())
        while window and window[0] <= now - self.intensity.within_s:
            window.popleft()
        return len(window) < self.intensity.max_restarts - 1

    def kill_one(self) -> str | None:
        """Kill one random eligible actor now; returns its name (None if none allowed)."""
        names = [n for n in self.registry.names() if _kind(n) in self.kinds]
        if not names:
            return None
        name = self.rng.choice(names)
        now = trio.current_time()
        group = supervisor_group(name)
        last = self._last_kill.get(name)
        recently = last is not None and now - last < self.min_gap
        if recently or not self._allowed(group, now):
            self.skipped += 1
            return None
        try:
            self.registry.crash(name)
        except ActorNotFound:  # retired between the listing and the kill
            return None
        self._windows[group].append(now)
        self._last_kill[name] = now
        self.killed[_kind(name)] += 1
        return name

    async def run(self) -> None:
        """Kill actors until cancelled. Never returns on its own."""
        if self.rate <= 0:
            await trio.sleep_forever()
        while True:
            await trio.sleep(self.rng.expovariate(self.rate))
            self.kill_one()


@dataclass
class SaveFaultInjector:
    """Breaks the disk (`SAVE_FAULTS`) at `rate` spells per second, each up to `max_s` s."""

    plan: FaultPlan
    rng: random.Random
    rate: float
    max_s: float = 0.5
    injected: Counter[str] = field(default_factory=Counter)

    async def run(self) -> None:
        """Inject spells until cancelled; the plan is clear whenever this returns."""
        if self.rate <= 0:
            await trio.sleep_forever()
        try:
            while True:
                await trio.sleep(self.rng.expovariate(self.rate))
                kind = self.rng.choice(sorted(SAVE_FAULTS))
                self.plan.inject(SAVE_FAULTS[kind])
                self.injected[kind] += 1
                try:
                    await trio.sleep(self.rng.uniform(0.05, self.max_s))
                finally:
                    self.plan.clear()
        finally:
            self.plan.clear()
