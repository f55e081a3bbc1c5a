import torch


def fn(x):
    x = x.sin()
    torch._dynamo.graph_break()
    return x.cos()


compiled = torch.compile(fn, backend="eager")
compiled(torch.randn(3))
compiled(torch.randn(3, 4))  # new shape: recompiles and hits the same break again
