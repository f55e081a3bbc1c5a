"""Work ahead: a cold build's blocks scanned and code highlighted in a forked worker while the
build loads.

A build whose cache folder holds no highlighted code (the first build, or the first after an
upgrade of Pygments: site/highlights.py) highlights every fence in the render phase, while the
phases before it (load, derive, plan: about a second) keep one core busy. So a worker forked
after the fingerprint works in the meantime. First it scans each block for its fences and
prose, as the load phase does (examples/annotations.py), into the cache of parsed texts, which
the load phase reads some 0.4 s later (parsed.py): its own scan was ~0.2 s of the phase the
build waits for. Then it highlights the fences of the docs files, under the key the render
phase asks for (docs/highlight.py's key_of). When the render phase starts, the worker stops
after the fence it is on and sends what it has; the render phase highlights the rest.

The worker finds fences by a plain scan of each file's lines (CommonMark's rules for a fence,
without the rest of the block structure): parsing the Markdown first cost more than the
worker saved. The scan is a guess, and the render phase's own parse decides what a page shows:
a fence the scan misreads (one inside a list, say) or one outside the block has a key the
render phase never asks for, and costs only the worker's time. For the same reason a fence
the worker cannot highlight, or a worker that fails or is slow to stop, costs the build
nothing but the highlighting it would have saved.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from gbsite.site.worker import Worker, can_fork

if TYPE_CHECKING:
    from gbsite.site.fingerprint import ReadInputs

STOP_WAIT = 0.5  # seconds a stopped worker has to send its highlights before they are dropped

# An opening fence: up to three spaces, three or more backticks or tildes, the info string.
_OPENING = re.compile(r"( {0,3})(`{3,}|~{3,})(.*)")


def start(snapshot: ReadInputs) -> Ahead | None:
    """A worker highlighting the docs files' code, when no highlighted code is kept and a
    second process can be forked; None otherwise."""
    from gbsite.docs.files import DOC_NAME
    from gbsite.site import highlights

    if not can_fork() or highlights.cache_file().exists():
        return None
    docs = []
    for path in snapshot.listed[2]:
        named = DOC_NAME.fullmatch(path.name)
        if named is not None:
            docs.append((f"GB{named.group(1)}", snapshot.read(path)))
    return Ahead(docs) if docs else None


class Ahead:
    """The worker, and the flag that tells it to stop: a byte of memory it shares."""

    def __init__(self, docs: list[tuple[str, bytes]]) -> None:
        self._stop = mmap.mmap(-1, 1)
        self.worker = Worker(lambda: _highlight(docs, self._stop))

    def collect(self) -> dict[str, str]:
        """Stop the worker: the code it highlighted, by key; nothing if it failed or does not
        answer within STOP_WAIT (it is killed then)."""
        self._stop[0] = 1
        try:
            if not self.worker.ready(STOP_WAIT):
                self.worker.cancel()
                return {}
            return self.worker.result()
        except Exception:  # the render phase highlights all of it, and reports what is wrong
            return {}
        finally:
            self._stop.close()


def _highlight(docs: list[tuple[str, bytes]], stop: mmap.mmap) -> dict[str, str]:
    """In the worker: the blocks scanned, then each fence's code highlighted as the page shows
    it, until `stop` is set."""
    from gbsite import parsed
    from gbsite.docs.fences import Fence, FenceView, shown_code
    from gbsite.docs.files import block_span
    from gbsite.docs.highlight import highlight_code, key_of
    from gbsite.examples.captions import ExampleCaptions
    from gbsite.examples.record import Record

    parent = os.getppid()
    blocks: list[tuple[str, str]] = []
    for gb_id, data in docs:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue  # the load phase reports it
        span = block_span(text)
        if span is not None:  # else no block: the page shows no code of this file
            blocks.append((gb_id, text[span[0] : span[1]]))

    def stopped() -> bool:  # told to stop, or the build was killed
        return bool(stop[0]) or os.getppid() != parent

    _scan(blocks, stopped)
    captions = ExampleCaptions(Record({}), ())  # the code shown does not depend on the record
    found: dict[str, str] = {}
    # Where each example binds the name it compiles (examples/shown.py), which the render
    # phase asks again: kept with the parsed texts, written when this process stops.
    with parsed.own_session():
        for gb_id, block in blocks:
            for info, content in fences(block):
                if stopped():
                    return found
                fence = Fence(content, info)
                try:
                    view = captions(fence, gb_id) or FenceView()
                    if view.hidden:
                        continue
                    shown = shown_code(fence, view)
                    key = key_of(*shown)
                    if key not in found:
                        found[key] = highlight_code(*shown)
                except Exception:  # a guess that failed: the render phase decides
                    continue
    return found


def _scan(blocks: list[tuple[str, str]], stopped: Callable[[], bool]) -> None:
    """Each block scanned for its fences and prose (examples/annotations.py) into the cache of
    parsed texts, written before the load phase asks for it (parsed.py): the load phase then
    reads what this process found instead of parsing every block's Markdown itself (~0.2 s of
    a cold build's load phase, which the build waits for). Found too late, it costs nothing but
    this process's time: the load phase scans what it does not find."""
    from gbsite import parsed
    from gbsite.examples.annotations import scanned

    with parsed.own_session():
        for _, block in blocks:
            if stopped():
                return
            if block.strip():
                with contextlib.suppress(Exception):  # the load phase reports what is wrong
                    scanned(block)


def fences(text: str) -> Iterator[tuple[str, str]]:
    """Each fenced code block of a Markdown text as (info string, code), as markdown-it reads a
    fence outside any list or quote: up to three spaces before a run of three or more backticks
    or tildes, closed by a run of the same character at least as long (or the end of the text);
    the code's lines lose as many leading spaces as the opening fence had, at most."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # the text's last newline ends its last line
    i = 0
    while i < len(lines):
        opening = _OPENING.fullmatch(lines[i])
        i += 1
        if opening is None:
            continue
        indent, mark, info = opening.groups()
        if mark[0] == "`" and "`" in info:
            continue  # not a fence: a backtick fence's info string holds no backtick
        closing = re.compile(rf" {{0,3}}{re.escape(mark[0])}{{{len(mark)},}}[ \t]*")
        code: list[str] = []
        while i < len(lines) and not closing.fullmatch(lines[i]):
            line = lines[i]
            spaces = len(line) - len(line.lstrip(" "))
            code.append(line[min(spaces, len(indent)) :] + "\n")
            i += 1
        i += 1  # the closing fence
        yield info.strip(), "".join(code)
