"""What one run of `gbsite check --examples` leaves for CI: a file per torch release.

CI runs the examples in one job per release (a machine, a torch each); each job writes
`outcomes-RELEASE.json` with `--outcomes DIR`, and a last job merges them into the record
(`gbsite ci merge`, record.py) and summarises them for the pull request (summary.py). The file
is the JSON of `check --examples --format json` for one release, with a format tag:

    {"format": "gbsite-outcomes/1", "release": "2.13.0", "torch": "2.13.0+cpu",
     "results": [{"id": "GB0003", "kind": "gb-repro", "sha256": "...", "path": "docs/gb/...",
                  "line": 41, "passed": true, "outcome": "breaks", "summary": "...",
                  "details": "", "seconds": 0.4}, ...],
     "problems": [...], "notes": [...]}

A run with another backend (`--backend inductor`) says so in `"backend"`; its file is
`outcomes-RELEASE-BACKEND.json` and its outcomes go to the record under `RELEASE/BACKEND`.

Each outcome is its text (ExampleCheck.as_dict writes str(outcome); read() parses it back to a
vocabulary.Outcome). A fork's pull request can forge these files: read() checks the form of
every value, check_blocks() that each names a block its page has, and merge_runs() never lets
one replace what the record holds. Only blocks that passed the check are recorded; a failed
block is reported, and stays without an outcome (its page pending) until it is fixed and run
again.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gbsite.errors import GbsiteError, Problem
from gbsite.examples import record as rec
from gbsite.examples.annotations import KINDS, Block
from gbsite.examples.vocabulary import Outcome
from gbsite.fs.files import InputTooLarge, read_input, write_atomic
from gbsite.registry.model import GB_ID
from gbsite.releases import is_build, is_release, release_of

FORMAT = "gbsite-outcomes/1"
_SHA256 = re.compile(r"[0-9a-f]{64}")
MAX_BYTES = 64 * 1024 * 1024  # a run of every block with long failures is well under 10 MB


def file_name(release: str, backend: str = "") -> str:
    return f"outcomes-{release}{'-' + backend if backend else ''}.json"


def write(folder: Path, data: dict[str, object], root: Path) -> Path:
    """Write one release's run (ExampleCheck.as_dict()) into `folder`, each block's path
    relative to the project's `root` (the jobs' checkouts are in different folders)."""
    results = data.get("results")
    for item in results if isinstance(results, list) else []:
        with contextlib.suppress(ValueError):  # outside the project: kept as it is
            item["path"] = Path(item["path"]).resolve().relative_to(root).as_posix()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / file_name(str(data["release"]), str(data.get("backend") or ""))
    text = json.dumps({"format": FORMAT, **data}, indent=1, ensure_ascii=False) + "\n"
    write_atomic(path, text.encode("utf-8"))
    return path


@dataclass(frozen=True, slots=True)
class BlockRun:
    """One block's run with one release, as a job reported it."""

    id: str
    kind: str
    sha256: str
    path: str  # as the job printed it (relative to the project)
    line: int
    passed: bool  # did what the check requires (its promise with its home release)
    outcome: Outcome | None  # None: the process failed (timeout, crash): nothing to record
    summary: str
    details: str

    @property
    def key(self) -> rec.Key:
        return self.id, self.sha256


@dataclass(frozen=True, slots=True)
class Run:
    """One job's run: a release, the torch build it had, and each block it ran."""

    path: Path
    release: str
    torch: str
    blocks: tuple[BlockRun, ...]
    problems: tuple[str, ...]  # status blocks and failed blocks, as `path:line: message`
    seconds: float
    backend: str = ""  # the fixes were run with it instead of their own (record.BACKENDS)
    text: str = field(default="", repr=False, compare=False)  # the file's, for its lines

    def line_of(self, n: int) -> int | None:
        """The line of the file where `blocks[n]`'s result is."""
        return result_line(self.text, n)

    @property
    def key(self) -> str:
        """Where its outcomes go in the record's rows."""
        return rec.run_key(self.release, self.backend)


def _bad(path: Path, why: str, text: str = "", result: int | None = None) -> GbsiteError:
    """The one-line error of a file that is not a job's: on the line of the result (or of the
    top-level key) it is about, when the file's `text` tells."""
    line = result_line(text, result) if result is not None else _key_line(text, why)
    return GbsiteError.at(path, line, f"not an outcomes file of gbsite check --examples ({why})")


_SPACE = re.compile(r"\s*")
# A JSON string (skipped whole: brackets and commas in it are text), or punctuation.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}:,]')


def result_line(text: str, n: int) -> int | None:
    """The line where `results[n]` starts in the JSON `text` (one json.loads accepted), if it
    can be told: commas are counted in the list, strings skipped."""
    depth, key, inside, commas = 0, "", False, 0
    for token in _TOKEN.finditer(text):
        t = token.group()
        if t in "[{":
            depth += 1
            if not inside and t == "[" and depth == 2 and key == '"results"':
                inside = True
                if n == 0:
                    return _line_after(text, token.end())
        elif t in "]}":
            depth -= 1
            if inside and depth < 2:
                return None
        elif not inside and depth == 1 and t.startswith('"'):
            key = t
        elif inside and depth == 2 and t == ",":
            commas += 1
            if commas == n:
                return _line_after(text, token.end())
    return None


def _key_line(text: str, why: str) -> int | None:
    """The line of the top-level key a message is about (`release`, `torch`, `backend`)."""
    found = re.match(r"`(\w+)`", why)
    if not text or found is None:
        return None
    at = re.search(rf'^\s*"{found.group(1)}"\s*:', text, re.MULTILINE)
    return text.count("\n", 0, at.start()) + 1 if at else None


def _line_after(text: str, offset: int) -> int:
    """The line of the first character after `offset` that is not white space."""
    at = _SPACE.match(text, offset)
    return text.count("\n", 0, at.end() if at else offset) + 1


def read(path: Path) -> Run:
    """A job's outcomes file, validated: anything else is a one-line error."""
    # CI's files are what a fork's pull request can forge: a pipe, a device or a huge file is
    # refused before it is read (the outcomes folder is the tree it must stay in).
    try:
        raw = read_input(path, root=path.parent, limit=MAX_BYTES)
    except FileNotFoundError:
        raise GbsiteError.at(path, None, "no such file") from None
    except InputTooLarge:
        raise _bad(path, f"larger than {MAX_BYTES // 2**20} MB") from None
    except OSError as exc:
        raise GbsiteError.at(path, None, f"cannot read: {exc.strerror}") from None
    try:
        text = raw.decode("utf-8")
        data = json.loads(text)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise _bad(path, f"invalid JSON: {str(exc)[:100]}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise _bad(path, f"no `format: {FORMAT}`")
    release, torch = data.get("release"), data.get("torch")
    results, problems = data.get("results"), data.get("problems", [])
    if not isinstance(release, str) or not isinstance(torch, str):
        raise _bad(path, "`release` and `torch` are strings")
    # Both reach the summary and the log: a release of the examples, and a torch build of it.
    if not is_release(release):
        raise _bad(path, f"`release` {release[:40]!r} is not a release such as 2.13.0", text)
    if not is_build(torch):
        raise _bad(path, f"`torch` {torch[:40]!r} is not a torch build such as 2.13.0+cpu", text)
    backend = data.get("backend") or ""
    if backend not in ("", *rec.BACKENDS):
        raise _bad(path, f"`backend` is one of {', '.join(rec.BACKENDS)}", text)
    if not isinstance(results, list) or not isinstance(problems, list):
        raise _bad(path, "`results` and `problems` are lists")
    blocks = []
    for n, item in enumerate(results):
        try:
            blocks.append(_block(item))
        except (KeyError, TypeError, ValueError) as exc:
            raise _bad(path, f"result {n}: {exc}", text, n) from None
    said = [_problem_text(p) for p in problems]
    seconds = data.get("seconds", 0)
    return Run(
        path,
        release,
        torch,
        tuple(blocks),
        tuple(said),
        float(seconds) if isinstance(seconds, int | float) else 0.0,
        backend,
        text,
    )


def _block(item: object) -> BlockRun:
    if not isinstance(item, dict):
        raise TypeError("not an object")
    strings = {k: item[k] for k in ("id", "kind", "sha256", "path", "summary")}
    if not all(isinstance(v, str) for v in strings.values()):
        raise TypeError("id, kind, sha256, path and summary are strings")
    line, passed, text = item["line"], item["passed"], item["outcome"]
    if not isinstance(line, int) or isinstance(line, bool) or not isinstance(passed, bool):
        raise TypeError("line is a number and passed is true or false")
    # What the summary and the record are made of: only values gbsite itself writes.
    if not GB_ID.fullmatch(strings["id"]):
        raise ValueError(f"id {strings['id'][:40]!r} is not an id like GB0025")
    if strings["kind"] not in KINDS:
        raise ValueError(f"kind {strings['kind'][:40]!r} is not one of {', '.join(KINDS)}")
    if not _SHA256.fullmatch(strings["sha256"]):
        raise ValueError(f"sha256 {strings['sha256'][:40]!r} is not a sha256")
    if not 0 < line < 10**9:
        raise ValueError(f"line {line} is not a line number")
    outcome = Outcome.parse(text) if isinstance(text, str) else None
    if text is not None and outcome is None:
        raise ValueError(f"unknown outcome {str(text)[:60]!r}")
    details = item.get("details") or ""
    return BlockRun(
        strings["id"],
        strings["kind"],
        strings["sha256"],
        strings["path"],
        line,
        passed,
        outcome,
        strings["summary"],
        details if isinstance(details, str) else "",
    )


def _problem_text(p: object) -> str:
    if isinstance(p, dict):
        where = ":".join(str(p[k]) for k in ("path", "line") if p.get(k) is not None)
        return f"{where}: {p.get('message', '')}" if where else str(p.get("message", ""))
    return str(p)


def found(paths: Iterable[Path]) -> list[Path]:
    """The outcomes files named, a folder standing for the `outcomes-*.json` files in it (and
    in its sub-folders: CI downloads each job's artifact into a folder of its own)."""
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            out += sorted(path.rglob("outcomes-*.json"))
        else:
            out.append(path)
    return out


def check_blocks(runs: Iterable[Run], blocks: Mapping[rec.Key, Block], docs: str) -> None:
    """Each result names, by its path, the docs file of its id (`docs`: the docs folder, as the
    files give it) and, by its sha256, a runnable block of that kind the page has now: the
    first one that does not is a one-line error on its line of its file."""
    for run in runs:
        for n, b in enumerate(run.blocks):
            page = f"{docs}/{b.id.lower()}.md"
            found = blocks.get(b.key)
            if b.path != page:
                why = f"path {b.path[:80]!r} is not {page}, the page of {b.id}"
            elif found is None:
                why = (
                    f"sha256 {b.sha256[:12]}... is not of a block of {page} as it is here (a "
                    "file of another commit, or forged: run the examples again)"
                )
            elif found.kind != b.kind:
                why = f"the block of sha256 {b.sha256[:12]}... of {page} is a {found.kind}"
            else:
                continue
            raise GbsiteError.at(run.path, run.line_of(n), f"result {n}: {why}")


@dataclass(frozen=True, slots=True)
class Refused:
    """An outcome not merged: the record already holds another one for its block (whose code
    is then unchanged), or it is not what the block promises where it must keep its promise."""

    run: Run
    block: BlockRun
    why: str

    def __str__(self) -> str:
        b = self.block
        return (
            f"{b.path}:{b.line}: {b.kind} `{b.outcome}` with torch {self.run.key} not merged "
            f"({self.run.path.name}): {self.why}"
        )


@dataclass(frozen=True, slots=True)
class Merge:
    """What merging some jobs' outcomes into the record did."""

    runs: list[Run]
    recorded: dict[str, dict[rec.Key, Outcome]]  # release -> block -> outcome, new in the record
    stale: int  # outcomes of blocks no page has any more (edited since the job ran)
    failed: list[tuple[Run, BlockRun]]  # blocks that did not pass the check
    refused: list[Refused] = field(default_factory=list)  # contradicting the record or promise
    confirmed: int = 0  # outcomes the record already had, the same


def merge_runs(
    runs: Sequence[Run],
    current: dict[rec.Key, rec.Row],
    releases: Sequence[str],
    record: rec.Record = rec.EMPTY,
    homes: Mapping[rec.Key, str] | None = None,
) -> Merge:
    """The outcomes the runs add to the record: those of blocks that passed and that the pages
    still have, for a release (or backend) the record has no outcome of yet. A job runs only
    those (`--changed`): a new or edited block, a release just added. So an outcome the record
    holds already changes nothing: the same one confirms it; another is refused, as is one a
    passed block cannot have (not its promise with its home release, `homes`, or with another
    backend): `check --examples --accept` re-records by hand, never a CI file. Two runs of one
    release that disagree about a block, or a release the examples do not have, are errors:
    which one is true cannot be told here."""
    problems: list[Problem] = []
    recorded: dict[str, dict[rec.Key, Outcome]] = {}
    seen: dict[str, dict[rec.Key, Outcome]] = {}  # what the runs said, to find disagreements
    came_from: dict[tuple[str, rec.Key], Run] = {}
    stale = confirmed = 0
    failed: list[tuple[Run, BlockRun]] = []
    refused: list[Refused] = []
    for run in runs:
        if run.release not in releases:
            problems.append(
                Problem(
                    f"outcomes for torch {run.release}, which is not a release of the examples "
                    f"({', '.join(releases)} in gbsite.toml)",
                    run.path,
                )
            )
            continue
        if release_of(run.torch) != run.release:
            problems.append(Problem(f"torch {run.torch} is not a build of {run.release}", run.path))
            continue
        for block in run.blocks:
            if not block.passed:
                failed.append((run, block))
            if not block.passed or block.outcome is None:
                continue
            if block.key not in current:
                stale += 1
                continue
            said = seen.setdefault(run.key, {})
            other = came_from.get((run.key, block.key))
            if other is not None:
                if said[block.key] != block.outcome:
                    problems.append(
                        Problem(
                            f"{block.path}:{block.line}: {block.kind} `{block.outcome}` with "
                            f"torch {run.key}, but `{said[block.key]}` in {other.path.name}",
                            run.path,
                        )
                    )
                continue
            said[block.key] = block.outcome
            came_from[run.key, block.key] = run
            held = record.outcome(block.key, run.key)
            if held == block.outcome:
                confirmed += 1
                continue
            promise = rec.passing(block.kind)
            keeps_promise = bool(run.backend) or (homes or {}).get(block.key) == run.release
            if held is not None:
                why = (
                    f"the record holds `{held}` for this block with torch {run.key}; an "
                    "outcome of a block whose code did not change never replaces it"
                )
            elif keeps_promise and block.outcome != promise:
                why = f"it passed, but the block promises `{promise}` with torch {run.key}"
            else:
                recorded.setdefault(run.key, {})[block.key] = block.outcome
                continue
            refused.append(Refused(run, block, why))
    if problems:
        raise GbsiteError(problems)
    return Merge(list(runs), recorded, stale, failed, refused, confirmed)
