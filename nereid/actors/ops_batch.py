"""The front half of an ops request, shared by `DiagramActor` and `WalkthroughActor`.

Both answer `Apply…Ops` alike: a dry run only proposes (nothing to commit), otherwise the
batch is applied all-or-nothing, and an `OpError` becomes its wire refusal
(`from_op_error`). What differs — the steps of each actor's commit rule and the reply type —
stays in the actor.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from nereid.actors.refusals import from_op_error
from nereid.ops import OpError

__all__ = ["run_batch"]

OpT = TypeVar("OpT")
StateT = TypeVar("StateT")
OutcomeT = TypeVar("OutcomeT")


def run_batch(
    propose: Callable[[int, Sequence[OpT]], OutcomeT],
    apply: Callable[[int, Sequence[OpT]], tuple[StateT, OutcomeT]],
    base_rev: int,
    ops: Sequence[OpT],
    *,
    dry_run: bool,
) -> tuple[StateT | None, OutcomeT]:
    """`propose` (dry run: no new state) or `apply` the batch; ops errors are refusals.

    The new state is the one `apply` returns: the same object when the batch changed
    nothing (an empty batch), which the caller then does not commit.
    """
    try:
        if dry_run:
            return None, propose(base_rev, ops)
        return apply(base_rev, ops)
    except OpError as err:
        raise from_op_error(err) from None
