# aims: GB0062 GB0061
# Starred unpacking of generators, dict views and user iterators.
import torch


class Count:
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))


@torch.compile(backend="eager", fullgraph=True)
def fn(x):
    a, *rest = (t * 2 for t in x)
    b, *more = {"k": 1, "j": 2}.items()
    c, *tail = Count(3)
    return [*rest, *Count(2), *x.shape], a + c


fn(torch.randn(3))
