"""Mine the graph-break messages of torch releases from before the registry, and map each to
the registry id that replaced it: writes `registry/legacy-messages.json`.

    PYTHONPATH=src python tools/legacy/mine.py            # fetch what is missing, mine, write
    PYTHONPATH=src python tools/legacy/mine.py --check    # exit 1 when the file would change

Before 2.8.0 Dynamo raised graph breaks with free-text messages (`unimplemented(msg)`,
`unimplemented_with_warning(e, code, msg)`, `raise Unsupported(msg)`); from 2.7 on, call sites
were converted one by one to `unimplemented_v2(gb_type=..., context=..., explanation=...,
hints=...)` (later spelled `unimplemented(gb_type=...)`), whose gb_type names a registry entry.
So a legacy message maps to the id of the structured call that took its place in the same
function (file and qualified name) in the first newer release that no longer has the message.

Sources: each release's macOS arm64 wheel (the smallest; every platform ships the same Python)
is downloaded with pip, only `torch/_dynamo/**.py` and a few sibling packages are kept under
the cache (`~/.cache/gbsite/legacy-src/R/`, or `--cache DIR`), and the wheel is deleted.
This script is not part of building the site: the site reads the JSON it writes.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import functools
import json
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gbsite import releases as release_order

# Releases whose free-text messages are mined (the newest patch of each minor before 2.8).
LEGACY_RELEASES = ("2.0.1", "2.1.2", "2.2.2", "2.3.1", "2.4.1", "2.5.1", "2.6.0", "2.7.1")
# Releases read only to find the structured call that replaced a message, oldest first.
LATER_RELEASES = ("2.8.0", "2.9.0", "2.10.0", "2.11.0", "2.12.0", "2.13.0", "2.14.0", "2.15.0")
# The packages of a wheel that raise graph breaks.
KEPT_PREFIXES = (
    "torch/_dynamo/",
    "torch/_higher_order_ops/",
    "torch/_functorch/",
    "torch/_subclasses/",
    "torch/_export/",
)
DEFAULT_CACHE = Path.home() / ".cache" / "gbsite" / "legacy-src"
TORCH_ENVS = Path.home() / ".cache" / "gbsite" / "torch"
DEFAULT_OUT = Path("registry") / "legacy-messages.json"
# Below this similarity, a message is not matched to one of several structured calls.
MIN_SIMILARITY = 0.45
# Literal characters a template needs to be told apart from others in a log.
MIN_LITERAL_CHARS = 10
# Longest placeholder name kept (a long expression says nothing more to a reader).
MAX_PLACEHOLDER_CHARS = 40

LEGACY_CALLS = {"unimplemented": 0, "unimplemented_with_warning": 2}  # name: message argument
STRUCTURED_CALLS = {"unimplemented_v2", "unimplemented_v2_with_warning", "unimplemented"}
RAISED_CLASSES = {"Unsupported"}


# --- fetching -----------------------------------------------------------------------------


def fetch(release: str, cache: Path) -> Path:
    """The extracted sources of `release`, downloaded into the cache the first time."""
    dest = cache / release
    if dest.is_dir():
        return dest
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        # Old releases have no wheel for a new Python, new ones none for an old Python.
        for python in ("3.11", "3.12"):
            cmd = [
                sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                "--platform", "macosx_14_0_arm64", "--platform", "macosx_11_0_arm64",
                "--python-version", python, "--quiet", f"torch=={release}", "-d", tmp,
            ]  # fmt: skip
            print(f"fetching torch {release} (Python {python}) ...", file=sys.stderr)
            if subprocess.run(cmd, stderr=subprocess.DEVNULL).returncode == 0:
                break
        staged = Path(tmp) / "src"
        wheels = list(Path(tmp).glob("*.whl"))
        if wheels:
            with zipfile.ZipFile(wheels[0]) as z:
                for name in z.namelist():
                    if name.startswith(KEPT_PREFIXES) and name.endswith(".py"):
                        z.extract(name, staged)
            wheels[0].unlink()
        else:
            # The environment `gbsite check --examples --torch R` made for the release.
            installed = sorted(TORCH_ENVS.glob(f"{release}/lib/python*/site-packages/torch"))
            if not installed:
                raise SystemExit(f"mine.py: cannot download torch {release} with pip")
            for prefix in KEPT_PREFIXES:
                folder = installed[0].parent / prefix
                if folder.is_dir():
                    shutil.copytree(folder, staged / prefix, ignore=_not_python)
        staged.rename(dest)  # whole or not at all: a killed fetch leaves no half folder
    return dest


def _not_python(folder: str, names: list[str]) -> list[str]:
    return [n for n in names if not n.endswith(".py") and not (Path(folder) / n).is_dir()]


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


# --- mapping to registry ids ----------------------------------------------------------------


@functools.cache
def _words(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9_]+", re.sub(r"\{[^{}]*\}", " ", text.lower())))


@functools.cache
def similarity(a: str, b: str) -> float:
    """How alike the fixed words of two messages are, in order (0 to 1)."""
    x, y = _words(a).split(), _words(b).split()
    return difflib.SequenceMatcher(None, x, y, autojunk=False).ratio() if x and y else 0.0


def registry_types(registry_dir: Path) -> dict[str, list[str]]:
    """gb_type text (any of an entry's wordings) -> ids, from the committed registry."""
    from gbsite.registry import store

    out: dict[str, list[str]] = {}
    for entry in store.load(registry_dir).entries.values():
        for item in entry.history:
            ids = out.setdefault(item.text.gb_type, [])
            if entry.id not in ids:
                ids.append(entry.id)
    return out


@dataclass
class Message:
    template: Template
    file: str
    function: str
    sites: list[Legacy] = field(default_factory=list)
    id: str | None = None
    how: str = ""


def group(legacy: Sequence[Legacy]) -> list[Message]:
    """One message per (template, file, function), with its sites in every release."""
    messages: dict[tuple[str, str, str], Message] = {}
    for site in legacy:
        key = (site.template.text, site.file, site.function)
        if key not in messages:
            messages[key] = Message(site.template, site.file, site.function)
        messages[key].sites.append(site)
    return list(messages.values())


@dataclass
class Call:
    """A break call of a function, in line order: free text or structured."""

    key: str  # "L:" + template text, or "S:" + gb_type
    legacy: Legacy | None
    structured: Structured | None


@dataclass
class Release:
    label: str
    calls: dict[tuple[str, str], list[Call]]  # (file, function) -> its calls by line
    texts: dict[str, list[tuple[str, str]]]  # template text -> (file, function) raising it
    structured: list[Structured]


def index_release(
    label: str, legacy: Sequence[Legacy], structured: Sequence[Structured]
) -> Release:
    calls: dict[tuple[str, str], list[tuple[int, Call]]] = {}
    texts: dict[str, list[tuple[str, str]]] = {}
    for site in legacy:
        where = (site.file, site.function)
        calls.setdefault(where, []).append((site.line, Call("L:" + site.template.text, site, None)))
        if where not in texts.setdefault(site.template.text, []):
            texts[site.template.text].append(where)
    for st in structured:
        calls.setdefault((st.file, st.function), []).append(
            (st.line, Call("S:" + st.gb_type, None, st))
        )
    ordered = {k: [c for _, c in sorted(v, key=lambda x: x[0])] for k, v in calls.items()}
    return Release(label, ordered, texts, list(structured))


def closeness(text: str, st: Structured) -> float:
    """How alike a free-text message and a structured call are: the old message often became
    the context or the explanation, or was shortened into the type."""
    texts = (st.text, st.context, st.explanation, st.gb_type, *st.alternatives)
    return max(max(similarity(text, t), CONTAINED * containment(text, t)) for t in texts)


@functools.cache
def containment(old: str, new: str) -> float:
    """The share of the old message's words (three or more) that the new text uses."""
    old_words = [w for w in _words(old).split() if len(w) > 1]
    new_words = set(_words(new).split())
    if len(old_words) < 3:
        return 0.0
    return sum(w in new_words for w in old_words) / len(old_words)


# Containment counts a little less than likeness: a long text contains many words.
CONTAINED = 0.9


# Reworded free text in the same place (a typo fixed, a detail added) counts as the same message.
REWORDED = 0.75
# A structured call anywhere in the release, when the function lost the message without trace.
ELSEWHERE = 0.7


def map_message(msg: Message, releases: Sequence[Release], types: dict[str, list[str]]) -> None:
    """Set msg.id and msg.how: follow the message release by release (moved, reworded) to the
    structured call that took its place, aligning the function's calls before and after."""
    text, where = msg.template.text, (msg.file, msg.function)
    last = msg.sites[-1].release
    steps: list[str] = []
    by_label = [r.label for r in releases]
    for n in range(by_label.index(last) + 1, len(releases)):
        before, after = releases[n - 1], releases[n]
        if where in after.texts.get(text, []):
            continue  # still raised as free text here
        if after.texts.get(text):
            where = after.texts[text][0]  # moved to another function
            steps.append(f"moved to {where[1]} in {after.label}")
            continue
        old_calls = before.calls.get(where, [])
        new_where = where if where in after.calls else _moved(where, after)
        new_calls = after.calls.get(new_where, []) if new_where else []
        candidates = _aligned(text, old_calls, new_calls)
        reworded = [c for c in candidates if c.legacy and _same_message(text, c.key[2:])]
        if reworded:
            assert reworded[0].legacy is not None
            text, where = reworded[0].key[2:], new_where or where
            steps.append(f"reworded in {after.label}")
            continue
        scored = sorted(
            ((closeness(text, c.structured), c.structured) for c in candidates if c.structured),
            key=lambda x: -x[0],
        )
        how = f"in place of it in {after.label}"
        if len(scored) > 1 and scored[0][0] - scored[1][0] < 0.05 and _ids(scored[:2], types) > 1:
            listed = ", ".join(sorted({i for _, s in scored if (i := _id_of(s.gb_type, types))}))
            msg.how = (
                f"ambiguous: {len(scored)} structured graph breaks took its place in "
                f"{after.label} ({listed})"
            )
            return
        if not scored:
            anywhere = sorted(
                ((closeness(text, s), s) for s in after.structured), key=lambda x: -x[0]
            )
            if anywhere and anywhere[0][0] >= ELSEWHERE:
                scored, how = anywhere[:1], f"the closest wording anywhere in {after.label}"
        if not scored:
            gone = new_where is None
            msg.how = (
                f"{where[1]} is gone from torch {after.label}" if gone
                else f"removed from {where[1]} in torch {after.label} with no structured "
                "graph break in its place"
            )  # fmt: skip
            return
        best = scored[0][1]
        found = _id_of(best.gb_type, types)
        if found is None:
            msg.how = (
                f"torch {after.label} raises {best.gb_type!r} in its place, a type no "
                "registry lists"
            )
            return
        steps.append(f"{how}: {best.file}:{best.line} ({best.function})")
        msg.id, msg.how = found, "; ".join(steps)
        return
    msg.how = f"still raised as free text in torch {releases[-1].label}"


def _same_message(old: str, new: str) -> bool:
    """A rewording: alike, or the old words all kept with details added."""
    if similarity(old, new) >= REWORDED:
        return True
    old_words, new_words = _words(old).split(), set(_words(new).split())
    return len(old_words) >= 3 and all(w in new_words for w in old_words)


def _ids(scored: Sequence[tuple[float, Structured]], types: dict[str, list[str]]) -> int:
    return len({_id_of(s.gb_type, types) for _, s in scored})


def _moved(where: tuple[str, str], release: Release) -> tuple[str, str] | None:
    """The function in another file, when exactly one file has it."""
    found = [k for k in release.calls if k[1] == where[1]]
    return found[0] if len(found) == 1 else None


def _aligned(text: str, old: Sequence[Call], new: Sequence[Call]) -> list[Call]:
    """The calls of the new version of a function that stand where the message stood in the
    old one: calls unchanged between the two are anchors, and what changed between two anchors
    replaced what was there. When as many replaced as were replaced, the one at the same
    position."""
    keys_old, keys_new = [c.key for c in old], [c.key for c in new]
    if "L:" + text not in keys_old:
        return list(new)
    i = keys_old.index("L:" + text)
    sm = difflib.SequenceMatcher(None, keys_old, keys_new, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if i1 <= i < i2:
            if tag == "delete":
                return []
            if tag == "replace" and i2 - i1 == j2 - j1:
                return [new[j1 + i - i1]]
            return list(new[j1:j2])
    return []


def _id_of(gb_type: str, types: dict[str, list[str]]) -> str | None:
    ids = types.get(gb_type)
    if ids:
        return ids[0]
    # A gb_type built at run time (an f-string): match its literal part.
    rx = re.compile(re.sub(r"\\\{[^{}]*\\\}", ".*", re.escape(gb_type)) + "$")
    found = [i for t, ids in types.items() if rx.match(t) for i in ids]
    return found[0] if len(set(found)) == 1 else None


# --- output ---------------------------------------------------------------------------------


def build(
    cache: Path, registry_dir: Path, releases: Sequence[str], later: Sequence[str]
) -> dict[str, Any]:
    legacy: list[Legacy] = []
    indexed = []
    for release in [*releases, *later]:
        found, structured = scan(release, fetch(release, cache))
        if release in releases:
            legacy += found
        indexed.append(index_release(release, found, structured))
    types = registry_types(registry_dir)
    messages = group(legacy)
    entries: list[dict[str, Any]] = []
    for msg in messages:
        if msg.template.literal_chars < MIN_LITERAL_CHARS:
            msg.how = "the message is worked out at run time: too little fixed text to match"
        else:
            map_message(msg, indexed, types)
        rels = sorted({s.release for s in msg.sites}, key=release_order.order)
        entries.append(
            {
                "template": msg.template.text,
                "placeholders": msg.template.placeholders,
                "id": msg.id,
                ("how" if msg.id else "reason"): msg.how,
                "releases": rels,
                "sites": [
                    {"release": s.release, "file": s.file, "function": s.function, "line": s.line}
                    for s in msg.sites
                ],
            }
        )
    entries.sort(key=lambda e: (e["template"], e["sites"][0]["file"], e["sites"][0]["function"]))
    return {
        "about": (
            "Graph-break messages of torch releases before the registry, each with the registry "
            "id that replaced it at the same code site. Written by tools/legacy/mine.py; do not "
            "edit by hand."
        ),
        "releases": list(releases),
        "mapped_with": list(later),
        "messages": entries,
    }


def dump(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False, sort_keys=False) + "\n"


# How the summary groups the reasons a message stays unmapped: kind -> words of the reason.
REASON_KINDS = {
    "its function is gone": " is gone from torch ",
    "removed, nothing in its place": "with no structured graph break in its place",
    "several breaks took its place": "ambiguous: ",
    "only run-time text": "worked out at run time",
    "its new type is in no registry": "a type no registry lists",
    "still free text": "still raised as free text",
}


def summary(data: dict[str, Any]) -> str:
    lines = ["release  messages  mapped  unmapped"]
    for release in data["releases"]:
        here = [m for m in data["messages"] if release in m["releases"]]
        mapped = sum(1 for m in here if m["id"])
        lines.append(f"{release:8} {len(here):8} {mapped:7} {len(here) - mapped:9}")
    total = data["messages"]
    mapped = sum(1 for m in total if m["id"])
    lines.append(f"{'all':8} {len(total):8} {mapped:7} {len(total) - mapped:9}")
    reasons: dict[str, int] = {}
    for m in total:
        if not m["id"]:
            key = next((k for k, v in REASON_KINDS.items() if v in m["reason"]), "other")
            reasons[key] = reasons.get(key, 0) + 1
    lines += [f"  unmapped: {n:4}  {r}" for r, n in sorted(reasons.items(), key=lambda x: -x[1])]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="extracted sources")
    parser.add_argument("--registry", type=Path, default=Path("registry"))
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--check", action="store_true", help="exit 1 if --out would change")
    args = parser.parse_args(argv)
    data = build(args.cache, args.registry, LEGACY_RELEASES, LATER_RELEASES)
    text = dump(data)
    print(summary(data), file=sys.stderr)
    old = args.out.read_text(encoding="utf-8") if args.out.exists() else None
    if args.check:
        if old != text:
            print(f"{args.out}: not what tools/legacy/mine.py writes; run it", file=sys.stderr)
            return 1
        return 0
    if old != text:
        tmp = args.out.with_suffix(".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
