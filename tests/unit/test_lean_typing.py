"""lean_typing.py: each named tuple declared with its NamedTuple is the class typing.NamedTuple
makes of the same statement (fields, defaults, body), and it refuses what typing refuses."""

from __future__ import annotations

import importlib
import re
import typing
from pathlib import Path

import pytest

from gbsite import lean_typing

SRC = Path(lean_typing.__file__).parent
USES = re.compile(r"^from gbsite\.lean_typing import .*\bNamedTuple\b", re.M)


def modules() -> list[str]:
    """The gbsite modules that declare named tuples with lean_typing's NamedTuple."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        if USES.search(path.read_text()):
            parts = path.relative_to(SRC.parent).with_suffix("").parts
            found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


def with_typing(name: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    """The module's namespace, its source run again with typing.NamedTuple as NamedTuple."""
    module = importlib.import_module(name)
    assert module.__file__ is not None
    namespace: dict[str, object] = {"__name__": name, "__file__": module.__file__}
    with monkeypatch.context() as patched:
        patched.setattr(lean_typing, "NamedTuple", typing.NamedTuple)
        code = compile(Path(module.__file__).read_text(), module.__file__, "exec")
        exec(code, namespace)
    return namespace


def described(cls: type) -> dict[str, object]:
    """What a named tuple class is made of; functions by name, as two runs make two.
    `__orig_bases__` is the base typing.NamedTuple names itself by (a function, in place of
    which Python puts tuple), which no code reads."""
    own = {
        key: type(value).__name__ if callable(value) or hasattr(value, "__get__") else value
        for key, value in vars(cls).items()
        if key not in ("__annotations__", "__new__", "__orig_bases__")
    }
    return {
        "fields": cls._fields,
        "defaults": cls._field_defaults,
        "annotated": list(cls.__annotations__),
        "new": list(cls.__new__.__annotations__),
        "bases": cls.__bases__,
        "qualname": cls.__qualname__,
        "module": cls.__module__,
        "doc": cls.__doc__,
        "own": own,
    }


def test_the_modules_that_use_it_are_found() -> None:
    assert {"gbsite.errors", "gbsite.search.model"} <= set(modules())


@pytest.mark.parametrize("name", modules())
def test_each_named_tuple_is_the_class_typing_makes(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = importlib.import_module(name)
    by_typing = with_typing(name, monkeypatch)
    classes = [
        key
        for key, value in vars(module).items()
        if isinstance(value, type)
        and issubclass(value, tuple)
        and hasattr(value, "_fields")
        and value.__module__ == name
    ]
    assert classes, f"{name} declares no named tuple"
    for key in classes:
        ours, theirs = vars(module)[key], by_typing[key]
        assert isinstance(theirs, type)
        assert described(ours) == described(theirs), key


@pytest.mark.parametrize(
    "base", [lean_typing.NamedTuple, typing.NamedTuple], ids=["ours", "typing"]
)
def test_an_instance_behaves_alike(base: type) -> None:
    class Point(base):
        """A point."""

        x: int
        y: int = 2

        @property
        def total(self) -> int:
            return self.x + self.y

        def moved(self, by: int) -> Point:
            return self._replace(x=self.x + by)

    point = Point(1)
    assert (point, point.total, point.moved(3), point._asdict()) == (
        (1, 2),
        3,
        (4, 2),
        {"x": 1, "y": 2},
    )
    assert repr(point) == "Point(x=1, y=2)" and Point.__doc__ == "A point."
    with pytest.raises(TypeError):
        Point()


@pytest.mark.parametrize(
    "base", [lean_typing.NamedTuple, typing.NamedTuple], ids=["ours", "typing"]
)
def test_what_typing_refuses_is_refused(base: type) -> None:
    with pytest.raises(TypeError):

        class Gap(base):  # a field without a default after one with a default
            a: int = 1
            b: int

    with pytest.raises(AttributeError):

        class Own(base):  # what the named tuple defines itself
            a: int

            def _make(self) -> None: ...

    with pytest.raises(TypeError):

        class Mixed(base, dict):  # another base
            a: int
