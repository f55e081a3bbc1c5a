import logging

import torch

torch._logging.set_logs(graph_breaks=True)
logger = logging.getLogger("train")


def fn(x):
    logger.info("input norm computed")
    return x.norm()


torch.compile(fn, backend="eager")(torch.randn(5))
