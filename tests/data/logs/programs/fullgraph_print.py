import torch


def fn(x):
    y = x.relu()
    print("y:", y)
    return y * 2


try:
    torch.compile(fn, fullgraph=True, backend="eager")(torch.randn(3))
except Exception as e:
    print(e)
