# aims: GB0035
# An object without __bool__ whose __len__ depends on a tensor, used in an `if`.
import torch


class Items:
    def __init__(self, t):
        self.t = t

    def __len__(self):
        return int((self.t > 0).sum())


@torch.compile(backend="eager", fullgraph=True)
def fn(x):
    if Items(x):
        return x + 1
    return x - 1


fn(torch.randn(3))
