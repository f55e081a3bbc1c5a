# aims: GB0182
import torch


@torch.compile(backend="eager", fullgraph=True)
def fn(x, y):
    return (x == y).any()


fn(torch.randn(2, 3), torch.randn(4, 5))
