# aims: GB6890 GB4749
# hash() of objects Dynamo models: a module, a function, a dtype, a device, a slice, a range,
# a generator, a method, a size, a named tuple, a frozen dataclass.
import collections
import dataclasses
import functools

import torch

lin = torch.nn.Linear(2, 2)
P = collections.namedtuple("P", "a b")


@dataclasses.dataclass(frozen=True)
class Frozen:
    a: int


def attempt(f):
    try:
        torch.compile(f, backend="eager", fullgraph=True)(torch.randn(2))
    except Exception as e:
        print(type(e).__name__, e)
    torch._dynamo.reset()


for make in (
    lambda x: lin,
    lambda x: torch.float32,
    lambda x: torch.device("cpu"),
    lambda x: slice(1, 2),
    lambda x: range(3),
    lambda x: (i for i in range(2)),
    lambda x: lin.forward,
    lambda x: x.shape,
    lambda x: P(1, 2),
    lambda x: Frozen(1),
    lambda x: functools.partial(torch.add, x),
    lambda x: x.add,
    lambda x: torch.add,
    lambda x: {1: 2}.keys(),
    lambda x: iter([1]),
    lambda x: zip([1], [2]),
    lambda x: map(abs, [1]),
    lambda x: enumerate([1]),
    lambda x: NotImplemented,
    lambda x: Ellipsis,
    lambda x: type(x),
    lambda x: super(torch.nn.Linear, lin),
    lambda x: x.grad_fn,
    lambda x: torch.finfo(torch.float32),
    lambda x: torch.no_grad(),
    lambda x: property(lambda s: 1),
    lambda x: classmethod(lambda c: 1),
    lambda x: staticmethod(lambda: 1),
):

    def fn(x, make=make):
        return x + (hash(make(x)) % 2)

    attempt(fn)
