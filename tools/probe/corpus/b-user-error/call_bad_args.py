# aims: GB0111
# A user function called with the wrong arguments (TypeError in eager too).
import torch


def scale(t, factor):
    return t * factor


@torch.compile(backend="eager", fullgraph=True)
def fn(x):
    return scale(x, 2, 3)


fn(torch.randn(2))
