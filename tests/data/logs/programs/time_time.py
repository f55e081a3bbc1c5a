import time

import torch

torch._logging.set_logs(graph_breaks=True)


def step(x):
    start = time.time()
    y = x @ x.T
    return y, time.time() - start


torch.compile(step, backend="eager")(torch.randn(4, 4))
