"""The folder lock: one owner, its record, stale locks of dead processes, the token file."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nereid.store.folder_lock import (
    LOCK_FILE,
    TOKEN_FILE,
    FolderLock,
    FolderOwned,
    read_owner,
    read_token,
)

REPO = Path(__file__).resolve().parents[2]

_HOLDER = """
import sys, time
from nereid.store.folder_lock import FolderLock, FolderOwned
try:
    lock = FolderLock.acquire(sys.argv[1], "serve")
except FolderOwned:
    print("owned", flush=True)
    sys.exit(3)
lock.publish("http://127.0.0.1:1/mcp")
print("holding", flush=True)
time.sleep(60)
"""


def _holder(folder: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(folder)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )


def test_the_owner_record_names_pid_host_mode_start_and_url(tmp_path: Path) -> None:
    with FolderLock.acquire(tmp_path / "new", "tui") as lock:
        owner = read_owner(tmp_path / "new")
        assert owner is not None
        assert (owner.pid, owner.host, owner.mode, owner.url) == (
            os.getpid(),
            socket.gethostname(),
            "tui",
            None,
        )
        assert owner.started.endswith("+00:00")
        lock.publish("http://127.0.0.1:5/mcp")
        owner = read_owner(tmp_path / "new")
        assert owner is not None and owner.url == "http://127.0.0.1:5/mcp"
        assert not owner.needs_token
    assert not (tmp_path / "new" / LOCK_FILE).exists()
    assert read_owner(tmp_path / "new") is None


def test_a_second_claim_is_refused_naming_the_owner(tmp_path: Path) -> None:
    with FolderLock.acquire(tmp_path, "serve") as lock:
        lock.publish("http://127.0.0.1:7/mcp")
        with pytest.raises(FolderOwned) as caught:
            FolderLock.acquire(tmp_path, "tui")
        assert caught.value.info == lock.info
        assert f"pid {os.getpid()}" in str(caught.value)
        assert "http://127.0.0.1:7/mcp" in str(caught.value)
    FolderLock.acquire(tmp_path, "tui").release()  # free again once released


def test_the_token_is_private_and_never_in_the_lock_record(tmp_path: Path) -> None:
    with FolderLock.acquire(tmp_path, "serve") as lock:
        lock.publish("http://127.0.0.1:7/mcp", "s3cret-token")
        mode = stat.S_IMODE((tmp_path / TOKEN_FILE).stat().st_mode)
        assert mode == 0o600
        assert "s3cret" not in (tmp_path / LOCK_FILE).read_text()
        assert json.loads((tmp_path / LOCK_FILE).read_text())["needs_token"] is True
        assert read_token(tmp_path) == "s3cret-token"
    assert not (tmp_path / TOKEN_FILE).exists()


def test_a_token_file_others_can_read_is_refused(tmp_path: Path) -> None:
    (tmp_path / TOKEN_FILE).write_text("planted\n")
    (tmp_path / TOKEN_FILE).chmod(0o644)
    with pytest.raises(PermissionError, match="600"):
        read_token(tmp_path)


def test_a_lock_that_is_a_symlink_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text("")
    folder = tmp_path / "proj"
    folder.mkdir()
    (folder / LOCK_FILE).symlink_to(elsewhere)
    with pytest.raises(OSError, match="symlink"):
        FolderLock.acquire(folder, "tui")
    assert elsewhere.read_text() == ""


def test_a_killed_owners_lock_is_recovered_and_reported(tmp_path: Path) -> None:
    with _holder(tmp_path) as holder:  # closes its pipe and reaps it
        try:
            assert holder.stdout is not None and holder.stdout.readline() == "holding\n"
            owner = read_owner(tmp_path)
            assert owner is not None and owner.pid == holder.pid
            with pytest.raises(FolderOwned):
                FolderLock.acquire(tmp_path, "tui")
            holder.send_signal(signal.SIGKILL)
            holder.wait(timeout=10)
        finally:
            if holder.poll() is None:
                holder.kill()
    assert (tmp_path / LOCK_FILE).exists()  # left behind by the dead process
    assert read_owner(tmp_path) is None  # but nobody holds it
    with FolderLock.acquire(tmp_path, "tui") as lock:
        assert lock.recovered is not None and lock.recovered.pid == holder.pid
        assert lock.info.pid == os.getpid()


def test_racing_processes_elect_exactly_one_owner(tmp_path: Path) -> None:
    racers = [_holder(tmp_path) for _ in range(6)]
    try:
        answers = []
        for racer in racers:
            assert racer.stdout is not None
            answers.append(racer.stdout.readline())
        assert sorted(answers) == ["holding\n"] + ["owned\n"] * 5
        deadline = time.monotonic() + 10
        while sum(r.poll() is None for r in racers) > 1 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert [r.returncode for r in racers if r.poll() is not None] == [3] * 5
    finally:
        for racer in racers:
            if racer.poll() is None:
                racer.kill()
            racer.wait(timeout=10)
            if racer.stdout is not None:
                racer.stdout.close()
