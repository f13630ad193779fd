"""Which Host and Origin headers the HTTP endpoint answers: parsed, never prefix-matched.

DNS rebinding protection: a browser page on another site must not reach the local
endpoint, so the Host header must name this server and an Origin, when sent, one of its
own origins. Both are parsed as URL authorities (host and port) rather than compared as
strings with a `name:` prefix, which accepted `localhost:evil.com` and
`127.0.0.1:80@evil.com`. Accepted:

- Host: `name` or `name:port`, where name is an allowed name (case-insensitive) or a
  loopback IP literal (IPv6 in brackets) and port is 1-65535 digits; no user info, path,
  query or anything else;
- Origin: `http://` or `https://` plus such a host, nothing after it (`null`, other
  schemes and paths are refused). An absent Origin is fine (non-browser clients).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from typing import Final, final

__all__ = ["LOOPBACK_NAMES", "HostPolicy"]

LOOPBACK_NAMES: Final = ("127.0.0.1", "localhost", "::1")
_AUTHORITY: Final = re.compile(
    r"(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<name>[A-Za-z0-9._-]+))(?::(?P<port>[0-9]{1,5}))?"
)
_ORIGIN: Final = re.compile(r"(?P<scheme>https?)://(?P<authority>.+)", re.IGNORECASE)


def _bare(name: str) -> str:
    return name.strip().strip("[]").lower()


@final
class HostPolicy:
    """The names this server answers to: loopback names plus `extra` (bound / allowed hosts)."""

    def __init__(self, extra: Iterable[str] = ()) -> None:
        self.names = frozenset(_bare(name) for name in (*LOOPBACK_NAMES, *extra) if name.strip())

    def host_of(self, authority: str) -> str | None:
        """The host named by `host[:port]`, lower-cased, or None if it is not that shape."""
        match = _AUTHORITY.fullmatch(authority)
        if match is None:
            return None
        port = match["port"]
        if port is not None and not 1 <= int(port) <= 65535:
            return None
        if match["v6"] is not None:
            try:
                return str(ipaddress.IPv6Address(match["v6"]))
            except ValueError:
                return None
        return match["name"].lower()

    def allows_host(self, header: str | None) -> bool:
        """Whether a Host header names this server."""
        if header is None:
            return False
        host = self.host_of(header)
        return host is not None and self._allowed(host)

    def allows_origin(self, header: str | None) -> bool:
        """Whether an Origin header (absent is fine) is one of this server's origins."""
        if header is None:
            return True
        match = _ORIGIN.fullmatch(header)
        if match is None:
            return False
        host = self.host_of(match["authority"])
        return host is not None and self._allowed(host)

    def _allowed(self, host: str) -> bool:
        if host in self.names:
            return True
        try:
            return ipaddress.ip_address(host).is_loopback
        except ValueError:
            return False
