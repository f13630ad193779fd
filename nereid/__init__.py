"""Nereid: a live, shared workspace for Mermaid diagrams (people and AI agents)."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("nereid")
except PackageNotFoundError:  # pragma: no cover - running from a bare source tree
    __version__ = "0.0.0"

__all__ = ["__version__"]
