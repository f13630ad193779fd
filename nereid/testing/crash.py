"""Process crashes: SIGKILL a whole `nereid serve` under write load, restart it, compare.

Each round starts ``python -m nereid serve DIR --port 0 [--durable-writes]`` on the same
folder, waits for the URL it announces on stderr, connects `writers` MCP agents that add
nodes to a few flowcharts as fast as they can (each acknowledged rev goes in a `Ledger`),
and kills the process with SIGKILL after a seeded random delay. Then, with no server
running, the folder is loaded (`load_session`) and compared with the ledger:

- the folder must always load, without issues (atomic writes; session-folder.md §10);
- with `--durable-writes` every acknowledged rev must be there with its node;
- without it, acknowledged revs may be lost (debounced writes: the documented trade-off);
  they are counted, never hidden.

A round's ledger starts from what the folder held: a lost rev number is reused by the
next server, which is exactly what non-durable mode allows.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

import trio

from nereid.store.files import FolderFiles
from nereid.store.session_io import load_session
from nereid.testing.ledger import Ledger
from nereid.testing.mcp_workspace import McpWorkspace, connect
from nereid.testing.workspace import ChaosFailure, Refused, Retryable, Stale

__all__ = ["CrashConfig", "CrashReport", "ServerProcess", "run_crash_rounds", "start_server"]

_URL_PREFIX = "nereid: MCP listening on "
FLOWCHART = "flowchart TD\n  a[A] --> b[B]\n"
_CLIENT_TRANSPORT_ERROR = -32000
"""Code the MCP client gives a call whose HTTP stream ended without a response."""


@dataclass(frozen=True)
class CrashConfig:
    """`rounds` kill/restart cycles; each kill comes `min_s`..`max_s` after the writers start."""

    rounds: int = 3
    writers: int = 3
    diagrams: int = 2
    durable: bool = True
    seed: int = 1
    min_s: float = 0.3
    max_s: float = 1.5
    start_timeout: float = 120.0


@dataclass
class CrashReport:
    config: CrashConfig
    acknowledged: int = 0
    lost: int = 0
    kills: int = 0
    write_errors_at_kill: int = 0
    violations: list[str] = field(default_factory=list)

    def summary(self) -> str:
        mode = "durable" if self.config.durable else "debounced"
        lines = [
            f"process crash ({mode} writes): {self.kills} SIGKILLs, "
            f"{self.acknowledged} acknowledged revs, {self.lost} lost after restart, "
            f"{self.write_errors_at_kill} writes cut by the kill",
            f"violations: {len(self.violations)}",
        ]
        lines.extend(f"  - {v}" for v in self.violations[:20])
        return "\n".join(lines)


@dataclass
class ServerProcess:
    """A running `nereid serve` child: its process, URL and the tail of its stderr."""

    process: trio.Process
    url: str
    stderr_tail: deque[str]


async def _drain(stream: trio.abc.ReceiveStream, tail: deque[str], url_found: trio.Event) -> None:
    """Read stderr lines until EOF, remembering the tail; set `url_found` on the URL line."""
    buffer = b""
    while True:
        chunk = await stream.receive_some(65536)
        if not chunk:
            return
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        for raw in lines:
            line = raw.decode(errors="replace")
            tail.append(line)
            if line.startswith(_URL_PREFIX) and not url_found.is_set():
                url_found.set()


async def start_server(
    nursery: trio.Nursery,
    folder: Path,
    *,
    durable: bool,
    extra: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
    start_timeout: float = 120.0,
) -> ServerProcess:
    """Start `nereid serve folder --port 0` and wait for its URL (raises RuntimeError).

    `extra`: more command-line arguments; `env`: added to this process's environment.
    """
    command = [sys.executable, "-m", "nereid", "serve", str(folder), "--port", "0", *extra]
    if durable:
        command.append("--durable-writes")
    process = await trio.lowlevel.open_process(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, **(env or {})},
    )
    tail: deque[str] = deque(maxlen=200)
    found = trio.Event()
    assert process.stderr is not None
    nursery.start_soon(_drain, process.stderr, tail, found)
    with trio.move_on_after(start_timeout):
        while not found.is_set() and process.poll() is None:
            with trio.move_on_after(0.05):
                await found.wait()
    if not found.is_set():
        if process.poll() is None:
            process.kill()
        await process.wait()
        raise RuntimeError(
            f"nereid serve did not announce its URL (exit {process.returncode}): "
            + " | ".join(list(tail)[-8:])
        )
    url = next(line for line in tail if line.startswith(_URL_PREFIX))[len(_URL_PREFIX) :]
    return ServerProcess(process=process, url=url.strip(), stderr_tail=tail)


async def _ensure_diagrams(workspace: McpWorkspace, ids: list[str]) -> None:
    for diagram_id in ids:
        try:
            await workspace.read_diagram(diagram_id)
        except Refused:
            await workspace.create_flowchart(diagram_id, FLOWCHART)


async def _writer(
    name: str, workspace: McpWorkspace, ids: list[str], ledger: Ledger, rng: random.Random
) -> int:
    """Add nodes until the connection breaks; returns how many writes the kill cut."""
    counter = 0
    known: dict[str, int] = {}
    while True:
        diagram_id = rng.choice(ids)
        target = f"d:{diagram_id}"
        try:
            if target not in known:
                known[target] = (await workspace.read_diagram(diagram_id)).rev
            counter += 1
            node_id = f"n:{name}x{counter}"
            base = known[target]
            new_rev = await workspace.add_diagram_node(diagram_id, base, node_id)
        except Stale as stale:
            known[target] = stale.current_rev
            continue
        except Retryable:
            known.pop(target, None)
            continue
        except ChaosFailure as failure:
            if failure.code == _CLIENT_TRANSPORT_ERROR:
                return 1  # the client SDK's word for a connection that died mid-call
            ledger.violations.append(f"{name}: {failure.code} {failure.message}")
            return 0
        except Exception:  # the server died under us: connection errors of any kind
            return 1
        ledger.note_ack(target, base, new_rev, node_id, name)
        known[target] = new_rev


async def _round(
    folder: Path, config: CrashConfig, rng: random.Random, report: CrashReport, index: int
) -> None:
    ledger = Ledger()
    ids = [f"crash-{k + 1}" for k in range(config.diagrams)]
    async with trio.open_nursery() as nursery:
        server = await start_server(
            nursery, folder, durable=config.durable, start_timeout=config.start_timeout
        )
        cut = 0
        ready = trio.Event()
        try:
            async with trio.open_nursery() as writers:

                async def run_writer(k: int, seed: int) -> None:
                    nonlocal cut
                    try:
                        async with connect(server.url, f"writer-{k}") as workspace:
                            if k == 0:
                                await _ensure_diagrams(workspace, ids)
                                ready.set()
                            else:
                                await ready.wait()
                            cut += await _writer(
                                f"r{index}w{k}", workspace, ids, ledger, random.Random(seed)
                            )
                    except Exception:  # connecting or closing against a killed server
                        cut += 1

                for k in range(config.writers):
                    writers.start_soon(run_writer, k, rng.randrange(2**32))
                # The kill comes a random moment after the writers are writing, however
                # long connecting took on a loaded machine (bounded by the start timeout).
                with trio.move_on_after(config.start_timeout):
                    await ready.wait()
                await trio.sleep(rng.uniform(config.min_s, config.max_s))
                os.kill(server.process.pid, signal.SIGKILL)
                report.kills += 1
                await server.process.wait()
                writers.cancel_scope.deadline = trio.current_time() + 10
        finally:
            if server.process.poll() is None:
                server.process.kill()
            await server.process.wait()
        report.write_errors_at_kill += cut
    report.violations.extend(f"round {index}: {v}" for v in ledger.violations)
    report.acknowledged += ledger.tally.ops_acknowledged
    try:
        loaded = await trio.to_thread.run_sync(lambda: load_session(FolderFiles(folder)))
    except Exception as error:
        report.violations.append(f"round {index}: the folder does not load: {error}")
        return
    for issue in loaded.issues:
        report.violations.append(f"round {index}: folder issue: {issue}")
    for target in ledger.acks:
        diagram = loaded.session.diagrams.get(target[2:])
        if diagram is None:
            lost = ledger.acks[target]
        else:
            lost = ledger.lost(target, diagram.rev, frozenset(getattr(diagram.ast, "nodes", {})))
        report.lost += len(lost)
        if lost and config.durable:
            report.violations.append(
                f"round {index}: {target}: {len(lost)} acknowledged revs lost with "
                f"--durable-writes (first: rev {lost[0].rev}, {lost[0].node_id})"
            )


async def run_crash_rounds(folder: Path, config: CrashConfig) -> CrashReport:
    """Run `config.rounds` kill/restart rounds on `folder`; returns what was found."""
    await trio.Path(folder).mkdir(parents=True, exist_ok=True)
    rng = random.Random(config.seed)
    report = CrashReport(config=config)
    for index in range(config.rounds):
        await _round(folder, config, rng, report, index)
    return report
