"""The annotated code blocks of docs/gb/: what a fence's info string asks for, and where.

In an Additional Information block, a fenced block whose info string is

    python gb-repro [compile=NAME] [backend=BACKEND] [needs=WHAT] [eager=raises] [fullgraph=false]
                    [since=RELEASE]
    python gb-fix   [compile=NAME] [backend=BACKEND] [needs=WHAT] [since=RELEASE]
                    [recompiles=yes]
    python gb-wrong

is a complete program. It runs in a process of its own (runner.py), where the callable bound to
NAME (default `fn`) is compiled with `torch.compile(fullgraph=True, backend=BACKEND)` (default
eager) right after it is bound. With `compile=none` the program calls torch.compile or
torch.export itself (a break only torch.export reaches) and runs as written, once. A gb-repro
passes when the program fails with a graph break linking to its page's id, and (but with
compile=none) runs to the end without torch.compile (unless `eager=raises`
says that it fails in plain PyTorch too; with `fullgraph=false`, when it runs to the end and the
graph-break log links to the page); a gb-fix passes when it runs to the end, so without
any graph break, having called NAME at least twice (judging.py); one whose calls make
Dynamo compile more than twice says so with `recompiles=yes`, and its page names
torch._dynamo.config.recompile_limit. It must do so with the page's home release
(the oldest release of the examples with the id), or with RELEASE for a block written for a
newer torch (`since=2.15.0`); with the other releases, what it did is recorded. A block with
`needs=python:3.N` runs with that Python (torchenv.py finds the interpreter and keeps a torch
environment per release and Python), one with `needs=without:NAME` in a fresh interpreter where
NAME cannot be imported; one with another `needs=` (cuda, distributed, package:NAME) is shown
and never run.
A gb-wrong block (no options) documents a silent wrong result: a program, run as written like
`compile=none`, that computes one value in plain PyTorch and with torch.compile and ends by
asserting that the two differ; its assertion failing means that torch computes it right
(judging.py). It is a warning beside the page's subject, not an example of the break: it
leaves the page's coverage alone. Plain ```python blocks are only shown. What each block did,
with each torch release of the examples, is recorded in docs/verified-examples.yaml
(record.py), which the site reads.
"""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gbsite import releases
from gbsite.docs.files import Doc
from gbsite.errors import GbsiteError, Problem

if TYPE_CHECKING:
    from markdown_it import MarkdownIt


class Kind(StrEnum):
    """An annotated block's kind: the word after `python` in its fence."""

    REPRO = "gb-repro"  # raises the page's break
    FIX = "gb-fix"  # the same work without the break
    WRONG = "gb-wrong"  # a value torch.compile computes wrong, near the page's subject


REPRO, FIX, WRONG = Kind.REPRO, Kind.FIX, Kind.WRONG
KINDS = tuple(Kind)
_OPTION = re.compile(
    r"(compile|backend|needs|eager|fullgraph|since|recompiles)=([A-Za-z_0-9][\w.:-]*)"
)
# option -> Annotation field
_FIELDS = {
    "compile": "compile_name",
    "backend": "backend",
    "needs": "needs",
    "eager": "eager",
    "fullgraph": "fullgraph",
    "since": "since",
    "recompiles": "recompiles",
}
DEFAULT_BACKEND = "eager"  # Dynamo traces and the graph runs uncompiled: no Inductor time
# What a block may need that the checker does not have: such a block is shown, never run.
NEEDS = {
    "cuda": "a CUDA device",
    "distributed": "several processes (torch.distributed)",
}
# compile=none: the program compiles or exports what it needs itself, and runs as written.
SCRIPT = "none"
EAGER_RAISES = "raises"  # eager=raises: the repro's code fails in plain PyTorch too, on purpose
# fullgraph=false: a repro of a break that only a compile without fullgraph reports (in the log)
NO_FULLGRAPH = "false"
# recompiles=yes: a fix whose calls make Dynamo compile more than twice (more than the one
# recompile a first change of sizes makes): its page must say so and name the limit.
RECOMPILES = "yes"
LIMIT = "recompile_limit"  # torch._dynamo.config's name for it, which such a page mentions
# A fix's digest carries the rule it was judged by: outcomes recorded before fixes had to call
# the compiled code twice, and to compute what the same program computes without
# torch.compile, say nothing about that, so those fixes are pending until run again.
_FIX_RULE = "calls>=2;same-as-eager"


# needs=package:NAME, needs=without:NAME for a break only an install lacking an optional
# package reaches (NumPy), or needs=python:X.Y for a break only newer bytecode reaches (a
# package's name as PEP 508 has it: ASCII letters and digits, with . _ - inside)
_NEEDS_FORM = re.compile(
    r"(?:package|without):[A-Za-z0-9](?:[A-Za-z0-9._-]{0,98}[A-Za-z0-9])?|python:3\.[0-9]{1,2}"
)
NEEDS_HELP = "cuda, distributed, package:NAME, without:NAME or python:3.N"


def valid_needs(needs: str) -> bool:
    return needs in NEEDS or _NEEDS_FORM.fullmatch(needs) is not None


def python_needed(needs: str) -> str:
    """`python:3.12` -> `3.12`, the Python a block runs with; "" for any other need."""
    return needs.removeprefix("python:") if needs.startswith("python:") else ""


def needs_label(needs: str) -> str:
    """`cuda` -> `a CUDA device`; `package:triton` -> `the triton package`; `python:3.12` ->
    `Python 3.12 or newer`."""
    if needs.startswith("package:"):
        return f"the {needs.removeprefix('package:')} package"
    if needs.startswith("without:"):
        return f"an install without the {needs.removeprefix('without:')} package"
    if needs.startswith("python:"):
        return f"Python {needs.removeprefix('python:')} or newer"
    return NEEDS[needs]


def digest(
    kind: str,
    compile_name: str,
    backend: str,
    code: str,
    eager: str = "",
    fullgraph: str = "",
    since: str = "",
    recompiles: str = "",
    needs: str = "",
) -> str:
    """Identifies a block's content: a record is valid only for this exact code and options
    (and, for a fix, the rule it was judged by). Of `needs`, a Python or a package it runs
    without counts: the block runs so; the others are never run."""
    key = f"{kind}\0{compile_name}\0{backend}\0{code}"
    if kind == FIX and compile_name != SCRIPT:
        key += f"\0{_FIX_RULE}"
    # Options added later count only when given, so that older records stay valid.
    if eager:
        key += f"\0eager={eager}"
    if fullgraph:
        key += f"\0fullgraph={fullgraph}"
    if since:
        key += f"\0since={since}"
    if recompiles:
        key += f"\0recompiles={recompiles}"
    if python := python_needed(needs):
        key += f"\0python={python}"
    if needs.startswith("without:"):
        key += f"\0{needs}"
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Annotation:
    """What an annotated fence's info string asks for, defaults filled in."""

    kind: Kind
    compile_name: str = "fn"
    backend: str = DEFAULT_BACKEND
    needs: str = ""  # python:3.N: run with it; cuda, distributed, package:NAME: shown, not run
    eager: str = ""  # "raises": a repro whose code fails in plain PyTorch as well
    fullgraph: str = ""  # "false": a repro whose break only a non-fullgraph compile logs
    since: str = ""  # a release: the block is written for that torch and later
    recompiles: str = ""  # "yes": a fix whose calls recompile more than once, and says so


@dataclass(frozen=True, slots=True)
class Block:
    gb_id: str  # the page's id: what a gb-repro must raise
    path: Path
    line: int  # of the opening fence, in the docs file
    kind: Kind
    code: str
    compile_name: str
    backend: str
    needs: str = ""
    eager: str = ""
    fullgraph: str = ""
    since: str = ""  # the release it must do what it promises with, if not the page's home
    recompiles: str = ""  # "yes": a fix that recompiles more than once, as its page says
    # A backend it is run with instead of its own (`check --examples --backend inductor`):
    # the same block, so the same digest; its outcome goes to the record's backend column.
    run_backend: str = ""
    # Of its content (digest() below), made once: a build looks a block's outcomes up in the
    # record for every release and state, ~25 times a block (a SHA-256 of its code each time).
    digest: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        content = digest(
            self.kind,
            self.compile_name,
            self.backend,
            self.code,
            self.eager,
            self.fullgraph,
            self.since,
            self.recompiles,
            self.needs,
        )
        object.__setattr__(self, "digest", content)  # frozen: set once, here

    @property
    def runs_with(self) -> str:
        """The backend its function is compiled with in this run."""
        return self.run_backend or self.backend

    @property
    def key(self) -> tuple[str, str]:
        """How the record knows it: its page and its digest."""
        return self.gb_id, self.digest

    @property
    def python(self) -> str:
        """The Python it runs with (`3.12`), "" for whichever runs the check."""
        return python_needed(self.needs)

    @property
    def without(self) -> str:
        """A package its program runs without (`needs=without:numpy`), hidden by the driver."""
        return self.needs.removeprefix("without:") if self.needs.startswith("without:") else ""

    @property
    def sets_environment(self) -> bool:
        """Whether its program sets an environment variable before it imports torch (torch
        reads some once, as it starts: `TENSORIFY_PYTHON_SCALARS=0`). Such a program runs in
        a fresh interpreter, as a user's would, not in a child of one that imported torch."""
        import ast

        try:
            tree = ast.parse(self.code)
        except SyntaxError:
            return False
        for node in tree.body:
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
                module = node.module if isinstance(node, ast.ImportFrom) else None
                if any(n.split(".")[0] == "torch" for n in [*names, module or ""]):
                    return False
            if "environ" in ast.dump(node) or "putenv" in ast.dump(node):
                return True
        return False

    @property
    def runnable(self) -> bool:
        return not self.needs or bool(self.python or self.without)

    def home(self, page_home: str) -> str:
        """The release it must do what it promises with: its `since`, else the page's home."""
        return self.since or page_home

    @property
    def script(self) -> bool:
        """compile=none: run as written, the program compiling or exporting by itself."""
        return self.compile_name == SCRIPT

    @property
    def where(self) -> Problem:
        return Problem("", self.path, self.line)


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
    if words[1] == WRONG:
        if words[2:]:
            raise ValueError(
                f"a gb-wrong block takes no options (`{words[2][:40]}`): it runs as written, "
                "computing a value with and without torch.compile"
            )
        return Annotation(WRONG, SCRIPT)
    options: dict[str, str] = {}
    for word in words[2:]:
        match = _OPTION.fullmatch(word)
        if match is None:
            raise ValueError(
                f"unknown option `{word}` (use compile=NAME, backend=NAME, "
                f"needs={NEEDS_HELP.replace(', ', '|').replace(' or ', '|')}, eager=raises, "
                "fullgraph=false, since=RELEASE or recompiles=yes)"
            )
        key, value = match.groups()
        if key == "needs" and not valid_needs(value):
            raise ValueError(f"`needs={value}`: a block needs {NEEDS_HELP}")
        if key == "eager" and (value != EAGER_RAISES or words[1] != REPRO):
            raise ValueError("`eager=raises` is the only eager option, and only for a gb-repro")
        if key == "fullgraph" and (value != NO_FULLGRAPH or words[1] != REPRO):
            raise ValueError(
                "`fullgraph=false` is the only fullgraph option, and only for a gb-repro "
                "(a fix must compile with fullgraph=True)"
            )
        if key == "recompiles" and (value != RECOMPILES or words[1] != FIX):
            raise ValueError(
                "`recompiles=yes` is the only recompiles option, and only for a gb-fix (one "
                "whose calls make Dynamo compile more than twice)"
            )
        if key == "since" and not releases.is_release(value):
            raise ValueError(
                f"`since={value[:40]}`: a torch release of the examples, such as 2.15.0"
            )
        options[_FIELDS[key]] = value
    if options.get("compile_name") == SCRIPT and options.keys() & {
        "backend",
        "eager",
        "fullgraph",
        "recompiles",
    }:
        raise ValueError(
            "`compile=none` runs the program as written: it chooses its own backend, there is "
            "no eager or fullgraph variant to run, and its calls are not counted"
        )
    return Annotation(Kind(words[1]), **options)


def blocks_of(gb_id: str, doc: Doc, scanned: Scan | None = None) -> list[Block]:
    """The annotated blocks of a docs file, found as GitHub's Markdown finds fences."""
    found: list[Block] = []
    problems: list[Problem] = []
    for fence, line in (scanned or scan(doc)).fences:
        try:
            a = parse_info(fence.info)
        except ValueError as exc:
            problems.append(Problem(str(exc), doc.path, line))
            continue
        if a is not None:
            found.append(
                Block(
                    gb_id,
                    doc.path,
                    line,
                    a.kind,
                    fence.content,
                    a.compile_name,
                    a.backend,
                    a.needs,
                    a.eager,
                    a.fullgraph,
                    a.since,
                    a.recompiles,
                )
            )
    if problems:
        raise GbsiteError(problems)
    return found


@dataclass(frozen=True, slots=True)
class FoundFence:
    info: str
    content: str


@dataclass(frozen=True, slots=True)
class Scan:
    """A docs file's block, parsed once: its fences, and its prose outside code."""

    fences: list[tuple[FoundFence, int]]  # with the file line of the opening fence
    paragraphs: list[str]  # text of paragraphs, headings and list items, white space collapsed


@functools.cache
def block_parser() -> MarkdownIt:
    """CommonMark's block structure only: fences and the raw text of paragraphs are all a scan
    needs, and parsing the text inside them (the rendering does that) would triple its cost."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").disable("inline")


def scan(doc: Doc) -> Scan:
    """Parse the block as GitHub's Markdown would, for its fences and its prose. In a command,
    a block scanned before gives what it gave then (parsed.py), without Markdown's import."""
    if not doc.block.strip():
        return Scan([], [])
    found = scanned(doc.block)
    start = doc.block_line_of(0)
    return Scan(
        [(FoundFence(info, content), start + line) for info, content, line in found["fences"]],
        found["paragraphs"],
    )


def scanned(block: str) -> dict[str, list[Any]]:
    """What a scan of the block finds, as JSON keeps it; in a command, kept (parsed.py)."""
    from gbsite import parsed

    return parsed.parse("markdown-scan", _scanner_name, block, _scan)  # type: ignore[no-any-return]


def _scan(block: str) -> dict[str, list[Any]]:
    """The fences (info string, content, line in the block) and the prose, as JSON keeps them."""
    tokens = block_parser().parse(block)
    return {
        "fences": [
            [t.info, t.content, t.map[0]] for t in tokens if t.type == "fence" and t.map is not None
        ],
        "paragraphs": [
            " ".join(t.content.split()) for t in tokens if t.type == "inline" and t.content.strip()
        ],
    }


def _scanner_name() -> str:
    from gbsite import parsed
    from gbsite.fs.files import cache_name, package_versions

    return cache_name(__file__, *package_versions("markdown_it"), parsed.python_version())
