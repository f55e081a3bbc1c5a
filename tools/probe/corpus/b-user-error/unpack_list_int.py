# aims: GB0061
# [*obj] on something that is not iterable (a TypeError in eager too).
import torch


@torch.compile(backend="eager", fullgraph=True)
def fn(x, n):
    return [*n, x]


fn(torch.randn(2), 3)
