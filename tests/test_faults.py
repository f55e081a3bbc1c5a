"""The fault suite: gbsite tried as an unlucky user and an attacker would (issue 18).

Every case runs the real command line in a child process and asserts what the user relies on:
it exits within a time limit, prints no traceback, and registry/ and docs/gb/ are byte for byte
as they were before or exactly as a complete run leaves them. Families: kill -9 at many points
of import, sync and build; a full disk; hostile input bytes; files that are not plain files.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import hostile_logs
from conftest import Project, copy_project, labels, make_project, page, snapshot
from gbsite.docs.files import END_MARKER

# Every case runs the command line in child processes (and many kill, fill or race them): seconds
# each, minutes in all. The full suite runs them; the fast lane does not (docs/development.md).
pytestmark = [pytest.mark.slow, pytest.mark.repo_data]

TIME_LIMIT = 60.0  # seconds any one command may take, on a loaded two-core machine


def gbsite(
    project: Project,
    *args: str,
    stdin: bytes | None = None,
    preexec: Callable[[], None] | None = None,
    limit: float = TIME_LIMIT,
) -> subprocess.CompletedProcess[str]:
    """Run the command line in a child process; it must finish in time and never trace back."""
    result = subprocess.run(
        [sys.executable, "-m", "gbsite", "--root", str(project.root), *args],
        input=stdin,
        capture_output=True,
        timeout=limit,
        preexec_fn=preexec,
        cwd=project.root,
    )
    out = subprocess.CompletedProcess(
        result.args,
        result.returncode,
        result.stdout.decode("utf-8", "replace"),
        result.stderr.decode("utf-8", "replace"),
    )
    assert "Traceback" not in out.stderr, out.stderr
    assert out.returncode >= 0, f"killed by signal {-out.returncode}: {out.stderr}"
    return out


def tree(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` with its bytes."""
    if not folder.is_dir():
        return {}
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def state(project: Project) -> tuple[dict[str, bytes], dict[str, bytes]]:
    return tree(project.registry), tree(project.docs)


def leftovers(project: Project) -> list[str]:
    """Staging folders beside registry/, docs/gb/ and site/."""
    return sorted(
        p.name
        for parent in (project.root, project.root / "docs")
        if parent.is_dir()
        for p in parent.iterdir()
        if p.name.startswith((".registry.", ".gb.", ".site."))
    )


def saved(project: Project) -> dict[Path, dict[str, bytes]]:
    return {folder: tree(folder) for folder in (project.registry, project.docs, project.site)}


def restore(project: Project, saved: dict[Path, dict[str, bytes]]) -> None:
    for folder, files in saved.items():
        shutil.rmtree(folder, ignore_errors=True)
        for rel, data in files.items():
            path = folder / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    for name in leftovers(project):
        parent = project.root / "docs" if name.startswith(".gb.") else project.root
        shutil.rmtree(parent / name, ignore_errors=True)


def new_release(project: Project) -> Path:
    """A snapshot after the newest in which every id's text changed: import rewrites every file.
    (A release far in the future: no real one can have been imported before it.)"""
    data = json.loads(gzip.decompress(snapshot(labels()[-1]).read_bytes()))
    for items in data.values():
        items[0]["Explanation"] += " (reworded)"
    return project.write_upstream("torch-99.0.0.json", data)


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Project:
    """The repository's project with docs; tests copy it (copying is cheaper than building)."""
    return make_project(tmp_path_factory.mktemp("base") / "proj", docs=True)


@pytest.fixture
def proj(base: Project, tmp_path: Path) -> Project:
    return copy_project(base, tmp_path / "proj")


# ---- kill -9 at many points ------------------------------------------------------------------


def start(project: Project, args: list[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "gbsite", "--root", str(project.root), *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def staging_window(proc: subprocess.Popen[bytes], parent: Path, watch: str) -> tuple[float, float]:
    """When a folder named `watch...` appeared in `parent` (seconds after now), and for how long
    one was there, while `proc` runs to its end."""
    t0 = time.monotonic()
    seen: list[float] = []
    while proc.poll() is None and time.monotonic() - t0 < TIME_LIMIT:
        if any(p.name.startswith(watch) for p in parent.iterdir()):
            seen.append(time.monotonic() - t0)
        time.sleep(0.001)
    proc.wait()
    return (seen[0], seen[-1] - seen[0]) if seen else (0.0, 0.0)


def killed_at(
    project: Project, args: list[str], parent: Path, watch: str, delay: float | None
) -> bool:
    """Start `gbsite ARGS`, wait until its staging folder (`watch...`) appears, then `delay`
    seconds more, and kill it with SIGKILL; with no delay, kill it as soon as the old copy
    (`watch` + "old-") appears, after the swap. True if a staging folder was there when it
    died."""
    proc = start(project, args)
    deadline = time.monotonic() + TIME_LIMIT
    prefix = watch if delay is not None else watch + "old-"
    while proc.poll() is None and time.monotonic() < deadline:
        if any(p.name.startswith(prefix) for p in parent.iterdir()):
            break
        time.sleep(0.001)
    time.sleep(delay or 0)
    staged = any(p.name.startswith(watch) for p in parent.iterdir())
    with contextlib.suppress(ProcessLookupError):  # it may have finished: then it is "new"
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    return staged


def kill_at_many_points(
    project: Project,
    args: list[str],
    rounds: int,
    watch: str,
    snapshot: Callable[[Project], object] = state,
) -> dict[str, int]:
    """Run `gbsite ARGS` `rounds` times, each killed with SIGKILL at a different moment from the
    appearance of its staging folder (named `watch...`) to after its swap, and check after each
    kill that the files (`snapshot`) are old or complete-new, and that the next run removes what
    the killed one left and finishes the job."""
    parent = project.root / "docs" if watch == ".gb." else project.root
    before, files = snapshot(project), saved(project)
    full = start(project, args)
    appeared, window = staging_window(full, parent, watch)
    assert full.returncode == 0
    after = snapshot(project)
    assert after != before
    assert leftovers(project) == []
    outcomes = {"old": 0, "new": 0, "mid-write": 0}
    for n in range(rounds):
        restore(project, files)
        # From the staging folder's appearance to a little after it went: writes, swap, cleanup.
        # The last round waits for the swap: killed while removing the old copy, or just after.
        delay = (window * 1.2 + 0.02) * n / (rounds - 2) if n < rounds - 1 else None
        staged = killed_at(project, args, parent, watch, delay)
        now = snapshot(project)
        assert now in (before, after), f"round {n}: a mix of old and new files"
        outcomes["old" if now == before else "new"] += 1
        outcomes["mid-write"] += staged
        again = gbsite(project, *args)
        assert again.returncode == 0, again.stderr
        assert leftovers(project) == []
        assert snapshot(project) == after
    print(f"{' '.join(args[:1])}: staging after {appeared:.2f} s for {window:.2f} s; {outcomes}")
    return outcomes


@pytest.mark.slow
def test_kill_during_import(proj: Project) -> None:
    source = new_release(proj)
    outcomes = kill_at_many_points(proj, ["import", str(source)], rounds=6, watch=".registry.")
    assert outcomes["mid-write"] >= 2, outcomes  # the kills did land among the writes
    assert outcomes["new"] >= 1, outcomes


@pytest.mark.slow
def test_kill_during_sync(proj: Project) -> None:
    config = proj.root / "gbsite.toml"
    # A changed site URL changes the generated part of every file: sync rewrites all of them.
    config.write_text(config.read_text().replace("meta-pytorch.github.io", "example.org"))
    outcomes = kill_at_many_points(proj, ["sync"], rounds=6, watch=".gb.")
    assert outcomes["mid-write"] >= 2, outcomes
    assert outcomes["new"] >= 1, outcomes


def site(project: Project) -> dict[str, bytes]:
    return tree(project.site)


@pytest.mark.slow
def test_kill_during_build(proj: Project) -> None:
    assert gbsite(proj, "build").returncode == 0
    path = proj.docs / "gb0025.md"
    path.write_text(
        path.read_text().replace(
            "<!-- ADDITIONAL INFORMATION END", "New.\n<!-- ADDITIONAL INFORMATION END"
        )
    )
    outcomes = kill_at_many_points(proj, ["build"], rounds=4, watch=".site.", snapshot=site)
    assert outcomes["mid-write"] >= 2, outcomes


def test_build_removes_what_a_build_killed_after_its_swap_left(proj: Project) -> None:
    assert gbsite(proj, "build").returncode == 0
    old = proj.root / f".site.old-{2**22 + 1}"  # what a build killed right after its swap leaves
    shutil.copytree(proj.site, old)
    result = gbsite(proj, "build")
    assert result.returncode == 0 and "nothing changed" in result.stdout
    assert leftovers(proj) == []


def test_concurrent_builds_take_turns(proj: Project) -> None:
    assert gbsite(proj, "build").returncode == 0
    complete = site(proj)
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "gbsite", "--root", str(proj.root), "build", "--force"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(3)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=TIME_LIMIT)
        assert proc.returncode == 0, err.decode()
        assert b"Traceback" not in err
    assert site(proj) == complete
    assert leftovers(proj) == []


# ---- a full disk -----------------------------------------------------------------------------


def file_size_limit(limit: int) -> Callable[[], None]:
    """In the child: files may not grow past `limit` bytes, and a write past it fails with
    EFBIG (File too large) instead of killing the process, as a full disk's ENOSPC would."""

    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

    return apply


@pytest.mark.parametrize("limit", [0, 1500])
def test_disk_full_during_import_and_sync(proj: Project, limit: int) -> None:
    source = new_release(proj)
    before = state(proj)
    result = gbsite(proj, "import", str(source), preexec=file_size_limit(limit))
    assert result.returncode == 2
    assert result.stderr.startswith("gbsite: ") and len(result.stderr.splitlines()) == 1
    assert "File too large" in result.stderr
    assert state(proj) == before and leftovers(proj) == []

    assert gbsite(proj, "import", str(source)).returncode == 0
    before = state(proj)
    result = gbsite(proj, "sync", preexec=file_size_limit(limit))
    assert result.returncode == 2 and "File too large" in result.stderr
    assert state(proj) == before and leftovers(proj) == []


def test_disk_full_during_build(proj: Project) -> None:
    assert gbsite(proj, "build").returncode == 0
    path = proj.docs / "gb0025.md"
    path.write_text(path.read_text().replace(END_MARKER, "More.\n" + END_MARKER))
    before = site(proj)
    result = gbsite(proj, "build", preexec=file_size_limit(2000))
    assert result.returncode == 2 and "File too large" in result.stderr
    assert len(result.stderr.splitlines()) == 1
    assert site(proj) == before and leftovers(proj) == []


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A tmpfs (needs root and permission to mount; skipped otherwise), made small by
    `leave_room` once a test has put its files there."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(mount)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def leave_room(mount: Path, room: int) -> None:
    """Shrink the tmpfs at `mount` to what its files use and `room` bytes more: sized from what
    is there, so a registry that grows with each release still fits and the room stays small."""
    disk = os.statvfs(mount)
    used = (disk.f_blocks - disk.f_bfree) * disk.f_frsize
    size = f"size={(used + room) // 1024}k"
    done = subprocess.run(["mount", "-o", f"remount,{size}", str(mount)], capture_output=True)
    assert done.returncode == 0, done.stderr
    assert os.statvfs(mount).f_bavail * os.statvfs(mount).f_frsize <= room


def test_import_onto_a_full_tmpfs(base: Project, small_disk: Path) -> None:
    proj = Project(small_disk / "proj")
    proj.root.mkdir()
    shutil.copy(base.root / "gbsite.toml", proj.root)
    shutil.copytree(base.registry, proj.registry)
    # Room for a few files: the import rewrites every one of the registry's ~600.
    leave_room(small_disk, 64 * 1024)
    source = new_release(base)
    before = state(proj)
    result = gbsite(proj, "import", str(source))
    assert result.returncode == 2
    assert "No space left on device" in result.stderr and len(result.stderr.splitlines()) == 1
    assert state(proj) == before and leftovers(proj) == []
    source.unlink()


# ---- hostile input: one line, no traceback, nothing written ----------------------------------


def one_line_error(result: subprocess.CompletedProcess[str], *expected: str) -> None:
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    for text in expected:
        assert text in lines[0], result.stderr


def bomb_yaml() -> str:
    lines = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for n in range(9):
        lines.append(f"b{n}: &b{n} [" + ", ".join([f"*{'a' if n == 0 else f'b{n - 1}'}"] * 9) + "]")
    return "\n".join(lines) + "\n"


YAML_CASES = {
    "complex key": ("? [a, b]\n: 1\n", "a key must be a plain value"),
    "5,000-digit integer": ("id: GB0001\nadded: " + "7" * 5000 + "\n", "too long"),
    "50,000 brackets deep": ("[" * 50_000 + "]" * 50_000, "nested more than 100 levels"),
    "50,000 dashes deep": ("- " * 50_000 + "x\n", "nested more than 100 levels"),
    "alias bomb": (bomb_yaml(), "aliases"),
    "lone surrogate escape": ('id: "\\udc80"\n', "invalid YAML"),
    "NUL byte": ("id: GB0001\x00\n", "invalid YAML"),
}


@pytest.mark.parametrize("case", YAML_CASES, ids=list(YAML_CASES))
def test_hostile_registry_yaml(base: Project, case: str) -> None:
    text, message = YAML_CASES[case]
    path = base.registry / "gb" / "GB0001.yaml"
    original = path.read_bytes()
    path.write_text(text)
    try:
        before = state(base)
        result = gbsite(base, "check")
        one_line_error(result, "GB0001.yaml:", message)
        assert state(base) == before
    finally:
        path.write_bytes(original)


def upstream_bytes() -> bytes:
    return gzip.decompress(snapshot("2.15.0").read_bytes())


def corrupt_wheel() -> bytes:
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as wheel:
        wheel.writestr("torch/_dynamo/graph_break_registry.json", upstream_bytes())
    data = bytearray(buffer.getvalue())
    for i in range(200, 400):  # inside the compressed member
        data[i] ^= 0x5A
    return bytes(data)


def big_wheel() -> bytes:
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as wheel:
        wheel.writestr("torch/_dynamo/graph_break_registry.json", b" " * (3 * 1024 * 1024))
    return buffer.getvalue()


IMPORT_CASES: dict[str, tuple[str, Callable[[], bytes], list[str], str]] = {
    "5,000-digit integer": (
        "r.json",
        lambda: b'{"GB0001": [{"Gb_type": ' + b"9" * 5000 + b"}]}",
        [],
        "invalid JSON: Exceeds the limit",
    ),
    "corrupt gzip": (  # a gzip header, then a deflate block of an invalid type: zlib.error
        "r.json.gz",
        lambda: b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + b"\xff" * 200,
        [],
        "corrupt gzip file: Error -3",
    ),
    "truncated gzip": (
        "r.json.gz",
        lambda: snapshot("2.15.0").read_bytes()[:5000],
        [],
        "ends before its data does",
    ),
    "gzip bomb": (
        "r.json.gz",
        lambda: gzip.compress(b"\0" * (80 * 1024 * 1024), 1),
        [],
        "expands to more than 64 MB",
    ),
    "corrupt wheel member": ("torch-9.0.0-x.whl", corrupt_wheel, [], "not a valid wheel"),
    "wheel member over --max-json": (
        "torch-9.0.0-x.whl",
        big_wheel,
        ["--max-json", "1"],
        "more than 1 MB",
    ),
    "duplicate ids": (
        "r.json",
        lambda: b'{"GB0001": [],\n"GB0001": []}',
        [],
        "GB0001 appears twice (lines 1, 2)",
    ),
}


@pytest.mark.parametrize("case", IMPORT_CASES, ids=list(IMPORT_CASES))
def test_hostile_import_source(base: Project, tmp_path: Path, case: str) -> None:
    name, make, options, message = IMPORT_CASES[case]
    source = tmp_path / name
    source.write_bytes(make())
    before = state(base)
    result = gbsite(base, "import", str(source), "--label", "9.0.0", *options)
    one_line_error(result, message)
    assert state(base) == before and leftovers(base) == []


def test_import_from_a_fifo_does_not_hang(base: Project, tmp_path: Path) -> None:
    fifo = tmp_path / "registry.json"
    os.mkfifo(fifo)
    result = gbsite(base, "import", str(fifo), "--label", "9.0.0", limit=20)
    one_line_error(result, "not a regular file")


class Server:
    """An HTTP server on localhost whose one page misbehaves as `kind` says."""

    def __init__(self, kind: str) -> None:
        import http.server
        import threading

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                self.send_response(200)
                if kind == "truncated":  # says 100,000 bytes, sends 1,000, hangs up
                    self.send_header("Content-Length", "100000")
                    self.end_headers()
                    self.wfile.write(b"{" * 1000)
                elif kind == "huge":  # says nothing, sends 3 MB
                    self.end_headers()
                    for _ in range(12):
                        self.wfile.write(b" " * 256 * 1024)
                elif kind == "slow":  # a byte now and then, for 12 s
                    self.end_headers()
                    for _ in range(60):
                        self.wfile.write(b" ")
                        self.wfile.flush()
                        time.sleep(0.2)
                self.close_connection = True

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/graph_break_registry.json"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.mark.parametrize(
    ("kind", "options", "message"),
    [
        ("truncated", [], "the connection closed after"),
        ("huge", ["--max-download", "1"], "larger than 1 MB"),
        ("slow", ["--download-timeout", "1"], "not finished after 1 s"),
    ],
)
def test_bad_download(base: Project, kind: str, options: list[str], message: str) -> None:
    server = Server(kind)
    try:
        before = state(base)
        started = time.monotonic()
        result = gbsite(base, "import", server.url, "--label", "9.0.0", *options, limit=30)
        one_line_error(result, message)
        assert time.monotonic() - started < 10  # the slow server takes 12 s to send its file
        assert state(base) == before
    finally:
        server.close()


TEMPLATE_CASES = {
    "division by zero": ("{{ 1/0 }}", "template error: ZeroDivisionError"),
    "loop over a number": ("{% for x in 5 %}{% endfor %}", "template error:"),
    "missing key": ("{{ {}['a'] }}", "template error:"),
}


@pytest.mark.parametrize("case", TEMPLATE_CASES, ids=list(TEMPLATE_CASES))
def test_template_that_raises(proj: Project, case: str) -> None:
    code, message = TEMPLATE_CASES[case]
    path = proj.root / "templates" / "index.html.j2"
    lines = path.read_text().split("\n")
    n = next(i for i, line in enumerate(lines) if "<h1" in line or "<main" in line)
    lines[n] = code + lines[n]
    path.write_text("\n".join(lines))
    result = gbsite(proj, "build")
    one_line_error(result, f"index.html.j2:{n + 1}: {message}")
    assert not proj.site.exists()


def test_lookup_of_a_long_log_without_graph_breaks(base: Project, tmp_path: Path) -> None:
    rng = __import__("random").Random(18)
    words = [
        "epoch",
        "step",
        "loss",
        "lr",
        "batch",
        "tensor",
        "grad",
        "norm",
        "warmup",
        "checkpoint",
        "saved",
        "train",
    ]
    log = "\n".join(
        f"epoch {rng.randint(0, 99)} step {rng.randint(0, 99999)} loss={rng.random():.4f} "
        + " ".join(rng.choices(words, k=8))
        for _ in range(5200)
    )
    assert len(log) > 400_000
    started = time.monotonic()
    result = gbsite(base, "lookup", stdin=log.encode())
    assert result.returncode == 1 and "no graph break matches" in result.stderr
    started = time.monotonic()
    result = gbsite(base, "lookup", stdin=rng.randbytes(400_000))
    assert result.returncode == 1
    assert time.monotonic() - started < 20  # it took 27 s before, on a quiet machine


def test_lookup_input_is_cut(base: Project) -> None:
    result = gbsite(base, "lookup", "/dev/zero", "--max-bytes", "0.5", limit=20)
    assert "only the first 0.5 MB of the input were read" in result.stderr
    assert result.returncode == 1


# Well past the time budget of a lookup (rules.SECONDS), for a loaded machine. With the code
# before issue 35's fixes (d23ead9) these took 41 s (the 1.9 KB log), over 60 s (the headers
# and the Explanation lines) and 49 s (the 1 MB word) on the loaded two-core test machine.
HOSTILE_LIMIT = 8.0


@pytest.fixture(scope="module")
def built(base: Project, tmp_path_factory: pytest.TempPathFactory) -> Project:
    """The project with its site built: lookup reads the search index, as users' do."""
    project = copy_project(base, tmp_path_factory.mktemp("built") / "proj")
    assert gbsite(project, "build").returncode == 0
    return project


@pytest.mark.parametrize("case", hostile_logs.CASES, ids=range(len(hostile_logs.CASES)))
def test_lookup_of_a_hostile_log_is_bounded(built: Project, case: str) -> None:
    """Issue 35: each finishes in time (found in one pass, pre-filtered, no backtracking), and
    what lookup says is one line per note, no traceback."""
    text = hostile_logs.CASES[case]()
    started = time.monotonic()
    result = gbsite(built, "lookup", stdin=text.encode())
    took = time.monotonic() - started
    assert result.returncode in (0, 1), result.stderr
    assert took < HOSTILE_LIMIT, (case, took, result.stderr)


# ---- files that are not plain files ----------------------------------------------------------

SECRET = "secret outside the project: 8d5e1f"


def plant(project: Project, where: str, kind: str, outside: Path) -> Path:
    """Put a named pipe, a link to /dev/zero, or a link to a file outside the project at
    `where` (a path in the project)."""
    path = project.root / where
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    else:
        secret = outside / "secret.txt"
        secret.write_text(SECRET)
        path.symlink_to(secret)
    return path


SPECIAL_PLACES = {
    "docs file": "docs/gb/gb0001.md",
    "registry file": "registry/gb/GB0001.yaml",
    "template": "templates/index.html.j2",
    "asset": "templates/assets/notes.txt",
    "unknown docs file": "docs/gb/notes.md",
}


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "outside"])
@pytest.mark.parametrize("place", SPECIAL_PLACES, ids=list(SPECIAL_PLACES))
def test_files_that_are_not_plain_files(
    base: Project, tmp_path: Path, place: str, kind: str
) -> None:
    path = base.root / SPECIAL_PLACES[place]
    original = path.read_bytes() if path.exists() else None
    plant(base, SPECIAL_PLACES[place], kind, tmp_path)
    try:
        for command in ("build", "check"):
            result = gbsite(base, command, limit=30)
            assert result.returncode == 2, (command, result.stdout, result.stderr)
            assert SPECIAL_PLACES[place].rsplit("/", 1)[-1] in result.stderr
            assert ("outside the project" if kind == "outside" else "") in result.stderr
        assert not base.site.exists() or SECRET not in str(tree(base.site))
    finally:
        path.unlink()
        if original is not None:
            path.write_bytes(original)


# ---- serve: who may ask, and a rebuild loop that never dies ----------------------------------


@pytest.mark.slow
def test_serve_refuses_foreign_hosts_and_follows_swapped_folders(tmp_path: Path) -> None:
    import http.client

    from test_serve import Server, edit_block

    server = Server(make_project(tmp_path / "proj", docs=True))
    try:
        port = int(server.url.rstrip("/").rsplit(":", 1)[1])

        def status(host: str) -> int:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            conn.request("GET", "/index.html", headers={"Host": host})
            code = conn.getresponse().status
            conn.close()
            return code

        assert status(f"127.0.0.1:{port}") == 200
        assert status(f"localhost:{port}") == 200
        assert status(f"[::1]:{port}") == 200
        for foreign in (f"evil.example:{port}", "evil.example", "127.0.0.1.evil.example", ""):
            assert status(foreign) == 403, foreign

        # `gbsite sync` swaps a new docs/gb/ in: the server must watch the new folder.
        config = server.project.root / "gbsite.toml"
        config.write_text(config.read_text().replace("meta-pytorch.github.io", "example.org"))
        assert gbsite(server.project, "sync").returncode == 0
        edit_block(server.project, "GB0025", "Written after the sync.")
        server.wait_for(lambda: "Written after the sync." in server.get("gb/gb0025.html")[1], 60)
    finally:
        server.stop()


def test_rebuild_survives_an_unexpected_error(
    proj: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gbsite import config
    from gbsite.serve import DevServer
    from gbsite.site import build

    logged: list[str] = []
    server = DevServer(config.load(proj.root), "127.0.0.1", 0, log=logged.append)
    try:
        original = build.build
        calls = 0

        def broken(*args: object, **kwargs: object) -> object:
            nonlocal calls
            calls += 1
            if calls == 2:
                raise RuntimeError("a bug")
            return original(*args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(build, "build", broken)
        server.rebuild()
        assert server.state.snapshot.number == 1
        server.rebuild()  # the bug: shown, the last good site kept
        assert server.state.snapshot.number == 1
        error = server.state.snapshot.error or ""
        assert "internal error (RuntimeError: a bug)" in error and "Traceback" not in error
        assert any("internal error" in line for line in logged)
        server.rebuild()  # the next save builds again
        assert server.state.snapshot.number == 2 and server.state.snapshot.error is None
    finally:
        server.httpd.server_close()


def test_a_moved_project_is_still_up_to_date(proj: Project, tmp_path: Path) -> None:
    assert gbsite(proj, "build").returncode == 0
    marker = (proj.site / ".gbsite-output").read_text()
    assert str(proj.root) not in marker and str(tmp_path) not in marker
    moved = Project(tmp_path / "moved")
    proj.root.rename(moved.root)
    result = gbsite(moved, "build")
    assert result.returncode == 0 and "nothing changed" in result.stdout


def test_github_annotations_cannot_be_injected(proj: Project) -> None:
    # File names are the one thing in an annotation a pull request controls besides messages.
    hostile = proj.docs / "x,line=1::warning::pwned\n::add-mask::secret.md"
    hostile.write_text("not a docs file")
    (proj.docs / "%0A::error::evil.md").write_text("not a docs file")
    result = gbsite(proj, "check", "--format", "github")
    lines = result.stdout.splitlines()
    annotations = [line for line in lines if line.startswith("::")]
    assert len(annotations) == 2 and len(lines) == 3, result.stdout
    for line in annotations:
        command, _, message = line[2:].partition("::")
        name, _, properties = command.partition(" ")
        assert name == "error" and "::" not in message
        assert [p.split("=")[0] for p in properties.split(",")] == ["file"]
    assert "%0A%3A%3Aadd-mask%3A%3Asecret.md" in result.stdout
    assert "%250A%3A%3Aerror%3A%3Aevil.md" in result.stdout


def test_contributor_ids_never_equal_the_layouts(proj: Project) -> None:
    page(
        proj,
        "GB0025",
        """
        ## Main

        <div id="search-input">raw</div> <a name="explanation">x</a> see [the top](#main)
        """,
    )
    assert gbsite(proj, "build").returncode == 0
    html = (proj.site / "gb" / "gb0025.html").read_text()
    ids = re.findall(r'\bid="([^"]+)"', html)
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    assert 'id="user-content-main"' in html and 'href="#user-content-main"' in html
    assert 'id="user-content-search-input"' in html and 'name="user-content-explanation"' in html


def test_an_internal_error_is_one_line_and_traceback_shows_it(
    base: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    from conftest import run_cli
    from gbsite import cli, registry_commands

    def boom(cfg: object, args: object) -> int:
        raise RuntimeError("boom\nsecond line")

    monkeypatch.setattr(registry_commands, "export_json", boom)
    result = run_cli("--root", str(base.root), "export-json")
    assert result.code == cli.EXIT_BUG
    assert result.err.count("\n") == 1 and "Traceback" not in result.err
    assert "internal error (RuntimeError: boom second line)" in result.err
    assert "--traceback" in result.err
    with pytest.raises(RuntimeError, match="boom"):
        run_cli("--traceback", "--root", str(base.root), "export-json")


def test_a_huge_docs_block_is_refused_not_rendered(base: Project) -> None:
    # A 10 MB block took 190 s to check; one of code took 37 s and 2.3 GB to build.
    path = base.docs / "gb0001.md"
    original = path.read_bytes()
    code = "```python\n" + "def f(x):\n    return x + 1  # GB0002\n" * 40 + "```\n\n"
    path.write_text(page_text := original.decode().replace(END_MARKER, code * 2000 + END_MARKER))
    assert len(page_text) > 2 * 1024 * 1024
    try:
        one_line_error(gbsite(base, "build", limit=30), "gb0001.md:", "more than the 1 MB")
        checked = gbsite(base, "check", limit=30)  # check reports it among the problems
        assert checked.returncode == 1 and "MB, more than the 1 MB a docs file" in checked.stdout
    finally:
        path.write_bytes(original)
