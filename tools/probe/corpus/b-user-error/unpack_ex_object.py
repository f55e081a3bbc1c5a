# aims: GB0062
import torch


class Box:
    pass


@torch.compile(backend="eager", fullgraph=True)
def fn(x):
    a, *rest = Box()
    return x


fn(torch.randn(2))
