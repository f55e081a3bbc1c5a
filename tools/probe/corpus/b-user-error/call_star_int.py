# aims: GB0167
# f(*n) with n not iterable, f(**l) with l not a mapping (TypeError in eager too).
import torch


def add(*args, **kwargs):
    return sum(args)


@torch.compile(backend="eager", fullgraph=True)
def fn(x, n):
    return add(*n)


fn(torch.randn(2), 3)
