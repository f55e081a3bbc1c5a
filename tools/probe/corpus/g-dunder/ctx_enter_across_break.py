# aims: GB0274
# A context manager's bound __enter__ kept in a variable across a graph break, or returned.
import contextlib

import torch


@torch.compile(backend="eager", fullgraph=False)
def fn(x):
    enter = torch.no_grad().__enter__
    print("break")
    return x + 1, enter


fn(torch.randn(2))


@torch.compile(backend="eager", fullgraph=True)
def gn(x):
    cm = torch.enable_grad()
    return x + 1, cm.__enter__


try:
    gn(torch.randn(2))
except Exception as e:
    print(type(e).__name__, e)


@contextlib.contextmanager
def scope():
    yield 1


@torch.compile(backend="eager", fullgraph=False)
def hn(x):
    enter = scope().__enter__
    torch._dynamo.graph_break()
    return x * enter()


hn(torch.randn(2))
