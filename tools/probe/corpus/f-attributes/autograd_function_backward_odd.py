# aims: GB0352
# autograd.Function whose backward is a callable object or a partial, not a function.
import functools

import torch


def back(scale, ctx, g):
    return g * scale


class Odd(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    backward = staticmethod(functools.partial(back, 2))


@torch.compile(backend="eager", fullgraph=True)
def fn(x):
    return Odd.apply(x)


fn(torch.randn(2, requires_grad=True))
