"""Status blocks: a page's declaration of a state that no run example can show.

    environment  reachable only with a CUDA device, several processes, or another package: the
                 blocks carry `needs=` and are shown, not run (a block that needs a newer
                 Python, or an install without a package, runs so, and its page is verified
                 like any other)
    internal     no user program reaches it; the page cites the torch file and function
    unraised     the registry keeps it, but nothing in torch raises it any more

A status block is a YAML fence that GitHub shows as it is:

    ```yaml gb-status
    status: internal
    source: torch/_dynamo/variables/builtin.py
    function: BuiltinVariable.call_self_handler
    reason: Why no user program reaches it, in a sentence or two.
    ```

A page whose break a newer torch no longer raises (or no longer lets a program reach) keeps
its examples for the older releases and adds a status block with `since: RELEASE`: the state
it declares holds from that release of the examples on (`internal` or `unraised` only). A
status block with `until: RELEASE` holds up to that release of the examples and no further
(any state): the newer releases are left to the page's examples or to a status block with a
later `since:`. Whatever its fields say, a status block holds only for the releases whose
registry has the id (pages.PageExamples.declared_for).

Parsed and validated on its own here; against the page's blocks in pages.read_page; against
the installed torch in torchsource.py.
"""

from __future__ import annotations

import re
from collections.abc import Container
from dataclasses import dataclass
from pathlib import Path

from gbsite import releases
from gbsite.docs.files import Doc
from gbsite.errors import GbsiteError
from gbsite.examples.annotations import NEEDS_HELP, python_needed, valid_needs
from gbsite.examples.vocabulary import DECLARED, LATER, State
from gbsite.registry.model import GB_ID
from gbsite.releases import order

STATUS_KIND = "gb-status"
STATUS_INFO = "yaml gb-status"
_FIELDS = {"status", "reason", "source", "function", "needs", "replaced-by", "since", "until"}
_REQUIRED = {
    State.ENVIRONMENT: ("reason", "needs", "source", "function"),
    State.INTERNAL: ("reason", "source", "function"),
    State.UNRAISED: ("reason",),
}
# Inside the torch package: no `..`, `.` or empty part (no part starts with a dot).
_SOURCE = re.compile(r"torch(?:/[A-Za-z0-9_][A-Za-z0-9_.-]*)*/[A-Za-z0-9_][A-Za-z0-9_.-]*\.py")
_FUNCTION = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


@dataclass(frozen=True, slots=True)
class Declaration:
    """A page's status block."""

    status: State  # one of DECLARED: environment, internal or unraised
    reason: str
    source: str | None  # a path inside the torch package, "torch/..."
    function: str | None  # the function or Class.method there that raises the break
    needs: str | None  # environment: cuda, distributed or package:NAME
    replaced_by: str | None  # unraised: the id that took its place, if one did
    path: Path
    line: int
    since: str | None = None  # the release of the examples it holds from; None: the page's home
    until: str | None = None  # the last release of the examples it holds for; None: no end

    @property
    def span(self) -> str:
        """Its releases as written: "from torch 2.14.1 on", "up to torch 2.14.1", "torch
        2.14.1 to 2.15.0" or "" (the page's releases)."""
        if self.since and self.until:
            return f"torch {self.since} to {self.until}"
        if self.since:
            return f"from torch {self.since} on"
        return f"up to torch {self.until}" if self.until else ""

    @property
    def cited(self) -> str | None:
        return f"{self.source} {self.function}" if self.source and self.function else None


def since_of(content: str, field: str = "since") -> str | None:
    """A status block's `since:` (or `until:`), as read_declaration reads it; None without one
    (or for a block that `gbsite check` rejects). For the caption above the block."""
    import yaml

    from gbsite.registry.yamlio import Loader, check_bounds

    try:
        check_bounds(Path("<status block>"), content)
        data = yaml.load(content, Loader=Loader)
    except (GbsiteError, yaml.YAMLError):
        return None
    if not isinstance(data, dict) or data.get(field) is None:
        return None
    return str(data[field]).strip() or None


def read_declaration(
    doc: Doc, info: str, content: str, line: int, known: Container[str]
) -> Declaration:
    import yaml

    from gbsite.registry.yamlio import Invalid, Loader, check_bounds

    def problem(message: str, at: int = line) -> GbsiteError:
        return GbsiteError.at(doc.path, at, message)

    if info.split() != STATUS_INFO.split():
        raise problem(f"a status block's info string is `{STATUS_INFO}`, not `{info}`")
    try:  # a document too deep or with too many aliases for libyaml: its line in the file
        check_bounds(doc.path, content)
    except GbsiteError as exc:
        first = exc.problems[0]
        raise problem(
            f"the status block is not valid YAML: {first.message.removeprefix('invalid YAML: ')}",
            line + (first.line or 1),
        ) from None
    try:
        # libyaml (bounded above): 225 blocks cost a fifth of the load phase with PyYAML's
        # pure-Python parser. On an error, that parser says what is wrong and where.
        # yamlio's loader refuses what the registry's files may not hold either: a number too
        # long for Python (a 5,000-digit `reason:`), a duplicate key.
        try:
            data = yaml.load(content, Loader=Loader)
        except Invalid:
            raise
        except yaml.YAMLError:
            data = yaml.safe_load(content)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = line + 1 + mark.line if mark is not None else line
        why = getattr(exc, "problem", exc)
        raise problem(f"the status block is not valid YAML: {why}", at) from None
    if not isinstance(data, dict):
        raise problem("the status block is YAML with `status:` and `reason:` fields")
    unknown = sorted(str(k) for k in data if k not in _FIELDS)
    if unknown:
        raise problem(
            f"unknown field `{unknown[0]}` in the status block "
            f"(fields: {', '.join(sorted(_FIELDS))})"
        )
    # Text, each of them: a number, a date or a list is no reason, path or name (and turning a
    # 4,000-digit number into text takes Python seconds).
    for key, value in data.items():
        if value is not None and not isinstance(value, str):
            raise problem(f'`{key}:` is text, not {type(value).__name__} (quote it: {key}: "...")')
    fields = {str(k): ("" if v is None else v.strip()) for k, v in data.items()}
    text = fields.get("status", "")
    if text not in DECLARED:
        raise problem(
            f"status `{text}`: a status block declares {', '.join(DECLARED)} "
            "(verified comes from the examples, none from their absence)"
        )
    status = State(text)
    for name in _REQUIRED[status]:
        if not fields.get(name):
            what = {
                "reason": "say in `reason:` why there is no run example",
                "source": "cite in `source:` the torch file that raises it (torch/...py)",
                "function": "name in `function:` the function there that raises it",
                "needs": f"say in `needs:` what it takes: {NEEDS_HELP}",
            }[name]
            raise problem(f"a `{status}` status block without `{name}`: {what}")
    source, function = fields.get("source") or None, fields.get("function") or None
    if source is not None and not _SOURCE.fullmatch(source):
        raise problem(f"`source: {source}` is a path in the torch package: torch/....py")
    if function is not None and not _FUNCTION.fullmatch(function):
        raise problem(f"`function: {function}` is a name such as Class.method")
    needs = fields.get("needs") or None
    if needs is not None and not valid_needs(needs):
        raise problem(f"`needs: {needs}`: {NEEDS_HELP}")
    if needs is not None and (python_needed(needs) or needs.startswith("without:")):
        what = "another Python runs with it" if python_needed(needs) else "no package runs so"
        raise problem(
            f"`needs: {needs}`: a block that needs {what}, and the page is verified by its "
            "runs: remove the status block"
        )
    replaced = fields.get("replaced-by") or None
    if replaced is not None and (not GB_ID.fullmatch(replaced) or replaced not in known):
        raise problem(f"`replaced-by: {replaced}` is not an id of the registry")
    since = fields.get("since") or None
    if since is not None and not releases.is_release(since):
        raise problem(f"`since: {since[:40]}` is a torch release of the examples, such as 2.15.0")
    if since is not None and status not in LATER:
        raise problem(
            f"`since:` is for a break a newer torch no longer raises or lets a program reach "
            f"(status {' or '.join(LATER)}), not `{status}`"
        )
    until = fields.get("until") or None
    if until is not None and not releases.is_release(until):
        raise problem(f"`until: {until[:40]}` is a torch release of the examples, such as 2.14.1")
    if since is not None and until is not None and order(until) < order(since):
        raise problem(f"`until: {until}` is older than `since: {since}`: it would hold nowhere")
    return Declaration(
        status,
        fields["reason"],
        source,
        function,
        needs,
        replaced,
        doc.path,
        line,
        since,
        until,
    )
