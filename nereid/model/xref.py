"""Cross-references between objects of (possibly different) diagrams (model.md §9)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

import msgspec

from nereid.model.diagram import Diagram, ref_exists
from nereid.model.refs import ObjectRef

__all__ = ["XRef", "XRefStatus", "xref_status", "xref_status_in"]

XRefStatus = Literal["ok", "dangling_from", "dangling_to", "dangling_both"]


class XRef(msgspec.Struct, frozen=True, kw_only=True):
    """`from_ref` / `to_ref` are `from` / `to` in JSON (Python keywords)."""

    from_ref: ObjectRef = msgspec.field(name="from")
    to_ref: ObjectRef = msgspec.field(name="to")
    kind: str
    label: str | None = None


def xref_status(from_missing: bool, to_missing: bool) -> XRefStatus:
    """The derived status of an xref from whether each end resolves."""
    if from_missing and to_missing:
        return "dangling_both"
    if from_missing:
        return "dangling_from"
    if to_missing:
        return "dangling_to"
    return "ok"


def xref_status_in(diagrams: Mapping[str, Diagram], xref: XRef) -> XRefStatus:
    """The derived status of an xref against a set of diagrams (model.md §9)."""
    return xref_status(
        not ref_exists(diagrams, xref.from_ref), not ref_exists(diagrams, xref.to_ref)
    )
