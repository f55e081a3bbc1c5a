"""Ctrl-C and SIGTERM stop `gbsite check --examples` at any moment (issue 35's review).

A terminal's Ctrl-C is a SIGINT to the whole foreground process group: gbsite and, unless it
is shielded, the example server. Each case starts the command line in a group of its own, as a
shell with job control would, signals it at one moment of a run (a block running, quick blocks
going by, the server starting) and checks what the user relies on: exit 130 within seconds, one
line and no traceback, no example process left running, the record as the last complete run
left it and docs/gb/ untouched.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from conftest import Project, fake_torch, page
from test_faults_newer import alive, files, spawner

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc"),
    pytest.mark.repo_data,
]

TAG = "GBSITE_TEST_INTERRUPT"  # in gbsite's environment, so in every process it starts
STOPS_WITHIN = 5.0  # seconds from the signal to gbsite's exit, on a loaded two-core machine
QUICK = "def fn():\n    return {n}\nfn()\nfn()\n"


@pytest.fixture(scope="module")
def fake_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    return fake_torch(tmp_path_factory.mktemp("faketorch"))[0]


@pytest.fixture(scope="module")
def slow_server(tmp_path_factory: pytest.TempPathFactory, fake_python: str) -> str:
    """The fake torch's `python`, whose example server takes 3 s to start (as a real one
    importing torch does): a window to signal it in."""
    script = tmp_path_factory.mktemp("slowserver") / "python"
    script.write_text(
        f'#!/bin/sh\ncase "$*" in *--serve*) sleep 3;; esac\nexec "{fake_python}" "$@"\n'
    )
    script.chmod(0o755)
    return str(script)


def tagged(tag: str) -> list[int]:
    """The live processes (zombies aside) whose environment carries `tag`."""
    found = []
    needle = f"{TAG}={tag}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue  # gone, or not ours
        if needle in environ.split(b"\0") and alive(int(entry.name)):
            found.append(int(entry.name))
    return found


class Check:
    """`gbsite check --examples` running in a process group (and session) of its own, its
    output lines collected as they come."""

    def __init__(self, project: Project, args: list[str], *, ignore_sigint: bool = False) -> None:
        self.tag = uuid.uuid4().hex
        self.lines: list[str] = []

        def prepare() -> None:
            # A job a script starts with `&` inherits SIGINT ignored (no job control there).
            if ignore_sigint:
                signal.signal(signal.SIGINT, signal.SIG_IGN)

        self.proc = subprocess.Popen(
            [sys.executable, "-m", "gbsite", "--root", str(project.root), "check", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, TAG: self.tag},
            start_new_session=True,  # a group of its own, as a shell with job control makes
            preexec_fn=prepare,
        )
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self.lines.append(raw.decode("utf-8", "replace"))

    def wait_for(self, ready: Callable[[], bool], limit: float = 60) -> None:
        deadline = time.monotonic() + limit
        while not ready():
            assert self.proc.poll() is None, f"ended early: {self.lines}"
            assert time.monotonic() < deadline, f"never ready: {self.lines}"
            time.sleep(0.02)

    def ok_lines(self) -> int:
        return sum(1 for line in self.lines if line.startswith("  ok "))

    def stop(self, sig: signal.Signals = signal.SIGINT, *, group: bool = True) -> float:
        """Send `sig` (to the group, as a terminal does, or to gbsite alone, as CI's runner
        does) and return the seconds gbsite took to exit; checks how it exited."""
        sent = time.monotonic()
        if group:
            os.killpg(self.proc.pid, sig)
        else:
            self.proc.send_signal(sig)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
            pytest.fail(f"still running 20 s after {sig.name}: {self.lines[-3:]}")
        took = time.monotonic() - sent
        self.reader.join(timeout=10)
        assert self.proc.stderr is not None
        err = self.proc.stderr.read().decode("utf-8", "replace")
        assert self.proc.returncode == 130, (self.proc.returncode, err, self.lines[-3:])
        assert "Traceback" not in err and err.strip() == "gbsite: interrupted", err
        # Nothing it started runs on (the kills are done before gbsite exits; the grace is for
        # the kernel to finish tearing the killed processes down).
        deadline = time.monotonic() + 1
        while (left := tagged(self.tag)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not left, f"still running after gbsite exited: {left}"
        return took

    def kill(self) -> None:
        """Kill the run and all it started (a failed case leaves nothing for the next)."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        for pid in tagged(self.tag):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        if self.proc.stderr is not None:
            self.proc.stderr.close()


@pytest.fixture
def checks() -> Iterator[list[Check]]:
    """The runs a test starts: none outlives it, even when it fails."""
    started: list[Check] = []
    yield started
    for check in started:
        check.kill()


def quick_blocks(project: Project, count: int, first: int = 0) -> None:
    """`count` fixes on GB0025's page that each take a fork and a few milliseconds."""
    blocks = "".join(
        f"```python gb-fix\n{QUICK.format(n=n)}```\n\n" for n in range(first, first + count)
    )
    page(project, "GB0025", blocks)


def sleeper(project: Project, tmp_path: Path) -> Path:
    """A fix that starts a daemon, writes its pid and sleeps: it runs when the signal comes."""
    pid_file = tmp_path / "sleeper.pid"
    code = spawner(pid_file, session=True, then="import time\ntime.sleep(120)\nfn()\n")
    page(project, "GB0025", f"```python gb-fix\n{code}```\n")
    return pid_file


@pytest.mark.parametrize(
    ("sig", "group", "ignored", "fresh"),
    [
        (signal.SIGINT, True, False, False),
        (signal.SIGINT, True, True, False),
        (signal.SIGTERM, False, False, False),
        (signal.SIGINT, True, False, True),
    ],
    ids=[
        "ctrl-c",
        "ctrl-c, SIGINT ignored as in a script's background job",
        "SIGTERM to gbsite",
        "ctrl-c, each block in a fresh interpreter",
    ],
)
def test_stops_during_a_block(
    project: Project,
    tmp_path: Path,
    fake_python: str,
    checks: list[Check],
    sig: signal.Signals,
    group: bool,
    ignored: bool,
    fresh: bool,
) -> None:
    pid_file = sleeper(project, tmp_path)
    before = files(project)
    args = ["--examples", "GB0025", "--python", fake_python, *(["--fresh"] if fresh else [])]
    check = Check(project, args, ignore_sigint=ignored)
    checks.append(check)
    check.wait_for(lambda: pid_file.exists() and bool(pid_file.read_text()))
    took = check.stop(sig, group=group)
    assert took < STOPS_WITHIN, took
    assert not alive(int(pid_file.read_text()))
    assert files(project) == before


@pytest.mark.parametrize("after", [0.0, 0.05, 0.15, 0.3])
def test_stops_between_quick_blocks(
    project: Project, fake_python: str, checks: list[Check], after: float
) -> None:
    """Many quick blocks queued: the signal lands while the server forks, reports or waits."""
    quick_blocks(project, 40)
    before = files(project)
    check = Check(project, ["--examples", "GB0025", "--python", fake_python, "--jobs", "2"])
    checks.append(check)
    check.wait_for(lambda: check.ok_lines() >= 1)
    time.sleep(after)
    assert check.proc.poll() is None, "all blocks ran before the signal: add more"
    assert check.stop() < STOPS_WITHIN
    assert 0 < check.ok_lines() < 40
    assert files(project) == before  # an interrupted run records none of its outcomes


@pytest.mark.parametrize("after", [0.0, 0.5, 2.0])
def test_stops_while_the_server_starts(
    project: Project, slow_server: str, checks: list[Check], after: float
) -> None:
    quick_blocks(project, 3)
    before = files(project)
    check = Check(project, ["--examples", "GB0025", "--python", slow_server])
    checks.append(check)
    check.wait_for(lambda: any(line.startswith("check --examples:") for line in check.lines))
    time.sleep(after)
    assert check.stop() < STOPS_WITHIN
    assert check.ok_lines() == 0
    assert files(project) == before


def test_keeps_what_an_earlier_run_recorded(
    project: Project, fake_python: str, checks: list[Check]
) -> None:
    """The outcomes a complete run merged stay; the interrupted run adds none."""
    quick_blocks(project, 40)
    first = Check(project, ["--examples", "GB0025", "--python", fake_python, "--jobs", "2"])
    checks.append(first)
    assert first.proc.wait(timeout=120) == 0, first.lines[-3:]
    merged = files(project)
    record = project.root / "docs" / "verified-examples.yaml"
    assert record.read_text().count("- id: GB0025") == 40  # the 40 fixes, recorded
    # Other code (another digest each): were it recorded, the record would change.
    quick_blocks(project, 40, first=100)
    edited = files(project)
    assert edited[0] == merged[0] and edited != merged
    again = Check(project, ["--examples", "GB0025", "--python", fake_python, "--jobs", "2"])
    checks.append(again)
    again.wait_for(lambda: again.ok_lines() >= 5)
    assert again.stop() < STOPS_WITHIN
    assert files(project) == edited
