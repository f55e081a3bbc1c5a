"""The two names of `typing` that the modules every command imports need at run time, without
importing `typing`.

`gbsite lookup` is held to five times a bare Python start (issue 46), and importing `typing`
is ~3.5 ms of a lookup's ~65 (a quarter of a bare start): nothing else on its path needs it.
So these modules write `from gbsite.lean_typing import TYPE_CHECKING, NamedTuple`, and import
what they name only in annotations (`Any`, `NoReturn`) from `typing` under TYPE_CHECKING.
mypy sees `typing.NamedTuple` itself. tests/test_cli.py checks that a lookup imports no
`typing`; tests/unit/test_lean_typing.py that each class is the one `typing` would make.
"""

from __future__ import annotations

import collections

TYPE_CHECKING = False  # mypy takes any name TYPE_CHECKING as true

if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:
    # What typing.NamedTuple keeps for itself, or sets from the class statement's own names.
    _OWN = frozenset({"__module__", "__name__", "__annotations__"})
    _PROHIBITED = frozenset(
        {"__new__", "__init__", "__slots__", "__getnewargs__", "_fields", "_field_defaults"}
        | {"_make", "_replace", "_asdict", "_source"}
    )

    class _Records(type):
        """Makes `class X(NamedTuple): ...` a collections.namedtuple with the class's
        annotated fields, their defaults and the rest of its body, as typing.NamedTuple
        does."""

        def __new__(mcls, name: str, bases: tuple[type, ...], ns: dict[str, object]) -> type:
            if bases != (NamedTuple,):
                raise TypeError("a NamedTuple's only base is NamedTuple")
            fields = dict(ns.get("__annotations__", {}))
            defaulted = [f for f in fields if f in ns]
            if defaulted and list(fields)[-len(defaulted) :] != defaulted:
                raise TypeError(f"{name}: a field without a default follows one with a default")
            made = collections.namedtuple(
                name, list(fields), defaults=[ns[f] for f in defaulted], module=ns["__module__"]
            )
            made.__annotations__ = made.__new__.__annotations__ = fields
            for key, value in ns.items():
                if key in _PROHIBITED:
                    raise AttributeError(f"Cannot overwrite NamedTuple attribute {key}")
                if key not in _OWN and key not in fields:
                    setattr(made, key, value)
            return made

    NamedTuple = type.__new__(_Records, "NamedTuple", (), {})
