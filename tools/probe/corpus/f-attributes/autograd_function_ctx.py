# aims: GB0138 GB0205 GB0352
# autograd.Function whose forward saves non-tensors, saves twice, passes ctx to torch ops,
# and whose backward is not a plain function.
import torch


class Odd(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x, 3)
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


@torch.compile(backend="eager", fullgraph=True)
def fn(x):
    return Odd.apply(x)


fn(torch.randn(2, requires_grad=True))
