"""Checking the shape of data loaded from a YAML file, with every problem located.

A `Checker` records each problem as a key path (`["history", 0, "hints"]`); lines are looked up
only if there are problems, all at once (`yamlio.Locator`), so a valid file pays nothing for them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gbsite.errors import Problem
from gbsite.registry import yamlio

KeyPath = list[str | int]


def kind(value: object) -> str:
    """What a value is, in the words of an error message."""
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def where(kp: KeyPath) -> str:
    """A key path as a reader writes it: `history[0].hints`."""
    if not kp:
        return "the file"
    out = ""
    for step in kp:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else step)
    return out


@dataclass
class Checker:
    """Collects problems for one file as key paths; lines are looked up only if any exist."""

    path: Path
    text: str
    found: list[tuple[KeyPath, str]] = field(default_factory=list)

    def error(self, kp: KeyPath, message: str) -> None:
        self.found.append((kp, message))

    def problems(self) -> list[Problem]:
        locator = yamlio.Locator(self.text)  # composed once for all of them
        return [Problem(msg, self.path, locator.line(kp)) for kp, msg in self.found]

    def mapping(
        self,
        value: object,
        kp: KeyPath,
        required: Iterable[str],
        optional: Iterable[str] = (),
    ) -> dict[str, Any] | None:
        at = where(kp)
        if not isinstance(value, dict):
            self.error(kp, f"{at} must be a mapping, not {kind(value)}")
            return None
        required = tuple(required)
        allowed = required + tuple(optional)
        for key in value:
            if key not in allowed:
                self.error(
                    [*kp, key], f"unknown field {key!r} in {at} (allowed: {', '.join(allowed)})"
                )
        for key in required:
            if key not in value:
                self.error(kp, f"{at} is missing the field {key!r}")
        return value

    def string(
        self,
        value: object,
        kp: KeyPath,
        pattern: re.Pattern[str] | None = None,
        hint: str = "",
    ) -> str | None:
        if not isinstance(value, str):
            extra = "; quote it" if isinstance(value, int | float | bool) else ""
            extra = extra or ("; write '' for an empty text" if value is None else "")
            self.error(kp, f"{where(kp)} must be a string, not {kind(value)}{extra}")
            return None
        if pattern is not None and not pattern.fullmatch(value):
            self.error(kp, f"{where(kp)} {value!r} is not valid{hint}")
            return None
        return value

    def count(self, value: object, kp: KeyPath) -> int | None:
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            self.error(kp, f"{where(kp)} must be a whole number >= 0, not {value!r}")
            return None
        return value
