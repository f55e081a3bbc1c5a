import torch


def fn(x):
    if x.sum().item() > 0:
        return x + 1
    return x - 1


try:
    torch.compile(fn, fullgraph=True, backend="eager")(torch.randn(3))
except Exception as e:
    print(type(e).__name__)
    print(e)
