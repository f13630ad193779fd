"""A whole session as loaded from or saved to a folder (model.md §10.1).

At run time the actors own these pieces separately; this struct is the unit the store reads
and writes.
"""

from __future__ import annotations

import msgspec

from nereid.model.diagram import Diagram
from nereid.model.refs import ObjectRef
from nereid.model.walkthrough import Walkthrough
from nereid.model.xref import XRef

__all__ = ["Session"]


class Session(msgspec.Struct, frozen=True, kw_only=True):
    session_id: str
    diagrams: dict[str, Diagram] = msgspec.field(default_factory=dict)
    walkthroughs: dict[str, Walkthrough] = msgspec.field(default_factory=dict)
    xrefs: dict[str, XRef] = msgspec.field(default_factory=dict)
    active_diagram_id: str | None = None
    active_walkthrough_id: str | None = None
    selected_object_refs: tuple[ObjectRef, ...] = ()
