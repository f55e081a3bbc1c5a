# aims: GB0035
import torch


class Flag:
    def __init__(self, t):
        self.t = t

    def __bool__(self):
        return self.t.sum() > 0


@torch.compile(backend="eager", fullgraph=True)
def fn(x):
    return x + 1 if Flag(x) else x - 1


fn(torch.randn(3))
