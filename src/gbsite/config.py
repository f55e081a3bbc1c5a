"""Project configuration: `gbsite.toml` at the project root, found like `mkdocs.yml` is."""

from __future__ import annotations

import re
from pathlib import Path

from gbsite import releases
from gbsite.errors import GbsiteError, Problem
from gbsite.fs.files import read_input_text
from gbsite.lean_typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from typing import Any

CONFIG_NAME = "gbsite.toml"

# Every setting with its default; the table documents the file (docs/maintaining.md,
# "Configuration").
DEFAULTS: dict[str, dict[str, str]] = {
    "site": {
        "title": "torch.compile graph breaks",
        "url": "https://meta-pytorch.github.io/compile-graph-break-site/",
        "repository": "meta-pytorch/compile-graph-break-site",
        "branch": "main",
    },
    "paths": {
        "registry": "registry",
        "docs": "docs/gb",
        "templates": "templates",
        "output": "site",
    },
}
# Settings that hold a list of strings rather than one string.
LIST_DEFAULTS: dict[str, dict[str, tuple[str, ...]]] = {
    # The torch releases the examples of docs/gb/ run against (`gbsite check --examples --torch`)
    "examples": {"releases": ("2.13.0", "2.14.1", "2.15.0")},
}


class Config(NamedTuple):  # not a dataclass: see errors.Problem
    root: Path
    file: Path
    title: str
    site_url: str  # absolute, ends with "/"
    repository: str  # owner/name on GitHub
    branch: str
    registry_dir: Path
    docs_dir: Path
    templates_dir: Path
    output_dir: Path
    example_releases: tuple[str, ...] = LIST_DEFAULTS["examples"]["releases"]

    @property
    def verified_file(self) -> Path:
        """Written by `gbsite check --examples`, read by the build."""
        return self.docs_dir.parent / "verified-examples.yaml"


def cache_dir() -> Path:
    """The user's cache folder for gbsite: `$GBSITE_CACHE_DIR`, else `$XDG_CACHE_HOME/gbsite`,
    else `~/.cache/gbsite` (torch environments, `gbsite lookup`'s search index)."""
    import os

    if os.environ.get("GBSITE_CACHE_DIR"):
        return Path(os.environ["GBSITE_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gbsite"


def find_root(start: Path) -> Path:
    for folder in (start, *start.parents):
        if (folder / CONFIG_NAME).is_file():
            return folder
    raise GbsiteError(
        f"no {CONFIG_NAME} in {start} or any parent folder; "
        "run gbsite inside the project or pass --root"
    )


def _toml(file: Path, text: str) -> dict[str, Any]:
    import tomllib  # ~6 ms of a lookup: only for a text not parsed before (parsed.py)

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        # Python 3.14's error has its line (lineno); before, only its message says it.
        msg, _, where = str(exc).partition(" (at line ")
        line = getattr(exc, "lineno", None) or _leading_number(where)
        raise GbsiteError.at(file, line, f"invalid TOML: {msg}") from None


def _leading_number(text: str) -> int | None:
    digits = re.match(r"[0-9]{1,9}", text)
    return int(digits.group()) if digits else None


def _line_of(text: str, key: str) -> int | None:
    match = re.search(rf"^\s*{re.escape(key)}\s*=", text, re.MULTILINE)
    return text.count("\n", 0, match.start()) + 1 if match else None


def load(root: Path | None = None, text: str | None = None) -> Config:
    """The project's settings, validated. With `text`, that is read as gbsite.toml's content
    (to validate an edit before it is written)."""
    root = (root or find_root(Path.cwd())).resolve()
    file = root / CONFIG_NAME
    try:
        text = read_input_text(file) if text is None else text
    except FileNotFoundError:
        raise GbsiteError.at(file, None, "not found; is this a gbsite project?") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise GbsiteError.at(file, None, f"cannot read: {exc}") from None
    from gbsite import parsed

    data = parsed.parse("toml", parsed.python_version, text, lambda t: _toml(file, t))

    problems: list[Problem] = []
    values: dict[str, dict[str, str]] = {}
    lists: dict[str, dict[str, tuple[str, ...]]] = {}
    for table, value in data.items():
        if table in LIST_DEFAULTS and isinstance(value, dict):
            problems += _lists(file, table, value, text, lists)
            continue
        if table not in DEFAULTS:
            problems.append(Problem(f"unknown table [{table}]", file, _line_of(text, table)))
            continue
        if not isinstance(value, dict):
            problems.append(Problem(f"{table} must be a table", file, _line_of(text, table)))
            continue
        for key, item in value.items():
            if key not in DEFAULTS[table]:
                known = ", ".join(DEFAULTS[table])
                problems.append(
                    Problem(
                        f"unknown setting {table}.{key} (known: {known})", file, _line_of(text, key)
                    )
                )
            elif not isinstance(item, str) or not item:
                problems.append(
                    Problem(f"{table}.{key} must be a non-empty string", file, _line_of(text, key))
                )
            else:
                values.setdefault(table, {})[key] = item
    site = {**DEFAULTS["site"], **values.get("site", {})}
    paths = {**DEFAULTS["paths"], **values.get("paths", {})}
    if not re.fullmatch(r"https?://[^\s/]+(/\S*)?", site["url"]):
        problems.append(
            Problem("site.url must be an absolute http(s) URL", file, _line_of(text, "url"))
        )
    if not re.fullmatch(r"[\w.-]+/[\w.-]+", site["repository"]):
        problems.append(
            Problem("site.repository must look like owner/name", file, _line_of(text, "repository"))
        )
    if problems:
        raise GbsiteError(problems)
    url = site["url"] if site["url"].endswith("/") else site["url"] + "/"
    return Config(
        root=root,
        file=file,
        title=site["title"],
        site_url=url,
        repository=site["repository"],
        branch=site["branch"],
        registry_dir=root / paths["registry"],
        docs_dir=root / paths["docs"],
        templates_dir=root / paths["templates"],
        output_dir=root / paths["output"],
        example_releases=lists.get("examples", {}).get(
            "releases", LIST_DEFAULTS["examples"]["releases"]
        ),
    )


def _lists(
    file: Path,
    table: str,
    value: dict[str, object],
    text: str,
    out: dict[str, dict[str, tuple[str, ...]]],
) -> list[Problem]:
    """A table of list settings, such as [examples] releases = ["2.13.0", "2.15.0"]."""
    problems: list[Problem] = []
    for key, item in value.items():
        where = _line_of(text, key)
        if key not in LIST_DEFAULTS[table]:
            known = ", ".join(LIST_DEFAULTS[table])
            problems.append(Problem(f"unknown setting {table}.{key} (known: {known})", file, where))
            continue
        if (
            not isinstance(item, list)
            or not item
            or not all(isinstance(r, str) and releases.is_release(r) for r in item)
        ):
            problems.append(
                Problem(f'{table}.{key} must be a list of releases such as ["2.13.0"]', file, where)
            )
            continue
        listed = tuple(str(r) for r in item)
        ordered = tuple(sorted(set(listed), key=releases.order))
        if listed != ordered:
            problems.append(
                Problem(f"{table}.{key} lists each release once, oldest first", file, where)
            )
            continue
        out.setdefault(table, {})[key] = listed
    return problems
