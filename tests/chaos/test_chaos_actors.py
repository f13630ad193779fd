"""Chaos against the in-process actor tree and over MCP: actors die, promises hold."""

from __future__ import annotations

from pathlib import Path

from nereid.testing.chaos import ChaosConfig, run_chaos


async def test_acknowledged_revs_survive_random_actor_kills(tmp_path: Path) -> None:
    config = ChaosConfig(
        duration=3.0, min_ops=51, agents=6, kill_rate=3.0, seed=11, transport="actors"
    )
    report = await run_chaos(config, tmp_path / "session")
    assert report.violations == [], report.summary()
    tally = report.tally
    assert tally.ops_acknowledged > 50
    assert tally.faults_injected >= 3
    assert tally.restarts == tally.faults_injected
    assert tally.escalations == 0
    assert tally.hung == 0 and tally.broken == 0
    assert report.lost == 0 and report.acked_on_disk == tally.ops_acknowledged


async def test_mcp_agents_over_http_keep_every_acknowledged_rev(tmp_path: Path) -> None:
    config = ChaosConfig(duration=4.0, min_ops=11, agents=4, kill_rate=2.0, seed=5, transport="mcp")
    report = await run_chaos(config, tmp_path / "session")
    assert report.violations == [], report.summary()
    tally = report.tally
    assert tally.ops_acknowledged > 10
    assert tally.faults_injected >= 2
    assert tally.restarts == tally.faults_injected
    assert tally.hung == 0 and tally.broken == 0 and tally.refused == 0
    assert report.lost == 0


async def test_durable_writes_under_chaos_lose_nothing(tmp_path: Path) -> None:
    config = ChaosConfig(
        duration=2.0, min_ops=1, agents=3, kill_rate=3.0, seed=7, transport="actors", durable=True
    )
    report = await run_chaos(config, tmp_path / "session")
    assert report.violations == [], report.summary()
    assert report.tally.ops_acknowledged > 0
    assert report.lost == 0


async def test_disk_faults_with_actor_kills_lose_nothing_in_default_mode(tmp_path: Path) -> None:
    config = ChaosConfig(
        duration=3.0,
        min_ops=21,
        agents=4,
        kill_rate=2.0,
        seed=13,
        transport="actors",
        save_fault_rate=4.0,
    )
    report = await run_chaos(config, tmp_path / "session")
    assert report.violations == [], report.summary()
    assert sum(report.save_faults.values()) >= 3
    assert report.tally.ops_acknowledged > 20 and report.tally.broken == 0
    assert report.lost == 0 and report.acked_on_disk == report.tally.ops_acknowledged


async def test_disk_faults_with_durable_writes_refuse_or_keep(tmp_path: Path) -> None:
    config = ChaosConfig(
        duration=3.0,
        min_ops=1,
        agents=3,
        kill_rate=2.0,
        seed=17,
        transport="actors",
        durable=True,
        save_fault_rate=4.0,
    )
    report = await run_chaos(config, tmp_path / "session")
    assert report.violations == [], report.summary()
    assert sum(report.save_faults.values()) >= 3
    assert report.tally.retryable > 0  # writes refused while the disk was broken
    assert report.tally.ops_acknowledged > 0 and report.tally.broken == 0
    assert report.lost == 0
