"""Running probe programs and reading the graph breaks they reached.

Every program runs in a process of its own: a child of the example driver's fork server
(examples/driver.py --serve: torch imported once, a fork per program, fresh Dynamo state, a
timeout that kills the child's whole process group), `jobs` at a time. The driver runs it in
its `logged` mode with nothing to compile, so the program runs as written while the graph-break
log (TORCH_LOGS=graph_breaks) is kept. A break counts as **seen** when a page link of it
(`.../gb/gbXXXX.html`) is in what the user would see: the exception that ended the program and
its cause chain, the graph-break log, or what the program printed (a program that tries several
things catches each failure and prints it). It counts as **hidden** when Dynamo constructed it
(wrapper.py notes every Unsupported) but no link to it was seen: Dynamo caught it and raised or
logged another one, or fell back silently.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from gbsite.examples.judging import linked_ids
from gbsite.examples.runner import ForkServer

WRAPPER = Path(__file__).with_name("wrapper.py")
NEVER_BOUND = "__probe_nothing_to_compile__"  # the driver compiles nothing: programs do


@dataclass(frozen=True, slots=True)
class Program:
    """A probe program: a file of the corpus, or one a generator wrote."""

    path: Path  # where it is run from
    technique: str  # its folder in the corpus: what kind of trick it tries
    name: str  # unique in a run: technique/stem, or technique/generator/stem
    aims: tuple[str, ...] = ()  # ids it was written for (`# aims: GB0123 GB0456`)
    generated: bool = False

    @property
    def size(self) -> int:
        return len(self.path.read_bytes())


@dataclass(frozen=True, slots=True)
class Reached:
    """What one program did."""

    program: Program
    seen: tuple[str, ...]  # ids whose link the user would see
    hidden: tuple[str, ...]  # ids Dynamo raised and caught, never shown
    status: str  # completed, raised, timeout, crashed
    error: str  # the exception type that ended it, or why it died
    seconds: float


def ids_seen(data: Mapping[str, object], stdout: str, stderr: str) -> list[str]:
    """The ids linked from the outcome the driver wrote, and from what the program printed."""
    texts = [str(data.get("message") or "")]
    for key in ("chain", "logged"):
        value = data.get(key)
        if isinstance(value, list):
            texts.extend(str(v) for v in value)
    texts += [stdout, stderr]
    return linked_ids("\n".join(texts))


def ids_of_types(gb_types: Iterable[str], by_type: Mapping[str, str]) -> list[str]:
    """The ids of these graph-break types (types no registry text has are left out)."""
    return sorted({by_type[t] for t in gb_types if t in by_type})


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _job(program: Program, folder: Path, timeout: float) -> dict[str, object]:
    launcher = folder / "launch.py"
    from gbsite.probe.wrapper import launcher as text

    launcher.write_text(
        text(str(WRAPPER), str(program.path.resolve()), str(folder / "hidden.json")),
        encoding="utf-8",
    )
    return {
        "key": program.name,
        "cwd": str(folder),
        "program": str(launcher),
        "stdout": str(folder / "stdout.txt"),
        "stderr": str(folder / "stderr.txt"),
        "name": NEVER_BOUND,
        "backend": "eager",
        "mode": "logged",
        "timeout": timeout,
    }


def read_run(
    program: Program,
    folder: Path,
    seconds: float,
    by_type: Mapping[str, str],
    *,
    result: object = None,
    timed_out: bool = False,
    exit_code: int = 0,
) -> Reached:
    """What a finished run left in its folder, and the driver's `result` (the server's report
    carries it: the program cannot write it)."""
    stdout, stderr = _text(folder / "stdout.txt"), _text(folder / "stderr.txt")
    data = result
    try:
        types = json.loads(_text(folder / "hidden.json"))
    except ValueError:
        types = []
    if not isinstance(data, dict):
        data = {}
    seen = ids_seen(data, stdout, stderr)
    raised = ids_of_types([str(t) for t in types] if isinstance(types, list) else [], by_type)
    hidden = tuple(i for i in raised if i not in seen)
    if timed_out:
        status, error = "timeout", ""
    elif not data:
        status, error = "crashed", f"exit {exit_code}: {stderr.strip()[-200:]}"
    else:
        status = str(data.get("status") or "crashed")
        error = str(data.get("error_type") or "")
        if status == "driver-error":
            error = str(data.get("message") or "")[-300:]
    return Reached(program, tuple(seen), hidden, status, error, seconds)


def run_programs(
    programs: list[Program],
    python: str,
    by_type: Mapping[str, str],
    work: Path,
    *,
    jobs: int = 2,
    timeout: float = 60.0,
    progress: Callable[[Reached], None] | None = None,
) -> Iterator[Reached]:
    """Run every program, `jobs` at a time, each in a forked child of its own."""
    server = ForkServer(python, timeout)
    try:
        by_name = {p.name: (p, work / f"{n:05d}") for n, p in enumerate(programs)}
        queue = list(reversed(programs))
        started: dict[str, float] = {}
        while queue or started:
            while queue and len(started) < max(1, jobs):
                program = queue.pop()
                folder = by_name[program.name][1]
                folder.mkdir(parents=True, exist_ok=True)
                started[program.name] = time.monotonic()
                server.stdin.write(json.dumps(_job(program, folder, timeout)) + "\n")
                server.stdin.flush()
            end = server.next_end()
            name = str(end["key"])
            program, folder = by_name[name]
            reached = read_run(
                program,
                folder,
                time.monotonic() - started.pop(name),
                by_type,
                result=end.get("result"),
                timed_out=bool(end.get("timeout")),
                exit_code=int(str(end.get("exit", 0))),
            )
            if progress is not None:
                progress(reached)
            yield reached
    finally:
        server.close()
