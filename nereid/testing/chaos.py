"""`run_chaos`: agents writing and reading while a fault injector kills actors; then the checks.

A run opens a fresh session folder, creates a few flowcharts and walkthroughs, then runs
`agents` seeded agents (`nereid.testing.agents`) for `duration` seconds while a
`FaultInjector` kills random diagram, walkthrough, attention, xref and persister actors
and, with `save_fault_rate`, a `SaveFaultInjector` breaks the disk under the persister
(ENOSPC, EROFS, EIO, slow fsync). Writes refused for a broken disk (durable mode) are
retryable errors; in default mode the folder must catch up once the faults stop.
The agents talk to the session either directly (`transport="actors"`) or as real MCP
clients over Streamable HTTP (`transport="mcp"`, one MCP session each, served in-process
by `serve_http` so the injector can reach the registry).

After the agents stop, faults stop too, and the run checks (violations are collected in
the report, not raised):

- every acknowledged rev is present with its content in memory (`Ledger.check_final`);
- the trace shows no crash that was not injected, no escalation, a restart per crash;
- after a final flush, the folder loads without issues and equals the in-memory state
  (diagrams, walkthroughs and xrefs), so every acknowledged rev is on disk too.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Literal, TypeVar

import trio

from nereid.actors.persister import Flush
from nereid.actors.protocol import (
    GetDiagram,
    GetWalkthrough,
    ListDiagrams,
    ListWalkthroughs,
    ListXrefs,
)
from nereid.actors.tree import SessionHandle, open_session
from nereid.errors import NereidError
from nereid.model import Diagram, Session, Walkthrough
from nereid.runtime import Registry, Request, RestartIntensity, Tracer
from nereid.store.faults import FaultPlan
from nereid.store.files import FolderFiles
from nereid.store.session_io import load_session
from nereid.testing.agents import AgentPlan, run_agent
from nereid.testing.faults import FAULT_KINDS, FaultInjector, RestartCounter, SaveFaultInjector
from nereid.testing.ledger import Ledger, Tally
from nereid.testing.workspace import ActorWorkspace, Workspace

__all__ = ["ChaosConfig", "ChaosReport", "run_chaos"]

T = TypeVar("T")

SEED_FLOWCHART = "flowchart TD\n  start[Start] --> done[Done]\n"


@dataclass(frozen=True)
class ChaosConfig:
    """One chaos run. `duration` in seconds; `kill_rate` in kills per second. The run goes
    on past `duration` until `min_ops` ops are acknowledged (a loaded machine does less in
    a second), for at most `deadline` seconds more."""

    duration: float = 10.0
    min_ops: int = 0
    agents: int = 4
    kill_rate: float = 0.3
    seed: int = 1
    diagrams: int = 3
    walkthroughs: int = 2
    transport: Literal["actors", "mcp"] = "actors"
    durable: bool = False
    save_fault_rate: float = 0.0
    deadline: float = 30.0
    think: float = 0.005
    kinds: tuple[str, ...] = FAULT_KINDS


@dataclass
class ChaosReport:
    """What a run did and found; `ok` when there is no violation."""

    config: ChaosConfig
    tally: Tally
    violations: list[str] = field(default_factory=list)
    unexpected_crashes: dict[str, int] = field(default_factory=dict)
    skipped_kills: int = 0
    acked_on_disk: int = 0
    lost: int = 0
    save_faults: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.violations

    def summary(self) -> str:
        """The lines `scripts/chaos` prints."""
        t = self.tally
        c = self.config
        killed = ", ".join(f"{k} {n}" for k, n in sorted(t.by_fault_target.items())) or "none"
        lines = [
            f"chaos: {c.duration:g} s, {c.agents} agents over {c.transport}, "
            f"kill rate {c.kill_rate:g}/s, seed {c.seed}, "
            f"{'durable' if c.durable else 'debounced'} writes",
            f"ops acknowledged: {t.ops_acknowledged}   reads checked: {t.reads}",
            f"faults injected:  {t.faults_injected} ({killed}); skipped by intensity budget: "
            f"{self.skipped_kills}",
            f"save faults:      {sum(self.save_faults.values())} "
            f"({', '.join(f'{k} {n}' for k, n in sorted(self.save_faults.items())) or 'none'})",
            f"restarts:         {t.restarts}   escalations: {t.escalations}",
            f"stale base_rev:   {t.stale}   retryable errors: {t.retryable}   "
            f"refused: {t.refused}   internal: {t.broken}",
            f"acknowledged revs on disk after flush: {self.acked_on_disk}   lost: {self.lost}   "
            f"hung: {t.hung}",
            f"violations: {len(self.violations)}",
        ]
        lines.extend(f"  - {v}" for v in self.violations[:20])
        if len(self.violations) > 20:
            lines.append(f"  ... and {len(self.violations) - 20} more")
        return "\n".join(lines)


async def _ask(registry: Registry, name: str, request: Request[T], attempts: int = 50) -> T:
    """Call actor `name`, retrying through restarts (after the faults stopped)."""
    for attempt in range(attempts):
        try:
            return await registry.lookup(name).call(request)
        except NereidError as error:
            if not error.retryable or attempt == attempts - 1:
                raise
            await trio.sleep(0.05)
    raise AssertionError("unreachable")


@asynccontextmanager
async def _workspaces(config: ChaosConfig, handle: SessionHandle) -> AsyncIterator[list[Workspace]]:
    """The agents' workspaces: direct actor messages, or MCP sessions over loopback HTTP."""
    if config.transport == "actors":
        yield [ActorWorkspace(handle.registry, f"agent:{k + 1}") for k in range(config.agents)]
        return
    from nereid.mcp import McpEndpoint, ToolTable, serve_http
    from nereid.mcp.catalog import session_endpoint_parts
    from nereid.testing.mcp_workspace import open_workspaces

    parts = session_endpoint_parts(handle)
    endpoint = McpEndpoint(
        parts.runtime, ToolTable(parts.tools), resources=parts.resources, hooks=parts.hooks
    )
    async with trio.open_nursery() as nursery:
        url = await nursery.start(partial(serve_http, endpoint, port=0))
        async with open_workspaces(url, config.agents) as workspaces:
            yield list(workspaces)
        nursery.cancel_scope.cancel(reason="chaos run finished")


async def _final_checks(
    registry: Registry, folder: Path, ledger: Ledger, report: ChaosReport
) -> None:
    """Compare the in-memory state with the ledger, flush, then the folder with both."""
    listing = await _ask(registry, "session", ListDiagrams())
    memory_diagrams: dict[str, Diagram] = {}
    for summary in listing.diagrams:
        memory_diagrams[summary.diagram_id] = await _ask(
            registry, f"diagram:{summary.diagram_id}", GetDiagram()
        )
    wt_listing = await _ask(registry, "session", ListWalkthroughs())
    memory_walkthroughs: dict[str, Walkthrough] = {}
    for wt_summary in wt_listing.walkthroughs:
        memory_walkthroughs[wt_summary.walkthrough_id] = await _ask(
            registry,
            f"walkthrough:{wt_summary.walkthrough_id}",
            GetWalkthrough(walkthrough_id=wt_summary.walkthrough_id),
        )
    xrefs = await _ask(registry, "xref", ListXrefs())
    for diagram_id, diagram in memory_diagrams.items():
        nodes = frozenset(getattr(diagram.ast, "nodes", {}))
        ledger.check_final(f"d:{diagram_id}", diagram.rev, nodes, "memory")
    for wt_id, walkthrough in memory_walkthroughs.items():
        nodes = frozenset(n.node_id for n in walkthrough.nodes)
        ledger.check_final(f"w:{wt_id}", walkthrough.rev, nodes, "memory")

    await _ask(registry, "persister", Flush())
    loaded = await trio.to_thread.run_sync(lambda: load_session(FolderFiles(folder)))
    for issue in loaded.issues:
        ledger.violations.append(f"folder: {issue}")
    stored = loaded.session
    if set(stored.diagrams) != set(memory_diagrams):
        ledger.violations.append(
            f"folder has diagrams {sorted(stored.diagrams)}, memory {sorted(memory_diagrams)}"
        )
    for diagram_id, diagram in memory_diagrams.items():
        on_disk = stored.diagrams.get(diagram_id)
        if on_disk is not None and on_disk != diagram:
            ledger.violations.append(
                f"d:{diagram_id}: folder (rev {on_disk.rev}) differs from memory (rev {diagram.rev})"
            )
    if set(stored.walkthroughs) != set(memory_walkthroughs):
        ledger.violations.append(
            f"folder has walkthroughs {sorted(stored.walkthroughs)}, "
            f"memory {sorted(memory_walkthroughs)}"
        )
    for wt_id, walkthrough in memory_walkthroughs.items():
        on_disk_wt = stored.walkthroughs.get(wt_id)
        if on_disk_wt is not None and on_disk_wt != walkthrough:
            ledger.violations.append(
                f"w:{wt_id}: folder (rev {on_disk_wt.rev}) differs from memory "
                f"(rev {walkthrough.rev})"
            )
    memory_xref_ids = sorted(x.xref_id for x in xrefs.xrefs)
    if sorted(stored.xrefs) != memory_xref_ids:
        ledger.violations.append(
            f"folder has {len(stored.xrefs)} xrefs, memory {len(memory_xref_ids)}"
        )
    before = len(ledger.violations)
    for target, acks in ledger.acks.items():
        kind, ident = target.split(":", 1)
        if kind == "d" and ident in stored.diagrams:
            d = stored.diagrams[ident]
            lost = ledger.lost(target, d.rev, frozenset(getattr(d.ast, "nodes", {})))
        elif kind == "w" and ident in stored.walkthroughs:
            w = stored.walkthroughs[ident]
            lost = ledger.lost(target, w.rev, frozenset(n.node_id for n in w.nodes))
        else:
            lost = list(acks)
        report.lost += len(lost)
        report.acked_on_disk += len(acks) - len(lost)
    if report.lost:
        ledger.violations.insert(
            before, f"folder: {report.lost} acknowledged revs are not on disk after the flush"
        )


async def run_chaos(config: ChaosConfig, folder: Path) -> ChaosReport:
    """Run one chaos session in `folder` (must be empty or absent) and check it."""
    await trio.Path(folder).mkdir(parents=True, exist_ok=True)
    rng = random.Random(config.seed)
    ledger = Ledger(ack_goal=config.min_ops)
    report = ChaosReport(config=config, tally=ledger.tally)
    counter = RestartCounter()
    disk_plan = FaultPlan()
    files = FolderFiles(folder, durable=config.durable, faults=disk_plan)
    async with open_session(
        Session(session_id=f"s:chaos-{config.seed}"),
        files=files,
        durable=config.durable,
        unsaved=True,
        tracer=Tracer(counter, messages=False),
    ) as handle:
        registry = handle.registry
        setup = ActorWorkspace(registry, "setup")
        diagram_ids = [f"chaos-{k + 1}" for k in range(config.diagrams)]
        walkthrough_ids = [f"tour-{k + 1}" for k in range(config.walkthroughs)]
        for diagram_id in diagram_ids:
            await setup.create_flowchart(diagram_id, SEED_FLOWCHART)
        for wt_id in walkthrough_ids:
            await setup.create_walkthrough(wt_id, f"Tour {wt_id}")
        plan = AgentPlan(
            diagrams=diagram_ids,
            walkthroughs=walkthrough_ids,
            deadline=config.deadline,
            think=config.think,
        )
        injector = FaultInjector(
            registry=registry,
            rng=random.Random(rng.random()),
            rate=config.kill_rate,
            intensity=handle.runtime.root.intensity or RestartIntensity(),
            kinds=config.kinds,
        )
        disk = SaveFaultInjector(
            plan=disk_plan, rng=random.Random(rng.random()), rate=config.save_fault_rate
        )
        async with _workspaces(config, handle) as workspaces:
            stop = trio.Event()
            async with trio.open_nursery() as nursery:
                nursery.start_soon(injector.run)
                nursery.start_soon(disk.run)
                async with trio.open_nursery() as agents:
                    for index, workspace in enumerate(workspaces):
                        agents.start_soon(
                            run_agent,
                            f"a{index + 1}",
                            workspace,
                            plan,
                            ledger,
                            rng.randrange(2**32),
                            stop,
                        )
                    await trio.sleep(config.duration)
                    with trio.move_on_after(config.deadline):
                        await ledger.ack_goal_reached.wait()
                    stop.set()
                nursery.cancel_scope.cancel(reason="chaos run finished")
        ledger.tally.faults_injected = injector.injected
        ledger.tally.by_fault_target.update(injector.killed)
        report.skipped_kills = injector.skipped
        report.save_faults = dict(disk.injected)
        disk_plan.clear()
        await _final_checks(registry, folder, ledger, report)
        ledger.tally.restarts = counter.restarts
        ledger.tally.escalations = len(counter.escalations)
        crashes = sum(counter.crashes.values())
        if crashes > injector.injected:
            report.unexpected_crashes = dict(counter.crashes)
            ledger.violations.append(
                f"{crashes} crashes for {injector.injected} injected faults: {dict(counter.crashes)}"
            )
        if counter.restarts != crashes:
            ledger.violations.append(f"{crashes} crashes but {counter.restarts} restarts")
        if counter.escalations:
            ledger.violations.append(f"{len(counter.escalations)} supervisor escalations")
    report.violations = ledger.violations
    return report
