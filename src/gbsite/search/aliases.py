"""Alias wordings: messages of torch releases from before the registry (2.0 to 2.7), each mapped
to the registry id that took its place, read from a data file and searched as extra wordings of
that id's type.

The file is JSON, as tools that mine old releases write it:

    {"messages": [{"template": "text with {placeholders}", "id": "GB0170",
                   "releases": ["2.3.1", "2.4.1"]}, ...]}

A message without an id (null) is skipped; other keys are ignored. `index.entries_for` takes
what `read` returns and adds each alias to its entry as a wording of the type whose period is
"this message is from torch 2.3.1 to 2.4.1": search.logs matches it like any registry text
(placeholders match anything), and says so in the match's "why".
"""

from __future__ import annotations

import json
from pathlib import Path

from gbsite.errors import GbsiteError
from gbsite.fs.files import read_input_text


def period(releases: list[str]) -> str:
    span = releases[0] if len(releases) == 1 else f"{releases[0]} to {releases[-1]}"
    return f"this message is from torch {span}"


def read(path: Path) -> dict[str, list[tuple[str, str]]]:
    """id -> [(message template, period)], in the file's order; {} when there is no file."""
    try:
        data = json.loads(read_input_text(path))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise GbsiteError.at(path, None, f"cannot read: {exc}") from None
    except json.JSONDecodeError as exc:
        raise GbsiteError.at(path, exc.lineno, f"not valid JSON: {exc.msg}") from None
    messages = data.get("messages") if isinstance(data, dict) else None
    if not isinstance(messages, list):
        raise GbsiteError.at(path, None, 'expected an object with a "messages" list')
    out: dict[str, list[tuple[str, str]]] = {}
    for n, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("id") is None:
            continue
        gb_id, template, releases = message["id"], message.get("template"), message.get("releases")
        if not (
            isinstance(gb_id, str)
            and isinstance(template, str)
            and template.strip()
            and isinstance(releases, list)
            and releases
            and all(isinstance(r, str) for r in releases)
        ):
            raise GbsiteError.at(
                path, None, f"message {n + 1}: needs an id, a template and a list of releases"
            )
        out.setdefault(gb_id, []).append((template, period(releases)))
    return out
