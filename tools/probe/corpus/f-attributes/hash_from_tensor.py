# aims: GB0871
import torch


class Key:
    def __init__(self, t):
        self.t = t

    def __hash__(self):
        return int(self.t.sum())

    def __eq__(self, other):
        return self is other


@torch.compile(backend="eager", fullgraph=True)
def fn(x):
    d = {Key(x): 1}
    return x + len(d)


fn(torch.randn(2))
