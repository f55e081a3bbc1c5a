# aims: GB0028
# `except` with something that is not an exception class (a TypeError in eager too).
import torch


@torch.compile(backend="eager", fullgraph=True)
def fn(x):
    try:
        raise ValueError("bad")
    except 3:
        return x - 1


fn(torch.randn(2))
