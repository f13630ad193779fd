"""Reliability harnesses for Nereid: chaos runs, process crashes, bad input (not used at run time).

Shared by the test suite (`tests/chaos/`) and `scripts/chaos`, so both check the same
invariants the same way:

- `workspace`: what a chaos agent can do (`Workspace`), over direct actor messages
  (`ActorWorkspace`), with failures sorted into `Retryable`, `Stale`, `Refused`, `Broken`;
  `mcp_workspace`: the same as a real MCP client over Streamable HTTP (`McpWorkspace`).
- `ledger`: every acknowledged rev and what it added (`Ledger`), the invariants checked
  during and after a run, and the counters of the summary.
- `faults`: `FaultInjector` kills random actors at random moments within the supervisors'
  restart intensity; `RestartCounter` counts crashes, restarts and escalations from the
  tracer.
- `agents`: the seeded agent loop (reads and writes with deadlines).
- `chaos`: `run_chaos(...)` puts it together and returns a `ChaosReport`.
- `crash`: SIGKILL a whole `nereid serve` process under write load, restart, compare.
- `schema_inputs`: Hypothesis strategies from a tool's JSON input schema, and mutations
  that break it; `bad_input`: calling tools with them and judging the answers.

`schema_inputs` needs Hypothesis (a dev dependency): nothing at run time imports this package.
"""

__all__: list[str] = []
