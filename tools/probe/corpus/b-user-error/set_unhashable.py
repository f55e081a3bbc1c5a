# aims: GB0200 GB4749
import torch


@torch.compile(backend="eager", fullgraph=True)
def fn(x):
    s = {[1], 2}
    return x


fn(torch.randn(2))
