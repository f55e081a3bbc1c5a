# aims: GB4749 GB0871 GB6890
# Objects whose hashability Dynamo must judge: __eq__ without __hash__, __hash__ that
# reads a tensor, __hash__ = None on a subclass of a hashable class.
import torch


class Key:
    def __init__(self, v):
        self.v = v

    def __eq__(self, other):
        return self.v == other.v


@torch.compile(backend="eager", fullgraph=True)
def fn(x):
    d = {Key(1): x}
    return d


fn(torch.randn(2))
