"""`settle_heap`: collect and freeze once per process, raise the young-generation threshold."""

from __future__ import annotations

import gc

import pytest

from nereid.mcp import heap


def test_settle_heap_freezes_once_and_raises_gen0(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[object] = []
    monkeypatch.setattr(heap, "_settled", False)
    monkeypatch.setattr(heap.gc, "collect", lambda: calls.append("collect"))
    monkeypatch.setattr(heap.gc, "freeze", lambda: calls.append("freeze"))
    monkeypatch.setattr(heap.gc, "get_threshold", lambda: (700, 10, 10))
    monkeypatch.setattr(heap.gc, "set_threshold", lambda *levels: calls.append(levels))

    assert heap.settle_heap() is True
    assert calls == ["collect", "freeze", (heap.GEN0_THRESHOLD, 10, 10)]
    assert heap.settle_heap() is False  # a second server in the process changes nothing
    assert len(calls) == 3


def test_settle_heap_keeps_a_higher_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    levels: list[tuple[int, ...]] = []
    monkeypatch.setattr(heap, "_settled", False)
    monkeypatch.setattr(heap.gc, "collect", lambda: 0)
    monkeypatch.setattr(heap.gc, "freeze", lambda: None)
    monkeypatch.setattr(heap.gc, "get_threshold", lambda: (90_000, 5, 5))
    monkeypatch.setattr(heap.gc, "set_threshold", lambda *given: levels.append(given))
    heap.settle_heap()
    assert levels == [(90_000, 5, 5)]
    assert gc.isenabled()


def test_freeze_heap_freezes_without_a_collection(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr(heap.gc, "collect", lambda: calls.append("collect"))
    monkeypatch.setattr(heap.gc, "freeze", lambda: calls.append("freeze"))
    heap.freeze_heap()
    heap.freeze_heap()  # each load that is kept for good: no "once" here
    assert calls == ["freeze", "freeze"]
