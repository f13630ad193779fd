"""Flowchart layout and rendering: layered (Sugiyama-style) layout, orthogonal routing."""

from __future__ import annotations

from nereid.render.flowchart.render import render_flowchart

__all__ = ["render_flowchart"]
