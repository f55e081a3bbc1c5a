# aims: GB0035
# An object whose __bool__ depends on a tensor, used in an `if`.
import torch


class Flag:
    def __init__(self, t):
        self.t = t

    def __bool__(self):
        return bool(self.t.sum() > 0)


@torch.compile(backend="eager", fullgraph=True)
def fn(x):
    if Flag(x):
        return x + 1
    return x - 1


fn(torch.randn(3))
