"""Forked workers and the tickets that share work between them and the parent."""

from __future__ import annotations

import time

import pytest

from gbsite.site.worker import Tickets, Worker, chunks


def test_parent_and_worker_take_every_ticket_once() -> None:
    tickets = Tickets(200)

    def take(pause: float) -> list[int]:
        taken = []
        for n in tickets:
            taken.append(n)
            time.sleep(pause)  # both keep taking while the other works
        return taken

    try:
        worker = Worker(lambda: take(0.001))
        mine = take(0.001)
        theirs = worker.result()
    finally:
        tickets.close()
    assert mine and theirs, "both processes should get work"
    assert sorted(mine + theirs) == list(range(200))
    assert mine == sorted(mine) and theirs == sorted(theirs)  # each takes them in order


def test_the_faster_process_takes_more() -> None:
    tickets = Tickets(60)

    def slowly() -> list[int]:
        taken = []
        for n in tickets:
            taken.append(n)
            time.sleep(0.01)
        return taken

    try:
        worker = Worker(slowly)
        mine = list(tickets)  # no work per ticket: this process is much faster
        theirs = worker.result()
    finally:
        tickets.close()
    assert len(mine) > len(theirs)
    assert sorted(mine + theirs) == list(range(60))


def test_at_most_256_tickets() -> None:
    with pytest.raises(ValueError, match="at most 256"):
        Tickets(257)
    tickets = Tickets(0)
    assert list(tickets) == []
    tickets.close()


@pytest.mark.parametrize(("items", "size", "runs"), [(593, 8, 75), (20_000, 8, 254), (3, 8, 1)])
def test_chunks_fit_the_tickets(items: int, size: int, runs: int) -> None:
    parts = chunks(list(range(items)), size=size)
    assert len(parts) == runs <= Tickets.LIMIT
    assert [x for part in parts for x in part] == list(range(items))
