import copy

import torch

torch._logging.set_logs(graph_breaks=True)


def fn(x):
    snapshot = copy.deepcopy(x)
    x.add_(1)
    return x - snapshot


torch.compile(fn, backend="eager")(torch.randn(3))
