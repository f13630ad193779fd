"""Process crash: SIGKILL `nereid serve` under write load, restart, and check the folder."""

from __future__ import annotations

from pathlib import Path

from nereid.testing.crash import CrashConfig, run_crash_rounds


async def test_durable_writes_keep_every_acknowledged_rev_across_sigkill(tmp_path: Path) -> None:
    config = CrashConfig(rounds=2, writers=3, durable=True, seed=21)
    report = await run_crash_rounds(tmp_path / "session", config)
    assert report.violations == [], report.summary()
    assert report.kills == 2
    assert report.acknowledged > 0
    assert report.lost == 0


async def test_without_durable_writes_the_folder_still_loads_after_sigkill(
    tmp_path: Path,
) -> None:
    config = CrashConfig(rounds=2, writers=3, durable=False, seed=22)
    report = await run_crash_rounds(tmp_path / "session", config)
    # Lost revs are the documented trade-off of debounced writes: counted, not refused.
    assert report.violations == [], report.summary()
    assert report.kills == 2
    assert report.acknowledged > 0
    assert 0 <= report.lost <= report.acknowledged
    print(report.summary())
