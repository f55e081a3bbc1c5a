"""An annotated example as it was run: the code the checker ran, compile call included.

The checker (driver.py) compiles NAME right after the top-level statement that binds it. A
page shows, and Copy copies, that same program: the compile call is written into the code at
that place, so that pasting a repro into a file and running it shows the break. The Markdown
source keeps the block as its author wrote it: the record knows a block by that code (its
digest), and GitHub shows it as written.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from gbsite.examples.annotations import NO_FULLGRAPH, SCRIPT, WRONG, Annotation, Block
from gbsite.examples.driver import binds


@dataclass(frozen=True, slots=True)
class Shown:
    code: str  # what the page shows and Copy copies
    added: tuple[int, ...] = ()  # 1-based lines of `code` the build added: the compile call


def compile_call(a: Annotation) -> str:
    """The statement the checker runs right after NAME is bound, as Python source."""
    name = a.compile_name
    graph = "" if a.fullgraph == NO_FULLGRAPH else "fullgraph=True, "
    return f'{name} = torch.compile({name}, {graph}backend="{a.backend}")'


def _binding(code: str, name: str) -> tuple[int, bool, bool] | None:
    """Where the first top-level statement binding `name` ends (its last line, 1-based),
    whether it is a function or class, and whether `torch` is bound by then; None if no
    statement binds it. In a command, found once for the same code and name (parsed.py):
    Python's parse of a block was a tenth of rendering one, and a cold build's worker finds
    them while the build loads (site/ahead.py)."""
    from gbsite import parsed

    found = parsed.parse("binding", _finder_name, f"{name}\0{code}", _as_list)
    return None if found is None else (found[0], found[1], found[2])


def _as_list(text: str) -> list[int | bool] | None:
    """_find_binding as JSON gives it back (a list), so that parsed.py keeps it."""
    found = _find_binding(text)
    return None if found is None else list(found)


def _finder_name() -> str:
    from gbsite import parsed
    from gbsite.fs.files import cache_name

    return cache_name(__file__, parsed.python_version())  # Python's grammar parses the code


def _find_binding(text: str) -> tuple[int, bool, bool] | None:
    """_binding of the name and code in `text` (the name, a NUL, the code)."""
    name, _, code = text.partition("\0")
    try:
        body = ast.parse(code).body
    except SyntaxError:  # newer syntax than this Python's (a block that needs python:3.N)
        return _binding_by_lines(code.split("\n"), name)
    at = next((n for n, s in enumerate(body) if binds(s, name)), None)
    if at is None:
        return None
    s = body[at]
    compound = isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    return s.end_lineno or s.lineno, compound, any(binds(t, "torch") for t in body[: at + 1])


_TOP = re.compile(r"[^\s#)\]}]")  # a line that starts a top-level statement


def _binding_by_lines(lines: list[str], name: str) -> tuple[int, bool, bool] | None:
    """_binding for code this Python cannot parse, from its top-level lines: a `def`, `class`
    or assignment of `name` at column 0, ending at its last line before the next line at
    column 0 (a closing bracket or a comment there starts nothing)."""
    n = re.escape(name)
    defines = re.compile(rf"(?:async\s+def|def|class)\s+{n}\b")
    assigns = re.compile(rf"{n}\s*(?::[^=]*)?=(?!=)")
    has_torch = False
    for i, line in enumerate(lines):
        has_torch = has_torch or re.match(r"import\s+torch\b", line) is not None
        compound = defines.match(line) is not None
        if not (compound or assigns.match(line)):
            continue
        end = i + 1
        for j in range(i + 1, len(lines)):
            if _TOP.match(lines[j]):
                break
            if lines[j].strip() and not lines[j].lstrip().startswith("#"):
                end = j + 1
        return end, compound, has_torch
    return None


def as_run(code: str, a: Annotation) -> Shown:
    """The program the checker runs for a block with these options, as the page shows it. A
    block that runs as written (compile=none, gb-wrong), or whose NAME is never bound at the
    top level (`gbsite check --examples` reports it), is shown as written."""
    if a.kind == WRONG or a.compile_name == SCRIPT:
        return Shown(code)
    lines = code.split("\n")
    found = _binding(code, a.compile_name)
    if found is None:
        return Shown(code)
    end, compound, has_torch = found
    inserted = [compile_call(a)]
    if a.fullgraph == NO_FULLGRAPH:
        # The checker reads the graph-break log; a reader sees it printed.
        inserted.append("torch._logging.set_logs(graph_breaks=True)")
    if not has_torch:
        inserted.insert(0, "import torch")
    # Between this statement and the next there are only blank lines and comments: the call
    # goes after the blank lines, and as many follow it, so that it reads as a statement of
    # its own (two blank lines after a function, none after an assignment).
    blanks = 0
    while end + blanks < len(lines) and not lines[end + blanks].strip():
        blanks += 1
    after = end + blanks
    if after == len(lines):
        # The binding statement is the last one: the call ends the program.
        trailing = lines[end:]
        gap = [""] * (2 if compound else 0)
        new = lines[:end] + gap + inserted + (trailing[-1:] if trailing else [])
        first = end + len(gap) + 1
    else:
        new = lines[:after] + inserted + [""] * blanks + lines[after:]
        first = after + 1
    return Shown("\n".join(new), tuple(range(first, first + len(inserted))))


def of_block(b: Block) -> Shown:
    """A block of a page, as it was run."""
    a = Annotation(b.kind, b.compile_name, b.backend, b.needs, b.eager, b.fullgraph, b.since)
    return as_run(b.code, a)
