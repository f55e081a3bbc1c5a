import torch

torch._logging.set_logs(graph_breaks=True)


class Config:
    def __init__(self, scale):
        self.scale = scale


@torch._dynamo.nonstrict_trace
def scaled(x, cfg):
    return x * cfg.scale


def fn(x):
    return scaled(x, Config(2.0))


torch.compile(fn, backend="eager")(torch.randn(3))
