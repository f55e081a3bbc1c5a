# aims: GB4749 GB6890
import torch


class Unhashable(tuple):
    __hash__ = None


@torch.compile(backend="eager", fullgraph=True)
def fn(x):
    return {Unhashable((1, 2)): x}


fn(torch.randn(2))
