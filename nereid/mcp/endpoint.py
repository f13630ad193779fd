"""The MCP endpoint: the tool table and resources served through the MCP SDK's `Server`.

`McpEndpoint` builds one SDK `Server` (reporting `nereid` and its version, with the
operating-loop instructions) and holds no Nereid state of its own (architecture
§2): tool handlers reach the actors through `ToolCall`, resources come from a
`DiagramResources` provider. Per session it keeps only protocol bookkeeping: the
session's `Agent` (in the SDK connection's scratch state) and its resource
subscriptions.

Nereid serves the initialize-handshake protocol era (sessions with ids, as the
contract describes). A request in the 2026-07-28 per-request-envelope era is
answered with -32022 naming the handshake versions, so an SDK client in `auto`
mode falls back to `initialize`.
"""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, final

import trio
from mcp.server.connection import Connection
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel.server import Server
from mcp.shared.exceptions import MCPError
from mcp_types import (
    UNSUPPORTED_PROTOCOL_VERSION,
    CallToolRequestParams,
    EmptyResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    PaginatedRequestParams,
    ReadResourceRequestParams,
    ReadResourceResult,
    Resource,
    ResourceTemplate,
    SubscribeRequestParams,
    TextResourceContents,
    UnsubscribeRequestParams,
)
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from nereid import __version__
from nereid.errors import ActorError, ResourceNotFound
from nereid.runtime import Actor, Address, Message, Runtime, Timer, correlation_scope, on_cast
from nereid.tool_names import ToolNamer, ToolNames

from .agents import Agent, AgentDirectory, SessionHooks
from .codec import decode_arguments, encode_result, result_body
from .errors import expected_error, internal_error, tool_not_found
from .presence import Presence, PresenceTracker
from .reply_size import check_reply_size, check_resource_size
from .resources import (
    DIAGRAM_URI_TEMPLATE,
    MERMAID_MIME_TYPE,
    DiagramResources,
    ResourceHub,
    diagram_id_of,
    diagram_uri,
)
from .tools import ToolCall, ToolTable

__all__ = ["INSTRUCTIONS", "MCP_TRACE_NAME", "SERVER_NAME", "EndpointParts", "McpEndpoint"]

log = logging.getLogger(__name__)

#: The name tool calls carry in the trace log (`nereid trace --actor mcp`).
MCP_TRACE_NAME: Final = "mcp"

SERVER_NAME: Final = "nereid"

INSTRUCTIONS: Final = """\
Nereid: a live Mermaid workspace shared with a person in a terminal and other agents.
Operating loop:
1. Resolve the target: diagram.list / diagram.current (or the walkthrough tools) give ids \
and revs.
2. Read attention first: attention.human.read says what the person is looking at.
3. Read small: diagram.stat, diagram.get_slice, object.read, flow.* / seq.* queries; \
diagram.read only when you need the whole text.
4. Spotlight what you discuss: attention.agent.set (each session has its own spotlight).
5. Change: diagram.propose_ops to preview, then diagram.apply_ops with base_rev; \
on a conflict, rebase with diagram.diff from your rev and retry.
6. Check: diagram.diff / diagram.render_text show what changed.
Ids are stable across edits; object refs look like d:<diagram>/flow/node/<id>."""

_AGENT_KEY: Final = "nereid.agent"
_NAMES_KEY: Final = "nereid.tool_names"
TOOL_NAMES_QUERY: Final = "tool_names"
"""HTTP only: `/mcp?tool_names=underscore` picks a session's spelling (e.g. for a bridge)."""


#: Seconds after a presence deadline that its timer fires (the change is then due for sure).
_PRESENCE_SLACK: Final = 0.01
_watch_numbers = itertools.count(1)


class _PresenceDue(Message, frozen=True):
    """A presence deadline may have passed: report what changed, arm the next one."""


class _PresenceWatch(Actor[None, _PresenceDue]):
    """The actor the presence timers go to (`Runtime.send_after` delivers to actors); it
    only hands the tick back to its endpoint, whose tracker is protocol bookkeeping."""

    def __init__(self, endpoint: McpEndpoint) -> None:
        self._endpoint = endpoint

    @on_cast(_PresenceDue)
    async def _due(self, message: _PresenceDue) -> None:
        await self._endpoint._presence_due()


def _connection_of(ctx: ServerRequestContext[Any, Any]) -> Connection:
    """The SDK connection a request arrived on.

    The SDK (2.3) exposes it to handlers only through the per-request session
    proxy (`ServerSession._connection`); the agent tests in `tests/mcp` pin this.
    """
    connection = getattr(ctx.session, "_connection", None)
    if not isinstance(connection, Connection):
        raise RuntimeError("MCP SDK changed: request context carries no Connection")
    return connection


def _client_name(ctx: ServerRequestContext[Any, Any], connection: Connection) -> str | None:
    if connection.client_params is not None:
        return connection.client_params.client_info.name
    params: Mapping[str, Any] = ctx.params or {}
    info = params.get("clientInfo") if ctx.method == "initialize" else None
    name = info.get("name") if isinstance(info, Mapping) else None
    return name if isinstance(name, str) else None


@final
@dataclass(frozen=True)
class EndpointParts:
    """What a running session hands the MCP layer to build an endpoint from.

    The session layer (which owns the runtime and the actors) provides these;
    a command then adds transport-level choices (e.g. diagnostic tools).
    """

    runtime: Runtime
    tools: ToolTable
    resources: DiagramResources | None = None
    hooks: SessionHooks | None = None


@final
class McpEndpoint:
    """One MCP server (all sessions share it): tools, resources, agents, session hooks.

    Serve it with `serve_stdio` or `serve_http`. `runtime` is the actor runtime
    handlers talk to; `resources` (optional) makes diagrams readable and
    subscribable; `hooks` (optional) hear about sessions starting and ending.
    `ready` (optional): awaited before any tool or resource handler runs, so the
    handshake and `tools/list` are answered while the session is still loading; it
    raises a `NereidError` (sent as the call's error) if the session cannot serve.
    """

    def __init__(
        self,
        runtime: Runtime,
        tools: ToolTable,
        *,
        resources: DiagramResources | None = None,
        hooks: SessionHooks | None = None,
        instructions: str = INSTRUCTIONS,
        tool_names: ToolNames = "dotted",
        presence: PresenceTracker | None = None,
        ready: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self.runtime = runtime
        self._ready = ready
        self.tools = tools
        self.hooks = hooks
        self.tool_names: ToolNames = tool_names
        self.agents = AgentDirectory()
        self.presence = presence if presence is not None else PresenceTracker()
        #: The presence watch actor while `run_background` runs, and its armed timer.
        self._presence_watch: Address | None = None
        self._presence_timer: Timer | None = None
        self.hub = ResourceHub(resources) if resources is not None else None
        self._instructions = instructions
        self._namers: dict[ToolNames, ToolNamer] = {
            mode: ToolNamer(tools.names(), mode) for mode in ("dotted", "underscore")
        }
        self._listings: dict[ToolNames, dict[str, Any]] = {}
        resource_handlers: dict[str, Any] = {}
        if self.hub is not None:
            resource_handlers = {
                "on_list_resources": self._list_resources,
                "on_read_resource": self._read_resource,
                "on_subscribe_resource": self._subscribe,
                "on_unsubscribe_resource": self._unsubscribe,
                "on_list_resource_templates": self._list_templates,
            }
        self.server: Server[Any] = Server(
            SERVER_NAME,
            version=__version__,
            instructions=instructions,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            **resource_handlers,
        )
        self.server.middleware.append(self._session_middleware)

    async def run_background(
        self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        """What the endpoint runs besides the transport: the resource notifier and the
        presence watch.

        Transports start this in their nursery and cancel it when they stop.
        """
        name = f"mcp.presence.{next(_watch_numbers)}"
        root = self.runtime.root
        self._presence_watch = await root.spawn(name, lambda: _PresenceWatch(self), initial=None)
        try:
            self._arm_presence()
            async with trio.open_nursery() as nursery:
                if self.hub is not None:
                    await nursery.start(self.hub.run)
                task_status.started()
                await trio.sleep_forever()
        finally:
            self._presence_watch = None
            if self._presence_timer is not None:
                self._presence_timer.cancel()
                self._presence_timer = None
            with trio.CancelScope(shield=True):
                try:
                    await root.stop(name)
                except (ActorError, RuntimeError):
                    pass  # the runtime ended first: its actors are gone already

    # -- presence ---------------------------------------------------------------
    #
    # Presence changes fall due without any request (an agent goes quiet, a closed stream
    # does not come back), so one runtime timer (`send_after`) is armed for the earliest
    # deadline. A request only moves its agent's deadlines later: it arms nothing (the
    # timer then fires early, finds no change and re-arms), so calls pay no wake-up.

    def _arm_presence(self) -> None:
        """Arm the timer for the tracker's next deadline, unless one fires by then."""
        watch = self._presence_watch
        if watch is None:
            return
        now = trio.current_time()
        deadline = self.presence.next_deadline(now)
        timer = self._presence_timer
        if deadline is None:
            return  # a pending timer just finds nothing to report
        due = deadline + _PRESENCE_SLACK
        if timer is not None and timer.pending and timer.due <= due:
            return
        if timer is not None:
            timer.cancel()
        self._presence_timer = self.runtime.send_after(due - now, watch, _PresenceDue())

    async def _presence_due(self) -> None:
        """The watch's tick: report the changes now due, arm the next deadline."""
        for agent_id, presence in self.presence.changes(trio.current_time()):
            agent = self.agents.get(agent_id)
            if agent is not None:
                await self._tell_presence(agent, presence)
        timer = self._presence_timer
        if timer is not None and not timer.pending:
            self._presence_timer = None
        self._arm_presence()

    async def _tell_presence(self, agent: Agent, presence: Presence) -> None:
        log.info("MCP agent %s is %s", agent.label, presence)
        if self.hooks is not None:
            try:
                await self.hooks.session_presence(agent, presence)
            except Exception:
                log.exception("session_presence hook failed for %s", agent.agent_id)

    async def _note_request(self, agent: Agent) -> None:
        if self.presence.seen(agent.agent_id, trio.current_time()) == "active":
            await self._tell_presence(agent, "active")
            self._arm_presence()  # it was idle or gone: its deadlines are back
        elif self._presence_timer is None:
            self._arm_presence()  # a new agent's first deadline

    async def stream_opened(self, session_id: str) -> None:
        """An HTTP session's event stream (GET) opened: it is connected."""
        agent = self.agents.by_session(session_id)
        if agent is not None:
            if self.presence.stream_opened(agent.agent_id, trio.current_time()) == "active":
                await self._tell_presence(agent, "active")
                self._arm_presence()

    def stream_closed(self, session_id: str) -> None:
        """An HTTP session's event stream closed: gone unless it reconnects soon."""
        agent = self.agents.by_session(session_id)
        if agent is not None:
            self.presence.stream_closed(agent.agent_id, trio.current_time())
            self._arm_presence()  # its grace may end before the armed deadline

    # -- sessions ---------------------------------------------------------------

    async def _session_middleware(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            raise MCPError(
                code=UNSUPPORTED_PROTOCOL_VERSION,
                message="nereid serves MCP sessions opened with initialize; "
                f"protocol {ctx.protocol_version} is not supported",
                data={
                    "supported": list(HANDSHAKE_PROTOCOL_VERSIONS),
                    "requested": ctx.protocol_version,
                },
            )
        if ctx.request_id is not None and (
            ctx.method == "initialize" or _connection_of(ctx).initialize_accepted
        ):
            # The session's agent opens with `initialize` (so it gets the client's
            # name); probes before it (e.g. `server/discover`) belong to no agent.
            agent = await self._agent_for(ctx)
            await self._note_request(agent)
            try:
                result = await call_next(ctx)
            finally:
                self.presence.seen(agent.agent_id, trio.current_time())
        else:
            result = await call_next(ctx)
        if ctx.method == "initialize" and isinstance(result, dict):
            result = self._initialize_result(ctx, result)
        return result

    def _initialize_result(
        self, ctx: ServerRequestContext[Any, Any], result: dict[str, Any]
    ) -> dict[str, Any]:
        """The session's instructions (in its tool spelling) and the resource list flag."""
        namer = self.namer_of(ctx)
        patched = dict(result)
        patched["instructions"] = namer.text(self._instructions)
        capabilities = dict(patched.get("capabilities") or {})
        if isinstance(capabilities.get("resources"), dict):
            capabilities["resources"] = {**capabilities["resources"], "listChanged": True}
        patched["capabilities"] = capabilities
        return patched

    def namer_of(self, ctx: ServerRequestContext[Any, Any]) -> ToolNamer:
        """The tool spelling of the request's session: fixed at its first request.

        The endpoint's `tool_names`, unless an HTTP session asked for another with
        `?tool_names=` on the endpoint URL (an unknown value keeps the default).
        """
        connection = _connection_of(ctx)
        mode = connection.state.get(_NAMES_KEY)
        if mode not in self._namers:
            mode = self._requested_names(ctx) or self.tool_names
            connection.state[_NAMES_KEY] = mode
        return self._namers[mode]

    @staticmethod
    def _requested_names(ctx: ServerRequestContext[Any, Any]) -> ToolNames | None:
        query = getattr(ctx.request, "query_params", None)
        asked = query.get(TOOL_NAMES_QUERY) if query is not None else None
        if asked == "dotted":
            return "dotted"
        return "underscore" if asked == "underscore" else None

    async def _agent_for(self, ctx: ServerRequestContext[Any, Any]) -> Agent:
        """The agent of the request's session, opened on the session's first request."""
        connection = _connection_of(ctx)
        agent = connection.state.get(_AGENT_KEY)
        if isinstance(agent, Agent):
            return agent
        agent = self.agents.open(
            "http" if connection.session_id is not None else "stdio",
            client_name=_client_name(ctx, connection),
            session_id=connection.session_id,
        )
        connection.state[_AGENT_KEY] = agent
        connection.exit_stack.push_async_callback(self._end_session, connection, agent)
        if self.hub is not None:
            self.hub.open(connection)
        log.info("MCP session started: %s", agent.label)
        if self.hooks is not None:
            try:
                await self.hooks.session_started(agent)
            except Exception:
                log.exception("session_started hook failed for %s", agent.agent_id)
        return agent

    async def _end_session(self, connection: Connection, agent: Agent) -> None:
        if self.hub is not None:
            self.hub.forget(connection)
        self.agents.close(agent)
        self.presence.forget(agent.agent_id)
        log.info("MCP session ended: %s", agent.label)
        if self.hooks is not None:
            try:
                await self.hooks.session_ended(agent)
            except Exception:
                log.exception("session_ended hook failed for %s", agent.agent_id)

    # -- tools ------------------------------------------------------------------

    def tool_listing(self, mode: ToolNames) -> dict[str, Any]:
        """The `tools/list` result in `mode`'s spelling (computed once per mode)."""
        listing = self._listings.get(mode)
        if listing is None:
            namer = self._namers[mode]
            entries = []
            for name, listed in self.tools.listing().items():
                entries.append({**namer.value(listed), "name": namer.listed(name)})
            listing = self._listings[mode] = {"tools": entries}
        return listing

    async def _list_tools(
        self, ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams | None
    ) -> Any:
        return self.tool_listing(self.namer_of(ctx).mode)

    async def _call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: CallToolRequestParams
    ) -> Any:
        namer = self.namer_of(ctx)
        canonical = namer.canonical(params.name)
        tool = self.tools.get(canonical) if canonical is not None else None
        if tool is None:
            raise tool_not_found(params.name)
        agent = await self._agent_for(ctx)
        tracer = self.runtime.tracer
        with correlation_scope(origin=MCP_TRACE_NAME) as correlation_id:
            # The call itself is traced as a message to the `mcp` endpoint, so a request's
            # path in `nereid trace` starts at the tool call and refusals made before any
            # actor is asked (bad arguments, unknown ids) show up too.
            started = time.monotonic()
            if tracer is not None:
                tracer.record(
                    "send",
                    MCP_TRACE_NAME,
                    sender=agent.agent_id,
                    kind="call",
                    msg_type=tool.name,
                    correlation_id=correlation_id,
                )
                tracer.record(
                    "receive",
                    MCP_TRACE_NAME,
                    kind="call",
                    msg_type=tool.name,
                    correlation_id=correlation_id,
                    duration_ms=0.0,
                )
            try:
                if self._ready is not None:
                    await self._ready()
                arguments = decode_arguments(params.arguments, tool.params, tool.optional_fields)
                call = ToolCall(
                    tool=tool.name,
                    agent=agent,
                    correlation_id=correlation_id,
                    runtime=self.runtime,
                    arguments=params.arguments or {},
                )
                result = await tool.handler(call, arguments)
                if not isinstance(result, tool.result):
                    raise TypeError(
                        f"{tool.name} returned {type(result).__name__}, "
                        f"expected {tool.result.__name__}"
                    )
                body = result_body(result)
                check_reply_size(tool.name, body)
                encoded = encode_result(result, body)
            except Exception as error:
                mapped = expected_error(error)
                if mapped is None:
                    log.exception(
                        "tool %s failed unexpectedly (agent %s, correlation %s)",
                        tool.name,
                        agent.agent_id,
                        correlation_id,
                    )
                    mapped = internal_error(correlation_id)
                if namer.mode != "dotted":
                    mapped = MCPError(
                        code=mapped.error.code,
                        message=namer.text(mapped.error.message),
                        data=namer.value(mapped.error.data),
                    )
                if tracer is not None:
                    tracer.record(
                        "error",
                        MCP_TRACE_NAME,
                        kind="call",
                        msg_type=tool.name,
                        correlation_id=correlation_id,
                        duration_ms=(time.monotonic() - started) * 1000.0,
                        outcome=type(error).__name__,
                        detail=mapped.error.message,
                    )
                raise mapped from error
            if tracer is not None:
                tracer.record(
                    "reply",
                    MCP_TRACE_NAME,
                    kind="call",
                    msg_type=tool.name,
                    correlation_id=correlation_id,
                    duration_ms=(time.monotonic() - started) * 1000.0,
                    outcome="ok",
                )
            return encoded

    # -- resources --------------------------------------------------------------

    def _require_hub(self) -> ResourceHub:
        assert self.hub is not None, "resource handlers are registered only with a provider"
        return self.hub

    async def _guarded(self, work: Awaitable[Any]) -> Any:
        try:
            if self._ready is not None:
                await self._ready()
            return await work
        except Exception as error:
            mapped = expected_error(error)
            if mapped is None:
                log.exception("resource request failed unexpectedly")
                raise internal_error() from error
            raise mapped from error

    async def _list_resources(
        self, ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams | None
    ) -> ListResourcesResult:
        diagrams = await self._guarded(self._require_hub().provider.list_diagrams())
        return ListResourcesResult(
            resources=[
                Resource(
                    uri=diagram_uri(diagram_id),
                    name=diagram_id,
                    title=name,
                    description=f"Mermaid text of diagram {diagram_id}",
                    mime_type=MERMAID_MIME_TYPE,
                )
                for diagram_id, name in sorted(diagrams)
            ]
        )

    async def _list_templates(
        self, ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams | None
    ) -> ListResourceTemplatesResult:
        return ListResourceTemplatesResult(
            resource_templates=[
                ResourceTemplate(
                    uri_template=DIAGRAM_URI_TEMPLATE,
                    name="diagram",
                    title="Diagram",
                    description="Mermaid text of a diagram, by diagram id",
                    mime_type=MERMAID_MIME_TYPE,
                )
            ]
        )

    async def _read_resource(
        self, ctx: ServerRequestContext[Any, Any], params: ReadResourceRequestParams
    ) -> ReadResourceResult:
        hub = self._require_hub()
        uri = str(params.uri)
        text = await self._guarded(self._read_text(hub, uri))
        return ReadResourceResult(
            contents=[TextResourceContents(uri=uri, mime_type=MERMAID_MIME_TYPE, text=text)]
        )

    @staticmethod
    async def _read_text(hub: ResourceHub, uri: str) -> str:
        text = await hub.provider.read_text(diagram_id_of(uri))
        check_resource_size(uri, text)
        return text

    async def _subscribe(
        self, ctx: ServerRequestContext[Any, Any], params: SubscribeRequestParams
    ) -> EmptyResult:
        hub = self._require_hub()
        uri = str(params.uri)
        await self._guarded(self._check_exists(hub, uri))
        hub.subscribe(_connection_of(ctx), uri)
        return EmptyResult()

    @staticmethod
    async def _check_exists(hub: ResourceHub, uri: str) -> None:
        diagram_id = diagram_id_of(uri)
        known = {known_id for known_id, _ in await hub.provider.list_diagrams()}
        if diagram_id not in known:
            raise ResourceNotFound("diagram not found", data={"diagram_id": diagram_id})

    async def _unsubscribe(
        self, ctx: ServerRequestContext[Any, Any], params: UnsubscribeRequestParams
    ) -> EmptyResult:
        self._require_hub().unsubscribe(_connection_of(ctx), str(params.uri))
        return EmptyResult()
