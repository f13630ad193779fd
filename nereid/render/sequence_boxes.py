"""Participant boxes (`box ... end`): a rounded frame around consecutive participants' heads
and lifelines, from the row above the heads to the row below the lifelines, labelled on its
top border. The layout asks for room between a box's border and its neighbours' heads; the
painter draws boxes behind everything else (a message, note or frame line crossing a side
stays whole). Boxes own no spans (they are not objects); their colour is not drawn.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from nereid.model.sequence import SequenceAst
from nereid.render.sequence_heads import HeadShape
from nereid.render.text import text_width

__all__ = ["BOX_PAD", "BoxPlan", "box_constraints", "place_boxes", "plan_boxes"]

BOX_PAD = 2  # a box side is this far from the nearest head cell it holds


@dataclass(slots=True)
class BoxPlan:
    first_index: int
    last_index: int
    label: str  # drawn on the top border ("" for none)
    left: int = 0
    right: int = 0

    @property
    def label_col(self) -> int:
        return self.left + 2


def plan_boxes(ast: SequenceAst, index_of: dict[str, int]) -> list[BoxPlan]:
    """One plan per box that holds a known participant.

    Unlike messages, a box naming an unknown participant is not an error here: boxes are
    decoration, and ops that remove a participant do not edit boxes, so the diagram must still
    draw (the exporter refuses such a box instead). Overlapping boxes are drawn as they are.
    """
    plans: list[BoxPlan] = []
    for box in ast.boxes:
        indexes = [index_of[pid] for pid in box.participant_ids if pid in index_of]
        if indexes:
            label = f" {box.label} " if box.label else ""
            plans.append(BoxPlan(min(indexes), max(indexes), label))
    return plans


def _extents(
    boxes: list[BoxPlan], shapes: list[HeadShape]
) -> tuple[dict[int, int], dict[int, int]]:
    """Per participant index, how far its box reaches left / right of its lifeline, for the
    participants at a box's edge."""
    left: dict[int, int] = {}
    right: dict[int, int] = {}
    for box in boxes:
        first, last = box.first_index, box.last_index
        left[first] = min(left.get(first, 0), shapes[first].left - BOX_PAD)
        reach = shapes[last].right + BOX_PAD
        if first == last:  # the label may make a one-participant box wider
            reach = max(reach, shapes[first].left - BOX_PAD + text_width(box.label) + 3)
        right[last] = max(right.get(last, 0), reach)
    return left, right


def box_constraints(
    boxes: list[BoxPlan], shapes: list[HeadShape], require: Callable[[int, int, int], None]
) -> None:
    """Lifeline distances that keep box sides off neighbouring heads and fit the labels."""
    left, right = _extents(boxes, shapes)
    for j in range(1, len(shapes)):
        if j in left or (j - 1) in right:
            reach_right = right.get(j - 1, shapes[j - 1].right)
            reach_left = left.get(j, shapes[j].left)
            require(j - 1, j, reach_right - reach_left + 2)
    for box in boxes:
        if box.first_index < box.last_index:
            first, last = shapes[box.first_index], shapes[box.last_index]
            need = first.left - BOX_PAD + text_width(box.label) + 3 - (last.right + BOX_PAD)
            require(box.first_index, box.last_index, need)


def place_boxes(boxes: list[BoxPlan], shapes: list[HeadShape], xs: list[int]) -> None:
    """Set each box's sides from the lifeline columns `xs`."""
    for box in boxes:
        box.left = xs[box.first_index] + shapes[box.first_index].left - BOX_PAD
        box.right = max(
            xs[box.last_index] + shapes[box.last_index].right + BOX_PAD,
            box.left + text_width(box.label) + 3,
        )
