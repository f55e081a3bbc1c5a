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
vocabulary.Outcome). Only blocks that passed the check are recorded; a failed block is reported,
and stays without an outcome (its page pending) until it is fixed and run again.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from gbsite.errors import GbsiteError, Problem
from gbsite.examples import record as rec
from gbsite.examples.vocabulary import Outcome
from gbsite.fs.files import InputTooLarge, read_input, write_atomic

FORMAT = "gbsite-outcomes/1"
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

    @property
    def key(self) -> str:
        """Where its outcomes go in the record's rows."""
        return rec.run_key(self.release, self.backend)


def _bad(path: Path, why: str) -> GbsiteError:
    return GbsiteError.at(path, None, f"not an outcomes file of gbsite check --examples ({why})")


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
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise _bad(path, f"invalid JSON: {str(exc)[:100]}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise _bad(path, f"no `format: {FORMAT}`")
    release, torch = data.get("release"), data.get("torch")
    results, problems = data.get("results"), data.get("problems", [])
    if not isinstance(release, str) or not isinstance(torch, str):
        raise _bad(path, "`release` and `torch` are strings")
    backend = data.get("backend") or ""
    if backend not in ("", *rec.BACKENDS):
        raise _bad(path, f"`backend` is one of {', '.join(rec.BACKENDS)}")
    if not isinstance(results, list) or not isinstance(problems, list):
        raise _bad(path, "`results` and `problems` are lists")
    blocks = []
    for n, item in enumerate(results):
        try:
            blocks.append(_block(item))
        except (KeyError, TypeError, ValueError) as exc:
            raise _bad(path, f"result {n}: {exc}") from None
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


@dataclass(frozen=True, slots=True)
class Merge:
    """What merging some jobs' outcomes into the record did."""

    runs: list[Run]
    recorded: dict[str, dict[rec.Key, Outcome]]  # release -> block -> outcome, new in the record
    stale: int  # outcomes of blocks no page has any more (edited since the job ran)
    failed: list[tuple[Run, BlockRun]]  # blocks that did not pass the check


def merge_runs(
    runs: Sequence[Run], current: dict[rec.Key, rec.Row], releases: Sequence[str]
) -> Merge:
    """The outcomes the runs add to the record: those of blocks that passed and that the pages
    still have. Two runs of one release that disagree about a block, or a release the examples
    do not have, are errors: which one is true cannot be told here."""
    problems: list[Problem] = []
    recorded: dict[str, dict[rec.Key, Outcome]] = {}
    came_from: dict[tuple[str, rec.Key], Run] = {}
    stale = 0
    failed: list[tuple[Run, BlockRun]] = []
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
        for block in run.blocks:
            if not block.passed:
                failed.append((run, block))
            if not block.passed or block.outcome is None:
                continue
            if block.key not in current:
                stale += 1
                continue
            said = recorded.setdefault(run.key, {})
            other = came_from.get((run.key, block.key))
            if other is not None and said[block.key] != block.outcome:
                problems.append(
                    Problem(
                        f"{block.path}:{block.line}: {block.kind} `{block.outcome}` with torch "
                        f"{run.key}, but `{said[block.key]}` in {other.path.name}",
                        run.path,
                    )
                )
                continue
            said[block.key] = block.outcome
            came_from[run.key, block.key] = run
    if problems:
        raise GbsiteError(problems)
    return Merge(list(runs), recorded, stale, failed)
