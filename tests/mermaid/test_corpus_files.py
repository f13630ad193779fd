"""The corpus tests skip in a clean clone without `../shared`, but never under CI=true."""

from __future__ import annotations

import pytest

from tests.mermaid.corpus_files import corpus_files


def test_a_missing_corpus_fails_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    with pytest.raises(RuntimeError, match="CI=true"):
        corpus_files("no-such-kind-*.mmd")


def test_a_missing_corpus_is_empty_outside_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    assert corpus_files("no-such-kind-*.mmd") == []
