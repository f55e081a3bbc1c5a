import torch

scales = {f"layer{i}": 1.0 + i for i in range(10)}


def fn(x, name):
    return x * scales[name]


compiled = torch.compile(fn, fullgraph=True, backend="eager")
for name in scales:
    compiled(torch.randn(4), name)
