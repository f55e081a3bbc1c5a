"""Run a task in a forked process, to use the second core during a build.

A fork shares everything already imported and loaded, so the worker starts in a millisecond
and needs nothing sent to it; only its result comes back, pickled, through a pipe. Tickets share
a list of tasks between the processes, so that whichever is faster does more of them.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import signal
import threading
import traceback
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from gbsite.errors import GbsiteError

T = TypeVar("T")


def can_fork() -> bool:
    """A fork copies only the calling thread: with other threads running (serve, a test runner,
    a browser driver), a lock one of them holds could stay locked forever in the worker."""
    return hasattr(os, "fork") and threading.active_count() == 1


class Worker(Generic[T]):
    """Runs `task` in a forked process; `result()` returns what it returned.

    A GbsiteError in the worker (a template error, say) is raised again by `result()` with its
    problems; anything else becomes a RuntimeError carrying the worker's traceback.
    """

    def __init__(self, task: Callable[[], T]) -> None:
        read, write = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # the worker
            os.close(read)
            status = 0
            try:
                payload = pickle.dumps((True, task()), protocol=pickle.HIGHEST_PROTOCOL)
            except GbsiteError as exc:
                payload, status = pickle.dumps((False, exc.problems)), 1
            except BaseException:
                payload, status = pickle.dumps((False, traceback.format_exc())), 2
            try:
                with os.fdopen(write, "wb") as pipe:
                    pipe.write(payload)
            finally:
                # No cleanup handlers: they belong to the parent. Nor its code: a parent killed
                # meanwhile leaves a broken pipe, whose error must not unwind into the build.
                os._exit(status)
        os.close(write)
        self.read = read
        self.done = False  # reaped: by result() or cancel()

    def cancel(self) -> None:
        """Stop the worker and reap it, if result() has not; for when the parent fails."""
        if self.done:
            return
        self.done = True
        os.close(self.read)
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)

    def ready(self, timeout: float) -> bool:
        """Whether the worker has begun to send its result (or died) within `timeout` seconds."""
        found, _, _ = select.select([self.read], [], [], timeout)
        return bool(found)

    def result(self) -> T:
        self.done = True
        with os.fdopen(self.read, "rb") as pipe:
            payload = pipe.read()
        os.waitpid(self.pid, 0)
        if not payload:
            raise RuntimeError("the build worker died without a result")
        ok, value = pickle.loads(payload)  # our own child wrote it
        if ok:
            return value  # type: ignore[no-any-return]
        if isinstance(value, list):
            raise GbsiteError(value)
        raise RuntimeError(f"build worker failed:\n{value}")


@contextlib.contextmanager
def cancelled_on_error(worker: Worker[T] | None) -> Iterator[None]:
    """Stops `worker` (if any) when the block raises: never leave it blocked on a pipe nobody
    reads. Once its result has been read, cancelling does nothing."""
    try:
        yield
    except BaseException:
        if worker is not None:
            worker.cancel()
        raise


class Tickets:
    """The numbers 0 to n-1 (n at most 256), each taken by one of the processes that share them.

    Made before a fork, iterated by parent and worker alike: each takes the next number nobody
    has taken, until none is left. The numbers wait in a pipe, one byte each: a one-byte read is
    atomic, and once the pipe is empty a read returns nothing, since no process holds its
    writing end any more.
    """

    LIMIT = 256

    def __init__(self, n: int) -> None:
        if not 0 <= n <= self.LIMIT:
            raise ValueError(f"{n} tickets: at most {self.LIMIT}")
        read, write = os.pipe()
        os.write(write, bytes(range(n)))  # far below a pipe's capacity: never blocks
        os.close(write)
        self.read = read

    def __iter__(self) -> Iterator[int]:
        while taken := os.read(self.read, 1):
            yield taken[0]

    def close(self) -> None:
        os.close(self.read)


def chunks(items: list[T], *, size: int) -> list[list[T]]:
    """`items` in runs of `size` or more, few enough to have a ticket each."""
    size = max(size, -(-len(items) // Tickets.LIMIT))
    return [items[i : i + size] for i in range(0, len(items), size)]
