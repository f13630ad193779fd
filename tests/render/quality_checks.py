"""Drawing checks shared by the render-quality set and the subgraph property tests."""

from __future__ import annotations

from nereid.render.flowchart.geometry import Geometry
from nereid.render.text import text_width


def labels_apart(geometry: Geometry) -> None:
    """Labels of different edges never touch: a blank cell (or row) between them."""
    boxes = []
    for edge in geometry.edges:
        for label in edge.labels:
            width = text_width(label.text)
            boxes.append((edge.edge_id, label.row, label.col, label.col + width - 1))
    for i, (a, row_a, c0a, c1a) in enumerate(boxes):
        for b, row_b, c0b, c1b in boxes[i + 1 :]:
            if a != b and abs(row_a - row_b) <= 1:
                assert c1a + 1 < c0b or c1b + 1 < c0a, f"labels of {a} and {b} touch"


def frames_off_boxes(geometry: Geometry) -> None:
    """A frame's border never runs on or right next to a box's border."""
    for frame in geometry.frames:
        ft, fl, fb, fr = frame.rect
        for node in geometry.nodes:
            top, left, bottom, right = node.rect
            inside = ft < top and fl < left and bottom < fb and right < fr
            if inside:
                assert top >= ft + 2 and left >= fl + 2 and bottom <= fb - 2 and right <= fr - 2, (
                    f"{node.node_id} touches the frame of {frame.subgraph_id}"
                )
            else:
                apart = right < fl - 1 or left > fr + 1 or bottom < ft - 1 or top > fb + 1
                assert apart, f"{node.node_id} touches the frame of {frame.subgraph_id}"
