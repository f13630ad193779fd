"""The ledger of a chaos run: every acknowledged rev, what it added, and the invariants.

Agents only ever add objects (a node per write, with an id nobody else uses), so the
content of an acknowledged rev is known exactly: the node it added. That makes the
promises checkable while faults fly:

- revs strictly increase per target: no two acknowledgements name the same rev of the
  same diagram or walkthrough, and each is its `base_rev` + 1 (no lost update);
- every read sees every write acknowledged before the read started: its rev is at least
  that high and the node is there (an acknowledged rev survives any actor restart);
- at the end, every acknowledged node is in the final state, and the session folder
  loaded after a flush equals the in-memory state (checked by `chaos`).

Violations are collected as text (what, where), never raised, so a run reports all of
them. Targets are named ``d:<id>`` (diagrams) and ``w:<id>`` (walkthroughs).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import msgspec
import trio

__all__ = ["Ack", "Ledger", "Tally"]


class Ack(msgspec.Struct, frozen=True, kw_only=True):
    """One acknowledged write: `target` went from `base_rev` to `rev` by adding `node_id`.

    `seq` orders acknowledgements in time (a global counter at the moment of the reply).
    """

    target: str
    base_rev: int
    rev: int
    node_id: str
    agent: str
    seq: int


@dataclass
class Tally:
    """Counters of a run (what the summary prints)."""

    ops_acknowledged: int = 0
    reads: int = 0
    stale: int = 0
    retryable: int = 0
    refused: int = 0
    broken: int = 0
    hung: int = 0
    faults_injected: int = 0
    restarts: int = 0
    escalations: int = 0
    by_fault_target: Counter[str] = field(default_factory=Counter)
    retryable_by_message: Counter[str] = field(default_factory=Counter)


class Ledger:
    """Acknowledgements and observations of all agents; checks invariants as they arrive.

    Not thread-safe; meant for one trio run (no awaits inside, so no interleaving).
    """

    def __init__(self, *, ack_goal: int = 0) -> None:
        self.acks: dict[str, list[Ack]] = {}
        self.tally = Tally()
        #: Set once `ack_goal` writes are acknowledged (a run waits on it, not on a clock).
        self.ack_goal = ack_goal
        self.ack_goal_reached = trio.Event()
        if ack_goal <= 0:
            self.ack_goal_reached.set()
        self.violations: list[str] = []
        self._seq = 0
        self._revs_taken: dict[str, dict[int, Ack]] = {}

    def now(self) -> int:
        """A point in the ledger's time: acks with `seq` below it happened before."""
        return self._seq

    def note_ack(self, target: str, base_rev: int, rev: int, node_id: str, agent: str) -> Ack:
        """Record an acknowledged write and check it against the ones before."""
        ack = Ack(
            target=target, base_rev=base_rev, rev=rev, node_id=node_id, agent=agent, seq=self._seq
        )
        self._seq += 1
        self.tally.ops_acknowledged += 1
        if self.tally.ops_acknowledged >= self.ack_goal:
            self.ack_goal_reached.set()
        if rev != base_rev + 1:
            self.violations.append(
                f"{target}: write by {agent} at base_rev {base_rev} was acknowledged as rev {rev}"
            )
        taken = self._revs_taken.setdefault(target, {})
        previous = taken.get(rev)
        if previous is not None:
            self.violations.append(
                f"{target}: rev {rev} acknowledged twice ({previous.agent} added "
                f"{previous.node_id}, {agent} added {node_id}): a lost update"
            )
        taken[rev] = ack
        self.acks.setdefault(target, []).append(ack)
        return ack

    def note_read(
        self, target: str, started: int, rev: int, node_ids: frozenset[str], agent: str
    ) -> None:
        """Check a read that started at ledger time `started` against earlier acks."""
        self.tally.reads += 1
        for ack in self.acks.get(target, ()):
            if ack.seq >= started:
                continue
            if rev < ack.rev:
                self.violations.append(
                    f"{target}: {agent} read rev {rev} after rev {ack.rev} was acknowledged"
                )
            elif ack.node_id not in node_ids:
                self.violations.append(
                    f"{target}: {agent} read rev {rev} without {ack.node_id}, acknowledged "
                    f"in rev {ack.rev}"
                )

    def check_final(self, target: str, rev: int, node_ids: frozenset[str], where: str) -> None:
        """Every acknowledged write to `target` is in this final state (`where` names it)."""
        for ack in self.acks.get(target, ()):
            if rev < ack.rev:
                self.violations.append(
                    f"{target}: {where} has rev {rev}, below acknowledged rev {ack.rev}"
                )
            if ack.node_id not in node_ids:
                self.violations.append(
                    f"{target}: {where} lacks {ack.node_id} (acknowledged rev {ack.rev})"
                )

    def lost(self, target: str, rev: int, node_ids: frozenset[str]) -> list[Ack]:
        """The acknowledged writes to `target` that this state does not hold."""
        return [
            ack for ack in self.acks.get(target, ()) if ack.rev > rev or ack.node_id not in node_ids
        ]
