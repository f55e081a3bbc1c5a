"""The probe's report: for every id of a release, reached or not, and how.

`report-R.json` (one per release) holds every program's run and, per id, the smallest program
that reached it (a link the user would see) with its technique, or, for an id no program
reached, what was tried: every technique of the corpus, the programs written for it, a program
in which Dynamo raised it but showed another break (hidden), and where torch raises it.
`REPORT.md` is written from all the JSON reports there are.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gbsite.examples.vocabulary import State
from gbsite.probe.detect import Reached

NOT_VERIFIED = (State.INTERNAL, State.UNRAISED, State.ENVIRONMENT, State.NONE, State.PENDING)
FORMAT = 1


@dataclass(slots=True)
class IdResult:
    id: str
    gb_type: str
    state: str  # the page's state for the release (coverage), before the probe
    reached: bool = False
    program: str | None = None  # the smallest program that reached it (repository path)
    technique: str | None = None
    size: int | None = None
    programs: int = 0  # how many programs reached it
    hidden_in: str | None = None  # smallest program where Dynamo raised it but showed another
    aimed_by: list[str] = field(default_factory=list)  # programs written for it
    sites: list[str] = field(default_factory=list)  # where this torch raises it

    def as_dict(self) -> dict[str, object]:
        return {
            "gb_type": self.gb_type,
            "state": self.state,
            "reached": self.reached,
            "program": self.program,
            "technique": self.technique,
            "size": self.size,
            "programs": self.programs,
            "hidden_in": self.hidden_in,
            "aimed_by": self.aimed_by,
            "sites": self.sites,
        }


Row = dict[str, object]  # one program's run, as the JSON report keeps it


def program_row(r: Reached, path: str) -> Row:
    return {
        "name": r.program.name,
        "path": path,
        "technique": r.program.technique,
        "generated": r.program.generated,
        "aims": list(r.program.aims),
        "size": r.program.size,
        "status": r.status,
        "error": r.error,
        "seen": list(r.seen),
        "hidden": list(r.hidden),
        "seconds": round(r.seconds, 2),
    }


def _strings(value: object) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def merge(old: Sequence[Row], new: Sequence[Row], rerun: Iterable[str]) -> list[Row]:
    """The rows of a partial run in place of the old rows of the programs it ran, or of the
    techniques it ran whole (`rerun`: a program deleted from the corpus goes with them)."""
    names = {str(r["name"]) for r in new}
    techniques = set(rerun)
    kept = [r for r in old if str(r["name"]) not in names and r["technique"] not in techniques]
    return sorted([*kept, *new], key=lambda r: str(r["name"]))


def build(
    release: str,
    version: str,
    rows: Sequence[Row],
    states: Mapping[str, str],
    gb_types: Mapping[str, str],
    sites: Mapping[str, list[str]],
    techniques: Iterable[str],
) -> dict[str, object]:
    """The report of one release from its programs' rows. `states`: the page state of every
    id of the release; `gb_types`: each id's type then; `sites`: where torch raises it."""
    results = {i: IdResult(i, gb_types.get(i, ""), states[i]) for i in sorted(states)}
    for row in sorted(rows, key=lambda r: (int(str(r["size"])), str(r["name"]))):
        path = str(row["path"])
        for i in _strings(row.get("aims")):
            if i in results:
                results[i].aimed_by.append(path)
        for i in _strings(row["seen"]):
            res = results.get(i)
            if res is None:  # an id this release's registry lacks: not ours to judge
                continue
            res.programs += 1
            if not res.reached:
                res.reached = True
                res.program = path
                res.technique = str(row["technique"])
                res.size = int(str(row["size"]))
        for i in _strings(row["hidden"]):
            if i in results and results[i].hidden_in is None:
                results[i].hidden_in = path
    for res in results.values():
        if res.state in NOT_VERIFIED and not res.reached:
            res.sites = list(sites.get(res.id, []))
    ran = {str(r["technique"]) for r in rows}
    return {
        "format": FORMAT,
        "release": release,
        "torch": version,
        "techniques": {
            t: sum(1 for r in rows if r["technique"] == t) for t in sorted(set(techniques) | ran)
        },
        "programs": list(rows),
        "ids": {i: res.as_dict() for i, res in results.items()},
    }


def write_json(path: Path, report: Mapping[str, object]) -> None:
    from gbsite.fs.files import write_atomic

    write_atomic(path, (json.dumps(report, indent=1, sort_keys=True) + "\n").encode())


def read_report(path: Path) -> dict[str, object]:
    """A JSON report; a file that is not one is an error naming it."""
    from gbsite.errors import GbsiteError

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise GbsiteError(f"{path}: not a probe report ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise GbsiteError(f"{path}: not a probe report of format {FORMAT}")
    return data


def read_reports(folder: Path) -> list[dict[str, object]]:
    """The JSON reports in `folder`, oldest release first."""
    from gbsite.releases import order

    found = []
    for path in folder.glob("report-*.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and data.get("format") == FORMAT:
            found.append(data)
    return sorted(found, key=lambda d: order(str(d["release"])))


def _ids(report: Mapping[str, object]) -> dict[str, dict[str, object]]:
    ids = report["ids"]
    assert isinstance(ids, dict)
    return ids


def family(row: Mapping[str, object]) -> str:
    """A program's technique, and for a generated one its generator: `d-hop/hop_fuzz`."""
    name = str(row["name"]).split("/")
    return "/".join(name[:2]) if row.get("generated") and len(name) > 2 else name[0]


def _ran_table(reports: Sequence[Mapping[str, object]]) -> str:
    """How many programs of each technique (hand-written) and generator ran per release."""
    counts: dict[str, dict[str, int]] = {}
    for rep in reports:
        for row in rep["programs"]:  # type: ignore[attr-defined]
            per = counts.setdefault(family(row), {})
            per[str(rep["release"])] = per.get(str(rep["release"]), 0) + 1
    releases = [str(rep["release"]) for rep in reports]
    out = [
        "| programs | " + " | ".join(releases) + " |",
        "|---" * (len(releases) + 1) + "|",
    ]
    for name in sorted(counts):
        cells = " | ".join(str(counts[name].get(r, 0)) for r in releases)
        out.append(f"| `{name}` | {cells} |")
    return "\n".join(out)


def markdown(reports: Sequence[Mapping[str, object]], command: str) -> str:
    """REPORT.md: what the probe reached with each release, and what is still internal."""
    lines = [
        "# Reachability probe: report",
        "",
        f"Written by `{command}` from the JSON reports beside it "
        "(see [README](README.md)). An id is **reached** when a "
        "program's output or exception links to its page; **hidden** when Dynamo raised it "
        "inside, but the user saw another break.",
        "",
        "| release | torch | programs | ids reached | internal pages | internal reached "
        "| unraised reached | still internal |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for rep in reports:
        ids = _ids(rep)
        programs = rep["programs"]
        assert isinstance(programs, list)
        internal = [v for v in ids.values() if v["state"] == State.INTERNAL]
        lines.append(
            f"| {rep['release']} | {rep['torch']} | {len(programs)} "
            f"| {sum(1 for v in ids.values() if v['reached'])} | {len(internal)} "
            f"| {sum(1 for v in internal if v['reached'])} "
            f"| {sum(1 for v in ids.values() if v['state'] == State.UNRAISED and v['reached'])} "
            f"| {sum(1 for v in internal if not v['reached'])} |"
        )
    for state, title in (
        (State.INTERNAL, "Internal pages reached"),
        (State.UNRAISED, "Unraised pages reached"),
        (State.ENVIRONMENT, "Environment pages reached on this CPU-only machine"),
    ):
        rows: dict[str, list[tuple[str, dict[str, object]]]] = {}
        for rep in reports:
            for i, v in _ids(rep).items():
                if v["state"] == state and v["reached"]:
                    rows.setdefault(i, []).append((str(rep["release"]), v))
        lines += ["", f"## {title}", ""]
        if not rows:
            lines.append("None.")
            continue
        lines += [
            "| id | type | releases | technique | smallest program |",
            "|---|---|---|---|---|",
        ]
        for i in sorted(rows):
            got = rows[i]
            programs = sorted({str(v["program"]) for _, v in got})
            links = "<br>".join(f"[{p.split('/')[-1]}](../../{p})" for p in programs)
            gb_type = str(got[-1][1]["gb_type"]).replace("|", "\\|")
            lines.append(
                f"| {i} | {gb_type} | {', '.join(r for r, _ in got)} "
                f"| {got[-1][1]['technique']} | {links} |"
            )
    lines += ["", "## What ran", "", _ran_table(reports)]
    lines += ["", "## Still internal", ""]
    still: dict[str, list[tuple[str, dict[str, object]]]] = {}
    for rep in reports:
        for i, v in _ids(rep).items():
            if v["state"] == State.INTERNAL and not v["reached"]:
                still.setdefault(i, []).append((str(rep["release"]), v))
    lines.append(
        "Each of these was tried with the programs of [What ran](#what-ran) for its releases. "
        "Listed per id: the releases it is still internal with, where the newest of them "
        "raises it, the programs written for it, and one where Dynamo raised it but showed "
        "another break."
    )
    lines.append("")
    for i in sorted(still):
        got = still[i]
        newest = got[-1][1]
        lines.append(f"- **{i}** {newest['gb_type']} ({', '.join(r for r, _ in got)})")
        sites = newest["sites"]
        assert isinstance(sites, list)
        if sites:
            lines.append(f"  - raised at: {'; '.join(f'`{s}`' for s in sites)}")
        aimed = sorted({str(p) for _, v in got for p in v["aimed_by"]})  # type: ignore[attr-defined]
        if aimed:
            lines.append(f"  - aimed at it: {', '.join(f'`{p}`' for p in aimed)}")
        hidden = [(r, v["hidden_in"]) for r, v in got if v["hidden_in"]]
        if hidden:
            lines.append("  - raised but hidden: " + ", ".join(f"{r} `{p}`" for r, p in hidden))
    failed: list[str] = []
    for rep in reports:
        for row in rep["programs"]:  # type: ignore[attr-defined]
            if row["status"] in ("timeout", "crashed"):
                failed.append(f"- {rep['release']} `{row['path']}`: {row['status']} {row['error']}")
    lines += ["", "## Programs that timed out or crashed", ""]
    lines += failed or ["None."]
    return "\n".join(lines) + "\n"
