"""Nereid's MCP endpoint: the tool-table framework and its stdio / Streamable HTTP transports.

- Declare tools with `tool(...)` (params and result are msgspec Structs; schemas
  are generated, see `struct_schema`) and collect them in a `ToolTable`.
- `McpEndpoint(runtime, tools, resources=..., hooks=...)` is the server all
  sessions share; every session is an `Agent` handlers see as `ToolCall.agent`.
- Serve it with `serve_stdio(endpoint)` or `serve_http(endpoint, host=, port=, ...)`.

Failures map to JSON-RPC errors as `nereid.mcp.errors` describes.

The HTTP transport's names (`serve_http`, `DEFAULT_PORT`, ...) are imported on first use:
a stdio server never needs hypercorn, h11, h2 and wsproto, and should not wait for them.
"""

from typing import TYPE_CHECKING, Any

from .agents import Agent as Agent
from .agents import AgentDirectory as AgentDirectory
from .agents import SessionHooks as SessionHooks
from .codec import decode_arguments as decode_arguments
from .codec import encode_result as encode_result
from .endpoint import INSTRUCTIONS as INSTRUCTIONS
from .endpoint import SERVER_NAME as SERVER_NAME
from .endpoint import EndpointParts as EndpointParts
from .endpoint import McpEndpoint as McpEndpoint
from .resources import DIAGRAM_URI_PREFIX as DIAGRAM_URI_PREFIX
from .resources import DiagramResources as DiagramResources
from .resources import diagram_uri as diagram_uri
from .schema import U64 as U64
from .schema import struct_schema as struct_schema
from .stdio import serve_stdio as serve_stdio
from .stdio import serve_streams as serve_streams
from .tools import ADDITIVE as ADDITIVE
from .tools import DESTRUCTIVE as DESTRUCTIVE
from .tools import READ_ONLY as READ_ONLY
from .tools import Hints as Hints
from .tools import Tool as Tool
from .tools import ToolCall as ToolCall
from .tools import ToolTable as ToolTable
from .tools import tool as tool

__all__ = [
    "ADDITIVE",
    "DESTRUCTIVE",
    "DEFAULT_HOST",
    "DEFAULT_MAX_BODY_SIZE",
    "DEFAULT_PATH",
    "DEFAULT_PORT",
    "DIAGRAM_URI_PREFIX",
    "INSTRUCTIONS",
    "READ_ONLY",
    "SERVER_NAME",
    "Agent",
    "AgentDirectory",
    "DiagramResources",
    "EndpointParts",
    "Hints",
    "HttpSecurityError",
    "McpEndpoint",
    "SessionHooks",
    "Tool",
    "ToolCall",
    "ToolTable",
    "decode_arguments",
    "diagram_uri",
    "encode_result",
    "is_loopback_host",
    "serve_http",
    "serve_stdio",
    "serve_streams",
    "struct_schema",
    "tool",
]

_HTTP_NAMES = frozenset(
    {
        "DEFAULT_HOST",
        "DEFAULT_MAX_BODY_SIZE",
        "DEFAULT_PATH",
        "DEFAULT_PORT",
        "HttpSecurityError",
        "is_loopback_host",
        "serve_http",
    }
)

if TYPE_CHECKING:
    from .http import DEFAULT_HOST as DEFAULT_HOST
    from .http import DEFAULT_MAX_BODY_SIZE as DEFAULT_MAX_BODY_SIZE
    from .http import DEFAULT_PATH as DEFAULT_PATH
    from .http import DEFAULT_PORT as DEFAULT_PORT
    from .http import HttpSecurityError as HttpSecurityError
    from .http import is_loopback_host as is_loopback_host
    from .http import serve_http as serve_http


def __getattr__(name: str) -> Any:
    if name in _HTTP_NAMES:
        from . import http

        value = getattr(http, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
