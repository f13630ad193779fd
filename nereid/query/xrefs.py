"""The xref queries `xref.list` and `xref.neighbors` (queries.md §14, §15, §16 D1).

An xref's status is derived from the existence of its endpoints in the snapshot
(`nereid.model.xref_status_in`), so it is always current. Neither query checks that the refs it
is given exist: dangling endpoints are legitimate.
"""

from __future__ import annotations

from typing import Final

from nereid.model import ObjectRef, xref_status_in
from nereid.query.errors import invalid_params
from nereid.query.params import check_choice, check_count, check_param_ref
from nereid.query.results import NeighborsResult, XRefListResult, XRefSummary
from nereid.query.scope import QueryScope

__all__ = ["STATUS_FILTERS", "xref_list", "xref_neighbors"]

#: Accepted `status` filter values; `dangling_*` means any status but `ok`.
STATUS_FILTERS: Final = ("ok", "dangling_from", "dangling_to", "dangling_both", "dangling_*")


def xref_list(
    scope: QueryScope,
    *,
    dangling_only: bool = False,
    status: str | None = None,
    kind: str | None = None,
    from_ref: str | None = None,
    to_ref: str | None = None,
    involves_ref: str | None = None,
    label_contains: str | None = None,
    limit: int | None = None,
) -> XRefListResult:
    """`xref.list`: the xrefs passing every given filter, by xref id, then the first `limit`.

    Empty strings mean "no filter" for `status`, `kind` and `label_contains`.
    """
    if status and status not in STATUS_FILTERS:
        raise invalid_params(
            f"invalid status (expected {'|'.join(STATUS_FILTERS)})", {"status": status}
        )
    from_filter = check_param_ref("from_ref", from_ref) if from_ref is not None else None
    to_filter = check_param_ref("to_ref", to_ref) if to_ref is not None else None
    involves = check_param_ref("involves_ref", involves_ref) if involves_ref is not None else None
    if limit is not None:
        check_count("limit", limit)
    summaries: list[XRefSummary] = []
    for xref_id in sorted(scope.xrefs):
        xref = scope.xrefs[xref_id]
        current = xref_status_in(scope.diagrams, xref)
        if (dangling_only or status == "dangling_*") and current == "ok":
            continue
        if status and status != "dangling_*" and current != status:
            continue
        if kind and xref.kind != kind:
            continue
        if from_filter is not None and xref.from_ref != from_filter:
            continue
        if to_filter is not None and xref.to_ref != to_filter:
            continue
        if involves is not None and involves not in (xref.from_ref, xref.to_ref):
            continue
        if label_contains and (xref.label is None or label_contains not in xref.label):
            continue
        summaries.append(
            XRefSummary(
                xref_id=xref_id,
                from_ref=xref.from_ref,
                to_ref=xref.to_ref,
                kind=xref.kind,
                label=xref.label,
                status=current,
            )
        )
    if limit is not None:
        summaries = summaries[:limit]
    return XRefListResult(xrefs=summaries)


def xref_neighbors(
    scope: QueryScope, *, object_ref: str, direction: str = "both"
) -> NeighborsResult:
    """`xref.neighbors`: the other ends of the xrefs leaving (`out`) / entering (`in`) a ref.

    De-duplicated, in ref order (§16 D1: structural order, one ordering everywhere).
    """
    ref = check_param_ref("object_ref", object_ref)
    check_choice("direction", direction, ("out", "in", "both"))
    found: set[ObjectRef] = set()
    for xref in scope.xrefs.values():
        if direction in ("out", "both") and xref.from_ref == ref:
            found.add(xref.to_ref)
        if direction in ("in", "both") and xref.to_ref == ref:
            found.add(xref.from_ref)
    return NeighborsResult(neighbors=[str(r) for r in sorted(found, key=ObjectRef.sort_key)])
