# aims: GB0062
# a, *rest = something not iterable.
import torch


@torch.compile(backend="eager", fullgraph=True)
def fn(x, n):
    a, *rest = n
    return x + a


fn(torch.randn(2), 3)
