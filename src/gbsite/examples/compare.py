"""Compiled against eager: what a block's compiled calls return, and the gradients its program
leaves, against the same program run without torch.compile. Standard library and torch only, a
sibling of driver.py (it runs under whatever Python has torch).

The uncompiled twin runs first, in a forked child of the run (eager_twin), with the same random
seeds (seed_all); what it kept comes back through a file only the two processes know. Values
are kept as snapshots (snapshot): tensors detached and cloned to the CPU, numbers, text and
containers as they are, anything else by its type. Two snapshots are the same when their
tensors are close for their dtype (torch.testing.assert_close's default tolerances) and the rest
is equal (compare).
"""

from __future__ import annotations

import functools
import math
import os
import re
from collections.abc import Callable
from typing import Any

_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")  # as a default repr() shows an object
MAX_ITEMS = 1000  # of a container kept; more is a sign of a program that is not an example
MAX_DEPTH = 8
TWIN_FAILED = "failed"  # the twin's process died or reported nothing


def seed_all() -> None:
    """The same random numbers in the compiled run and its twin."""
    import random

    random.seed(0)
    try:
        import torch

        torch.manual_seed(0)
    except Exception:  # a stand-in torch
        pass
    try:  # seeded before the program imports it: its draws too are the same in both runs
        import numpy

        numpy.random.seed(0)
    except Exception:  # no NumPy here
        pass


def snapshot(value: Any, depth: int = 0) -> tuple[Any, ...]:
    """A value as it was when returned, for comparing later."""
    import torch

    if not hasattr(torch, "Tensor"):  # a stand-in torch: nothing is compared (eager_twin)
        return ("opaque", type(value).__qualname__)
    if isinstance(value, torch.Tensor):
        try:
            tensor = value.detach()
            if type(tensor) is not torch.Tensor:  # a subclass: its plain data
                tensor = tensor.as_subclass(torch.Tensor)
            if tensor.layout != torch.strided:
                tensor = tensor.to_dense()
            return ("tensor", tensor.cpu().clone())
        except Exception:  # a tensor whose data cannot be read (a fake, a wrapper)
            return ("opaque", type(value).__qualname__)
    if isinstance(value, str):  # an object's address in it differs from run to run
        return ("value", _ADDRESS.sub("0x?", value))
    if value is None or isinstance(value, bool | int | float | complex | bytes):
        return ("value", value)
    if isinstance(value, torch.dtype | torch.device | torch.Size):
        return ("value", repr(value))
    if depth < MAX_DEPTH and isinstance(value, list | tuple):
        items = [snapshot(v, depth + 1) for v in list(value)[:MAX_ITEMS]]
        return ("sequence", type(value).__qualname__, len(value), items)
    if depth < MAX_DEPTH and isinstance(value, dict):
        pairs = list(value.items())[:MAX_ITEMS]
        return ("mapping", len(value), [(repr(k), snapshot(v, depth + 1)) for k, v in pairs])
    return ("opaque", type(value).__qualname__)


def recorded(target: Any, values: list[Any]) -> Any:
    """`target` (a function, or a module: its `forward`), each call's return value kept in
    `values` as a snapshot: the twin's counterpart of driver.counted."""

    def keep(function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)
        def call(*args: Any, **kwargs: Any) -> Any:
            value = function(*args, **kwargs)
            values.append(snapshot(value))
            return value

        return call

    try:
        import torch

        if isinstance(target, torch.nn.Module):
            # The module stays itself (its parameters, state_dict and hooks): only the forward
            # its __call__ runs is wrapped, as the compiled run's OptimizedModule has it.
            object.__setattr__(target, "forward", keep(target.forward))
            return target
    except Exception:  # a stand-in torch
        pass
    return keep(target) if callable(target) else target


def gradients(namespace: dict[str, Any]) -> dict[str, tuple[Any, ...]]:
    """The gradients a program left: of its top-level tensors and of the parameters of its
    top-level modules (and of a compiled module's original), by name."""
    import torch

    found: dict[str, tuple[Any, ...]] = {}
    for name, value in list(namespace.items()):
        if name.startswith("__"):
            continue
        # Only a leaf has a gradient to compare (reading a non-leaf's .grad warns).
        if isinstance(value, torch.Tensor) and value.is_leaf and value.grad is not None:
            found[f"{name}.grad"] = snapshot(value.grad)
        elif isinstance(value, torch.nn.Module):
            for pname, parameter in value.named_parameters():
                if parameter.grad is not None:
                    # torch.compile's OptimizedModule holds the module as _orig_mod, wherever
                    # it sits (a wrapper around the compiled module): the same parameter.
                    plain = pname.replace("_orig_mod.", "")
                    found[f"{name}.{plain}.grad"] = snapshot(parameter.grad)
    return found


def eager_twin(run: Callable[[], dict[str, Any]]) -> dict[str, Any] | None:
    """`run()` in a forked child, quiet (what it prints is the compiled run's to judge), its
    report back through an unnamed file; None where a process cannot fork, or under a
    stand-in torch that cannot save, load or compare tensors (nothing is compared then)."""
    if not hasattr(os, "fork"):
        return None
    import tempfile

    import torch

    if not all(hasattr(torch, name) for name in ("save", "load", "testing", "Tensor")):
        return None

    with tempfile.TemporaryFile() as channel:
        pid = os.fork()
        if pid == 0:  # the twin
            code = 1
            try:
                devnull = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(devnull, fd)
                kept = run()
                try:
                    torch.save(kept, channel)
                except Exception:  # a value torch cannot save: compare the calls it made
                    kept["values"] = [("opaque", "unsaved")] * len(kept["values"])
                    kept["grads"] = None
                    torch.save(kept, channel)
                channel.flush()
                code = 0
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        channel.seek(0)
        if status != 0:
            return {"status": TWIN_FAILED, "error": f"exit status {status}"}
        try:
            report: dict[str, Any] = torch.load(channel, weights_only=False)
        except Exception as exc:
            return {"status": TWIN_FAILED, "error": f"its report could not be read: {exc}"}
        return report


def _describe(snap: tuple[Any, ...]) -> str:
    kind = snap[0]
    if kind == "tensor":
        t = snap[1]
        return f"a {str(t.dtype).removeprefix('torch.')} tensor of shape {tuple(t.shape)}"
    if kind == "value":
        return repr(snap[1])[:80]
    if kind == "sequence":
        return f"a {snap[1]} of {snap[2]}"
    if kind == "mapping":
        return f"a dict of {snap[1]}"
    return f"a {snap[1]}"


def differs(
    expected: tuple[Any, ...], actual: tuple[Any, ...], where: str
) -> tuple[str, str, float | None] | None:
    """The first place two snapshots differ: (where, what, largest difference), or None."""
    import torch

    if expected[0] != actual[0]:
        return where, f"eager gives {_describe(expected)}, compiled {_describe(actual)}", None
    kind = expected[0]
    if kind == "tensor":
        e, a = expected[1], actual[1]
        if e.shape != a.shape or e.dtype != a.dtype:
            return where, f"eager gives {_describe(expected)}, compiled {_describe(actual)}", None
        try:
            torch.testing.assert_close(a, e, equal_nan=True)
        except AssertionError as exc:
            largest: float | None = None
            if e.dtype != torch.bool and e.numel():
                wide = torch.complex128 if e.dtype.is_complex else torch.float64
                diff = (a.to(wide) - e.to(wide)).abs()
                finite = diff[torch.isfinite(diff)]
                largest = float(finite.max()) if finite.numel() else math.inf
            first = str(exc).strip().split("\n")[0]
            return where, first, largest
        return None
    if kind == "value":
        e, a = expected[1], actual[1]
        if isinstance(e, float) and isinstance(a, float):
            if math.isclose(a, e, rel_tol=1.3e-6, abs_tol=1e-5) or (
                math.isnan(a) and math.isnan(e)
            ):
                return None
            return where, f"eager gives {e!r}, compiled {a!r}", abs(a - e)
        return None if e == a else (where, f"eager gives {e!r:.80}, compiled {a!r:.80}", None)
    if kind == "sequence":
        if expected[2] != actual[2]:
            what = f"eager gives {_describe(expected)}, compiled {_describe(actual)}"
            return where, what, None
        for n, (e, a) in enumerate(zip(expected[3], actual[3], strict=False)):
            found = differs(e, a, f"{where}[{n}]")
            if found is not None:
                return found
        return None
    if kind == "mapping":
        ekeys = [k for k, _ in expected[2]]
        akeys = [k for k, _ in actual[2]]
        if ekeys != akeys:
            return where, f"eager gives the keys {ekeys[:8]}, compiled {akeys[:8]}", None
        for (key, e), (_, a) in zip(expected[2], actual[2], strict=True):
            found = differs(e, a, f"{where}[{key}]")
            if found is not None:
                return found
        return None
    if expected[1] != actual[1]:  # opaque: by type only
        return where, f"eager gives {_describe(expected)}, compiled {_describe(actual)}", None
    return None


def compare(
    twin: dict[str, Any] | None,
    values: list[Any],
    grads: dict[str, tuple[Any, ...]] | None,
) -> dict[str, Any] | None:
    """What the driver reports: the twin's status (and error), how many calls and gradients
    were compared, and the first difference, if any. The compiled run's completed calls are
    compared with as many of the twin's; gradients when both ran to the end."""
    if twin is None:
        return None
    report: dict[str, Any] = {
        "eager": twin.get("status"),
        "error": str(twin.get("error") or ""),
        "calls": 0,
        "grads": 0,
        "difference": None,
    }
    eager_values = list(twin.get("values") or [])
    n = min(len(values), len(eager_values))
    report["calls"] = n
    for i in range(n):
        found = differs(eager_values[i], values[i], f"call {i + 1}'s result")
        if found is not None:
            where, what, largest = found
            report["difference"] = {"where": where, "what": what[:500], "largest": largest}
            return report
    eager_grads = twin.get("grads")
    if grads is not None and eager_grads is not None:
        names = sorted(set(grads) | set(eager_grads))
        for name in names:
            if name not in grads or name not in eager_grads:
                what = (
                    f"{name} is set only without torch.compile"
                    if name not in grads
                    else f"{name} is set only with torch.compile"
                )
                report["difference"] = {"where": name, "what": what, "largest": None}
                return report
            report["grads"] += 1
            found = differs(eager_grads[name], grads[name], name)
            if found is not None:
                where, what, largest = found
                report["difference"] = {"where": where, "what": what[:500], "largest": largest}
                return report
    return report
