"""`gbsite check --examples`: run the annotated code blocks of docs/gb/ against real PyTorch.

In an Additional Information block, a fenced block whose info string is

    python gb-repro [compile=NAME] [backend=BACKEND]
    python gb-fix   [compile=NAME] [backend=BACKEND]

is a complete program. It runs in a fresh interpreter (example_driver.py), where the callable
bound to NAME (default `fn`) is compiled with `torch.compile(fullgraph=True, backend=BACKEND)`
(default eager) right after it is bound. A gb-repro passes when the program fails with a graph
break linking to its page's id; a gb-fix passes when it runs to the end, so without any graph
break, having called NAME. Plain ```python blocks are only shown. Blocks that pass are recorded,
with the torch version, in docs/verified-examples.yaml, which the site reads.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from gbsite import yamlio
from gbsite.docs import Doc
from gbsite.errors import GbsiteError, Problem
from gbsite.fsutil import write_if_changed

KINDS = ("gb-repro", "gb-fix")
_OPTION = re.compile(r"(compile|backend)=([A-Za-z_][\w.]*)")
_FIELDS = {"compile": "compile_name", "backend": "backend"}  # option -> Annotation field
DEFAULT_BACKEND = "eager"  # Dynamo traces and the graph runs uncompiled: no Inductor time
_URL_ID = re.compile(r"/gb/gb(\d{4})\.html")
DRIVER = Path(__file__).with_name("example_driver.py")
QUIET_ENV = ("TORCH_LOGS", "TORCHDYNAMO_VERBOSE", "TORCH_COMPILE_DEBUG", "TORCHDYNAMO_DISABLE")


def digest(kind: str, compile_name: str, backend: str, code: str) -> str:
    """Identifies a block's content: a record is valid only for this exact code and options."""
    key = f"{kind}\0{compile_name}\0{backend}\0{code}"
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Annotation:
    """What an annotated fence's info string asks for, defaults filled in."""

    kind: str  # gb-repro or gb-fix
    compile_name: str = "fn"
    backend: str = DEFAULT_BACKEND


@dataclass(frozen=True, slots=True)
class Block:
    gb_id: str  # the page's id: what a gb-repro must raise
    path: Path
    line: int  # of the opening fence, in the docs file
    kind: str  # gb-repro or gb-fix
    code: str
    compile_name: str
    backend: str

    @property
    def digest(self) -> str:
        return digest(self.kind, self.compile_name, self.backend, self.code)

    @property
    def where(self) -> Problem:
        return Problem("", self.path, self.line)


@dataclass(frozen=True, slots=True)
class Result:
    block: Block
    passed: bool
    summary: str  # one line
    details: str  # what the program printed or raised, for a failure
    seconds: float
    torch: str | None


def parse_info(info: str) -> Annotation | None:
    """What an annotated fence asks for, None for a plain one; bad options raise."""
    words = info.split()
    kinds = [w for w in words if w in KINDS]
    if not kinds:
        return None
    if words[0] != "python" or len(words) < 2 or words[1] not in KINDS or len(kinds) > 1:
        raise ValueError(
            f"an annotated block's info string is `python {kinds[0]}` followed by "
            f"options, not `{info.strip()}`"
        )
    options: dict[str, str] = {}
    for word in words[2:]:
        match = _OPTION.fullmatch(word)
        if match is None:
            raise ValueError(f"unknown option `{word}` (use compile=NAME or backend=NAME)")
        options[_FIELDS[match.group(1)]] = match.group(2)
    return Annotation(words[1], **options)


def blocks_of(gb_id: str, doc: Doc) -> list[Block]:
    """The annotated blocks of a docs file, found as GitHub's Markdown finds fences."""
    from markdown_it import MarkdownIt

    found: list[Block] = []
    problems: list[Problem] = []
    for token in MarkdownIt("commonmark").parse(doc.block):
        if token.type != "fence" or token.map is None:
            continue
        line = doc.block_line_of(0) + token.map[0]
        try:
            a = parse_info(token.info)
        except ValueError as exc:
            problems.append(Problem(str(exc), doc.path, line))
            continue
        if a is not None:
            found.append(
                Block(gb_id, doc.path, line, a.kind, token.content, a.compile_name, a.backend)
            )
    if problems:
        raise GbsiteError(problems)
    return found


def torch_version(python: str) -> str:
    """The torch the examples will run with; no torch is an error the user can fix."""
    import subprocess  # here, not above: a build reads the record but never runs examples

    try:
        proc = subprocess.run(
            [python, "-c", "import torch; print(torch.__version__)"],
            capture_output=True,
            text=True,
            timeout=300,
        )
    except OSError as exc:
        raise GbsiteError(f"cannot run {python}: {exc.strerror}") from None
    if proc.returncode != 0:
        raise GbsiteError(
            f"{python} has no torch: checking examples needs it. Install it with "
            "`pip install 'gbsite[examples]'` (torch 2.13.0), or name a Python that has it "
            "with --python"
        )
    return proc.stdout.strip()


def run(block: Block, python: str, timeout: float) -> Result:
    import subprocess

    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="gbsite-example-") as tmp:
        program, result_file = Path(tmp, "example.py"), Path(tmp, "result.json")
        program.write_text(block.code, encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if k not in QUIET_ENV}
        env.update(PYTHONHASHSEED="0", CUDA_VISIBLE_DEVICES="")  # CPU, reproducible
        try:
            proc = subprocess.run(
                [
                    python,
                    str(DRIVER),
                    str(program),
                    str(result_file),
                    block.compile_name,
                    block.backend,
                ],
                cwd=tmp,
                env=env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            return Result(
                block,
                False,
                f"did not finish within {timeout:.0f} s",
                "",
                time.monotonic() - started,
                None,
            )
        seconds = time.monotonic() - started
        if not result_file.exists():
            return Result(
                block,
                False,
                f"the interpreter died (exit {proc.returncode})",
                proc.stderr[-3000:],
                seconds,
                None,
            )
        outcome = json.loads(result_file.read_text(encoding="utf-8"))
    return judge(block, outcome, proc.stdout, proc.stderr, seconds)


def judge(
    block: Block, outcome: dict[str, object], stdout: str, stderr: str, seconds: float
) -> Result:
    """Did the program do what its annotation promises?"""
    message = str(outcome.get("message") or "")
    chained = "\n".join(str(m) for m in outcome.get("chain") or [])  # type: ignore[attr-defined]
    ids = sorted({f"GB{n}" for n in _URL_ID.findall(message + "\n" + chained)})
    torch = str(outcome["torch"]) if outcome.get("torch") else None
    name = block.compile_name
    raised = f"graph break {', '.join(ids)}" if ids else str(outcome["error_type"])  # if any

    def fail(summary: str, details: str = "") -> Result:
        return Result(block, False, summary, details, seconds, torch)

    if outcome["status"] == "driver-error":
        return fail("the program could not be run", message)
    if not outcome["bound"]:
        return fail(
            f"no top-level statement binds `{name}`, so nothing was compiled "
            "(name another callable with compile=NAME)"
        )
    if stdout.strip():
        return fail("the program printed output; examples must be quiet", stdout[-1500:])
    if block.kind == "gb-repro":
        if outcome["status"] != "raised":
            return fail(
                f"ran without a graph break (expected {block.gb_id}); with this torch "
                "the code compiles, so the example no longer shows the break"
            )
        if block.gb_id not in ids:
            return fail(f"raised {raised} instead of {block.gb_id}", message[:1500])
        return Result(block, True, f"breaks with {block.gb_id}", "", seconds, torch)
    if outcome["status"] != "completed":
        return fail(f"raised {raised}; a gb-fix must run without any graph break", message[:1500])
    if stderr.strip():
        return fail("the program wrote to stderr; a fix must run cleanly", stderr[-1500:])
    if not outcome.get("graphs"):
        return fail(f"`{name}` was compiled but never called")
    return Result(block, True, "runs without a graph break", "", seconds, torch)


def run_all(
    blocks: list[Block],
    python: str,
    jobs: int,
    timeout: float,
    progress: Callable[[Result], None] | None = None,
) -> list[Result]:
    """Every block in a fresh interpreter, `jobs` at a time (threads wait on processes)."""
    from concurrent.futures import ThreadPoolExecutor

    def one(block: Block) -> Result:
        result = run(block, python, timeout)
        if progress is not None:
            progress(result)
        return result

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(one, blocks))


# ---- the record the site reads ---------------------------------------------------------------

RECORD_HEADER = (
    "# Written by `gbsite check --examples`: the annotated examples in docs/gb/ that ran as they\n"
    '# promise, and the torch they ran with. The site says "verified with torch X" for a block\n'
    "# only while its code is still the code recorded here (sha256 of kind, options and code).\n"
)


RecordEntry = dict[str, str | int]


def record_entries(path: Path) -> list[RecordEntry]:
    """The entries of the record of verified examples; none when there is no record yet."""
    if not path.exists():
        return []
    data = yamlio.read(path)
    entries = data.get("verified") if isinstance(data, dict) else None
    if not isinstance(entries, list) or not all(
        isinstance(e, dict) and {"id", "sha256", "torch"} <= e.keys() for e in entries
    ):
        raise GbsiteError.at(
            path,
            None,
            "not a record of verified examples (entries need id, sha256 and torch); delete it "
            "and run gbsite check --examples",
        )
    return entries


def read_record(path: Path) -> dict[str, str]:
    """sha256 of each verified block -> the torch version it was verified with."""
    return {str(e["sha256"]): str(e["torch"]) for e in record_entries(path)}


def write_record(path: Path, results: Iterable[Result], checked_ids: set[str] | None) -> bool:
    """Record the blocks that passed; keep earlier entries of pages not checked this time."""
    kept = [
        e for e in record_entries(path) if checked_ids is not None and e["id"] not in checked_ids
    ]
    fresh: list[RecordEntry] = [
        {
            "id": r.block.gb_id,
            "kind": r.block.kind,
            "line": r.block.line,
            "sha256": r.block.digest,
            "torch": r.torch or "unknown",
        }
        for r in results
        if r.passed
    ]
    entries = sorted(kept + fresh, key=lambda e: (str(e["id"]), int(e["line"])))
    text = yamlio.dump({"verified": entries}, RECORD_HEADER)
    return write_if_changed(path, text.encode("utf-8"))


def default_python() -> str:
    return sys.executable
