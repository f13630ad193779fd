"""Reading the actor runtime's trace log, and the `nereid trace` viewer (schema: docs/trace.md).

- `records`: `TraceEntry`, the reader's own decoding of one JSON line (tolerant of new keys).
- `reader`: `TraceLogReader` (whole file or incremental, survives rotation), `SkippedLines`.
- `filters`: `TraceFilter` (actor, message type, correlation id, problems, time window).
- `text`, `stats`, `calls`: timeline rows, per-actor figures, a request's call tree.
- `mermaid_export`: a slice as a Mermaid `sequenceDiagram`.
- `viewer`, `keys`: the urwid viewer (imported on demand: only it needs urwid).

This package imports only `nereid.model` of Nereid (architecture rule); the command line and
the sink the `--trace` option opens are in `nereid.commands.trace`.
"""

from .filters import TraceFilter as TraceFilter
from .filters import parse_time as parse_time
from .mermaid_export import export_sequence_diagram as export_sequence_diagram
from .reader import SkippedLines as SkippedLines
from .reader import TraceLogReader as TraceLogReader
from .reader import read_trace_file as read_trace_file
from .records import TraceEntry as TraceEntry
from .stats import collect_stats as collect_stats

__all__ = [
    "SkippedLines",
    "TraceEntry",
    "TraceFilter",
    "TraceLogReader",
    "collect_stats",
    "export_sequence_diagram",
    "parse_time",
    "read_trace_file",
]
