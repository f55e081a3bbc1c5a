# aims: GB0352
import torch


class Back:
    def __call__(self, ctx, g):
        return g * 2


class Odd(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    backward = Back()


@torch.compile(backend="eager", fullgraph=True)
def fn(x):
    return Odd.apply(x)


fn(torch.randn(2, requires_grad=True))
