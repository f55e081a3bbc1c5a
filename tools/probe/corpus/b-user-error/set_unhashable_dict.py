# aims: GB4749
import torch


@torch.compile(backend="eager", fullgraph=True)
def fn(x):
    d = {{"a": 1}: x}
    return d


fn(torch.randn(2))
