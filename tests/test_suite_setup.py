"""Where the tests' temporary folders are (conftest.py): in memory when it has room, else where
the system keeps them, and where TMPDIR says when it is set; those of passing tests removed."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import conftest
from conftest import MEMORY, REPO, memory_folder

WHERE = """
import os

def test_passes(tmp_path):
    (tmp_path / "written").write_text("")
    print("TMP_PATH", tmp_path, os.environ.get("TMPDIR"))

def test_fails(tmp_path):
    (tmp_path / "written").write_text("")
    print("TMP_PATH", tmp_path, os.environ.get("TMPDIR"))
    assert False
"""


@pytest.mark.slow
@pytest.mark.parametrize("told", [False, True], ids=["not told", "TMPDIR"])
def test_where_a_run_keeps_its_temporary_folders(tmp_path: Path, told: bool) -> None:
    """A run with this conftest: its folders in MEMORY when it has room and TMPDIR names no
    other place, else in TMPDIR; a passing test's folder gone when it ends, a failing one's
    kept."""
    (tmp_path / "test_where.py").write_text(WHERE)
    env = {k: v for k, v in os.environ.items() if k != "TMPDIR"}
    place = tmp_path / "place"
    if told:
        place.mkdir()
        env["TMPDIR"] = str(place)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "tests"), env.get("PYTHONPATH", "")])
    # This repository's pytest settings and conftest, on a test file of its own.
    args = ["-c", str(REPO / "pyproject.toml"), "-p", "conftest", "-n", "0", "-s"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *args, "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]  # one test failed
    printed = re.findall(r"^.*?TMP_PATH (\S+) (\S+)$", done.stdout, re.MULTILINE)
    (passed, tmpdir), (failed, _) = [(Path(p), t) for p, t in printed]
    try:
        where = place if told else memory_folder()  # None: the system's temporary folder
        for folder in (passed, failed):
            assert folder.is_relative_to(where) if where else not folder.is_relative_to(MEMORY)
        assert tmpdir == str(where)  # what the run's child processes are given ("None": unset)
        assert not passed.exists()  # tmp_path_retention_policy = "failed"
        assert (failed / "written").is_file()
    finally:
        run = failed.parent  # the failed run's numbered folder, which pytest keeps
        if run.name.startswith("pytest-"):
            shutil.rmtree(run, ignore_errors=True)


def test_memory_is_used_only_with_room(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A folder is used when it is writable and has MEMORY_NEEDED bytes free; not when it has
    less (Docker's 64 MiB /dev/shm), is missing or is a file."""
    monkeypatch.setattr(conftest, "MEMORY", tmp_path)
    assert memory_folder() == tmp_path
    monkeypatch.setattr(conftest, "MEMORY_NEEDED", 2**62)
    assert memory_folder() is None
    monkeypatch.undo()
    monkeypatch.setattr(conftest, "MEMORY", tmp_path / "missing")
    assert memory_folder() is None
    (tmp_path / "file").write_text("")
    monkeypatch.setattr(conftest, "MEMORY", tmp_path / "file")
    assert memory_folder() is None
