"""State-diagram op structs (spec decision 24), kept to three so `tools/list` stays small.

`state_set_state` and `state_set_transition` add the object when its id is new and update
the given fields otherwise (absent keeps a field, null clears it); `state_set_state` with
`parent_id` moves a state into a composite (null: to the top level); kind `note` with a
`label` is a floating note (`note "text" as N1`). `state_remove`
removes a state (with its nested states and every transition touching them) or a
transition. docs/ops.md has the rules.
"""

from __future__ import annotations

import msgspec

from nereid.ops.base import UNSET, DiagramOpBase, Maybe

__all__ = ["StateNoteSpec", "StateRemove", "StateSetState", "StateSetTransition"]


class StateNoteSpec(msgspec.Struct, frozen=True, kw_only=True):
    """One note beside a state: its text and side (`left of` / `right of`)."""

    text: str
    side: str = "right of"


class StateSetState(DiagramOpBase, tag="state_set_state", frozen=True):
    """Add or update a state (`s:<Mermaid id>`, or `start`/`end` ids for `[*]`)."""

    state_id: str
    kind: Maybe[str] = UNSET
    label: Maybe[str] = UNSET
    descriptions: Maybe[list[str]] = UNSET
    parent_id: Maybe[str] = UNSET
    region: Maybe[int] = UNSET
    direction: Maybe[str] = UNSET
    notes: Maybe[list[StateNoteSpec]] = UNSET
    classes: Maybe[list[str]] = UNSET
    #: One `style X css` line (null clears every style of the state).
    style: Maybe[str] = UNSET


class StateSetTransition(DiagramOpBase, tag="state_set_transition", frozen=True):
    """Add or update a transition; a new one needs both ends."""

    transition_id: str
    #: The source and target states (named like the flowchart edge ends, one schema field).
    from_node_id: Maybe[str] = UNSET
    to_node_id: Maybe[str] = UNSET
    label: Maybe[str] = UNSET


class StateRemove(DiagramOpBase, tag="state_remove", frozen=True):
    """Remove a state (nested states and touching transitions too) or a transition."""

    state_id: Maybe[str] = UNSET
    transition_id: Maybe[str] = UNSET
