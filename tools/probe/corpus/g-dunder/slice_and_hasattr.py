# aims: GB0137 GB9522 GB2412
# Attributes of slices, and hasattr() on values Dynamo models without attribute lookup.
import collections
import types

import torch


def attempt(f):
    try:
        torch.compile(f, backend="eager", fullgraph=True)(torch.randn(4))
    except Exception as e:
        print(type(e).__name__, e)
    torch._dynamo.reset()


attempt(lambda x: x[: slice(1, 3).indices(4)[1]])
attempt(lambda x: (x, slice(1, 3).__reduce__()))
attempt(lambda x: (x, slice(1, 3).__class__))
attempt(lambda x: (x, slice(1, 3).__doc__))
attempt(lambda x: (x, getattr(slice(1, 3), "stop")))
attempt(lambda x: (x, hasattr(slice(1, 3), "start")))
attempt(lambda x: (x, slice(1, 3).missing))
for make in (
    lambda x: x.shape,
    lambda x: x.dtype,
    lambda x: x.device,
    lambda x: range(3),
    lambda x: slice(1),
    lambda x: (i for i in range(2)),
    lambda x: iter([1]),
    lambda x: {"a": 1}.keys(),
    lambda x: torch.no_grad(),
    lambda x: torch.add,
    lambda x: x.add,
    lambda x: types.SimpleNamespace(a=1),
    lambda x: collections.deque(),
    lambda x: collections.OrderedDict(),
    lambda x: super(torch.nn.Linear, torch.nn.Linear(1, 1)),
    lambda x: NotImplemented,
    lambda x: ...,
    lambda x: torch.finfo(x.dtype),
    lambda x: x.grad_fn,
    lambda x: zip([1], [2]),
    lambda x: map(abs, [1]),
    lambda x: enumerate([1]),
    lambda x: memoryview(b"a"),
    lambda x: torch.Generator(),
    lambda x: torch.cpu.current_stream(),
    lambda x: torch.autograd.Function,
    lambda x: torch.nn.Parameter,
    lambda x: type(x),
    lambda x: int,
):
    attempt(lambda x, make=make: (x, hasattr(make(x), "start"), hasattr(make(x), "__len__")))
