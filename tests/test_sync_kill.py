"""Killing sync at any moment leaves every docs file either old or new, never truncated."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import make_project

pytestmark = pytest.mark.slow


def files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


def test_kill_during_sync(tmp_path: Path) -> None:
    reference = make_project(tmp_path / "reference", docs=True)
    # A changed site URL changes the generated part of every file: sync rewrites all 593.
    config = reference.root / "gbsite.toml"
    config.write_text(config.read_text().replace("meta-pytorch.github.io", "example.org"))
    old = files(reference.docs)
    assert reference.run("sync").code == 0
    new = files(reference.docs)
    assert all(old[name] != new[name] for name in old)

    work = make_project(tmp_path / "work", docs=True)
    shutil.copy(config, work.root / "gbsite.toml")
    mid_sync_kills = 0
    for _attempt in range(6):
        shutil.rmtree(work.docs)
        work.docs.mkdir()
        for name, data in old.items():
            (work.docs / name).write_bytes(data)
        mtimes = {p: p.stat().st_mtime_ns for p in work.docs.iterdir()}
        proc = subprocess.Popen(
            [sys.executable, "-m", "gbsite", "--root", str(work.root), "sync"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        # Wait for the first rewritten file, then kill at once: mid-way through the writes.
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and proc.poll() is None:
            if any(p.stat().st_mtime_ns != t for p, t in mtimes.items() if p.exists()):
                break
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()

        now = {n: d for n, d in files(work.docs).items() if not n.startswith(".")}
        assert set(now) == set(old)
        for name, data in now.items():
            assert data in (old[name], new[name]), f"{name} is neither old nor new"
        written = sum(now[name] == new[name] for name in now)
        if 0 < written < len(now):
            mid_sync_kills += 1
    assert mid_sync_kills >= 3, "the kill never landed in the middle of the writes"
    # A later sync finishes the job and removes the temp files a kill may leave behind.
    assert work.run("sync").code == 0
    assert {n: d for n, d in files(work.docs).items()} == new
