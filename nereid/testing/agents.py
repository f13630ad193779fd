"""The chaos agent: a seeded loop of reads and writes, each under a deadline.

An agent owns no ids but its own (`n:a<k>x<m>`, `wn:a<k>x<m>`, `x:a<k>x<m>`), so every
acknowledged write has a content nobody else could have made, and a write whose outcome
is unknown (retryable error) is never resent with the same id. Writes use the rev the agent
last saw as `base_rev`: a stale one is refused with the current rev (counted, then
rebased), which is the contract's optimistic concurrency at work.

Every call runs under `deadline` seconds; one that passes it is counted as hung (and is a
violation: the runtime promises that calls to a crashed actor fail fast).
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import trio

from nereid.testing.ledger import Ledger
from nereid.testing.workspace import Broken, Refused, Retryable, Stale, Workspace

__all__ = ["AgentPlan", "run_agent"]

T = TypeVar("T")


@dataclass(frozen=True)
class AgentPlan:
    """What an agent works on and how: targets, pacing and the per-call deadline."""

    diagrams: Sequence[str]
    walkthroughs: Sequence[str]
    deadline: float = 30.0
    think: float = 0.005
    max_ops: int | None = None


class _Agent:
    def __init__(
        self, name: str, workspace: Workspace, plan: AgentPlan, ledger: Ledger, seed: int
    ) -> None:
        self.name = name
        self.workspace = workspace
        self.plan = plan
        self.ledger = ledger
        self.rng = random.Random(seed)
        self.known_rev: dict[str, int] = {}
        self.counter = 0
        self.mine: list[str] = []  # refs of own acknowledged diagram nodes

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}:{self.name}x{self.counter}"

    async def guarded(self, what: str, work: Callable[[], Awaitable[T]]) -> T | None:
        """Run one call; count and swallow expected failures, note bugs. None if it failed."""
        tally = self.ledger.tally
        with trio.move_on_after(self.plan.deadline) as scope:
            try:
                return await work()
            except Stale:
                tally.stale += 1
            except Retryable as failure:
                tally.retryable += 1
                tally.retryable_by_message[failure.message.split(":")[0][:60]] += 1
            except Refused as failure:
                tally.refused += 1
                self.ledger.violations.append(
                    f"{self.name}: {what} refused a valid request: {failure.code} {failure.message}"
                )
            except Broken as failure:
                tally.broken += 1
                self.ledger.violations.append(
                    f"{self.name}: {what} failed: {failure.code} {failure.message}"
                )
            return None
        if scope.cancelled_caught:
            tally.hung += 1
            self.ledger.violations.append(
                f"{self.name}: {what} hung past its {self.plan.deadline} s deadline"
            )
        return None

    async def read(self, target: str) -> None:
        kind, ident = target.split(":", 1)
        started = self.ledger.now()
        reader = self.workspace.read_diagram if kind == "d" else self.workspace.read_walkthrough
        snapshot = await self.guarded(f"read {target}", lambda: reader(ident))
        if snapshot is None:
            return
        self.ledger.note_read(target, started, snapshot.rev, snapshot.node_ids, self.name)
        self.known_rev[target] = snapshot.rev

    async def write(self, target: str) -> None:
        if target not in self.known_rev:
            await self.read(target)
            if target not in self.known_rev:
                return
        kind, ident = target.split(":", 1)
        base = self.known_rev[target]
        if kind == "d":
            node_id = self.fresh("n")
            new_rev = await self.guarded(
                f"add {node_id} to {target}",
                lambda: self.workspace.add_diagram_node(ident, base, node_id),
            )
        else:
            node_id = self.fresh("wn")
            new_rev = await self.guarded(
                f"add {node_id} to {target}",
                lambda: self.workspace.add_walkthrough_node(ident, base, node_id),
            )
        if new_rev is None:
            self.known_rev.pop(target, None)  # stale or unknown outcome: re-read first
            return
        self.ledger.note_ack(target, base, new_rev, node_id, self.name)
        self.known_rev[target] = new_rev
        if kind == "d":
            self.mine.append(f"d:{ident}/flow/node/{node_id}")

    async def spotlight(self) -> None:
        if self.mine:
            ref = self.rng.choice(self.mine)
            await self.guarded(f"spotlight {ref}", lambda: self.workspace.set_spotlight(ref))

    async def xref(self) -> None:
        if len(self.mine) >= 2:
            from_ref, to_ref = self.rng.sample(self.mine, 2)
            xref_id = self.fresh("x")
            await self.guarded(
                f"xref {xref_id}", lambda: self.workspace.add_xref(xref_id, from_ref, to_ref)
            )

    async def step(self) -> None:
        diagrams = [f"d:{d}" for d in self.plan.diagrams]
        walkthroughs = [f"w:{w}" for w in self.plan.walkthroughs]
        roll = self.rng.random()
        if roll < 0.45 or not walkthroughs:
            await self.write(self.rng.choice(diagrams))
        elif roll < 0.60:
            await self.write(self.rng.choice(walkthroughs))
        elif roll < 0.85:
            await self.read(self.rng.choice(diagrams + walkthroughs))
        elif roll < 0.93:
            await self.spotlight()
        else:
            await self.xref()


async def run_agent(
    name: str,
    workspace: Workspace,
    plan: AgentPlan,
    ledger: Ledger,
    seed: int,
    stop: trio.Event | None = None,
) -> None:
    """Run agent `name` until `stop` is set (or `plan.max_ops` steps); records into `ledger`.

    The step in progress when `stop` is set is finished first (so no call is abandoned
    half-way, which a server would see as a client vanishing).
    """
    agent = _Agent(name, workspace, plan, ledger, seed)
    steps = 0
    while (plan.max_ops is None or steps < plan.max_ops) and not (
        stop is not None and stop.is_set()
    ):
        await agent.step()
        steps += 1
        await trio.sleep(agent.rng.uniform(0, plan.think))
