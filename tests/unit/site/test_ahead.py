"""site/ahead.py: the plain scan of fences, and the worker that highlights while a build loads."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gbsite.docs import files as docs
from gbsite.examples.annotations import block_parser
from gbsite.site import ahead

pytestmark = pytest.mark.repo_data

REPO = Path(__file__).resolve().parents[3]


def test_the_scan_reads_each_fence_of_a_block_as_markdown_it_does() -> None:
    text = (
        "Text\n\n"
        "```python gb-repro compile=f\nx = 1\n\n  y = 2\n```\n"
        "  ~~~~ text\n  two spaces\n   three\n one\n~~~~~\n"
        "``` has `backticks`\nnot a fence\n\n"
        "````\n```\nstill code\n````\n"
        "```\nnever closed\n"
    )
    expected = [
        (t.info.strip(), t.content) for t in block_parser().parse(text) if t.type == "fence"
    ]
    assert list(ahead.fences(text)) == expected
    assert [info for info, _ in expected] == ["python gb-repro compile=f", "text", "", ""]
    assert expected[2] == ("", "```\nstill code\n")  # a longer fence holds a shorter one


def test_the_scan_finds_every_fence_of_the_committed_docs_that_is_not_in_a_list() -> None:
    """The committed blocks: the scan gives markdown-it's fences outside lists and quotes, in
    their order; those inside one may be missed (the render phase highlights them)."""
    checked = 0
    for path in sorted((REPO / "docs" / "gb").glob("gb*.md")):
        block = docs.read(path).block
        tokens = block_parser().parse(block)
        top = [(t.info.strip(), t.content) for t in tokens if t.type == "fence" and t.level == 0]
        scanned = list(ahead.fences(block))
        assert [f for f in scanned if f in top] == top, path.name
        checked += len(top)
    assert checked > 100  # the docs hold examples: the comparison compared something


def _docs() -> list[tuple[str, bytes]]:
    """Forty docs files: enough for a worker to be stopped midway, few enough to take a second."""
    paths = sorted((REPO / "docs" / "gb").glob("*.md"))[:40]
    return [(p.stem.upper(), p.read_bytes()) for p in paths]


def test_a_worker_left_to_finish_highlights_what_the_render_phase_asks_for() -> None:
    """Under the keys the render phase asks for, the same HTML: the code as the page shows it
    (the compile call the checker adds, marked), not the fence's."""
    from gbsite.docs.blocks import BlockRenderer
    from gbsite.docs.highlight import Highlighter
    from gbsite.examples.captions import ExampleCaptions
    from gbsite.examples.record import Record

    found = ahead.Ahead(_docs()).worker.result()
    blocks = BlockRenderer([], ExampleCaptions(Record({}), ()))
    asked = blocks.highlighter = Highlighter()
    for path in sorted((REPO / "docs" / "gb").glob("*.md"))[:40]:
        blocks(path.stem.upper(), docs.read(path).block)
    both = asked.new.keys() & found.keys()
    assert len(both) >= 0.9 * len(asked.new) > 40  # all but fences a plain scan misreads
    assert {key: found[key] for key in both} == {key: asked.new[key] for key in both}
    assert any('<span class="hll">' in html for html in found.values())  # compile calls


def test_a_stopped_worker_sends_what_it_has_and_is_reaped() -> None:
    early = ahead.Ahead(_docs())
    start = time.perf_counter()
    found = early.collect()
    assert time.perf_counter() - start < ahead.STOP_WAIT
    everything = ahead.Ahead(_docs()).worker.result()
    assert found.items() <= everything.items()
    assert len(found) < len(everything)  # it stopped: told at once, it had time for a few at most
    with pytest.raises(ChildProcessError):
        os.waitpid(early.worker.pid, os.WNOHANG)


def _fails(docs: list[tuple[str, bytes]], stop: object) -> dict[str, str]:
    raise RuntimeError("a bug in the worker")


def _hangs(docs: list[tuple[str, bytes]], stop: object) -> dict[str, str]:
    time.sleep(60)
    return {}


@pytest.mark.parametrize("task", [_fails, _hangs])
def test_a_worker_that_fails_or_does_not_stop_gives_nothing_and_is_reaped(
    monkeypatch: pytest.MonkeyPatch, task: object
) -> None:
    monkeypatch.setattr(ahead, "_highlight", task)
    monkeypatch.setattr(ahead, "STOP_WAIT", 0.2)
    early = ahead.Ahead(_docs())
    start = time.perf_counter()
    assert early.collect() == {}
    assert time.perf_counter() - start < 5
    with pytest.raises(ChildProcessError):
        os.waitpid(early.worker.pid, os.WNOHANG)


def test_a_worker_whose_build_was_killed_stops(tmp_path: Path) -> None:
    """A build killed with -9 cannot stop its worker: the worker sees it is gone and ends after
    the fence it is on, instead of highlighting on (holding the build's lock) for seconds."""
    script = tmp_path / "build.py"
    script.write_text(
        "import sys, time\n"
        "from pathlib import Path\n"
        "from gbsite.site import ahead\n"
        f"paths = sorted(Path({str(REPO / 'docs' / 'gb')!r}).glob('*.md'))\n"
        "docs = [(p.stem.upper(), p.read_bytes()) for p in paths] * 60  # seconds of work\n"
        "print(ahead.Ahead(docs).worker.pid, flush=True)\n"
        "time.sleep(120)\n"
    )
    build = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    assert build.stdout is not None
    worker = int(build.stdout.readline())
    time.sleep(0.5)  # the worker is highlighting
    assert _alive(worker)
    build.kill()
    build.wait()
    deadline = time.monotonic() + 3
    while _alive(worker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(worker)


def _alive(pid: int) -> bool:
    """Whether the process runs: not gone, and not a zombie nobody has reaped yet."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"
