# aims: GB0138
import torch


class Odd(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(tensors=x)
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


@torch.compile(backend="eager", fullgraph=True)
def fn(x):
    return Odd.apply(x)


fn(torch.randn(2, requires_grad=True))
