# aims: GB0167
import torch


def add(*args, **kwargs):
    return args


@torch.compile(backend="eager", fullgraph=True)
def fn(x):
    return add(x, **[("a", 1)])


fn(torch.randn(2))
