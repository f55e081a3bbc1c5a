# aims: GB0111
import torch


def scale(t, factor):
    return t * factor


@torch.compile(backend="eager", fullgraph=True)
def fn(x):
    return scale(x, fctor=2)


fn(torch.randn(2))
