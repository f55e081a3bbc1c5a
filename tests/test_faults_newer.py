"""The second fault suite (issue 35): the surfaces added after the first one (test_faults.py).

The record of outcomes, output that quotes what gbsite read, contributor HTML, the processes
examples start, and the validation of releases and status blocks. Each case runs the command
line in a child process (test_faults.gbsite: within a time limit, never a traceback) and checks
what the user relies on: one line and exit 2 for bad input, the record and docs/gb/ as they
were, no process left running, nothing in the site loaded from another host.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

from conftest import Project, fake_torch, interruptible, page
from gbsite.docs.files import END_MARKER
from gbsite.docs.markdown import loads_elsewhere
from gbsite.examples import annotations as examples
from gbsite.examples import runner
from test_faults import gbsite, one_line_error, tree

# As in test_faults.py: every case runs the command line in child processes, seconds each.
pytestmark = [pytest.mark.slow, pytest.mark.repo_data]

RECORD = "docs/verified-examples.yaml"


@pytest.fixture(scope="module")
def fake_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    return fake_torch(tmp_path_factory.mktemp("faketorch"))[0]


def files(project: Project) -> tuple[bytes, dict[str, bytes]]:
    return (project.root / RECORD).read_bytes(), tree(project.docs)


# ---- the record: a guarded input, a shared file ----------------------------------------------

# (a pattern of the first row, what replaces it, what the one-line error says)
KIND, SHA, OUTCOMES = r"  kind: gb-\w+", r"  sha256: [0-9a-f]{64}", r"  outcomes:\n(?:    .*\n)+"
RELEASE = r"    [0-9]+\.[0-9]+\.[0-9]+:"
HOSTILE_ROWS = {
    "line: abc": (KIND, r"\g<0>\n  line: abc", "line is a line number"),
    "a list for an id": (r"- id: GB[0-9]{4}", "- id: [a, b]", "id is not an id"),
    "1.0e+400 for a digest": (SHA, "  sha256: 1.0e+400", "sha256 is not a sha256"),
    "a list of outcomes": (OUTCOMES, "  outcomes: [breaks]\n", "outcomes is a mapping"),
    "5,000-digit line": (KIND, r"\g<0>\n  line: " + "9" * 5000, "too long"),
    "unknown kind": (KIND, "  kind: gb-fixed", "kind is gb-repro, gb-fix or gb-wrong"),
    "a newline and a workflow command": (
        KIND,
        '  kind: "gb-repro\\n::error file=README.md,line=1::forged"',
        "kind is gb-repro, gb-fix or gb-wrong",
    ),
    "a release in other digits": (RELEASE, "    2.\u0661\u0663.0:", "is not a release"),
    "1.0e+400 for a release": (RELEASE, "    1.0e+400:", "'inf' is not a release"),
    "an unknown key": (KIND, r"\g<0>\n  note: hi", "unknown key 'note'"),
}


@pytest.mark.parametrize("case", HOSTILE_ROWS, ids=list(HOSTILE_ROWS))
def test_a_hostile_record_is_one_line(project: Project, case: str) -> None:
    path = project.root / RECORD
    pattern, replacement, message = HOSTILE_ROWS[case]
    text, n = re.subn(pattern, replacement, path.read_text(), count=1)
    assert n == 1
    path.write_text(text)
    before = files(project)
    for fmt in ("text", "github"):
        result = gbsite(project, "check", "--record", "--format", fmt, limit=30)
        one_line_error(result, message)
        where = "::error file=docs/verified-examples.yaml,line=" if fmt == "github" else ""
        assert result.stderr.startswith(where or "docs/verified-examples.yaml:"), result.stderr
        assert "::error file=README.md" not in result.stdout + result.stderr
    one_line_error(gbsite(project, "build", limit=30), message)
    assert files(project) == before and not project.site.exists()


def test_the_record_size_limit_has_a_setting(project: Project) -> None:
    path = project.root / RECORD
    path.write_text(path.read_text() + "#" * 2 * 2**20)
    before = files(project)
    os.environ["GBSITE_MAX_RECORD_MB"] = "1"
    try:
        one_line_error(gbsite(project, "check", "--record"), "larger than 1 MB")
    finally:
        del os.environ["GBSITE_MAX_RECORD_MB"]
    assert gbsite(project, "check", "--record").returncode in (0, 1)
    assert files(project) == before


def test_a_killed_writes_leftover_is_removed_by_the_next_run(
    project: Project, fake_python: str
) -> None:
    leftover = project.root / "docs" / ".verified-examples.yaml.k1ll3d.tmp"
    leftover.write_text("half a record")
    page(project, "GB0025", "```python gb-fix\ndef fn():\n    return 1\nfn()\nfn()\n```\n")
    result = gbsite(project, "check", "--examples", "GB0025", "--python", fake_python)
    assert result.returncode == 0, result.stdout + result.stderr
    assert not leftover.exists()


def test_two_runs_at_once_both_keep_their_outcomes(project: Project, fake_python: str) -> None:
    """Two `check --examples` on different pages, overlapping: each reads the record at its
    start and stores at its end; neither may drop the other's outcomes."""
    slow = "import time\ndef fn(x):\n    return x + 1\ntime.sleep({s})\nfn(1)\nfn(2)\n"
    for gb_id, seconds in (("GB0025", 3), ("GB0003", 1)):
        page(project, gb_id, f"```python gb-fix\n{slow.format(s=seconds)}```\n")
    argv = [sys.executable, "-m", "gbsite", "--root", str(project.root), "check", "--examples"]
    procs = [
        subprocess.Popen([*argv, gb_id, "--python", fake_python], stdout=subprocess.PIPE, text=True)
        for gb_id in ("GB0025", "GB0003")
    ]
    for proc in procs:
        out, _ = proc.communicate(timeout=120)
        assert proc.returncode == 0, out
    # Both blocks have their outcome: a run of only what has none runs nothing.
    again = gbsite(
        project, "check", "--examples", "GB0025", "GB0003", "--changed", "--python", fake_python
    )
    assert again.returncode == 0, again.stdout + again.stderr
    assert "check --examples: 0 blocks" in again.stdout, again.stdout


# ---- every line through the formatter ----------------------------------------------------------


def test_no_value_starts_a_line_of_its_own(project: Project, fake_python: str) -> None:
    # A status field with a line break, and a block whose exception type's name has one.
    page(
        project,
        "GB0025",
        '```yaml gb-status\nstatus: internal\nreason: "r"\nsource: torch/x.py\n'
        'function: "f\\n::error file=README.md::forged\\rnext"\n```\n',
    )
    result = gbsite(project, "check")
    assert result.returncode == 1
    [line] = [ln for ln in result.stdout.splitlines() if "gb0025.md" in ln]
    assert "::error file=README.md" in line and not line.startswith("::")
    github = gbsite(project, "check", "--format", "github")
    assert not re.search(r"^::error file=README", github.stdout, re.M)

    page(
        project,
        "GB0025",
        "```python gb-fix\nclass E(Exception):\n    pass\n"
        "E.__qualname__ = 'E\\n::error file=README.md::forged'\n"
        "def fn():\n    raise E('x\\n::error file=README.md::again')\nfn()\n```\n",
    )
    args = ("check", "--examples", "GB0025", "--python", fake_python)
    for fmt in ("text", "github"):
        result = gbsite(project, *args, "--format", fmt)
        assert result.returncode == 1
        assert not re.search(r"^\s*::error file=README", result.stdout + result.stderr, re.M)
        assert not re.search(r"^::(?!error file=docs/gb/gb0025\.md)", result.stdout, re.M)


def test_a_yaml_error_with_a_control_character_is_one_line(project: Project) -> None:
    path = project.registry / "gb" / "GB0001.yaml"
    path.write_text(path.read_text() + 'x: "\u0085\u2028\x1b[2J"\nbad: [\n')
    one_line_error(gbsite(project, "check"), "GB0001.yaml:")


# ---- nothing loaded from another host ----------------------------------------------------------

ELSEWHERE = [
    "\\\\evil.example/a.png",
    " //evil.example/b.png",
    "/\\evil.example/c.png",
    "\t//evil.example/d.png",
    "/\t/evil.example/e.png",
    "&#92;&#92;evil.example/f.png",
    "&#x0a;//evil.example/g.png",
    "java\nscript:alert(1)",
    "data:image/png;base64,AAAA",
]


def test_contributor_html_loads_nothing_from_elsewhere(project: Project) -> None:
    tags = "\n".join(f'<img src="{src}" alt="n{i}">' for i, src in enumerate(ELSEWHERE))
    extra = (
        '<img srcset="//evil.example/s.png 1x"> <video src="//evil.example/v.mp4" '
        'poster="//evil.example/p.png"></video> <audio src="//evil.example/a.ogg"></audio> '
        '<object data="//evil.example/o"></object> <link rel="stylesheet" '
        'href="//evil.example/l.css"> <p style="background:url(//evil.example/u.png)">s</p> '
        '<picture><source srcset="//evil.example/q.png"></picture> <img src="own.png" alt="ok">'
    )
    markdown = "\n".join(f"![m{i}]({src.strip()})" for i, src in enumerate(ELSEWHERE[:3]))
    page(project, "GB0025", f"{tags}\n\n{extra}\n\n{markdown}\n")
    assert gbsite(project, "build").returncode == 0
    html = (project.site / "gb" / "gb0025.html").read_text()
    assert "evil.example/a.png" in html  # the Markdown image became a link, not a load
    loads = re.findall(r"\b(?:src|srcset|poster|data)\s*=\s*\"([^\"]*)\"", html)
    loads += re.findall(r"url\(([^)]*)\)", html)
    loads += re.findall(r"<link\b[^>]*href=\"([^\"]*)\"", html)
    assert "own.png" in loads
    assert [u for u in loads if loads_elsewhere(u.replace("&amp;", "&"))] == []
    # Resolved as a browser would from the page's address: the site's own host, every one.
    base = "https://site.example/gb/gb0025.html"
    hosts = {urljoin(base, re.sub(r"[\t\n\r]", "", u).strip().replace("\\", "/")) for u in loads}
    assert {urlsplit(u).netloc for u in hosts} == {"site.example"}, hosts


def test_deeply_nested_html_is_refused_fast(project: Project) -> None:
    path = project.docs / "gb0001.md"
    text = path.read_text()
    line = text[: text.index(END_MARKER)].count("\n") + 3  # after "Deep:" and a blank line
    path.write_text(text.replace(END_MARKER, "Deep:\n\n" + "<div>" * 150_000 + "\n" + END_MARKER))
    assert path.stat().st_size < 1024 * 1024
    before = files(project)
    started = time.monotonic()
    one_line_error(gbsite(project, "build", limit=30), f"gb0001.md:{line}:", "nested more than")
    assert time.monotonic() - started < 15  # it ran for minutes before
    assert gbsite(project, "check", limit=30).returncode == 1
    assert files(project) == before and not project.site.exists()


# ---- the examples' processes ---------------------------------------------------------------------


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (not reaped yet by whoever its parent is now) runs nothing.
    stat = Path(f"/proc/{pid}/stat")
    return not stat.exists() or stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"


def spawner(pid_file: Path, *, session: bool, then: str = "fn()\nfn()\n") -> str:
    """A fix that starts `sleep 300` (in a session of its own, a daemon, or as a plain
    background child), writes its pid, then does `then`."""
    return (
        "import os, subprocess\n"
        "def fn():\n    return 1\n"
        "p = subprocess.Popen(['sleep', '300'], start_new_session="
        f"{session})\nopen({str(pid_file)!r}, 'w').write(str(p.pid))\n" + then
    )


def block(code: str) -> examples.Block:
    return examples.Block("GB0025", Path("x.md"), 1, "gb-fix", code, "fn", "eager")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="subreapers are Linux's")
@pytest.mark.parametrize("fresh", [False, True], ids=["forked", "fresh"])
def test_what_a_block_starts_dies_with_it(tmp_path: Path, fake_python: str, fresh: bool) -> None:
    pids = {name: tmp_path / f"{name}.pid" for name in ("daemon", "child", "abrupt", "timeout")}
    codes = {
        "daemon": spawner(pids["daemon"], session=True),
        "child": spawner(pids["child"], session=False),
        "abrupt": spawner(pids["abrupt"], session=True, then="os._exit(0)\n"),
        "timeout": spawner(pids["timeout"], session=True, then="import time\ntime.sleep(60)\n"),
        # writes what the runner once read as its result, and leaves without reporting
        "forged result": "import json, os\ndef fn():\n    return 1\nfn()\n"
        "open('result.json', 'w').write(json.dumps({'status': 'completed', 'bound': True, "
        "'graphs': 1}))\nos._exit(0)\n",
    }
    if not fresh:  # (a fresh interpreter's parent is gbsite itself)
        codes["kills the server"] = (
            "import os, signal\ndef fn():\n    return 1\n"
            "os.kill(os.getppid(), signal.SIGKILL)\nfn()\n"
        )
    codes["fine"] = "def fn():\n    return 1\nfn()\nfn()\n"
    started = time.monotonic()
    results = runner.run_all([block(c) for c in codes.values()], fake_python, 2, 5, fresh=fresh)
    assert time.monotonic() - started < 60
    got = {name: (r.passed, r.summary) for name, r in zip(codes, results, strict=True)}
    assert got["daemon"][0] and got["child"][0] and got["fine"][0], got
    assert not got["abrupt"][0] and not got["forged result"][0], got
    assert "died" in got["forged result"][1]
    assert "within 5 s" in got["timeout"][1]
    if not fresh:
        assert "killed" in got["kills the server"][1], got
    for name, pid_file in pids.items():
        pid = int(pid_file.read_text())
        assert not alive(pid), f"{name}: pid {pid} still running"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="subreapers are Linux's")
def test_ctrl_c_stops_the_examples(project: Project, tmp_path: Path, fake_python: str) -> None:
    pid_file = tmp_path / "sleeper.pid"
    code = spawner(pid_file, session=True, then="import time\ntime.sleep(120)\nfn()\n")
    page(project, "GB0025", f"```python gb-fix\n{code}```\n")
    before = files(project)
    argv = [sys.executable, "-m", "gbsite", "--root", str(project.root), "check"]
    proc = subprocess.Popen(
        [*argv, "--examples", "GB0025", "--python", fake_python],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own group: Ctrl-C as a terminal sends it, to the group
    )
    deadline = time.monotonic() + 60
    while not pid_file.exists() or not pid_file.read_text():
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.1)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and b"Traceback" not in err, err
    pid = int(pid_file.read_text())
    time.sleep(0.5)
    assert not alive(pid)
    assert files(project) == before


@pytest.mark.parametrize("value", ["inf", "nan", "0", "-1", "1e999", "x"])
def test_timeout_is_a_finite_positive_number(project: Project, value: str) -> None:
    one_line_error(
        gbsite(project, "check", "--examples", "GB0025", "--timeout", value), "--timeout"
    )


# ---- validation -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "listed",
    ['["2.\u0661\u0663.0"]', '["2.13.0", "' + "9" * 5000 + '.0.0"]', '["2.13.0", "1234567.0.0"]'],
    ids=["arabic-indic digits", "5,000 digits", "seven digits"],
)
def test_a_release_is_ascii_and_short(project: Project, listed: str) -> None:
    config = project.root / "gbsite.toml"
    text = config.read_text()
    config.write_text(re.sub(r"^releases = \[.*\]$", f"releases = {listed}", text, flags=re.M))
    before = files(project)
    for command in ("check", "build"):
        one_line_error(gbsite(project, command), "gbsite.toml:", "list of releases")
    assert files(project) == before


@pytest.mark.parametrize("value", ["", "2.\u0661\u0663.0", "9" * 5000])
def test_torch_option_needs_a_release(project: Project, value: str) -> None:
    one_line_error(gbsite(project, "check", "--examples", "--torch", value), "--torch")


STATUS_CASES = {
    "5,000-digit reason": ("reason: " + "7" * 5000, "too long"),
    "a number for a reason": ("reason: 1.0e+400", "`reason:` is text"),
    "source out of torch": ("source: torch/../../outside/x.py", "a path in the torch package"),
    "since in other digits": ("since: 2.\u0661\u0665.0", "since: 2.\u0661\u0665.0"),
}


@pytest.mark.parametrize("case", STATUS_CASES, ids=list(STATUS_CASES))
def test_hostile_status_blocks(project: Project, case: str) -> None:
    field, message = STATUS_CASES[case]
    fields = {
        "status": "status: internal",
        "reason": "reason: why",
        "source": "source: torch/_dynamo/symbolic_convert.py",
        "function": "function: f",
    }
    fields[field.split(":")[0]] = field
    path = page(project, "GB0025", "```yaml gb-status\n" + "\n".join(fields.values()) + "\n```\n")
    result = gbsite(project, "check")
    assert result.returncode == 1, result.stdout + result.stderr
    [line] = [ln for ln in result.stdout.splitlines() if path.name in ln]
    assert message in line


@pytest.mark.parametrize("needs", ["package:..", "package:-x", "package:ß", "package:a b"])
def test_needs_names_a_package(project: Project, needs: str) -> None:
    path = page(project, "GB0025", f"```python gb-fix needs={needs}\nfn()\n```\n")
    result = gbsite(project, "check")
    assert result.returncode == 1
    assert any(path.name in ln for ln in result.stdout.splitlines()), result.stdout


def test_serve_ignores_clients_that_go_away(project: Project) -> None:
    import socket

    proc = subprocess.Popen(
        [sys.executable, "-m", "gbsite", "--root", str(project.root), "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=interruptible,
    )
    try:
        assert proc.stdout is not None
        url = ""
        deadline = time.monotonic() + 120
        while not url and time.monotonic() < deadline:
            found = re.search(r"http://127\.0\.0\.1:(\d+)/", proc.stdout.readline())
            url = found.group(1) if found else ""
        port = int(url)
        for _ in range(20):  # ask for a page and hang up at once, with a reset
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(b"GET /index.html HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            s.close()
        time.sleep(1)
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    assert "Traceback" not in err and "BrokenPipe" not in err and "Reset" not in err, err
