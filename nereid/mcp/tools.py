"""The tool table: each MCP tool declared once, with its schemas derived from msgspec Structs.

A tool is a name, a one- or two-sentence description, a params Struct (input), a
result Struct (output), honest behaviour hints and an async handler
``(call: ToolCall, params) -> result``. Handlers only translate between MCP and
actor messages: they find actors through `call.registry` and ask them; they hold
no state (architecture §2). Declare one with the `tool` decorator::

    @tool("diagram.stat", "Revision and object counts of a diagram.",
          params=StatParams, result=StatResult, hints=READ_ONLY)
    async def diagram_stat(call: ToolCall, params: StatParams) -> StatResult:
        return await call.registry.lookup(f"diagram:{params.diagram_id}").call(...)

and collect tools in a `ToolTable`, which lists them sorted by name.

Most tools need no handler of their own: where the tool's params ARE the actor request
(its fields, renames and parameter docs are the protocol Struct's) and the actor's reply IS
the result, the tool is one row, `forward(name, description, Request, hints=...)`
(`nereid.mcp.session_calls`), served by one generic handler (`route_of` finds the actor that
answers the request; `result=` reads the result from the reply). The queries on snapshots
are rows too (`nereid.mcp.tools_queries.query_tool`).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, final

import msgspec
from mcp_types import Tool as WireTool
from mcp_types import ToolAnnotations

from nereid.runtime import EventBus, Registry, Runtime

from .agents import Agent
from .param_docs import describe_params
from .schema import SchemaBatch, compact_output, omittable, struct_schema

__all__ = [
    "ADDITIVE",
    "DESTRUCTIVE",
    "READ_ONLY",
    "SET_STATE",
    "Handler",
    "Hints",
    "Listing",
    "NoParams",
    "Tool",
    "ToolCall",
    "ToolTable",
    "tool",
]

log = logging.getLogger(__name__)

ParamsT = TypeVar("ParamsT", bound=msgspec.Struct)
ResultT = TypeVar("ResultT", bound=msgspec.Struct)


@final
@dataclass(frozen=True, slots=True)
class ToolCall:
    """What a handler gets besides its params: who calls, and how to reach the actors.

    `correlation_id` names this request in the trace log; every actor message the
    handler sends carries it (the endpoint runs the handler inside
    `correlation_scope`).
    """

    tool: str
    agent: Agent
    correlation_id: str
    runtime: Runtime
    arguments: Mapping[str, Any] = field(default_factory=dict)
    """The arguments as sent (before decoding), e.g. to report keys decoding ignored."""

    @property
    def registry(self) -> Registry:
        """Actor addresses by name (`diagram:<id>`, `attention`, ...)."""
        return self.runtime.registry

    @property
    def bus(self) -> EventBus:
        """The runtime's event bus."""
        return self.runtime.bus


Handler = Callable[[ToolCall, ParamsT], Awaitable[ResultT]]


@final
@dataclass(frozen=True, slots=True)
class Hints:
    """The MCP tool annotations, stated truthfully (openWorldHint is always false).

    `read_only`: changes nothing. `destructive`: may remove or overwrite
    (meaningful only when not read-only). `idempotent`: repeating the same call
    has no further effect.
    """

    read_only: bool
    destructive: bool
    idempotent: bool

    def annotations(self) -> ToolAnnotations:
        """The wire hints; a read-only tool states only that (MCP ignores the other two then)."""
        if self.read_only:
            return ToolAnnotations(read_only_hint=True, open_world_hint=False)
        return ToolAnnotations(
            read_only_hint=False,
            destructive_hint=self.destructive,
            idempotent_hint=self.idempotent,
            open_world_hint=False,
        )


READ_ONLY = Hints(read_only=True, destructive=False, idempotent=True)
"""Reads: the common case."""
ADDITIVE = Hints(read_only=False, destructive=False, idempotent=False)
"""Adds something new each time (e.g. create with a fresh id)."""
DESTRUCTIVE = Hints(read_only=False, destructive=True, idempotent=False)
"""May remove or overwrite (ops batches, delete)."""
SET_STATE = Hints(read_only=False, destructive=False, idempotent=True)
"""Sets a piece of shared state that no content depends on (the active diagram or
walkthrough, a spotlight, the selection, follow-AI): repeating it changes nothing more, and
nothing is lost, so hosts need not ask the person before each call."""


class NoParams(msgspec.Struct, frozen=True, kw_only=True):
    """The params of tools without parameters: whatever is sent is ignored."""


@final
@dataclass(frozen=True)
class Tool(Generic[ParamsT, ResultT]):
    """One tool: its declaration and its handler. Schemas are computed once, here."""

    name: str
    description: str
    params: type[ParamsT]
    result: type[ResultT]
    hints: Hints
    handler: Handler[ParamsT, ResultT]
    schema_overrides: Mapping[str, dict[str, Any]] = field(default_factory=dict, repr=False)
    #: Additive result fields left out of the listed output schema (it is sent with every
    #: tool, so kept small; results may hold more than it lists: it sets no
    #: `additionalProperties: false`).
    unlisted_output: frozenset[str] = field(default_factory=frozenset, repr=False)
    optional_fields: frozenset[str] = field(init=False, repr=False, compare=False)
    #: (input schema, output schema), generated on first use (`schemas`).
    _schemas: tuple[dict[str, Any], dict[str, Any]] | None = field(
        init=False, default=None, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        if not self.name or not self.description.strip():
            raise ValueError(f"tool {self.name!r} needs a name and a description")
        optional = frozenset(
            f.encode_name for f in msgspec.structs.fields(self.params) if not f.required
        )
        object.__setattr__(self, "optional_fields", optional)
        results = {f.encode_name: f for f in msgspec.structs.fields(self.result)}
        if any(name not in results or results[name].required for name in self.unlisted_output):
            raise ValueError(
                f"unlisted output fields must be optional result fields: {self.unlisted_output}"
            )

    def schemas(self, batch: SchemaBatch | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        """(input schema, output schema), generated once: on first use, not at import, and
        from `batch` (`ToolTable.wire` generates every tool's definitions at once)."""
        if self._schemas is None:
            overrides = self.schema_overrides
            listed_input = describe_params(
                omittable(
                    struct_schema(
                        self.params, nullable_optional=False, overrides=overrides, batch=batch
                    )
                )
            )
            listed_output = _unlisting(
                compact_output(struct_schema(self.result, nullable_optional=False, batch=batch)),
                self.unlisted_output,
            )
            object.__setattr__(self, "_schemas", (listed_input, listed_output))
        assert self._schemas is not None
        return self._schemas

    @property
    def has_schemas(self) -> bool:
        return self._schemas is not None

    @property
    def input_schema(self) -> dict[str, Any]:
        return self.schemas()[0]

    @property
    def output_schema(self) -> dict[str, Any]:
        return self.schemas()[1]

    def wire(self, batch: SchemaBatch | None = None) -> WireTool:
        """The `tools/list` entry."""
        listed_input, listed_output = self.schemas(batch)
        return WireTool(
            name=self.name,
            description=self.description,
            input_schema=listed_input,
            output_schema=listed_output,
            annotations=self.hints.annotations(),
        )


def _unlisting(schema: dict[str, Any], names: frozenset[str]) -> dict[str, Any]:
    """`schema` without the optional properties `names` (see `Tool.unlisted_output`)."""
    if not names:
        return schema
    properties = schema.get("properties", {})
    missing = names - set(properties)
    if missing or names & set(schema.get("required", ())):
        raise ValueError(f"unlisted output fields must be optional result fields: {names}")
    kept = {key: value for key, value in properties.items() if key not in names}
    return {**schema, "properties": kept}


def tool(
    name: str,
    description: str,
    *,
    params: type[ParamsT],
    result: type[ResultT],
    hints: Hints,
    schema_overrides: Mapping[str, dict[str, Any]] | None = None,
    unlisted_output: Iterable[str] = (),
) -> Callable[[Handler[ParamsT, ResultT]], Tool[ParamsT, ResultT]]:
    """Declare a tool around its handler (a decorator; the name becomes the `Tool`).

    `schema_overrides` replaces the listed schema of some parameters (decoding still uses
    the params Struct), e.g. the compact op arrays of `nereid.mcp.op_schema`.
    """

    def declare(handler: Handler[ParamsT, ResultT]) -> Tool[ParamsT, ResultT]:
        return Tool(
            name,
            description,
            params,
            result,
            hints,
            handler,
            dict(schema_overrides or {}),
            frozenset(unlisted_output),
        )

    return declare


Listing = dict[str, dict[str, Any]]
"""Tool name -> its `tools/list` entry (JSON), as `ToolTable.listing` gives it."""


@final
class ToolTable:
    """The tools one endpoint serves, by name; iterates (and lists) sorted by name.

    `ToolTable.listed(load, listing)` lists from `listing` (what `listing()` gave for this
    very code, kept between runs) and imports its tools (`load()`) only once a call needs
    one: `nereid --mcp` answers `tools/list` without importing the layers the tools use.
    """

    def __init__(self, tools: Iterable[Tool[Any, Any]] = ()) -> None:
        self._tools: dict[str, Tool[Any, Any]] = {}
        self._load: Callable[[], Iterable[Tool[Any, Any]]] | None = None
        self._listing: Listing | None = None
        self._loading = threading.Lock()
        for item in tools:
            self.add(item)

    @classmethod
    def listed(cls, load: Callable[[], Iterable[Tool[Any, Any]]], listing: Listing) -> ToolTable:
        """A table that lists `listing` and loads its tools on first use (`load`)."""
        table = cls()
        table._load, table._listing = load, {name: listing[name] for name in sorted(listing)}
        return table

    def load(self) -> None:
        """Import the tools now if they are not yet (thread-safe: start-up loads them in a
        worker thread after the handshake). A listing that names other tools than the code
        (it cannot: it is kept per code) is dropped, and the tools are listed afresh."""
        with self._loading:
            load, self._load = self._load, None
            if load is None:
                return
            for item in load():
                self.add(item)
            if self._listing is not None and set(self._listing) != set(self._tools):
                log.warning("the kept tool listing names other tools; listing them afresh")
                self._listing = None

    def add(self, item: Tool[Any, Any]) -> None:
        """Add a tool; raises ValueError if its name is taken."""
        if item.name in self._tools:
            raise ValueError(f"tool {item.name!r} is declared twice")
        self._tools[item.name] = item

    def get(self, name: str) -> Tool[Any, Any] | None:
        self.load()
        return self._tools.get(name)

    def names(self) -> list[str]:
        if self._load is not None and self._listing is not None:
            return sorted(self._listing)
        self.load()
        return sorted(self._tools)

    def __iter__(self) -> Iterator[Tool[Any, Any]]:
        self.load()
        return iter([self._tools[name] for name in sorted(self._tools)])

    def __len__(self) -> int:
        return len(self.names())

    def listing(self) -> Listing:
        """Every tool's `tools/list` entry by name (every schema generated at once, once)."""
        if self._listing is None:
            self._listing = {
                wire.name: wire.model_dump(by_alias=True, mode="json", exclude_none=True)
                for wire in self.wire()
            }
        return self._listing

    def wire(self) -> list[WireTool]:
        """The `tools/list` result entries, sorted by name (every schema generated at once)."""
        items = list(self)
        batch = _batch_for(items)
        return [item.wire(batch) for item in items]


def _batch_for(items: list[Tool[Any, Any]]) -> SchemaBatch | None:
    """One batch of the definitions of the tools whose schemas are not generated yet."""
    pending = [item for item in items if not item.has_schemas]
    if not pending:
        return None
    return SchemaBatch(t for item in pending for t in (item.params, item.result))
