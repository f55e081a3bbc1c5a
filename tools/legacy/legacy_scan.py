"""Scan one release's sources for its graph-break calls: the free-text messages of the older
releases (`Legacy`, each a `Template` with placeholders for what is worked out at run time) and
the structured calls that replaced them (`Structured`, with their gb_type).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

# Longest placeholder name kept (a long expression says nothing more to a reader).
MAX_PLACEHOLDER_CHARS = 40

LEGACY_CALLS = {"unimplemented": 0, "unimplemented_with_warning": 2}  # name: message argument
STRUCTURED_CALLS = {"unimplemented_v2", "unimplemented_v2_with_warning", "unimplemented"}
RAISED_CLASSES = {"Unsupported"}


# --- templates of message expressions -----------------------------------------------------


@dataclass
class Template:
    """A message as text with `{placeholders}` for the parts worked out at run time."""

    parts: list[str | ast.expr] = field(default_factory=list)

    def add(self, part: str | ast.expr) -> None:
        self.parts.append(part)

    def extend(self, other: Template) -> None:
        self.parts.extend(other.parts)

    @property
    def text(self) -> str:
        out = []
        for part in self.parts:
            out.append(part.replace("{", "(").replace("}", ")") if isinstance(part, str) else "")
            if not isinstance(part, str):
                out.append("{" + placeholder_name(part) + "}")
        return "".join(out)

    @property
    def placeholders(self) -> list[str]:
        return [placeholder_name(p) for p in self.parts if not isinstance(p, str)]

    @property
    def literal_chars(self) -> int:
        return sum(len(p.strip()) for p in self.parts if isinstance(p, str))


def placeholder_name(expr: ast.expr) -> str:
    name = re.sub(r"[{}]", "", " ".join(ast.unparse(expr).split()))
    return name if len(name) <= MAX_PLACEHOLDER_CHARS else name[: MAX_PLACEHOLDER_CHARS - 3] + "..."


_PERCENT = re.compile(r"%(?:\([^)]*\))?[-#0 +]*\d*(?:\.\d+)?[sdrifxgc]|%%")
_FORMAT = re.compile(r"\{\{|\}\}|\{[^{}]*\}")


def template_of(expr: ast.expr, assigned: dict[str, list[ast.expr]], depth: int = 0) -> Template:
    """The message `expr` computes; names assigned a string in the function are followed."""
    t = Template()
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        t.add(expr.value)
    elif isinstance(expr, ast.JoinedStr):
        for value in expr.values:
            inner = value.value if isinstance(value, ast.FormattedValue | ast.Constant) else None
            if isinstance(inner, str | ast.expr):
                t.add(inner)
    elif isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        t.extend(template_of(expr.left, assigned, depth))
        t.extend(template_of(expr.right, assigned, depth))
    elif (
        isinstance(expr, ast.BinOp)
        and isinstance(expr.op, ast.Mod)
        and isinstance(expr.left, ast.Constant)
        and isinstance(expr.left.value, str)
    ):
        args = expr.right.elts if isinstance(expr.right, ast.Tuple) else [expr.right]
        _fill(t, expr.left.value, _PERCENT, list(args), "%%", "%")
    elif (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Attribute)
        and expr.func.attr == "format"
        and isinstance(expr.func.value, ast.Constant)
        and isinstance(expr.func.value.value, str)
    ):
        _fill(t, expr.func.value.value, _FORMAT, list(expr.args), "{{", "{", "}}", "}")
    elif isinstance(expr, ast.Name) and expr.id in assigned and depth < 3:
        # One of the strings assigned to the name: the longest literal stands for them (the
        # others are found as their own messages when the function raises them directly).
        options = [template_of(v, assigned, depth + 1) for v in assigned[expr.id]]
        t.extend(max(options, key=lambda o: o.literal_chars))
    else:
        t.add(expr)
    return t


def _fill(t: Template, text: str, rx: re.Pattern[str], args: list[ast.expr], *escapes: str) -> None:
    unescape = dict(zip(escapes[::2], escapes[1::2], strict=True))
    pos = 0
    for m in rx.finditer(text):
        t.add(text[pos : m.start()])
        if m.group() in unescape:
            t.add(unescape[m.group()])
        else:
            t.add(args.pop(0) if args else ast.Name(id="_"))
        pos = m.end()
    t.add(text[pos:])


# --- finding the calls ----------------------------------------------------------------------


@dataclass
class Legacy:
    release: str
    file: str
    function: str
    line: int
    template: Template


@dataclass
class Structured:
    release: str
    file: str
    function: str
    line: int
    gb_type: str
    context: str
    explanation: str
    alternatives: tuple[str, ...] = ()  # each text a name given as explanation can hold

    @property
    def text(self) -> str:
        return f"{self.gb_type} {self.context} {self.explanation}"


def _call_name(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _kw(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


class Finder(ast.NodeVisitor):
    """Every break call of one file, with the qualified name of the function around it."""

    def __init__(self, release: str, file: str) -> None:
        self.release, self.file = release, file
        self.stack: list[str] = []
        self.assigned: list[dict[str, list[ast.expr]]] = [{}]
        self.legacy: list[Legacy] = []
        self.structured: list[Structured] = []
        self.raised: set[int] = set()

    def _scope(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        self.stack.append(node.name)
        assigned: dict[str, list[ast.expr]] = {}
        if not isinstance(node, ast.ClassDef):
            for sub in ast.walk(node):
                if isinstance(sub, ast.Assign) and len(sub.targets) == 1:
                    target = sub.targets[0]
                    if isinstance(target, ast.Name):
                        assigned.setdefault(target.id, []).append(sub.value)
        self.assigned.append(assigned)
        self.generic_visit(node)
        self.assigned.pop()
        self.stack.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _scope

    def visit_Raise(self, node: ast.Raise) -> None:
        exc = node.exc
        if isinstance(exc, ast.Call) and _call_name(exc) in RAISED_CLASSES and exc.args:
            self.raised.add(id(exc))
            self._legacy(exc.args[0], node.lineno)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        name = _call_name(node)
        gb_type = _kw(node, "gb_type")
        if name in STRUCTURED_CALLS and (gb_type is not None or name != "unimplemented"):
            self._structured(node, gb_type)
        elif name in LEGACY_CALLS and id(node) not in self.raised:
            index = LEGACY_CALLS[name]
            msg = node.args[index] if len(node.args) > index else _kw(node, "msg")
            if msg is not None:
                self._legacy(msg, node.lineno)
        self.generic_visit(node)

    def _legacy(self, msg: ast.expr, line: int) -> None:
        assigned = self.assigned[-1]
        # A name the function assigns several messages to (one per branch): each is raised here.
        options = assigned.get(msg.id, [msg]) if isinstance(msg, ast.Name) else [msg]
        seen = set()
        for option in options:
            template = template_of(option, assigned)
            if template.text not in seen:
                seen.add(template.text)
                self.legacy.append(Legacy(self.release, self.file, self.function, line, template))

    def _structured(self, node: ast.Call, gb_type: ast.expr | None) -> None:
        # unimplemented_v2(gb_type, context, explanation, hints) by position or by keyword.
        names = ("gb_type", "context", "explanation")
        values = [
            _kw(node, n) or (node.args[i] if len(node.args) > i else None)
            for i, n in enumerate(names)
        ]
        if values[0] is None:
            return
        assigned = self.assigned[-1]
        texts = [template_of(v, assigned).text if v is not None else "" for v in values]
        alternatives = tuple(
            template_of(option, assigned).text
            for v in values
            if isinstance(v, ast.Name)
            for option in assigned.get(v.id, [])
        )
        self.structured.append(
            Structured(
                self.release,
                self.file,
                self.function,
                node.lineno,
                texts[0],
                texts[1],
                texts[2],
                alternatives,
            )
        )

    @property
    def function(self) -> str:
        return ".".join(self.stack) or "<module>"


def scan(release: str, root: Path) -> tuple[list[Legacy], list[Structured]]:
    legacy: list[Legacy] = []
    structured: list[Structured] = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel.endswith("_dynamo/exc.py"):
            continue  # where the break functions are defined: their `msg` is not a message
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"), rel)
        except SyntaxError:
            continue  # a file for another Python; none holds a break call today
        finder = Finder(release, rel)
        finder.visit(tree)
        legacy += finder.legacy
        structured += finder.structured
    return legacy, structured
