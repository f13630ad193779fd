"""Follow-AI (tui.md §12.3 with §16.6): whether the cursor follows agents' spotlights, the
pause after the person's own navigation, and the newest spotlight already followed.

Edge-triggered: a spotlight is followed once, when its `seq` (the attention actor's
session-wide counter) is larger than the last one followed, so clearing a spotlight never
pulls the camera back to an older one. Only `Following`'s methods change this state.
"""

from __future__ import annotations

from collections.abc import Callable

from nereid.actors.protocol import Spotlight
from nereid.ui.modes import FOLLOW_PAUSE

__all__ = ["Following"]


class Following:
    """Follow-AI on/off (mirrored from the attention actor), the pause and the last `seq`."""

    def __init__(self, clock: Callable[[], float], *, enabled: bool) -> None:
        self._clock = clock
        self._enabled = enabled
        self._paused_until = 0.0
        self._last_seq: int | None = None

    @property
    def enabled(self) -> bool:
        return self._enabled

    @property
    def paused_until(self) -> float:
        return self._paused_until

    def set_enabled(self, enabled: bool) -> bool:
        """Adopt the session's follow-AI flag; whether it changed."""
        changed = enabled != self._enabled
        self._enabled = enabled
        return changed

    def toggle(self) -> bool:
        """`a`: switch following on or off (on again: no pause); whether it is on now."""
        self._enabled = not self._enabled
        if self._enabled:
            self._paused_until = 0.0
        return self._enabled

    def pause(self) -> None:
        """The person navigated: follow nothing for `FOLLOW_PAUSE` seconds."""
        self._paused_until = self._clock() + FOLLOW_PAUSE

    def paused(self) -> bool:
        return self._enabled and self._clock() < self._paused_until

    def pause_end(self) -> float | None:
        """When the running pause ends (None: not paused)."""
        return self._paused_until if self.paused() else None

    def resume_at(self, latest: Spotlight | None) -> float | None:
        """When a spotlight set during the person's pause should be followed (None: none)."""
        if not self._enabled or latest is None or latest.seq <= (self._last_seq or 0):
            return None
        return self._paused_until if self._clock() < self._paused_until else None

    def wants(self, latest: Spotlight | None, *, force: bool = False) -> bool:
        """Whether to follow `latest` now: following is on and, unless `force`, the
        spotlight is newer than the last one followed and no pause is running."""
        if latest is None or not self._enabled:
            return False
        if force:
            return True
        return latest.seq > (self._last_seq or 0) and self._clock() >= self._paused_until

    def followed(self, latest: Spotlight) -> None:
        self._last_seq = latest.seq
