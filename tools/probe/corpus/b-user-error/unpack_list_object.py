# aims: GB0061
import torch


class Box:
    pass


@torch.compile(backend="eager", fullgraph=True)
def fn(x):
    return (*Box(), x)


fn(torch.randn(2))
