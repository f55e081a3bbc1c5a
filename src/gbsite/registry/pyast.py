"""Python source read without unbounded recursion: torch's files are input like any other.

`ast.parse` recurses as deep as the expression it reads, and so do `ast.unparse` and
`ast.NodeVisitor`: a `gb_type=` argument of 700 strings joined with `+` parses, then overflows
Python's stack when unparsed (RecursionError). The readers of a torch tree (resolve.py,
sites.py, examples/torchsource.py) parse with `parse` and, before anything recursive reads an
expression, ask `too_deep`; what is too deep they skip, as they skip a file that does not parse.
"""

from __future__ import annotations

import ast

# Levels of nesting an expression may have: torch's deepest are a few dozen; ast.unparse takes
# two or three Python frames a level, so 100 levels stay far below the interpreter's limit.
MAX_NESTING = 100


def parse(text: str) -> ast.Module | None:
    """The module's tree, or None when it is not Python this interpreter reads (a syntax error,
    a NUL byte, or nesting too deep for the parser)."""
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def too_deep(node: ast.AST, limit: int = MAX_NESTING) -> bool:
    """Whether `node` has a node nested more than `limit` levels below it (looked at with a
    list of its own, not by recursion)."""
    stack = [(node, 0)]
    while stack:
        current, depth = stack.pop()
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(current))
    return False


def too_deep_notice(path: str, node: ast.expr | ast.stmt) -> str:
    """What a reader says of a graph-break call it skips because it is too deep."""
    return (
        f"{path}:{node.lineno}: a graph-break call nested more than {MAX_NESTING} levels deep; "
        "skipped"
    )
